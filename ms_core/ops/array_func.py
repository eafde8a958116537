"""Array functions of MindSpore 2.x's ``ops`` that the torch.* mappings need: type checks,
element counts, index and shape helpers. Each has MindSpore's name and signature; the
differentiable ones are built from primitives (``ms_core/_prims``) or from other ops.
"""
import numpy as np

from ..common.tensor import Tensor

__all__ = ["is_tensor", "is_floating_point", "is_complex", "numel"]


def is_tensor(obj):
    """True when ``obj`` is a Tensor (a Parameter is one).

    Example:
        >>> ops.is_tensor(ms.Tensor([1.0])), ops.is_tensor([1.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{name}', the 'input' must be a Tensor, but got {type(input).__name__}.")


def is_floating_point(input):
    """True when ``input``'s dtype is a floating-point type (float16/32/64)."""
    _check_tensor("is_floating_point", input)
    return input._data.dtype.kind == "f"


def is_complex(input):
    """True when ``input``'s dtype is a complex type."""
    _check_tensor("is_complex", input)
    return input._data.dtype.kind == "c"


def numel(input):
    """The number of elements of ``input`` (a Python int)."""
    _check_tensor("numel", input)
    return int(np.prod(input.shape, dtype=np.int64))
