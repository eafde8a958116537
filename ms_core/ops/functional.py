"""Functional ops (`ms_core.ops.add`, ...): argument checks and dtype rules around primitives."""
import builtins
import numbers

import numpy as np

from .. import _registry
from .._axes import broadcast_message, check_axis
from .._checkparam import check_tensor
from .._checkparam import check_axis as _named_axis
from .._engine import apply
from .._prims import array as A
from .._prims import math as M
from ..common import dtype as mstype
from ..common.parameter import Parameter as _Parameter  # as a private name: not in ops' namespace
from ..common.tensor import Tensor


def _as_tensor(x, like=None):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return Tensor._wrap(x)
    dtype = like._data.dtype if like is not None and like._data.dtype.kind == "f" else None
    return Tensor(x, dtype=dtype)


def _operands(x, y):
    """Apply MindSpore's mixed-type rules: int with float -> the float's dtype; Python floats weak;
    a complex operand with a float one stays complex (NumPy's promotion)."""
    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    if not xt and not yt:
        x = _as_tensor(x)
        xt = True
    if xt and yt:
        kx, ky = x._data.dtype.kind, y._data.dtype.kind
        if kx == "f" and ky not in "fc":
            y = cast(y, x.dtype)
        elif ky == "f" and kx not in "fc":
            x = cast(x, y.dtype)
        return x, y
    t, s = (x, y) if xt else (y, x)
    if isinstance(s, np.generic):
        s = s.item()
    if isinstance(s, np.ndarray):
        s = Tensor._wrap(s)
        return _operands(x if xt else s, s if xt else y)
    if isinstance(s, float) and t._data.dtype.kind not in "fc":  # a complex tensor stays complex
        t = cast(t, mstype.float32)
    elif not isinstance(s, (numbers.Number, bool)):
        raise TypeError(f"Unsupported operand type for Tensor arithmetic: {type(s).__name__}.")
    return (t, s) if xt else (s, t)


# --- arithmetic -----------------------------------------------------------------------------
_ADD, _SUB, _MUL, _DIV, _POW = M.Add(), M.Sub(), M.Mul(), M.Div(), M.Pow()


def _shape(v):
    return v.shape if isinstance(v, Tensor) else np.shape(v)


def _broadcasting(name, prim, *operands):
    """apply(prim, *operands); shapes that do not broadcast get MindSpore's message from the
    engine, which names the primitive (``name`` is kept for the callers' readability)."""
    return apply(prim, *operands)


def add(input, other):
    """x + y with broadcasting."""
    return _broadcasting("Add", _ADD, *_operands(input, other))


def sub(input, other):
    return _broadcasting("Sub", _SUB, *_operands(input, other))


def mul(input, other):
    return _broadcasting("Mul", _MUL, *_operands(input, other))


def div(input, other, rounding_mode=None):
    """x / y; ``rounding_mode`` 'floor' or 'trunc' rounds the quotient (integers stay integers,
    as in MindSpore 2.10)."""
    if rounding_mode not in (None, "floor", "trunc"):
        raise ValueError(f"For 'div', the 'rounding_mode' must be None, 'floor' or 'trunc', "
                         f"but got {rounding_mode!r}.")
    input, other = _operands(input, other)
    floats = (isinstance(input, Tensor) and input._data.dtype.kind in "fc" or
              isinstance(other, Tensor) and other._data.dtype.kind in "fc")
    if rounding_mode is not None and not floats:
        return _int_div(input, other, rounding_mode)
    if not floats:
        input = cast(_as_tensor(input), mstype.float32)
    out = _broadcasting("Div", _DIV, input, other)
    if rounding_mode == "floor":
        return floor(out)
    if rounding_mode == "trunc":
        return sign(out) * floor(abs(out))
    return out


def _int_div(x, y, rounding_mode):
    """Integer division rounded down ('floor') or toward zero ('trunc'), in the integer dtype."""
    xa = x._data if isinstance(x, Tensor) else np.asarray(x)
    ya = y._data if isinstance(y, Tensor) else np.asarray(y)
    dtype = (x if isinstance(x, Tensor) else y)._data.dtype
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.floor_divide(xa, ya)
        if rounding_mode == "trunc":
            q = q + ((q < 0) & (q * ya != xa))
    return Tensor._wrap(np.asarray(q, dtype=dtype))


true_divide = div
divide = div
multiply = mul
subtract = sub




def pow(input, exponent):
    """x ** y; differentiable in both."""
    return _broadcasting("Pow", _POW, *_operands(input, exponent))


def neg(input):
    return apply(M.Neg(), input)


negative = neg


def maximum(input, other):
    return _broadcasting("Maximum", M.Maximum(), *_operands(input, other))


def minimum(input, other):
    return _broadcasting("Minimum", M.Minimum(), *_operands(input, other))


def where(condition, input, other):
    """Elements of x where condition, else y."""
    cond = condition if isinstance(condition, Tensor) else Tensor(condition)
    input, other = _operands(input, other)
    # a number beside a tensor takes the tensor's dtype (where(m, 0, x) of float32 x is float32)
    if isinstance(other, Tensor) and not isinstance(input, Tensor):
        input = Tensor(np.asarray(input, dtype=other._data.dtype))
    elif isinstance(input, Tensor) and not isinstance(other, Tensor):
        other = Tensor(np.asarray(other, dtype=input._data.dtype))
    return _broadcasting("Select", M.Where(), cond, _as_tensor(input), _as_tensor(other))


