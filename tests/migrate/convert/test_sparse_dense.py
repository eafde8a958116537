"""torch.sparse_coo_tensor / spmm / sparse.mm / to_sparse / coalesce / to_dense -> dense tensors
(tests/fixtures/functions/sparse_coo.py): values and gradients against torch's sparse results,
duplicate indices summed as coalesce does (float32: rtol 1e-5 / atol 1e-6)."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import FIXTURE_ROOT, fixture_pair

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PATH = FIXTURE_ROOT / "functions" / "sparse_coo.py"
EDGES = np.array([[0, 1], [1, 2], [0, 1], [3, 0], [2, 2]], np.int32)  # (0, 1) twice
INDICES = np.array([[0, 1, 1, 3, 0], [1, 2, 2, 0, 1]], np.int64)
RNG = np.random.default_rng(4)
VALUES = RNG.standard_normal(5).astype(np.float32)
FEATURES = RNG.standard_normal((4, 3)).astype(np.float32)
WEIGHT = RNG.standard_normal((3, 2)).astype(np.float32)


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    return fixture_pair(PATH, tmp_path_factory.mktemp("sparse"))


def _close(got, want):
    want = want.to_dense() if want.is_sparse else want
    assert got.asnumpy().dtype == want.detach().numpy().dtype
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_normalised_adjacency_matches_torch(sides):
    t, m = sides
    _close(m.normalised_adjacency(EDGES, 4), t.normalised_adjacency(EDGES, 4))


def test_propagation_values_and_gradients_match_torch(sides):
    t, m = sides
    tv, tf = torch.tensor(VALUES, requires_grad=True), torch.tensor(FEATURES, requires_grad=True)
    want = t.propagate(tv, torch.tensor(INDICES), tf, torch.tensor(WEIGHT))
    got = m.propagate(ms.Tensor(VALUES), ms.Tensor(INDICES), ms.Tensor(FEATURES), ms.Tensor(WEIGHT))
    for g, w in zip(got, want):
        _close(g, w)
    cot = RNG.standard_normal((4, 2)).astype(np.float32)
    (want[0] * torch.tensor(cot)).sum().backward()
    gv, gf = ms.grad(lambda v, f: (m.propagate(v, ms.Tensor(INDICES), f, ms.Tensor(WEIGHT))[0] * ms.Tensor(cot)).sum(),
                     (0, 1))(ms.Tensor(VALUES), ms.Tensor(FEATURES))
    _close(gv, tv.grad)  # one gradient per stored value, duplicates alike
    _close(gf, tf.grad)


def test_size_inferred_from_the_indices(sides):
    t, m = sides
    _close(m.inferred_size(ms.Tensor(INDICES), ms.Tensor(VALUES)),
           t.inferred_size(torch.tensor(INDICES), torch.tensor(VALUES)))
