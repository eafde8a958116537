"""`ms_core.communication.management`: MindSpore's collective-communication set-up
(`init`, `get_rank`, `get_group_size`, groups).

Started as one process, the world is a group of one: `get_rank()` is 0 and `get_group_size()`
is 1, and data-parallel code (sharded datasets, gradient reducers with `gradients_mean=True`)
computes exactly what it would on one device. Started by a launcher with several processes
(`python -m ms_core.launch --nproc N script.py`, or torchrun), `init()` joins them in a group
over torch.distributed's gloo backend (see `_group`), and every rank gets its own rank.
Difference from MindSpore: `get_rank` / `get_group_size` also answer before `init()` (from the
launcher's environment; MindSpore raises there), so scripts that query the rank before they
initialise still run.
"""
import atexit

from .._checkparam import check_int, check_is_str
from ..context import device_num_is_set, get_auto_parallel_context, get_context
from ._group import Gloo, SingleProcess, launch_from_env

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_local_rank", "get_group_size",
           "get_local_rank_size", "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
           "create_group", "destroy_group", "get_process_group_ranks", "HCCL_WORLD_COMM_GROUP",
           "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
DEVICE_TO_BACKEND = {"Ascend": "hccl", "GPU": "nccl", "CPU": "mccl"}  # MindSpore's init(None)
_BACKENDS = {"hccl": HCCL_WORLD_COMM_GROUP, "nccl": NCCL_WORLD_COMM_GROUP,
             "mccl": MCCL_WORLD_COMM_GROUP}


