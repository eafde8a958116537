"""Learning-rate schedules and per-step lr lists against their formulas in float64 and MindSpore's
documented examples."""
import math

import numpy as np
import pytest

import ms_core as ms
from ms_core import nn

STEPS = list(range(0, 25))


def at(sched, step, dtype=ms.int32):
    out = sched(ms.Tensor(np.array(step), dtype))
    assert out.dtype == ms.float32
    return float(out.asnumpy())


SCHEDULES = [
    (nn.ExponentialDecayLR(0.1, 0.9, 4), lambda s: 0.1 * 0.9 ** (s / 4)),
    (nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True), lambda s: 0.1 * 0.9 ** math.floor(s / 4)),
    # MindSpore's NaturalExpDecayLR: p = step (not step / decay_steps) unless is_stair
    (nn.NaturalExpDecayLR(0.1, 0.1, 4), lambda s: 0.1 * math.exp(-0.1 * s)),
    (nn.NaturalExpDecayLR(0.1, 0.1, 4, True), lambda s: 0.1 * math.exp(-0.1 * math.floor(s / 4) * 4)),
    (nn.InverseDecayLR(0.1, 0.5, 3), lambda s: 0.1 / (1 + 0.5 * s / 3)),
    (nn.InverseDecayLR(0.1, 0.5, 3, True), lambda s: 0.1 / (1 + 0.5 * math.floor(s / 3))),
    (nn.CosineDecayLR(0.01, 0.1, 10),
     lambda s: 0.01 + 0.045 * (1 + math.cos(math.pi * min(s, 10) / 10))),
    (nn.PolynomialDecayLR(0.1, 0.01, 10, 0.5),
     lambda s: 0.09 * (1 - min(s, 10) / 10) ** 0.5 + 0.01),
    (nn.PolynomialDecayLR(0.1, 0.01, 10, 2.0, update_decay_steps=True),
     lambda s: 0.09 * (1 - s / (10 * max(math.ceil(s / 10), 1))) ** 2.0 + 0.01),
    (nn.WarmUpLR(0.1, 5), lambda s: 0.1 * min(s, 5) / 5),
]


@pytest.mark.parametrize("sched,formula", SCHEDULES, ids=[type(s).__name__ for s, _ in SCHEDULES])
def test_schedule_formula(sched, formula):
    got = np.array([at(sched, s) for s in STEPS])
    want = np.array([formula(s) for s in STEPS])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)  # float32 result vs float64 formula


def test_documented_examples():
    # The printed results in MindSpore's docstrings (global_step = 2).
    assert at(nn.ExponentialDecayLR(0.1, 0.9, 4), 2) == pytest.approx(0.09486833, rel=1e-6)
    assert at(nn.NaturalExpDecayLR(0.1, 0.9, 4, True), 2) == pytest.approx(0.1, rel=1e-6)
    assert at(nn.InverseDecayLR(0.1, 0.9, 4, True), 2) == pytest.approx(0.1, rel=1e-6)
    assert at(nn.CosineDecayLR(0.01, 0.1, 4), 2) == pytest.approx(0.055, rel=1e-6)
    assert at(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), 2) == pytest.approx(0.07363961, rel=1e-6)
    assert at(nn.WarmUpLR(0.1, 2), 1) == pytest.approx(0.05, rel=1e-6)


def test_step_shapes_and_types():
    sched = nn.WarmUpLR(0.1, 4)
    out = sched(ms.Tensor(np.array([2], np.int32)))
    assert out.shape == (1,) and out.dtype == ms.float32
    assert float(sched(3).asnumpy()) == pytest.approx(0.075)
    assert float(sched(ms.Tensor(2.0)).asnumpy()) == pytest.approx(0.05)
    with pytest.raises(TypeError, match="'global_step' must be a Tensor or an int"):
        sched("3")


def test_cosine_schedule_matches_torch_until_t_max():
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    tsched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
    ours = nn.CosineDecayLR(0.01, 0.1, 10)
    for s in range(11):
        assert at(ours, s) == pytest.approx(opt.param_groups[0]["lr"], rel=1e-6)
        opt.step()
        tsched.step()