def _unary(prim_cls):
    prim = prim_cls()

    def op(input):  # (MindSpore's parameter names: callers may pass them as keywords)
        if not isinstance(input, Tensor):
            input = _as_tensor(input)
        # integers and bools are computed as float32; a complex input stays complex (exp(1j * p))
        if input._data.dtype.kind not in "fc" and prim_cls not in (M.Neg, M.Abs, M.Square, M.Relu):
            input = cast(input, mstype.float32)
        return apply(prim, input)

    op.__name__ = prim_cls.__name__.lower()
    op.__doc__ = f"Elementwise {op.__name__}."
    return op


exp = _unary(M.Exp)
log = _unary(M.Log)
log1p = _unary(M.Log1p)
expm1 = _unary(M.Expm1)
_sqrt = _unary(M.Sqrt)


def sqrt(x):
    """Elementwise square root (MindSpore 2.10 names its parameter x)."""
    return _sqrt(x)


rsqrt = _unary(M.Rsqrt)
square = _unary(M.Square)
reciprocal = _unary(M.Reciprocal)
abs = _unary(M.Abs)
absolute = abs
sin = _unary(M.Sin)
cos = _unary(M.Cos)
tanh = _unary(M.Tanh)
sigmoid = _unary(M.Sigmoid)
relu = _unary(M.Relu)
erf = _unary(M.Erf)


def _nondiff(fn):
    def op(input, *args):
        input = _as_tensor(input)
        return Tensor._wrap(np.asarray(fn(input._data, *args)))
    op.__name__ = fn.__name__
    return op


sign = _nondiff(np.sign)
floor = _nondiff(np.floor)
ceil = _nondiff(np.ceil)
round = _nondiff(np.round)
isnan = _nondiff(np.isnan)
isinf = _nondiff(np.isinf)
isfinite = _nondiff(np.isfinite)
logical_not = _nondiff(np.logical_not)


def _nondiff_binary(fn):
    """A binary op with no gradient (comparisons, floor division), with the mixed-type rules."""
    def op(input, other):
        x, y = _operands(input, other)
        xa = x._data if isinstance(x, Tensor) else x
        ya = y._data if isinstance(y, Tensor) else y
        if np.shape(xa) != np.shape(ya):
            try:
                np.broadcast_shapes(np.shape(xa), np.shape(ya))
            except ValueError:
                name = "".join(part.capitalize() for part in fn.__name__.split("_"))
                raise ValueError(broadcast_message(name, (np.shape(xa), np.shape(ya)))) from None
        return Tensor._wrap(np.asarray(fn(xa, ya)))
    op.__name__ = fn.__name__
    return op


equal = _nondiff_binary(np.equal)
not_equal = _nondiff_binary(np.not_equal)
less = _nondiff_binary(np.less)
less_equal = _nondiff_binary(np.less_equal)
greater = _nondiff_binary(np.greater)
greater_equal = _nondiff_binary(np.greater_equal)
logical_and = _nondiff_binary(np.logical_and)
logical_or = _nondiff_binary(np.logical_or)
logical_xor = _nondiff_binary(np.logical_xor)
_floor_divide = _nondiff_binary(np.floor_divide)


def _bitwise(fn, name):
    """An integer (or bool) op with no gradient; MindSpore refuses floating-point input."""
    binary = _nondiff_binary(fn)

    def op(input, other):
        for v in (input, other):
            kind = v._data.dtype.kind if isinstance(v, Tensor) else np.asarray(v).dtype.kind
            if kind not in "iub":
                dtype = v.dtype if isinstance(v, Tensor) else type(v).__name__
                raise TypeError(f"For '{name}', the input must be a Tensor of int or bool type, but got {dtype}.")
        return binary(input, other)
    op.__name__ = fn.__name__
    return op


bitwise_and = _bitwise(np.bitwise_and, "BitwiseAnd")
bitwise_or = _bitwise(np.bitwise_or, "BitwiseOr")
bitwise_xor = _bitwise(np.bitwise_xor, "BitwiseXor")
bitwise_left_shift = _bitwise(np.left_shift, "LeftShift")
bitwise_right_shift = _bitwise(np.right_shift, "RightShift")


def floor_div(x, y):
    """Elementwise floor division, no gradient (MindSpore 2.10 names its parameters x, y)."""
    return _floor_divide(x, y)


def floor_mod(x, y):
    """x modulo y with the divisor's sign (Python's %); differentiable as MindSpore's FloorMod:
    d/dx 1, d/dy -floor(x / y). Integer inputs stay integer."""
    x, y = _operands(x, y)
    return apply(M.FloorMod(), x, y)




def remainder(input, other):
    """floor_mod under torch's name (MindSpore 2.10 names its parameters input, other)."""
    return floor_mod(input, other)
eq, ne, lt, le, gt, ge = equal, not_equal, less, less_equal, greater, greater_equal


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return Tensor._wrap(np.isclose(_as_tensor(input)._data, _as_tensor(other)._data, rtol, atol, equal_nan))


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.allclose(_as_tensor(x)._data, _as_tensor(y)._data, rtol, atol, equal_nan))


def cast(input, dtype):
    """x converted to `dtype` (differentiable between floating types)."""
    np_dtype = mstype.to_np(dtype)
    input = _as_tensor(input)
    if input._data.dtype == np_dtype:
        return input
    return apply(M.Cast(np_dtype), input)


def identity(x):
    return apply(M.Identity(), x)


