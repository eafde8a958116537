"""Math functions of MindSpore 2.x's ``ops`` that the torch.* mappings need: logical reductions,
elementwise functions, reductions along an axis. Each has MindSpore's name and signature; the
differentiable ones are primitives (``ms_core/_prims/math_ext.py``) with a backward written in
ops, so that grad of grad works.
"""
import numpy as np

from .._engine import apply
from .._prims import math_ext as X
from ..common import dtype as mstype
from ..common.tensor import Tensor
from .functional import (_as_tensor, _axis_arg, _operands, cast, clamp, exp, floor_div, log, maximum, pow,
                         sign, sqrt, square, stop_gradient, where)

floor_divide = floor_div

__all__ = ["all", "any", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
           "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2",
           "erfc", "erfinv", "lgamma", "digamma", "atan2", "arctan2", "fmod", "trunc", "frac",
           "deg2rad", "rad2deg", "positive", "sgn", "signbit", "isposinf", "isneginf", "isreal",
           "heaviside", "logit", "hypot", "logaddexp", "logaddexp2", "float_power", "xlogy",
           "nan_to_num", "lerp", "addcmul", "addcdiv", "bitwise_and", "bitwise_or", "bitwise_xor",
           "invert", "floor_divide"]


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


# --- elementwise: trigonometric, hyperbolic, logarithms, error and gamma functions -----------

def _float_unary(name, prim_cls):
    """An op applying ``prim_cls`` (integers are computed as float32, as torch promotes them)."""
    def op(input):
        x = _as_tensor(input)
        if x._data.dtype.kind != "f":
            x = cast(x, mstype.float32)
        return apply(prim_cls(), x)
    op.__name__ = name
    op.__doc__ = f"Elementwise {name} (differentiable)."
    return op


tan = _float_unary("tan", X.Tan)
asin = _float_unary("asin", X.Asin)
acos = _float_unary("acos", X.Acos)
atan = _float_unary("atan", X.Atan)
sinh = _float_unary("sinh", X.Sinh)
cosh = _float_unary("cosh", X.Cosh)
asinh = _float_unary("asinh", X.Asinh)
acosh = _float_unary("acosh", X.Acosh)
atanh = _float_unary("atanh", X.Atanh)
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
log2 = _float_unary("log2", X.Log2)
log10 = _float_unary("log10", X.Log10)
exp2 = _float_unary("exp2", X.Exp2)
erfc = _float_unary("erfc", X.Erfc)
erfinv = _float_unary("erfinv", X.Erfinv)
lgamma = _float_unary("lgamma", X.Lgamma)


def digamma(input):
    """psi(x), the derivative of lgamma (differentiable: its derivative is polygamma(1, x))."""
    x = _as_tensor(input)
    if x._data.dtype.kind != "f":
        x = cast(x, mstype.float32)
    return apply(X.Polygamma(0), x)


def atan2(input, other):
    """The angle of (other, input): arctan(input / other) in the right quadrant."""
    y, x = _operands(input, other)
    y, x = _as_tensor(y, x if isinstance(x, Tensor) else None), _as_tensor(x)
    if y._data.dtype.kind != "f":
        y = cast(y, mstype.float32)
    if x._data.dtype != y._data.dtype:
        x = cast(x, y.dtype)
    return apply(X.Atan2(), y, x)


arctan2 = atan2


def fmod(input, other):
    """The remainder of truncated division (the sign of ``input``), as torch.fmod."""
    return apply(X.TruncateMod(), *_operands(input, other))


def trunc(input):
    """Round toward zero (no gradient: its derivative is zero almost everywhere)."""
    x = _as_tensor(input)
    return Tensor._wrap(np.trunc(x._data))


def frac(x):
    """The fractional part x - trunc(x), with x's sign; the gradient is 1."""
    x = _as_tensor(x)
    return x - stop_gradient(trunc(x))


def deg2rad(x):
    return _as_tensor(x) * (np.pi / 180.0)


def rad2deg(x):
    return _as_tensor(x) * (180.0 / np.pi)


def positive(input):
    return _as_tensor(input)


def sgn(input):
    """The sign of real input (as ``ops.sign``)."""
    return sign(input)


def signbit(input):
    """True where the sign bit is set (negative numbers and -0.0)."""
    return Tensor._wrap(np.signbit(_as_tensor(input)._data))


def isposinf(input):
    return Tensor._wrap(np.isposinf(_as_tensor(input)._data))


def isneginf(input):
    return Tensor._wrap(np.isneginf(_as_tensor(input)._data))


def isreal(input):
    return Tensor._wrap(np.isreal(_as_tensor(input)._data))


def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, ``values`` where input == 0 (no gradient)."""
    x, v = _operands(input, values)
    va = v._data if isinstance(v, Tensor) else v
    return Tensor._wrap(np.asarray(np.heaviside(x._data, va), dtype=x._data.dtype))


def logit(input, eps=None):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] first when ``eps`` is given."""
    x = _as_tensor(input)
    if eps is not None:
        x = clamp(x, eps, 1.0 - eps)
    return log(x / (1 - x))


def hypot(input, other):
    """sqrt(input**2 + other**2)."""
    x, y = _operands(input, other)
    return sqrt(square(x) + square(y))


def logaddexp(input, other):
    """log(exp(input) + exp(other)), computed without overflow."""
    x, y = _operands(input, other)
    m = stop_gradient(maximum(x, y))
    return m + log(exp(x - m) + exp(y - m))


def logaddexp2(input, other):
    """log2(2**input + 2**other), computed without overflow."""
    x, y = _operands(input, other)
    m = stop_gradient(maximum(x, y))
    return m + log2(exp2(x - m) + exp2(y - m))


def float_power(input, exponent):
    """input ** exponent in float64, as torch.float_power and MindSpore's float_power."""
    x = cast(_as_tensor(input), mstype.float64)
    e = cast(exponent, mstype.float64) if isinstance(exponent, Tensor) else float(exponent)
    return pow(x, e)


def xlogy(input, other):
    """input * log(other)."""
    x, y = _operands(input, other)
    if isinstance(x, Tensor) and x._data.dtype.kind != "f":
        x = cast(x, mstype.float32)
    return x * log(y)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN -> ``nan`` (0.0), +inf -> ``posinf`` (the dtype's max), -inf -> ``neginf`` (its min);
    the gradient flows where the input is finite."""
    x = _as_tensor(input)
    info = np.finfo(x._data.dtype)
    data = x._data
    fill = np.where(np.isnan(data), 0.0 if nan is None else nan,
                    np.where(data > 0, info.max if posinf is None else posinf,
                             info.min if neginf is None else neginf)).astype(data.dtype)
    return where(Tensor._wrap(np.isfinite(data)), x, Tensor._wrap(fill))


def lerp(input, end, weight):
    """input + weight * (end - input)."""
    x = _as_tensor(input)
    return x + weight * (end - x)


def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return input + value * tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2."""
    return input + value * tensor1 / tensor2


def _bitwise(name, fn):
    def op(input, other):
        x, y = _operands(input, other)
        xa = x._data if isinstance(x, Tensor) else x
        ya = y._data if isinstance(y, Tensor) else y
        if np.asarray(xa).dtype.kind == "f" or np.asarray(ya).dtype.kind == "f":
            raise TypeError(f"For '{name}', the inputs must be integer or bool Tensors.")
        return Tensor._wrap(np.asarray(fn(xa, ya)))
    op.__name__ = name
    return op


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def invert(x):
    """Bitwise NOT of an integer Tensor (logical NOT of a Bool one)."""
    return Tensor._wrap(np.invert(_as_tensor(x)._data))
