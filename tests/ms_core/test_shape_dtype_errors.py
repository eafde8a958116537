"""Bad shapes, axes and dtypes refused as MindSpore 2.10 refuses them (issue 12, section 3): in its
words (`For 'X', ...`), never NumPy's message, never a silently wrapped axis or a promoted dtype.
torch refuses the same inputs (checked beside each case); Tensor.to takes MindSpore 2.10's forms.
"""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn, ops

X = np.arange(6, dtype=np.float32).reshape(2, 3)


# what torch raises for these inputs (a NameError or an AttributeError would be a broken test)
REFUSALS = (RuntimeError, ValueError, TypeError, IndexError)


def refused(fn, *args):
    """Call fn; return the exception it raised (the test fails if it raised none)."""
    with pytest.raises(REFUSALS) as info:
        fn(*args)
    return info.value


def refused_expr(expr: str, **names):
    """Evaluate ``expr`` over ``names``; return the exception it raised."""
    return refused(lambda: eval(expr, {"ops": ops, "torch": torch, "ms": ms}, names))


# ---- matrix products: one dtype ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.float64])
def test_dense_refuses_an_input_of_another_dtype(dtype):
    dense = nn.Dense(3, 2)
    err = refused(dense, ms.Tensor(X.astype(dtype)))
    name = {np.int32: "Int32", np.float16: "Float16", np.float64: "Float64"}[dtype]
    assert isinstance(err, TypeError) and str(err) == (
        f"For 'MatMul', the type of 'x2' should be same as 'x1', but got 'x1' with type "
        f"Tensor[{name}] and 'x2' with type Tensor[Float32].")
    refused(torch.nn.Linear(3, 2), torch.from_numpy(X.astype(dtype)))  # torch refuses too


@pytest.mark.parametrize("expr", ["ops.matmul(a, b)", "a @ b", "a.matmul(b)", "ops.bmm(a[None], b[None])"])
@pytest.mark.parametrize("dtype", [np.int32, np.float16])
def test_matmul_refuses_mixed_dtypes(expr, dtype):
    err = refused_expr(expr, a=ms.Tensor(X), b=ms.Tensor(X.T.astype(dtype)))
    assert isinstance(err, TypeError) and str(err).startswith("For 'MatMul', the type of 'x2'")
    refused_expr(expr.replace("ops.", "torch."), a=torch.from_numpy(X), b=torch.from_numpy(X.T.astype(dtype)))


def test_matmul_of_one_dtype_still_computes():
    a = ms.Tensor(X.astype(np.int32))
    np.testing.assert_array_equal((a @ a.T).asnumpy(), X.astype(np.int32) @ X.astype(np.int32).T)


# ---- operands that do not broadcast ------------------------------------------------------------
@pytest.mark.parametrize("expr,prim", [
    ("x + z", "Add"), ("ops.mul(x, z)", "Mul"), ("x / z", "Div"), ("x ** z", "Pow"),
    ("ops.maximum(x, z)", "Maximum"), ("x == z", "Equal"), ("x < z", "Less"),
])
def test_shapes_that_do_not_broadcast_are_named(expr, prim):
    err = refused_expr(expr, x=ms.Tensor(X), z=ms.Tensor(np.ones(4, np.float32)))
    assert isinstance(err, ValueError) and str(err) == (
        f"For '{prim}', x.shape and y.shape need to broadcast. The value of x.shape[1] or "
        f"y.shape[0] must be 1 when they are not the same, but got x.shape = [2, 3] and "
        f"y.shape = [4].")
    refused_expr(expr.replace("ops.", "torch."), x=torch.from_numpy(X), z=torch.ones(4))


def test_where_names_its_three_inputs():
    x, z = ms.Tensor(X), ms.Tensor(np.ones(4, np.float32))
    err = refused(ops.where, x > 0, x, z)
    assert str(err).startswith("For 'Where', input1.shape and input2.shape and input3.shape need to "
                               "broadcast. The value of input1.shape[1] or input2.shape[1] or "
                               "input3.shape[0] must be 1")


