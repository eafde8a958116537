"""`ms_core.communication.comm_func`: collective operations on Tensors that return their result
(MindSpore's functional forms), over the group `init()` joined; in a group of one each returns a
copy of its input's values."""
from .._checkparam import check_is_str, check_tensor
from .._engine import apply
from .._prims import comm as P
from .management import GlobalComm, comm_group

__all__ = ["all_reduce", "all_gather_into_tensor", "broadcast", "barrier", "reduce_scatter_tensor"]

_OPS = ("sum", "prod", "max", "min")


def _check(fn, tensor, group, op="sum"):
    check_tensor(fn, None, tensor)
    check_is_str(fn, "group", group)
    if op not in _OPS:
        raise ValueError(f"For '{fn}', the 'op' must be one of {list(_OPS)}, but got {op!r}.")


def _result(out, async_op):
    """MindSpore 2.3+'s (output, handle) when async_op; the collective already finished here."""
    return (out, None) if async_op else out


def all_reduce(tensor, op="sum", group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """`tensor` reduced over the group (a new Tensor). Returns (Tensor, None) when async_op.

    Raises:
        TypeError: tensor is not a Tensor; ValueError: an unknown op.
    """
    _check("all_reduce", tensor, group, op)
    return _result(apply(P.AllReduce(op, group), tensor), async_op)


def all_gather_into_tensor(tensor, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """Every rank's tensor concatenated along axis 0, in rank order."""
    _check("all_gather_into_tensor", tensor, group)
    return _result(apply(P.AllGather(group), tensor), async_op)


def reduce_scatter_tensor(tensor, op="sum", group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """`tensor` reduced over the group, then split along axis 0: this rank's part."""
    _check("reduce_scatter_tensor", tensor, group, op)
    return _result(apply(P.ReduceScatter(op, group), tensor), async_op)


def broadcast(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """Rank `src`'s tensor, on every rank (a new Tensor).

    Raises:
        ValueError: src is not a rank of the group.
    """
    _check("broadcast", tensor, group)
    size = comm_group("broadcast", group).size
    if isinstance(src, bool) or not isinstance(src, int) or not 0 <= src < size:
        if size == 1:
            raise ValueError(f"For 'broadcast', the 'src' must be 0 in a single-process world, but "
                             f"got {src}.")
        raise ValueError(f"For 'broadcast', the 'src' must be a rank in [0, {size}), but got {src}.")
    return apply(P.Broadcast(src, group), tensor)


def barrier(group=GlobalComm.WORLD_COMM_GROUP):
    """Wait until every rank of the group reaches this call."""
    comm_group("barrier", group).barrier()
