"""`ms_core.communication`: MindSpore's distributed-communication API. Run as one process, the
world is a group of one (rank 0, group size 1); started by `python -m ms_core.launch --nproc N`
(or torchrun), `init()` joins the N processes over torch.distributed's gloo backend. See
`management` and `_group` for the details.

    from ms_core.communication import init, get_rank, get_group_size
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
"""
from . import management, comm_func  # noqa: F401
from .management import (GlobalComm, init, release, get_rank, get_local_rank,  # noqa: F401
                         get_group_size, get_local_rank_size, get_world_rank_from_group_rank,
                         get_group_rank_from_world_rank, create_group, destroy_group,
                         get_process_group_ranks, HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP,
                         MCCL_WORLD_COMM_GROUP)

__all__ = list(management.__all__)
