"""Whole-module torch.save/torch.load through open files -> save_checkpoint(model, f.name) /
model = torch_load_into(model, ms.hub.load(f.name)) (tests/fixtures/functions/
whole_module_checkpoint.py): the reloaded network gives the saved one's outputs, as torch's."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT, fixture_pair

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PATH = FIXTURE_ROOT / "functions" / "whole_module_checkpoint.py"
X = np.random.default_rng(6).standard_normal((5, 2, 3)).astype(np.float32)


def test_conversion_has_no_marker_and_uses_the_files_path():
    code = convert_source(PATH.read_text()).code
    assert "# migrate" not in code, code
    assert "ms.save_checkpoint(model, f.name)" in code
    assert "model = torch_load_into(model, ms.hub.load(f.name))" in code
    body = code[code.index("def round_trip"):]
    assert "safe_globals" not in body and "flatten_parameters" not in body
    assert convert_source(code).code == code


def test_reloaded_module_gives_the_saved_outputs_like_torch(tmp_path):
    t, m = fixture_pair(PATH, tmp_path)
    before, after = m.round_trip(str(tmp_path / "ms.pt"), ms.Tensor(X), 1.5)
    np.testing.assert_allclose(after.asnumpy(), before.asnumpy(), rtol=1e-6, atol=0)
    t_before, t_after = t.round_trip(str(tmp_path / "torch.pt"), torch.tensor(X), 1.5)
    np.testing.assert_allclose(t_after.detach().numpy(), t_before.detach().numpy(), rtol=1e-6, atol=0)
    assert after.shape == tuple(t_after.shape)
