"""Primitive classes (`ops.Add()`, `ops.MatMul(transpose_a, transpose_b)`, ...) as MindSpore
exposes them: construct once with attributes, call with Tensors."""

from .. import _engine
from .._prims import array as _array_prims
from ..common.tensor import Tensor
from . import functional as F


class PrimitiveOp:
    """Base of the user-facing primitive classes."""

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


def _binary(name, fn):
    cls = type(name, (PrimitiveOp,), {"__call__": lambda self, x, y: fn(x, y),
                                       "__doc__": f"`ops.{name}()(x, y)`."})
    return cls


Add = _binary("Add", F.add)
Sub = _binary("Sub", F.sub)
Mul = _binary("Mul", F.mul)
Div = _binary("Div", F.div)
RealDiv = _binary("RealDiv", F.div)
Maximum = _binary("Maximum", F.maximum)
Minimum = _binary("Minimum", F.minimum)
Pow = _binary("Pow", F.pow)
Equal = _binary("Equal", F.equal)
Less = _binary("Less", F.less)
Greater = _binary("Greater", F.greater)


def _unary(name, fn):
    return type(name, (PrimitiveOp,), {"__call__": lambda self, x: fn(x),
                                       "__doc__": f"`ops.{name}()(x)`."})


ReLU = _unary("ReLU", F.relu)
Sigmoid = _unary("Sigmoid", F.sigmoid)
Tanh = _unary("Tanh", F.tanh)
Exp = _unary("Exp", F.exp)
Log = _unary("Log", F.log)
Sqrt = _unary("Sqrt", F.sqrt)
Square = _unary("Square", F.square)
Abs = _unary("Abs", F.abs)
Neg = _unary("Neg", F.neg)
Shape = type("Shape", (PrimitiveOp,), {"__call__": lambda self, x: x.shape})


class MatMul(PrimitiveOp):
    """`ops.MatMul(transpose_a=False, transpose_b=False)(x, y)` on 2-D Tensors."""

    def __init__(self, transpose_a=False, transpose_b=False):
        self.transpose_a = transpose_a
        self.transpose_b = transpose_b

    def __call__(self, x, y):
        if x.ndim != 2 or y.ndim != 2:
            raise ValueError(f"For 'MatMul', the inputs must be 2-D, but got shapes {list(x.shape)} "
                             f"and {list(y.shape)}; use ops.BatchMatMul or ops.matmul.")
        kx = x.shape[0] if self.transpose_a else x.shape[1]
        ky = y.shape[1] if self.transpose_b else y.shape[0]
        if kx != ky:
            raise ValueError(f"For 'MatMul', the contracted dimensions must match, but got "
                             f"{kx} and {ky} (shapes {list(x.shape)}, {list(y.shape)}, "
                             f"transpose_a={self.transpose_a}, transpose_b={self.transpose_b}).")
        return F.matmul_t(x, y, self.transpose_a, self.transpose_b)


class BatchMatMul(MatMul):
    def __call__(self, x, y):
        return F.matmul_t(x, y, self.transpose_a, self.transpose_b)


class Transpose(PrimitiveOp):
    """`ops.Transpose()(x, perm)`: permute axes by a full order."""

    def __call__(self, x, perm):
        return F.transpose(x, perm)


class Reshape(PrimitiveOp):
    def __call__(self, x, shape):
        return F.reshape(x, shape)


class ExpandDims(PrimitiveOp):
    def __call__(self, x, axis):
        return F.expand_dims(x, axis)


class Squeeze(PrimitiveOp):
    def __init__(self, axis=()):
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, self.axis if self.axis != () else None)


class _Reduce(PrimitiveOp):
    fn = None

    def __init__(self, keep_dims=False):
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For '{type(self).__name__}', the 'keep_dims' must be bool, but got "
                            f"{type(keep_dims).__name__}.")
        self.keep_dims = keep_dims

    def __call__(self, x, axis=()):
        return type(self).fn(x, None if axis == () else axis, self.keep_dims)


class ReduceSum(_Reduce):
    fn = staticmethod(F.sum)


class ReduceMean(_Reduce):
    fn = staticmethod(F.mean)


class ReduceMax(_Reduce):
    fn = staticmethod(F.amax)


class ReduceMin(_Reduce):
    fn = staticmethod(F.amin)


class Pad(PrimitiveOp):
    """`ops.Pad(paddings)`: zero padding with one (before, after) pair per axis, first axis first."""

    def __init__(self, paddings):
        if not isinstance(paddings, tuple) or not all(
                isinstance(p, tuple) and len(p) == 2 and all(isinstance(v, int) and v >= 0 for v in p)
                for p in paddings):
            raise TypeError(f"For 'Pad', the 'paddings' must be a tuple of (before, after) pairs of "
                            f"non-negative ints, but got {paddings!r}.")
        self.paddings = paddings

    def __call__(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', the 'paddings' must have one pair per axis ({x.ndim}), "
                             f"but got {len(self.paddings)}.")
        return _engine.apply(_array_prims.Pad(self.paddings), x)


class Concat(PrimitiveOp):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, tensors):
        return F.concat(tensors, self.axis)


class Stack(PrimitiveOp):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, tensors):
        return F.stack(tensors, self.axis)


class Cast(PrimitiveOp):
    def __call__(self, x, dtype):
        return F.cast(x, dtype)


class Softmax(PrimitiveOp):
    def __init__(self, axis=-1):
        self.axis = axis

    def __call__(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def __call__(self, x):
        return F.log_softmax(x, self.axis)


class OnesLike(PrimitiveOp):
    def __call__(self, x):
        return F.ones_like(x)


class ZerosLike(PrimitiveOp):
    def __call__(self, x):
        return F.zeros_like(x)


class Fill(PrimitiveOp):
    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class StopGradient(PrimitiveOp):
    def __call__(self, x):
        return F.stop_gradient(x)


class _HookIdentity(_engine.Primitive):
    def __init__(self, hook_fn):
        self.hook_fn = hook_fn

    def forward(self, ctx, x):
        return x

    def backward(self, ctx, dout):
        result = self.hook_fn((dout,))
        if result is None:
            return (dout,)
        if isinstance(result, tuple) and len(result) == 1 and isinstance(result[0], Tensor):
            return (result[0],)
        if isinstance(result, Tensor):
            return (result,)
        raise TypeError("For 'HookBackward', the hook function must return None or a tuple with "
                        f"one Tensor (the new gradient), but got {type(result).__name__}.")


class HookBackward(PrimitiveOp):
    """`ops.HookBackward(hook_fn)`: identity forward; `hook_fn(grad_tuple)` sees (and may
    replace) the gradient flowing back through this point."""

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"For 'HookBackward', the 'hook_fn' must be a function, but got "
                            f"{type(hook_fn).__name__}.")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs):
        outs = tuple(_engine.apply(_HookIdentity(self.hook_fn), x) for x in inputs)
        return outs[0] if len(outs) == 1 else outs
