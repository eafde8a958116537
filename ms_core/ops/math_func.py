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
from .functional import (_as_tensor, _axis_arg, _floor_divide, _operands, _take_along, amax, amin, cast, clamp,
                         concat, exp, expand_dims, gather, isnan, log, logical_not, maximum,
                         mean, narrow, norm, ones_like, pow, reshape, sign, sort, sqrt, square, squeeze,
                         std, stop_gradient, sum, transpose, var, where, zeros_like)

floor_divide = _floor_divide   # (input, other), as MindSpore 2.10 names them

__all__ = ["all", "any", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
           "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2",
           "erfc", "erfinv", "lgamma", "digamma", "bessel_i0", "bessel_i1", "kaiser_window", "atan2", "arctan2",
           "fmod", "trunc", "frac",
           "deg2rad", "rad2deg", "positive", "sgn", "signbit", "isposinf", "isneginf", "isreal",
           "heaviside", "logit", "hypot", "logaddexp", "logaddexp2", "float_power", "xlogy",
           "nan_to_num", "lerp", "addcmul", "addcdiv", "bitwise_and", "bitwise_or", "bitwise_xor",
           "invert", "floor_divide", "cumprod", "logcumsumexp", "cummax", "cummin", "var_mean", "std_mean",
           "median", "quantile", "nansum", "nanmean", "aminmax", "count_nonzero", "msort", "diff", "trapz",
           "dist", "cdist", "bincount", "histc", "searchsorted", "bucketize", "unique_consecutive", "unique"]


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
    """An op applying ``prim_cls`` (integers and bools are computed as float32, as torch promotes
    them)."""
    def op(input):
        x = _as_tensor(input)
        if x._data.dtype.kind not in "fc":  # a complex input stays complex, as in MindSpore
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


bessel_i0 = _float_unary("bessel_i0", X.BesselI0)
bessel_i1 = _float_unary("bessel_i1", X.BesselI1)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """The Kaiser window I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta), n = 0..N, N = window_length
    (periodic: the last point of a window one longer is left out) or window_length - 1; float32
    unless ``dtype`` is given; length 1 gives [1], length 0 an empty window."""
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool) or window_length < 0:
        raise ValueError(f"For 'kaiser_window', the 'window_length' must be a non-negative int, but got "
                         f"{window_length!r}.")
    dtype = mstype.float32 if dtype is None else dtype
    if window_length <= 1:
        return Tensor(np.ones(window_length, np.float64), dtype)
    n = window_length if periodic else window_length - 1
    ratio = 2.0 * np.arange(window_length, dtype=np.float64) / n - 1.0
    window = np.i0(float(beta) * np.sqrt(np.maximum(1.0 - ratio * ratio, 0.0))) / np.i0(float(beta))
    return Tensor(window, dtype)


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


# --- reductions and scans ---------------------------------------------------------------------

def _axis_index(x, axis):
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise ValueError(f"For the axis argument, the value must be in [{-x.ndim}, {x.ndim}), but got {axis}.")
    return axis % max(x.ndim, 1)


def cumprod(input, dim, dtype=None):
    """Cumulative product along ``dim`` (differentiable where the input has no zeros)."""
    x = _as_tensor(input)
    if dtype is not None:
        x = cast(x, dtype)
    return apply(X.CumProd(_axis_index(x, dim)), x)


def logcumsumexp(input, axis):
    """log(cumsum(exp(input))) along ``axis``, without overflow (differentiable)."""
    x = _as_tensor(input)
    if x._data.dtype.kind != "f":
        x = cast(x, mstype.float32)
    return apply(X.LogCumSumExp(_axis_index(x, axis)), x)


def _cum_extreme(name, x, axis, better):
    x = _as_tensor(x)
    axis = _axis_index(x, axis)
    data = np.moveaxis(x._data, axis, -1)
    idx = np.zeros(data.shape, dtype=np.int64)
    best = data[..., 0].copy()
    for i in range(1, data.shape[-1]):
        take = better(data[..., i], best) | (data[..., i] == best) | np.isnan(data[..., i])
        best = np.where(take, data[..., i], best)
        idx[..., i] = np.where(take, i, idx[..., i - 1])
    idx = np.moveaxis(idx, -1, axis)
    return _take_along(x, idx, axis), Tensor._wrap(idx)


def cummax(input, axis):
    """(running maxima along ``axis``, their indices (Int64)); the gradient goes to the maxima."""
    return _cum_extreme("cummax", input, axis, np.greater)


