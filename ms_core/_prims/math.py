"""Elementwise, matmul and reduction primitives."""
import numpy as np

from .._axes import check_axes
from .._engine import Primitive, apply
from .._registry import ops
from . import complex as C



def _quiet():
    """inf/nan results are values, as in MindSpore, not warnings (1/0, log(0), 0 ** -1)."""
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


# --- binary elementwise (broadcasting; the engine reduces grads to operand shapes) ---------

class Add(Primitive):
    def forward(self, ctx, x, y):
        return np.add(x, y)

    def backward(self, ctx, dout):
        return dout, dout


class Sub(Primitive):
    def forward(self, ctx, x, y):
        return np.subtract(x, y)

    def backward(self, ctx, dout):
        return dout, ops.neg(dout)


class Mul(Primitive):
    def forward(self, ctx, x, y):
        return np.multiply(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        if _is_complex(dout):  # torch's convention for complex z: dL/dRe(z) + i dL/dIm(z)
            return (_real_like(x, dout * _conj(y)), _real_like(y, dout * _conj(x)))
        return dout * y, dout * x


def _is_complex(t) -> bool:
    """A complex Tensor, array or Python/NumPy scalar (``x * 1j`` records the scalar as it is)."""
    return np.iscomplexobj(getattr(t, "_data", t))


def _conj(t):
    return apply(C.Conj(), t) if _is_complex(t) else t


def _real_like(operand, g):
    """The gradient of a real operand of a complex product is the real part."""
    return g if _is_complex(operand) else apply(C.Real(), g)


class Div(Primitive):
    def forward(self, ctx, x, y):
        with _quiet():
            return np.true_divide(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        if _is_complex(dout) or _is_complex(y):  # torch's convention: dout * conj(d(x/y))
            gx = dout / _conj(y)
            return gx, ops.neg(gx * _conj(ctx.out))
        gx = dout / y
        return gx, ops.neg(gx * x / y)


class Pow(Primitive):
    holomorphic = True

    def forward(self, ctx, x, y):
        with _quiet():
            return np.power(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        gx = dout * y * ops.pow(x, y - 1)
        gy = None
        if hasattr(y, "_data"):
            safe = ops.where(x > 0, x, ops.ones_like(x))
            gy = dout * ctx.out * ops.log(safe)
        return gx, gy


def _select_grads(dout, x_wins, tie):
    """Gradients of max/min: the winner takes dout; ties are split in half between the two
    operands, as MindSpore 2.10 and torch both do."""
    share = ops.cast(x_wins, dout.dtype) + ops.cast(tie, dout.dtype) * 0.5
    return dout * share, dout * (1 - share)


class Maximum(Primitive):
    def forward(self, ctx, x, y):
        return np.maximum(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        return _select_grads(dout, ops.greater(x, y), ops.equal(x, y))


class Minimum(Primitive):
    def forward(self, ctx, x, y):
        return np.minimum(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        return _select_grads(dout, ops.less(x, y), ops.equal(x, y))


class Where(Primitive):
    def forward(self, ctx, cond, x, y):
        return np.where(cond, x, y)

    def backward(self, ctx, dout):
        cond = ctx.inputs[0]
        zeros = ops.zeros_like(dout)
        return None, ops.where(cond, dout, zeros), ops.where(cond, zeros, dout)


# --- unary elementwise --------------------------------------------------------------------

class Neg(Primitive):
    def forward(self, ctx, x):
        return np.negative(x)

    def backward(self, ctx, dout):
        return (ops.neg(dout),)


class Exp(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return np.exp(x)

    def backward(self, ctx, dout):
        return (dout * ctx.out,)


class Log(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return np.log(x)

    def backward(self, ctx, dout):
        return (dout / ctx.inputs[0],)


class Log1p(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return np.log1p(x)

    def backward(self, ctx, dout):
        return (dout / (ctx.inputs[0] + 1),)


class Expm1(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        return np.expm1(x)

    def backward(self, ctx, dout):
        return (dout * (ctx.out + 1),)


class Sqrt(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return np.sqrt(x)

    def backward(self, ctx, dout):
        return (dout / (ctx.out * 2),)


class Rsqrt(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return (1 / np.sqrt(x)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        out = ctx.out
        return (dout * out * out * out * -0.5,)


class Square(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        return np.square(x)

    def backward(self, ctx, dout):
        return (dout * ctx.inputs[0] * 2,)


class Reciprocal(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        with _quiet():
            return np.reciprocal(x) if x.dtype.kind in "fc" else np.reciprocal(x.astype(np.float32))

    def backward(self, ctx, dout):
        out = ctx.out
        return (ops.neg(dout * out * out),)


class Abs(Primitive):
    """|x|; of a complex x the modulus, whose gradient is dout * x / |x| (0 at 0), as torch's."""

    def forward(self, ctx, x):
        return np.abs(x)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        if not _is_complex(x):
            return (dout * ops.sign(x),)
        r = ctx.out
        return ((dout / (r + ops.cast(r == 0, r.dtype))) * x,)


class FloorMod(Primitive):
    """x - floor(x / y) * y (the divisor's sign, Python's %): d/dx 1, d/dy -floor(x / y), as
    MindSpore 2.10's FloorMod and torch's remainder."""

    def forward(self, ctx, x, y):
        with _quiet():
            return np.mod(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        if ctx.out._data.dtype.kind != "f":  # integer remainders have no gradient
            return None, None
        return dout, ops.neg(dout * ops.floor(x / y))


class Atan2(Primitive):
    """atan2(y, x): the angle of the point (x, y), in (-pi, pi]."""

    def forward(self, ctx, y, x):
        return np.arctan2(y, x)

    def backward(self, ctx, dout):
        y, x = ctx.inputs
        scale = dout / (x * x + y * y)
        return scale * x, ops.neg(scale * y)


class Sin(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        return np.sin(x)

    def backward(self, ctx, dout):
        return (dout * ops.cos(ctx.inputs[0]),)


class Cos(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        return np.cos(x)

    def backward(self, ctx, dout):
        return (ops.neg(dout * ops.sin(ctx.inputs[0])),)


class Tanh(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        return np.tanh(x)

    def backward(self, ctx, dout):
        out = ctx.out
        return (dout * (1 - out * out),)


class Sigmoid(Primitive):
    holomorphic = True

    def forward(self, ctx, x):
        # split by sign so large |x| never overflows exp
        out = np.empty_like(x)
        pos = x >= 0
        np.divide(1, 1 + np.exp(-x, where=pos, out=np.zeros_like(x)), out=out, where=pos)
        ex = np.exp(x, where=~pos, out=np.zeros_like(x))
        np.divide(ex, 1 + ex, out=out, where=~pos)
        return out

    def backward(self, ctx, dout):
        out = ctx.out
        return (dout * out * (1 - out),)


class Relu(Primitive):
    def forward(self, ctx, x):
        return np.maximum(x, 0).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        return (dout * ops.cast(ops.greater(ctx.inputs[0], 0), dout.dtype),)


class Erf(Primitive):
    def forward(self, ctx, x):
        return _erf(x)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        return (dout * ops.exp(ops.neg(x * x)) * (2.0 / np.sqrt(np.pi)),)


def _erf(x):
    """erf at float64 accuracy; NumPy has none and SciPy is not a dependency."""
    from math import erf
    flat = x.astype(np.float64).ravel()
    out = np.fromiter(map(erf, flat), dtype=np.float64, count=flat.size)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


class Cast(Primitive):
    def __init__(self, np_dtype):
        self.np_dtype = np_dtype

    def forward(self, ctx, x):
        return x.astype(self.np_dtype, copy=False)

    def backward(self, ctx, dout):
        src = ctx.inputs[0]
        if src._data.dtype.kind != "f":
            return (None,)
        return (ops.cast(dout, src.dtype),)


class Identity(Primitive):
    def forward(self, ctx, x):
        return x

    def backward(self, ctx, dout):
        return (dout,)


class ClipByValue(Primitive):
    def forward(self, ctx, x, lo, hi):
        out = x
        if lo is not None:
            out = np.maximum(out, lo)
        if hi is not None:
            out = np.minimum(out, hi)
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        # MindSpore clips as minimum(maximum(x, lo), hi), so a value exactly on a bound gets half
        # the gradient (their tie rule; checked on 2.10); torch's clamp would give all of it
        x, lo, hi = ctx.inputs
        g = dout
        if lo is not None:
            g = g * (ops.cast(ops.greater(x, lo), dout.dtype) + ops.cast(ops.equal(x, lo), dout.dtype) * 0.5)
        if hi is not None:
            m = x if lo is None else ops.maximum(ops.stop_gradient(x), lo)
            g = g * (ops.cast(ops.less(m, hi), dout.dtype) + ops.cast(ops.equal(m, hi), dout.dtype) * 0.5)
        return g, None, None


# --- matmul -------------------------------------------------------------------------------

class MatMul(Primitive):
    holomorphic = True

    """x @ y with optional transposes of the last two axes (batched when ndim > 2)."""

    def __init__(self, transpose_a=False, transpose_b=False):
        self.transpose_a = transpose_a
        self.transpose_b = transpose_b

    def forward(self, ctx, x, y):
        if self.transpose_a:
            x = np.swapaxes(x, -1, -2)
        if self.transpose_b:
            y = np.swapaxes(y, -1, -2)
        return np.matmul(x, y)

    def backward(self, ctx, dout):
        x, y = ctx.inputs
        ta, tb = self.transpose_a, self.transpose_b
        if x.ndim == 1 or y.ndim == 1:
            return _vector_matmul_grads(x, y, dout, ta, tb)
        mm = ops.matmul_t
        if not ta:
            gx = mm(dout, y, False, not tb)
        else:
            gx = mm(y, dout, tb, True)
        if not tb:
            gy = mm(x, dout, not ta, False)
        else:
            gy = mm(dout, x, True, ta)
        return gx, gy


def _vector_matmul_grads(x, y, dout, ta, tb):
    x2 = ops.expand_dims(x, 0) if x.ndim == 1 else x
    y2 = ops.expand_dims(y, -1) if y.ndim == 1 else y
    d2 = dout  # (..., n) for a vector x, (..., m) for a vector y, () for two vectors
    if x.ndim == 1:
        d2 = ops.expand_dims(d2, d2.ndim - 1 if y.ndim > 1 else 0)
    if y.ndim == 1:
        d2 = ops.expand_dims(d2, d2.ndim)
    gx, gy = MatMul(ta, tb).backward(_Ctx((x2, y2)), d2)
    if x.ndim == 1:
        gx = ops.reshape(gx, x.shape) if gx.ndim == 2 else ops._sum(gx, axis=tuple(range(gx.ndim - 2))).reshape(x.shape)
    if y.ndim == 1:
        gy = ops.reshape(gy, y.shape) if gy.ndim == 2 else ops._sum(gy, axis=tuple(range(gy.ndim - 2))).reshape(y.shape)
    return gx, gy


class _Ctx:
    def __init__(self, inputs):
        self.inputs = inputs


# --- reductions ---------------------------------------------------------------------------

def _norm_axis(axis, ndim, prim=None):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = check_axes(type(prim).__name__ if prim is not None else "reduction", axis, ndim)
    return axes if ndim else ()  # a 0-d tensor takes axis 0 or -1, and reduces over nothing


def _expand_reduced(g, shape, axes, keep_dims):
    """Re-insert reduced axes so g broadcasts against the input."""
    if keep_dims:
        return g
    return ops.reshape(g, tuple(1 if i in axes else s for i, s in enumerate(shape)))


class ReduceSum(Primitive):
    def __init__(self, axis, keep_dims):
        self.axis = axis
        self.keep_dims = keep_dims

    def forward(self, ctx, x):
        axes = _norm_axis(self.axis, x.ndim, self)
        out = np.sum(x, axis=axes, keepdims=self.keep_dims)
        return out if x.dtype.kind != "f" else out.astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        axes = _norm_axis(self.axis, x.ndim, self)
        g = _expand_reduced(dout, x.shape, axes, self.keep_dims)
        return (ops.broadcast_to(g, x.shape),)


class ReduceMean(Primitive):
    def __init__(self, axis, keep_dims):
        self.axis = axis
        self.keep_dims = keep_dims

    def forward(self, ctx, x):
        axes = _norm_axis(self.axis, x.ndim, self)
        out = np.mean(x, axis=axes, keepdims=self.keep_dims)
        # integer means stay integer, truncated toward zero, as MindSpore 2.10's ReduceMean
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        axes = _norm_axis(self.axis, x.ndim, self)
        n = 1
        for a in axes:
            n *= x.shape[a]
        g = _expand_reduced(dout, x.shape, axes, self.keep_dims)
        return (ops.broadcast_to(g / n, x.shape),)


class ReduceExtreme(Primitive):
    """max / min over axes; the gradient is shared equally among tied extremes."""

    def __init__(self, axis, keep_dims, is_max):
        self.axis = axis
        self.keep_dims = keep_dims
        self.is_max = is_max

    def forward(self, ctx, x):
        axes = _norm_axis(self.axis, x.ndim, self)
        fn = np.max if self.is_max else np.min
        return fn(x, axis=axes, keepdims=self.keep_dims)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        axes = _norm_axis(self.axis, x.ndim, self)
        out = _expand_reduced(ctx.out, x.shape, axes, self.keep_dims)
        mask = ops.cast(ops.equal(x, out), dout.dtype)
        count = ops._sum(mask, axis=axes, keep_dims=True)
        g = _expand_reduced(dout, x.shape, axes, self.keep_dims)
        return (mask * g / count,)


class ReduceProd(Primitive):
    def __init__(self, axis, keep_dims):
        self.axis = axis
        self.keep_dims = keep_dims

    def forward(self, ctx, x):
        return np.prod(x, axis=_norm_axis(self.axis, x.ndim, self), keepdims=self.keep_dims)

    def backward(self, ctx, dout):
        # valid where x has no zeros; enough for the layers that use it
        x = ctx.inputs[0]
        axes = _norm_axis(self.axis, x.ndim, self)
        out = _expand_reduced(ctx.out, x.shape, axes, self.keep_dims)
        g = _expand_reduced(dout, x.shape, axes, self.keep_dims)
        return (g * out / x,)


class CumSum(Primitive):
    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, x):
        return np.cumsum(x, axis=self.axis, dtype=x.dtype)

    def backward(self, ctx, dout):
        return (ops.flip(ops.cumsum(ops.flip(dout, (self.axis,)), self.axis), (self.axis,)),)


# --- softmax family -----------------------------------------------------------------------

class Softmax(Primitive):
    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, x):
        e = np.exp(x - np.max(x, axis=self.axis, keepdims=True))
        return e / np.sum(e, axis=self.axis, keepdims=True)

    def backward(self, ctx, dout):
        out = ctx.out
        return (out * (dout - ops._sum(dout * out, axis=self.axis, keep_dims=True)),)


class LogSoftmax(Primitive):
    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, x):
        shifted = x - np.max(x, axis=self.axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=self.axis, keepdims=True))

    def backward(self, ctx, dout):
        return (dout - ops.exp(ctx.out) * ops._sum(dout, axis=self.axis, keep_dims=True),)


class LogSumExp(Primitive):
    def __init__(self, axis, keep_dims):
        self.axis = axis
        self.keep_dims = keep_dims

    def forward(self, ctx, x):
        axes = _norm_axis(self.axis, x.ndim, self)
        m = np.max(x, axis=axes, keepdims=True)
        out = m + np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True))
        return out if self.keep_dims else np.squeeze(out, axis=axes)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        axes = _norm_axis(self.axis, x.ndim, self)
        out = _expand_reduced(ctx.out, x.shape, axes, self.keep_dims)
        g = _expand_reduced(dout, x.shape, axes, self.keep_dims)
        return (g * ops.exp(x - out),)
