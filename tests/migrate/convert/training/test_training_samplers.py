"""Samplers (issue 10 class 8, fuzz finding F8): an assignment that is read later is never deleted,
and a sampler chosen at run time stays a run-time choice (distributed-only code stays conditional).

A DistributedSampler bound once and read only as a DataLoader's ``sampler=`` (and by
``set_epoch``) is folded into the dataset (num_shards/shard_id). Any other sampler name keeps its
statements: the DistributedSampler becomes ``ms.dataset.DistributedSampler`` and the DataLoader
passes it on, shuffling only when it is None (MindSpore takes a sampler or shuffle, not both).
"""
import textwrap

from migrate import convert_source
from tests.migrate.convert.helpers import check


def test_sampler_bound_in_two_branches_is_passed_on():
    res = check("""\
        def loaders(args, train_ds):
            if args.distributed:
                sampler = torch.utils.data.distributed.DistributedSampler(train_ds)
            else:
                sampler = None
            loader = torch.utils.data.DataLoader(train_ds, batch_size=8, shuffle=(sampler is None),
                                                 sampler=sampler)
            for epoch in range(2):
                if args.distributed:
                    sampler.set_epoch(epoch)
            return loader
        """, """\
        def loaders(args, train_ds):
            if args.distributed:
                sampler = ms.dataset.DistributedSampler(num_shards=ms.communication.get_group_size(), shard_id=ms.communication.get_rank(), shuffle=True)
            else:
                sampler = None
            loader = ms.dataset.GeneratorDataset(train_ds, column_names=["data", "label"], shuffle=(sampler is None) if sampler is None else None, sampler=sampler).batch(8)
            return loader
        """)  # noqa: E501  (the if left with only the removed set_epoch's pass goes, and the loop it emptied)
    assert res.unsupported == 0
    assert convert_source(res.code).code == res.code


def test_validation_loader_is_sharded_only_when_its_sampler_is():
    got = convert_source(textwrap.dedent("""\
        import torch
        def val(args, ds):
            val_sampler = torch.utils.data.distributed.DistributedSampler(ds, shuffle=False) if args.distributed else None
            return torch.utils.data.DataLoader(ds, batch_size=8, shuffle=False, sampler=val_sampler)
        """)).code  # noqa: E501
    assert "shuffle=False if val_sampler is None else None, sampler=val_sampler" in got
    assert "num_shards=ms.communication.get_group_size()" in got.split("return")[0]  # in the sampler only
    assert "num_shards" not in got.split("return")[1]


def test_a_name_rebound_after_a_sampler_keeps_every_assignment():
    src = textwrap.dedent("""\
        import torch
        s = torch.utils.data.DistributedSampler(ds)  # one shard per rank
        s = 3
        print(s)
        """)
    res = convert_source(src)
    assert res.code == textwrap.dedent("""\
        import ms_core as ms
        s = ms.dataset.DistributedSampler(num_shards=ms.communication.get_group_size(), shard_id=ms.communication.get_rank(), shuffle=True)  # one shard per rank
        s = 3
        print(s)
        """)  # noqa: E501


def test_a_sampler_read_elsewhere_is_kept():
    got = convert_source(textwrap.dedent("""\
        import torch
        sampler = torch.utils.data.DistributedSampler(ds, shuffle=False)
        loader = torch.utils.data.DataLoader(ds, batch_size=4, sampler=sampler)
        print(len(sampler))
        """)).code
    assert "sampler = ms.dataset.DistributedSampler(" in got
    assert "sampler=sampler).batch(4)" in got and "print(len(sampler))" in got


def test_a_sampler_read_only_by_its_loader_is_folded():
    got = convert_source(textwrap.dedent("""\
        import torch
        sampler = torch.utils.data.DistributedSampler(ds, shuffle=False)
        loader = torch.utils.data.DataLoader(ds, batch_size=4, sampler=sampler)
        for epoch in range(2):
            sampler.set_epoch(epoch)
        """)).code
    assert got == textwrap.dedent("""\
        import ms_core as ms
        loader = ms.dataset.GeneratorDataset(ds, column_names=["data", "label"], num_shards=ms.communication.get_group_size(), shard_id=ms.communication.get_rank(), shuffle=False).batch(4)
        for epoch in range(2):
            pass
        """)  # noqa: E501


def test_a_kept_sampler_over_a_tensor_dataset_bound_to_a_name_is_marked():
    res = convert_source(textwrap.dedent("""\
        import torch
        data = torch.utils.data.TensorDataset(x, y)
        sampler = torch.utils.data.DistributedSampler(data) if dist else None
        loader = torch.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
        """))
    assert "# migrate: MS902" in res.code and "pass sampler= to its NumpySlicesDataset by hand" in res.code


def test_a_dataset_name_bound_in_two_functions_is_not_sharded_in_the_other():
    """The sharded TensorDataset is folded by name: a ``ds`` of another function must stay whole
    (it was sharded too, silently), and an ambiguous name keeps its sampler and marks the loader."""
    got = convert_source(textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
        def whole(x):
            ds = TensorDataset(x)
            return DataLoader(ds, batch_size=2)
        def shard(x):
            ds = TensorDataset(x)
            sampler = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False)
            return DataLoader(ds, batch_size=1, sampler=sampler)
        """)).code
    assert "num_shards" not in got.split("def whole")[1].split("def shard")[0]
    assert "sampler = ms.dataset.DistributedSampler(num_shards=2, shard_id=1, shuffle=False)" in got
    assert "# migrate: MS902" in got.split("def shard")[1]


def test_a_sampler_reading_a_loop_variable_is_not_folded_before_the_loop():
    """``for rank in ...: DistributedSampler(ds, rank=rank)`` over a TensorDataset bound before
    the loop: folding would move ``rank`` above its loop (an UnboundLocalError); the sampler stays
    and the loader is marked."""
    got = convert_source(textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
        def shards(x):
            ds = TensorDataset(x)
            for rank in range(3):
                sampler = DistributedSampler(ds, num_replicas=3, rank=rank)
                yield DataLoader(ds, batch_size=1, sampler=sampler)
        """)).code
    assert 'ds = ms.dataset.NumpySlicesDataset((x.asnumpy(),), column_names=["column_0"], shuffle=False)' in got
    assert "sampler = ms.dataset.DistributedSampler(num_shards=3, shard_id=rank, shuffle=True)" in got
    assert "# migrate: MS902" in got.split("def shards")[1]