def cummin(input, axis):
    """(running minima along ``axis``, their indices (Int32, as MindSpore 2.10))."""
    values, idx = _cum_extreme("cummin", input, axis, np.less)
    return values, cast(idx, mstype.int32)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(variance, mean) over ``axis`` with ``ddof`` degrees of freedom removed."""
    return var(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(standard deviation, mean) over ``axis`` with ``ddof`` degrees of freedom removed."""
    return std(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def median(input, axis=-1, keepdims=False):
    """(the lower median along ``axis``, its index (Int64)); the gradient goes to that element."""
    x = _as_tensor(input)
    axis = _axis_index(x, axis)
    order = np.argsort(x._data, axis=axis, kind="stable")
    k = (x.shape[axis] - 1) // 2 if x.ndim else 0
    idx = np.take(order, [k], axis=axis) if x.ndim else order
    values = _take_along(x, idx, axis) if x.ndim else x
    if not keepdims and x.ndim:
        values, idx = squeeze(values, axis), np.squeeze(idx, axis)
    return values, Tensor._wrap(np.asarray(idx, dtype=np.int64))


def quantile(input, q, axis=None, keepdims=False):
    """The ``q``-quantiles (a float or 1-D Tensor in [0, 1]) along ``axis`` (all elements when
    None), interpolating linearly between the sorted neighbours; a Tensor ``q`` adds a leading
    axis. Differentiable in ``input``."""
    x = _as_tensor(input)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _axis_index(x, axis)
    qs = np.atleast_1d(q._data if isinstance(q, Tensor) else np.asarray(q, dtype=np.float64))
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"For 'quantile', the 'q' must be in [0, 1], but got {qs.tolist()}.")
    values = sort(x, axis)[0]
    pos = qs * (x.shape[axis] - 1)
    lo, hi = np.floor(pos).astype(np.int64), np.ceil(pos).astype(np.int64)
    frac = Tensor._wrap((pos - lo).astype(x._data.dtype).reshape((-1,) + (1,) * (x.ndim - 1)))
    out = gather(values, Tensor._wrap(lo), axis)
    out_hi = gather(values, Tensor._wrap(hi), axis)
    out = _moveaxis_front(out, axis)
    out = out + (_moveaxis_front(out_hi, axis) - out) * frac
    if keepdims:
        out = expand_dims(out, axis + 1)
    if not isinstance(q, Tensor) and np.ndim(q) == 0:
        out = out[0]
    return out


