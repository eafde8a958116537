"""Optimizers: 10 steps against torch.optim where the formulas agree, against a float64 NumPy
reference of MindSpore's formula where they differ; parameter groups, dynamic learning rates,
weight-decay filters, loss scale, validation."""
import math

import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn

STEPS = 10
SHAPES = {"w": (3, 4), "b": (4,), "bn.gamma": (4,)}


def init_values(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(s).astype(dtype) for k, s in SHAPES.items()}


def grad_fn(name, value, t):
    """A gradient that depends on the current value (so trajectories diverge if updates differ)
    plus a step-dependent term; deterministic in (name, t)."""
    rng = np.random.default_rng(1000 + 17 * t + len(name))
    noise = rng.standard_normal(value.shape).astype(value.dtype)
    return (0.5 * value + noise).astype(value.dtype)


def make_ms_params(values):
    return [ms.Parameter(ms.Tensor(v.copy()), name=k) for k, v in values.items()]


def run_ms(make_opt, values, steps=STEPS):
    params = make_ms_params(values)
    opt = make_opt(params)
    for t in range(steps):
        grads = tuple(ms.Tensor(grad_fn(p.name, p.asnumpy(), t)) for p in opt.parameters)
        opt(grads)
    return {p.name: p.asnumpy() for p in params}, opt


def run_torch(make_opt, values, steps=STEPS, prepare=None):
    params = {k: torch.nn.Parameter(torch.from_numpy(v.copy())) for k, v in values.items()}
    opt = make_opt(list(params.values()))
    if prepare:
        prepare(opt, params)
    for t in range(steps):
        for k, p in params.items():
            p.grad = torch.from_numpy(grad_fn(k, p.detach().numpy(), t))
        opt.step()
    return {k: p.detach().numpy() for k, p in params.items()}


def assert_close(a, b, **tol):
    tol = tol or dict(rtol=1e-5, atol=1e-6)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], err_msg=k, **tol)


# --- SGD and Momentum against torch.optim.SGD ---------------------------------------------
SGD_CASES = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3),
    dict(lr=0.05, momentum=0.9, nesterov=True),
    dict(lr=0.05, momentum=0.5, weight_decay=0.01),
    dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.1),
]


def torch_sgd_no_decay_on_gamma(kw):
    """torch SGD with MindSpore's decay filter: 'bn.gamma' (the last parameter) undecayed."""
    def make(params):
        wd = kw.get("weight_decay", 0.0)
        rest = {k: v for k, v in kw.items() if k != "weight_decay"}
        return torch.optim.SGD([{"params": params[:2], "weight_decay": wd},
                                {"params": params[2:], "weight_decay": 0.0}], **rest)
    return make


@pytest.mark.parametrize("kw", SGD_CASES, ids=[str(c) for c in SGD_CASES])
def test_sgd_matches_torch(kw):
    # MindSpore's SGD = torch's SGD (first-step buffer, dampening, nesterov), except that weight
    # decay skips names containing 'beta'/'gamma' (checked on MindSpore 2.10).
    ms_kw = {("learning_rate" if k == "lr" else k): v for k, v in kw.items()}
    ours, _ = run_ms(lambda p: nn.SGD(p, **ms_kw), init_values())
    theirs = run_torch(torch_sgd_no_decay_on_gamma(kw), init_values())
    assert_close(ours, theirs)
    if kw.get("weight_decay"):
        everything = run_torch(lambda p: torch.optim.SGD(p, **kw), init_values())
        assert not np.allclose(ours["bn.gamma"], everything["bn.gamma"])


@pytest.mark.parametrize("momentum,nesterov", [(0.9, False), (0.9, True), (0.0, False), (0.5, True)])
def test_momentum_matches_torch_sgd(momentum, nesterov):
    # accum = m*accum + g from zero equals torch's buffer seeded with the first gradient.
    ours, _ = run_ms(lambda p: nn.Momentum(p, 0.05, momentum, use_nesterov=nesterov), init_values())
    theirs = run_torch(lambda p: torch.optim.SGD(p, lr=0.05, momentum=momentum, nesterov=nesterov),
                       init_values())
    assert_close(ours, theirs)


