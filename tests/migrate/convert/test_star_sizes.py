"""Varargs sizes given with *-arguments (``x.view(*shape)``, ``torch.zeros(*s)``): converted code
against torch, values and dtypes (tests/fixtures/functions/star_sizes.py)."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import FIXTURE_ROOT, fixture_pair

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PATH = FIXTURE_ROOT / "functions" / "star_sizes.py"


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    return fixture_pair(PATH, tmp_path_factory.mktemp("star"),
                        "x.view(*shape)\n    b = x.view(*[tuple(shape)])\n    c = a.permute(*dims)")


def test_repeat_and_factories_size_at_run_time():
    code = (FIXTURE_ROOT / "functions" / "star_sizes.py").read_text()
    from migrate import convert_source
    out = convert_source(code).code
    assert "ops.tile(x.view(*shape), torch_sizes(*reps))" in out and "ops.zeros(torch_sizes(*shape))" in out


@pytest.mark.parametrize("shape,dims,reps", [([2, 6], [1, 0], [2, 1]), ((3, 4), (1, 0), (1, 2, 2))])
def test_star_sizes_match_torch(sides, shape, dims, reps):
    t, m = sides
    x = np.arange(12, dtype=np.float32) - 5.5
    want = t.compute(torch.tensor(x), shape, dims, reps, torch.int32)
    got = m.compute(ms.Tensor(x), shape, dims, reps, ms.int32)
    for w, g in zip(want, got):
        assert tuple(g.shape) == tuple(w.shape)
        assert g.asnumpy().dtype == w.numpy().dtype
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-6, atol=0)
