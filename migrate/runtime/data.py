"""torch.utils.data and torch.load where only run time can settle them: a DataLoader whose arguments
come at run time (``DataLoader(ds, **kwargs)``) over ``mindspore.dataset``, a DataLoader with a
``collate_fn`` (``TorchCollateLoader``), ``TensorDataset`` of tensors given with ``*``,
``pad_sequence``, a whole pickled module loaded as the parameters of the network the script
built, and ``get_worker_info``.
"""
import numpy as np

from .backend import ms, ops


def DataLoaderTorch(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                    worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                    prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                    in_order=True):
    """torch.utils.data.DataLoader's signature over ms.dataset, for arguments known at run time
    (`DataLoader(ds, **kwargs)`): GeneratorDataset(dataset, ...).batch(batch_size, drop_last);
    with a `collate_fn`, or over a map-style dataset whose samples are not tuples or lists, a
    TorchCollateLoader (torch's batches of bare samples are the stacked samples themselves).
    Worker, pinning, prefetch and generator settings change no batch values and are ignored; what
    has no MindSpore counterpart raises, naming the argument."""
    if collate_fn is not None:
        return TorchCollateLoader(dataset, batch_size, shuffle, sampler, collate_fn, drop_last)
    for name, value in (("batch_sampler", batch_sampler), ("worker_init_fn", worker_init_fn)):
        if value is not None:
            raise ValueError(f"For 'DataLoader' (torch signature), '{name}' has no MindSpore "
                             f"counterpart: batch with .batch(per_batch_map=...) or map by hand.")
    if batch_size is None:
        raise ValueError("For 'DataLoader' (torch signature), batch_size=None (no batching) has "
                         "no counterpart here: iterate the dataset itself.")
    if sampler is not None and not isinstance(sampler, _ms_samplers()):
        raise ValueError(f"For 'DataLoader' (torch signature), the sampler must be one of ms.dataset's "
                         f"(a converted DistributedSampler, RandomSampler, SequentialSampler, ...), but got "
                         f"{type(sampler).__name__}.")
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if isinstance(dataset, ms.dataset.Dataset):  # a converted TensorDataset or torchvision dataset
        if sampler is not None:
            raise ValueError("For 'DataLoader' (torch signature), a sampler over a MindSpore "
                             "dataset: pass num_shards/shard_id to the dataset itself.")
        data = dataset.shuffle(dataset.get_dataset_size()) if shuffle else dataset
    else:
        first = dataset[0] if hasattr(dataset, "__getitem__") else next(iter(dataset))
        if not isinstance(first, (tuple, list)) and hasattr(dataset, "__len__"):
            # a bare sample (a tensor, an array, a dict): torch's batch is the collated sample
            # itself, where a MindSpore dataset yields a list of columns
            return TorchCollateLoader(dataset, batch_size, shuffle, sampler, None, drop_last)
        count = len(first) if isinstance(first, (tuple, list)) else 1
        names = ["data", "label"] if count == 2 else [f"column_{i}" for i in range(count)]
        data = ms.dataset.GeneratorDataset(dataset, column_names=names, sampler=sampler,
                                           shuffle=None if sampler is not None else bool(shuffle))
    return data.batch(batch_size, drop_remainder=bool(drop_last))


def torch_get_worker_info():
    """torch.utils.data.get_worker_info() as the converted loaders run: None, torch's answer in the
    main process. DataLoaderTorch, TorchCollateLoader and the converted DataLoader read every
    sample in the process that iterates them (their worker settings change no values), so a
    dataset that shards itself by worker id reads all of its data once, as under torch with
    ``num_workers=0``."""
    return None


def _ms_samplers() -> tuple:
    """ms.dataset's sampler classes (what torch's samplers convert to), as this framework has them."""
    names = ("DistributedSampler", "RandomSampler", "SequentialSampler", "SubsetRandomSampler", "SubsetSampler",
             "WeightedRandomSampler", "PKSampler", "Sampler")
    return tuple(getattr(ms.dataset, n) for n in names if isinstance(getattr(ms.dataset, n, None), type))


def torch_load_into(net, checkpoint):
    """torch's ``net = torch.load(f)`` of a whole pickled module: a MindSpore checkpoint holds
    parameters only; they are loaded into the network the script built, which is returned."""
    missing, _ = ms.load_param_into_net(net, checkpoint)
    if missing:
        raise ValueError(f"For 'load', the checkpoint has no value for the parameters {missing}.")
    return net


