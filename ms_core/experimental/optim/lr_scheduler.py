"""Learning-rate schedulers with PyTorch semantics (`mindspore.experimental.optim.lr_scheduler`).

Each scheduler writes the learning rate of every param group of an experimental `Optimizer`
when `step()` is called, with the same formulas as `torch.optim.lr_scheduler`, including which
schedulers update recursively from the current lr (`get_lr`) and which use a closed form (when
`step(epoch)` is given an explicit epoch). Arithmetic is done in Python floats (double
precision, like torch); each group's lr Parameter stores the float32 value, as MindSpore's does,
and the optimizer keeps the double beside it, so trajectories equal torch's to double precision.

Differences from PyTorch: `get_last_lr()` returns float32 scalar Tensors, as MindSpore does
(PyTorch returns Python floats; `float(t)` converts). `step()` returns True, as in MindSpore.
"""
import math
import warnings
from bisect import bisect_right
from collections import Counter

import numpy as np

from ..._checkparam import check_int, check_number
from ...common.tensor import Tensor
from .optimizer import Optimizer, _lr_value, _set_lr

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR",
           "MultiplicativeLR", "LinearLR", "ConstantLR", "PolynomialLR", "OneCycleLR", "CyclicLR",
           "CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau"]


def _check_optimizer(cls_name, optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"For '{cls_name}', the 'optimizer' must be a "
                        f"ms_core.experimental.optim.Optimizer, but got {type(optimizer).__name__}. "
                        f"(mindspore.nn optimizers take the schedule as their learning_rate "
                        f"instead.)")


