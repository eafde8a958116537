"""Oracle: tests/migrate/convert/test_lu.py's LU factorisations and triangular solves converted with
--target mindspore and run on MindSpore 2.10: torch's values (pivots and infos as int32) and gradients."""
import numpy as np
import pytest

from tests.migrate.convert import test_lu as lu

from .test_oracle import ORACLE
from .test_oracle_first_pass_left import assert_same_as_torch_on_mindspore

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]


@pytest.mark.parametrize("name", sorted(lu.CASES))
def test_lu_and_triangular_solves_run_on_mindspore(name, tmp_path):
    assert_same_as_torch_on_mindspore(lu.LU, name, [a.astype(np.float32) for a in lu.CASES[name]], tmp_path)
