"""Convolutions vs torch (forward, input/weight/bias grads) and second derivatives vs finite
differences; MindSpore pad modes translated to explicit torch padding."""
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


def tf_same(size, k, s, d):
    """TF-style 'same' pads (before, after): the reference formula, written independently."""
    out = (size + s - 1) // s
    total = max(0, (out - 1) * s + d * (k - 1) + 1 - size)
    return total // 2, total - total // 2


def torch_pads(mode, padding, hw, k, s, d):
    """(left, right, top, bottom) for torch's F.pad."""
    if mode == "same":
        t, b = tf_same(hw[0], k[0], s[0], d[0])
        left, right = tf_same(hw[1], k[1], s[1], d[1])
        return (left, right, t, b)
    if mode == "valid":
        return (0, 0, 0, 0)
    if isinstance(padding, int):
        return (padding,) * 4
    t, b, left, right = padding
    return (left, right, t, b)


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


# (N, C, H, W, O, kernel, stride, dilation, groups, pad_mode, padding)
CONV2D = [
    (2, 3, 7, 7, 4, 3, 1, 1, 1, "same", 0),
    (2, 3, 8, 7, 4, 3, 2, 1, 1, "same", 0),
    (1, 2, 6, 6, 3, 2, 1, 1, 1, "same", 0),          # even kernel: the extra pad goes bottom/right
    (1, 2, 7, 6, 3, (2, 4), (2, 3), 1, 1, "same", 0),
    (2, 4, 9, 8, 6, 3, 1, 2, 2, "same", 0),          # dilation + groups
    (2, 3, 7, 7, 4, 3, 1, 1, 1, "valid", 0),
    (1, 3, 9, 8, 2, (3, 2), 2, (2, 1), 1, "valid", 0),
    (2, 4, 6, 6, 4, 3, 1, 1, 4, "pad", 1),           # depthwise
    (1, 2, 5, 6, 4, 3, 2, 1, 2, "pad", (1, 0, 2, 1)),
    (2, 3, 5, 5, 4, 1, 1, 1, 1, "valid", 0),         # 1x1 fast path
    (2, 3, 5, 5, 4, 1, 2, 1, 1, "valid", 0),         # strided 1x1 (ResNet downsample)
    (1, 1, 4, 4, 2, 4, 1, 1, 1, "valid", 0),         # kernel covers the whole input
    (1, 2, 5, 5, 2, 2, 3, 1, 1, "pad", 1),           # stride > kernel: pixels skipped
    # stride 1 with C_out <= C_in: the input gradient runs as a convolution of dy
    (2, 6, 7, 6, 4, 3, 1, 2, 2, "pad", (2, 0, 1, 3)),
    (1, 4, 6, 5, 4, 2, 1, 1, 1, "same", 0),
    (1, 4, 5, 5, 2, 2, 1, 1, 1, "pad", (2, 2, 0, 1)),  # pad > kernel - 1: negative "full" pad
]


def conv_case_ids():
    return [f"{c[9]}-k{c[5]}-s{c[6]}-d{c[7]}-g{c[8]}-{c[2]}x{c[3]}" for c in CONV2D]


@pytest.fixture(params=["batch_outer", "batch_inner"])
def layout(request, monkeypatch):
    """Run under both im2col layouts (the choice normally depends on the output size)."""
    from ms_core._prims import conv as conv_prims
    monkeypatch.setattr(conv_prims, "_BATCH_INNER_BELOW",
                        0 if request.param == "batch_outer" else 10 ** 9)
    return request.param


