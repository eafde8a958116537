"""Pooling and interpolation vs torch (forward + input gradients), MindSpore's 'same' rules,
second derivatives vs finite differences, errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ms_core as ms
from ms_core import nn, ops
from optest import check_double_backward, check_op

rng = np.random.default_rng(0)


def r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def distinct(*shape, dtype=np.float32):
    """Values with no ties (so argmax-based gradients are unambiguous), some negative."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.37 - n * 0.1).astype(dtype)


def tf_same(size, k, s):
    out = (size + s - 1) // s
    total = max(0, (out - 1) * s + k - size)
    return total // 2, total - total // 2


# (shape, kernel, stride, padding, dilation, ceil_mode)
MAX_PAD = [
    ((2, 3, 6, 6), 2, 2, 0, 1, False),
    ((2, 3, 7, 7), 3, 2, 1, 1, False),
    ((1, 2, 7, 6), 3, 2, 1, 1, True),
    ((1, 2, 8, 9), (3, 2), (2, 1), (1, 0), 1, False),
    ((1, 2, 9, 9), 3, 2, 1, 2, True),
    ((1, 2, 5, 5), 2, 3, 0, 1, True),
    ((2, 1, 6, 5), 3, 1, 1, 1, False),   # overlapping windows
]


@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX_PAD)
def test_max_pool2d_matches_torch(shape, k, s, p, d, ceil):
    check_op(lambda x: ops.max_pool2d(x, k, s, p, d, ceil_mode=ceil),
             lambda x: TF.max_pool2d(x, k, s, p, d, ceil_mode=ceil), [distinct(*shape)])


@pytest.mark.parametrize("shape,k,s,p,d,ceil", MAX_PAD)
def test_max_pool2d_layer_pad_mode_with_indices(shape, k, s, p, d, ceil):
    x = distinct(*shape)
    net = nn.MaxPool2d(k, s, pad_mode="pad", padding=p, dilation=d, return_indices=True,
                       ceil_mode=ceil)
    out, idx = net(ms.Tensor(x))
    t_out, t_idx = TF.max_pool2d(torch.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy(), t_out.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), t_idx.numpy())
    assert idx.dtype == ms.int64


# (shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
AVG_PAD = [
    ((2, 3, 6, 6), 2, 2, 0, False, True, None),
    ((2, 3, 7, 7), 3, 2, 1, False, True, None),
    ((2, 3, 7, 7), 3, 2, 1, False, False, None),
    ((1, 2, 7, 6), 3, 2, 1, True, True, None),
    ((1, 2, 7, 6), 3, 2, 1, True, False, None),
    ((1, 2, 8, 9), (3, 2), (2, 1), (1, 0), False, True, None),
    ((1, 2, 6, 6), 3, 2, 1, False, True, 5),
    ((1, 2, 5, 5), 3, 1, 1, False, False, None),
]


@pytest.mark.parametrize("shape,k,s,p,ceil,cip,div", AVG_PAD)
def test_avg_pool2d_matches_torch(shape, k, s, p, ceil, cip, div):
    # ops.avg_pool2d takes (top, bottom, left, right) where torch takes (h, w); nn.AvgPool2d takes (h, w)
    per_side = (p[0], p[0], p[1], p[1]) if isinstance(p, tuple) else p
    check_op(lambda x: ops.avg_pool2d(x, k, s, per_side, ceil, cip, div or 0),  # MindSpore's 0 is torch's None
             lambda x: TF.avg_pool2d(x, k, s, p, ceil, cip, div), [r(*shape)])
    net = nn.AvgPool2d(k, s, "pad", p, ceil, cip, div)
    ref = TF.avg_pool2d(torch.tensor(r(*shape)), k, s, p, ceil, cip, div)
    assert net(ms.Tensor(r(*shape))).shape == tuple(ref.shape)


@pytest.mark.parametrize("shape,k,s", [((2, 3, 7, 7), 2, 2), ((1, 2, 6, 5), 3, 2),
                                       ((1, 2, 5, 8), (2, 3), (1, 2)), ((1, 1, 4, 4), 3, 3)])