def test_momentum_weight_decay_skips_beta_gamma():
    # MindSpore (no groups): decay only parameters whose names lack 'beta'/'gamma'. torch with the
    # same decay on w and b and none on bn.gamma gives the same numbers.
    ours, _ = run_ms(lambda p: nn.Momentum(p, 0.05, 0.9, weight_decay=0.1), init_values())

    def torch_opt(params):
        return torch.optim.SGD([{"params": params[:2], "weight_decay": 0.1},
                                {"params": params[2:], "weight_decay": 0.0}], lr=0.05, momentum=0.9)

    assert_close(ours, run_torch(torch_opt, init_values()))
    # ... and differs from torch decaying everything.
    everything = run_torch(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.1),
                           init_values())
    assert not np.allclose(ours["bn.gamma"], everything["bn.gamma"])


def test_momentum_groups_decay_every_member():
    # With groups, weight_decay > 0 decays every member, 'gamma' included.
    def ms_opt(params):
        return nn.Momentum([{"params": params, "weight_decay": 0.1}], 0.05, 0.9)

    ours, _ = run_ms(ms_opt, init_values())
    theirs = run_torch(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.1),
                       init_values())
    assert_close(ours, theirs)


def test_loss_scale_divides_gradients_and_scales_decay():
    # loss_scale=L with gradients multiplied by L equals loss_scale=1 with plain gradients.
    vals = init_values()
    plain, _ = run_ms(lambda p: nn.Momentum(p, 0.05, 0.9, weight_decay=0.01), vals)
    params = make_ms_params(vals)
    opt = nn.Momentum(params, 0.05, 0.9, weight_decay=0.01, loss_scale=128.0)
    for t in range(STEPS):
        opt(tuple(ms.Tensor(grad_fn(p.name, p.asnumpy(), t) * np.float32(128)) for p in params))
    assert_close({p.name: p.asnumpy() for p in params}, plain)


# --- Adam ----------------------------------------------------------------------------------------
def adam_reference(values, lr, b1, b2, eps, wd=0.0, nesterov=False, amsgrad=False, lrs=None,
                   decay=lambda name: "beta" not in name and "gamma" not in name):
    """MindSpore's Adam in float64."""
    p = {k: v.astype(np.float64) for k, v in values.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(x) for k, x in p.items()}
    vmax = {k: np.zeros_like(x) for k, x in p.items()}
    for t in range(STEPS):
        step_lr = lrs[t] if lrs is not None else lr
        for k in p:
            g = grad_fn(k, p[k].astype(np.float32), t).astype(np.float64)
            if wd and decay(k):
                g = g + wd * p[k]
            m[k] = m[k] + (g - m[k]) * (1 - b1)
            v[k] = v[k] + (g * g - v[k]) * (1 - b2)
            lr_t = step_lr * math.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
            if amsgrad:
                vmax[k] = np.maximum(vmax[k], v[k])
                p[k] = p[k] - lr_t * m[k] / (np.sqrt(vmax[k]) + eps)
            elif nesterov:
                p[k] = p[k] - lr_t * (b1 * m[k] + (1 - b1) * g) / (np.sqrt(v[k]) + eps)
            else:
                p[k] = p[k] - lr_t * m[k] / (np.sqrt(v[k]) + eps)
    return p


@pytest.mark.parametrize("kw", [dict(), dict(use_nesterov=True), dict(weight_decay=0.05),
                                dict(use_amsgrad=True), dict(beta1=0.5, beta2=0.9, eps=1e-3)])
def test_adam_matches_float64_reference(kw):
    b1, b2, eps = kw.get("beta1", 0.9), kw.get("beta2", 0.999), kw.get("eps", 1e-8)
    ours, _ = run_ms(lambda p: nn.Adam(p, learning_rate=0.01, **kw), init_values())
    ref = adam_reference(init_values(), 0.01, b1, b2, eps, wd=kw.get("weight_decay", 0.0),
                         nesterov=kw.get("use_nesterov", False), amsgrad=kw.get("use_amsgrad", False))
    assert_close(ours, ref)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_close_to_torch(amsgrad):
    # torch's eps is MindSpore's eps * sqrt(1 - beta2^t); with gradients of order 1 and eps=1e-8
    # the relative difference in each update is below 1e-6, well inside rtol 1e-5.
    ours, _ = run_ms(lambda p: nn.Adam(p, learning_rate=0.01, use_amsgrad=amsgrad), init_values())
    theirs = run_torch(lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=amsgrad), init_values())
    assert_close(ours, theirs)


