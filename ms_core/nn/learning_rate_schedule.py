"""Learning-rate schedules as Cells called with the global step, as `mindspore.nn` has them.

An optimizer given a `LearningRateSchedule` calls it with its `global_step` at every update. This is
the MindSpore counterpart of torch's `lr_scheduler` objects, with two differences that matter when
migrating: the schedule is stepped per optimizer update (not per `scheduler.step()` call, which torch
scripts usually make per epoch), and it is a pure function of the step (no internal state).
The value is computed in float64 from the step and returned as a float32 Tensor with the step's shape.
"""
import math
import numbers

import numpy as np

from .cell import Cell
from .._checkparam import check_bool, check_float, check_int
from ..common.tensor import Tensor

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base class: `construct(global_step)` returns the learning rate at that step.

    Subclasses implement `_lr(step)` on a float64 array of steps; `construct` accepts a Tensor
    (any int or float dtype, shape () or (1,)) or a Python int.
    """

    def _lr(self, step):
        raise NotImplementedError

    def construct(self, global_step):
        name = type(self).__name__
        if isinstance(global_step, Tensor):
            step = global_step._data
        elif isinstance(global_step, numbers.Real) and not isinstance(global_step, bool):
            step = np.asarray(global_step)
        else:
            raise TypeError(f"For '{name}', the 'global_step' must be a Tensor or an int, but got "
                            f"{type(global_step).__name__}.")
        if step.dtype.kind not in "iuf":
            raise TypeError(f"For '{name}', the 'global_step' must be a number Tensor, but got "
                            f"dtype {step.dtype}.")
        out = self._lr(step.astype(np.float64))
        return Tensor._wrap(np.asarray(out, dtype=np.float32))


def _decay_args(cls, learning_rate, decay_rate, decay_steps, is_stair):
    check_float(cls, "learning_rate", learning_rate, 0, inc="(]", allow_int=False)
    check_float(cls, "decay_rate", decay_rate, 0, inc="(]", allow_int=False)
    check_int(cls, "decay_steps", decay_steps, 0, inc="(]")
    check_bool(cls, "is_stair", is_stair)


class ExponentialDecayLR(LearningRateSchedule):
    """lr * decay_rate ** p, p = step / decay_steps (floored when `is_stair`).

    torch: `ExponentialLR(gamma)` multiplies by gamma per `step()`; with decay_steps=1 and one
    optimizer update per scheduler step the two agree.

    Example:
        >>> nn.ExponentialDecayLR(0.1, 0.9, 4)(Tensor(2, ms.int32))  # 0.09486833
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _decay_args("ExponentialDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = decay_steps, is_stair

    def _lr(self, step):
        p = step / self.decay_steps
        if self.is_stair:
            p = np.floor(p)
        return self.learning_rate * self.decay_rate ** p


class NaturalExpDecayLR(LearningRateSchedule):
    """lr * exp(-decay_rate * p).

    As MindSpore implements it (its docstring says otherwise): p = step without `is_stair`
    (not divided by decay_steps), and p = floor(step / decay_steps) * decay_steps with it.
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _decay_args("NaturalExpDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = decay_steps, is_stair

    def _lr(self, step):
        p = step
        if self.is_stair:
            p = np.floor(step / self.decay_steps) * self.decay_steps
        return self.learning_rate * np.exp(-self.decay_rate * p)


class InverseDecayLR(LearningRateSchedule):
    """lr / (1 + decay_rate * p), p = step / decay_steps (floored when `is_stair`)."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _decay_args("InverseDecayLR", learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = decay_steps, is_stair

    def _lr(self, step):
        p = step / self.decay_steps
        if self.is_stair:
            p = np.floor(p)
        return self.learning_rate / (1.0 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps)).

    torch: `CosineAnnealingLR(T_max=decay_steps, eta_min=min_lr)` with the optimizer's lr = max_lr
    gives the same values for step <= T_max; past it torch's cosine rises again, MindSpore's stays
    at min_lr.
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        check_float("CosineDecayLR", "min_lr", min_lr, 0, allow_int=False)
        check_float("CosineDecayLR", "max_lr", max_lr, 0, inc="(]", allow_int=False)
        check_int("CosineDecayLR", "decay_steps", decay_steps, 0, inc="(]")
        if min_lr >= max_lr:
            raise ValueError(f"For 'CosineDecayLR', the 'max_lr' must be greater than the 'min_lr', "
                             f"but got 'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
        self.min_lr, self.max_lr, self.decay_steps = min_lr, max_lr, decay_steps

    def _lr(self, step):
        p = np.minimum(step, self.decay_steps)
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (
            1.0 + np.cos(math.pi * p / self.decay_steps))


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end_lr) * (1 - s / d) ** power + end_lr.

    Without `update_decay_steps`: s = min(step, decay_steps), d = decay_steps. With it: s = step,
    d = decay_steps * max(ceil(step / decay_steps), 1) (the horizon grows by decay_steps each time
    it is reached).
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        check_float("PolynomialDecayLR", "learning_rate", learning_rate, 0, inc="(]",
                    allow_int=False)
        check_float("PolynomialDecayLR", "end_learning_rate", end_learning_rate, 0, allow_int=False)
        check_int("PolynomialDecayLR", "decay_steps", decay_steps, 0, inc="(]")
        check_float("PolynomialDecayLR", "power", power, 0, inc="(]", allow_int=False)
        check_bool("PolynomialDecayLR", "update_decay_steps", update_decay_steps)
        self.start_learning_rate, self.end_learning_rate = learning_rate, end_learning_rate
        self.decay_steps, self.power, self.update_decay_steps = decay_steps, power, update_decay_steps

    def _lr(self, step):
        d = float(self.decay_steps)
        if self.update_decay_steps:
            d = d * np.maximum(np.ceil(step / d), 1.0)
            s = step
        else:
            s = np.minimum(step, d)
        return ((self.start_learning_rate - self.end_learning_rate) * (1.0 - s / d) ** self.power
                + self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps (0 at step 0, lr from warmup_steps on)."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        check_float("WarmUpLR", "learning_rate", learning_rate, 0, inc="(]", allow_int=False)
        check_int("WarmUpLR", "warmup_steps", warmup_steps, 0, inc="(]")
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps

    def _lr(self, step):
        return self.learning_rate * np.minimum(step, self.warmup_steps) / self.warmup_steps