def stop_gradient(value):
    """x with no gradient flowing back through it (tuples are handled element by element)."""
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(i) for i in value)
    if not isinstance(value, Tensor):
        return value
    return Tensor._wrap(value._data)


def assign(variable, value):
    """Write `value` into the Parameter `variable` in place (its identity kept, so a layer that
    holds it sees the new values; not differentiated), as MindSpore's ops.assign; returns the
    new values.

    Raises:
        TypeError: variable is not a Parameter; ValueError: value's shape does not broadcast to it.
    """
    if not isinstance(variable, _Parameter):
        raise TypeError(f"For 'Assign', the 'variable' must be a Parameter, but got "
                        f"{type(variable).__name__}.")
    arr = np.asarray(value._data if isinstance(value, Tensor) else value, dtype=variable._data.dtype)
    try:
        new = np.broadcast_to(arr, variable._data.shape)
    except ValueError:
        raise ValueError(f"For 'Assign', the shape of 'value' {list(arr.shape)} must be the shape of "
                         f"'variable' {list(variable._data.shape)}.") from None
    if variable._data.flags.writeable:
        variable._data[...] = new
    else:
        variable._data = np.array(new)
    return Tensor._wrap(variable._data.copy())


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clamp x (or each Tensor of a tuple/list) to [min, max]."""
    if isinstance(x, (tuple, list)):
        return type(x)(clip_by_value(i, clip_value_min, clip_value_max) for i in x)
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("For 'clip_by_value', at least one of 'clip_value_min' and "
                         "'clip_value_max' must be given.")
    lo = clip_value_min._data if isinstance(clip_value_min, Tensor) else clip_value_min
    hi = clip_value_max._data if isinstance(clip_value_max, Tensor) else clip_value_max
    return apply(M.ClipByValue(), x, lo, hi)


def clamp(input, min=None, max=None):
    """Clamp ``input`` to [min, max] (MindSpore 2.x's keyword names; either bound may be None
    or a Tensor, which then gets its gradient where it binds)."""
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = _as_tensor(input)
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    return clip_by_value(input, min, max)


clip = clamp


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    if isinstance(x, (tuple, list)):
        return clip_by_global_norm(x, max_norm)
    n = sqrt(sum(square(x)))
    return x * minimum(max_norm / maximum(n, 1e-12), 1.0)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale a tuple of Tensors so that their global L2 norm is at most `clip_norm`.

    Args:
        x: Tensor or tuple/list of Tensors (typically gradients).
        clip_norm: the largest allowed global norm (> 0).
        use_norm: a precomputed global norm; computed from x when None.

    Returns:
        The clipped Tensors, in the same structure as x.

    Example:
        >>> grads = ops.clip_by_global_norm(grads, 1.0)
    """
    single = isinstance(x, Tensor)
    items = (x,) if single else tuple(x)
    if not isinstance(clip_norm, (numbers.Number, Tensor)) or float(clip_norm) <= 0:
        raise ValueError(f"For 'clip_by_global_norm', the 'clip_norm' must be a positive number, "
                         f"but got {clip_norm!r}.")
    if use_norm is None:
        total = None
        for g in items:
            s = sum(square(g))
            total = s if total is None else total + s
        use_norm = sqrt(total)
    scale = clip_norm / maximum(use_norm, clip_norm)
    out = tuple(g * cast(scale, g.dtype) for g in items)
    return out[0] if single else out


# --- matmul ---------------------------------------------------------------------------------

def matmul(input, other):
    """Matrix product with NumPy's broadcasting rules (1-D operands promoted as in np.matmul)."""
    input, other = _as_tensor(input), _as_tensor(other)
    if input.ndim == 0 or other.ndim == 0:
        raise ValueError("For 'matmul', the inputs must not be scalars; use ops.mul instead.")
    _same_dtype("MatMul", input, other)
    if input.shape[-1] != (other.shape[-2] if other.ndim > 1 else other.shape[0]):
        raise ValueError(f"For 'matmul', the last axis of 'x' must equal the second-to-last axis "
                         f"of 'y', but got shapes {list(input.shape)} and {list(other.shape)}.")
    return apply(M.MatMul(), input, other)


def _same_dtype(prim_name, x, y):
    """MindSpore and torch multiply matrices of one dtype only: no silent promotion."""
    if x.dtype != y.dtype:
        raise TypeError(f"For '{prim_name}', the type of 'x2' should be same as 'x1', but got 'x1' "
                        f"with type Tensor[{x.dtype}] and 'x2' with type Tensor[{y.dtype}].")


def matmul_t(x, y, transpose_a=False, transpose_b=False):
    """x @ y with the last two axes of x and/or y transposed (no copy)."""
    x, y = _as_tensor(x), _as_tensor(y)
    _same_dtype("MatMul", x, y)
    return apply(M.MatMul(transpose_a, transpose_b), x, y)


def bmm(input_x, mat2):
    return matmul(input_x, mat2)


mm = matmul


def dense(input, weight, bias=None):
    """x @ weight.T + bias (weight shape (out, in), as in MindSpore and torch)."""
    out = matmul_t(input, weight, False, True)
    return out if bias is None else out + bias


def outer(input, vec2):
    return reshape(input, (-1, 1)) * reshape(vec2, (1, -1))


def dot(input, other):
    return matmul(input, other)


# --- reductions -----------------------------------------------------------------------------

def _axis_arg(axis):
    if isinstance(axis, list):
        return tuple(axis)
    return axis


