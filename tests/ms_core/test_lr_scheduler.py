"""ms_core.experimental.optim.lr_scheduler against torch.optim.lr_scheduler: the learning rate
(and cycled momentum) of every param group over 50 steps, for the recursive forms (`step()`) and
the closed forms (`step(epoch)`)."""
import warnings

import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core.experimental import optim
from ms_core.experimental.optim import lr_scheduler as ms_sched
from ms_core.experimental.optim.optimizer import _lr_value

T = torch.optim.lr_scheduler
STEPS = 50
TOL = dict(rtol=1e-13, atol=1e-15)  # the lr Parameters store float32, the doubles are kept beside


def _pair(opt_name="SGD", lrs=(0.1, 0.05), **kw):
    """An ms and a torch optimizer with two param groups of different lrs."""
    mp = [ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name=f"p{i}") for i in range(2)]
    tp = [torch.ones(2, requires_grad=True) for _ in range(2)]
    mopt = getattr(optim, opt_name)([{"params": [mp[i]], "lr": lr} for i, lr in enumerate(lrs)], **kw)
    topt = getattr(torch.optim, opt_name)([{"params": [tp[i]], "lr": lr} for i, lr in enumerate(lrs)],
                                          **kw)
    return mopt, topt


def _lrs(ms_opt):
    return [_lr_value(g["lr"]) for g in ms_opt.param_groups]


def _compare(ms_s, t_s, mopt, topt, steps=STEPS, metrics=None, keys=()):
    np.testing.assert_allclose(_lrs(mopt), [g["lr"] for g in topt.param_groups], **TOL)
    for i in range(steps):
        topt.step()  # keeps torch from warning that the scheduler stepped first
        if metrics is None:
            ms_s.step()
            t_s.step()
        else:
            ms_s.step(metrics[i])
            t_s.step(metrics[i])
        np.testing.assert_allclose(_lrs(mopt), [g["lr"] for g in topt.param_groups], **TOL,
                                   err_msg=f"step {i}")
        np.testing.assert_allclose([float(v) for v in ms_s.get_last_lr()], t_s.get_last_lr(),
                                   rtol=1e-7, atol=1e-40)  # float32 Tensors, as MindSpore returns
        for key in keys:  # cycled momentum / betas
            np.testing.assert_allclose(np.array([g[key] for g in mopt.param_groups], dtype=float),
                                       np.array([g[key] for g in topt.param_groups], dtype=float),
                                       rtol=1e-12, err_msg=f"{key} at step {i}")


