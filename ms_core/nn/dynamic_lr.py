"""Per-step learning-rate lists (`nn.piecewise_constant_lr`, `nn.cosine_decay_lr`, ...).

Each function returns a Python list with one learning rate per training step; pass it as an
optimizer's `learning_rate` and the optimizer takes element `global_step` at every update. Epochs
are counted as floor(step / step_per_epoch). Formulas are MindSpore's (`mindspore.nn.dynamic_lr`).
"""
import math

from .._checkparam import check_float, check_int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone, learning_rates):
    """learning_rates[t] for steps in [milestone[t-1], milestone[t]); length milestone[-1].

    Args:
        milestone: increasing list/tuple of positive ints.
        learning_rates: list/tuple of floats, one per milestone.

    Raises:
        TypeError / ValueError: wrong types, unequal lengths, non-increasing milestones.

    Example:
        >>> piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01])
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    """
    fn = "piecewise_constant_lr"
    for name, v in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(v, (list, tuple)):
            raise TypeError(f"For '{fn}', the '{name}' must be a list or tuple, but got "
                            f"{type(v).__name__}.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For '{fn}', the size of 'milestone' must be same with the size of "
                         f"'learning_rates', but got 'milestone' size: {len(milestone)}, "
                         f"'learning_rates' size: {len(learning_rates)}.")
    lr, last = [], 0
    for i, (m, rate) in enumerate(zip(milestone, learning_rates)):
        check_int(fn, f"milestone[{i}]", m, 0, inc="(]")
        check_float(fn, f"learning_rates[{i}]", rate, allow_int=False)
        if m < last:
            raise ValueError(f"For '{fn}', the value of milestone[{i}] must be greater than "
                             f"milestone[{i - 1}], but got milestone[{i}]: {m}, "
                             f"milestone[{i - 1}]: {last}.")
        lr += [rate] * (m - last)
        last = m
    return lr


def _decay_inputs(fn, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    check_int(fn, "total_step", total_step, 0, inc="(]")
    check_int(fn, "step_per_epoch", step_per_epoch, 0, inc="(]")
    check_int(fn, "decay_epoch", decay_epoch, 0, inc="(]")
    check_float(fn, "learning_rate", learning_rate, 0, inc="(]", allow_int=False)
    check_float(fn, "decay_rate", decay_rate, 0, inc="(]", allow_int=False)
    if not isinstance(is_stair, bool):
        raise TypeError(f"For '{fn}', the 'is_stair' must be bool, but got {type(is_stair).__name__}.")


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * decay_rate ** (epoch / decay_epoch) per step (the exponent floored when `is_stair`).

    Example:
        >>> exponential_decay_lr(0.1, 0.9, 6, 2, 1)
        [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002, 0.08100000000000002]
    """
    _decay_inputs("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                  decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * e ** (-decay_rate * epoch) per step; with `is_stair` the epoch is rounded down to a
    multiple of decay_epoch (MindSpore does not divide by decay_epoch here).

    Example:
        >>> natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True)
        [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657]
    """
    _decay_inputs("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                  decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        out.append(learning_rate * math.e ** (-decay_rate * epoch))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """lr / (1 + decay_rate * epoch / decay_epoch) per step (the ratio floored when `is_stair`).

    Example:
        >>> inverse_decay_lr(0.1, 0.5, 6, 1, 1, True)
        [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574]
    """
    _decay_inputs("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch,
                  decay_epoch, is_stair)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            out.append(learning_rate / (1 + decay_rate * math.floor(epoch / decay_epoch)))
        else:
            out.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + 0.5 (max_lr - min_lr)(1 + cos(pi * min(epoch, decay_epoch) / decay_epoch)).

    Example:
        >>> cosine_decay_lr(0.01, 0.1, 6, 2, 2)
        [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01]
    """
    fn = "cosine_decay_lr"
    check_float(fn, "min_lr", min_lr, 0, allow_int=False)
    check_float(fn, "max_lr", max_lr, 0, inc="(]", allow_int=False)
    check_int(fn, "total_step", total_step, 0, inc="(]")
    check_int(fn, "step_per_epoch", step_per_epoch, 0, inc="(]")
    check_int(fn, "decay_epoch", decay_epoch, 0, inc="(]")
    if min_lr >= max_lr:
        raise ValueError(f"For '{fn}', the 'max_lr' should be greater than the 'min_lr', but got "
                         f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    out = []
    for i in range(total_step):
        epoch = min(math.floor(i / step_per_epoch), decay_epoch)
        out.append(min_lr + delta * (1 + math.cos(math.pi * epoch / decay_epoch)))
    return out


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch,
                        power, update_decay_epoch=False):
    """(lr - end_lr) * (1 - e / d) ** power + end_lr per step, e = min(epoch, decay_epoch) and
    d = decay_epoch; with `update_decay_epoch`, e = epoch and d = decay_epoch * max(ceil(epoch /
    decay_epoch), 1).

    Example:
        >>> polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5)
        [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]
    """
    fn = "polynomial_decay_lr"
    check_float(fn, "learning_rate", learning_rate, 0, inc="(]", allow_int=False)
    check_float(fn, "end_learning_rate", end_learning_rate, 0, allow_int=False)
    check_float(fn, "power", power, 0, inc="(]", allow_int=False)
    check_int(fn, "total_step", total_step, 0, inc="(]")
    check_int(fn, "step_per_epoch", step_per_epoch, 0, inc="(]")
    check_int(fn, "decay_epoch", decay_epoch, 0, inc="(]")
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"For '{fn}', the 'update_decay_epoch' must be bool, but got "
                        f"{type(update_decay_epoch).__name__}.")
    delta = learning_rate - end_learning_rate
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if update_decay_epoch:
            d = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            d, epoch = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1 - epoch / d) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(epoch, warmup_epoch) / warmup_epoch per step (0 during the first epoch).

    Example:
        >>> warmup_lr(0.1, 6, 2, 2)
        [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    """
    fn = "warmup_lr"
    check_float(fn, "learning_rate", learning_rate, 0, allow_int=False)
    check_int(fn, "warmup_epoch", warmup_epoch, 0, inc="(]")
    check_int(fn, "total_step", total_step, 0, inc="(]")
    check_int(fn, "step_per_epoch", step_per_epoch, 0, inc="(]")
    return [learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
            for i in range(total_step)]