def _sum(x, axis=None, keep_dims=False):
    """Sum over `axis` (int, tuple or None for all axes): the one the primitives' backwards use."""
    x = _as_tensor(x)
    return apply(M.ReduceSum(_axes("sum", _axis_arg(axis), x.ndim) if axis is not None else None, keep_dims), x)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (int, tuple or None for all axes), MindSpore 2.10's signature (the
    keywords are `dim` and `keepdim`, as torch; `axis=` is refused as by MindSpore).

    Example:
        >>> ops.sum(x, dim=1, keepdim=True)
    """
    out = _sum(input, dim, keepdim)
    return out if dtype is None else cast(out, dtype)


def reduce_sum(x, axis=()):
    """Sum over `axis` (() or None: all axes), MindSpore 2.10's `ops.reduce_sum`."""
    return _sum(x, None if axis == () else axis)


def mean(x, axis=None, keep_dims=False, *, keepdims=None):
    if keepdims is not None:
        keep_dims = keepdims
    return apply(M.ReduceMean(_axis_arg(axis), keep_dims), _as_tensor(x))


reduce_mean = mean


def amax(x, axis=None, keep_dims=False, *, keepdims=None):
    if keepdims is not None:
        keep_dims = keepdims
    return apply(M.ReduceExtreme(_axis_arg(axis), keep_dims, True), _as_tensor(x))


def amin(x, axis=None, keep_dims=False, *, keepdims=None):
    if keepdims is not None:
        keep_dims = keepdims
    return apply(M.ReduceExtreme(_axis_arg(axis), keep_dims, False), _as_tensor(x))


def reduce_max(x, axis=()):
    """Maximum over `axis` (() for all axes), MindSpore 2.10's `ops.reduce_max`; the gradient is
    shared among ties."""
    return amax(x, axis)


def reduce_min(x, axis=()):
    """Minimum over `axis` (() for all axes), MindSpore 2.10's `ops.reduce_min`."""
    return amin(x, axis)


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """MindSpore 2.10's `ops.max`: (values, Int64 indices) along `axis`. Without an axis it
    returns (the maximum of all elements, Tensor(0)): MindSpore 2.10 gives index 0 on purpose
    (its source returns a constant), so ms_core does too; use `ops.argmax` for the flat index.
    The gradient of the maximum without an axis is shared among ties (as `ops.amax`); along an
    axis it goes to the returned index only.

    Example:
        >>> values, indices = ops.max(x, axis=1)
    """
    return _extreme(input, axis, keepdims, True)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """MindSpore 2.10's `ops.min`: (values, Int64 indices); without an axis (minimum, Tensor(0)),
    like `ops.max`."""
    return _extreme(input, axis, keepdims, False)


def _extreme(x, axis, keepdims, largest):
    x = _as_tensor(x)
    if axis is None:
        return (amax if largest else amin)(x), Tensor._wrap(np.array(0, dtype=np.int64))
    indices = argmax(x, axis, keepdims) if largest else cast(argmin(x, axis, keepdims), mstype.int64)
    return _value_at_index(x, indices, axis, keepdims)


def _value_at_index(x, indices, axis, keepdims):
    """(x at the arg-extreme indices, indices): a differentiable take along `axis`."""
    x = _as_tensor(x)
    idx = indices._data
    if axis is None:
        flat = reshape(x, (-1,))
        return getitem(flat, idx), indices
    axis = check_axis("ArgMaxWithValue", axis, x.ndim)
    values = _take_along(x, idx if keepdims else np.expand_dims(idx, axis), axis)
    return (values if keepdims else squeeze(values, axis)), indices


def _take_along(x, idx, axis):
    """x gathered at integer array `idx` along `axis` (np.take_along_axis), differentiable."""
    grid = list(np.indices(idx.shape, sparse=True))
    grid[axis] = idx
    return getitem(x, tuple(grid))


def sort(input_x, axis=-1, descending=False):
    """(sorted values, Int32 indices) along `axis`; gradients flow to the original positions."""
    x = _as_tensor(input_x)
    axis = check_axis("Sort", axis, x.ndim)
    idx = np.argsort(-x._data if descending else x._data, axis=axis, kind="stable")
    return _take_along(x, idx, axis), Tensor._wrap(idx.astype(np.int32))


def argsort(input, axis=-1, descending=False):
    return sort(input, axis, descending)[1]


def topk(input, k, dim=None, largest=True, sorted=True):
    """(the k largest (or smallest) values along `dim` (default last), Int32 indices)."""
    x = _as_tensor(input)
    axis = check_axis("TopK", -1 if dim is None else dim, x.ndim, "dim")
    if not 0 < k <= x.shape[axis]:
        raise ValueError(f"For 'topk', the 'k' must be in [1, {x.shape[axis]}], but got {k}.")
    values, indices = sort(x, axis, descending=largest)
    index = (slice(None),) * axis + (slice(0, k),)
    return getitem(values, index), getitem(indices, index)


def narrow(input, axis, start, length):
    axis = check_axis("Narrow", axis, input.ndim)
    return getitem(input, (slice(None),) * axis + (slice(start, start + length),))


def unbind(input, dim=0):
    dim = check_axis("Unstack", dim, input.ndim, "dim")
    return tuple(getitem(input, (slice(None),) * dim + (i,)) for i in range(input.shape[dim]))


def masked_select(input, mask):
    mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    return getitem(input, np.broadcast_to(mask, input.shape))