@pytest.mark.parametrize("case", CONV2D, ids=conv_case_ids())
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv2d_functional_matches_torch(case, with_bias, layout):
    n, c, h, w, o, k, s, d, g, mode, padding = case
    k, s, d = pair(k), pair(s), pair(d)
    arrays = [r(n, c, h, w), r(o, c // g, *k)] + ([r(o)] if with_bias else [])
    tp = torch_pads(mode, padding, (h, w), k, s, d)

    def ms_fn(x, wt, b=None):
        return ops.conv2d(x, wt, b, stride=s, pad_mode=mode, padding=padding, dilation=d, groups=g)

    def torch_fn(x, wt, b=None):
        return TF.conv2d(TF.pad(x, tp), wt, b, stride=s, dilation=d, groups=g)

    check_op(ms_fn, torch_fn, arrays, rtol=1e-4, atol=1e-5)  # float32 GEMMs sum in another order


@pytest.mark.parametrize("case", CONV2D[:9:2], ids=conv_case_ids()[:9:2])
def test_conv2d_layer_matches_torch_with_copied_weights(case):
    n, c, h, w, o, k, s, d, g, mode, padding = case
    net = nn.Conv2d(c, o, k, stride=s, pad_mode=mode, padding=padding, dilation=d, group=g,
                    has_bias=True, bias_init="normal")
    x = r(n, c, h, w)
    tp = torch_pads(mode, padding, (h, w), pair(k), pair(s), pair(d))
    wt, b = net.weight.asnumpy(), net.bias.asnumpy()
    assert wt.shape == (o, c // g) + pair(k)

    out = net(ms.Tensor(x)).asnumpy()
    ref = TF.conv2d(TF.pad(torch.tensor(x), tp), torch.tensor(wt), torch.tensor(b), stride=pair(s),
                    dilation=pair(d), groups=g).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    # gradients of input, weight and bias through the layer
    grad_fn = ms.grad(lambda xx: (net(xx) * net(xx)).sum(), grad_position=0,
                      weights=net.trainable_params())
    gx, (gw, gb) = grad_fn(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(wt, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    ty = TF.conv2d(TF.pad(tx, tp), tw, tb, stride=pair(s), dilation=pair(d), groups=g)
    (ty * ty).sum().backward()
    for m, t in ((gx, tx), (gw, tw), (gb, tb)):
        np.testing.assert_allclose(m.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_conv2d_defaults_are_mindspore_2_0():
    ms.set_seed(1)
    net = nn.Conv2d(8, 16, 3)
    assert net.pad_mode == "same" and net.bias is None and net.group == 1
    assert net.weight.shape == (16, 8, 3, 3)
    wt = net.weight.asnumpy()
    assert wt.dtype == np.float32 and abs(wt.std() - 0.01) < 0.002  # N(0, 0.01^2)
    assert [p.name for p in net.trainable_params()] == ["weight"]
    net2 = nn.Conv2d(8, 16, 3, has_bias=True)
    assert [p.name for p in net2.trainable_params()] == ["weight", "bias"]
    assert np.all(net2.bias.asnumpy() == 0)
    x = ms.Tensor(r(1, 8, 5, 5))
    assert net(x).shape == (1, 16, 5, 5)
    assert net(x).dtype == ms.float32


def test_conv2d_uniform_init_when_none():
    ms.set_seed(0)
    net = nn.Conv2d(4, 8, 3, weight_init=None, bias_init=None, has_bias=True)
    bound = 1 / np.sqrt(4 * 9)
    assert np.abs(net.weight.asnumpy()).max() <= bound + 1e-7
    assert np.abs(net.bias.asnumpy()).max() <= bound + 1e-7


def test_conv2d_nhwc_matches_nchw():
    x = r(2, 6, 5, 3)
    net = nn.Conv2d(3, 4, 3, data_format="NHWC", has_bias=True, bias_init="normal")
    assert net.weight.shape == (4, 3, 3, 3)
    out = net(ms.Tensor(x)).asnumpy()
    w = net.weight.asnumpy().transpose(0, 3, 1, 2)
    ref = ops.conv2d(ms.Tensor(x.transpose(0, 3, 1, 2)), ms.Tensor(w), net.bias,
                     pad_mode="same").asnumpy().transpose(0, 2, 3, 1)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode,padding,k,s,d,g,length", [
    ("same", 0, 3, 1, 1, 1, 9),
    ("same", 0, 4, 2, 1, 1, 9),
    ("valid", 0, 3, 2, 2, 1, 11),
    ("pad", 2, 3, 1, 1, 2, 7),
    ("pad", (1, 0), 2, 1, 1, 1, 6),
])
def test_conv1d_matches_torch(mode, padding, k, s, d, g, length):
    c, o = 4, 6
    x, wt, b = r(2, c, length), r(o, c // g, k), r(o)
    if mode == "same":
        tp = tf_same(length, k, s, d)
    elif mode == "valid":
        tp = (0, 0)
    else:
        tp = (padding, padding) if isinstance(padding, int) else padding
    check_op(lambda xx, ww, bb: ops.conv1d(xx, ww, bb, s, mode, padding, d, g),
             lambda xx, ww, bb: TF.conv1d(TF.pad(xx, tp), ww, bb, s, 0, d, g), [x, wt, b],
             rtol=1e-4, atol=1e-5)
    if not isinstance(padding, int):
        # MindSpore 2.10's nn.Conv1d takes an int padding only (ops.conv1d takes a pair)
        with pytest.raises(TypeError, match="the type of 'padding' should be 'int'"):
            nn.Conv1d(c, o, k, s, mode, padding, d, g, has_bias=True)
        return
    net = nn.Conv1d(c, o, k, s, mode, padding, d, g, has_bias=True)
    assert net.weight.shape == (o, c // g, 1, k)  # MindSpore 2.10's layout (a unit height axis)
    # attributes as MindSpore 2.10 keeps them (a 1-D convolution run as a 2-D one)
    assert (net.kernel_size, net.stride, net.dilation) == ((1, k), (1, s), (1, d))
    assert net.padding == (0, 0, padding, padding)
    ref = TF.conv1d(TF.pad(torch.tensor(x), tp), torch.tensor(net.weight.asnumpy()[:, :, 0]),
                    torch.tensor(net.bias.asnumpy()), s, 0, d, g).numpy()
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)


# (H, W, k, stride, padding(int or 4-tuple), output_padding, dilation, groups)
TRANSPOSE_PAD = [
    (4, 5, 3, 1, 0, 0, 1, 1),
    (4, 4, 3, 2, 1, 1, 1, 1),
    (3, 5, 4, 2, 1, 0, 1, 2),
    (3, 3, 3, 2, 0, 1, 2, 1),
    (4, 3, 2, 3, 0, 2, 1, 1),
    (3, 4, 3, 1, 1, 1, 2, 1),   # stride 1 + output_padding: a negative (cropping) conv pad
    (5, 5, 3, 1, 0, 0, 1, 2),   # stride 1, grouped: the transposed conv runs as a convolution
]


@pytest.mark.parametrize("h,w,k,s,p,op,d,g", TRANSPOSE_PAD)
def test_conv_transpose2d_matches_torch(h, w, k, s, p, op, d, g, layout):
    cin, cout = 4, 6
    arrays = [r(2, cin, h, w), r(cin, cout // g, k, k), r(cout)]
    check_op(lambda x, wt, b: ops.conv_transpose2d(x, wt, b, s, p, op, g, d),
             lambda x, wt, b: TF.conv_transpose2d(x, wt, b, s, p, op, g, d), arrays,
             rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode,k,s,h", [("same", 3, 2, 4), ("same", 2, 2, 3), ("same", 1, 3, 3),
                                        ("valid", 3, 2, 4), ("valid", 2, 3, 3),
                                        ("pad", 3, 2, 4)])
def test_conv2d_transpose_layer_output_sizes_and_values(mode, k, s, h):
    cin, cout = 3, 2
    padding = 1 if mode == "pad" else 0
    net = nn.Conv2dTranspose(cin, cout, k, s, pad_mode=mode, padding=padding, has_bias=True,
                             bias_init="normal")
    assert net.weight.shape == (cin, cout, k, k)
    x = r(1, cin, h, h)
    out = net(ms.Tensor(x)).asnumpy()
    dk = k
    if mode == "same":
        size = h * s
    elif mode == "valid":
        size = h * s + max(dk - s, 0)
    else:
        size = (h - 1) * s + dk - 2 * padding
    assert out.shape == (1, cout, size, size)
    # value: the full transposed convolution, then MindSpore's crop (same: TF placement)
    full = TF.conv_transpose2d(torch.tensor(x), torch.tensor(net.weight.asnumpy()),
                               torch.tensor(net.bias.asnumpy()), s).numpy()
    if mode == "same":
        before, _ = tf_same(size, k, s, 1)
    else:
        before = padding
    ref = np.zeros((1, cout, size, size), np.float32) + net.bias.asnumpy()[:, None, None]
    crop = full[:, :, before:before + size, before:before + size]
    ref[:, :, :crop.shape[2], :crop.shape[3]] = crop
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_conv1d_transpose_layer():
    net = nn.Conv1dTranspose(3, 4, 3, 2, pad_mode="pad", padding=1, has_bias=False)
    x = r(2, 3, 5)
    assert net.weight.shape == (3, 4, 1, 3)  # MindSpore 2.10's layout
    ref = TF.conv_transpose1d(torch.tensor(x), torch.tensor(net.weight.asnumpy()[:, :, 0]), None,
                              2, 1).numpy()
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv2d_primitive_class():
    x, wt = r(1, 2, 5, 5), r(3, 2, 3, 3)
    op = ops.Conv2D(out_channel=3, kernel_size=3, pad_mode="pad", pad=(1, 0, 0, 1), stride=2)
    ref = TF.conv2d(TF.pad(torch.tensor(x), (0, 1, 1, 0)), torch.tensor(wt), stride=2).numpy()
    np.testing.assert_allclose(op(ms.Tensor(x), ms.Tensor(wt)).asnumpy(), ref, rtol=1e-5,
                               atol=1e-6)
    same = ops.Conv2D(3, 3, pad_mode="SAME")  # pad_mode is case-insensitive
    assert same(ms.Tensor(x), ms.Tensor(wt)).shape == (1, 3, 5, 5)


def test_conv2d_backprop_input_primitive_is_the_input_gradient():
    x, wt = r(2, 3, 6, 5), r(4, 3, 3, 3)
    dy = r(2, 4, 3, 3)
    op = ops.Conv2DBackpropInput(4, 3, pad_mode="same", stride=2)
    out = op(ms.Tensor(dy), ms.Tensor(wt), (2, 3, 6, 5)).asnumpy()
    g = ms.grad(lambda xx: (ops.conv2d(xx, ms.Tensor(wt), stride=2, pad_mode="same")
                            * ms.Tensor(dy)).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, g, rtol=1e-5, atol=1e-5)


# --- second derivatives: the three conv primitives differentiate into each other ------------

DOUBLE = [
    ((1, 2, 4, 4), (2, 2, 3, 3), dict(pad_mode="same")),
    ((1, 2, 4, 3), (1, 2, 2, 2), dict(pad_mode="pad", padding=(2, 0, 1, 1))),
    ((1, 2, 5, 4), (2, 1, 2, 2), dict(pad_mode="same", stride=2, groups=2)),
    ((1, 1, 5, 5), (2, 1, 2, 2), dict(pad_mode="pad", padding=(1, 0, 0, 1), dilation=2)),
]


@pytest.mark.parametrize("xs,ws,kw", DOUBLE)
def test_conv2d_double_backward(xs, ws, kw, layout):
    check_double_backward(lambda x, w: ops.conv2d(x, w, **kw), [r(*xs), r(*ws)])


@pytest.mark.parametrize("xs,ws,kw", DOUBLE[:2])
def test_conv2d_double_backward_through_nonlinearity(xs, ws, kw):
    # tanh makes the second derivative depend on x and w jointly
    check_double_backward(lambda x, w: ops.tanh(ops.conv2d(x, w, **kw)), [r(*xs), r(*ws)])


def test_conv_transpose2d_double_backward():
    check_double_backward(lambda x, w: ops.tanh(ops.conv_transpose2d(x, w, stride=2, padding=1,
                                                                      output_padding=1)),
                          [r(1, 2, 2, 2), r(2, 1, 3, 3)])


def test_conv2d_layer_double_backward_gradient_penalty():
    """grad of ||d out/d x||^2 with respect to the weight, vs torch (a WGAN-GP style penalty)."""
    x, wt = r(2, 2, 5, 5), r(3, 2, 3, 3)
    net = nn.Conv2d(2, 3, 3, stride=2, pad_mode="same", weight_init=ms.Tensor(wt))

    def penalty(xx):
        gx = ms.grad(lambda z: ops.tanh(net(z)).sum())(xx)
        return (gx * gx).sum()

    gw = ms.grad(penalty, grad_position=None, weights=net.trainable_params())(ms.Tensor(x))[0]
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(wt, requires_grad=True)
    tp = torch_pads("same", 0, (5, 5), (3, 3), (2, 2), (1, 1))
    y = torch.tanh(TF.conv2d(TF.pad(tx, tp), tw, stride=2)).sum()
    (gxt,) = torch.autograd.grad(y, tx, create_graph=True)
    (gwt,) = torch.autograd.grad((gxt * gxt).sum(), tw)
    np.testing.assert_allclose(gw.asnumpy(), gwt.numpy(), rtol=1e-4, atol=1e-5)


# --- errors ------------------------------------------------------------------------------------

def test_conv_errors_are_mindspore_style():
    with pytest.raises(ValueError, match=r"For 'Conv2d', the 'pad_mode' must be one of "
                                         r"\['same', 'valid', 'pad'\], but got 'full'\."):
        nn.Conv2d(3, 4, 3, pad_mode="full")
    with pytest.raises(ValueError, match="'padding' must be 0 when 'pad_mode' is not 'pad'"):
        nn.Conv2d(3, 4, 3, padding=1)
    with pytest.raises(ValueError, match="'in_channels' must be divisible by 'group'"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="'out_channels' must be divisible by 'group'"):
        nn.Conv2d(4, 3, 3, group=2)
    with pytest.raises(ValueError, match="'in_channels' must be a positive int"):
        nn.Conv2d(0, 3, 3)
    with pytest.raises(ValueError, match="'kernel_size'"):
        nn.Conv2d(3, 3, (3, 0))
    with pytest.raises(TypeError, match="'has_bias' must be bool"):
        nn.Conv2d(3, 3, 3, has_bias=1)
    net = nn.Conv2d(3, 4, 3)
    with pytest.raises(ValueError, match="must be a 4-D Tensor"):
        net(ms.Tensor(r(3, 5, 5)))
    with pytest.raises(ValueError, match="in_channels=3"):
        net(ms.Tensor(r(1, 2, 5, 5)))
    with pytest.raises(ValueError, match="larger than the padded input"):
        ops.conv2d(ms.Tensor(r(1, 1, 2, 2)), ms.Tensor(r(1, 1, 3, 3)))
    with pytest.raises(ValueError, match="divisible by 'groups'"):
        ops.conv2d(ms.Tensor(r(1, 3, 4, 4)), ms.Tensor(r(2, 1, 3, 3)), groups=2)
    with pytest.raises(ValueError, match="'output_padding' must be 0"):
        nn.Conv2dTranspose(2, 2, 3, 2, output_padding=1)
    with pytest.raises(ValueError, match="'stride'"):
        ops.conv2d(ms.Tensor(r(1, 1, 4, 4)), ms.Tensor(r(1, 1, 3, 3)), stride=0)


def test_conv_float32_stays_float32_and_float64_stays_float64():
    for dt in (np.float32, np.float64):
        x, wt = ms.Tensor(r(1, 2, 5, 5, dtype=dt)), ms.Tensor(r(3, 2, 3, 3, dtype=dt))
        assert ops.conv2d(x, wt, pad_mode="same").asnumpy().dtype == dt
        gx, gw = ms.grad(lambda a, b: ops.conv2d(a, b).sum(), grad_position=(0, 1))(x, wt)
        assert gx.asnumpy().dtype == dt and gw.asnumpy().dtype == dt


def test_double_backward_through_a_small_conv_net():
    """Conv2d -> tanh -> MaxPool2d('same') -> Conv2d(stride 2) -> AvgPool2d: Hessian-vector
    products w.r.t. the input and both kernels vs finite differences."""
    def net(x, w1, w2):
        h = ops.tanh(ops.conv2d(x, w1, pad_mode="same"))
        h = nn.MaxPool2d(2, 1, "same")(h)
        h = ops.tanh(ops.conv2d(h, w2, stride=2, pad_mode="pad", padding=1))
        return nn.AvgPool2d(2, 1)(h)

    check_double_backward(net, [r(1, 1, 4, 4), r(2, 1, 2, 2), r(2, 2, 3, 3)])


@pytest.mark.parametrize("k,d,p,s", [(3, 1, 1, 1), (2, 1, 0, 2), ((2, 3), (2, 1), (1, 0), (1, 2))])
def test_unfold_fold_match_torch(k, d, p, s):
    x = r(2, 3, 6, 7)
    check_op(lambda t: ops.unfold(t, k, d, p, s), lambda t: TF.unfold(t, k, d, p, s), [x])
    cols = TF.unfold(torch.tensor(x), k, d, p, s).numpy()
    check_op(lambda t: ops.fold(t, (6, 7), k, d, p, s), lambda t: TF.fold(t, (6, 7), k, d, p, s),
             [r(*cols.shape)])
    check_double_backward(lambda t: ops.unfold(t, k, d, p, s) ** 2, [r(1, 1, 4, 4)])
    with pytest.raises(ValueError, match="does not match"):
        ops.fold(ms.Tensor(r(1, 5, 4)), (6, 7), k, d, p, s)


@pytest.mark.parametrize("padding, torch_padding", [(1, 1), ((1, 0, 2), (1, 0, 2)), ([0, 2, 1], (0, 2, 1))])
def test_conv3d_functional_takes_one_padding_per_axis_as_mindspore(padding, torch_padding):
    """MindSpore 2.10's ops.conv3d takes an int or 3 ints (each on both sides of its axis)."""
    arrays = [r(1, 2, 4, 5, 6), r(3, 2, 3, 2, 3), r(3)]
    check_op(lambda x, w, b: ops.conv3d(x, w, b, 2, "pad", padding),
             lambda x, w, b: TF.conv3d(x, w, b, 2, torch_padding), arrays,
             rtol=1e-4, atol=1e-5)  # float32 GEMMs sum in another order


def test_conv3d_functional_refuses_six_paddings_as_mindspore():
    x, w = ms.Tensor(r(1, 2, 4, 5, 6)), ms.Tensor(r(3, 2, 3, 3, 3))
    with pytest.raises(ValueError, match="For 'conv3d', 'padding' must be a tuple or list of 3 integers"):
        ops.conv3d(x, w, None, 1, "pad", (1, 1, 0, 0, 2, 2))


@pytest.mark.parametrize("build, arg", [
    (lambda: nn.Conv2d(3, 4, [3, 3]), "kernel_size"),
    (lambda: nn.Conv2d(3, 4, 3, stride=[1, 1]), "stride"),
    (lambda: nn.Conv3d(3, 4, 3, dilation=[1, 1, 1]), "dilation"),
    (lambda: nn.Conv2dTranspose(3, 4, 3, pad_mode="pad", padding=[1, 1, 1, 1]), "padding"),
    (lambda: nn.MaxPool2d([2, 2]), "kernel_size"),
    (lambda: nn.AvgPool1d(2, stride=[2]), "stride"),
    (lambda: nn.MaxPool3d([2, 2, 2]), "kernel_size"),
    (lambda: nn.AdaptiveAvgPool3d([2, 2, 2]), "output_size"),
    (lambda: ops.max_pool2d(ms.Tensor(np.ones((1, 1, 4, 4), np.float32)), [2, 2]), "kernel_size"),
    (lambda: ops.adaptive_avg_pool2d(ms.Tensor(np.ones((1, 1, 4, 4), np.float32)), [2, 2]), "output_size"),
])
def test_sizes_given_as_a_list_are_refused_as_mindspore_does(build, arg):
    # MindSpore 2.10 takes an int or a tuple here and raises TypeError for a list (torch takes
    # either): code that runs on ms_core runs on MindSpore (tests/oracle/snippets/layer_size_types.py)
    with pytest.raises(TypeError, match=f"the type of '{arg}' should be one of .*but got type 'list'"):
        build()