def _moveaxis_front(x, axis):
    """``x`` with ``axis`` moved to the front."""
    perm = (axis,) + tuple(i for i in range(x.ndim) if i != axis)
    return transpose(x, perm)


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum over ``axis`` treating NaN as zero."""
    x = _as_tensor(input)
    out = sum(where(isnan(x), zeros_like(x), x), axis, keepdims)
    return out if dtype is None else cast(out, dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """Mean over ``axis`` of the elements that are not NaN."""
    x = _as_tensor(input)
    count = sum(cast(logical_not(isnan(x)), x.dtype), axis, keepdims)
    out = nansum(x, axis, keepdims) / count
    return out if dtype is None else cast(out, dtype)


def aminmax(input, *, axis=0, keepdims=False):
    """(minimum, maximum) along ``axis`` (MindSpore's default axis is 0)."""
    return amin(input, axis, keepdims), amax(input, axis, keepdims)


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """The number of nonzero elements over ``axis`` (all axes when empty), as ``dtype``."""
    x = _as_tensor(x)
    axis = None if axis == () else _axis_arg(axis)
    out = np.count_nonzero(x._data, axis=axis, keepdims=keep_dims)
    return Tensor._wrap(np.asarray(out, dtype=mstype.to_np(dtype)))


def msort(input):
    """``input`` sorted along its first axis."""
    return sort(input, 0)[0]


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along ``axis`` (``prepend``/``append`` joined first)."""
    x = _as_tensor(x)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat([_as_tensor(p) for p in parts], axis)
    axis = _axis_index(x, axis)
    for _ in range(n):
        size = x.shape[axis]
        x = narrow(x, axis, 1, size - 1) - narrow(x, axis, 0, size - 1)
    return x


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoidal rule along ``dim``: over sample points ``x`` or a spacing ``dx``."""
    y = _as_tensor(y)
    dim = _axis_index(y, dim)
    size = y.shape[dim]
    mid = (narrow(y, dim, 1, size - 1) + narrow(y, dim, 0, size - 1)) / 2
    if x is None:
        return sum(mid, dim) * dx
    x = _as_tensor(x)
    xdim = _axis_index(x, dim - y.ndim) if x.ndim > 1 else 0
    steps = narrow(x, xdim, 1, x.shape[xdim] - 1) - narrow(x, xdim, 0, x.shape[xdim] - 1)
    return sum(mid * steps, dim)


def dist(input, other, p=2):
    """The p-norm of ``input - other`` over all elements."""
    return norm(reshape(_as_tensor(input) - other, (-1,)), float(p))


def cdist(x1, x2, p=2.0):
    """Pairwise p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M)."""
    d = expand_dims(_as_tensor(x1), -2) - expand_dims(_as_tensor(x2), -3)
    if p == 2.0:
        # the gradient of sqrt at 0 (a point and itself) is taken as 0, as torch's
        sq = sum(square(d), -1)
        zero = sq == 0
        return where(zero, zeros_like(sq), sqrt(where(zero, ones_like(sq), sq)))
    if p == 0:
        return cast(sum(cast(d != 0, mstype.float32), -1), d.dtype)
    return norm(d, float(p), -1)


def bincount(input, weights=None, minlength=0):
    """Counts of each non-negative integer in the 1-D ``input`` (summed ``weights`` when given);
    Float32 as MindSpore 2.10 gives (no gradient)."""
    x = _as_tensor(input)
    w = None if weights is None else _as_tensor(weights)._data
    out = np.bincount(x._data.astype(np.int64), w, minlength)
    return Tensor._wrap(out.astype(np.float32 if w is None else w.dtype))


def histc(input, bins=100, min=0.0, max=0.0):
    """A histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    x = _as_tensor(input)._data
    lo, hi = float(min), float(max)
    if lo == hi:
        lo, hi = float(x.min()), float(x.max())
    counts, _ = np.histogram(x, bins=int(bins), range=(lo, hi))
    return Tensor._wrap(counts.astype(x.dtype if x.dtype.kind == "f" else np.float32))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Indices where ``values`` would be inserted into the last axis of ``sorted_sequence``."""
    seq = _as_tensor(sorted_sequence)._data
    vals = values._data if isinstance(values, Tensor) else np.asarray(values)
    side = side or ("right" if right else "left")
    if sorter is not None:
        seq = np.take_along_axis(seq, _as_tensor(sorter)._data, -1)
    if seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=side)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        flat = vals.reshape(rows.shape[0], -1)
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, flat)]).reshape(vals.shape)
    return Tensor._wrap(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input, boundaries, *, right=False):
    """The bucket of each element between ``boundaries`` (Int32, as MindSpore 2.10)."""
    b = boundaries._data if isinstance(boundaries, Tensor) else np.asarray(boundaries)
    x = _as_tensor(input)._data
    return Tensor._wrap(np.searchsorted(b, x, side="right" if right else "left").astype(np.int32))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The runs of equal consecutive elements collapsed (of the flattened input when ``dim`` is
    None), with the inverse indices and the run lengths when asked (Int64)."""
    x = _as_tensor(input)
    data = x._data.reshape(-1) if dim is None else np.moveaxis(x._data, dim, 0)
    if data.shape[0] == 0:
        change = np.zeros(0, dtype=bool)
    else:
        rows = data.reshape(data.shape[0], -1)
        change = np.concatenate([[True], np.any(rows[1:] != rows[:-1], axis=1)])
    starts = np.flatnonzero(change)
    out = data[starts]
    if dim is not None:
        out = np.moveaxis(out, 0, dim)
    result = [Tensor._wrap(out)]
    if return_inverse:
        inverse = np.cumsum(change) - 1
        result.append(Tensor._wrap(inverse.reshape(x.shape if dim is None else (-1,)).astype(np.int64)))
    if return_counts:
        result.append(Tensor._wrap(np.diff(np.append(starts, data.shape[0])).astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


def unique(input):
    """(the distinct elements in order of first appearance, the index of each element in them)
    as MindSpore 2.10's ``ops.unique`` (not sorted)."""
    x = _as_tensor(input)
    values, first, inverse = np.unique(x._data.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    idx_dtype = np.int64 if x._data.dtype == np.int64 else np.int32
    return Tensor._wrap(values[order]), Tensor._wrap(rank[inverse].reshape(x.shape).astype(idx_dtype))