def argmax(input, dim=None, keepdim=False):
    """Int64 indices of the maxima along ``dim`` (None: of the flattened tensor): MindSpore
    2.10's signature (``dim``, ``keepdim``)."""
    x = _as_tensor(input)
    dim = None if dim is None else check_axis("Argmax", dim, x.ndim, "dim")
    out = np.argmax(x._data, axis=dim)
    if keepdim and dim is not None:
        out = np.expand_dims(out, dim)
    return Tensor._wrap(np.asarray(out, dtype=np.int64))


def argmin(input, axis=None, keepdims=False):
    """Indices of the minima; Int32, where argmax gives Int64 (MindSpore 2.10 does the same)."""
    input = _as_tensor(input)
    axis = None if axis is None else check_axis("Argmin", axis, input.ndim)
    out = np.argmin(input._data, axis=axis)
    if keepdims and axis is not None:
        out = np.expand_dims(out, axis)
    return Tensor._wrap(np.asarray(out, dtype=np.int32))


def prod(input, axis=None, keep_dims=False, dtype=None):
    """The product over ``axis`` (all axes when None), cast to ``dtype`` first when given."""
    input = _as_tensor(input) if dtype is None else cast(input, dtype)
    return apply(M.ReduceProd(_axis_arg(axis), keep_dims), input)


def var(input, axis=None, ddof=0, keepdims=False):
    m = mean(input, axis, True)
    d = input - m
    n = input.size if axis is None else int(np.prod([input.shape[a] for a in
                                                 ((axis,) if isinstance(axis, int) else axis)]))
    return sum(d * d, axis, keepdims) / (n - ddof)


def std(input, axis=None, ddof=0, keepdims=False):
    return sqrt(var(input, axis, ddof, keepdims))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector norms with MindSpore 2.x's signature: ord None/'fro'/2 is the 2-norm over `dim`
    (all elements when None), a number p gives (sum |x|^p)^(1/p), inf/-inf the max/min |x|."""
    x = _as_tensor(A) if dtype is None else cast(A, dtype)
    if ord in (None, "fro", 2):
        return sqrt(sum(square(x), dim, keepdim))
    if ord in (float("inf"), float("-inf")):
        return (amax if ord > 0 else amin)(abs(x), dim, keepdim)
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0:
        if ord == 1:
            return sum(abs(x), dim, keepdim)
        return pow(sum(pow(abs(x), float(ord)), dim, keepdim), 1.0 / ord)
    raise ValueError(f"For 'norm', the 'ord' must be None, 'fro', inf, -inf or a positive number "
                     f"(vector norms), but got {ord!r}.")


def tril(input, diagonal=0):
    """The lower triangle of the last two axes (the rest zeroed); differentiable."""
    x = _as_tensor(input)
    keep = np.tril(np.ones(x.shape[-2:], dtype=bool), diagonal)
    return where(Tensor._wrap(keep), x, zeros_like(x))


def triu(input, diagonal=0):
    """The upper triangle of the last two axes (the rest zeroed); differentiable."""
    x = _as_tensor(input)
    keep = np.triu(np.ones(x.shape[-2:], dtype=bool), diagonal)
    return where(Tensor._wrap(keep), x, zeros_like(x))


def gather_elements(input, dim, index):
    """out[i][j] = input[i][index[i][j]] along `dim` (torch.gather); differentiable in input."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    x = _as_tensor(input)
    if idx.ndim != x.ndim:
        raise ValueError(f"For 'gather_elements', the 'index' must have the input's rank "
                         f"{x.ndim}, but got {idx.ndim}.")
    return _take_along(x, idx.astype(np.int64), check_axis("GatherD", dim, x.ndim, "dim"))


def logsumexp(input, dim, keepdim=False):
    return apply(M.LogSumExp(_axis_arg(dim), keepdim), input)


def cumsum(x, axis, dtype=None):
    """Cumulative sum along `axis` (differentiable: the gradient is a reversed cumulative sum);
    the input is cast to `dtype` first when given (Bool counts), as MindSpore's."""
    x = _as_tensor(x) if dtype is None else cast(x, dtype)
    return apply(M.CumSum(axis), x)


# --- softmax family and activations ---------------------------------------------------------

def _axes(name, axis, ndim):
    """An int or a tuple of ints, each checked against `ndim` (MindSpore's message)."""
    if isinstance(axis, (tuple, list)):
        return tuple(_named_axis(name, "axis", a, ndim) for a in axis)
    return _named_axis(name, "axis", axis, ndim)


def softmax(input, axis=-1, *, dtype=None):
    """Softmax over ``axis``; ``dtype`` given: the input is cast to it first (MindSpore 2.10)."""
    input = _as_tensor(input)
    if dtype is not None:
        input = input.astype(dtype)
    return apply(M.Softmax(_axes("softmax", axis, input.ndim)), input)


def log_softmax(logits, axis=-1):
    logits = _as_tensor(logits)
    return apply(M.LogSoftmax(_axes("log_softmax", axis, logits.ndim)), logits)


# --- shape ops ------------------------------------------------------------------------------

def _shape_arg(name, shape, size):
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    known = int(np.prod([s for s in shape if s != -1])) if shape else 1
    if shape.count(-1) > 1 or (-1 not in shape and known != size) or (
            -1 in shape and (known == 0 or size % known)):
        raise ValueError(f"For '{name}', the product of the new shape {list(shape)} must equal "
                         f"the number of elements {size} of the input.")
    return shape


