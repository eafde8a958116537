"""Shape, indexing, joining and padding primitives."""
import numpy as np

from .._engine import Primitive
from .._registry import ops



class Reshape(Primitive):
    def __init__(self, shape):
        self.shape = shape

    def forward(self, ctx, x):
        return np.reshape(x, self.shape)

    def backward(self, ctx, dout):
        return (ops.reshape(dout, ctx.inputs[0].shape),)


class Transpose(Primitive):
    def __init__(self, perm):
        self.perm = tuple(perm)

    def forward(self, ctx, x):
        return np.transpose(x, self.perm)

    def backward(self, ctx, dout):
        return (ops.transpose(dout, tuple(np.argsort(self.perm).tolist())),)


class BroadcastTo(Primitive):
    repeats_elements = True  # a view of it shows one input element at several places

    def __init__(self, shape):
        self.shape = tuple(shape)

    def forward(self, ctx, x):
        return np.broadcast_to(x, self.shape)

    def backward(self, ctx, dout):
        return (dout,)  # the engine sums it back to the input's shape


class GetItem(Primitive):
    """x[index] for basic and advanced indices; backward scatters into zeros."""

    def __init__(self, index):
        self.index = index

    def forward(self, ctx, x):
        out = x[self.index]
        return out if isinstance(out, np.ndarray) else np.asarray(out)

    def backward(self, ctx, dout):
        return (ScatterIntoZeros(self.index, ctx.inputs[0].shape)(dout),)


class ScatterIntoZeros(Primitive):
    """zeros(shape) with `x` added at `index`: the adjoint of GetItem."""

    def __init__(self, index, shape):
        self.index = index
        self.shape = tuple(shape)

    def forward(self, ctx, x):
        out = np.zeros(self.shape, dtype=x.dtype)
        if _is_basic(self.index):
            out[self.index] = x
        else:
            np.add.at(out, self.index, x)
        return out

    def backward(self, ctx, dout):
        return (GetItem(self.index)(dout),)


_BASIC_ITEMS = frozenset((int, slice, type(None), type(Ellipsis)))  # not bool, a mask to NumPy


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(type(i) in _BASIC_ITEMS or isinstance(i, int) and not isinstance(i, bool) for i in items)


class SetItem(Primitive):
    """x with x[index] = value (functional)."""

    def __init__(self, index):
        self.index = index

    def forward(self, ctx, x, value):
        out = np.array(x, copy=True)
        out[self.index] = value
        return out

    def backward(self, ctx, dout):
        value = ctx.inputs[1]
        g_x = SetItem(self.index)(dout, 0)
        g_v = None
        if hasattr(value, "_data"):
            g_v = GetItem(self.index)(dout)
        return g_x, g_v


class WriteView(Primitive):
    """``base`` with the elements at flat positions ``index`` set to ``value`` (broadcast to
    ``index``'s shape): how a write into a view reaches its base (torch's CopySlices)."""

    def __init__(self, index):
        self.index = index

    def forward(self, ctx, base, value):
        out = np.array(base, copy=True, order="C")
        out.reshape(-1)[self.index] = value
        return out

    def backward(self, ctx, dout):
        g_value = None
        if hasattr(ctx.inputs[1], "_data"):
            g_value = GetItem(self.index)(Reshape((-1,))(dout))
        return WriteView(self.index)(dout, 0), g_value


class Concat(Primitive):
    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, *xs):
        return np.concatenate(xs, axis=self.axis)

    def backward(self, ctx, dout):
        axis = self.axis % dout.ndim
        grads, start = [], 0
        for x in ctx.inputs:
            n = x.shape[axis]
            index = (slice(None),) * axis + (slice(start, start + n),)
            grads.append(ops.getitem(dout, index))
            start += n
        return tuple(grads)


class Stack(Primitive):
    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, *xs):
        return np.stack(xs, axis=self.axis)

    def backward(self, ctx, dout):
        axis = self.axis % dout.ndim
        return tuple(ops.getitem(dout, (slice(None),) * axis + (i,)) for i in range(len(ctx.inputs)))


class Tile(Primitive):
    def __init__(self, reps):
        self.reps = tuple(reps)

    def forward(self, ctx, x):
        return np.tile(x, self.reps)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        reps = (1,) * (dout.ndim - len(self.reps)) + self.reps
        shape = (1,) * (dout.ndim - x.ndim) + x.shape
        split = []
        for r, s in zip(reps, shape):
            split += [r, s]
        g = ops._sum(ops.reshape(dout, tuple(split)), axis=tuple(range(0, 2 * dout.ndim, 2)))
        return (ops.reshape(g, x.shape),)


class Pad(Primitive):
    """Constant padding; `paddings` is one (before, after) pair per axis (negative crops)."""

    def __init__(self, paddings, value=0.0):
        self.paddings = tuple((int(a), int(b)) for a, b in paddings)
        self.value = value

    def forward(self, ctx, x):
        pos = tuple((max(a, 0), max(b, 0)) for a, b in self.paddings)
        out = np.pad(x, pos, mode="constant", constant_values=self.value) if any(
            a or b for a, b in pos) else x
        if any(a < 0 or b < 0 for a, b in self.paddings):
            out = out[self._crop(out.shape)]
        return out

    def _crop(self, shape):
        return tuple(slice(-min(a, 0), s + min(b, 0)) for (a, b), s in zip(self.paddings, shape))

    def backward(self, ctx, dout):
        return (Pad(tuple((-a, -b) for a, b in self.paddings))(dout),)


class Gather(Primitive):
    """Take `indices` along `axis` (embedding lookup, index_select)."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, x, indices):
        return np.take(x, indices, axis=self.axis)

    def backward(self, ctx, dout):
        x, indices = ctx.inputs
        idx = indices._data if hasattr(indices, "_data") else np.asarray(indices)
        return GatherGrad(self.axis, x.shape, idx)(dout), None


class GatherGrad(Primitive):
    def __init__(self, axis, shape, indices):
        self.axis = axis
        self.shape = tuple(shape)
        self.indices = indices

    def forward(self, ctx, dout):
        axis = self.axis % len(self.shape)
        out = np.zeros(self.shape, dtype=dout.dtype)
        moved = np.moveaxis(out, axis, 0)
        d = np.moveaxis(dout, tuple(range(axis, axis + self.indices.ndim)),
                        tuple(range(self.indices.ndim)))
        d = d.reshape((-1,) + moved.shape[1:])
        np.add.at(moved, self.indices.ravel(), d)
        return out

    def backward(self, ctx, dout):
        return (Gather(self.axis)(dout, self.indices),)


class Flip(Primitive):
    def __init__(self, dims):
        self.dims = tuple(dims)

    def forward(self, ctx, x):
        return np.flip(x, self.dims).copy()

    def backward(self, ctx, dout):
        return (Flip(self.dims)(dout),)


class Repeat(Primitive):
    """np.repeat along an axis (repeat_interleave / nearest upsampling)."""

    def __init__(self, repeats, axis):
        self.repeats = int(repeats)
        self.axis = axis

    def forward(self, ctx, x):
        return np.repeat(x, self.repeats, axis=self.axis)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        axis = self.axis % x.ndim
        shape = x.shape[:axis] + (x.shape[axis], self.repeats) + x.shape[axis + 1:]
        return (ops._sum(ops.reshape(dout, shape), axis=axis + 1),)
