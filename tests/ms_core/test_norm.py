"""BatchNorm / LayerNorm / GroupNorm / InstanceNorm against torch (translated arguments:
momentum_ms = 1 - momentum_torch, gamma/beta = weight/bias, moving_* = running_*)."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn, ops
from optest import check_double_backward, check_op

rng = np.random.default_rng(0)


def r(*shape, dtype=np.float32, positive=False):
    a = rng.standard_normal(shape) * 2 + 0.5
    if positive:
        a = np.abs(a) + 0.5
    return a.astype(dtype)


BN_SHAPES = [(4, 3), (4, 3, 5), (2, 3, 4, 5), (3, 2, 2, 3, 2)]


# --- functional batch norm ------------------------------------------------------------------

@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_training_matches_torch(shape, dtype):
    c = shape[1]

    def ms_fn(x, w, b):
        rm, rv = ms.Tensor(np.zeros(c, dtype)), ms.Tensor(np.ones(c, dtype))
        return ops.batch_norm(x, rm, rv, w, b, training=True)

    def torch_fn(x, w, b):
        return torch.nn.functional.batch_norm(x, torch.zeros(c, dtype=x.dtype),
                                              torch.ones(c, dtype=x.dtype), w, b, training=True)

    check_op(ms_fn, torch_fn, [r(*shape, dtype=dtype), r(c, dtype=dtype), r(c, dtype=dtype)])


@pytest.mark.parametrize("shape", BN_SHAPES, ids=str)
def test_batch_norm_inference_matches_torch(shape):
    c = shape[1]
    rm, rv = r(c), r(c, positive=True)

    def ms_fn(x, w, b):
        return ops.batch_norm(x, ms.Tensor(rm), ms.Tensor(rv), w, b, training=False)

    def torch_fn(x, w, b):
        return torch.nn.functional.batch_norm(x, torch.tensor(rm), torch.tensor(rv), w, b,
                                              training=False)

    check_op(ms_fn, torch_fn, [r(*shape), r(c), r(c)])


def test_functional_batch_norm_momentum_is_torch_convention():
    x = r(8, 3, 2, 2)
    rm, rv = ms.Tensor(np.zeros(3, np.float32)), ms.Tensor(np.ones(3, np.float32))
    trm, trv = torch.zeros(3), torch.ones(3)
    for _ in range(3):
        ops.batch_norm(ms.Tensor(x), rm, rv, ms.Tensor(np.ones(3, np.float32)),
                       ms.Tensor(np.zeros(3, np.float32)), training=True, momentum=0.2)
        torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, torch.ones(3), torch.zeros(3),
                                       training=True, momentum=0.2)
    np.testing.assert_allclose(rm.asnumpy(), trm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), trv.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(3, 2), (2, 2, 2)], ids=str)
def test_batch_norm_double_backward(shape):
    c = shape[1]

    def fn(x, w, b):
        rm, rv = ms.Tensor(np.zeros(c)), ms.Tensor(np.ones(c))
        return ops.batch_norm(x, rm, rv, w, b, training=True)

    check_double_backward(fn, [r(*shape, dtype=np.float64), r(c, dtype=np.float64),
                               r(c, dtype=np.float64)])


def test_batch_norm_inference_double_backward():
    rm, rv = ms.Tensor(np.array([0.3, -0.2])), ms.Tensor(np.array([1.5, 0.7]))

    def fn(x, w, b):
        return ops.batch_norm(x, rm, rv, w, b, training=False) ** 2

    check_double_backward(fn, [r(3, 2, dtype=np.float64), r(2, dtype=np.float64),
                               r(2, dtype=np.float64)])


# --- nn.BatchNorm layers --------------------------------------------------------------------

LAYERS = [(nn.BatchNorm1d, torch.nn.BatchNorm1d, (6, 3)),
          (nn.BatchNorm1d, torch.nn.BatchNorm1d, (4, 3, 5)),
          (nn.BatchNorm2d, torch.nn.BatchNorm2d, (4, 3, 3, 2)),
          (nn.BatchNorm3d, torch.nn.BatchNorm3d, (2, 3, 2, 2, 3))]


def _bn(net):
    """The cell holding the statistics: MindSpore 2.10's BatchNorm3d keeps them in its bn2d."""
    return getattr(net, "bn2d", net)


