"""Training wrappers: TrainOneStepCell equals a hand-written loop and torch's; loss scaling skips
overflowed updates and follows MindSpore's dynamic-scale counters."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn

rng = np.random.default_rng(0)
X = rng.standard_normal((16, 5)).astype(np.float32)
Y = rng.standard_normal((16, 2)).astype(np.float32)
W0 = rng.standard_normal((2, 5)).astype(np.float32) * np.float32(0.3)
B0 = rng.standard_normal((2,)).astype(np.float32) * np.float32(0.1)
STEPS = 10


def make_net():
    net = nn.Dense(5, 2)
    net.weight.set_data(ms.Tensor(W0))
    net.bias.set_data(ms.Tensor(B0))
    return net


def torch_loop(lr=0.05, momentum=0.9, steps=STEPS):
    lin = torch.nn.Linear(5, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(W0))
        lin.bias.copy_(torch.from_numpy(B0))
    opt = torch.optim.SGD(lin.parameters(), lr=lr, momentum=momentum)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(lin(torch.from_numpy(X)), torch.from_numpy(Y))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, lin.weight.detach().numpy(), lin.bias.detach().numpy()


def test_train_one_step_matches_hand_loop_and_torch():
    net = make_net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                nn.Momentum(net.trainable_params(), 0.05, 0.9))
    train.set_train()
    losses = [float(train(ms.Tensor(X), ms.Tensor(Y)).asnumpy()) for _ in range(STEPS)]

    # the same with value_and_grad and an optimizer call, written out by hand
    net2 = make_net()
    opt2 = nn.Momentum(net2.trainable_params(), 0.05, 0.9)
    loss_fn = nn.MSELoss()

    def forward(x, y):
        return loss_fn(net2(x), y)

    vg = ms.value_and_grad(forward, None, opt2.parameters)
    hand = []
    for _ in range(STEPS):
        loss, grads = vg(ms.Tensor(X), ms.Tensor(Y))
        opt2(grads)
        hand.append(float(loss.asnumpy()))
    np.testing.assert_array_equal(losses, hand)
    np.testing.assert_array_equal(net.weight.asnumpy(), net2.weight.asnumpy())

    t_losses, t_w, t_b = torch_loop()
    np.testing.assert_allclose(losses, t_losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.weight.asnumpy(), t_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), t_b, rtol=1e-5, atol=1e-6)
    assert losses[-1] < losses[0]


def test_sens_scales_the_gradient():
    # SGD without momentum: sens=2 moves the weights exactly as lr*2 would.
    net_a, net_b = make_net(), make_net()
    a = nn.TrainOneStepCell(nn.WithLossCell(net_a, nn.MSELoss()),
                            nn.SGD(net_a.trainable_params(), 0.05), sens=2.0)
    b = nn.TrainOneStepCell(nn.WithLossCell(net_b, nn.MSELoss()), nn.SGD(net_b.trainable_params(), 0.1))
    for _ in range(3):
        la, lb = a(ms.Tensor(X), ms.Tensor(Y)), b(ms.Tensor(X), ms.Tensor(Y))
        np.testing.assert_allclose(la.asnumpy(), lb.asnumpy(), rtol=1e-6)  # the loss is unscaled
    np.testing.assert_allclose(net_a.weight.asnumpy(), net_b.weight.asnumpy(), rtol=1e-6, atol=1e-7)


def test_train_one_step_returns_detached_loss_and_keeps_names():
    net = make_net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params()))
    loss = train(ms.Tensor(X), ms.Tensor(Y))
    assert loss.shape == () and loss.dtype == ms.float32 and loss._node is None
    names = set(train.parameters_dict())
    assert {"weight", "bias", "moment1.weight", "global_step"} <= names  # nothing prefixed


def test_return_grad():
    net = make_net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.0),
                                return_grad=True)
    loss, grads = train(ms.Tensor(X), ms.Tensor(Y))
    resid = (X @ W0.T + B0 - Y) * (2.0 / Y.size)
    np.testing.assert_allclose(grads[0].asnumpy(), resid.T @ X, rtol=1e-5, atol=1e-6)


def test_with_eval_and_grad_cells():
    net = make_net()
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(ms.Tensor(X), ms.Tensor(Y))
    np.testing.assert_allclose(out.asnumpy(), X @ W0.T + B0, rtol=1e-6)
    assert float(loss.asnumpy()) == pytest.approx(float(((X @ W0.T + B0 - Y) ** 2).mean()), rel=1e-5)
    grads = nn.WithGradCell(net, nn.MSELoss())(ms.Tensor(X), ms.Tensor(Y))
    resid = (X @ W0.T + B0 - Y) * (2.0 / Y.size)
    np.testing.assert_allclose(grads[0].asnumpy(), resid.T @ X, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[1].asnumpy(), resid.sum(0), rtol=1e-5, atol=1e-6)
    assert nn.WithLossCell(net, nn.MSELoss()).backbone_network is net


# --- loss scale ------------------------------------------------------------------------------------
class Scaled(nn.Cell):
    """loss = sum(w * x): d loss / d w = x, so a huge x overflows a scaled backward in float32."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")

    def construct(self, x):
        return (self.w * x).sum()