class GlobalComm:
    """The communication globals: backend, world group name and whether `init()` ran."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


_WORLD = [SingleProcess()]  # the world group: replaced by init() when a launcher started several
_GROUPS = {}  # user groups created with create_group: name -> group (its .ranks are world ranks)


def init(backend_name=None):
    """Initialise communication: here, a world of one process (rank 0).

    Args:
        backend_name (str): 'hccl', 'nccl' or 'mccl'; only names the world group. None: the
            backend of the context's device target, as MindSpore picks it (Ascend 'hccl', GPU
            'nccl', CPU 'mccl').

    Raises:
        TypeError: backend_name is not a str.
        ValueError: an unknown backend.
    """
    if backend_name is None:
        backend_name = DEVICE_TO_BACKEND[get_context("device_target")]
    check_is_str("init", "backend_name", backend_name)
    if backend_name not in _BACKENDS:
        raise ValueError(f"For 'init', the 'backend_name' must be one of {sorted(_BACKENDS)}, but "
                         f"got {backend_name!r}.")
    launch = launch_from_env()
    if launch.size > 1 and not isinstance(_WORLD[0], Gloo):
        _WORLD[0] = Gloo.world(launch)
        # a script that never calls release() must not leave gloo's threads to the interpreter's
        # teardown (which can end the process with std::terminate)
        atexit.register(release)
    GlobalComm.BACKEND = backend_name
    GlobalComm.WORLD_COMM_GROUP = _BACKENDS[backend_name]
    GlobalComm.INITED = True


def release():
    """Release communication resources: the groups and the world group (after it, the world is
    a group of one again until the next `init()`)."""
    for g in _GROUPS.values():
        g.destroy()
    _GROUPS.clear()
    _WORLD[0].destroy()
    _WORLD[0] = SingleProcess()
    GlobalComm.INITED = False


def comm_group(fn, group=None):
    """The group a collective named `fn` runs over (None or a world group's name: the world).

    Raises:
        RuntimeError: a launcher started several processes and `init()` has not joined them.
    """
    _check_group(fn, group)
    if group in _GROUPS:
        return _GROUPS[group]
    if not isinstance(_WORLD[0], Gloo):
        size = launch_from_env().size
        if size > 1:
            raise RuntimeError(f"For '{fn}', the launcher started {size} processes: call "
                               f"ms.communication.init() before any collective.")
    return _WORLD[0]


def _view(fn, group):
    """The group `group` as far as this process knows it: before init(), the launcher's word."""
    _check_group(fn, group)
    if group in _GROUPS:
        return _GROUPS[group]
    if isinstance(_WORLD[0], Gloo):
        return _WORLD[0]
    launch = launch_from_env()
    return _Declared(launch.rank, launch.size)


class _Declared:
    """The world as the launcher declared it, before init() joined it."""

    def __init__(self, rank, size):
        self.rank, self.size, self.ranks = rank, size, tuple(range(size))


def _check_group(fn, group):
    """None (the world) or the name of a backend's world group or of a created group."""
    if group is None:
        return
    check_is_str(fn, "group", group)
    if group not in _BACKENDS.values() and group not in _GROUPS:
        raise ValueError(f"For '{fn}', the group '{group}' does not exist; create it with "
                         f"create_group first.")


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank of this process in `group` (0 in a group of one)."""
    return _view("get_rank", group).rank


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank of this process on its node (the launcher's LOCAL_RANK)."""
    _check_group("get_local_rank", group)
    return launch_from_env().local_rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of processes in `group` (1 in a group of one)."""
    return _view("get_group_size", group).size


def device_num():
    """The number of devices a data-parallel step averages over, as MindSpore's _get_device_num:
    1 stand-alone, `device_num` when it was set, else the group size."""
    if get_auto_parallel_context("parallel_mode") == "stand_alone":
        return 1
    if device_num_is_set():
        return get_auto_parallel_context("device_num")
    return get_group_size()


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of processes on this node (the launcher's LOCAL_WORLD_SIZE)."""
    _check_group("get_local_rank_size", group)
    return launch_from_env().local_size


def _check_rank(fn, name, rank, size):
    """A rank id in [0, size)."""
    check_int(fn, name, rank)
    if not 0 <= rank < size:
        if size == 1:
            raise ValueError(f"For '{fn}', the '{name}' must be 0 in a single-process world, but "
                             f"got {rank}.")
        raise ValueError(f"For '{fn}', the '{name}' must be in [0, {size}), but got {rank}.")


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of rank `group_rank_id` of `group`."""
    g = _view("get_world_rank_from_group_rank", group)
    _check_rank("get_world_rank_from_group_rank", "group_rank_id", group_rank_id, g.size)
    return g.ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in `group` of world rank `world_rank_id`.

    Raises:
        ValueError: that world rank is not in the group.
    """
    g = _view("get_group_rank_from_world_rank", group)
    _check_rank("get_group_rank_from_world_rank", "world_rank_id", world_rank_id,
                get_group_size())
    if world_rank_id not in g.ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', the world rank {world_rank_id} is "
                         f"not in the group '{group}' (ranks {list(g.ranks)}).")
    return g.ranks.index(world_rank_id)


def create_group(group, rank_ids, options=None):
    """Create a group named `group` of the world ranks `rank_ids`; called by its members (in a
    group of one, its only member is rank 0).

    Raises:
        ValueError: a rank out of range, a rank given twice, or this process not among them.
    """
    check_is_str("create_group", "group", group)
    rank_ids = list(rank_ids)
    world = comm_group("create_group")
    if world.size == 1 and rank_ids != [0]:
        raise ValueError(f"For 'create_group', the 'rank_ids' must be [0] in a single-process "
                         f"world, but got {rank_ids}.")
    for r in rank_ids:
        _check_rank("create_group", "rank_ids", r, world.size)
    if len(set(rank_ids)) != len(rank_ids) or world.rank not in rank_ids:
        raise ValueError(f"For 'create_group', the 'rank_ids' must be distinct and include this "
                         f"process's rank {world.rank}, but got {rank_ids}.")
    _GROUPS[group] = world.subgroup(sorted(rank_ids))


def destroy_group(group):
    """Destroy a group made with create_group."""
    if group not in _GROUPS:
        raise ValueError(f"For 'destroy_group', the group '{group}' does not exist.")
    _GROUPS.pop(group).destroy()


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks in `group`."""
    return list(_view("get_process_group_ranks", group).ranks)
