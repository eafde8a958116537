"""`ms_core.communication.comm_func`: collective operations on Tensors, for a world of one
process (each collective returns its input's values, as it would with one participant)."""
import numpy as np

from .._checkparam import check_tensor
from ..common.tensor import Tensor

__all__ = ["all_reduce", "all_gather_into_tensor", "broadcast", "barrier", "reduce_scatter_tensor"]

_OPS = ("sum", "prod", "max", "min")


def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduce `tensor` over the group (of one): a copy of it. Returns (Tensor, None) when
    async_op, like MindSpore 2.3+'s (output, handle)."""
    check_tensor("all_reduce", None, tensor)
    if op not in _OPS:
        raise ValueError(f"For 'all_reduce', the 'op' must be one of {list(_OPS)}, but got {op!r}.")
    out = Tensor(np.array(tensor.asnumpy()))
    return (out, None) if async_op else out


def all_gather_into_tensor(tensor, group=None, async_op=False):
    """Concatenate every rank's tensor along axis 0 (one rank: a copy)."""
    return all_reduce(tensor, "sum", group, async_op)


def reduce_scatter_tensor(tensor, op="sum", group=None, async_op=False):
    """Reduce then split along axis 0 across ranks (one rank: a copy)."""
    return all_reduce(tensor, op, group, async_op)


def broadcast(tensor, src=0, group=None):
    """Broadcast rank `src`'s tensor (one rank: a copy)."""
    if src != 0:
        raise ValueError(f"For 'broadcast', the 'src' must be 0 in a single-process world, but got "
                         f"{src}.")
    return all_reduce(tensor)


def barrier(group=None):
    """Synchronise the group (nothing to wait for)."""
    return None