def reshape(input, shape):
    """x with a new shape (one -1 allowed)."""
    input = _as_tensor(input)
    shape = _shape_arg("reshape", shape, input.size)
    if shape == input.shape:
        return input
    prim = A.Reshape(shape)
    out = apply(prim, input)
    if np.may_share_memory(out._data, input._data):  # torch's rule: a view unless it must copy
        out._view_of(input, prim)
    return out


def transpose(input, dims):
    """Permute the axes of x by a full order `input_perm`."""
    input = _as_tensor(input)
    if len(dims) != input.ndim:
        raise ValueError(f"For 'transpose', the 'input_perm' must be a permutation of "
                         f"{list(range(input.ndim))}, but got {list(dims)}.")
    perm = tuple(_named_axis("transpose", "input_perm", int(p), input.ndim) for p in dims)
    if sorted(perm) != list(range(input.ndim)):
        raise ValueError(f"For 'transpose', the 'input_perm' must be a permutation of "
                         f"{list(range(input.ndim))}, but got {list(dims)}.")
    prim = A.Transpose(perm)
    return apply(prim, input)._view_of(input, prim)


def permute(input, axis):
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    axis0 = check_axis("SwapAxes", axis0, input.ndim, "axis0")
    axis1 = check_axis("SwapAxes", axis1, input.ndim, "axis1")
    perm = list(range(input.ndim))
    perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return transpose(input, tuple(perm))


def squeeze(input, axis=None):
    input = _as_tensor(input)
    if axis is None:
        shape = tuple(s for s in input.shape if s != 1)
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = tuple(check_axis("Squeeze", a, input.ndim) for a in axes)
        for a in axes:
            if input.shape[a] != 1:
                raise ValueError(f"For 'squeeze', the dimension {a} of the input must be 1, but got "
                                 f"shape {list(input.shape)}.")
        shape = tuple(s for i, s in enumerate(input.shape) if i not in axes)
    return reshape(input, shape)


def expand_dims(input_x, axis):
    input_x = _as_tensor(input_x)
    axis = int(axis)
    if not -input_x.ndim - 1 <= axis <= input_x.ndim:
        raise ValueError(f"For 'expand_dims', the 'axis' must be in [{-input_x.ndim - 1}, {input_x.ndim}], "
                         f"but got {axis}.")
    axis = axis % (input_x.ndim + 1)
    return reshape(input_x, input_x.shape[:axis] + (1,) + input_x.shape[axis:])


def unsqueeze(input, dim):
    """A new axis of size 1 at ``dim`` (MindSpore 2.10's signature: ``ops.unsqueeze(input, dim)``)."""
    return expand_dims(input, dim)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Merge axes start_dim..end_dim (MindSpore 2.x default keeps the batch axis)."""
    input = _as_tensor(input)
    if input.ndim == 0:
        return reshape(input, (1,))
    s = check_axis("Flatten", start_dim, input.ndim, "start_dim")
    e = check_axis("Flatten", end_dim, input.ndim, "end_dim")
    return reshape(input, input.shape[:s] + (-1,) + input.shape[e + 1:])


def broadcast_to(input, shape):
    input = _as_tensor(input)
    shape = tuple(input.shape[i - (len(shape) - input.ndim)] if s == -1 else s for i, s in enumerate(shape))
    if shape == input.shape:
        return input
    try:
        np.broadcast_shapes(input.shape, shape)
    except ValueError:
        raise ValueError(f"For 'broadcast_to', the input shape {list(input.shape)} cannot be broadcast "
                         f"to {list(shape)}.") from None
    prim = A.BroadcastTo(shape)
    return apply(prim, input)._view_of(input, prim)  # a view, as torch's expand


def tile(input, dims):
    return apply(A.Tile(tuple(dims)), _as_tensor(input))


def getitem(x, index):
    """x[index]; a basic index (ints, slices, None, Ellipsis) gives a view of x, as in torch."""
    index = _index_arg(index)
    prim = A.GetItem(index)
    out = apply(prim, x)
    return out._view_of(x, prim) if A._is_basic(index) and isinstance(x, Tensor) else out


def _view_getitem(x, index):
    """x[index] as a view of x also for an advanced index whose positions do not repeat (the
    diagonal is a view in torch and MindSpore)."""
    prim = A.GetItem(_index_arg(index))
    return apply(prim, x)._view_of(x, prim)


def _write_view(base, value, index):
    """``base`` with the elements at flat positions ``index`` set to ``value`` (broadcast to
    ``index``'s shape); differentiable (how a write into a view reaches its base)."""
    return apply(A.WriteView(index), base, value)


def setitem(x, index, value):
    index = _index_arg(index)
    if isinstance(value, Tensor) and value._data.dtype != x._data.dtype:
        value = cast(value, x.dtype)
    return apply(A.SetItem(index), x, value)


def _index_arg(index):
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, list):
        return np.asarray([i._data if isinstance(i, Tensor) else i for i in index])
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    return index


def concat(tensors, axis=0):
    """Join Tensors along an existing axis."""
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("For 'concat', the input must contain at least one Tensor.")
    ref = tensors[0]
    axis = _named_axis("concat", "axis", axis, ref.ndim)
    for t in tensors[1:]:
        if t.ndim != ref.ndim or any(a != b for i, (a, b) in enumerate(zip(t.shape, ref.shape))
                                     if i != axis):
            raise ValueError(f"For 'concat', all inputs must have the same shape except along axis "
                             f"{axis}, but got {list(ref.shape)} and {list(t.shape)}.")
    return apply(A.Concat(axis), *_joined_dtype(tensors))


