"""Seeds 000/002 (gradient derivation guide) and 001 (functional autodiff tutorial), ported.

Expected numbers are the seeds' printed outputs; 001 uses random weights, so its numbers come
from torch on the same values.
"""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn, ops
from ms_core.amp import StaticLossScaler, all_finite

TOL = dict(rtol=1e-5, atol=1e-6)


class Net(nn.Cell):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss, logits


@pytest.fixture
def net():
    n = Net(3, 1)
    n.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))
    return n


X = ms.Tensor([[1, 2, 3]], ms.float32)
Y = ms.Tensor(19, ms.float32)
GX, GY, GW = [[4.0, 6.0, 8.0]], -2.0, [[2.0, 4.0, 6.0]]


def close(t, expected):
    assert isinstance(t, ms.Tensor)
    assert t.dtype == ms.float32
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected, np.float32), **TOL)


def assert_aux(aux):
    assert isinstance(aux, tuple) and len(aux) == 1
    close(aux[0], 20.0)


def test_weights_and_forward(net):
    params = net.trainable_params()
    assert [p.name for p in params] == ["fc.weight"]
    np.testing.assert_array_equal(params[0].data.asnumpy(), [[2, 3, 4]])
    loss, logits = net(X, Y)
    assert str(loss) == "1.0" and str(logits) == "20.0"


def test_grads_1_first_input(net):
    grad, aux = ms.grad(net, grad_position=0, weights=None, has_aux=True)(X, Y)
    close(grad, GX)
    assert_aux(aux)
    assert repr(aux) == "(Tensor(shape=[], dtype=Float32, value= 20),)"


def test_grads_2_second_input(net):
    grad, aux = ms.grad(net, grad_position=1, weights=None, has_aux=True)(X, Y)
    close(grad, GY)
    assert str(grad) == "-2.0"
    assert_aux(aux)


def test_grads_3_several_inputs(net):
    grad, aux = ms.grad(net, grad_position=(0, 1), weights=None, has_aux=True)(X, Y)
    assert isinstance(grad, tuple) and len(grad) == 2
    close(grad[0], GX)
    close(grad[1], GY)


def test_grads_4_weights_only(net):
    grad, aux = ms.grad(net, grad_position=None, weights=net.trainable_params(), has_aux=True)(X, Y)
    assert isinstance(grad, tuple) and len(grad) == 1
    close(grad[0], GW)


def test_grads_5_input_and_weights(net):
    grad, aux = ms.grad(net, grad_position=0, weights=net.trainable_params(), has_aux=True)(X, Y)
    inputs_part, weights_part = grad
    close(inputs_part, GX)
    assert isinstance(weights_part, tuple) and len(weights_part) == 1
    close(weights_part[0], GW)


def test_grads_6_inputs_and_weights(net):
    grad, aux = ms.grad(net, grad_position=(0, 1), weights=net.trainable_params(), has_aux=True)(X, Y)
    (gx, gy), (gw,) = grad
    close(gx, GX)
    close(gy, GY)
    close(gw, GW)


def test_grads_7_without_aux_differentiates_sum_of_outputs(net):
    grad = ms.grad(net, grad_position=0, weights=None, has_aux=False)(X, Y)
    close(grad, [[6.0, 9.0, 12.0]])
    assert str(grad) == "[[ 6.  9. 12.]]"


def test_grads_8_loss_plus_logits(net):
    class Net2(Net):
        def construct(self, x, y):
            loss, logits = super().construct(x, y)
            return loss + logits
    net2 = Net2(3, 1)
    net2.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))
    close(ms.grad(net2, grad_position=0, weights=None, has_aux=False)(X, Y), [[6.0, 9.0, 12.0]])


def test_value_and_grad(net):
    value, grad = ms.value_and_grad(net, grad_position=(0, 1), weights=net.trainable_params(),
                                    has_aux=True)(X, Y)
    assert repr(value) == ("(Tensor(shape=[], dtype=Float32, value= 1), "
                           "Tensor(shape=[], dtype=Float32, value= 20))")
    (gx, gy), (gw,) = grad
    close(gx, GX)
    close(gy, GY)
    close(gw, GW)


def test_none_none_raises():
    with pytest.raises(ValueError, match="`grad_position` and `weight` can not be None at the same time."):
        ms.grad(lambda x: x, grad_position=None, weights=None)


