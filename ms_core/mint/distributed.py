"""`ms_core.mint.distributed`: MindSpore 2.10's torch-style collectives, over the group
`ms.communication.init()` joined (a group of one without a launcher).

They work in place, as torch.distributed's: `all_reduce(t)` leaves the reduction in `t` and
returns None (a finished work handle with `async_op=True`). A Tensor whose values are a plain
C-contiguous buffer outside any differentiated graph is reduced in that buffer, with no copy;
any other gets its result as new values. `src`/`dst` are world ranks, as in torch.

    from ms_core import mint
    mint.distributed.all_reduce(loss_sum)            # op="sum" | "max" | "min" | "prod" | "avg"
    mint.distributed.broadcast(weights, src=0)
"""
import pickle

import numpy as np

from .._checkparam import check_tensor
from ..communication import management
from ..communication.management import GlobalComm, comm_group

__all__ = ["is_available", "is_initialized", "get_rank", "get_world_size", "get_backend",
           "destroy_process_group", "new_group", "all_reduce", "all_gather",
           "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "barrier",
           "all_gather_object", "broadcast_object_list"]

_OPS = ("sum", "prod", "min", "max", "avg")


class Work:
    """The handle of a collective that has finished (gloo collectives here run to completion)."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True


def _handle(async_op):
    if not isinstance(async_op, bool):
        raise TypeError(f"The argument 'async_op' must be a bool, but got {type(async_op)}.")
    return Work() if async_op else None


def _group(fn, group):
    if group is not None and not isinstance(group, str):
        raise TypeError(f"The argument 'group' must be type of string, but got 'group' type : "
                        f"{type(group)}.")
    return comm_group(fn, group)


def _in_place(fn, tensor, collective):
    """Run `collective(array)` on `tensor`'s values in place (see the module docstring)."""
    check_tensor(fn, "tensor", tensor)
    arr = tensor._data
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iufc":
        raise TypeError(f"For '{fn}', the tensor must hold numbers, but got dtype {arr.dtype}.")
    if tensor._node is None and arr.flags.c_contiguous and arr.flags.writeable:
        collective(arr)
        return
    arr = np.array(arr, order="C", copy=True)
    collective(arr)
    tensor._data, tensor._node, tensor._index = arr, None, 0


def is_available():
    return True


def is_initialized():
    return GlobalComm.INITED


def get_rank(group=None):
    return management.get_rank(group or GlobalComm.WORLD_COMM_GROUP)


def get_world_size(group=None):
    return management.get_group_size(group or GlobalComm.WORLD_COMM_GROUP)


def get_backend(group=None):
    return GlobalComm.BACKEND


