"""Oracle: tests/migrate/convert/test_conv_transpose_fn.py's functional transposed convolutions converted with
--target mindspore and run on MindSpore 2.10 (which has no CPU kernel for the functional ops.conv_transpose2d):
torch's values and the gradients of the input, weight and bias."""
import numpy as np
import pytest

from tests.migrate.convert import test_conv_transpose_fn as ct

from .test_oracle import ORACLE
from .test_oracle_first_pass_left import assert_same_as_torch_on_mindspore

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]


@pytest.mark.parametrize("name", sorted(ct.CASES))
def test_functional_transposed_convolutions_run_on_mindspore(name, tmp_path):
    assert_same_as_torch_on_mindspore(ct.DECODERS, name, [a.astype(np.float32) for a in ct.CASES[name]], tmp_path)
