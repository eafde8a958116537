"""Every differentiable primitive: forward and grads vs torch, second derivatives vs finite differences."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import ops
from optest import check_double_backward, check_op

rng = np.random.default_rng(0)


def r(*shape, dtype=np.float32, positive=False):
    a = rng.standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return a.astype(dtype)


# (name, ms_fn, torch_fn, input factory)
CASES = [
    ("add_broadcast", ops.add, torch.add, lambda d: [r(3, 4, dtype=d), r(4, dtype=d)]),
    ("sub_broadcast", ops.sub, torch.sub, lambda d: [r(2, 1, 3, dtype=d), r(4, 1, dtype=d)]),
    ("mul_broadcast", ops.mul, torch.mul, lambda d: [r(3, 4, dtype=d), r(3, 1, dtype=d)]),
    ("div", ops.div, torch.div, lambda d: [r(3, 4, dtype=d), r(4, dtype=d, positive=True)]),
    ("pow_tensor", ops.pow, torch.pow, lambda d: [r(3, 4, dtype=d, positive=True), r(3, 4, dtype=d)]),
    ("pow_scalar", lambda x: ops.pow(x, 3), lambda x: torch.pow(x, 3), lambda d: [r(5, dtype=d)]),
    ("maximum", ops.maximum, torch.maximum, lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d)]),
    ("minimum", ops.minimum, torch.minimum, lambda d: [r(3, 4, dtype=d), r(4, dtype=d)]),
    ("neg", ops.neg, torch.neg, lambda d: [r(3, dtype=d)]),
    ("exp", ops.exp, torch.exp, lambda d: [r(3, 4, dtype=d)]),
    ("log", ops.log, torch.log, lambda d: [r(3, 4, dtype=d, positive=True)]),
    ("log1p", ops.log1p, torch.log1p, lambda d: [r(6, dtype=d, positive=True)]),
    ("sqrt", ops.sqrt, torch.sqrt, lambda d: [r(3, 4, dtype=d, positive=True)]),
    ("rsqrt", ops.rsqrt, torch.rsqrt, lambda d: [r(3, 4, dtype=d, positive=True)]),
    ("square", ops.square, torch.square, lambda d: [r(3, 4, dtype=d)]),
    ("reciprocal", ops.reciprocal, torch.reciprocal, lambda d: [r(5, dtype=d, positive=True)]),
    ("abs", ops.abs, torch.abs, lambda d: [r(3, 4, dtype=d)]),
    ("sin", ops.sin, torch.sin, lambda d: [r(6, dtype=d)]),
    ("cos", ops.cos, torch.cos, lambda d: [r(6, dtype=d)]),
    ("tanh", ops.tanh, torch.tanh, lambda d: [r(3, 4, dtype=d)]),
    ("sigmoid", ops.sigmoid, torch.sigmoid, lambda d: [r(3, 4, dtype=d) * 5]),
    ("relu", ops.relu, torch.relu, lambda d: [r(3, 4, dtype=d)]),
    ("erf", ops.erf, torch.erf, lambda d: [r(7, dtype=d)]),
    ("matmul_2d", ops.matmul, torch.matmul, lambda d: [r(3, 4, dtype=d), r(4, 5, dtype=d)]),
    ("matmul_batched_broadcast", ops.matmul, torch.matmul, lambda d: [r(2, 3, 4, dtype=d), r(4, 5, dtype=d)]),
    ("matmul_vec", ops.matmul, torch.matmul, lambda d: [r(3, 4, dtype=d), r(4, dtype=d)]),
    ("matmul_vec_left", ops.matmul, torch.matmul, lambda d: [r(4, dtype=d), r(2, 4, 5, dtype=d)]),
    ("dense", ops.dense, torch.nn.functional.linear, lambda d: [r(2, 4, dtype=d), r(3, 4, dtype=d), r(3, dtype=d)]),
    ("sum_all", ops.sum, torch.sum, lambda d: [r(3, 4, dtype=d)]),
    ("sum_axis_keep", lambda x: ops.sum(x, dim=1, keepdim=True), lambda x: torch.sum(x, 1, keepdim=True),
     lambda d: [r(3, 4, 2, dtype=d)]),
    ("sum_axes", lambda x: ops.sum(x, (0, 2)), lambda x: torch.sum(x, (0, 2)), lambda d: [r(3, 4, 2, dtype=d)]),
    ("mean_axis", lambda x: ops.mean(x, -1), lambda x: torch.mean(x, -1), lambda d: [r(3, 4, dtype=d)]),
    ("amax_axis", lambda x: ops.amax(x, 1), lambda x: torch.amax(x, 1), lambda d: [r(3, 4, dtype=d)]),
    ("amin_all", ops.amin, torch.amin, lambda d: [r(3, 4, dtype=d)]),
    ("prod_axis", lambda x: ops.prod(x, 1), lambda x: torch.prod(x, 1), lambda d: [r(3, 4, dtype=d, positive=True)]),
    ("logsumexp", lambda x: ops.logsumexp(x, 1), lambda x: torch.logsumexp(x, 1), lambda d: [r(3, 4, dtype=d)]),
    ("softmax", lambda x: ops.softmax(x, 1), lambda x: torch.softmax(x, 1), lambda d: [r(3, 4, dtype=d)]),
    ("log_softmax", lambda x: ops.log_softmax(x, -1), lambda x: torch.log_softmax(x, -1), lambda d: [r(3, 4, dtype=d)]),
    ("reshape", lambda x: ops.reshape(x, (4, -1)), lambda x: torch.reshape(x, (4, -1)),
     lambda d: [r(2, 3, 2, dtype=d)]),
    ("transpose", lambda x: ops.transpose(x, (2, 0, 1)), lambda x: x.permute(2, 0, 1), lambda d: [r(2, 3, 4, dtype=d)]),
    ("squeeze", lambda x: ops.squeeze(x, 1), lambda x: torch.squeeze(x, 1), lambda d: [r(3, 1, 2, dtype=d)]),
    ("expand_dims", lambda x: ops.expand_dims(x, 1), lambda x: torch.unsqueeze(x, 1), lambda d: [r(3, 2, dtype=d)]),
    # MindSpore 2.10's ops.unsqueeze(input, dim) takes dim by name (pytorchcv's diaresnet calls it so)
    ("unsqueeze", lambda x: ops.unsqueeze(x, dim=-1), lambda x: torch.unsqueeze(x, dim=-1),
     lambda d: [r(3, 2, dtype=d)]),
    ("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)), lambda x: x.expand(2, 3, 4),
     lambda d: [r(3, 1, dtype=d)]),
    ("tile", lambda x: ops.tile(x, (2, 3)), lambda x: x.repeat(2, 3), lambda d: [r(2, 3, dtype=d)]),
    ("concat", lambda x, y: ops.concat((x, y), 1), lambda x, y: torch.cat((x, y), 1),
     lambda d: [r(2, 3, dtype=d), r(2, 2, dtype=d)]),
    ("stack", lambda x, y: ops.stack((x, y), 1), lambda x, y: torch.stack((x, y), 1),
     lambda d: [r(2, 3, dtype=d), r(2, 3, dtype=d)]),
    ("split", lambda x: ops.split(x, 2, 1), lambda x: torch.split(x, 2, 1), lambda d: [r(2, 5, dtype=d)]),
    ("getitem_slice", lambda x: x[1:, ::2], lambda x: x[1:, ::2], lambda d: [r(4, 5, dtype=d)]),
    ("getitem_fancy_repeat", lambda x: x[[0, 2, 0]], lambda x: x[[0, 2, 0]], lambda d: [r(4, 3, dtype=d)]),
    ("where", lambda x, y: ops.where(x > 0, x, y), lambda x, y: torch.where(x > 0, x, y),
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d)]),
    ("clip_by_value", lambda x: ops.clip_by_value(x, -0.5, 0.5), lambda x: torch.clamp(x, -0.5, 0.5),
     lambda d: [r(3, 4, dtype=d)]),
    ("pad", lambda x: ops.pad(x, (1, 2, 0, 1)), lambda x: torch.nn.functional.pad(x, (1, 2, 0, 1)),
     lambda d: [r(2, 3, 4, dtype=d)]),
    ("gather", lambda x: ops.gather(x, ms.Tensor(np.array([[0, 2], [2, 2]])), 0),
     lambda x: x[torch.tensor([[0, 2], [2, 2]])], lambda d: [r(3, 4, dtype=d)]),
    ("bce_with_logits", lambda x, y: ops.binary_cross_entropy_with_logits(x, y, ops.ones_like(x), ops.ones_like(x)),
     lambda x, y: torch.nn.functional.binary_cross_entropy_with_logits(x, y),
     lambda d: [r(3, 4, dtype=d), np.abs(r(3, 4, dtype=d)) % 1]),
    ("cast_f64", lambda x: ops.cast(x, ms.float64), lambda x: x.double(), lambda d: [r(3, dtype=d)]),
]
IDS = [c[0] for c in CASES]
# ops whose second derivative is zero almost everywhere or that are piecewise: still checked;
# finite differences are exact there as long as no input sits on a kink (random inputs don't).


@pytest.mark.parametrize("name,ms_fn,torch_fn,make", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_and_grad_match_torch(name, ms_fn, torch_fn, make, dtype):
    check_op(ms_fn, torch_fn, make(dtype))


@pytest.mark.parametrize("name,ms_fn,torch_fn,make", CASES, ids=IDS)
def test_second_derivative_matches_finite_differences(name, ms_fn, torch_fn, make):
    check_double_backward(ms_fn, make(np.float64))


def test_float32_stays_float32_through_every_case():
    for name, ms_fn, _, make in CASES:
        if name == "cast_f64":
            continue
        arrays = make(np.float32)
        outs = ms_fn(*[ms.Tensor(a) for a in arrays])
        for o in (outs if isinstance(outs, tuple) else (outs,)):
            assert o.dtype == ms.float32, name


@pytest.mark.parametrize("dtypes", [("int64", "float32"), ("float32", "int32", "bool"), ("float16", "float32"),
                                    ("int64", "float16")])
def test_concat_of_mixed_dtypes_promotes_as_torch_cat(dtypes):
    """An integer (or bool) input joined to float ones takes the widest float's dtype, as
    torch.cat computes and MindSpore infers (int64 with float32 is float32, not NumPy's float64);
    the float inputs get their gradients."""
    arrays = [np.arange(6).reshape(2, 3).astype(d) for d in dtypes]
    ours = ops.cat([ms.Tensor(a) for a in arrays], 1)
    theirs = torch.cat([torch.from_numpy(a) for a in arrays], 1)
    assert str(ours.dtype).lower() == str(theirs.dtype).replace("torch.", "")
    np.testing.assert_array_equal(ours.asnumpy(), theirs.numpy())
    first_float = next(i for i, d in enumerate(dtypes) if d.startswith("float"))

    def f(x):
        parts = [ms.Tensor(a) for a in arrays]
        parts[first_float] = x
        return (ops.cat(parts, 1) * ops.arange(0, 3 * len(dtypes)).astype(ours.dtype)).sum()

    g = ms.grad(f)(ms.Tensor(arrays[first_float]))
    assert g.dtype == ms.Tensor(arrays[first_float]).dtype
    np.testing.assert_array_equal(g.asnumpy(), np.tile(np.arange(3 * first_float, 3 * first_float + 3), (2, 1)))


def test_assign_writes_into_the_parameter_in_place():
    p = ms.Parameter(ms.Tensor(np.zeros((2, 2), np.float32)), name="p")
    held = p._data  # a layer holding the Parameter sees the new values
    out = ops.assign(p, ms.Tensor(np.array([[1, 2], [3, 4]], np.float64)))
    np.testing.assert_array_equal(held, [[1, 2], [3, 4]])
    assert p.dtype == ms.float32 and out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="'variable' must be a Parameter"):
        ops.assign(ms.Tensor(np.zeros(2)), ms.Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="must be the shape of 'variable'"):
        ops.assign(p, ms.Tensor(np.ones(3, np.float32)))
