"""Whole-module torch.save/torch.load through open files -> save_checkpoint(model, f.name) /
model = _torch_load_into(model, ms.hub.load(f.name)) (tests/fixtures/functions/
whole_module_checkpoint.py): the reloaded network gives the saved one's outputs, as torch's."""
import importlib.util
import sys

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PATH = FIXTURE_ROOT / "functions" / "whole_module_checkpoint.py"
X = np.random.default_rng(6).standard_normal((5, 2, 3)).astype(np.float32)


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # (torch pickles the module's class by its module's name)
    spec.loader.exec_module(mod)
    return mod


def test_conversion_has_no_marker_and_uses_the_files_path():
    code = convert_source(PATH.read_text()).code
    assert "# migrate" not in code, code
    assert "ms.save_checkpoint(model, f.name)" in code
    assert "model = _torch_load_into(model, ms.hub.load(f.name))" in code
    body = code[code.index("def round_trip"):]
    assert "safe_globals" not in body and "flatten_parameters" not in body
    assert convert_source(code).code == code


def test_reloaded_module_gives_the_saved_outputs_like_torch(tmp_path):
    out = tmp_path / "whole_ms.py"
    out.write_text(convert_source(PATH.read_text()).code)
    m, t = _load("whole_ms", out), _load("whole_torch", PATH)
    before, after = m.round_trip(str(tmp_path / "ms.pt"), ms.Tensor(X), 1.5)
    np.testing.assert_allclose(after.asnumpy(), before.asnumpy(), rtol=1e-6, atol=0)
    t_before, t_after = t.round_trip(str(tmp_path / "torch.pt"), torch.tensor(X), 1.5)
    np.testing.assert_allclose(t_after.detach().numpy(), t_before.detach().numpy(), rtol=1e-6, atol=0)
    assert after.shape == tuple(t_after.shape)