def test_adam_eps_placement_differs_from_torch_when_eps_matters():
    # With a large eps the placement shows: MindSpore adds eps to sqrt(v) before the bias factor.
    ours, _ = run_ms(lambda p: nn.Adam(p, learning_rate=0.01, eps=0.5), init_values())
    theirs = run_torch(lambda p: torch.optim.Adam(p, lr=0.01, eps=0.5), init_values())
    ref = adam_reference(init_values(), 0.01, 0.9, 0.999, 0.5)
    assert_close(ours, ref)
    assert not np.allclose(ours["w"], theirs["w"], rtol=1e-3)


def adamw_reference(values, lr, b1, b2, eps, wd):
    p = {k: v.astype(np.float64) for k, v in values.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(x) for k, x in p.items()}
    for t in range(STEPS):
        for k in p:
            g = grad_fn(k, p[k].astype(np.float32), t).astype(np.float64)
            m[k] = b1 * m[k] + (1 - b1) * g
            v[k] = b2 * v[k] + (1 - b2) * g * g
            update = m[k] / (np.sqrt(v[k]) + eps)
            if "beta" not in k and "gamma" not in k:
                update = update + wd * p[k]
            p[k] = p[k] - lr * update
    return p


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_adam_weight_decay_matches_reference(wd):
    ours, _ = run_ms(lambda p: nn.AdamWeightDecay(p, learning_rate=0.01, weight_decay=wd), init_values())
    assert_close(ours, adamw_reference(init_values(), 0.01, 0.9, 0.999, 1e-6, wd))


def test_adam_weight_decay_is_not_torch_adamw():
    # No bias correction: the first step moves a weight by ~lr*(1-b1)/sqrt(1-b2) (3.16 lr), torch's
    # AdamW by ~lr.
    vals = {"w": np.full((2, 2), 1.0, np.float32)}
    p = ms.Parameter(ms.Tensor(vals["w"]), name="w")
    opt = nn.AdamWeightDecay([p], learning_rate=0.01)
    opt((ms.Tensor(np.full((2, 2), 0.3, np.float32)),))
    np.testing.assert_allclose(1.0 - p.asnumpy(), 0.01 * 0.1 * 0.3 / (math.sqrt(0.001) * 0.3 + 1e-6),
                               rtol=1e-5)


# --- RMSProp and Adagrad against torch -------------------------------------------------------
@pytest.mark.parametrize("momentum,centered", [(0.0, False), (0.9, False), (0.0, True), (0.5, True)])
def test_rmsprop_matches_torch_with_unit_initial_square(momentum, centered):
    # MindSpore starts mean_square at 1 (torch at 0) and adds eps inside the sqrt; with torch's
    # state seeded to 1 and eps=1e-10 the two agree to float32 precision.
    ours, _ = run_ms(lambda p: nn.RMSProp(p, learning_rate=0.01, decay=0.9, momentum=momentum,
                                          centered=centered), init_values())

    def seed_state(opt, params):
        for p in params.values():
            opt.state[p] = {"step": torch.tensor(0.0), "square_avg": torch.ones_like(p),
                            "momentum_buffer": torch.zeros_like(p), "grad_avg": torch.zeros_like(p)}

    theirs = run_torch(lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, eps=1e-10,
                                                     momentum=momentum, centered=centered),
                       init_values(), prepare=seed_state)
    assert_close(ours, theirs)


def test_rmsprop_differs_from_torch_defaults():
    ours, _ = run_ms(lambda p: nn.RMSProp(p, learning_rate=0.01, decay=0.9), init_values())
    theirs = run_torch(lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, eps=1e-10), init_values())
    assert not np.allclose(ours["w"], theirs["w"], rtol=1e-3)


@pytest.mark.parametrize("accum,wd", [(0.1, 0.0), (0.5, 0.0)])
def test_adagrad_matches_torch(accum, wd):
    ours, _ = run_ms(lambda p: nn.Adagrad(p, accum=accum, learning_rate=0.1, weight_decay=wd),
                     init_values())
    theirs = run_torch(lambda p: torch.optim.Adagrad(p, lr=0.1, initial_accumulator_value=accum,
                                                     eps=0.0, weight_decay=wd), init_values())
    assert_close(ours, theirs)


def torch_no_decay_on_gamma(cls, wd=0.0, **kw):
    """A torch optimizer decaying w and b but not bn.gamma, as MindSpore's filter does."""
    return lambda p: cls([{"params": p[:2], "weight_decay": wd},
                          {"params": p[2:], "weight_decay": 0.0}], **kw)