def test_loss_scale_without_overflow_equals_plain_training():
    net_a, net_b = make_net(), make_net()
    scaled = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net_a, nn.MSELoss()), nn.Momentum(net_a.trainable_params(), 0.05, 0.9),
        scale_sense=ms.Tensor(np.float32(1024.0)))
    plain = nn.TrainOneStepCell(nn.WithLossCell(net_b, nn.MSELoss()),
                                nn.Momentum(net_b.trainable_params(), 0.05, 0.9))
    for _ in range(STEPS):
        loss, overflow, scale = scaled(ms.Tensor(X), ms.Tensor(Y))
        ref = plain(ms.Tensor(X), ms.Tensor(Y))
        assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1024.0
        np.testing.assert_allclose(loss.asnumpy(), ref.asnumpy(), rtol=1e-6)
    # power-of-two scale: scaling and unscaling are exact in float32
    np.testing.assert_allclose(net_a.weight.asnumpy(), net_b.weight.asnumpy(), rtol=1e-6, atol=1e-7)


def test_overflow_skips_update_with_fixed_tensor_scale():
    net = Scaled()
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepWithLossScaleCell(net, opt, ms.Tensor(np.array([2.0 ** 20], np.float32)))
    big = ms.Tensor(np.array([1e35, 1.0, 1.0], np.float32))
    loss, overflow, scale = step(big)
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(net.w.asnumpy(), np.ones(3))  # update skipped
    assert float(scale.asnumpy()[0]) == 2.0 ** 20 and float(step.scale_sense.asnumpy()[0]) == 2.0 ** 20
    loss, overflow, _ = step(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    assert not bool(overflow.asnumpy())
    np.testing.assert_allclose(net.w.asnumpy(), 1 - 0.1 * np.array([1.0, 2.0, 3.0]), rtol=1e-6)


def test_overflow_with_fixed_update_cell_is_skipped_and_scale_kept():
    net = Scaled()
    step = nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1),
                                            nn.FixedLossScaleUpdateCell(2.0 ** 20))
    _, overflow, _ = step(ms.Tensor(np.array([1e35, 1.0, 1.0], np.float32)))
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(net.w.asnumpy(), np.ones(3))
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 20


def simulate_dynamic(scale, factor, window, overflows):
    """MindSpore's DynamicLossScaleUpdateCell counters, written out plainly."""
    cur, last, out = 1, 0, []
    for of in overflows:
        new = max(scale / factor, 1.0) if of else scale
        inc = cur - last >= window
        if of or inc:
            last = cur
        if inc and not of:
            new *= factor
        scale = new
        cur += 1
        out.append(scale)
    return out


def test_dynamic_scale_follows_mindspore_counters():
    pattern = [False, False, True, False, False, False, True, True, False, False, False, False]
    net = Scaled()
    manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 16, scale_factor=2, scale_window=3)
    step = nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.01), manager)
    good = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    bad = ms.Tensor(np.array([1e38, 1.0, 1.0], np.float32))
    scales = []
    for of in pattern:
        before = net.w.asnumpy().copy()
        _, overflow, used = step(bad if of else good)
        assert bool(overflow.asnumpy()) == of
        if of:
            np.testing.assert_array_equal(net.w.asnumpy(), before)
        else:
            np.testing.assert_allclose(net.w.asnumpy(), before - 0.01 * good.asnumpy(), rtol=1e-6)
        scales.append(float(step.scale_sense.asnumpy()))
    assert scales == simulate_dynamic(2.0 ** 16, 2, 3, pattern)
    assert float(used.asnumpy()) == scales[-2]  # the returned scale is the one this step used


