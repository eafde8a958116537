"""Oracle: tests/migrate/convert/test_interpolate_targets.py's resizes converted with --target mindspore and run on
MindSpore 2.10 (an int scale_factor written as floats with recompute_scale_factor=True; trilinear and nearest 5-D
resampling): torch's values and input gradients."""
import numpy as np
import pytest

from tests.migrate.convert import test_interpolate_targets as it

from .test_oracle import ORACLE
from .test_oracle_first_pass_left import assert_same_as_torch_on_mindspore

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]


@pytest.mark.parametrize("name", sorted(it.CASES))
def test_interpolate_runs_on_mindspore_with_torchs_gradients(name, tmp_path):
    x = np.random.RandomState(1).randn(*it.CASES[name]).astype(np.float32)
    assert_same_as_torch_on_mindspore(it.UPSAMPLES, name, [x], tmp_path)
