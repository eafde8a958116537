"""Math ops behind Tensor methods that torch code calls: linear algebra (inverse, det, trace),
interpolation and fused arithmetic (lerp, addcmul, addcdiv), rounding (trunc, frac), logs in
other bases and nan_to_num. Signatures are MindSpore 2.10's; every op is differentiable where
torch's is (compositions of differentiable ops, or primitives with a backward written in ops).
"""
import math

import numpy as np

from .. import _registry
from .._axes import check_axis
from .._engine import apply
from .._prims import math as M
from .._prims import linalg as L
from ..common.tensor import Tensor
from . import functional as F

__all__ = ["inverse", "det", "matrix_determinant", "lerp", "addcmul", "addcdiv", "trunc", "frac",
           "log2", "log10", "nan_to_num", "tan", "atan2", "cross"]


def _square(name, x):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{name}', the input must be a (batch of) square matrices, but got "
                         f"shape {list(x.shape)}.")


def inverse(input):
    """The inverse of each square matrix in the last two axes.

    Args:
        input: a float Tensor of shape (..., n, n).

    Returns:
        A Tensor of the same shape.

    Raises:
        ValueError: when the last two axes are not square.

    Example:
        >>> ops.inverse(Tensor([[2.0, 0.0], [0.0, 4.0]]))  # [[0.5, 0], [0, 0.25]]
    """
    x = F._as_tensor(input)
    _square("inverse", x)
    return apply(L.MatrixInverse(), x)


def det(input):
    """The determinant of each square matrix in the last two axes (shape (...))."""
    x = F._as_tensor(input)
    _square("det", x)
    return apply(L.MatrixDeterminant(), x)


matrix_determinant = det


def lerp(input, end, weight):
    """input + weight * (end - input), broadcasting."""
    return input + weight * (end - input)


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return input + tensor1 * tensor2 * value


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    return input + tensor1 / tensor2 * value


def trunc(input):
    """Round toward zero (no gradient: the derivative is zero almost everywhere)."""
    x = F._as_tensor(input)
    return Tensor._wrap(np.trunc(x._data))


def frac(input):
    """The fractional part x - trunc(x), keeping the sign of x (gradient 1)."""
    x = F._as_tensor(input)
    return x - trunc(x)


def log2(input):
    return F.log(input) / math.log(2.0)


def log10(input):
    return F.log(input) / math.log(10.0)


def tan(input):
    return F.sin(input) / F.cos(input)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf` (the dtype's largest and
    smallest finite values when None); the gradient passes where the input is finite."""
    x = F._as_tensor(input)
    if x._data.dtype.kind != "f":
        return x
    info = np.finfo(x._data.dtype)
    a = x._data
    out = x
    for bad, value in ((np.isnan(a), 0.0 if nan is None else nan),
                       (np.isposinf(a), info.max if posinf is None else posinf),
                       (np.isneginf(a), info.min if neginf is None else neginf)):
        if bad.any():
            out = F.where(Tensor._wrap(bad), Tensor._wrap(np.asarray(value, dtype=a.dtype)), out)
    return out


def atan2(input, other):
    """The angle of the point (other, input) elementwise, in (-pi, pi], broadcasting;
    differentiable in both.

    Example:
        >>> ops.atan2(Tensor([1.0]), Tensor([1.0]))  # [0.7854]
    """
    y, x = F._operands(input, other)
    return apply(M.Atan2(), F._as_tensor(y), F._as_tensor(x))


def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (default: the first axis of size 3, as torch's
    and MindSpore 2.10's Tensor.cross), broadcasting; differentiable in both.

    Raises:
        ValueError: no axis of size 3, or ``dim`` out of range or not of size 3.

    Example:
        >>> ops.cross(Tensor([1.0, 0, 0]), Tensor([0.0, 1, 0]))  # [0, 0, 1]
    """
    a, b = F._operands(F._as_tensor(input), F._as_tensor(other))
    if dim is None:
        dim = next((i for i, n in enumerate(a.shape) if n == 3), None)
        if dim is None:
            raise ValueError(f"For 'Cross', the input must have an axis of size 3, but got shape "
                             f"{list(a.shape)}.")
    dim = check_axis("Cross", dim, a.ndim, "dim")
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise ValueError(f"For 'Cross', the size of axis {dim} must be 3, but got shapes "
                         f"{list(a.shape)} and {list(b.shape)}.")

    def part(t, i):
        return F.getitem(t, (slice(None),) * dim + (i,))
    (a0, a1, a2), (b0, b1, b2) = [part(a, i) for i in range(3)], [part(b, i) for i in range(3)]
    return F.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), dim)


_registry.ops.register_module(globals())  # Tensor methods and backward rules call these by name