def test_same_mode_is_tf_placement(shape, k, s):
    """MaxPool 'same' = torch with -inf pads (extra bottom/right); AvgPool 'same' divides by the
    real elements (= torch with count_include_pad=False on the same pads)."""
    kh, kw = (k, k) if isinstance(k, int) else k
    sh, sw = (s, s) if isinstance(s, int) else s
    pt, pb = tf_same(shape[2], kh, sh)
    pl, pr = tf_same(shape[3], kw, sw)

    def t_pad(x, value):
        return TF.pad(x, (pl, pr, pt, pb), value=value)

    check_op(lambda x: nn.MaxPool2d(k, s, "same")(x),
             lambda x: TF.max_pool2d(t_pad(x, -float("inf")), (kh, kw), (sh, sw)),
             [distinct(*shape)])
    ones = torch.ones((1, 1) + shape[2:])

    def t_avg(x):
        total = TF.avg_pool2d(t_pad(x, 0.0), (kh, kw), (sh, sw), divisor_override=1)
        count = TF.avg_pool2d(t_pad(ones, 0.0), (kh, kw), (sh, sw), divisor_override=1)
        return total / count

    check_op(lambda x: nn.AvgPool2d(k, s, "same")(x), t_avg, [r(*shape)])


def test_max_pool_same_pads_with_minus_inf_not_zero():
    x = -np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    out = nn.MaxPool2d(2, 2, "same")(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, [[[[-1, -3], [-7, -9]]]])


def test_avg_pool_same_divides_by_real_elements():
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    out = nn.AvgPool2d(2, 2, "same")(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, [[[[2, 3.5], [6.5, 8]]]])
    out = ops.AvgPool(2, 2, "same")(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, [[[[2, 3.5], [6.5, 8]]]])


def test_valid_mode_and_default_stride_one():
    x = r(2, 3, 5, 5)
    out = nn.MaxPool2d(2)(ms.Tensor(x))  # MindSpore's default stride is 1, not kernel_size
    np.testing.assert_array_equal(out.asnumpy(), TF.max_pool2d(torch.tensor(x), 2, 1).numpy())
    out = nn.AvgPool2d(3, 2)(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), TF.avg_pool2d(torch.tensor(x), 3, 2).numpy(),
                               rtol=1e-6)


def test_pool_accepts_3d_input_and_nhwc():
    x = distinct(3, 6, 6)
    out = nn.MaxPool2d(2, 2)(ms.Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), TF.max_pool2d(torch.tensor(x), 2, 2).numpy())
    x4 = distinct(2, 6, 6, 3)
    out = nn.MaxPool2d(2, 2, data_format="NHWC")(ms.Tensor(x4)).asnumpy()
    ref = TF.max_pool2d(torch.tensor(x4).permute(0, 3, 1, 2), 2, 2).permute(0, 2, 3, 1).numpy()
    np.testing.assert_array_equal(out, ref)
    out = ops.MaxPool(2, 2, "valid", "NHWC")(ms.Tensor(x4)).asnumpy()
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("mode,k,s,p,ceil", [("pad", 3, 2, 1, False), ("pad", 3, 2, 1, True),
                                             ("valid", 2, 2, 0, False), ("same", 3, 2, 0, False)])
def test_pool1d_matches_torch(mode, k, s, p, ceil):
    x = distinct(2, 3, 9)
    if mode == "same":
        pads = tf_same(9, k, s)
        tmax = lambda t: TF.max_pool1d(TF.pad(t, pads, value=-float("inf")), k, s)  # noqa: E731
    else:
        tmax = lambda t: TF.max_pool1d(t, k, s, p, ceil_mode=ceil)  # noqa: E731
    kw = dict(padding=p, ceil_mode=ceil) if mode == "pad" else {}
    check_op(lambda t: nn.MaxPool1d(k, s, mode, **kw)(t), tmax, [x])
    if mode != "same":
        check_op(lambda t: nn.AvgPool1d(k, s, mode, **kw)(t),
                 lambda t: TF.avg_pool1d(t, k, s, p, ceil_mode=ceil), [r(2, 3, 9)])
        check_op(lambda t: ops.avg_pool1d(t, k, s, p, ceil), lambda t: TF.avg_pool1d(t, k, s, p, ceil),
                 [r(2, 3, 9)])
        check_op(lambda t: ops.max_pool1d(t, k, s, p, ceil_mode=ceil),
                 lambda t: TF.max_pool1d(t, k, s, p, ceil_mode=ceil), [x])
    out = nn.MaxPool1d(k, s, mode, **kw)(ms.Tensor(x[0]))  # (C, L) input
    assert out.ndim == 2


