"""`ms_core.communication.management`: MindSpore's collective-communication set-up
(`init`, `get_rank`, `get_group_size`, groups), implemented for a single process.

ms_core runs in one process on one device, so the world is a group of one: `get_rank()` is 0 and
`get_group_size()` is 1, and data-parallel code (sharded datasets, gradient reducers with
`gradients_mean=True`) computes exactly what it would on one device. Difference from MindSpore:
`get_rank` / `get_group_size` also answer before `init()` (MindSpore raises there), so scripts
that query the rank unconditionally still run.
"""
from .._checkparam import check_int, check_is_str
from ..context import get_context

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


_GROUPS = {}  # user groups created with create_group: name -> rank list (always [0])


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
    GlobalComm.BACKEND = backend_name
    GlobalComm.WORLD_COMM_GROUP = _BACKENDS[backend_name]
    GlobalComm.INITED = True


def release():
    """Release communication resources (marks the world as not initialised)."""
    GlobalComm.INITED = False
    _GROUPS.clear()


def _check_group(fn, group):
    """None (the world) or the name of a backend's world group or of a created group."""
    if group is None:
        return
    check_is_str(fn, "group", group)
    if group not in _BACKENDS.values() and group not in _GROUPS:
        raise ValueError(f"For '{fn}', the group '{group}' does not exist; create it with "
                         f"create_group first.")


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank of this process in `group`: always 0."""
    _check_group("get_rank", group)
    return 0


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank of this process on its node: always 0."""
    _check_group("get_local_rank", group)
    return 0


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of processes in `group`: always 1."""
    _check_group("get_group_size", group)
    return 1


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of processes on this node: always 1."""
    _check_group("get_local_rank_size", group)
    return 1


def _check_rank(fn, name, rank):
    """A rank id: 0, the only rank of a single-process world."""
    check_int(fn, name, rank)
    if rank != 0:
        raise ValueError(f"For '{fn}', the '{name}' must be 0 in a single-process world, but got "
                         f"{rank}.")


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of `group_rank_id` in `group` (0)."""
    _check_group("get_world_rank_from_group_rank", group)
    _check_rank("get_world_rank_from_group_rank", "group_rank_id", group_rank_id)
    return 0


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in `group` of world rank `world_rank_id` (0)."""
    _check_group("get_group_rank_from_world_rank", group)
    _check_rank("get_group_rank_from_world_rank", "world_rank_id", world_rank_id)
    return 0


def create_group(group, rank_ids, options=None):
    """Create a named group; in one process its only member is rank 0.

    Raises:
        ValueError: rank_ids is not [0].
    """
    check_is_str("create_group", "group", group)
    rank_ids = list(rank_ids)
    if rank_ids != [0]:
        raise ValueError(f"For 'create_group', the 'rank_ids' must be [0] in a single-process "
                         f"world, but got {rank_ids}.")
    _GROUPS[group] = rank_ids


def destroy_group(group):
    """Destroy a group made with create_group."""
    if group not in _GROUPS:
        raise ValueError(f"For 'destroy_group', the group '{group}' does not exist.")
    del _GROUPS[group]


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks in `group`: [0]."""
    _check_group("get_process_group_ranks", group)
    return [0]
