"""Generated code for torch.utils.data patterns MindSpore's datasets do not express: a DataLoader
with a ``collate_fn`` and ``pad_sequence`` (templates over the target's ``ms`` / ``ops``).

``TorchCollateLoader`` keeps torch's contract: each batch is ``collate_fn([dataset[i] for i in
indices])`` (the function gets the list of samples and builds the batch: padded tensors, dicts,
anything); the order comes from an ms.dataset of indices, shuffled by MindSpore's generator and
reshuffled every epoch, so ``ms.dataset.config.set_seed`` governs it as it governs a converted
DataLoader. ``migrate/runtime/data.py`` holds the same code for converted trees that import the
runtime.
"""
from __future__ import annotations

_INDICES = '''
class _TorchIndices:
    """0..n-1 as a random-accessible source: the order a DataLoader reads its dataset in."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        import numpy
        return (numpy.array(i, numpy.int64),)

    def __len__(self):
        return self.n
'''

_DEFAULT_COLLATE = '''
def _torch_default_collate(batch):
    """torch's default_collate for what datasets usually return: tensors and arrays stacked,
    Python numbers to a tensor (bool, int64, float64 as torch makes them), tuples, lists and
    dicts collated per field."""
    import numpy
    first = batch[0]
    if isinstance(first, ms.Tensor):
        return ops.stack(list(batch))
    if isinstance(first, numpy.ndarray):
        return ms.Tensor(numpy.stack(batch))
    if isinstance(first, bool):
        return ms.Tensor(numpy.array(batch, numpy.bool_))
    if isinstance(first, int):
        return ms.Tensor(numpy.array(batch, numpy.int64))
    if isinstance(first, float):
        return ms.Tensor(numpy.array(batch, numpy.float64))
    if isinstance(first, dict):
        return {k: _torch_default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, tuple):
        return tuple(_torch_default_collate(list(field)) for field in zip(*batch))
    if isinstance(first, list):
        return [_torch_default_collate(list(field)) for field in zip(*batch)]
    return batch
'''

_COLLATE_LOADER = '''
class TorchCollateLoader:
    """torch.utils.data.DataLoader(dataset, batch_size, shuffle, sampler, collate_fn, drop_last)
    over a map-style dataset: each batch is collate_fn([dataset[i] for i in indices]), torch's
    contract. The order comes from an ms.dataset of indices (shuffled by MindSpore's generator
    when shuffle, reshuffled every epoch; a DistributedSampler shards it). len(loader) and
    get_dataset_size() are the number of batches; .dataset is the dataset."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, collate_fn=None, drop_last=False):
        if not isinstance(dataset, ms.dataset.Dataset) and not (
                hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"For 'DataLoader' (torch signature), a collate_fn needs a map-style dataset "
                            f"(__getitem__ and __len__), but got {type(dataset).__name__}.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        self.dataset, self.batch_size, self.drop_last = dataset, int(batch_size), bool(drop_last)
        self.collate_fn = collate_fn if collate_fn is not None else _torch_default_collate
        if isinstance(dataset, ms.dataset.Dataset):  # a converted TensorDataset: its rows, as tuples
            self._order = dataset.shuffle(dataset.get_dataset_size()) if shuffle else dataset
        else:
            self._order = ms.dataset.GeneratorDataset(_TorchIndices(len(dataset)), ["index"], sampler=sampler,
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
'''

_PAD_SEQUENCE = '''
def _torch_pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """torch.nn.utils.rnn.pad_sequence: a list of (L_i, *) tensors padded to the longest as one
    (B, L, *) tensor (batch_first) or (L, B, *), padding_value after (padding_side 'right') or
    before ('left') each sequence."""
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
'''

SOURCES = {"_TorchIndices": _INDICES, "_torch_default_collate": _DEFAULT_COLLATE,
           "TorchCollateLoader": _COLLATE_LOADER, "_torch_pad_sequence": _PAD_SEQUENCE}
NEEDS = {"TorchCollateLoader": ("_TorchIndices", "_torch_default_collate")}