def _pair(ms_cls, t_cls, c, momentum_torch=0.1):
    net = ms_cls(c, momentum=1 - momentum_torch, gamma_init=ms.Tensor(r(c)),
                 beta_init=ms.Tensor(r(c)))
    tnet = t_cls(c, momentum=momentum_torch)
    with torch.no_grad():
        tnet.weight.copy_(torch.tensor(_bn(net).gamma.asnumpy()))
        tnet.bias.copy_(torch.tensor(_bn(net).beta.asnumpy()))
    return net, tnet


def _grads(net, tnet, x, cot):
    def fn(inp):
        return (net(inp) * ms.Tensor(cot)).sum()

    (gx, (gg, gb)) = ms.grad(fn, 0, net.trainable_params())(ms.Tensor(x))
    tx = torch.tensor(x, requires_grad=True)
    (tnet(tx) * torch.tensor(cot)).sum().backward()
    return (gx, gg, gb), (tx.grad, tnet.weight.grad, tnet.bias.grad)


@pytest.mark.parametrize("ms_cls,t_cls,shape", LAYERS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_batchnorm_layer_training_grads_and_moving_stats_after_3_steps(ms_cls, t_cls, shape):
    c = shape[1]
    net, tnet = _pair(ms_cls, t_cls, c, momentum_torch=0.3)
    net.set_train()
    tnet.train()
    for step in range(3):
        x = r(*shape)
        cot = r(*shape)
        ms_g, t_g = _grads(net, tnet, x, cot)
        for m, t in zip(ms_g, t_g):
            np.testing.assert_allclose(m.asnumpy(), t.numpy(), rtol=1e-5, atol=1e-6)
        tnet.zero_grad()
    np.testing.assert_allclose(_bn(net).moving_mean.asnumpy(), tnet.running_mean.numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(_bn(net).moving_variance.asnumpy(), tnet.running_var.numpy(), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("ms_cls,t_cls,shape", LAYERS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_batchnorm_layer_inference_matches_torch_eval(ms_cls, t_cls, shape):
    c = shape[1]
    net, tnet = _pair(ms_cls, t_cls, c)
    rm, rv = r(c), r(c, positive=True)
    _bn(net).moving_mean.set_data(ms.Tensor(rm))
    _bn(net).moving_variance.set_data(ms.Tensor(rv))
    with torch.no_grad():
        tnet.running_mean.copy_(torch.tensor(rm))
        tnet.running_var.copy_(torch.tensor(rv))
    tnet.eval()
    assert net.training is False  # Cells start in inference mode
    x, cot = r(*shape), r(*shape)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), tnet(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    ms_g, t_g = _grads(net, tnet, x, cot)
    for m, t in zip(ms_g, t_g):
        np.testing.assert_allclose(m.asnumpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(_bn(net).moving_mean.asnumpy(), rm)  # untouched


def test_use_batch_statistics_modes():
    x = ms.Tensor(r(6, 2, 3, 3))
    always = nn.BatchNorm2d(2, use_batch_statistics=True)
    out = always(x).asnumpy()  # inference mode, but batch statistics anyway
    np.testing.assert_allclose(out.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    assert not np.allclose(always.moving_mean.asnumpy(), 0)  # and updated
    never = nn.BatchNorm2d(2, use_batch_statistics=False).set_train()
    np.testing.assert_allclose(never(x).asnumpy(), x.asnumpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(never.moving_mean.asnumpy(), 0)


def test_batchnorm_parameter_names_and_flags():
    bn = nn.BatchNorm2d(3)
    names = [p.name for p in bn.get_parameters()]
    assert names == ["moving_mean", "moving_variance", "gamma", "beta"]
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    assert not nn.BatchNorm2d(3, affine=False).trainable_params()
    # MindSpore stores 1 - momentum (the operator's weight of the new statistics) in the attribute
    assert bn.momentum == pytest.approx(0.1) and bn.eps == 1e-5
    assert "momentum=0.0999" in repr(bn) or "momentum=0.1" in repr(bn)


def test_batchnorm_validation_errors():
    with pytest.raises(ValueError, match="'momentum' must be a number in range \\[0, 1\\], but got 1.5."):
        nn.BatchNorm2d(3, momentum=1.5)
    with pytest.raises(ValueError, match="'num_features' must be a positive int"):
        nn.BatchNorm2d(0)
    with pytest.raises(ValueError, match="use_batch_statistics"):
        nn.BatchNorm2d(3, use_batch_statistics="yes")
    with pytest.raises(ValueError, match="4-D"):
        nn.BatchNorm2d(3)(ms.Tensor(r(2, 3)))
    with pytest.raises(ValueError, match="num_features=3"):
        nn.BatchNorm2d(3)(ms.Tensor(r(2, 4, 2, 2)))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(3).set_train()(ms.Tensor(r(1, 3)))
    with pytest.raises(TypeError, match="input dtype must be float"):
        nn.BatchNorm1d(3)(ms.Tensor(np.ones((2, 3), np.int32)))
    with pytest.raises(ValueError, match="NHWC"):
        nn.BatchNorm2d(3, data_format="NHWC")


def test_batchnorm_float32_stays_float32():
    bn = nn.BatchNorm2d(2).set_train()
    x = ms.Tensor(r(3, 2, 2, 2))
    assert bn(x).dtype == ms.float32
    assert bn.moving_mean.dtype == ms.float32
    g = ms.grad(lambda a: bn(a).sum())(x)
    assert g.dtype == ms.float32


# --- LayerNorm ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,bna", [((4, 6), -1), ((2, 3, 4), -1), ((2, 3, 4), 1),
                                       ((2, 2, 3, 2), 2)], ids=str)
def test_layernorm_matches_torch(shape, bna):
    nshape = shape[bna % len(shape):]

    def ms_fn(x, g, b):
        ln = nn.LayerNorm(nshape, begin_norm_axis=bna, begin_params_axis=bna,
                          gamma_init=g, beta_init=b)
        ln.gamma, ln.beta = g, b  # differentiate w.r.t. the given tensors
        return ln(x)

    def torch_fn(x, g, b):
        return torch.nn.functional.layer_norm(x, nshape, g, b, eps=1e-7)

    check_op(ms_fn, torch_fn, [r(*shape), r(*nshape), r(*nshape)])


def test_layernorm_axes_in_minus_one_to_rank_as_mindspore_2_10():
    """MindSpore 2.10's LayerNorm refuses begin_norm_axis=-2 on a rank-3 input (checked), so
    ms_core does: a two-axis normalised shape takes non-negative axes."""
    ln = nn.LayerNorm((3, 4), begin_norm_axis=-2, begin_params_axis=-2)
    with pytest.raises(RuntimeError, match=r"should be in the range \[-1, 3\), but got -2"):
        ln(ms.Tensor(r(2, 3, 4)))
    ok = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1)
    assert ok(ms.Tensor(r(2, 3, 4))).shape == (2, 3, 4)


def test_layernorm_params_and_default_epsilon():
    ln = nn.LayerNorm((4,))
    assert ln.epsilon == 1e-7  # MindSpore's default (torch: 1e-5)
    assert [p.name for p in ln.trainable_params()] == ["gamma", "beta"]
    x = ms.Tensor(r(3, 4))
    np.testing.assert_allclose(ln(x).asnumpy(), torch.nn.functional.layer_norm(
        torch.tensor(x.asnumpy()), (4,), eps=1e-7).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="normalized_shape"):
        nn.LayerNorm(4)
    with pytest.raises(ValueError, match="normalized_shape"):
        ln(ms.Tensor(r(3, 5)))


def test_ops_layer_norm_matches_torch():
    check_op(lambda x, g, b: ops.layer_norm(x, (3, 4), g, b),
             lambda x, g, b: torch.nn.functional.layer_norm(x, (3, 4), g, b),
             [r(2, 3, 4), r(3, 4), r(3, 4)])


def test_layernorm_double_backward():
    check_double_backward(lambda x, g, b: ops.layer_norm(x, (3,), g, b) ** 2,
                          [r(2, 3, dtype=np.float64), r(3, dtype=np.float64), r(3, dtype=np.float64)])


# --- GroupNorm / InstanceNorm ---------------------------------------------------------------

@pytest.mark.parametrize("shape,groups", [((2, 4, 3), 2), ((2, 6, 2, 3), 3), ((3, 4, 2, 2), 1),
                                          ((2, 4, 2, 2), 4)], ids=str)
def test_groupnorm_matches_torch(shape, groups):
    c = shape[1]

    def ms_fn(x, g, b):
        gn = nn.GroupNorm(groups, c)
        gn.gamma, gn.beta = g, b
        return gn(x)

    check_op(ms_fn, lambda x, g, b: torch.nn.functional.group_norm(x, groups, g, b),
             [r(*shape), r(c), r(c)])


def test_groupnorm_validation_and_double_backward():
    with pytest.raises(ValueError, match="divided by 'num_groups'"):
        nn.GroupNorm(3, 4)
    check_double_backward(lambda x, g, b: ops.group_norm(x, 2, g, b) ** 2,
                          [r(2, 4, 1, dtype=np.float64), r(4, dtype=np.float64),
                           r(4, dtype=np.float64)])


def test_instancenorm2d_matches_torch():
    def ms_fn(x, g, b):
        m = nn.InstanceNorm2d(3)
        m.gamma, m.beta = g, b
        return m(x)

    check_op(ms_fn, lambda x, g, b: torch.nn.functional.instance_norm(x, weight=g, bias=b),
             [r(2, 3, 3, 4), r(3), r(3)])


# --- operator classes -----------------------------------------------------------------------

def test_ops_BatchNorm_operator_momentum_is_weight_of_new_statistics():
    x = r(6, 3, 2, 2)
    mean = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="mean", requires_grad=False)
    var = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="variance", requires_grad=False)
    trm, trv = torch.zeros(3), torch.ones(3)
    op = ops.BatchNorm(is_training=True, epsilon=1e-5, momentum=0.2)
    scale, bias = ms.Tensor(r(3)), ms.Tensor(r(3))
    for _ in range(3):
        y, bm, bv, _, _ = op(ms.Tensor(x), scale, bias, mean, var)
        ty = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, torch.tensor(scale.asnumpy()),
                                            torch.tensor(bias.asnumpy()), training=True, momentum=0.2)
    np.testing.assert_allclose(y.asnumpy(), ty.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bm.asnumpy(), x.mean(axis=(0, 2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), trm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), trv.numpy(), rtol=1e-5, atol=1e-6)
    infer = ops.BatchNorm()(ms.Tensor(x), scale, bias, mean, var)[0]
    tinf = torch.nn.functional.batch_norm(torch.tensor(x), trm, trv, torch.tensor(scale.asnumpy()),
                                          torch.tensor(bias.asnumpy()), training=False)
    np.testing.assert_allclose(infer.asnumpy(), tinf.numpy(), rtol=1e-5, atol=1e-6)


def test_ops_LayerNorm_operator_returns_mean_and_variance():
    x = r(2, 3, 4)
    y, mean, var = ops.LayerNorm(1, 1)(ms.Tensor(x), ms.Tensor(np.ones((3, 4), np.float32)),
                                       ms.Tensor(np.zeros((3, 4), np.float32)))
    assert mean.shape == (2, 1, 1) and var.shape == (2, 1, 1)
    np.testing.assert_allclose(var.asnumpy().ravel(), x.reshape(2, -1).var(1), rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), torch.nn.functional.layer_norm(
        torch.tensor(x), (3, 4), eps=1e-7).numpy(), rtol=1e-5, atol=1e-6)


def test_layernorm_params_wider_than_normalised_axes():
    x = r(2, 3, 4)
    g, b = r(3, 4), r(3, 4)
    ln = nn.LayerNorm((3, 4), begin_norm_axis=2, begin_params_axis=1, gamma_init=ms.Tensor(g),
                      beta_init=ms.Tensor(b), epsilon=1e-5)
    xm = x - x.mean(-1, keepdims=True)
    expected = xm / np.sqrt((xm ** 2).mean(-1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(ln(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_sync_batchnorm_is_batchnorm_on_one_device():
    x = ms.Tensor(r(4, 3, 2, 2))
    a = nn.SyncBatchNorm(3).set_train()
    b = nn.BatchNorm2d(3).set_train()
    np.testing.assert_allclose(a(x).asnumpy(), b(x).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(a.moving_variance.asnumpy(), b.moving_variance.asnumpy(), rtol=1e-6)