def destroy_process_group(group=None):
    """Destroy `group` (None: release every group, as torch's)."""
    if group is None:
        management.release()
    else:
        management.destroy_group(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of the world ranks `ranks` (None: all); returns its name. Called by its members."""
    world = comm_group("new_group")
    ranks = sorted(range(world.size) if ranks is None else ranks)
    name = group_desc or "group_" + "_".join(str(r) for r in ranks)
    if name not in management._GROUPS:
        management.create_group(name, ranks)
    return name


def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduce `tensor` over the group, in place.

    Raises:
        TypeError: tensor is not a Tensor of numbers, op is not one of sum, prod, min, max, avg.
    """
    if op not in _OPS:
        raise TypeError("For all_reduce, the input op value must be one of sum, prod, min, max, avg")
    g = _group("all_reduce", group)

    def reduce(arr):
        g.all_reduce_(arr, "sum" if op == "avg" else op)
        if op == "avg":
            np.divide(arr, g.size, out=arr, casting="unsafe")
    _in_place("all_reduce", tensor, reduce)
    return _handle(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor` into `tensor_list` (one Tensor per rank, in rank order)."""
    check_tensor("all_gather", "tensor", tensor)
    g = _group("all_gather", group)
    if not isinstance(tensor_list, list) or len(tensor_list) != g.size:
        raise TypeError(f"For 'all_gather', the 'tensor_list' must be a list of {g.size} Tensors, "
                        f"but got {tensor_list!r}.")
    gathered = g.all_gather(np.ascontiguousarray(tensor._data))
    for i, out in enumerate(tensor_list):
        check_tensor("all_gather", "tensor_list", out)
        out._data, out._node, out._index = gathered[i].astype(out._data.dtype, copy=False), None, 0
    return _handle(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's `input_tensor` concatenated along axis 0 into `output_tensor`."""
    check_tensor("all_gather_into_tensor", "input_tensor", input_tensor)
    g = _group("all_gather_into_tensor", group)
    src = input_tensor._data
    want = (g.size * src.shape[0], *src.shape[1:]) if src.ndim else (g.size,)
    if tuple(output_tensor.shape) != want:
        raise ValueError(f"For 'all_gather_into_tensor', the output shape must be {list(want)}, "
                         f"but got {list(output_tensor.shape)}.")
    _in_place("all_gather_into_tensor", output_tensor,
              lambda arr: arr.__setitem__(..., g.all_gather(np.ascontiguousarray(src)).reshape(want)))
    return _handle(async_op)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """`input` reduced over the group and split along axis 0: this rank's part into `output`."""
    check_tensor("reduce_scatter_tensor", "input", input)
    g = _group("reduce_scatter_tensor", group)
    if op not in _OPS[:4]:
        raise TypeError("For reduce_scatter_tensor, the input op value must be one of sum, prod, min, max")
    part = g.reduce_scatter(np.ascontiguousarray(input._data), op)
    if tuple(output.shape) != part.shape:
        raise ValueError(f"For 'reduce_scatter_tensor', the output shape must be {list(part.shape)}, "
                         f"but got {list(output.shape)}.")
    _in_place("reduce_scatter_tensor", output, lambda arr: arr.__setitem__(..., part))
    return _handle(async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """World rank `src`'s `tensor` written into every rank's `tensor`."""
    g = _group("broadcast", group)
    if src not in g.ranks:
        raise ValueError(f"For 'broadcast', the 'src' must be a rank of the group {list(g.ranks)}, "
                         f"but got {src}.")
    _in_place("broadcast", tensor, lambda arr: g.broadcast_(arr, g.ranks.index(src)))
    return _handle(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group gets here."""
    _group("barrier", group).barrier()
    return _handle(async_op)


def _object_bytes(g, obj):
    """Every rank's pickled `obj`, as byte strings in rank order (sizes first, then padded bytes)."""
    data = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = g.all_gather(np.array([data.size], np.int64))[:, 0]
    padded = np.zeros(int(sizes.max()), np.uint8)
    padded[:data.size] = data
    gathered = g.all_gather(padded)
    return [gathered[i, :sizes[i]].tobytes() for i in range(g.size)]


def all_gather_object(object_list, obj, group=None):
    """Every rank's picklable `obj` into `object_list` (a list of group-size entries), in rank order."""
    g = _group("all_gather_object", group)
    if not isinstance(object_list, list) or len(object_list) != g.size:
        raise TypeError(f"For 'all_gather_object', the 'object_list' must be a list of {g.size} "
                        f"entries, but got {object_list!r}.")
    object_list[:] = [pickle.loads(b) for b in _object_bytes(g, obj)]


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """World rank `src`'s `object_list` entries written into every rank's list (same length)."""
    g = _group("broadcast_object_list", group)
    if src not in g.ranks:
        raise ValueError(f"For 'broadcast_object_list', the 'src' must be a rank of the group "
                         f"{list(g.ranks)}, but got {src}.")
    root = g.ranks.index(src)
    data = np.frombuffer(pickle.dumps(list(object_list)), np.uint8) if g.rank == root else None
    size = np.array([0 if data is None else data.size], np.int64)
    g.broadcast_(size, root)
    buf = np.zeros(int(size[0]), np.uint8)
    if data is not None:
        buf[:] = data
    g.broadcast_(buf, root)
    object_list[:] = pickle.loads(buf.tobytes())