def test_dynamic_scale_never_below_one():
    p = ms.Parameter(ms.Tensor(np.float32(2.0)), name="s")
    cell = nn.DynamicLossScaleUpdateCell(2.0, 4, 100)
    for _ in range(3):
        cell(p, ms.Tensor(True))
    assert float(p.asnumpy()) == 1.0


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: nn.WithLossCell("net", nn.MSELoss()), TypeError, "'backbone' must be a Cell"),
    (lambda: nn.WithLossCell(nn.Dense(2, 2), 3), TypeError, "'loss_fn' must be"),
    (lambda: nn.TrainOneStepCell(nn.Dense(2, 2), "sgd"), TypeError, "'optimizer' must be"),
    (lambda: nn.TrainOneStepCell(nn.Dense(2, 2), nn.SGD(nn.Dense(2, 2).trainable_params()),
                                 sens="x"), TypeError, "'sens' must be"),
    (lambda: nn.TrainOneStepWithLossScaleCell(nn.Dense(2, 2), nn.SGD(nn.Dense(2, 2).trainable_params()),
                                              ms.Tensor(np.ones((2,), np.float32))),
     ValueError, "must be \\(1,\\) or \\(\\)"),
    (lambda: nn.TrainOneStepWithLossScaleCell(nn.Dense(2, 2), nn.SGD(nn.Dense(2, 2).trainable_params()),
                                              1024.0), TypeError, "Cell or a Tensor"),
    (lambda: nn.DynamicLossScaleUpdateCell(1024, 0.5, 10), ValueError, "'scale_factor' must be > 1"),
    (lambda: nn.DynamicLossScaleUpdateCell(1024, 2, 0), ValueError, "'scale_window' must be"),
    (lambda: nn.FixedLossScaleUpdateCell(-1), ValueError, "'loss_scale_value' must be > 0"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_network_must_return_one_tensor():
    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(2, 1)

        def construct(self, x):
            return self.d(x), self.d(x)

    net = Two()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params()))
    with pytest.raises(TypeError, match="return the loss as one Tensor"):
        step(ms.Tensor(np.ones((1, 2), np.float32)))


def test_forward_value_and_grad_structures():
    # Output structures as MindSpore 2.10 prints them for the same calls (checked).
    net = make_net()
    wl = nn.WithLossCell(net, nn.MSELoss())
    x, y = ms.Tensor(X), ms.Tensor(Y)
    resid = (X @ W0.T + B0 - Y) * (2.0 / Y.size)
    dw, db, dx = resid.T @ X, resid.sum(0), resid @ W0
    loss, g = nn.ForwardValueAndGrad(wl)(x, y)
    assert float(loss.asnumpy()) == pytest.approx(float(((X @ W0.T + B0 - Y) ** 2).mean()), rel=1e-5)
    np.testing.assert_allclose(g.asnumpy(), dx, rtol=1e-5, atol=1e-6)
    _, g = nn.ForwardValueAndGrad(wl, get_all=True)(x, y)
    assert isinstance(g, tuple) and len(g) == 2
    _, g = nn.ForwardValueAndGrad(wl, weights=net.trainable_params(), get_by_list=True)(x, y)
    np.testing.assert_allclose(g[0].asnumpy(), dw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[1].asnumpy(), db, rtol=1e-5, atol=1e-6)
    _, (gi, gw) = nn.ForwardValueAndGrad(wl, weights=net.trainable_params(), get_all=True,
                                         get_by_list=True)(x, y)
    np.testing.assert_allclose(gi[0].asnumpy(), dx, rtol=1e-5, atol=1e-6)
    _, g = nn.ForwardValueAndGrad(wl, weights=net.trainable_params(), get_by_list=True,
                                  sens_param=True)(x, y, ms.Tensor(np.float32(2.0)))
    np.testing.assert_allclose(g[0].asnumpy(), 2 * dw, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="'weights'"):
        nn.ForwardValueAndGrad(wl, get_by_list=True)


def test_distributed_grad_reducer_keeps_the_values_on_one_process():
    grads = (ms.Tensor(np.arange(2, dtype=np.float32)), ms.Tensor(np.ones((2, 2), np.float16)))
    for mean in (False, True):
        out = nn.DistributedGradReducer(make_net().trainable_params(), mean=mean)(grads)
        assert isinstance(out, tuple) and len(out) == 2
        for a, b in zip(out, grads):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