class LRScheduler:
    """Base class of the learning-rate schedulers (`lr_scheduler.LRScheduler`).

    Subclasses define `get_lr()` (the recursive form, used by `step()`) and optionally
    `_get_closed_form_lr()` (used by `step(epoch)`). Constructing a scheduler performs the first
    step (epoch 0), which may change the lr (e.g. `LinearLR`), exactly as in PyTorch.

    Args:
        optimizer (Optimizer): an experimental optimizer.
        last_epoch (int): the index of the last epoch; -1 (default) starts from scratch, other
            values resume and need 'initial_lr' in every param group.

    Raises:
        TypeError: `optimizer` is not an experimental Optimizer, or `last_epoch` is not an int.
        KeyError: resuming (`last_epoch` >= 0) without 'initial_lr' in the param groups.

    Example:
        >>> scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
        >>> for epoch in range(100):
        ...     train_one_epoch()
        ...     scheduler.step()
    """

    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        name = type(self).__name__
        _check_optimizer(name, optimizer)
        last_epoch = check_int(name, "last_epoch", last_epoch, -1)
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _lr_value(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"For '{name}', param 'initial_lr' is not specified in "
                                   f"param_groups[{i}] when resuming with last_epoch={last_epoch}.")
        self.optimizer = optimizer
        self.base_lrs = [float(group["initial_lr"]) for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        """The step a scheduler takes when it is built (epoch 0), in PyTorch's initial mode."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _current_lrs(self):
        return [_lr_value(group["lr"]) for group in self.optimizer.param_groups]

    def get_lr(self):
        """The new learning rates of the groups at `self.last_epoch` (recursive form)."""
        raise NotImplementedError

    def get_last_lr(self):
        """The learning rates the last `step()` set, one float32 scalar Tensor per group."""
        return [Tensor(np.array(v, dtype=np.float32)) for v in self._last_lr]

    def step(self, epoch=None):
        """Advance one epoch (or jump to `epoch`, with the closed form when there is one) and
        write the new learning rates into the optimizer's param groups."""
        self._step_count += 1
        if epoch is not None:
            warnings.warn("Passing an epoch to step() is deprecated in PyTorch; the closed form is "
                          "used when the scheduler has one.", UserWarning, stacklevel=2)
        self._update_lr(epoch)
        return True

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = check_int(type(self).__name__, "epoch", epoch, 0)
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") \
                else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_lr(group, lr)
        self._last_lr = self._current_lrs()

    def state_dict(self):
        """Everything but the optimizer, as in PyTorch."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """Multiply the lr by `gamma` every `step_size` epochs (`torch.optim.lr_scheduler.StepLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        step_size (int): period of the decay, in epochs.
        gamma (float): multiplicative factor. Default 0.1 (as in PyTorch; MindSpore's docs say 0.5
            in one release, its code uses 0.1).
        last_epoch (int): see `LRScheduler`.

    Example:
        >>> scheduler = StepLR(optimizer, step_size=2, gamma=0.1)   # 0.05, 0.05, 0.005, ...
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = check_int(type(self).__name__, "step_size", step_size, 1)
        self.gamma = float(check_number("StepLR", "gamma", gamma))
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by `gamma` at each milestone epoch (`lr_scheduler.MultiStepLR`); a
    milestone listed twice applies gamma twice, as in PyTorch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        milestones (list[int]): epoch indices.
        gamma (float): multiplicative factor. Default 0.1.
        last_epoch (int): see `LRScheduler`.

    Example:
        >>> scheduler = MultiStepLR(optimizer, milestones=[30, 80], gamma=0.1)
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        try:
            milestones = list(milestones)
        except TypeError:
            raise TypeError(f"For 'MultiStepLR', the 'milestones' must be a list of int, but got "
                            f"{type(milestones).__name__}.") from None
        for m in milestones:
            check_int("MultiStepLR", "milestones element", m, 0)
        self.milestones = Counter(int(m) for m in milestones)
        self.gamma = float(check_number("MultiStepLR", "gamma", gamma))
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply the lr by `factor` until epoch `total_iters` (`lr_scheduler.ConstantLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        factor (float): in [0, 1]. Default 1/3.
        total_iters (int): number of epochs the factor applies. Default 5.
        last_epoch (int): see `LRScheduler`.
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        check_number("ConstantLR", "factor", factor)
        total_iters = check_int("ConstantLR", "total_iters", total_iters, 0)
        if factor > 1.0 or factor < 0:
            raise ValueError(f"For 'ConstantLR', the 'factor' must be in [0, 1], but got {factor}.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr by a factor going linearly from `start_factor` to `end_factor` over
    `total_iters` epochs (`lr_scheduler.LinearLR`), updated recursively as PyTorch does.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        start_factor (float): in (0, 1]. Default 1/3.
        end_factor (float): in [0, 1]. Default 1.0.
        total_iters (int): number of epochs of the ramp. Default 5.
        last_epoch (int): see `LRScheduler`.

    Raises:
        ValueError: a factor out of range.

    Example:
        >>> scheduler = LinearLR(optimizer, start_factor=0.5, total_iters=4)
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        check_number("LinearLR", "start_factor", start_factor)
        check_number("LinearLR", "end_factor", end_factor)
        total_iters = check_int("LinearLR", "total_iters", total_iters, 1)
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"For 'LinearLR', the 'start_factor' must be in (0, 1], but got "
                             f"{start_factor}.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"For 'LinearLR', the 'end_factor' must be in [0, 1], but got "
                             f"{end_factor}.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self._is_initial or self.last_epoch > self.total_iters:
            return lrs
        diff = self.end_factor - self.start_factor
        factor = 1.0 + diff / (self.total_iters * self.start_factor + (self.last_epoch - 1) * diff)
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        diff = self.end_factor - self.start_factor
        return [base * (self.start_factor + diff * min(self.total_iters, self.last_epoch)
                        / self.total_iters) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by `gamma` every epoch (`lr_scheduler.ExponentialLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        gamma (float): multiplicative factor.
        last_epoch (int): see `LRScheduler`.

    Example:
        >>> scheduler = ExponentialLR(optimizer, gamma=0.5)
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = float(check_number("ExponentialLR", "gamma", gamma))
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr polynomially to 0 over `total_iters` epochs (`lr_scheduler.PolynomialLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        total_iters (int): number of decay epochs. Default 5.
        power (float): the polynomial's power. Default 1.0.
        last_epoch (int): see `LRScheduler`.
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = check_int("PolynomialLR", "total_iters", total_iters, 1)
        self.power = float(check_number("PolynomialLR", "power", power))
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self._is_initial or self.last_epoch > self.total_iters:
            return lrs
        factor = ((1.0 - self.last_epoch / self.total_iters)
                  / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from the initial lr to `eta_min` over `T_max` epochs
    (`lr_scheduler.CosineAnnealingLR`), with PyTorch's recursive update (which keeps following
    the cosine past `T_max`, rising again) and its closed form for `step(epoch)`:
    :math:`\eta_{min} + (\eta_{base} - \eta_{min})(1 + \cos(\pi t / T_{max}))/2`.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        T_max (int): half period, in epochs.
        eta_min (float): minimum lr. Default 0.
        last_epoch (int): see `LRScheduler`.

    Example:
        >>> scheduler = CosineAnnealingLR(optimizer, T_max=50)
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = check_int("CosineAnnealingLR", "T_max", T_max, 1)
        self.eta_min = float(check_number("CosineAnnealingLR", "eta_min", eta_min))
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        t, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return lrs
        if self._step_count == 1 and t > 0:
            return [eta_min + (base - eta_min) * (1 + math.cos(t * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (base - eta_min) * (1 - math.cos(math.pi / T)) / 2
                    for lr, base in zip(lrs, self.base_lrs)]
        return [(1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
                * (lr - eta_min) + eta_min for lr in lrs]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch
                                                                    / self.T_max)) / 2
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every `T_0 * T_mult**k` epochs
    (`lr_scheduler.CosineAnnealingWarmRestarts`); `step(epoch)` accepts fractional epochs.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        T_0 (int): epochs until the first restart.
        T_mult (int): growth factor of the period. Default 1.
        eta_min (float): minimum lr. Default 0.
        last_epoch (int): see `LRScheduler`.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        self.T_0 = check_int("CosineAnnealingWarmRestarts", "T_0", T_0, 1)
        self.T_mult = check_int("CosineAnnealingWarmRestarts", "T_mult", T_mult, 1)
        self.T_i = self.T_0
        self.eta_min = float(check_number("CosineAnnealingWarmRestarts", "eta_min", eta_min))
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"For 'CosineAnnealingWarmRestarts', the 'epoch' must be "
                                 f"non-negative, but got {epoch}.")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._step_count += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            _set_lr(group, lr)
        self._last_lr = self._current_lrs()
        return True


def _per_group_lambdas(name, optimizer, lr_lambda):
    """One callable per param group: a single function is shared, a list must match in length."""
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"For '{name}', expected {n} lr_lambdas (one per param group), "
                             f"but got {len(lr_lambda)}.")
        lambdas = list(lr_lambda)
    else:
        lambdas = [lr_lambda] * n
    for fn in lambdas:
        if not callable(fn):
            raise TypeError(f"For '{name}', the 'lr_lambda' must be callable, but got "
                            f"{type(fn).__name__}.")
    return lambdas


class LambdaLR(LRScheduler):
    """Set the lr to `initial_lr * lr_lambda(epoch)` (`lr_scheduler.LambdaLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        lr_lambda (callable or list[callable]): one function, or one per param group.
        last_epoch (int): see `LRScheduler`.

    Raises:
        ValueError: a list whose length differs from the number of param groups.

    Example:
        >>> scheduler = LambdaLR(optimizer, lambda epoch: 0.95 ** epoch)
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer("LambdaLR", optimizer)
        self.lr_lambdas = _per_group_lambdas("LambdaLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        state_dict.pop("lr_lambdas", None)
        self.__dict__.update(state_dict)


class MultiplicativeLR(LRScheduler):
    """Multiply the lr by `lr_lambda(epoch)` every epoch after the first
    (`lr_scheduler.MultiplicativeLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        lr_lambda (callable or list[callable]): one function, or one per param group.
        last_epoch (int): see `LRScheduler`.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer("MultiplicativeLR", optimizer)
        self.lr_lambdas = _per_group_lambdas("MultiplicativeLR", optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._current_lrs()
        if self._is_initial:
            return lrs
        return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, lrs)]


def _format_param(name, optimizer, value, cls_name="OneCycleLR"):
    """One value per param group (a scalar is repeated)."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"For '{cls_name}', expected {n} values for '{name}' (one per param "
                             f"group), but got {len(value)}.")
        return [float(v) for v in value]
    return [float(value)] * n


class OneCycleLR(LRScheduler):
    """The 1cycle policy (`lr_scheduler.OneCycleLR`): the lr rises from `max_lr / div_factor` to
    `max_lr` over `pct_start` of `total_steps`, then anneals to `initial_lr / final_div_factor`;
    with `cycle_momentum`, the momentum (or Adam's beta1) moves the opposite way. Step it after
    every batch. Same phase boundaries and anneal functions as PyTorch.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        max_lr (float or list[float]): the peak lr (per group).
        total_steps (int): number of steps; or give `epochs` and `steps_per_epoch`.
        pct_start (float): fraction of the cycle spent rising. Default 0.3.
        anneal_strategy (str): 'cos' or 'linear'. Default 'cos'.
        cycle_momentum (bool): cycle momentum / beta1. Default True.
        base_momentum, max_momentum (float or list[float]): momentum bounds. Default 0.85, 0.95.
        div_factor (float): initial_lr = max_lr / div_factor. Default 25.
        final_div_factor (float): min_lr = initial_lr / final_div_factor. Default 1e4.
        three_phase (bool): use the three-phase schedule. Default False.
        last_epoch (int): see `LRScheduler`.

    Raises:
        ValueError: no total length given, bad pct_start / anneal_strategy, stepping past
            `total_steps`, or cycle_momentum with an optimizer that has neither momentum nor betas.

    Example:
        >>> scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=100)
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        _check_optimizer("OneCycleLR", optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"For 'OneCycleLR', expected a positive integer total_steps, but "
                                 f"got {total_steps}.")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"For 'OneCycleLR', expected a positive integer epochs, but got "
                                 f"{epochs}.")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"For 'OneCycleLR', expected a positive integer steps_per_epoch, "
                                 f"but got {steps_per_epoch}.")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("For 'OneCycleLR', you must define either total_steps OR (epochs AND "
                             "steps_per_epoch).")
        n = self.total_steps
        if three_phase:
            self._schedule_phases = [
                dict(end_step=float(pct_start * n) - 1, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=float(2 * pct_start * n) - 2, start_lr="max_lr", end_lr="initial_lr",
                     start_momentum="base_momentum", end_momentum="max_momentum"),
                dict(end_step=n - 1, start_lr="initial_lr", end_lr="min_lr",
                     start_momentum="max_momentum", end_momentum="max_momentum"),
            ]
        else:
            self._schedule_phases = [
                dict(end_step=float(pct_start * n) - 1, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=n - 1, start_lr="max_lr", end_lr="min_lr",
                     start_momentum="base_momentum", end_momentum="max_momentum"),
            ]
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"For 'OneCycleLR', expected a float between 0 and 1 for pct_start, "
                             f"but got {pct_start}.")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"For 'OneCycleLR', the 'anneal_strategy' must be one of 'cos' or "
                             f"'linear', but got {anneal_strategy!r}.")
        # the strategy by name, as torch keeps it: the state dict holds data, not a function
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[idx] / div_factor
                group["max_lr"] = max_lrs[idx]
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("For 'OneCycleLR', the optimizer must support momentum or beta1 "
                                 "with the `cycle_momentum` option enabled.")
            self.use_beta1 = "betas" in optimizer.defaults
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m_mom, b_mom, group in zip(max_momentums, base_momentums,
                                               optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_mom, *group["betas"][1:])
                    else:
                        group["momentum"] = m_mom
                    group["max_momentum"] = m_mom
                    group["base_momentum"] = b_mom
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    @staticmethod
    def _annealing_cos(start, end, pct):
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"For 'OneCycleLR', tried to step {step_num} times; the specified "
                             f"number of total steps is {self.total_steps}.")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs


class CyclicLR(LRScheduler):
    """Cyclical learning rate between `base_lr` and `max_lr` (`lr_scheduler.CyclicLR`), stepped
    after every batch; with `cycle_momentum` the momentum (or Adam's beta1) cycles inversely.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        base_lr, max_lr (float or list[float]): the cycle's bounds (per group).
        step_size_up (int): steps of the rising half. Default 2000.
        step_size_down (int): steps of the falling half. Default: step_size_up.
        mode (str): 'triangular', 'triangular2' or 'exp_range'. Default 'triangular'.
        gamma (float): decay of 'exp_range'. Default 1.0.
        scale_fn (callable): custom amplitude scaling, replaces `mode`.
        scale_mode (str): 'cycle' or 'iterations' (argument of scale_fn). Default 'cycle'.
        cycle_momentum (bool): cycle momentum / beta1. Default True.
        base_momentum, max_momentum (float or list[float]): momentum bounds. Default 0.8, 0.9.
        last_epoch (int): see `LRScheduler`.

    Raises:
        ValueError: an unknown mode without scale_fn; cycle_momentum with an optimizer that has
            neither momentum nor betas.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer("CyclicLR", optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr, "CyclicLR")
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_lr(group, lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr, "CyclicLR")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"For 'CyclicLR', the 'mode' must be 'triangular', 'triangular2' or "
                             f"'exp_range' when no scale_fn is given, but got {mode!r}.")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("For 'CyclicLR', the optimizer must support momentum or beta1 "
                                 "with the `cycle_momentum` option enabled.")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum,
                                                "CyclicLR")
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum, "CyclicLR")
            if last_epoch == -1:
                for m_mom, b_mom, group in zip(self.max_momentums, self.base_momentums,
                                               optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (m_mom, *group["betas"][1:])
                    else:
                        group["momentum"] = m_mom
                    group["max_momentum"] = m_mom
                    group["base_momentum"] = b_mom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        arg = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale * self.scale_fn(arg)
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, b_mom, m_mom in zip(self.optimizer.param_groups, self.base_momentums,
                                           self.max_momentums):
                momentum = m_mom - (m_mom - b_mom) * scale * self.scale_fn(arg)
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs


class SequentialLR(LRScheduler):
    """Run schedulers one after another, switching at the `milestones`
    (`lr_scheduler.SequentialLR`).

    Args:
        optimizer (Optimizer): the wrapped optimizer (the schedulers' own).
        schedulers (list[LRScheduler]): the schedulers, in order.
        milestones (list[int]): epochs at which to switch; one fewer than schedulers.
        last_epoch (int): see `LRScheduler`.
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_optimizer("SequentialLR", optimizer)
        if len(schedulers) < 1:
            raise ValueError("For 'SequentialLR', expected at least one scheduler.")
        for i, s in enumerate(schedulers):
            if getattr(s, "optimizer", None) is not optimizer:
                raise ValueError(f"For 'SequentialLR', every scheduler must belong to the same "
                                 f"optimizer, but scheduler {i} does not.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"For 'SequentialLR', expected {len(schedulers) - 1} milestones "
                             f"(one fewer than schedulers), but got {len(milestones)}.")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # undo the steps the schedulers took when they were built, then start the first one
        for group in optimizer.param_groups:
            _set_lr(group, group["initial_lr"])
        self._undo(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first._last_lr

    def _undo(self, sched):
        """Take back the initial step of every (nested) scheduler."""
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self, epoch=None):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler._last_lr
        return True


class ChainedScheduler(LRScheduler):
    """Step several schedulers together at every `step()` (`lr_scheduler.ChainedScheduler`).

    Args:
        schedulers (list[LRScheduler]): the schedulers, all on the same optimizer.
        optimizer (Optimizer): optional; defaults to the schedulers' optimizer.
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("For 'ChainedScheduler', expected at least one scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = self._current_lrs()

    def step(self, epoch=None):
        for s in self._schedulers:
            s.step()
        self._last_lr = self._current_lrs()
        return True


class ReduceLROnPlateau(LRScheduler):
    """Reduce the lr by `factor` when a metric has stopped improving for `patience` epochs
    (`lr_scheduler.ReduceLROnPlateau`); call `step(metric)` after each evaluation.

    Args:
        optimizer (Optimizer): the wrapped optimizer.
        mode (str): 'min' (metric should decrease) or 'max'. Default 'min'.
        factor (float): new_lr = lr * factor, factor < 1. Default 0.1.
        patience (int): bad epochs tolerated before reducing. Default 10.
        threshold (float): minimum significant change. Default 1e-4.
        threshold_mode (str): 'rel' or 'abs'. Default 'rel'.
        cooldown (int): epochs to wait after a reduction. Default 0.
        min_lr (float or list[float]): lower bound(s) of the lr. Default 0.
        eps (float): reductions smaller than eps are skipped. Default 1e-8.

    Raises:
        ValueError: factor >= 1, unknown mode / threshold_mode, or a min_lr list of the wrong
            length.

    Example:
        >>> scheduler = ReduceLROnPlateau(optimizer, mode='min', patience=5)
        >>> scheduler.step(val_loss)
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        check_number("ReduceLROnPlateau", "factor", factor)
        if factor >= 1.0:
            raise ValueError(f"For 'ReduceLROnPlateau', the 'factor' must be < 1.0, but got "
                             f"{factor}.")
        _check_optimizer("ReduceLROnPlateau", optimizer)
        self.factor = factor
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"For 'ReduceLROnPlateau', expected {n} min_lrs, but got "
                                 f"{len(min_lr)}.")
            self.default_min_lr = None
            self.min_lrs = [float(v) for v in min_lr]
        else:
            self.default_min_lr = float(min_lr)
            self.min_lrs = [float(min_lr)] * n
        if mode not in ("min", "max"):
            raise ValueError(f"For 'ReduceLROnPlateau', the 'mode' must be 'min' or 'max', but got "
                             f"{mode!r}.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"For 'ReduceLROnPlateau', the 'threshold_mode' must be 'rel' or "
                             f"'abs', but got {threshold_mode!r}.")
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._step_count = 0
        self._last_lr = self._current_lrs()
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics, epoch=None):
        """Record `metrics` (a number or a one-element Tensor) and reduce the lr if it has not
        improved for more than `patience` epochs."""
        try:
            current = float(metrics)
        except (TypeError, ValueError):
            raise TypeError(f"For 'ReduceLROnPlateau.step', the 'metrics' must be a number or a "
                            f"one-element Tensor, but got {metrics!r}.") from None
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current_lrs()
        return True

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"For 'ReduceLROnPlateau', the optimizer has {len(groups)} param "
                                   f"groups but min_lr has {len(self.min_lrs)} values.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = _lr_value(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _set_lr(group, new_lr)
