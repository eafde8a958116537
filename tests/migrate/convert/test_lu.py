"""LU factorisation and triangular solves (normflows' GlowBlock: ``torch.lu_unpack(*Q.lu())`` when built, then
``torch.linalg.solve_triangular`` in LU linear layers): the runtime's torch_lu / torch_lu_factor / torch_lu_unpack /
torch_solve_triangular on both targets, values and gradients against torch (the mindspore output run here on
ms_core; tests/oracle/test_oracle_lu.py runs it on MindSpore 2.10)."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_left import HEAD, assert_same_as_torch

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

LU = '''
def factor(a):
    lu, pivots = torch.linalg.lu_factor(a)
    return lu, pivots


def unpacked(a: torch.Tensor):
    P, L, U = torch.lu_unpack(*a.lu())
    return P @ L @ U, L, U.diag()


def packed_batch(a):
    lu, pivots, infos = torch.lu(a, get_infos=True)
    P, L, U = torch.linalg.lu(a)
    return lu * 2, pivots, infos, P, L + U


def solved(a, b):
    upper = torch.triu(a) + 4 * torch.eye(a.shape[-1])
    lower = torch.tril(a, diagonal=-1)
    x = torch.linalg.solve_triangular(upper, b, upper=True)
    y = torch.linalg.solve_triangular(lower, b, upper=False, unitriangular=True)
    z = torch.linalg.solve_triangular(upper, b.transpose(-2, -1), upper=True, left=False)
    return x, y, z
'''

RNG = np.random.RandomState(0)
CASES = {"factor": [RNG.randn(4, 4)], "unpacked": [RNG.randn(5, 5)], "packed_batch": [RNG.randn(2, 3, 3)],
         "solved": [RNG.randn(4, 4), RNG.randn(2, 4, 3)]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lu_and_triangular_solves_give_torchs_values_and_gradients(name):
    assert_same_as_torch(LU, name, [a.astype(np.float32) for a in CASES[name]])


def test_what_is_written():
    out = convert_source(HEAD + LU).code
    assert "P, L, U = torch_lu_unpack(*torch_lu(a))" in out and "lu, pivots = torch_lu_factor(a)" in out
    assert "x = torch_solve_triangular(upper, b, upper=True)" in out and "MS9" not in out


# a Glow 1x1 convolution over features, parametrised through the LU decomposition of a random rotation
GLOW = '''
class InvertibleLU(nn.Module):
    def __init__(self, n):
        super().__init__()
        Q, _ = torch.linalg.qr(torch.randn(n, n))
        P, L, U = torch.lu_unpack(*Q.lu())
        self.register_buffer("P", P)
        self.L = nn.Parameter(L)
        S = U.diag()
        self.register_buffer("sign_S", torch.sign(S))
        self.log_S = nn.Parameter(torch.log(torch.abs(S)))
        self.U = nn.Parameter(torch.triu(U, diagonal=1))

    def forward(self, z):
        L = torch.tril(self.L, diagonal=-1) + torch.eye(self.L.shape[0])
        U = torch.triu(self.U, diagonal=1) + torch.diag(self.sign_S * torch.exp(self.log_S))
        W = self.P @ L @ U
        back = torch.linalg.solve_triangular(L, (self.P.t() @ z.t()), upper=False, unitriangular=True)
        return z @ W, torch.linalg.solve_triangular(U, back, upper=True).t(), self.log_S.sum()
'''


def test_a_glow_layer_builds_from_its_lu_and_matches_torch():
    from tests.migrate.convert.test_fixtures_numeric import copy_weights
    torch_ns, ms_ns = {}, {}
    exec(HEAD + GLOW, torch_ns)  # noqa: S102
    exec(convert_source(HEAD + GLOW).code, ms_ns)  # noqa: S102 (running the converted code is the test)
    torch.manual_seed(0)
    net, cell = torch_ns["InvertibleLU"](4), ms_ns["InvertibleLU"](4)
    P = cell.P.asnumpy()  # the converted layer's own factorisation: a permutation, L unit lower, W = P L U orthogonal
    assert sorted(P.sum(0)) == sorted(P.sum(1)) == [1.0] * 4 and set(np.unique(P)) == {0.0, 1.0}
    assert copy_weights(net, cell) == set()
    z = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    want = net(torch.tensor(z))
    got = cell(ms.Tensor(z))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.detach().numpy(), rtol=1e-5, atol=1e-5)
    cots = [np.asarray(np.random.RandomState(2).randn(*w.shape), np.float32) for w in want]
    sum((w * torch.tensor(c)).sum() for w, c in zip(want, cots)).backward()
    names, params = zip(*cell.parameters_and_names())
    trained = [n for n, p in zip(names, params) if p.requires_grad]
    grads = ms.grad(lambda x: sum((o * ms.Tensor(c)).sum() for o, c in zip(cell(x), cots)), grad_position=None,
                    weights=[p for p in params if p.requires_grad])(ms.Tensor(z))
    for name, g in zip(trained, grads):
        np.testing.assert_allclose(g.asnumpy(), getattr(net, name).grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_bad_input_is_refused_with_a_clear_error():
    from migrate.runtime.linalg import torch_lu_factor, torch_solve_triangular
    with pytest.raises(ValueError, match="For 'lu_factor', the input must be a Tensor of at least 2 dimensions"):
        torch_lu_factor(ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented: pass pivot=True"):
        torch_lu_factor(ms.Tensor(np.eye(3, dtype=np.float32)), pivot=False)
    with pytest.raises(ValueError, match="For 'solve_triangular', B must have 3 rows for a 3x3 A"):
        torch_solve_triangular(ms.Tensor(np.eye(3, dtype=np.float32)), ms.Tensor(np.ones((2, 2), np.float32)), True)
