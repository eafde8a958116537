"""The process group behind `ms_core.communication`: a group of one, or torch.distributed's gloo
backend (CPU, TCP, one or many machines) when a launcher started several processes.

A launcher says so in the environment, with torchrun's variables (`python -m ms_core.launch`
sets them, and so does `torchrun`): `WORLD_SIZE`, `RANK`, `LOCAL_RANK`, `LOCAL_WORLD_SIZE`,
`MASTER_ADDR`, `MASTER_PORT`. Without them, or with `WORLD_SIZE=1`, the world is a group of one
and torch is never imported; with more, torch is imported when `init()` builds the group.

Collectives work on NumPy arrays. An array crosses to gloo as `torch.from_numpy(arr)`, a view of
the same memory, and in-place collectives (`all_reduce_`, `broadcast_`) write into it, so a
C-contiguous, writeable buffer is never copied; the callers copy only when the result must be a
new array (MindSpore's `ops.AllReduce` returns a new Tensor).
"""
from __future__ import annotations

import datetime
import os
from dataclasses import dataclass

import numpy as np

OPS = ("sum", "max", "min", "prod")


@dataclass(frozen=True)
class Launch:
    """What the launcher's environment says about this process."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    local_size: int = 1
    addr: str | None = None
    port: int | None = None


def _env_int(environ, name: str, default: int | None = None) -> int:
    value = environ.get(name)
    if value is None or value == "":
        if default is None:
            raise RuntimeError(f"ms_core.communication: the launcher set WORLD_SIZE but not {name}; "
                               f"start the script with 'python -m ms_core.launch --nproc N script.py'.")
        return default
    try:
        return int(value)
    except ValueError:
        raise RuntimeError(f"ms_core.communication: the environment variable {name} must be an "
                           f"integer, but got {value!r}.") from None


def launch_from_env(environ=None) -> Launch:
    """The launch this process belongs to, read from torchrun's environment variables.

    Raises:
        RuntimeError: WORLD_SIZE > 1 without RANK, MASTER_ADDR or MASTER_PORT, or a rank out of range.
    """
    environ = os.environ if environ is None else environ
    size = _env_int(environ, "WORLD_SIZE", 1)
    if size <= 1:
        return Launch()
    rank = _env_int(environ, "RANK")
    if not 0 <= rank < size:
        raise RuntimeError(f"ms_core.communication: RANK must be in [0, {size}) with WORLD_SIZE={size}, "
                           f"but got {rank}.")
    addr = environ.get("MASTER_ADDR")
    if not addr:
        raise RuntimeError("ms_core.communication: the launcher set WORLD_SIZE but not MASTER_ADDR; "
                           "start the script with 'python -m ms_core.launch --nproc N script.py'.")
    return Launch(rank, size, _env_int(environ, "LOCAL_RANK", rank),
                  _env_int(environ, "LOCAL_WORLD_SIZE", size), addr, _env_int(environ, "MASTER_PORT"))


class SingleProcess:
    """The group of one: every collective leaves its buffer as it is."""

    rank, size, ranks = 0, 1, (0,)

    def all_reduce_(self, arr, op="sum"):
        return arr

    def all_gather(self, arr):
        return np.array(arr)[None]

    def broadcast_(self, arr, src=0):
        return arr

    def reduce_scatter(self, arr, op="sum"):
        return np.array(arr)

    def barrier(self):
        return None

    def subgroup(self, ranks):
        return self

    def destroy(self):
        return None


def _import_torch_distributed(size: int):
    """torch.distributed, or an error saying why it is needed and what to do."""
    try:
        import torch
        import torch.distributed as dist
    except ImportError as exc:
        raise RuntimeError(
            f"ms_core.communication: the launcher started {size} processes, and ms_core runs their "
            f"collectives on torch.distributed's gloo backend, but torch cannot be imported ({exc}). "
            "Install torch (pip install torch --index-url https://download.pytorch.org/whl/cpu), or "
            "run the script as one process.") from None
    if not dist.is_available() or not dist.is_gloo_available():
        raise RuntimeError("ms_core.communication: this torch build has no gloo backend "
                           "(torch.distributed.is_gloo_available() is False); install a build with "
                           "it, or run the script as one process.")
    return torch, dist


KEPT_VIEWS = 4  # arrays whose torch views a group keeps (see Gloo._view)


class Gloo:
    """A group of processes over torch.distributed's gloo backend; `Gloo.world(launch)` builds
    the world group, `subgroup(ranks)` a group of some of its ranks."""

    def __init__(self, torch, dist, pg, ranks, world_rank: int):
        self.torch, self.dist, self.pg = torch, dist, pg   # pg None: torch's default group
        self.ranks = tuple(ranks)
        self.world_rank = world_rank
        self.rank = self.ranks.index(world_rank)
        self.size = len(self.ranks)
        self._ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
                     "prod": dist.ReduceOp.PRODUCT}
        self._views: dict[int, tuple] = {}  # id(array) -> (array, its torch view): the last few
        self._reduce_options = {name: _allreduce_options(dist, op) for name, op in self._ops.items()}

    @classmethod
    def world(cls, launch: Launch, timeout: float = 1800.0) -> Gloo:
        """The world group of `launch` (rendezvous at MASTER_ADDR:MASTER_PORT); a process group
        torch.distributed already has is used as it is.

        Args:
            launch: the launcher's description of this process.
            timeout: seconds a collective may wait for its peers.
        """
        torch, dist = _import_torch_distributed(launch.size)
        if not dist.is_initialized():
            dist.init_process_group("gloo", init_method=f"tcp://{_host(launch.addr)}:{launch.port}",
                                    rank=launch.rank, world_size=launch.size,
                                    timeout=datetime.timedelta(seconds=timeout))
        return cls(torch, dist, None, range(dist.get_world_size()), dist.get_rank())

    def _view(self, arr):
        """The torch tensor sharing `arr`'s memory (C-contiguous, writeable: callers see to it).

        The views of the last few arrays are kept: the same buffer reduced again (a tensor
        all-reduced each step) reuses its view, and a view is never freed by gloo's thread. Its
        collective holds it until that thread is done; if it were the last holder, freeing the
        NumPy memory there would wait for the interpreter lock (~30 us a call, a tenth of a small
        all-reduce). Dropped here, later, it costs nothing.
        """
        kept = self._views.get(id(arr))
        if kept is not None and kept[0] is arr:
            return kept[1]
        view = self.torch.from_numpy(arr)
        self._views[id(arr)] = (arr, view)
        if len(self._views) > KEPT_VIEWS:
            del self._views[next(iter(self._views))]  # the oldest (its collective ended long ago)
        return view

    def all_reduce_(self, arr, op="sum"):
        """Reduce `arr` over the group, in place; returns arr.

        The process group's own allreduce is called, as torch.distributed.all_reduce calls it,
        without that function's checks and logging (~35 us a call, a tenth of a small
        all-reduce on two processes): what they look at is settled here (a CPU tensor of this
        group's members, no coalescing). Complex values go through torch's function (it
        all-reduces them as pairs of reals).
        """
        view = self._view(arr)
        pg = self.pg if self.pg is not None else self.dist.group.WORLD
        if arr.dtype.kind == "c" or pg is None or not hasattr(pg, "allreduce"):
            self.dist.all_reduce(view, op=self._ops[op], group=self.pg)
            return arr
        work = pg.allreduce([view], self._reduce_options[op])
        if work is not None:
            work.wait()
        return arr

    def all_gather(self, arr):
        """Every rank's `arr` stacked along a new first axis, in rank order."""
        out = np.empty((self.size, *arr.shape), arr.dtype)
        self.dist.all_gather(list(self._view(out).unbind(0)), self._view(arr), group=self.pg)
        return out

    def broadcast_(self, arr, src=0):
        """Rank `src`'s `arr` (a rank of this group) written into every rank's `arr`."""
        self.dist.broadcast(self._view(arr), src=self.ranks[src], group=self.pg)
        return arr

    def reduce_scatter(self, arr, op="sum"):
        """`arr` reduced over the group, then this rank's 1/size of it along axis 0."""
        part = arr.shape[0] // self.size
        out = np.empty((part, *arr.shape[1:]), arr.dtype)
        self.dist.reduce_scatter_tensor(self._view(out), self._view(arr), op=self._ops[op],
                                        group=self.pg)
        return out

    def barrier(self):
        self.dist.barrier(group=self.pg)

    def subgroup(self, ranks):
        """A group of these world ranks (only its members call this, as MindSpore's create_group)."""
        pg = self.dist.new_group(list(ranks), use_local_synchronization=True)
        return Gloo(self.torch, self.dist, pg, ranks, self.world_rank)

    def destroy(self):
        self._views.clear()
        if self.pg is not None:
            self.dist.destroy_process_group(self.pg)
        elif self.dist.is_initialized():
            self.dist.destroy_process_group()


def _allreduce_options(dist, op):
    """torch.distributed.all_reduce's options for a blocking all-reduce by ``op``."""
    options = dist.AllreduceOptions()
    options.reduceOp = op
    if hasattr(options, "asyncOp"):
        options.asyncOp = False
    return options


def _host(addr: str) -> str:
    """An address as a tcp:// URL's host (IPv6 in brackets)."""
    return f"[{addr}]" if ":" in addr and not addr.startswith("[") else addr