@pytest.mark.parametrize("shape,out", [((2, 3, 8, 8), 4), ((2, 3, 7, 5), (3, 2)), ((1, 2, 5, 7), 1),
                                       ((1, 2, 6, 6), (None, 4)), ((1, 2, 3, 3), 5)])
def test_adaptive_pool2d_matches_torch(shape, out):
    check_op(lambda x: nn.AdaptiveAvgPool2d(out)(x), lambda x: TF.adaptive_avg_pool2d(x, out),
             [r(*shape)])
    check_op(lambda x: nn.AdaptiveMaxPool2d(out)(x), lambda x: TF.adaptive_max_pool2d(x, out),
             [distinct(*shape)])
    x = distinct(*shape)
    vals, idx = ops.adaptive_max_pool2d(ms.Tensor(x), out, return_indices=True)
    t_vals, t_idx = TF.adaptive_max_pool2d(torch.tensor(x), out, return_indices=True)
    np.testing.assert_array_equal(vals.asnumpy(), t_vals.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), t_idx.numpy())


@pytest.mark.parametrize("length,out", [(8, 4), (7, 3), (5, 1)])
def test_adaptive_pool1d_matches_torch(length, out):
    check_op(lambda x: nn.AdaptiveAvgPool1d(out)(x), lambda x: TF.adaptive_avg_pool1d(x, out),
             [r(2, 3, length)])
    check_op(lambda x: nn.AdaptiveMaxPool1d(out)(x), lambda x: TF.adaptive_max_pool1d(x, out),
             [distinct(2, 3, length)])


# --- interpolation --------------------------------------------------------------------------

