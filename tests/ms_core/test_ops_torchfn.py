"""The ops added for the torch.* / F.* mappings: forward and gradients vs torch in float32 and
float64, second derivatives vs finite differences (tests/optest.py), and MindSpore 2.10's
behaviour where it is not torch's (checked on MindSpore 2.10 CPU)."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import ops
from optest import check_double_backward, check_op

rng = np.random.default_rng(7)


def r(*shape, dtype=np.float32, low=None, high=None):
    a = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return a.astype(dtype)


SIGNS = np.where(rng.uniform(size=(3, 4)) > 0.5, 1.0, -1.0)
LABELS01 = (rng.uniform(size=(3, 4)) > 0.5).astype(np.float64)

# (name, ms_fn, torch_fn, input factory)
PRIMITIVES = [
    ("tan", ops.tan, torch.tan, lambda d: [r(3, 4, dtype=d, low=-1.2, high=1.2)]),
    ("asin", ops.asin, torch.asin, lambda d: [r(3, 4, dtype=d, low=-0.9, high=0.9)]),
    ("acos", ops.acos, torch.acos, lambda d: [r(3, 4, dtype=d, low=-0.9, high=0.9)]),
    ("atan", ops.atan, torch.atan, lambda d: [r(3, 4, dtype=d)]),
    ("sinh", ops.sinh, torch.sinh, lambda d: [r(3, 4, dtype=d)]),
    ("cosh", ops.cosh, torch.cosh, lambda d: [r(3, 4, dtype=d)]),
    ("asinh", ops.asinh, torch.asinh, lambda d: [r(3, 4, dtype=d)]),
    ("acosh", ops.acosh, torch.acosh, lambda d: [r(3, 4, dtype=d, low=1.2, high=4)]),
    ("atanh", ops.atanh, torch.atanh, lambda d: [r(3, 4, dtype=d, low=-0.9, high=0.9)]),
    ("log2", ops.log2, torch.log2, lambda d: [r(3, 4, dtype=d, low=0.2, high=5)]),
    ("log10", ops.log10, torch.log10, lambda d: [r(3, 4, dtype=d, low=0.2, high=5)]),
    ("exp2", ops.exp2, torch.exp2, lambda d: [r(3, 4, dtype=d)]),
    ("erfc", ops.erfc, torch.erfc, lambda d: [r(3, 4, dtype=d)]),
    ("erfinv", ops.erfinv, torch.erfinv, lambda d: [r(3, 4, dtype=d, low=-0.9, high=0.9)]),
    ("lgamma", ops.lgamma, torch.lgamma, lambda d: [r(3, 4, dtype=d, low=0.3, high=6)]),
    ("digamma", ops.digamma, torch.digamma, lambda d: [r(3, 4, dtype=d, low=0.3, high=6)]),
    ("bessel_i0", ops.bessel_i0, torch.special.i0, lambda d: [r(3, 4, dtype=d) * 4]),
    ("bessel_i1", ops.bessel_i1, torch.special.i1, lambda d: [r(3, 4, dtype=d) * 4]),
    ("atan2", ops.atan2, torch.atan2, lambda d: [r(3, 4, dtype=d), r(4, dtype=d)]),
    ("fmod", ops.fmod, torch.fmod, lambda d: [r(3, 4, dtype=d) * 3, r(3, 4, dtype=d, low=0.5, high=2)]),
    ("remainder", ops.remainder, torch.remainder,
     lambda d: [r(3, 4, dtype=d) * 3, r(3, 4, dtype=d, low=0.5, high=2)]),
    ("logaddexp", ops.logaddexp, torch.logaddexp, lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d) * 20]),
    ("cumprod", lambda x: ops.cumprod(x, 1), lambda x: torch.cumprod(x, 1),
     lambda d: [r(3, 4, dtype=d, low=0.5, high=2)]),
    ("logcumsumexp", lambda x: ops.logcumsumexp(x, 1), lambda x: torch.logcumsumexp(x, 1),
     lambda d: [r(3, 4, dtype=d) * 30]),
    ("einsum_matmul", lambda a, b: ops.einsum("bij,bjk->bik", a, b), lambda a, b: torch.einsum("bij,bjk->bik", a, b),
     lambda d: [r(2, 3, 4, dtype=d), r(2, 4, 2, dtype=d)]),
    ("einsum_reduce_broadcast", lambda a, b: ops.einsum("...i,ji->...j", a, b),
     lambda a, b: torch.einsum("...i,ji->...j", a, b), lambda d: [r(2, 3, 4, dtype=d), r(5, 4, dtype=d)]),
    ("einsum_sum_only_in_one", lambda a, b: ops.einsum("ij,k->i", a, b), lambda a, b: torch.einsum("ij,k->i", a, b),
     lambda d: [r(3, 4, dtype=d), r(2, dtype=d)]),
    ("inverse", ops.inverse, torch.inverse, lambda d: [r(2, 3, 3, dtype=d) + 3 * np.eye(3, dtype=d)]),
    ("det", ops.det, torch.det, lambda d: [r(2, 3, 3, dtype=d) + 2 * np.eye(3, dtype=d)]),
    ("slogdet", lambda a: ops.slogdet(a)[1], lambda a: torch.slogdet(a)[1],
     lambda d: [r(3, 3, dtype=d) + 2 * np.eye(3, dtype=d)]),
    ("cholesky", lambda a: ops.cholesky(ops.matmul(a, a.swapaxes(-1, -2)) + ms.Tensor(
        np.eye(3, dtype=a.dtype.np_dtype if hasattr(a.dtype, "np_dtype") else np.float32))),
     lambda a: torch.linalg.cholesky(a @ a.mT + torch.eye(3, dtype=a.dtype)), lambda d: [r(3, 3, dtype=d)]),
    ("svd_invariants", lambda a: _svd_invariants(ops.svd(a), ms), lambda a: _svd_invariants_torch(a),
     lambda d: [r(4, 3, dtype=d)]),
    ("qr", lambda a: ops.qr(a), lambda a: torch.linalg.qr(a), lambda d: [r(4, 3, dtype=d)]),
    ("grid_sample_bilinear", lambda x, g: ops.grid_sample(x, g, align_corners=False),
     lambda x, g: torch.nn.functional.grid_sample(x, g, align_corners=False),
     lambda d: [r(1, 2, 3, 4, dtype=d), r(1, 2, 3, 2, dtype=d, low=-1.1, high=1.1)]),
    ("grid_sample_reflection", lambda x, g: ops.grid_sample(x, g, "bilinear", "reflection", True),
     lambda x, g: torch.nn.functional.grid_sample(x, g, "bilinear", "reflection", True),
     lambda d: [r(1, 1, 3, 4, dtype=d), r(1, 2, 2, 2, dtype=d, low=-1.4, high=1.4)]),
    ("affine_grid", lambda t: ops.affine_grid(t, (1, 1, 3, 2)),
     lambda t: torch.nn.functional.affine_grid(t, (1, 1, 3, 2), False),
     lambda d: [r(1, 2, 3, dtype=d)]),
    ("cosine_similarity", ops.cosine_similarity, torch.nn.functional.cosine_similarity,
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d)]),
    ("pdist", ops.pdist, torch.pdist, lambda d: [r(4, 3, dtype=d)]),
    ("tanhshrink", ops.tanhshrink, torch.nn.functional.tanhshrink, lambda d: [r(3, 4, dtype=d)]),
    ("clamp_tensor_bounds", lambda x, a, b: ops.clamp(x, a, b), lambda x, a, b: torch.clamp(x, a, b),
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d, low=-1, high=-0.2), r(4, dtype=d, low=0.2, high=1)]),
    ("conj_of_real", ops.conj, torch.conj, lambda d: [r(3, 4, dtype=d)]),
    # losses: the targets are constants (signs), the other inputs are differentiated
    ("margin_ranking_loss", lambda a, b: ops.margin_ranking_loss(a, b, ops.cast(ms.Tensor(SIGNS), a.dtype), 0.3),
     lambda a, b: torch.nn.functional.margin_ranking_loss(a, b, torch.tensor(SIGNS, dtype=a.dtype), 0.3),
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d)]),
    ("soft_margin_loss", lambda a: ops.soft_margin_loss(a, ops.cast(ms.Tensor(SIGNS), a.dtype), "sum"),
     lambda a: torch.nn.functional.soft_margin_loss(a, torch.tensor(SIGNS, dtype=a.dtype), reduction="sum"),
     lambda d: [r(3, 4, dtype=d)]),
    ("hinge_embedding_loss", lambda a: ops.hinge_embedding_loss(a, ops.cast(ms.Tensor(SIGNS), a.dtype), 0.5, "none"),
     lambda a: torch.nn.functional.hinge_embedding_loss(a, torch.tensor(SIGNS, dtype=a.dtype), 0.5, reduction="none"),
     lambda d: [r(3, 4, dtype=d)]),
    ("cosine_embedding_loss", lambda a,
     b: ops.cosine_embedding_loss(a, b, ops.cast(ms.Tensor(SIGNS[:, 0]), a.dtype), 0.1),
     lambda a, b: torch.nn.functional.cosine_embedding_loss(a, b, torch.tensor(SIGNS[:, 0], dtype=a.dtype), 0.1),
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d)]),
    ("triplet_margin_loss_swap", lambda a, p, n: ops.triplet_margin_loss(a, p, n, 2.0, 2, 1e-6, True, "none"),
     lambda a, p, n: torch.nn.functional.triplet_margin_loss(a, p, n, 2.0, 2, 1e-6, True, reduction="none"),
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d), r(3, 4, dtype=d)]),
    ("gaussian_nll_loss", lambda x, t, v: ops.gaussian_nll_loss(x, t, v, True, 1e-6, "sum"),
     lambda x, t, v: torch.nn.functional.gaussian_nll_loss(x, t, v, True, 1e-6, reduction="sum"),
     lambda d: [r(3, 4, dtype=d), r(3, 4, dtype=d), r(3, 1, dtype=d, low=0.5, high=2)]),
    ("multilabel_soft_margin_loss", lambda x,
     w: ops.multilabel_soft_margin_loss(x, ops.cast(ms.Tensor(LABELS01), x.dtype), w),
     lambda x, w: torch.nn.functional.multilabel_soft_margin_loss(x, torch.tensor(LABELS01, dtype=x.dtype), w),
     lambda d: [r(3, 4, dtype=d), r(4, dtype=d)]),
]
IDS = [c[0] for c in PRIMITIVES]


def _svd_invariants(svd_out, ms):
    """Functions of an SVD that do not depend on the singular vectors' signs."""
    s, u, v = svd_out
    return s, ops.matmul(u, u.swapaxes(-1, -2)), ops.matmul(v * s.expand_dims(-2), v.swapaxes(-1, -2))


