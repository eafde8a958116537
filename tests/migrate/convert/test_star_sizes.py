"""Varargs sizes given with *-arguments (``x.view(*shape)``, ``torch.zeros(*s)``): converted code
against torch, values and dtypes (tests/fixtures/functions/star_sizes.py)."""
import importlib.util

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = (FIXTURE_ROOT / "functions" / "star_sizes.py").read_text()


def _converted(tmp_path):
    res = convert_source(SRC)
    assert res.error is None and "# migrate" not in res.code, res.code
    path = tmp_path / "star_sizes_ms.py"
    path.write_text(res.code)
    spec = importlib.util.spec_from_file_location("star_sizes_ms", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, res.code


def test_star_sizes_are_translated_without_markers(tmp_path):
    _, code = _converted(tmp_path)
    assert "x.view(*shape)" in code and "a.permute(*dims)" in code and "ops.tile(x.view(*shape), _torch_sizes(*reps))" in code
    assert convert_source(code).code == code


@pytest.mark.parametrize("shape,dims,reps", [([2, 6], [1, 0], [2, 1]), ((3, 4), (1, 0), (1, 2, 2))])
def test_star_sizes_match_torch(tmp_path, shape, dims, reps):
    mod, _ = _converted(tmp_path)
    spec = importlib.util.spec_from_file_location("star_sizes_torch", FIXTURE_ROOT / "functions" / "star_sizes.py")
    tmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tmod)
    x = np.arange(12, dtype=np.float32) - 5.5
    want = tmod.compute(torch.tensor(x), shape, dims, reps, torch.int32)
    got = mod.compute(ms.Tensor(x), shape, dims, reps, ms.int32)
    for w, g in zip(want, got):
        assert tuple(g.shape) == tuple(w.shape)
        assert g.asnumpy().dtype == w.numpy().dtype
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-6, atol=0)