class _Indices:
    """0..n-1 as a random-accessible source: the order a DataLoader reads its dataset in."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return (np.array(i, np.int64),)

    def __len__(self):
        return self.n


class TorchCollateLoader:
    """torch.utils.data.DataLoader(dataset, batch_size, shuffle, sampler, collate_fn, drop_last) over
    a map-style dataset: each batch is ``collate_fn([dataset[i] for i in indices])``, torch's
    contract (the function gets the list of samples and builds the batch, tensors padded to one
    length, dicts, anything). The order comes from an ms.dataset of indices (shuffled by
    MindSpore's generator when ``shuffle``, reshuffled every epoch; a DistributedSampler shards
    it). ``len(loader)`` and ``get_dataset_size()`` are the number of batches; ``.dataset`` is
    the dataset.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, collate_fn=None, drop_last=False):
        if not isinstance(dataset, ms.dataset.Dataset) and not (
                hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"For 'DataLoader' (torch signature), a collate_fn needs a map-style dataset "
                            f"(__getitem__ and __len__), but got {type(dataset).__name__}.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        self.dataset, self.batch_size, self.drop_last = dataset, int(batch_size), bool(drop_last)
        self.collate_fn = collate_fn if collate_fn is not None else torch_default_collate
        if isinstance(dataset, ms.dataset.Dataset):  # a converted TensorDataset: its rows, as tuples
            self._order = dataset.shuffle(dataset.get_dataset_size()) if shuffle else dataset
        else:
            self._order = ms.dataset.GeneratorDataset(_Indices(len(dataset)), ["index"], sampler=sampler,
                                                      shuffle=None if sampler is not None else bool(shuffle))

    def __len__(self):
        n = self._order.get_dataset_size()
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def get_dataset_size(self):
        return len(self)

    def _samples(self):
        if isinstance(self.dataset, ms.dataset.Dataset):
            for row in self._order.create_tuple_iterator():
                yield tuple(row)
        else:
            for (index,) in self._order.create_tuple_iterator(output_numpy=True):
                yield self.dataset[int(index)]

    def __iter__(self):
        batch = []
        for sample in self._samples():
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)


def torch_default_collate(batch):
    """torch's default_collate for what datasets usually return: tensors and arrays stacked,
    Python numbers to a tensor (bool, int64, float64 as torch makes them), tuples, lists and
    dicts collated per field."""
    first = batch[0]
    if isinstance(first, ms.Tensor):
        return ops.stack(list(batch))
    if isinstance(first, np.ndarray):
        return ms.Tensor(np.stack(batch))
    if isinstance(first, bool):
        return ms.Tensor(np.array(batch, np.bool_))
    if isinstance(first, int):
        return ms.Tensor(np.array(batch, np.int64))
    if isinstance(first, float):
        return ms.Tensor(np.array(batch, np.float64))
    if isinstance(first, dict):
        return {k: torch_default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(torch_default_collate(list(field)) for field in zip(*batch)) \
            if isinstance(first, tuple) else [torch_default_collate(list(field)) for field in zip(*batch)]
    return batch


def torch_tensor_dataset(*tensors):
    """torch.utils.data.TensorDataset(*tensors) as an ms.dataset (the tensors given with ``*``: their
    number is known at run time): the rows of every tensor, in order; two tensors are the columns
    "data" and "label", more are column_0, column_1, ...

    Raises:
        ValueError: no tensor, or tensors whose first sizes differ (torch's "Size mismatch").
    """
    arrays, names = _tensor_columns(tensors)
    return ms.dataset.NumpySlicesDataset(arrays, column_names=names, shuffle=False)


def _tensor_columns(tensors):
    """(arrays, column names) of a TensorDataset's tensors: "data" and "label" for two, else
    column_0, column_1, ...; torch's errors for none and for first sizes that differ."""
    if not tensors:
        raise ValueError("For 'TensorDataset' (torch signature), give at least one tensor.")
    if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
        raise ValueError("Size mismatch between tensors")
    names = ["data", "label"] if len(tensors) == 2 else [f"column_{i}" for i in range(len(tensors))]
    return tuple(t.asnumpy() if isinstance(t, ms.Tensor) else np.asarray(t) for t in tensors), names


class TorchTensorDataset(ms.dataset.NumpySlicesDataset):
    """torch.utils.data.TensorDataset(*tensors) where the script reads it by index or slice
    (``xb, yb = train_ds[i * bs: i * bs + bs]``): an ms.dataset (the rows of every tensor, in
    order; two tensors are the columns "data" and "label", more are column_0, ...) that a
    DataLoader batches and shuffles like any NumpySlicesDataset, and whose ``ds[index]`` is
    torch's: the tuple of every tensor indexed alike (an int gives rows, a slice or an index
    array gives batches); ``len(ds)`` the rows; ``ds.tensors`` the tensors.

    Raises:
        ValueError: no tensor, or tensors whose first sizes differ (torch's "Size mismatch").
    """

    def __init__(self, *tensors):
        arrays, names = _tensor_columns(tensors)
        super().__init__(arrays, column_names=names, shuffle=False)
        self.tensors = tuple(t if isinstance(t, ms.Tensor) else ms.Tensor(t) for t in tensors)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return int(self.tensors[0].shape[0])


def torch_pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """torch.nn.utils.rnn.pad_sequence: a list of (L_i, *) tensors padded to the longest as one
    (B, L, *) tensor (``batch_first``) or (L, B, *), ``padding_value`` after (``padding_side``
    'right') or before ('left') each sequence."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    longest = max(t.shape[0] for t in sequences)
    rows = []
    for t in sequences:
        extra = longest - t.shape[0]
        pad = (0, 0) * (t.ndim - 1) + ((0, extra) if padding_side == "right" else (extra, 0))
        rows.append(ops.pad(t, pad, value=padding_value) if extra else t)
    return ops.stack(rows, 0 if batch_first else 1)
