"""torch.utils.data and torch.load where only run time can settle them: a DataLoader whose arguments
come at run time (``DataLoader(ds, **kwargs)``) over ``mindspore.dataset``, and a whole pickled
module loaded as the parameters of the network the script built.
"""
from .backend import ms


def DataLoaderTorch(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                    worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                    prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                    in_order=True):
    """torch.utils.data.DataLoader's signature over ms.dataset, for arguments known at run time
    (`DataLoader(ds, **kwargs)`): GeneratorDataset(dataset, ...).batch(batch_size, drop_last).
    Worker, pinning, prefetch and generator settings change no batch values and are ignored;
    what has no MindSpore counterpart raises, naming the argument."""
    for name, value in (("batch_sampler", batch_sampler), ("collate_fn", collate_fn),
                        ("worker_init_fn", worker_init_fn)):
        if value is not None:
            raise ValueError(f"For 'DataLoader' (torch signature), '{name}' has no MindSpore "
                             f"counterpart: batch with .batch(per_batch_map=...) or map by hand.")
    if batch_size is None:
        raise ValueError("For 'DataLoader' (torch signature), batch_size=None (no batching) has "
                         "no counterpart here: iterate the dataset itself.")
    if sampler is not None and not isinstance(sampler, ms.dataset.DistributedSampler):
        raise ValueError(f"For 'DataLoader' (torch signature), only a DistributedSampler maps "
                         f"(to ms.dataset.DistributedSampler), but got {type(sampler).__name__}.")
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if isinstance(dataset, ms.dataset.Dataset):  # a converted TensorDataset or torchvision dataset
        if sampler is not None:
            raise ValueError("For 'DataLoader' (torch signature), a sampler over a MindSpore "
                             "dataset: pass num_shards/shard_id to the dataset itself.")
        data = dataset.shuffle(dataset.get_dataset_size()) if shuffle else dataset
    else:
        first = dataset[0] if hasattr(dataset, "__getitem__") else next(iter(dataset))
        count = len(first) if isinstance(first, (tuple, list)) else 1
        names = ["data", "label"] if count == 2 else [f"column_{i}" for i in range(count)]
        data = ms.dataset.GeneratorDataset(dataset, column_names=names, sampler=sampler,
                                           shuffle=None if sampler is not None else bool(shuffle))
    return data.batch(batch_size, drop_remainder=bool(drop_last))


def torch_load_into(net, checkpoint):
    """torch's ``net = torch.load(f)`` of a whole pickled module: a MindSpore checkpoint holds
    parameters only; they are loaded into the network the script built, which is returned."""
    missing, _ = ms.load_param_into_net(net, checkpoint)
    if missing:
        raise ValueError(f"For 'load', the checkpoint has no value for the parameters {missing}.")
    return net
