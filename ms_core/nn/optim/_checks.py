"""Argument checks shared by the optimizers (MindSpore's message style)."""
import numbers


def check_float(cls, name, value, low=None, high=None, low_inclusive=True, high_inclusive=True):
    """An int or float within the bounds, returned as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', the '{name}' must be float, but got {type(value).__name__}.")
    value = float(value)
    if low is not None and (value < low or (value == low and not low_inclusive)):
        op = ">=" if low_inclusive else ">"
        raise ValueError(f"For '{cls}', the '{name}' must be {op} {low}, but got {value}.")
    if high is not None and (value > high or (value == high and not high_inclusive)):
        op = "<=" if high_inclusive else "<"
        raise ValueError(f"For '{cls}', the '{name}' must be {op} {high}, but got {value}.")
    return value


def check_bool(cls, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', the '{name}' must be bool, but got {type(value).__name__}.")
    return value
