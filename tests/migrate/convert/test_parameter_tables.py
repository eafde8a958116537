"""Parameter tables after conversion: a parameter set to None is removed (torch's `self.bias =
None`; MindSpore 2.10 kept None in its table and save_checkpoint failed), and a child assigned to
an attached child (`self.seq.conv = nn.Conv1d(...)`) is named by its path. The checkpoint round
trip on real MindSpore is tests/oracle/test_oracle_param_names.py."""
import importlib.util

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

ms = pytest.importorskip("ms_core")


def _converted(tmp_path, name):
    res = convert_source((FIXTURE_ROOT / "convert" / f"{name}.py").read_text())
    path = tmp_path / f"{name}_ms.py"
    path.write_text(res.code)
    spec = importlib.util.spec_from_file_location(f"{name}_ms", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", ["layer_norm_no_bias", "conv_fuse"])
def test_every_parameter_is_named_by_its_path_and_the_checkpoint_round_trips(tmp_path, name):
    mod = _converted(tmp_path, name)
    cell = mod.make_model()
    table = [(path, p) for path, p in cell.parameters_and_names()]
    assert all(p is not None for _, p in table)
    assert [p.name for _, p in table] == [path for path, _ in table]
    ms.save_checkpoint(cell, str(tmp_path / "m.ckpt"))
    again = mod.make_model()
    assert ms.load_param_into_net(again, ms.load_checkpoint(str(tmp_path / "m.ckpt")))[0] == []
    for (path, p), (_, q) in zip(table, again.parameters_and_names()):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy(), err_msg=path)


def test_a_parameter_set_to_none_leaves_the_table(tmp_path):
    mod = _converted(tmp_path, "layer_norm_no_bias")
    layer = mod.TorchLayerNorm(6, bias=False)
    assert "beta" not in layer._params and layer.beta is None
    layer.gamma = None
    assert "gamma" not in layer._params and layer.gamma is None