INTERP = [
    ((1, 2, 4, 5), dict(scale_factor=2.0, mode="nearest", recompute_scale_factor=True)),
    ((1, 2, 4, 5), dict(size=(7, 3), mode="nearest")),
    ((1, 2, 4, 5), dict(scale_factor=(1.5, 0.6), mode="nearest", recompute_scale_factor=True)),
    ((1, 2, 4, 5), dict(size=(7, 9), mode="nearest-exact")),
    ((1, 2, 4, 5), dict(scale_factor=2.0, mode="bilinear", align_corners=False, recompute_scale_factor=True)),
    ((1, 2, 4, 5), dict(scale_factor=2.0, mode="bilinear", align_corners=True, recompute_scale_factor=True)),
    ((1, 2, 4, 5), dict(size=(3, 8), mode="bilinear", align_corners=False)),
    ((1, 2, 4, 5), dict(size=(1, 8), mode="bilinear", align_corners=True)),
    ((1, 2, 5, 5), dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
    ((1, 2, 6, 6), dict(size=(4, 3), mode="area")),
    ((2, 3, 5), dict(scale_factor=2.0, mode="linear", align_corners=False, recompute_scale_factor=True)),
    ((2, 3, 5), dict(size=8, mode="linear", align_corners=True)),
    ((2, 3, 5), dict(size=8, mode="nearest")),
    ((2, 2, 3, 4, 5), dict(scale_factor=2.0, mode="trilinear", align_corners=False)),
    ((2, 2, 3, 4, 5), dict(scale_factor=2.0, mode="trilinear", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(size=(5, 3, 7), mode="trilinear", align_corners=False)),
    ((1, 2, 3, 4, 5), dict(size=(1, 6, 2), mode="trilinear", align_corners=True)),
    ((1, 2, 3, 4, 4), dict(scale_factor=(1.5, 2.0, 0.75), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=1.7, mode="trilinear", recompute_scale_factor=True)),
    ((1, 2, 3, 4, 5), dict(scale_factor=2.0, mode="nearest")),
    ((1, 2, 3, 4, 5), dict(scale_factor=(1.5, 0.7, 2.0), mode="nearest")),  # 5-D: 1/scale, not recomputed
    ((1, 2, 4, 5), dict(scale_factor=1.5, mode="area")),  # area pools to floor(in * s)
    ((1, 2, 4, 4, 6), dict(size=(2, 3, 4), mode="area")),
]


@pytest.mark.parametrize("shape,kw", INTERP, ids=[f"{c[1]['mode']}-{i}" for i, c in enumerate(INTERP)])
def test_interpolate_matches_torch(shape, kw):
    check_op(lambda x: ops.interpolate(x, **kw), lambda x: TF.interpolate(x, **kw), [r(*shape)])


def test_upsample_layer():
    x = r(1, 2, 3, 4)
    net = nn.Upsample(scale_factor=2.0, mode="bilinear", align_corners=True,
                      recompute_scale_factor=True)
    ref = TF.interpolate(torch.tensor(x), scale_factor=2, mode="bilinear", align_corners=True)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    # MindSpore 2.10's rules for a scale factor (checked): a float, and for 3-D / 4-D input
    # recompute_scale_factor=True
    with pytest.raises(TypeError, match="the 'scale_factor' must be float, but got 'int'"):
        nn.Upsample(scale_factor=2, recompute_scale_factor=True)(ms.Tensor(x))
    with pytest.raises(ValueError, match="cannot currently be set with the mode = nearest and "
                                         "dim = 4D"):
        nn.Upsample(scale_factor=2.0)(ms.Tensor(x))
    net = nn.Upsample(size=(5, 5))
    ref = TF.interpolate(torch.tensor(x), size=(5, 5))
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), ref.numpy())


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 2), 2), ((1, 18, 2, 2), 3), ((2, 3, 4, 4, 4), 2)])
def test_pixel_shuffle_roundtrip_matches_torch(shape, r):
    check_op(lambda x: nn.PixelShuffle(r)(x), lambda x: TF.pixel_shuffle(x, r), [r_(shape)])
    out_shape = TF.pixel_shuffle(torch.zeros(shape), r).shape
    check_op(lambda x: nn.PixelUnshuffle(r)(x), lambda x: TF.pixel_unshuffle(x, r),
             [r_(tuple(out_shape))])
    with pytest.raises(ValueError, match="divisible"):
        ops.pixel_shuffle(ms.Tensor(r_((1, 5, 2, 2))), 2)


def r_(shape):
    return r(*shape)


# --- second derivatives -----------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: ops.max_pool2d(x, 2, 2) ** 2,
    lambda x: ops.max_pool2d(x, 3, 1, 1) ** 2,                       # overlapping windows
    lambda x: nn.MaxPool2d(2, 2, "same")(x) ** 3,
    lambda x: nn.AvgPool2d(2, 2, "same")(x) ** 3,
    lambda x: ops.avg_pool2d(x, 3, 2, 1, True, False) ** 2,
    lambda x: nn.AdaptiveAvgPool2d((2, 3))(x) ** 2,
    lambda x: nn.AdaptiveMaxPool2d((2, 2))(x) ** 2,
    lambda x: ops.interpolate(x, scale_factor=2.0, mode="bilinear", recompute_scale_factor=True) ** 2,
    lambda x: ops.interpolate(x, size=(4, 6), mode="nearest") ** 2,
], ids=["max", "max_overlap", "max_same", "avg_same", "avg_ceil", "adaptive_avg", "adaptive_max",
        "bilinear", "nearest"])
def test_pool_double_backward(fn):
    check_double_backward(fn, [distinct(1, 2, 3, 3) / 3.0])


def test_trilinear_double_backward():
    check_double_backward(lambda x: ops.interpolate(x, size=(3, 4, 5), mode="trilinear") ** 2,
                          [distinct(1, 1, 2, 3, 3) / 3.0])


def test_max_pool_gradient_goes_to_first_max_on_ties():
    x = np.ones((1, 1, 2, 2), np.float32)
    g = ms.grad(lambda t: ops.max_pool2d(t, 2, 2).sum())(ms.Tensor(x)).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    TF.max_pool2d(tx, 2, 2).sum().backward()
    np.testing.assert_array_equal(g, tx.grad.numpy())


