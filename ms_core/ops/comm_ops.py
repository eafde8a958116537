"""MindSpore's collective primitives (`ops.AllReduce`, `ops.AllGather`, `ops.ReduceScatter`,
`ops.Broadcast`, `ops.ReduceOp`) over `ms_core.communication`'s process group: a group of one
(each returns its input's values) or, under a launcher, the gloo group `init()` joined.
They are differentiable with MindSpore's backward rules (see `ms_core._prims.comm`)."""
from .._checkparam import check_is_str, check_tensor
from .._engine import apply
from .._prims import comm as P
from ..communication.management import GlobalComm
from .operations import PrimitiveOp

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast"]


class ReduceOp:
    """How AllReduce and ReduceScatter combine the ranks' values."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _check_op(name, op):
    check_is_str(name, "op", op)
    if op not in _OPS:
        raise ValueError(f"For '{name}', the 'op' must be one of {list(_OPS)}, but got {op!r}.")
    return op


class AllReduce(PrimitiveOp):
    """`ops.AllReduce(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x)`: every rank gets the
    reduction of all ranks' `x` (a new Tensor).

    Raises:
        ValueError: an unknown op; TypeError: x is not a Tensor of numbers.
    """

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        self.op = _check_op("AllReduce", op)
        check_is_str("AllReduce", "group", group)
        self.group = group

    def __call__(self, x):
        check_tensor("AllReduce", "x", x)
        return apply(P.AllReduce(self.op, self.group), x)


class AllGather(PrimitiveOp):
    """`ops.AllGather(group=GlobalComm.WORLD_COMM_GROUP)(x)`: every rank's `x` concatenated along
    axis 0, in rank order."""

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        check_is_str("AllGather", "group", group)
        self.group = group

    def __call__(self, x):
        check_tensor("AllGather", "x", x)
        return apply(P.AllGather(self.group), x)


class ReduceScatter(PrimitiveOp):
    """`ops.ReduceScatter(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x)`: the reduction
    of all ranks' `x`, split along axis 0 into group-size parts; rank k gets part k."""

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        self.op = _check_op("ReduceScatter", op)
        check_is_str("ReduceScatter", "group", group)
        self.group = group

    def __call__(self, x):
        check_tensor("ReduceScatter", "x", x)
        return apply(P.ReduceScatter(self.op, self.group), x)


class Broadcast(PrimitiveOp):
    """`ops.Broadcast(root_rank, group=GlobalComm.WORLD_COMM_GROUP)((x, ...))`: rank `root_rank`'s
    tensors, on every rank (a tuple, as MindSpore's)."""

    def __init__(self, root_rank, group=GlobalComm.WORLD_COMM_GROUP):
        if isinstance(root_rank, bool) or not isinstance(root_rank, int) or root_rank < 0:
            raise TypeError(f"For 'Broadcast', the 'root_rank' must be a non-negative int, but got "
                            f"{root_rank!r}.")
        check_is_str("Broadcast", "group", group)
        self.root_rank, self.group = root_rank, group

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(f"For 'Broadcast', the input must be a tuple of Tensors, but got "
                            f"{type(input_x).__name__}.")
        for x in input_x:
            check_tensor("Broadcast", "input_x", x)
        return tuple(apply(P.Broadcast(self.root_rank, self.group), x) for x in input_x)