CASES = [
    ("StepLR", dict(step_size=7, gamma=0.5)),
    ("StepLR", dict(step_size=1)),
    ("MultiStepLR", dict(milestones=[5, 12, 12, 30], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.93)),
    ("CosineAnnealingLR", dict(T_max=20, eta_min=0.001)),  # 50 steps: past T_max, it rises again
    ("CosineAnnealingLR", dict(T_max=50)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (1.0 + e))),
    ("LambdaLR", dict(lr_lambda=[lambda e: 0.9 ** e, lambda e: min(1.0, (e + 1) / 10)])),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("LinearLR", dict(start_factor=0.25, total_iters=10)),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.1, total_iters=30)),
    ("ConstantLR", dict(factor=0.5, total_iters=4)),
    ("PolynomialLR", dict(total_iters=20, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=7, T_mult=2, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_schedule_matches_torch(name, kwargs):
    mopt, topt = _pair()
    ms_s = getattr(ms_sched, name)(mopt, **kwargs)
    t_s = getattr(T, name)(topt, **kwargs)
    _compare(ms_s, t_s, mopt, topt)


CLOSED = [c for c in CASES if hasattr(getattr(T, c[0]), "_get_closed_form_lr")]


@pytest.mark.parametrize("name,kwargs", CLOSED, ids=[f"{c[0]}-{i}" for i, c in enumerate(CLOSED)])
def test_closed_form_step_epoch_matches_torch(name, kwargs):
    mopt, topt = _pair()
    ms_s = getattr(ms_sched, name)(mopt, **kwargs)
    t_s = getattr(T, name)(topt, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in [3, 10, 0, 25, 49, 7]:
            topt.step()
            ms_s.step(epoch)
            t_s.step(epoch)
            np.testing.assert_allclose(_lrs(mopt), [g["lr"] for g in topt.param_groups], **TOL)


def test_warm_restarts_fractional_epochs_match_torch():
    mopt, topt = _pair()
    ms_s = ms_sched.CosineAnnealingWarmRestarts(mopt, T_0=4, T_mult=2)
    t_s = T.CosineAnnealingWarmRestarts(topt, T_0=4, T_mult=2)
    for epoch in np.arange(0, 30, 0.7):
        topt.step()
        ms_s.step(float(epoch))
        t_s.step(float(epoch))
        np.testing.assert_allclose(_lrs(mopt), [g["lr"] for g in topt.param_groups], **TOL)


@pytest.mark.parametrize("opt_name,opt_kw,kwargs,keys", [
    ("SGD", dict(momentum=0.9), dict(max_lr=[1.0, 0.5], total_steps=STEPS), ["momentum"]),
    ("SGD", dict(momentum=0.9), dict(max_lr=0.3, epochs=5, steps_per_epoch=10,
                                     anneal_strategy="linear", three_phase=True), ["momentum"]),
    ("Adam", dict(), dict(max_lr=0.01, total_steps=STEPS, pct_start=0.25, div_factor=10.0),
     ["betas"]),
    ("AdamW", dict(), dict(max_lr=0.01, total_steps=STEPS + 5, cycle_momentum=False), []),
], ids=["sgd", "sgd-3phase-linear", "adam-betas", "adamw-no-momentum"])
def test_one_cycle_matches_torch(opt_name, opt_kw, kwargs, keys):
    mopt, topt = _pair(opt_name, **opt_kw)
    ms_s = ms_sched.OneCycleLR(mopt, **kwargs)
    t_s = T.OneCycleLR(topt, **kwargs)
    _compare(ms_s, t_s, mopt, topt, steps=STEPS - 1, keys=keys)


@pytest.mark.parametrize("opt_name,kwargs,keys", [
    ("SGD", dict(base_lr=0.01, max_lr=0.1, step_size_up=7), ["momentum"]),
    ("SGD", dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=4, step_size_down=9,
                 mode="triangular2", base_momentum=0.7, max_momentum=0.95), ["momentum"]),
    ("SGD", dict(base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.97), []),
    ("Adam", dict(base_lr=0.001, max_lr=0.01, step_size_up=6), ["betas"]),
    ("SGD", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 0.5 ** x,
                 scale_mode="iterations", cycle_momentum=False), []),
], ids=["triangular", "triangular2-groups", "exp_range", "adam-betas", "custom-scale"])
def test_cyclic_lr_matches_torch(opt_name, kwargs, keys):
    mopt, topt = _pair(opt_name, **({"momentum": 0.9} if opt_name == "SGD" else {}))
    ms_s = ms_sched.CyclicLR(mopt, **kwargs)
    t_s = T.CyclicLR(topt, **kwargs)
    _compare(ms_s, t_s, mopt, topt, keys=keys)


def test_one_cycle_past_total_steps_raises():
    mopt, _ = _pair()
    s = ms_sched.OneCycleLR(mopt, max_lr=0.1, total_steps=3)
    s.step()
    s.step()
    s.step()
    with pytest.raises(ValueError, match="tried to step 4 times"):
        s.step()


@pytest.mark.parametrize("kwargs", [
    dict(patience=2),
    dict(mode="max", factor=0.5, patience=1, cooldown=2, threshold=0.05, threshold_mode="abs"),
    dict(factor=0.5, patience=0, min_lr=[0.01, 0.02]),
    dict(factor=0.3, patience=1, threshold_mode="rel", threshold=0.1, eps=1e-3),
], ids=["min-rel", "max-abs-cooldown", "min_lr-list", "eps"])
def test_reduce_on_plateau_matches_torch(kwargs):
    rng = np.random.default_rng(0)
    metrics = list(np.cumsum(rng.standard_normal(STEPS) * 0.3) + 5.0)
    mopt, topt = _pair()
    ms_s = ms_sched.ReduceLROnPlateau(mopt, **kwargs)
    t_s = T.ReduceLROnPlateau(topt, **kwargs)
    _compare(ms_s, t_s, mopt, topt, metrics=metrics)


def test_reduce_on_plateau_accepts_tensor_metric():
    mopt, _ = _pair()
    s = ms_sched.ReduceLROnPlateau(mopt, patience=0)
    s.step(ms.Tensor(1.0))
    s.step(ms.Tensor(np.array([2.0], np.float32)))
    assert float(s.get_last_lr()[0]) == pytest.approx(0.01)


def test_sequential_lr_matches_torch():
    mopt, topt = _pair()
    ms_s = ms_sched.SequentialLR(mopt, [ms_sched.LinearLR(mopt, start_factor=0.1, total_iters=5),
                                        ms_sched.ExponentialLR(mopt, gamma=0.9)], milestones=[5])
    t_s = T.SequentialLR(topt, [T.LinearLR(topt, start_factor=0.1, total_iters=5),
                                T.ExponentialLR(topt, gamma=0.9)], milestones=[5])
    _compare(ms_s, t_s, mopt, topt)


def test_chained_scheduler_matches_torch():
    mopt, topt = _pair()
    ms_s = ms_sched.ChainedScheduler([ms_sched.ConstantLR(mopt, factor=0.5, total_iters=3),
                                      ms_sched.ExponentialLR(mopt, gamma=0.95)])
    t_s = T.ChainedScheduler([T.ConstantLR(topt, factor=0.5, total_iters=3),
                              T.ExponentialLR(topt, gamma=0.95)])
    _compare(ms_s, t_s, mopt, topt)


def test_scheduler_drives_sgd_parameters_like_torch():
    """Parameters, not only lrs: SGD + momentum under MultiStepLR over 50 steps."""
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal(4).astype(np.float32)
    mp = ms.Parameter(ms.Tensor(w0.copy()), name="w")
    tp = torch.tensor(w0.copy(), requires_grad=True)
    mopt = optim.SGD([mp], lr=0.1, momentum=0.9, weight_decay=5e-4)
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9, weight_decay=5e-4)
    ms_s = ms_sched.MultiStepLR(mopt, milestones=[10, 30], gamma=0.1)
    t_s = T.MultiStepLR(topt, milestones=[10, 30], gamma=0.1)
    for _ in range(STEPS):
        topt.zero_grad()
        (torch.sin(tp) * tp).sum().backward()
        mopt((ms.Tensor(tp.grad.numpy().copy()),))
        topt.step()
        ms_s.step()
        t_s.step()
        np.testing.assert_allclose(mp.asnumpy(), tp.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_get_last_lr_returns_float32_tensors_and_initial_lr_is_recorded():
    mopt, _ = _pair()
    s = ms_sched.StepLR(mopt, step_size=2)
    last = s.get_last_lr()
    assert isinstance(last[0], ms.Tensor) and last[0].dtype == ms.float32 and last[0].shape == ()
    assert mopt.param_groups[0]["initial_lr"] == pytest.approx(0.1)
    assert s.step() is True


def test_resume_with_last_epoch():
    mopt, topt = _pair()
    for g in mopt.param_groups:
        g["initial_lr"] = _lr_value(g["lr"])
    for g in topt.param_groups:
        g["initial_lr"] = g["lr"]
    ms_s = ms_sched.CosineAnnealingLR(mopt, T_max=10, last_epoch=4)
    t_s = T.CosineAnnealingLR(topt, T_max=10, last_epoch=4)
    _compare(ms_s, t_s, mopt, topt, steps=10)


def test_state_dict_round_trip():
    mopt, _ = _pair()
    s = ms_sched.StepLR(mopt, step_size=3)
    for _ in range(4):
        s.step()
    state = s.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 4
    mopt2, _ = _pair()
    s2 = ms_sched.StepLR(mopt2, step_size=3)
    s2.load_state_dict(state)
    assert s2.last_epoch == 4


@pytest.mark.parametrize("build,exc,match", [
    (lambda o: ms_sched.StepLR(torch.optim.SGD([torch.ones(1)], lr=0.1), 2), TypeError,
     "must be a ms_core.experimental.optim.Optimizer"),
    (lambda o: ms_sched.StepLR(o, step_size=0), ValueError, "'step_size' must be >= 1"),
    (lambda o: ms_sched.StepLR(o, step_size=2.5), TypeError, "'step_size' must be int"),
    (lambda o: ms_sched.StepLR(o, 2, last_epoch=-2), ValueError, "'last_epoch' must be >= -1"),
    (lambda o: ms_sched.StepLR(o, 2, last_epoch=3), KeyError, "initial_lr"),
    (lambda o: ms_sched.LinearLR(o, start_factor=0), ValueError, r"'start_factor' must be in \(0, 1\]"),
    (lambda o: ms_sched.LinearLR(o, end_factor=2), ValueError, r"'end_factor' must be in \[0, 1\]"),
    (lambda o: ms_sched.LambdaLR(o, [lambda e: 1.0]), ValueError, "expected 2 lr_lambdas"),
    (lambda o: ms_sched.LambdaLR(o, 0.5), TypeError, "must be callable"),
    (lambda o: ms_sched.OneCycleLR(o, max_lr=0.1), ValueError, "total_steps OR"),
    (lambda o: ms_sched.OneCycleLR(o, 0.1, total_steps=10, pct_start=2.0), ValueError, "pct_start"),
    (lambda o: ms_sched.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"), ValueError,
     "anneal_strategy"),
    (lambda o: ms_sched.ReduceLROnPlateau(o, factor=1.0), ValueError, "'factor' must be < 1.0"),
    (lambda o: ms_sched.ReduceLROnPlateau(o, mode="avg"), ValueError, "'mode' must be 'min' or 'max'"),
    (lambda o: ms_sched.ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, "expected 2 min_lrs"),
    (lambda o: ms_sched.MultiStepLR(o, milestones=3), TypeError, "'milestones' must be a list"),
    (lambda o: ms_sched.StepLR(o, 2, gamma="0.1"), TypeError, "'gamma' must be a float"),
    (lambda o: ms_sched.ExponentialLR(o, gamma=None), TypeError, "'gamma' must be a float"),
    (lambda o: ms_sched.CosineAnnealingLR(o, T_max=10, eta_min="0"), TypeError, "'eta_min'"),
    (lambda o: ms_sched.CosineAnnealingLR(o, T_max=0), ValueError, "'T_max' must be >= 1"),
    (lambda o: ms_sched.LinearLR(o, total_iters=0), ValueError, "'total_iters' must be >= 1"),
    (lambda o: ms_sched.PolynomialLR(o, total_iters=2.5), TypeError, "'total_iters' must be int"),
    (lambda o: ms_sched.ReduceLROnPlateau(o).step("loss"), TypeError, "'metrics' must be a number"),
])
def test_bad_arguments(build, exc, match):
    mopt, _ = _pair()
    with pytest.raises(exc, match=match):
        build(mopt)


def test_one_cycle_without_momentum_option_raises():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    with pytest.raises(ValueError, match="must support momentum or beta1"):
        ms_sched.OneCycleLR(optim.Adagrad([p]), max_lr=0.1, total_steps=10)