def test_static_loss_scale_and_all_finite(net):
    loss_scale = StaticLossScaler(1024.)

    def forward_fn(x, y):
        loss, logits = net(x, y)
        return loss_scale.scale(loss), logits

    (loss, logits), grad = ms.value_and_grad(forward_fn, grad_position=None,
                                             weights=net.trainable_params(), has_aux=True)(X, Y)
    close(loss, 1024.0)
    close(grad[0], [[2048.0, 4096.0, 6144.0]])
    close(loss_scale.unscale(loss), 1.0)
    unscaled = loss_scale.unscale(grad)
    assert isinstance(unscaled, tuple)
    close(unscaled[0], GW)
    assert bool(all_finite(unscaled)) is True
    assert bool(all_finite((ms.Tensor([1.0, float("inf")]),))) is False


def test_clip_by_global_norm_matches_torch(net):
    grads = (ms.Tensor([[2.0, 4.0, 6.0]]), ms.Tensor([3.0, -1.0]))
    clipped = ops.clip_by_global_norm(grads, 1.0)
    params = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    for p, g in zip(params, grads):
        p.grad = torch.tensor(g.asnumpy())
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    for c, p in zip(clipped, params):
        close(c, p.grad.numpy())


def test_clip_by_global_norm_leaves_small_grads_alone():
    g = (ms.Tensor([0.1, 0.2]),)
    close(ops.clip_by_global_norm(g, 1.0)[0], [0.1, 0.2])


def test_gradient_accumulation_pattern(net):
    """Seed 000's accumulation: add per-step grads, then apply them once."""
    grad_fn = ms.value_and_grad(net, None, net.trainable_params(), has_aux=True)
    accumulated = None
    for _ in range(3):
        _, grads = grad_fn(X, Y)
        accumulated = grads if accumulated is None else tuple(a + g for a, g in zip(accumulated, grads))
    close(accumulated[0], np.asarray(GW) * 3)


# --- seed 001: functional autodiff ------------------------------------------------------------

RNG = np.random.default_rng(1)
W0 = RNG.standard_normal((5, 3)).astype(np.float32)
B0 = RNG.standard_normal((3,)).astype(np.float32)


def torch_reference(with_logits_grad=False):
    x, y = torch.ones(5), torch.zeros(3)
    w = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    z = x @ w + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y, torch.ones(3), pos_weight=torch.ones(3))
    total = loss + z.sum() if with_logits_grad else loss
    gw, gb = torch.autograd.grad(total, (w, b))
    return loss.item(), z.detach().numpy(), gw.numpy(), gb.numpy()


def function(x, y, w, b):
    z = ops.matmul(x, w) + b
    return ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))


def function_with_logits(x, y, w, b):
    z = ops.matmul(x, w) + b
    loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    return loss, z


def function_stop_gradient(x, y, w, b):
    loss, z = function_with_logits(x, y, w, b)
    return loss, ops.stop_gradient(z)


def seed_001_inputs():
    x = ops.ones(5, ms.float32)
    y = ops.zeros(3, ms.float32)
    w = ms.Parameter(ms.Tensor(W0, ms.float32), name="w")
    b = ms.Parameter(ms.Tensor(B0, ms.float32), name="b")
    return x, y, w, b


def test_001_function_and_grad_positions():
    x, y, w, b = seed_001_inputs()
    loss_ref, _, gw_ref, gb_ref = torch_reference()
    close(function(x, y, w, b), loss_ref)
    gw, gb = ms.grad(function, (2, 3))(x, y, w, b)
    close(gw, gw_ref)
    close(gb, gb_ref)


def test_001_several_outputs_then_stop_gradient_then_aux():
    x, y, w, b = seed_001_inputs()
    _, z_ref, gw_both, gb_both = torch_reference(with_logits_grad=True)
    _, _, gw_ref, gb_ref = torch_reference()
    gw, gb = ms.grad(function_with_logits, (2, 3))(x, y, w, b)
    close(gw, gw_both)
    close(gb, gb_both)
    gw, gb = ms.grad(function_stop_gradient, (2, 3))(x, y, w, b)
    close(gw, gw_ref)
    close(gb, gb_ref)
    (gw, gb), (z,) = ms.grad(function_with_logits, (2, 3), has_aux=True)(x, y, w, b)
    close(gw, gw_ref)
    close(gb, gb_ref)
    close(z, z_ref)


def test_001_cell_with_value_and_grad_over_trainable_params():
    x, y, w, b = seed_001_inputs()

    class Network(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w
            self.b = b

        def construct(self, x):
            return ops.matmul(x, self.w) + self.b

    model = Network()
    assert [p.name for p in model.trainable_params()] == ["w", "b"]
    loss_fn = nn.BCEWithLogitsLoss()

    def forward_fn(x, y):
        return loss_fn(model(x), y)

    loss, (gw, gb) = ms.value_and_grad(forward_fn, None, weights=model.trainable_params())(x, y)
    loss_ref, _, gw_ref, gb_ref = torch_reference()
    close(loss, loss_ref)
    close(gw, gw_ref)
    close(gb, gb_ref)
