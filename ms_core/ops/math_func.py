"""Math functions of MindSpore 2.x's ``ops`` that the torch.* mappings need: logical reductions,
elementwise functions, reductions along an axis. Each has MindSpore's name and signature; the
differentiable ones are primitives (``ms_core/_prims/math_ext.py``) with a backward written in
ops, so that grad of grad works.
"""
import numpy as np

from ..common.tensor import Tensor
from .functional import _as_tensor, _axis_arg

__all__ = ["all", "any"]


def _logical_reduce(name, fn, input, axis, keep_dims):
    x = _as_tensor(input)
    axis = _axis_arg(axis)
    if isinstance(axis, tuple) and not axis:
        axis = None
    return Tensor._wrap(np.asarray(fn(x._data.astype(bool), axis=axis, keepdims=keep_dims)))


def all(input, axis=None, keep_dims=False):
    """True where every element along ``axis`` (all axes when None) is nonzero; a Bool Tensor.

    Example:
        >>> ops.all(ms.Tensor([[1.0, 0.0], [2.0, 3.0]]), 1)
        Tensor(shape=[2], dtype=Bool, value= [False,  True])
    """
    return _logical_reduce("all", np.all, input, axis, keep_dims)


def any(input, axis=None, keep_dims=False):
    """True where some element along ``axis`` (all axes when None) is nonzero; a Bool Tensor."""
    return _logical_reduce("any", np.any, input, axis, keep_dims)