def _svd_invariants_torch(a):
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    v = vh.mT
    return s, u @ u.mT, (v * s.unsqueeze(-2)) @ v.mT


@pytest.mark.parametrize("name,ms_fn,torch_fn,make", PRIMITIVES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_and_grad_match_torch(name, ms_fn, torch_fn, make, dtype):
    rtol = 3e-5 if dtype == np.float32 else None
    if name == "digamma" and dtype == np.float64:
        rtol = 1e-8   # torch's float64 trigamma is off by ~1e-9 (pi**2/6 at 1: 7.9e-10); ours by 2e-16
    check_op(ms_fn, torch_fn, make(dtype), rtol=rtol)


@pytest.mark.parametrize("name,ms_fn,torch_fn,make", PRIMITIVES, ids=IDS)
def test_second_derivative_matches_finite_differences(name, ms_fn, torch_fn, make):
    check_double_backward(ms_fn, make(np.float64))


def test_erfinv_is_accurate_to_float64_and_handles_the_ends():
    x = np.array([-1.0, -0.999999, -0.5, 0.0, 1e-8, 0.3, 0.999999, 1.0, 1.5])
    out = ops.erfinv(ms.Tensor(x)).asnumpy()
    ref = torch.erfinv(torch.tensor(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-14)


def test_bessel_functions_are_accurate_over_their_range_and_overflow_as_torch():
    x = np.array([0.0, -1e-3, 0.7, -3.75, 3.75, 12.0, -40.0, 300.0, 800.0])
    for ms_fn, torch_fn in ((ops.bessel_i0, torch.special.i0), (ops.bessel_i1, torch.special.i1)):
        np.testing.assert_allclose(ms_fn(ms.Tensor(x)).asnumpy(), torch_fn(torch.tensor(x)).numpy(), rtol=1e-13)
        f32 = ms_fn(ms.Tensor(x.astype(np.float32))).asnumpy()
        assert f32.dtype == np.float32
        np.testing.assert_allclose(f32, torch_fn(torch.tensor(x, dtype=torch.float32)).numpy(), rtol=1e-6)
    # the derivative of I1 at 0 is 1/2 (I0(x) - I1(x)/x has a removable singularity there)
    assert ms.grad(ops.bessel_i1)(ms.Tensor(np.array([0.0, 1.0]))).asnumpy().tolist() == pytest.approx(
        torch.func.grad(lambda t: torch.special.i1(t).sum())(torch.tensor([0.0, 1.0], dtype=torch.float64)).tolist())


@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("length", [0, 1, 2, 7, 12])
def test_kaiser_window_is_torchs(length, periodic):
    for beta in (0.0, 5.0, 12.0):
        out = ops.kaiser_window(length, periodic, beta)
        want = torch.kaiser_window(length, periodic, beta).numpy()
        assert out.dtype == ms.float32 and out.shape == want.shape
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, atol=1e-7)
    assert ops.kaiser_window(5, dtype=ms.float64).dtype == ms.float64
    with pytest.raises(ValueError, match="For 'kaiser_window', the 'window_length' must be a non-negative int"):
        ops.kaiser_window(-1)


def test_digamma_reflects_below_one_half_and_is_nan_at_poles():
    x = np.array([-2.5, -0.3, 0.1, 0.5, 7.0, 30.0, 0.0, -2.0])
    np.testing.assert_allclose(ops.digamma(ms.Tensor(x)).asnumpy(), torch.digamma(torch.tensor(x)).numpy(),
                               rtol=1e-10, atol=1e-12)
    # MindSpore 2.10: -inf at +0, +inf at -0, nan at negative integers; lgamma is +inf at its poles
    assert ops.digamma(ms.Tensor(np.array([-0.0]))).asnumpy()[0] == np.inf
    assert ops.lgamma(ms.Tensor(np.array([0.0, -2.0], np.float32))).asnumpy().tolist() == [np.inf, np.inf]


def test_normal_broadcasts_its_samples_as_mindspore():
    # MindSpore 2.10: ops.normal((), mean(2, 3), 0.5) draws one sample and broadcasts it
    ms.set_seed(1)
    out = ops.normal((), ms.Tensor(np.full((2, 3), 1.5, np.float32)), 0.5).asnumpy()
    assert out.shape == (2, 3) and np.all(out == out[0, 0])
    rows = ops.normal((2, 1), ms.Tensor(np.zeros(3, np.float64)), 1.0).asnumpy()
    assert rows.dtype == np.float64 and np.all(rows == rows[:, :1])


def test_multinomial_gives_int32_as_mindspore():
    out = ops.multinomial(ms.Tensor(np.array([[0.0, 1.0]], np.float32)), 3)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[1, 1, 1]]


def test_integer_division_with_rounding_stays_integer():
    a = ms.Tensor(np.array([7, -7, 6], np.int64))
    assert ops.div(a, 2, rounding_mode="floor").asnumpy().tolist() == [3, -4, 3]
    assert ops.div(a, 2, rounding_mode="trunc").asnumpy().tolist() == [3, -3, 3]
    assert ops.div(a, 2, rounding_mode="floor").dtype == ms.int64
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(a, 2, rounding_mode="round")


def test_conj_of_a_complex_tensor_negates_the_imaginary_part():
    z = np.array([1 + 2j, -3 - 0.5j], dtype=np.complex64)
    out = ops.conj(ms.Tensor(z)).asnumpy()
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(out, torch.conj(torch.tensor(z)).resolve_conj().numpy())
