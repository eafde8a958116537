"""Initializers (`ms_core.common.initializer`), as in `mindspore.common.initializer`."""
import numbers

import numpy as np

from . import dtype as mstype
from .. import _random


class Initializer:
    """Base class: `__call__(arr)` fills a NumPy array in place; `init_data()` draws a Tensor."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self.shape = None
        self.dtype = mstype.float32

    def _fill(self, arr):
        raise NotImplementedError

    def __call__(self, arr):
        self._fill(arr)
        return arr

    def init_data(self, slice_index=None, shape=None):
        from .tensor import Tensor
        if self.shape is None:
            raise ValueError(f"For '{type(self).__name__}', the shape is unknown; use "
                             f"initializer({type(self).__name__}(), shape, dtype).")
        arr = np.zeros(self.shape, dtype=np.float64)
        self._fill(arr)
        return Tensor._wrap(arr.astype(mstype.to_np(self.dtype)))


class Zero(Initializer):
    def _fill(self, arr):
        arr[...] = 0


class One(Initializer):
    def _fill(self, arr):
        arr[...] = 1


class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _fill(self, arr):
        arr[...] = self.value


class Normal(Initializer):
    """N(mean, sigma²); MindSpore's default sigma is 0.01."""

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _fill(self, arr):
        arr[...] = _random.generator().normal(self.mean, self.sigma, arr.shape)


class Uniform(Initializer):
    """U(-scale, scale); MindSpore's default scale is 0.07."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _fill(self, arr):
        arr[...] = _random.generator().uniform(-self.scale, self.scale, arr.shape)


_ALIASES = {"zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal,
            "uniform": Uniform}


def _register_alias(name, cls):
    _ALIASES[name.lower()] = cls


def initializer(init, shape=None, dtype=mstype.float32):
    """An Initializer bound to `shape` and `dtype`; `.init_data()` draws the Tensor.

    Args:
        init: an Initializer, an alias string ('normal', 'zeros', 'he_uniform', ...), a number
            (constant), a Tensor or numpy array (copied; its shape must match).
        shape: int or tuple of ints.
        dtype: a MindSpore dtype.

    Raises:
        ValueError: unknown alias, or a Tensor whose shape differs from `shape`.

    Example:
        >>> initializer("ones", (2, 3), ms.float32).init_data()
    """
    from .tensor import Tensor
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape) if shape is not None else None
    if isinstance(init, (Tensor, np.ndarray)):
        arr = init._data if isinstance(init, Tensor) else init
        if shape is not None and tuple(arr.shape) != shape:
            raise ValueError(f"For 'initializer', the shape of the given Tensor {list(arr.shape)} "
                             f"must equal 'shape' {list(shape)}.")
        init = _FromArray(arr)
        shape = arr.shape
    elif isinstance(init, str):
        key = init.lower()
        if key not in _ALIASES:
            raise ValueError(f"For 'initializer', the 'init' string must be one of "
                             f"{sorted(_ALIASES)}, but got {init!r}.")
        init = _ALIASES[key]()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"For 'initializer', the 'init' must be an Initializer, str, number, Tensor "
                        f"or numpy.ndarray, but got {type(init).__name__}.")
    init.shape = shape
    init.dtype = dtype
    return init


class _FromArray(Initializer):
    def __init__(self, arr):
        super().__init__()
        self.arr = arr

    def _fill(self, arr):
        arr[...] = self.arr