def _joined_dtype(tensors):
    """Inputs of one dtype for a join, as MindSpore infers it (and torch computes it): integers and
    bools next to floats become the widest float (int64 with float32 is float32, not NumPy's
    float64)."""
    floats = [t._data.dtype for t in tensors if t._data.dtype.kind in "fc"]
    if not floats or len({t._data.dtype for t in tensors}) == 1:
        return tensors
    to = mstype.from_np(np.result_type(*floats))
    return tuple(t if t._data.dtype == mstype.to_np(to) else cast(t, to) for t in tensors)


cat = concat


def stack(tensors, axis=0):
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError("For 'stack', the input must contain at least one Tensor.")
    axis = _named_axis("stack", "axis", axis, tensors[0].ndim, extra=1)
    for t in tensors[1:]:
        if t.shape != tensors[0].shape:
            raise ValueError(f"For 'stack', all inputs must have the same shape, but got "
                             f"{list(tensors[0].shape)} and {list(t.shape)}.")
    return apply(A.Stack(axis), *_joined_dtype(tensors))


def split(tensor, split_size_or_sections, axis=0):
    """Split into chunks of `split_size_or_sections` (int) or of the given sizes (list)."""
    axis = check_axis("Split", axis, tensor.ndim)
    n = tensor.shape[axis]
    if isinstance(split_size_or_sections, int):
        sizes = [split_size_or_sections] * (n // split_size_or_sections)
        if n % split_size_or_sections:
            sizes.append(n % split_size_or_sections)
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise ValueError(f"For 'split', the sections {sizes} must sum to the axis length {n}.")
    out, start = [], 0
    for s in sizes:
        out.append(getitem(tensor, (slice(None),) * axis + (slice(start, start + s),)))
        start += s
    return tuple(out)


def chunk(input, chunks, axis=0):
    axis = check_axis("Chunk", axis, input.ndim)
    n = input.shape[axis]
    size = -(-n // chunks)
    return split(input, size, axis)


def gather(input_params, input_indices, axis, batch_dims=0):
    idx = input_indices._data if isinstance(input_indices, Tensor) else np.asarray(input_indices)
    axis = _named_axis("gather", "axis", axis, input_params.ndim)
    return apply(A.Gather(axis), input_params, idx)


def index_select(input, axis, index):
    return gather(input, index, axis)


def masked_fill(input_x, mask, value):
    return where(mask, value, input_x)


def flip(input, dims):
    dims = (dims,) if isinstance(dims, int) else dims
    return apply(A.Flip(tuple(_named_axis("flip", "dims", d, input.ndim) for d in dims)), input)


def repeat_interleave(input, repeats, axis=None):
    """Each element repeated ``repeats`` times along ``axis`` (the flattened input when None);
    ``repeats`` an int or one count per element (a Tensor or list)."""
    input = _as_tensor(input)
    if axis is None:
        input, axis = reshape(input, (-1,)), 0
    if isinstance(repeats, (Tensor, list, tuple, np.ndarray)):
        counts = np.asarray(repeats._data if isinstance(repeats, Tensor) else repeats).reshape(-1)
        if counts.size != 1:
            index = np.repeat(np.arange(input.shape[axis]), counts.astype(np.int64))
            return gather(input, index, axis)
        repeats = int(counts[0])
    return apply(A.Repeat(repeats, axis), input)


def _pad_indices(n, before, after, mode, name="pad"):
    """Source indices (length before + n + after) that realise `mode` padding of an axis of n."""
    i = np.arange(-before, n + after)
    if mode == "reflect":
        if before >= n or after >= n:
            raise ValueError(f"For '{name}', with mode 'reflect' the padding ({before}, {after}) "
                             f"must be less than the size {n} of the padded dimension.")
        i = np.abs(i)
        i = np.where(i >= n, 2 * (n - 1) - i, i)
    elif mode == "symmetric":
        if before > n or after > n:
            raise ValueError(f"For '{name}', with mode 'symmetric' the padding ({before}, {after}) "
                             f"must be at most the size {n} of the padded dimension.")
        i = np.where(i < 0, -i - 1, i)
        i = np.where(i >= n, 2 * n - 1 - i, i)
    elif mode == "replicate":
        if n == 0:
            raise ValueError(f"For '{name}', with mode 'replicate' the padded dimension must not "
                             f"be empty.")
        i = np.clip(i, 0, n - 1)
    elif mode == "circular":
        if before > n or after > n:
            raise ValueError(f"For '{name}', with mode 'circular' the padding ({before}, {after}) "
                             f"must be at most the size {n} of the padded dimension.")
        i = i % n
    else:
        raise ValueError(f"For '{name}', the 'mode' must be one of 'constant', 'reflect', "
                         f"'replicate', 'circular', but got {mode!r}.")
    return i.astype(np.int64)


def _pad_by_index(x, padding, mode, name="pad"):
    """Pad the last len(padding)//2 axes of `x` by gathering indices ((left, right) pairs from the
    last axis backwards, as `ops.pad`). mode: 'reflect', 'replicate', 'circular' or 'symmetric'.
    Differentiable (gather's backward accumulates the gradients of repeated indices)."""
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) // 2 > x.ndim:
        raise ValueError(f"For '{name}', the 'padding' must have an even length of at most "
                         f"{2 * x.ndim}, but got {len(padding)}.")
    if any(p < 0 for p in padding):
        raise ValueError(f"For '{name}', every element in 'padding' must be >= 0 with mode "
                         f"{mode!r}, but got {padding}.")
    out = x
    for k in range(len(padding) // 2):
        axis = x.ndim - 1 - k
        before, after = padding[2 * k], padding[2 * k + 1]
        if before == 0 and after == 0:
            continue
        out = gather(out, _pad_indices(x.shape[axis], before, after, mode, name), axis)
    return out


def pad(input_x, padding, mode="constant", value=None):
    """Pad the last axes; `padding` lists (left, right) pairs from the last axis backwards, as torch.
    A `value` is for mode 'constant' only, as MindSpore 2.10 checks (torch ignores value=0 there)."""
    if mode in ("reflect", "replicate", "circular"):
        if value is not None:
            raise ValueError(f"For 'pad', the padding mode '{mode}' can not set value, but got value {value}.")
        return _pad_by_index(input_x, padding, mode)
    if mode != "constant":
        raise ValueError(f"For 'pad', the 'mode' must be one of 'constant', 'reflect', "
                         f"'replicate', 'circular', but got {mode!r}.")
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) // 2 > input_x.ndim:
        raise ValueError(f"For 'pad', the 'padding' must have an even length of at most "
                         f"{2 * input_x.ndim}, but got {len(padding)}.")
    pairs = [(0, 0)] * input_x.ndim
    for i in range(len(padding) // 2):
        pairs[input_x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    return apply(A.Pad(pairs, 0 if value is None else value), input_x)


# --- creation -------------------------------------------------------------------------------

def _shape_of(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def ones(shape, dtype=None):
    return Tensor._wrap(np.ones(_shape_of((shape,)) if not isinstance(shape, int) else (shape,),
                                dtype=mstype.to_np(dtype or mstype.float32)))


def zeros(size, dtype=None):
    return Tensor._wrap(np.zeros(_shape_of((size,)) if not isinstance(size, int) else (size,),
                                 dtype=mstype.to_np(dtype or mstype.float32)))


def ones_like(input, dtype=None):
    input = _as_tensor(input)
    return Tensor._wrap(np.ones(input.shape, dtype=mstype.to_np(dtype) if dtype else input._data.dtype))


def zeros_like(input, dtype=None):
    input = _as_tensor(input)
    return Tensor._wrap(np.zeros(input.shape, dtype=mstype.to_np(dtype) if dtype else input._data.dtype))


def fill(type, shape, value):
    return Tensor._wrap(np.full(tuple(shape), value, dtype=mstype.to_np(type)))


def full(size, fill_value, *, dtype=None):
    arr = np.full(tuple(size), fill_value)
    if dtype is not None:
        arr = arr.astype(mstype.to_np(dtype))
    elif arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return Tensor._wrap(arr)


def full_like(input, fill_value, dtype=None):
    return Tensor._wrap(np.full(input.shape, fill_value, dtype=mstype.to_np(dtype) if dtype else input._data.dtype))


def arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    arr = np.arange(start, end, step)
    if dtype is not None:
        arr = arr.astype(mstype.to_np(dtype))
    elif arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return Tensor._wrap(arr)


def linspace(start, end, steps):
    """``steps`` evenly spaced values from ``start`` to ``end``: float32, or float64 when ``start``
    is a float64 Tensor (as MindSpore's LinSpace)."""
    wide = isinstance(start, Tensor) and start.dtype == mstype.float64
    return Tensor._wrap(np.linspace(float(start), float(end), int(steps), dtype=np.float64 if wide else np.float32))


def eye(n, m=None, dtype=None):
    return Tensor._wrap(np.eye(n, m, dtype=mstype.to_np(dtype or mstype.float32)))


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1):
    idx = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    out = np.where(np.arange(depth) == idx[..., None], on_value, off_value).astype(np.float32)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return Tensor._wrap(out)


# --- losses used by the seeds ---------------------------------------------------------------

def _reduce(loss, reduction, name):
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"For '{name}', the 'reduction' must be one of ['mean', 'sum', 'none'], "
                     f"but got {reduction!r}.")


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """Sigmoid + binary cross-entropy, computed stably:
    loss = -w * (pos_weight * y * log σ(x) + (1 - y) * log(1 - σ(x))).
    """
    check_tensor("binary_cross_entropy_with_logits", "logits", input)
    if target.shape != input.shape:
        raise ValueError(f"For 'binary_cross_entropy_with_logits', the 'label' shape "
                         f"{list(target.shape)} must equal the 'logits' shape {list(input.shape)}.")
    # log σ(x) = -softplus(-x); log(1 - σ(x)) = -softplus(x)
    log_sig = neg(softplus(neg(input)))
    log_one_minus = neg(softplus(input))
    pos = target * log_sig
    if pos_weight is not None:
        pos = pos * pos_weight
    loss = neg(pos + (1 - target) * log_one_minus)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


def softplus(x, beta=1, threshold=20):
    """log(1 + exp(x)), stable for large |x|."""
    xb = x * beta if beta != 1 else x
    out = relu(xb) + log1p(exp(neg(abs(xb))))
    return out / beta if beta != 1 else out


def mse_loss(input, target, reduction="mean"):
    d = input - target
    return _reduce(d * d, reduction, "mse_loss")


def l1_loss(input, target, reduction="mean"):
    return _reduce(abs(input - target), reduction, "l1_loss")


_registry.ops.register_module(globals())  # Tensor methods and backward rules call these by name