# ---- axes out of range: refused, never wrapped -------------------------------------------------
AXES = [  # (ms_core expression, torch expression) on a 2-D x
    ("ops.sum(x, 5)", "torch.sum(x, 5)"), ("ops.sum(x, -3)", "torch.sum(x, -3)"),
    ("x.sum(2)", "x.sum(2)"), ("x.mean(3)", "x.mean(3)"), ("x.prod(2)", "x.prod(2)"),
    ("x.std(2)", "x.std(2)"), ("x.norm(dim=2)", "x.norm(dim=2)"), ("ops.amax(x, 2)", "torch.amax(x, 2)"),
    ("x.logsumexp(2)", "x.logsumexp(2)"), ("ops.softmax(x, 2)", "torch.softmax(x, 2)"),
    ("ops.log_softmax(x, -3)", "torch.log_softmax(x, -3)"), ("ops.cumsum(x, 2)", "torch.cumsum(x, 2)"),
    ("ops.concat((x, x), 2)", "torch.cat((x, x), 2)"), ("ops.stack((x, x), 3)", "torch.stack((x, x), 3)"),
    ("ops.argmax(x, 2)", "torch.argmax(x, 2)"), ("x.argmin(-3)", "x.argmin(-3)"),
    ("ops.max(x, 2)", "torch.max(x, 2)"), ("x.min(2)", "x.min(2)"), ("ops.flip(x, (2,))", "torch.flip(x, (2,))"),
    ("x.flatten(2)", "x.flatten(2)"), ("ops.split(x, 1, 2)", "torch.split(x, 1, 2)"),
    ("x.chunk(2, 2)", "x.chunk(2, 2)"), ("x.narrow(2, 0, 1)", "x.narrow(2, 0, 1)"),
    ("x.sort(2)", "x.sort(2)"), ("x.topk(1, 2)", "x.topk(1, 2)"), ("x.swapaxes(0, 3)", "x.swapaxes(0, 3)"),
    ("x.unbind(2)", "x.unbind(2)"), ("x.all(2)", "x.all(2)"), ("x.any(-3)", "x.any(-3)"),
    ("ops.squeeze(x, 3)", "torch.squeeze(x, 3)"),
]


@pytest.mark.parametrize("ms_expr,torch_expr", AXES, ids=[a for a, _ in AXES])
def test_an_axis_out_of_range_is_refused_in_mindspore_words(ms_expr, torch_expr):
    err = refused_expr(ms_expr, x=ms.Tensor(X))
    assert isinstance(err, ValueError), repr(err)
    n = 3 if "stack" in ms_expr else 2  # stack inserts an axis
    assert str(err).startswith("For '") and f"must be in [-{n}, {n}), but got" in str(err), str(err)
    refused_expr(torch_expr, x=torch.from_numpy(X))


def test_axes_in_range_still_work_negative_and_on_0d():
    x = ms.Tensor(X)
    np.testing.assert_allclose(ops.sum(x, -2).asnumpy(), X.sum(0))
    np.testing.assert_allclose(x.flatten(-2).asnumpy(), X.reshape(-1))
    np.testing.assert_array_equal(ops.argmax(x, -1).asnumpy(), X.argmax(-1))
    scalar = ms.Tensor(np.float32(3.0))  # a 0-d tensor takes axis 0 or -1 (MindSpore 2.10)
    assert float(scalar.sum(0).asnumpy()) == float(scalar.sum(-1).asnumpy()) == 3.0
    assert isinstance(refused(scalar.sum, 1), ValueError)


# ---- Tensor.to: MindSpore 2.10's forms ---------------------------------------------------------
@pytest.mark.parametrize("call,dtype", [  # every form below returns this dtype on MindSpore 2.10 CPU
    ("y.to('cpu')", "Float32"), ("y.to(device='cpu')", "Float32"), ("y.to('cpu', ms.float16)", "Float16"),
    ("y.to(device='cpu', dtype=ms.float16)", "Float16"), ("y.to(ms.int32, copy=True)", "Int32"),
    ("y.to(ms.float16, non_blocking=True)", "Float16"), ("y.to(ms.Tensor([1], ms.int64))", "Int64"),
    ("y.to(None)", "Float32"), ("y.to(dtype=ms.float64)", "Float64"),
])
def test_tensor_to_takes_mindspore_forms(call, dtype):
    y = ms.Tensor(X)  # noqa: F841 (read by eval)
    out = eval(call)
    assert str(out.dtype) == dtype
    np.testing.assert_array_equal(out.asnumpy(), X.astype(out.asnumpy().dtype))


def test_tensor_to_copy_and_refusals():
    y = ms.Tensor(X)
    assert y.to(ms.float32) is y and y.to(ms.float32, copy=True) is not y
    err = refused(y.to, "cuda")
    assert isinstance(err, ValueError) and str(err).startswith("For 'Tensor.to', the 'device' must be")
    assert isinstance(refused(y.to, 1), TypeError)
