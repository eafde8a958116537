"""Writes into a view reach its base, and writes into the base reach its live views, as torch's
views (and MindSpore 2.10's, tests/oracle/snippets/view_writes.py) share memory: the same view
op, the same write, compared with torch on the base and on the view. Gradients through such
writes are torch's (its CopySlices); a write into a view of a Tensor that gradients are taken
with respect to is refused while recording, as torch refuses it."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ms_core as ms
from tests.optest import F32_TOL, check_double_backward, check_op

X = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5 - 2.0

# the same call on a torch tensor and on an ms_core Tensor (torch's method names and signatures)
VIEWS = {
    "view(-1)": lambda x: x.view(-1),
    "view(4, 3)": lambda x: x.view(4, 3),
    "reshape(2, 6)": lambda x: x.reshape(2, 6),
    "view_as": lambda x: x.view_as(x.reshape(6, 2)),
    "x[0]": lambda x: x[0],
    "x[1::2]": lambda x: x[1::2],
    "x[:, 1:3]": lambda x: x[:, 1:3],
    "x[..., -1]": lambda x: x[..., -1],
    "x[None]": lambda x: x[None],
    "x[1, 2:]": lambda x: x[1, 2:],
    "transpose(0, 1)": lambda x: x.transpose(0, 1),
    "T": lambda x: x.T,
    "t()": lambda x: x.t(),
    "permute(1, 0)": lambda x: x.permute(1, 0),
    "movedim(0, 1)": lambda x: x.movedim(0, 1),
    "swapdims(0, 1)": lambda x: x.swapdims(0, 1),
    "narrow(1, 1, 2)": lambda x: x.narrow(1, 1, 2),
    "unsqueeze(1)": lambda x: x.unsqueeze(1),
    "unsqueeze(0).squeeze(0)": lambda x: x.unsqueeze(0).squeeze(0),
    "flatten()": lambda x: x.flatten(),
    "select(1, 2)": lambda x: x.select(1, 2),
    "diagonal()": lambda x: x.diagonal(),
    "diagonal(1)": lambda x: x.diagonal(1),
    "chunk(2, 1)[1]": lambda x: x.chunk(2, 1)[1],
    "split(2, 0)[1]": lambda x: x.split(2, 0)[1],
    "unbind(1)[3]": lambda x: x.unbind(1)[3],
    "tensor_split(3, 1)[0]": lambda x: x.tensor_split(3, 1)[0],
    "expand(2, 3, 4)[1]": lambda x: x.expand(2, 3, 4)[1],
    "view of a view": lambda x: x.view(-1)[2:10].view(2, 4)[:, ::2],
    "T of a slice, reshaped": lambda x: x[:, 1:].T.reshape(3, 3),
}

# torch copies: a write into the result must not reach the base
COPIES = {
    "T.reshape(-1)": lambda x: x.T.reshape(-1),
    "T.flatten()": lambda x: x.T.flatten(),
    "T.contiguous()": lambda x: x.T.contiguous(),
    "x[[0, 2]]": lambda x: x[[0, 2]],
    "x[x > 0]": lambda x: x[x > 0],
    "clone": lambda x: x.clone() if isinstance(x, torch.Tensor) else x.copy(),
}


def _write(lib):
    """The in-place writes compared: item assignment and the in-place methods."""
    full = (lambda v: torch.full_like(v, 7.0)) if lib is torch else (lambda v: ms.ops.full_like(v, 7.0))
    return {
        "v[0] = 9": lambda v: v.__setitem__(0 if v.ndim else (), 9.0),
        "v[...] = tensor": lambda v: v.__setitem__(Ellipsis, full(v)),
        "copy_": lambda v: v.copy_(full(v)),
        "add_": lambda v: v.add_(1.5),
        "mul_": lambda v: v.mul_(-2.0),
        "zero_": lambda v: v.zero_(),
        "fill_": lambda v: v.fill_(3.0),
    }


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.asnumpy()


def _apply(lib, make_view, write):
    x = torch.tensor(X) if lib is torch else ms.Tensor(X)
    v = make_view(x)
    _write(lib)[write](v)
    return _np(x).copy(), _np(v).copy()


@pytest.mark.parametrize("write", sorted(_write(torch)))
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_write_into_a_view_reaches_its_base(name, write):
    want_base, want_view = _apply(torch, VIEWS[name], write)
    got_base, got_view = _apply(ms, VIEWS[name], write)
    assert not np.array_equal(want_base, X)  # the case writes through in torch
    np.testing.assert_allclose(got_base, want_base, **F32_TOL)
    np.testing.assert_allclose(got_view, want_view, **F32_TOL)
    assert got_base.dtype == np.float32 and got_view.dtype == np.float32


@pytest.mark.parametrize("name", sorted(COPIES))
def test_a_write_into_a_copy_does_not_reach_the_base(name):
    want_base, want_view = _apply(torch, COPIES[name], "v[0] = 9")
    got_base, got_view = _apply(ms, COPIES[name], "v[0] = 9")
    np.testing.assert_array_equal(want_base, X)
    np.testing.assert_array_equal(got_base, X)
    np.testing.assert_allclose(got_view, want_view, **F32_TOL)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_write_into_the_base_reaches_its_live_views(name):
    results = []
    for lib in (torch, ms):
        x = torch.tensor(X) if lib is torch else ms.Tensor(X)
        v = VIEWS[name](x)
        x[1, 2] = 100.0
        x.add_(1.0)
        results.append(_np(v).copy())
    np.testing.assert_allclose(results[1], results[0], **F32_TOL)


def test_sibling_views_see_each_others_writes():
    for lib in (torch, ms):
        x = torch.tensor(X) if lib is torch else ms.Tensor(X)
        rows, cols = x.view(-1)[4:8], x.T
        rows[1] = 50.0
        cols[2, 1] = 60.0
        assert _np(cols)[1, 1] == 50.0 and _np(rows)[2] == 60.0 and _np(x)[1, 2] == 60.0


def test_a_write_into_an_expanded_view_that_repeats_elements_is_refused():
    x = ms.Tensor(X)
    e = x.expand(2, 3, 4)
    with pytest.raises(RuntimeError, match="share memory"):
        e[:, 0] = 1.0  # torch: "more than one element of the written-to tensor refers to a single memory location"
    with pytest.raises(RuntimeError, match="share memory"):
        e.add_(1.0)
    np.testing.assert_array_equal(x.asnumpy(), X)


# --- gradients: torch's (CopySlices) --------------------------------------------------------

def _grad_cases(lib):
    def overwrite_flat(x):
        y = x * 2
        v = y.view(-1)
        v[0] = 0.0
        return (y * y).sum()

    def row_gets_a_value_of_x(x):
        y = x * 2
        v = y[0]
        v[1] = x[1, 2] * 3
        return (y * y).sum()

    def transposed_view_read_after(x):
        y = x * 2
        v = y.T
        v[0] = 1.0
        return v * v * x.T

    def column_and_an_earlier_use(x):
        y = x * 2
        z = y.exp()
        v = y[:, 1]
        v[0] = 5.0
        return z + y * y

    def copy_taken_before_the_write(x):
        y = x * 2
        v = y.view(-1)
        w = v * 1
        v[0:2] = x[0, :2] ** 2
        return (y * y).sum() + (w * x.reshape(-1)).sum()

    def in_place_method_on_a_view(x):
        y = x + 1
        y[1:].mul_(x[:2])
        y.diagonal().add_(x[0, :3])
        return y * x

    def view_of_a_view_written_by_a_scan(x):
        h = x.clone() if lib is torch else x.copy()
        hh = h.view(6, 2)
        hh[:, 1].add_(hh[:, 0] * 0.5)
        hh[1:, 0].add_(hh[:-1, 1])
        return h.sin()

    return dict(overwrite_flat=overwrite_flat, row_gets_a_value_of_x=row_gets_a_value_of_x,
                transposed_view_read_after=transposed_view_read_after,
                column_and_an_earlier_use=column_and_an_earlier_use,
                copy_taken_before_the_write=copy_taken_before_the_write,
                in_place_method_on_a_view=in_place_method_on_a_view,
                view_of_a_view_written_by_a_scan=view_of_a_view_written_by_a_scan)


@pytest.mark.parametrize("name", sorted(_grad_cases(torch)))
def test_gradients_through_a_write_into_a_view_are_torchs(name):
    x = np.random.default_rng(1).uniform(-1, 1, (3, 4)).astype(np.float32)
    check_op(_grad_cases(ms)[name], _grad_cases(torch)[name], [x])


def test_second_derivatives_through_a_write_into_a_view():
    x = np.random.default_rng(2).uniform(-1, 1, (3, 4))
    check_double_backward(_grad_cases(ms)["copy_taken_before_the_write"], [x])
    check_double_backward(_grad_cases(ms)["in_place_method_on_a_view"], [x])


def test_a_write_into_a_view_of_a_grad_input_is_refused_while_recording():
    def f(x):
        v = x.view(-1)
        v[0] = 0.0
        return (x * x).sum()

    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        f(torch.tensor(X, requires_grad=True))
    with pytest.raises(RuntimeError, match="a view of a Tensor that gradients are taken with respect to"):
        ms.grad(f)(ms.Tensor(X))
    # outside a transform nothing is recorded: the write is an ordinary one
    x = ms.Tensor(X)
    assert f(x).asnumpy() == pytest.approx(float((X.reshape(-1)[1:] ** 2).sum()))


def test_parameter_initialised_through_a_view_outside_a_transform():
    """Weight-init code writes parts of a Parameter (`w.data[:, :2].copy_(...)`, `w[0].zero_()`)."""
    tw = torch.nn.Parameter(torch.tensor(X))
    with torch.no_grad():
        tw.data[:, :2].copy_(torch.ones(3, 2))
        tw[0].zero_()
    w = ms.Parameter(ms.Tensor(X), name="w")
    w.data[:, :2].copy_(ms.ops.ones((3, 2), ms.float32))
    w[0].zero_()
    np.testing.assert_array_equal(w.asnumpy(), tw.detach().numpy())


# --- copies stay copies -----------------------------------------------------------------------

def test_tensors_and_parameters_built_from_data_do_not_share_it():
    a = X.copy()
    t = ms.Tensor(a)
    p = ms.Parameter(t, name="p")
    a[0, 0] = 99.0  # MindSpore 2.10: Tensor(ndarray) and Parameter(Tensor) copy
    t[0, 1] = 98.0
    assert t.asnumpy()[0, 0] == X[0, 0] and p.asnumpy()[0, 1] == X[0, 1]


def test_a_copied_view_is_a_tensor_of_its_own():
    x = ms.Tensor(X)
    v = x[1]
    for twin in (copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        twin[0] = 123.0
        np.testing.assert_array_equal(x.asnumpy(), X)
        assert twin.asnumpy()[0] == 123.0
    x2 = copy.deepcopy(x)
    x2[1, 1] = -5.0
    np.testing.assert_array_equal(v.asnumpy(), X[1])


def _scan_in_place(a, h):
    """mambapy's parallel scan (tests/fixtures/convert/scan_in_views.py) written with ms_core:
    h[..., t] becomes a[..., t] * h[..., t-1] + h[..., t], through writes into views."""
    B, D, L = a.shape
    steps = L.bit_length() - 1
    aa, hh = a, h
    for _ in range(steps):
        T = hh.shape[2]
        aa, hh = aa.view(B, D, T // 2, 2), hh.view(B, D, T // 2, 2)
        hh[:, :, :, 1] = hh[:, :, :, 1] + aa[:, :, :, 1] * hh[:, :, :, 0]
        aa[:, :, :, 1] = aa[:, :, :, 1] * aa[:, :, :, 0]
        aa, hh = aa[:, :, :, 1], hh[:, :, :, 1]
    for k in range(steps - 2, -1, -1):
        aa, hh = a[:, :, 2**k - 1:L:2**k], h[:, :, 2**k - 1:L:2**k]
        T = hh.shape[2]
        aa, hh = aa.view(B, D, T // 2, 2), hh.view(B, D, T // 2, 2)
        hh[:, :, 1:, 0] = hh[:, :, 1:, 0] + aa[:, :, 1:, 0] * hh[:, :, :-1, 1]
        aa[:, :, 1:, 0] = aa[:, :, 1:, 0] * aa[:, :, :-1, 1]


def test_a_scan_written_through_views_computes_the_recurrence_and_its_gradient():
    """torch cannot differentiate this scan (its saved views are overwritten; mambapy wraps it in an
    autograd.Function); ms_core's gradient is the derivative of what was computed: finite
    differences in float64 (MindSpore 2.10's ms.grad drops the writes through view and differs)."""
    rng = np.random.default_rng(3)
    A, H, cot = rng.uniform(0.2, 0.9, (1, 2, 8)), rng.standard_normal((1, 2, 8)), rng.standard_normal((1, 2, 8))
    want, prev = [], np.zeros((1, 2))
    for t in range(8):
        prev = A[..., t] * prev + H[..., t]
        want.append(prev)
    h = ms.Tensor(H.astype(np.float32))
    _scan_in_place(ms.Tensor(A.astype(np.float32)), h)
    np.testing.assert_allclose(h.asnumpy(), np.stack(want, -1), **F32_TOL)

    def loss(a, x):
        a, x = a.copy(), x.copy()
        _scan_in_place(a, x)
        return (x * ms.Tensor(cot)).sum()

    grads = ms.grad(loss, grad_position=(0, 1))(ms.Tensor(A), ms.Tensor(H))
    for which, g in enumerate(grads):
        numeric = np.zeros(A.size)
        for i in range(A.size):
            args = [A.copy(), H.copy()]
            args[which].reshape(-1)[i] += 1e-6
            up = loss(*map(ms.Tensor, args)).asnumpy()
            args[which].reshape(-1)[i] -= 2e-6
            numeric[i] = (up - loss(*map(ms.Tensor, args)).asnumpy()) / 2e-6
        np.testing.assert_allclose(g.asnumpy().reshape(-1), numeric, rtol=1e-7, atol=1e-8)