@pytest.mark.parametrize("kw", [dict(), dict(beta1=0.8, beta2=0.9, weight_decay=0.1)])
def test_adamax_matches_torch(kw):
    # Checked on MindSpore 2.10 too (same printed values). torch adds eps inside its max, MindSpore
    # after it: with eps=1e-8 the difference is far below float32 resolution of the update.
    ours, _ = run_ms(lambda p: nn.AdaMax(p, learning_rate=0.01, **kw), init_values())
    betas = (kw.get("beta1", 0.9), kw.get("beta2", 0.999))
    theirs = run_torch(torch_no_decay_on_gamma(torch.optim.Adamax, kw.get("weight_decay", 0.0),
                                               lr=0.01, betas=betas, eps=1e-8), init_values())
    assert_close(ours, theirs)


@pytest.mark.parametrize("kw", [dict(), dict(rho=0.8, epsilon=1e-4, weight_decay=0.1)])
def test_adadelta_matches_torch(kw):
    ours, _ = run_ms(lambda p: nn.Adadelta(p, learning_rate=0.5, **kw), init_values())
    theirs = run_torch(torch_no_decay_on_gamma(torch.optim.Adadelta, kw.get("weight_decay", 0.0),
                                               lr=0.5, rho=kw.get("rho", 0.9),
                                               eps=kw.get("epsilon", 1e-6)), init_values())
    assert_close(ours, theirs)


def lamb_reference(values, lr, b1, b2, eps, wd):
    p = {k: v.astype(np.float64) for k, v in values.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(x) for k, x in p.items()}
    for t in range(STEPS):
        for k in p:
            g = grad_fn(k, p[k].astype(np.float32), t).astype(np.float64)
            m[k] = b1 * m[k] + (1 - b1) * g
            v[k] = b2 * v[k] + (1 - b2) * g * g
            r = (m[k] / (1 - b1 ** (t + 1))) / (np.sqrt(v[k] / (1 - b2 ** (t + 1))) + eps)
            if "beta" not in k and "gamma" not in k:
                r = r + wd * p[k]
            trust = np.linalg.norm(p[k]) / np.linalg.norm(r)
            p[k] = p[k] - lr * trust * r
    return p


@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_lamb_matches_float64_reference(wd):
    # MindSpore 2.10 has no CPU Lamb kernel; this is its documented formula.
    ours, _ = run_ms(lambda p: nn.Lamb(p, 0.01, weight_decay=wd), init_values())
    assert_close(ours, lamb_reference(init_values(), 0.01, 0.9, 0.999, 1e-6, wd))


# --- learning rates ----------------------------------------------------------------------------
def sgd_reference(values, lrs):
    p = {k: v.astype(np.float64) for k, v in values.items()}
    for t, lr in enumerate(lrs):
        for k in p:
            p[k] = p[k] - lr * grad_fn(k, p[k].astype(np.float32), t).astype(np.float64)
    return p


@pytest.mark.parametrize("kind", ["list", "tuple", "tensor", "numpy", "dynamic_list_fn"])
def test_dynamic_lr_list(kind):
    lrs = [0.1 * 0.8 ** i for i in range(STEPS)]
    spec = {"list": lrs, "tuple": tuple(lrs), "tensor": ms.Tensor(np.array(lrs, np.float32)),
            "numpy": np.array(lrs), "dynamic_list_fn": nn.exponential_decay_lr(0.1, 0.8, STEPS, 1, 1)}[kind]
    ours, opt = run_ms(lambda p: nn.SGD(p, learning_rate=spec), init_values())
    assert opt.dynamic_lr
    assert int(opt.global_step.asnumpy()[0]) == STEPS
    assert_close(ours, sgd_reference(init_values(), np.float32(lrs).astype(np.float64)))


def test_dynamic_lr_runs_out():
    # MindSpore 2.10 raises too (RuntimeError from Gather: index out of range).
    _, opt = run_ms(lambda p: nn.SGD(p, learning_rate=[0.1, 0.2]), init_values(), steps=2)
    with pytest.raises(RuntimeError, match="has 2 values but the optimizer is at step 2"):
        opt(tuple(ms.Tensor(np.zeros(p.shape, np.float32)) for p in opt.parameters))


