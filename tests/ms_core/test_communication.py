"""ms_core.communication: a single-process world that behaves as a group of one."""
import numpy as np
import pytest

import ms_core as ms
import ms_core.dataset as ds
from ms_core.communication import GlobalComm, comm_func, get_group_size, get_rank, init
from ms_core.communication import management


@pytest.fixture(autouse=True)
def _reset():
    yield
    management.release()
    ms.context.reset_auto_parallel_context()


def test_the_seed_recipe_runs():
    """The MindSpore distributed set-up from the migration guide (seed 004)."""
    from ms_core.communication.management import init, get_rank, get_group_size
    init()
    group_size = get_group_size()
    rank_id = get_rank()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    assert (group_size, rank_id) == (1, 0)
    assert GlobalComm.INITED
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("gradients_mean") is True


def test_attribute_access_from_ms_core():
    assert ms.communication.get_rank() == 0
    assert ms.communication.management.get_group_size() == 1


@pytest.mark.parametrize("backend,group",
                         [(None, "mccl_world_group"), ("hccl", "hccl_world_group"), ("nccl", "nccl_world_group"),
                                           ("mccl", "mccl_world_group")])
def test_init_backends(backend, group):
    init(backend)
    assert GlobalComm.WORLD_COMM_GROUP == group
    assert get_rank(group) == 0 and get_group_size(group) == 1


def test_init_without_a_name_picks_the_backend_of_the_device_target():
    # MindSpore 2.10's init(None): Ascend -> hccl, GPU -> nccl, CPU -> mccl (management.init)
    before = ms.get_context("device_target")
    try:
        for target, backend in (("GPU", "nccl"), ("Ascend", "hccl"), ("CPU", "mccl")):
            ms.set_context(device_target=target)
            init()
            assert (GlobalComm.BACKEND, GlobalComm.WORLD_COMM_GROUP) == (backend, f"{backend}_world_group")
    finally:
        ms.set_context(device_target=before)


def test_rank_and_size_answer_before_init():
    assert not GlobalComm.INITED
    assert get_rank() == 0 and get_group_size() == 1
    assert management.get_local_rank() == 0 and management.get_local_rank_size() == 1


def test_groups():
    init()
    management.create_group("g0", [0])
    assert get_rank("g0") == 0 and management.get_process_group_ranks("g0") == [0]
    assert management.get_world_rank_from_group_rank("g0", 0) == 0
    assert management.get_group_rank_from_world_rank(0, "g0") == 0
    management.destroy_group("g0")
    with pytest.raises(ValueError, match="the group 'g0' does not exist"):
        get_rank("g0")


@pytest.mark.parametrize("call,exc,match", [
    (lambda: init("gloo"), ValueError, "'backend_name' must be one of"),
    (lambda: init(3), TypeError, "'backend_name' must be a str"),
    (lambda: management.create_group("g", [0, 1]), ValueError, "must be \\[0\\] in a single-process"),
    (lambda: management.get_world_rank_from_group_rank("hccl_world_group", 1), ValueError,
     "'group_rank_id' must be 0"),
    (lambda: get_rank(5), TypeError, "'group' must be a str"),
    (lambda: comm_func.all_reduce(np.ones(2)), TypeError, "must be a Tensor"),
    (lambda: comm_func.all_reduce(ms.Tensor(np.ones(2)), op="mean"), ValueError, "'op' must be"),
])
def test_bad_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_collectives_of_one_return_the_input():
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    for out in (comm_func.all_reduce(x), comm_func.all_gather_into_tensor(x), comm_func.broadcast(x, 0)):
        np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
        assert out.dtype == ms.float32
    out, handle = comm_func.all_reduce(x, async_op=True)
    assert handle is None
    assert comm_func.barrier() is None


def test_sharded_dataset_with_rank_and_group_size_reads_everything():
    """Data-parallel scripts shard by (group size, rank): with one rank that is the whole set."""
    init()
    data = np.arange(10, dtype=np.float32)
    d = ds.NumpySlicesDataset((data,), ["x"], shuffle=False, num_shards=get_group_size(),
                              shard_id=get_rank())
    assert [float(x[0]) for x in d] == list(data)