LISTS = [
    (nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]),
     [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]),
    (nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
     [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002, 0.08100000000000002]),
    (nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True),
     [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657]),
    (nn.inverse_decay_lr(0.1, 0.5, 6, 1, 1, True),
     [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574]),
    (nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2),
     [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]),
    (nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    (nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]),
]


@pytest.mark.parametrize("got,want", LISTS, ids=[str(i) for i in range(len(LISTS))])
def test_list_documented_examples(got, want):
    # The examples printed in MindSpore's dynamic_lr docstrings.
    assert isinstance(got, list)
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_list_formulas_longer():
    total, spe, de = 40, 3, 4
    epochs = [i // spe for i in range(total)]
    np.testing.assert_allclose(nn.exponential_decay_lr(0.2, 0.7, total, spe, de),
                               [0.2 * 0.7 ** (e / de) for e in epochs])
    np.testing.assert_allclose(nn.exponential_decay_lr(0.2, 0.7, total, spe, de, True),
                               [0.2 * 0.7 ** (e // de) for e in epochs])
    np.testing.assert_allclose(nn.natural_exp_decay_lr(0.2, 0.7, total, spe, de),
                               [0.2 * math.exp(-0.7 * e) for e in epochs])
    np.testing.assert_allclose(nn.inverse_decay_lr(0.2, 0.7, total, spe, de),
                               [0.2 / (1 + 0.7 * e / de) for e in epochs])
    np.testing.assert_allclose(nn.cosine_decay_lr(0.0, 0.2, total, spe, de),
                               [0.1 * (1 + math.cos(math.pi * min(e, de) / de)) for e in epochs],
                               atol=1e-17)
    np.testing.assert_allclose(
        nn.polynomial_decay_lr(0.2, 0.01, total, spe, de, 2.0, update_decay_epoch=True),
        [0.19 * (1 - e / (de * max(math.ceil(e / de), 1))) ** 2 + 0.01 for e in epochs])
    np.testing.assert_allclose(nn.warmup_lr(0.2, total, spe, de),
                               [0.2 * min(e, de) / de for e in epochs])


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: nn.ExponentialDecayLR(1, 0.9, 4), TypeError, "'learning_rate' must be float"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError, "'decay_steps' must be > 0"),
    (lambda: nn.ExponentialDecayLR(0.1, -0.9, 4), ValueError, "'decay_rate' must be > 0"),
    (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=1), TypeError, "'is_stair' must be bool"),
    (lambda: nn.CosineDecayLR(0.1, 0.01, 4), ValueError, "'max_lr' must be greater"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.0), ValueError, "'power' must be > 0"),
    (lambda: nn.WarmUpLR(0.1, 2.5), TypeError, "'warmup_steps' must be int"),
    (lambda: nn.piecewise_constant_lr([2, 1], [0.1, 0.2]), ValueError, "must be greater than"),
    (lambda: nn.piecewise_constant_lr([2], [0.1, 0.2]), ValueError, "size of 'milestone'"),
    (lambda: nn.piecewise_constant_lr([2], [1]), TypeError, "must be float"),
    (lambda: nn.cosine_decay_lr(0.1, 0.01, 6, 2, 2), ValueError, "'max_lr' should be greater"),
    (lambda: nn.warmup_lr(0.1, 0, 2, 2), ValueError, "'total_step' must be > 0"),
    (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1, is_stair="no"), TypeError, "'is_stair'"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_user_schedule_written_with_ops():
    # A LearningRateSchedule subclass written MindSpore's way (construct with ms ops) drives an
    # optimizer: step t uses 0.1 / (t + 1).
    class InverseLR(nn.LearningRateSchedule):
        def construct(self, global_step):
            return 0.1 / (ms.ops.cast(global_step, ms.float32) + 1.0)

    p = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="p")
    opt = nn.SGD([p], InverseLR())
    for _ in range(3):
        opt((ms.Tensor(np.ones(1, np.float32)),))
    assert float(p.asnumpy()[0]) == pytest.approx(-(0.1 + 0.05 + 0.1 / 3), rel=1e-6)