def test_max_pool_nan_propagates_like_torch():
    x = distinct(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    x[0, 0, 1, 0] = np.nan
    out, idx = ops.max_pool2d(ms.Tensor(x), 2, 2, return_indices=True)
    t_out, t_idx = TF.max_pool2d(torch.tensor(x), 2, 2, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy(), t_out.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), t_idx.numpy())
    g = ms.grad(lambda t: ops.max_pool2d(t, 2, 2).sum())(ms.Tensor(x)).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    TF.max_pool2d(tx, 2, 2).sum().backward()
    np.testing.assert_array_equal(g, tx.grad.numpy())


# --- errors ----------------------------------------------------------------------------------

def test_pool_errors():
    with pytest.raises(ValueError, match=r"For 'MaxPool2d', the 'pad_mode' must be one of "
                                         r"\['same', 'valid', 'pad'\], but got 'full'"):
        nn.MaxPool2d(2, 2, "full")
    with pytest.raises(ValueError, match="'padding' can only be set when 'pad_mode' is 'pad'"):
        nn.MaxPool2d(2, 2, "valid", padding=1)
    with pytest.raises(ValueError, match="'ceil_mode' can only be set"):
        nn.AvgPool2d(2, 2, "same", ceil_mode=True)
    with pytest.raises(ValueError, match="at most half"):
        ops.max_pool2d(ms.Tensor(r(1, 1, 4, 4)), 2, 2, padding=2)
    with pytest.raises(ValueError, match="larger than the"):
        nn.MaxPool2d(5, 1)(ms.Tensor(r(1, 1, 3, 3)))
    with pytest.raises(ValueError, match="must be a 3-D or 4-D Tensor"):
        nn.MaxPool2d(2)(ms.Tensor(r(3, 3)))
    with pytest.raises(ValueError, match=r"For 'MaxPool', the 'pad_mode' must be one of "
                                         r"\['same', 'valid'\]"):
        ops.MaxPool(2, 2, "pad")
    # ops.interpolate's argument errors are MindSpore 2.10's (tests/oracle/test_oracle_interpolate_args.py)
    with pytest.raises(ValueError, match="'mode' must be in"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2)), size=3, mode="cubic")
    with pytest.raises(ValueError, match="'size' and 'scale_factor' cannot be both empty"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2)))
    with pytest.raises(ValueError, match="'align_corners' option cannot currently be set with the mode = nearest, "
                                         "and dim = 4D"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2)), size=3, align_corners=True)
    with pytest.raises(ValueError, match=r"trilinear only support '\[5\]'D, but got 4D"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2)), size=3, mode="trilinear")
    with pytest.raises(ValueError, match=r"bilinear only support '\[4\]'D, but got 5D"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2, 2)), size=3, mode="bilinear")
    with pytest.raises(ValueError, match=r"nearest only support '\[3, 4, 5\]'D, but got 6D"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2, 2, 2)), size=3)
    with pytest.raises(ValueError, match=r"nearest-exact only support '\[3, 4\]'D, but got 5D"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2, 2)), size=3, mode="nearest-exact")
    with pytest.raises(TypeError, match="the 'scale_factor' must be float, but got 'int'"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2)), scale_factor=2, recompute_scale_factor=True)
    with pytest.raises(ValueError, match="'scale_factor' option cannot currently be set with the mode = bilinear "
                                         "and dim = 4D"):
        ops.interpolate(ms.Tensor(r(1, 1, 2, 2)), scale_factor=2.0, mode="bilinear")


def test_pool_float32_stays_float32():
    x = ms.Tensor(r(1, 2, 5, 5))
    for f in (nn.MaxPool2d(2, 2, "same"), nn.AvgPool2d(3, 2, "same"), nn.AdaptiveAvgPool2d(3),
              nn.AdaptiveMaxPool2d(3), nn.Upsample(scale_factor=2.0, mode="bilinear",
                                                        recompute_scale_factor=True)):
        assert f(x).dtype == ms.float32
        assert ms.grad(lambda t: f(t).sum())(x).dtype == ms.float32
