"""`ms.amp`: loss scalers and `all_finite`, as in `mindspore.amp`."""
import numpy as np

from .common.tensor import Tensor
from .ops import functional as F


def _map(fn, x):
    if isinstance(x, (tuple, list)):
        return type(x)(_map(fn, i) for i in x)
    return fn(x)


def all_finite(inputs):
    """True (a bool Tensor) when every element of every Tensor in `inputs` is finite."""
    items = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    ok = all(bool(np.isfinite(t._data).all()) for t in items)
    return Tensor(ok)


class LossScaler:
    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """Multiply the loss by a fixed `scale_value`; divide gradients by it."""

    def __init__(self, scale_value):
        if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)) or scale_value <= 0:
            raise ValueError(f"For 'StaticLossScaler', the 'scale_value' must be a positive number, "
                             f"but got {scale_value!r}.")
        self.scale_value = Tensor(float(scale_value))

    def scale(self, inputs):
        return _map(lambda x: x * F.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x / F.cast(self.scale_value, x.dtype), inputs)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """Scale that halves (÷ scale_factor) on overflow and grows (× scale_factor) after
    `scale_window` finite steps in a row."""

    def __init__(self, scale_value, scale_factor, scale_window):
        for key, value in (("scale_factor", scale_factor), ("scale_window", scale_window)):
            if isinstance(value, bool) or not isinstance(value, int):  # MindSpore 2.10 refuses floats
                raise TypeError(f"The '{key}' must be int, but got '{type(value).__name__}'")
        if scale_value <= 0 or scale_factor <= 1 or scale_window < 1:
            raise ValueError("For 'DynamicLossScaler', 'scale_value' must be > 0, 'scale_factor' > 1 "
                             f"and 'scale_window' >= 1, but got {scale_value}, {scale_factor}, "
                             f"{scale_window}.")
        self.scale_value = Tensor(float(scale_value))
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Tensor(0)

    def scale(self, inputs):
        return _map(lambda x: x * F.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x / F.cast(self.scale_value, x.dtype), inputs)

    def adjust(self, grads_finite):
        finite = bool(grads_finite.item() if isinstance(grads_finite, Tensor) else grads_finite)
        value = float(self.scale_value.item())
        count = int(self.counter.item())
        if finite:
            count += 1
            if count >= self.scale_window:
                value *= self.scale_factor
                count = 0
        else:
            value = max(value / self.scale_factor, 1.0)
            count = 0
        self.scale_value = Tensor(value)
        self.counter = Tensor(count)
        return finite
