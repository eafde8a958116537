"""Math ops behind Tensor methods that torch code calls: linear algebra (inverse, det, trace),
interpolation and fused arithmetic (lerp, addcmul, addcdiv), rounding (trunc, frac), logs in
other bases and nan_to_num. Signatures are MindSpore 2.10's; every op is differentiable where
torch's is (compositions of differentiable ops, or primitives with a backward written in ops).
"""
import math

import numpy as np

from .._engine import apply
from .._prims import linalg as L
from ..common.tensor import Tensor
from . import functional as F

__all__ = ["inverse", "det", "matrix_determinant", "lerp", "addcmul", "addcdiv", "trunc", "frac",
           "log2", "log10", "nan_to_num", "tan"]


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
