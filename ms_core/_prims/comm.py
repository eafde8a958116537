"""Collective primitives (MindSpore's AllReduce, AllGather, ReduceScatter, Broadcast) over the
process group of `ms_core.communication`, with MindSpore's backward rules (grad_comm_ops):
AllReduce(sum)'s gradient is the AllReduce(sum) of the output gradients (each rank's input
reaches every rank's output); AllGather's is the ReduceScatter(sum) of them; ReduceScatter's the
AllGather; Broadcast passes its gradient through."""
import numpy as np

from .._engine import Primitive
from .._registry import ops
from ..communication.management import comm_group


def _group(fn, group):
    return comm_group(fn, group)


def _owned(x):
    """A C-contiguous copy of `x` that the collective may write into (the result is a new array)."""
    return np.array(x, order="C", copy=True)


def check_comm_dtype(fn, x):
    """Collectives carry numbers: a bool or object array is refused with what to do."""
    if x.dtype == np.bool_ or x.dtype.kind not in "iufc":
        raise TypeError(f"For '{fn}', the input must be a Tensor of numbers, but got dtype {x.dtype}; "
                        f"cast it first (x.astype(ms.int32)).")


class AllReduce(Primitive):
    def __init__(self, op, group):
        self.op, self.group = op, group

    def forward(self, ctx, x):
        check_comm_dtype("AllReduce", x)
        return _group("AllReduce", self.group).all_reduce_(_owned(x), self.op)

    def backward(self, ctx, dout):
        total = AllReduce("sum", self.group)(dout)
        x, out = ctx.inputs[0], ctx.out
        if self.op == "sum":
            return (total,)
        if self.op == "prod":
            return (AllReduce("sum", self.group)(dout * out) / x,)
        return (total * ops.cast(ops.equal(x, out), total.dtype),)  # max / min: where x was chosen


class AllGather(Primitive):
    def __init__(self, group):
        self.group = group

    def forward(self, ctx, x):
        check_comm_dtype("AllGather", x)
        g = _group("AllGather", self.group)
        gathered = g.all_gather(np.ascontiguousarray(x))
        if x.ndim == 0:
            return gathered
        return gathered.reshape((g.size * x.shape[0], *x.shape[1:]))

    def backward(self, ctx, dout):
        return (ReduceScatter("sum", self.group)(dout),)


class ReduceScatter(Primitive):
    def __init__(self, op, group):
        self.op, self.group = op, group

    def forward(self, ctx, x):
        check_comm_dtype("ReduceScatter", x)
        g = _group("ReduceScatter", self.group)
        if x.ndim == 0 or x.shape[0] % g.size:
            raise ValueError(f"For 'ReduceScatter', the first dimension of the input must be "
                             f"divisible by the group size {g.size}, but got shape {list(x.shape)}.")
        return g.reduce_scatter(np.ascontiguousarray(x), self.op)

    def backward(self, ctx, dout):
        if self.op != "sum":
            raise RuntimeError("The reducescatter bprop only support ReduceOp.SUM until now.")
        return (AllGather(self.group)(dout),)


class Broadcast(Primitive):
    def __init__(self, root, group):
        self.root, self.group = root, group

    def forward(self, ctx, x):
        check_comm_dtype("Broadcast", x)
        return _group("Broadcast", self.group).broadcast_(_owned(x), self.root)

    def backward(self, ctx, dout):
        return (dout,)