@pytest.mark.parametrize("sched", [nn.ExponentialDecayLR(0.1, 0.9, 2), nn.CosineDecayLR(0.01, 0.1, 6),
                                   nn.PolynomialDecayLR(0.1, 0.01, 5, 2.0), nn.WarmUpLR(0.1, 4)])
def test_schedule_lr(sched):
    expected = [float(sched(ms.Tensor(np.array([t], np.int32))).asnumpy()[0]) for t in range(STEPS)]
    ours, opt = run_ms(lambda p: nn.Momentum(p, sched, 0.0), init_values())
    assert_close(ours, sgd_reference(init_values(), expected))


def test_get_lr_reads_and_the_call_advances_step():
    # As on MindSpore 2.10: get_lr() does not move the step; each optimizer call does, after
    # using the current step's rate (0.1, then 0.2, then 0.3).
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")
    opt = nn.SGD([p], learning_rate=[0.1, 0.2, 0.3])
    assert opt.global_step.asnumpy().tolist() == [0]
    assert float(opt.get_lr().asnumpy()) == pytest.approx(0.1)
    assert float(opt.get_lr().asnumpy()) == pytest.approx(0.1)
    assert opt.global_step.asnumpy().tolist() == [0]
    g = (ms.Tensor(np.ones(2, np.float32)),)
    for expected in ([-0.1, -0.1], [-0.3, -0.3], [-0.6, -0.6]):
        opt(g)
        np.testing.assert_allclose(p.asnumpy(), expected, rtol=1e-6)
    assert opt.global_step.asnumpy().tolist() == [3]
    fixed = nn.SGD([ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="q")], learning_rate=0.1)
    fixed(g)
    fixed(g)
    assert fixed.global_step.asnumpy().tolist() == [2]  # a fixed rate counts steps too


