"""Tensor methods called with torch's signatures, as MindSpore 2.10 accepts them: the same
expression on a torch tensor and on an ms_core Tensor gives the same values, dtypes and
gradients (one line per expression); where MindSpore 2.10 itself differs from torch, the
difference is asserted on its own (biased std, Int32 sort indices, in-place gradients).
"""
import numpy as np
import pytest
import torch

import ms_core as ms
from tests.optest import check_double_backward, check_op

rs = np.random.RandomState(0)
X = rs.randn(2, 3, 4).astype(np.float32)
Y = rs.randn(2, 3, 4).astype(np.float32)
M = rs.randn(3, 4).astype(np.float32)
SQ = (rs.randn(3, 3) + 3 * np.eye(3)).astype(np.float32)
POS = (np.abs(rs.randn(2, 3, 4)) + 0.5).astype(np.float32)
IDX = rs.randint(0, 3, (2, 3, 4)).astype(np.int64)
MASK = rs.rand(2, 3, 4) > 0.5
INTS = np.array([3, 1, 3, 0, 2, 3], np.int64)


def same(expr, *names, grad=True, rtol=None, atol=None):
    """`expr` over the named inputs gives torch's values and gradients on ms_core."""
    arrays = [{"x": X, "y": Y, "m": M, "sq": SQ, "pos": POS, "idx": IDX, "mask": MASK,
               "ints": INTS}[n] for n in names]
    code = f"lambda {', '.join(names)}: {expr}"
    ms_fn, torch_fn = eval(code, MS_NAMES), eval(code, TORCH_NAMES)
    if not grad:
        got = _flat(ms_fn(*(ms.Tensor(a) for a in arrays)))
        want = _flat(torch_fn(*(torch.tensor(a) for a in arrays)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert type(g) is type(w) and np.shape(g) == np.shape(w), (g, w)
            assert getattr(g, "dtype", None) == getattr(w, "dtype", None), (g, w)
            np.testing.assert_allclose(g, w, rtol=1e-6)
        return
    grad_idx = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    check_op(ms_fn, torch_fn, arrays, grad_idx=grad_idx, rtol=rtol, atol=atol)


MS_NAMES = {"ms": ms, "T": ms.Tensor}
TORCH_NAMES = {"ms": torch, "T": torch.tensor}


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [v for o in out for v in _flat(o)]
    if isinstance(out, ms.Tensor):
        return [out.asnumpy()]
    if isinstance(out, torch.Tensor):
        return [out.numpy()]
    return [out]


SAME = [
    # shape
    ("x.reshape(6, 4)", "x"), ("x.reshape((4, -1))", "x"), ("x.view(4, 6)", "x"), ("x.view(-1)", "x"),
    ("x.transpose(0, 1)", "x"), ("x.transpose(-1, -2)", "x"), ("m.transpose(0, 1)", "m"),
    ("m.transpose(1, 0)", "m"), ("x.permute(2, 0, 1)", "x"), ("x.permute((2, 0, 1))", "x"),
    ("x.permute(dims=(1, 2, 0))", "x"), ("x.flatten()", "x"), ("x.flatten(1)", "x"),
    ("x.flatten(0, 1)", "x"), ("x.flatten(start_dim=1)", "x"), ("x[:, :1].squeeze(1)", "x"),
    ("x.squeeze(1)", "x"), ("x[:1].squeeze()", "x"), ("x[:1, :, :1].squeeze((0, 2))", "x"),
    ("x.unsqueeze(dim=-1)", "x"), ("x[:, :1].squeeze(axis=1)", "x"), ("x[:, :1].expand(2, 3, 4)", "x"),
    ("x[:, :1].expand((-1, 3, -1))", "x"), ("x[:, :1].expand_as(x)", "x"),
    ("x.repeat(1, 2, 1)", "x"), ("x.repeat((2, 1, 1, 2))", "x"), ("x.tile((1, 2))", "x"),
    ("x.repeat_interleave(2)", "x"), ("x.repeat_interleave(2, dim=1)", "x"),
    ("x.repeat_interleave(T([1, 0, 2]), 1)", "x"), ("x.split(2, 2)", "x"),
    ("x.split([1, 2], 1)", "x"), ("x.split(2, dim=2)", "x"), ("x.chunk(2, dim=2)", "x"),
    ("x.tensor_split(2, 1)", "x"), ("x.unbind(1)", "x"), ("x.narrow(1, 1, 2)", "x"),
    ("x.select(1, 0)", "x"), ("x.movedim(0, 2)", "x"), ("x.moveaxis((0, 1), (2, 0))", "x"),
    ("x.swapdims(0, 2)", "x"), ("x.flip([0, 2])", "x"), ("x.flip(dims=(1,))", "x"),
    ("x.roll(1, 2)", "x"), ("x.roll((1, -2), (0, 2))", "x"), ("x.roll(3)", "x"),
    ("m.t()", "m"), ("x.diagonal(0, 1, 2)", "x"), ("m.diagonal(1)", "m"), ("m.diagonal(-1)", "m"),
    ("x.diff()", "x"),
    # reductions
    ("x.sum()", "x"), ("x.sum(1)", "x"), ("x.sum((1, 2))", "x"), ("x.sum(dim=1, keepdim=True)", "x"),
    ("x.sum(1, True)", "x"), ("x.sum(dim=-1, dtype=ms.float64)", "x"), ("x.mean(1)", "x"),
    ("x.mean(dim=(0, 2), keepdim=True)", "x"), ("pos.prod(1)", "pos"), ("pos.prod(dim=2, keepdim=True)", "pos"),
    ("x.max()", "x"), ("x.max(1)", "x"), ("x.max(dim=1)", "x"), ("x.max(1, keepdim=True)", "x"),
    ("x.max(1, True)", "x"), ("x.min(dim=-1)", "x"), ("x.amax(1)", "x"), ("x.amin((0, 2), True)", "x"),
    ("x.logsumexp(1)", "x"), ("x.logsumexp(1, keepdim=True)", "x"), ("x.median(1)", "x"),
    ("x.median(dim=2, keepdim=True)", "x"), ("x.cumsum(1)", "x"), ("x.cumsum(dim=2)", "x"),
    ("x.std(1, correction=0)", "x"), ("x.var(dim=2, correction=1, keepdim=True)", "x"),
    # elementwise and linear algebra
    ("x.add(y)", "x", "y"), ("x.add(y, alpha=2)", "x", "y"), ("x.sub(y, alpha=0.5)", "x", "y"),
    ("x.mul(y)", "x", "y"), ("x.mul(2)", "x"), ("x.div(pos)", "x", "pos"), ("x.div(2)", "x"),
    ("x.clamp(-0.5, 0.5)", "x"), ("x.clamp(min=0)", "x"), ("x.clamp(max=0.1)", "x"),
    ("x.pow(2)", "x"), ("pos.pow(x)", "pos", "x"), ("pos.sqrt()", "pos"), ("x.abs()", "x"),
    ("x.exp()", "x"), ("pos.log()", "pos"), ("pos.log2()", "pos"), ("pos.log10()", "pos"),
    ("x.sin()", "x"), ("x.cos()", "x"), ("x.tan()", "x"), ("x.tanh()", "x"), ("x.sigmoid()", "x"),
    ("x.softmax(1)", "x"), ("x.softmax(-1)", "x"), ("x.square()", "x"), ("x.neg()", "x"),
    ("x.negative()", "x"), ("x.absolute()", "x"), ("x.frac()", "x"), ("x.erf()", "x"),
    ("x.expm1()", "x"), ("pos.reciprocal()", "pos"), ("pos.rsqrt()", "pos"),
    ("x.lerp(y, 0.3)", "x", "y"), ("x.addcmul(y, x, value=0.5)", "x", "y"),
    ("x.addcdiv(y, pos, value=0.5)", "x", "y", "pos"), ("x.maximum(y)", "x", "y"),
    ("x.minimum(y)", "x", "y"), ("m.matmul(m.t())", "m"), ("m.mm(m.t())", "m"),
    ("sq.inverse()", "sq"), ("sq.det()", "sq"), ("sq.trace()", "sq"), ("x.masked_fill(mask, 0.5)", "x", "mask"),
    ("x.where(mask, y)", "x", "mask", "y"), ("x.nan_to_num()", "x"), ("x.gather(2, idx)", "x", "idx"),
    ("x.gather(dim=1, index=idx)", "x", "idx"), ("x.take_along_dim(idx, 2)", "x", "idx"),
    ("x.scatter(2, idx, y)", "x", "idx", "y"), ("x.scatter(2, idx, 1.5)", "x", "idx"),
    ("x.scatter_add(2, idx, y)", "x", "idx", "y"),
    ("x.index_fill(1, T([0, 2]), -1.0)", "x"),
    ("x.mT", "x"), ("m.mT @ m", "m"),  # MindSpore 2.10 has Tensor.mT too (pytorch/examples GAT)
]


@pytest.mark.parametrize("case", SAME, ids=lambda c: c[0])
def test_same_as_torch(case):
    same(*case)


NO_GRAD = [
    ("x.any()", "x"), ("mask.any(1)", "mask"), ("mask.any(dim=1, keepdim=True)", "mask"),
    ("mask.all(2)", "mask"), ("mask.all(dim=(0, 1))", "mask"), ("x.gt(0).sum(1)", "x"),
    ("x.round()", "x"), ("x.round(decimals=1)", "x"), ("x.trunc()", "x"), ("x.floor()", "x"),
    ("x.ceil()", "x"), ("x.sign()", "x"), ("x.sgn()", "x"), ("x.is_floating_point()", "x"),
    ("ints.nonzero()", "ints"), ("ints.nonzero(as_tuple=True)", "ints"), ("ints.argwhere()", "ints"),
    ("ints.unique()", "ints"), ("ints.unique(return_inverse=True, return_counts=True)", "ints"),
("ints.byte()", "ints"),
    ("ints.short()", "ints"), ("x.ndimension()", "x"), ("x.bool()", "x"),
    ("x.div(y, rounding_mode='floor')", "x", "y"), ("ints.remainder(2)", "ints"),
    ("ints.floor_divide(2)", "ints"), ("x.isclose(y)", "x", "y"), ("x.eq(x)", "x"),
    ("x.logical_and(y)", "x", "y"), ("x.argmax()", "x"), ("x.argmax(1)", "x"),
    ("x.argmax(dim=1, keepdim=True)", "x"), ("x.new_zeros((2, 3))", "x"), ("x.new_ones((2,))", "x"),
    ("x.new_full((2, 3), 7.0)", "x"),
]


@pytest.mark.parametrize("case", NO_GRAD, ids=lambda c: c[0])
def test_same_as_torch_without_gradients(case):
    same(*case, grad=False)


def test_mindspore_forms_still_work():
    x = ms.Tensor(X)
    np.testing.assert_allclose(x.sum(axis=1, keepdims=True).asnumpy(), X.sum(1, keepdims=True))
    np.testing.assert_allclose(x.sum(1, ms.float64).asnumpy(), X.sum(1).astype(np.float64))
    np.testing.assert_allclose(x.mean(axis=(0, 1), keep_dims=True).asnumpy(), X.mean((0, 1), keepdims=True))
    np.testing.assert_allclose(x.max(axis=1).asnumpy(), X.max(1))
    assert x.max(axis=1, return_indices=True)[1].shape == (2, 4)
    np.testing.assert_array_equal(x.argmax(axis=2, keepdims=True).asnumpy(), X.argmax(2)[..., None])
    assert x.transpose(2, 0, 1).shape == (4, 2, 3) and x.transpose((1, 0, 2)).shape == (3, 2, 4)
    assert x.transpose().shape == (4, 3, 2)
    assert x.flatten("C", start_dim=1).shape == (2, 12)
    np.testing.assert_allclose(x.flatten("F").asnumpy(), X.flatten("F"))
    np.testing.assert_allclose(x.std(axis=1, ddof=1).asnumpy(), X.std(1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(x.gather(ms.Tensor([0, 2]), 1).asnumpy(), X[:, [0, 2]])
    assert x.split(split_size_or_sections=2, axis=2)[0].shape == (2, 3, 2)
    np.testing.assert_allclose(x.cumsum().asnumpy(), X.ravel().cumsum(), rtol=1e-5)
    np.testing.assert_array_equal(x.sort(axis=0, descending=True)[0].asnumpy(), -np.sort(-X, 0))
    np.testing.assert_allclose(x.view(ms.int32).asnumpy(), X.view(np.int32))


def test_where_mindspore_2_10_differs_from_torch():
    x = ms.Tensor(X)
    # std / var divide by n unless told otherwise (torch: n - 1)
    np.testing.assert_allclose(x.std().asnumpy(), X.std(), rtol=1e-5)
    np.testing.assert_allclose(x.var(dim=1).asnumpy(), X.var(1), rtol=1e-5)
    np.testing.assert_allclose(x.std(correction=1).asnumpy(), X.std(ddof=1), rtol=1e-5)
    # sort / argsort / argmin indices are Int32; max(dim) and argmax Int64
    assert x.sort(1)[1].dtype == ms.int32 and x.argsort(dim=1).dtype == ms.int32
    assert x.argmin(1).dtype == ms.int32 and x.max(1)[1].dtype == ms.int64
    # bincount counts in Float32
    b = ms.Tensor(INTS).bincount(minlength=7)
    assert b.dtype == ms.float32 and b.asnumpy().tolist() == np.bincount(INTS, minlength=7).tolist()
    # type() names MindSpore's dtype; size is the element count, a property
    assert x.type() == "Float32" and x.size == 24
    # requires_grad_ returns None (it sets a Parameter's flag)
    p = ms.Parameter(ms.Tensor(M), name="p")
    assert p.requires_grad_(False) is None and p.requires_grad is False


@pytest.mark.parametrize("expr,error", [
    ("x.flip(1)", TypeError), ("x.max(y)", TypeError), ("x.std(unbiased=False)", TypeError),
    ("x.sum(axis=1, keepdim=True)", TypeError), ("x.transpose(0, 3)", ValueError),
    ("x.repeat(2)", ValueError), ("x[0, 0].mT", ValueError), ("x.squeeze(dim=1)", TypeError),
    ("x.squeeze(1, 0)", TypeError), ("x.mm(x)", ValueError), ("x.inverse()", ValueError),
])
def test_bad_calls_raise_mindspore_style_errors(expr, error):
    x, y = ms.Tensor(X), ms.Tensor(Y)  # noqa: F841 (read by eval)
    with pytest.raises(error):
        eval(expr)


INPLACE = [
    ("x.add_(y)", "x", "y"), ("x.add_(y, alpha=-0.5)", "x", "y"), ("x.sub_(y, alpha=2)", "x", "y"),
    ("x.mul_(y)", "x", "y"), ("x.mul_(3)", "x"), ("x.div_(pos)", "x", "pos"),
    ("x.clamp_(-0.5, 0.5)", "x"), ("x.clamp_(min=0)", "x"), ("x.masked_fill_(mask, 0.0)", "x", "mask"),
    ("x.sigmoid_()", "x"), ("x.tanh_()", "x"), ("x.exp_()", "x"), ("pos.log_()", "pos"),
    ("x.copy_(y)", "x", "y"), ("x.copy_(y[:1, :1])", "x", "y"), ("x.fill_(y.sum())", "x", "y"),
    ("x.zero_()", "x"), ("x.scatter_(2, idx, y)", "x", "idx", "y"),
    ("x.scatter_add_(2, idx, y)", "x", "idx", "y"),
    ("x.index_add_(1, T([0, 0, 2]), y)", "x", "y"),
    ("x.index_fill_(2, T([1]), 2.0)", "x"),
]


@pytest.mark.parametrize("case", INPLACE, ids=lambda c: c[0])
def test_in_place_methods_update_the_tensor_and_are_differentiable(case):
    expr, *names = case
    # `z = x * 1` first: an in-place op on a grad input itself raises (as torch does for leaves)
    body = "lambda {0}: (lambda z: (z.{1}, z)[1])({2} * 1)"
    first, call = names[0], expr.split(".", 1)[1]
    code = body.format(", ".join(names), call, first)
    arrays = [{"x": X, "y": Y, "pos": POS, "idx": IDX, "mask": MASK}[n] for n in names]
    grad_idx = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    check_op(eval(code, MS_NAMES), eval(code, TORCH_NAMES), arrays, grad_idx=grad_idx)


def test_in_place_methods_return_self_and_chain():
    x = ms.Tensor(X.copy())
    assert x.mul_(2).add_(1) is x
    np.testing.assert_allclose(x.asnumpy(), X * 2 + 1, rtol=1e-6)
    p = ms.Parameter(ms.Tensor(M), name="p")
    p.mul_(0.5)
    np.testing.assert_allclose(p.asnumpy(), M * 0.5)
    assert isinstance(p, ms.Parameter) and p.name == "p"


def test_in_place_update_of_a_grad_input_raises_while_recording():
    with pytest.raises(RuntimeError, match="in-place operation"):
        ms.grad(lambda x: x.mul_(2).sum())(ms.Tensor(X))
    p = ms.Parameter(ms.Tensor(M), name="p")
    with pytest.raises(RuntimeError, match="Tensor.add_"):
        ms.grad(lambda x: (x * p.add_(1)).sum())(ms.Tensor(M))


def test_in_place_ops_have_second_derivatives():
    def f(x, y):
        z = x * 1
        z.mul_(y).add_(z.sin())
        return z
    check_double_backward(f, [X[:1, :2].astype(np.float64), Y[:1, :2].astype(np.float64)])


def test_random_fills_keep_shape_dtype_and_range():
    ms.set_seed(0)
    x = ms.Tensor(np.zeros((200, 50), np.float32))
    assert x.uniform_(2, 3) is x and x.dtype == ms.float32 and 2 <= x.asnumpy().min() < x.asnumpy().max() < 3
    x.normal_(1.0, 0.5)
    assert abs(x.asnumpy().mean() - 1.0) < 0.02 and abs(x.asnumpy().std() - 0.5) < 0.02
    x.bernoulli_(0.25)
    assert set(np.unique(x.asnumpy())) == {0.0, 1.0} and abs(x.asnumpy().mean() - 0.25) < 0.02
    n = ms.Tensor(np.zeros(1000, np.int64)).random_(3, 7)
    assert n.dtype == ms.int64 and set(np.unique(n.asnumpy())) == {3, 4, 5, 6}
    assert abs(x.exponential_(2.0).asnumpy().mean() - 0.5) < 0.02


def test_copy_is_differentiable_and_never_aliases():
    # torch's clone(); x.copy_(x.copy().mul(y)) is how converted code writes x.mul_(y)
    check_op(lambda a, b: a.copy() * b, lambda a, b: a.clone() * b, [X, Y])
    x = ms.Tensor(X)
    c = x.copy()
    assert c._data is not x._data
    check_op(lambda a, b: (lambda z: (z.copy_(z.copy().mul(b)), z)[1])(a * 1),
             lambda a, b: (lambda z: (z.mul_(b), z)[1])(a * 1), [X, Y])
