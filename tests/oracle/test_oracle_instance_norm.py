"""Oracle: tests/migrate/convert/test_instance_norm_targets.py's InstanceNorms converted with --target mindspore
and run on MindSpore 2.10 CPU (which has no InstanceNorm kernel): torch's values and input gradients through
the runtime's InstanceNorm*dByGroups, built in place and passed as a class."""
import pytest

from tests.migrate.convert import test_instance_norm_targets as norms

from .test_oracle import ORACLE
from .test_oracle_first_pass_left import assert_same_as_torch_on_mindspore

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]


@pytest.mark.parametrize("name", ["in_place", "by_class"])
def test_instance_norms_give_torchs_values_and_gradients_on_mindspore(name, tmp_path):
    arrays = norms._arrays()
    assert_same_as_torch_on_mindspore(norms.NORMS, name, arrays if name == "in_place" else arrays[2:], tmp_path)