def test_custom_optimizer_written_mindspore_style():
    class PlainSGD(nn.Optimizer):
        def __init__(self, params, learning_rate):
            super().__init__(learning_rate, params)
            self.buf = self.parameters.clone(prefix="buf", init="zeros")

        def construct(self, gradients):
            lr = self.get_lr()
            for p, g in zip(self.parameters, gradients):
                p.set_data(p - lr * g)
            return True

    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    opt = PlainSGD([p], [0.5, 0.25])
    opt((ms.Tensor(np.ones(2, np.float32)),))
    opt((ms.Tensor(np.ones(2, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [0.25, 0.25])
    assert opt.global_step.asnumpy().tolist() == [2]
    assert "buf.p" in opt.parameters_dict()


def test_fixed_lr_is_a_parameter_that_can_be_changed():
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")
    opt = nn.SGD([p], learning_rate=0.1)
    assert isinstance(opt.learning_rate, ms.Parameter) and opt.learning_rate.dtype == ms.float32
    opt.learning_rate.set_data(ms.Tensor(0.5, ms.float32))
    opt((ms.Tensor(np.ones(2, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [-0.5, -0.5])


class StepWeightDecay(nn.Cell):
    """weight decay 0.1 * (step + 1): a dynamic weight decay schedule."""

    def construct(self, step):
        return ms.Tensor(np.float32(0.1) * (step.asnumpy().astype(np.float32) + 1))


@pytest.mark.parametrize("make", [lambda p, wd: nn.Momentum(p, 0.1, 0.0, weight_decay=wd),
                                  lambda p, wd: nn.AdamWeightDecay(p, 0.1, weight_decay=wd)])
def test_dynamic_weight_decay(make):
    # The same numbers MindSpore 2.10 prints for this script: 0.99, 0.9702, 0.941094.
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    opt = make([p], StepWeightDecay())
    seen = []
    for _ in range(3):
        opt((ms.Tensor(np.zeros(2, np.float32)),))
        seen.append(float(p.asnumpy()[0]))
    np.testing.assert_allclose(seen, [0.99, 0.9702, 0.941094], rtol=1e-6)


def test_sgd_refuses_dynamic_weight_decay():
    with pytest.raises(TypeError, match="dynamic weight decay is currently not supported"):
        nn.SGD(_p(), 0.1, weight_decay=StepWeightDecay())


# --- parameter groups ------------------------------------------------------------------------
def test_groups_lr_weight_decay_and_order():
    vals = init_values()
    params = make_ms_params(vals)
    w, b, g = params
    groups = [{"params": [w], "lr": 0.01, "weight_decay": 0.1},
              {"params": [g, b]},
              {"order_params": [w, b, g]}]
    opt = nn.Momentum(groups, learning_rate=0.05, momentum=0.9, weight_decay=0.0)
    assert [p.name for p in opt.parameters] == ["w", "b", "bn.gamma"]
    assert opt.is_group and opt.is_group_lr
    lrs = opt.get_lr()
    assert [float(x.asnumpy()) for x in lrs] == pytest.approx([0.01, 0.05, 0.05])
    assert opt.get_lr_parameter(w).asnumpy() == pytest.approx(0.01)
    for t in range(STEPS):
        opt(tuple(ms.Tensor(grad_fn(p.name, p.asnumpy(), t)) for p in opt.parameters))

    def torch_opt(tp):
        return torch.optim.SGD([{"params": [tp[0]], "lr": 0.01, "weight_decay": 0.1},
                                {"params": tp[1:]}], lr=0.05, momentum=0.9)

    assert_close({p.name: p.asnumpy() for p in params}, run_torch(torch_opt, vals))


def test_group_dynamic_lr():
    vals = init_values()
    params = make_ms_params(vals)
    lrs = [0.1 / (i + 1) for i in range(STEPS)]
    opt = nn.SGD([{"params": params[:1], "lr": lrs}, {"params": params[1:]}], learning_rate=0.05)
    assert opt.dynamic_lr
    ref = {k: v.astype(np.float64) for k, v in vals.items()}
    for t in range(STEPS):
        grads = {p.name: grad_fn(p.name, p.asnumpy(), t) for p in params}
        opt(tuple(ms.Tensor(grads[p.name]) for p in params))
        for k in ref:
            lr = np.float32(lrs[t]) if k == "w" else np.float32(0.05)
            ref[k] = ref[k] - lr * grads[k].astype(np.float64)
    assert_close({p.name: p.asnumpy() for p in params}, ref)


def test_grad_centralization_rule():
    # MindSpore centralises only gradients with ndim >= 2 and shape[1] % 16 == 0.
    rng = np.random.default_rng(0)
    shapes = {"conv.weight": (4, 16, 3, 3), "fc.weight": (3, 4), "bias": (16,)}
    params = [ms.Parameter(ms.Tensor(np.zeros(s, np.float32)), name=k) for k, s in shapes.items()]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes.values()]
    opt = nn.SGD([{"params": params, "grad_centralization": True}], learning_rate=1.0)
    opt(tuple(ms.Tensor(g) for g in grads))
    g0 = grads[0].astype(np.float64)
    np.testing.assert_allclose(-params[0].asnumpy(), g0 - g0.mean(axis=(1, 2, 3), keepdims=True),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(-params[1].asnumpy(), grads[1], rtol=1e-6)  # shape[1] = 4: unchanged
    np.testing.assert_allclose(-params[2].asnumpy(), grads[2], rtol=1e-6)  # a vector: unchanged


def test_optimizer_state_is_named_and_registered():
    net = nn.Dense(3, 2)
    opt = nn.Adam(net.trainable_params(), use_amsgrad=True)
    names = list(opt.parameters_dict())
    # names and order as MindSpore 2.10 lists them for Adam(Dense(2, 2)) with amsgrad:
    # ['global_step', 'learning_rate', 'weight', 'bias', 'beta1_power', 'beta2_power',
    #  'moment1.weight', 'moment1.bias', 'moment2.weight', 'moment2.bias', 'vhat.weight', 'vhat.bias']
    assert names == ["global_step", "learning_rate", "weight", "bias", "beta1_power", "beta2_power",
                     "moment1.weight", "moment1.bias", "moment2.weight", "moment2.bias",
                     "vhat.weight", "vhat.bias"]
    assert list(nn.Momentum(net.trainable_params(), 0.1, 0.9).parameters_dict()) == \
        ["global_step", "learning_rate", "weight", "bias", "momentum", "moments.weight", "moments.bias"]
    assert list(nn.AdamWeightDecay(net.trainable_params()).parameters_dict()) == \
        ["global_step", "learning_rate", "weight", "bias", "adam_m.weight", "adam_m.bias",
         "adam_v.weight", "adam_v.bias"]


def test_update_replaces_values_and_is_not_recorded():
    p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="p")
    snapshot = p.value
    opt = nn.SGD([p], learning_rate=1.0)
    out = opt((ms.Tensor(np.ones(3, np.float32)),))
    assert bool(out.asnumpy())
    np.testing.assert_array_equal(p.asnumpy(), np.zeros(3))
    np.testing.assert_array_equal(snapshot.asnumpy(), np.ones(3))  # old snapshots keep old values
    assert p.dtype == ms.float32 and p._node is None


def test_end_to_end_with_value_and_grad():
    ms.set_seed(0)
    net = nn.Dense(4, 1)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((16, 4)).astype(np.float32))
    y = ms.Tensor(np.random.default_rng(1).standard_normal((16, 1)).astype(np.float32))

    def loss_fn(x, y):
        return ((net(x) - y) ** 2).mean()

    vg = ms.value_and_grad(loss_fn, None, opt.parameters)
    first = None
    for _ in range(20):
        loss, grads = vg(x, y)
        first = first if first is not None else float(loss.asnumpy())
        opt(grads)
    assert float(loss.asnumpy()) < first


# --- validation ----------------------------------------------------------------------------------
def _p():
    return [ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")]


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: nn.SGD(None), ValueError, "can not be None"),
    (lambda: nn.SGD([]), ValueError, "must not be empty"),
    (lambda: nn.SGD(_p()[0]), TypeError, "must be an iterable"),
    (lambda: nn.SGD([1, 2]), TypeError, "'Parameter' or 'dict'"),
    (lambda: nn.SGD(_p(), learning_rate=-0.1), ValueError, "'learning_rate' must be >= 0"),
    (lambda: nn.SGD(_p(), learning_rate="fast"), TypeError, "'learning_rate' must be"),
    (lambda: nn.SGD(_p(), learning_rate=[[0.1]]), ValueError, "1-D"),
    (lambda: nn.SGD(_p(), weight_decay=-1.0), ValueError, "'weight_decay' must be >= 0"),
    (lambda: nn.SGD(_p(), loss_scale=0.0), ValueError, "'loss_scale' must be > 0"),
    (lambda: nn.SGD(_p(), momentum=-0.5), ValueError, "'momentum' must be >= 0"),
    (lambda: nn.SGD(_p(), nesterov=True), ValueError, "'nesterov' is true"),
    (lambda: nn.SGD(_p(), momentum=0.9, dampening=0.1, nesterov=True), ValueError, "'dampening'"),
    (lambda: nn.Momentum(_p(), 0.1, momentum="x"), TypeError, "'momentum' must be float"),
    (lambda: nn.Adam(_p(), beta1=1.0), ValueError, "'beta1' must be < 1.0"),
    (lambda: nn.Adam(_p(), eps=0.0), ValueError, "'eps' must be > 0.0"),
    (lambda: nn.Adam(_p(), use_nesterov=1), TypeError, "'use_nesterov' must be bool"),
    (lambda: nn.RMSProp(_p(), epsilon=0.0), ValueError, "'epsilon' must be > 0.0"),
    (lambda: nn.SGD([{"params": _p(), "momentum": 0.9}]), KeyError, "cannot be recognized"),
    (lambda: nn.SGD([{"lr": 0.1}]), KeyError, "'params' key"),
    (lambda: nn.SGD(_p() * 2), RuntimeError, "more than once"),
    (lambda: nn.SGD([{"params": _p()}, {"order_params": _p()}]), ValueError, "'order_params'"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_gradient_validation():
    opt = nn.SGD(_p())
    with pytest.raises(ValueError, match="number of gradients must equal"):
        opt((ms.Tensor(np.zeros(2, np.float32)),) * 2)
    with pytest.raises(ValueError, match="gradient of 'p' must have the parameter's shape"):
        opt((ms.Tensor(np.zeros(3, np.float32)),))
    with pytest.raises(TypeError, match="tuple of Tensors"):
        opt(ms.Tensor(np.zeros(2, np.float32)))


def test_momentum_is_a_parameter_that_can_be_changed():
    # As in MindSpore, `momentum` is a Parameter: set_data changes it between steps.
    p = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="p")
    opt = nn.Momentum([p], 1.0, 0.9)
    g = (ms.Tensor(np.ones(1, np.float32)),)
    opt(g)                                    # accum 1, p = -1
    opt.momentum.set_data(ms.Tensor(np.float32(0.0)))
    opt(g)                                    # accum = 0 * 1 + 1 = 1, p = -2
    np.testing.assert_allclose(p.asnumpy(), [-2.0])
