"""`ms_core.dataset` samplers: which row indices a random-accessible dataset reads, in order.

Each sampler turns a dataset length into index arrays, one per epoch; random ones draw from a
generator seeded by `ds.config.set_seed` / `ms.set_seed` and reshuffle every epoch.
"""
import numpy as np

from .._checkparam import check_dataset_range, check_dataset_type
from .config import get_seed

__all__ = ["Sampler", "BuiltinSampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
           "SubsetSampler", "SubsetRandomSampler", "WeightedRandomSampler"]


def _new_rng():
    seed = get_seed()
    return np.random.default_rng(seed)


class BuiltinSampler:
    """Base of the built-in samplers; `num_samples` caps the number of indices per epoch."""

    def __init__(self, num_samples=None):
        if num_samples is not None:
            check_dataset_type("num_samples", num_samples, (int,))
            check_dataset_range("num_samples", num_samples, 0, 2 ** 63 - 1)
        self.num_samples = num_samples
        self._rng = None

    def _rng_get(self):
        if self._rng is None:  # seeded when first used, so ds.config.set_seed before iterating counts
            self._rng = _new_rng()
        return self._rng

    def _cap(self, n):
        return n if not self.num_samples else min(n, self.num_samples)

    def _indices(self, n):
        """The indices of one epoch for a dataset of n rows."""
        raise NotImplementedError

    def _size(self, n):
        return len(self._indices_static(n))

    def _indices_static(self, n):
        return self._indices(n)

    def is_shuffled(self):
        return False

    def is_sharded(self):
        return False

    def get_num_samples(self):
        return self.num_samples


Sampler = BuiltinSampler


class SequentialSampler(BuiltinSampler):
    """Indices start_index, start_index+1, ... in order.

    Args:
        start_index (int): the first index. Default None (0).
        num_samples (int): how many indices. Default None (all).
    """

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        if start_index is not None:
            check_dataset_type("start_index", start_index, (int,))
            check_dataset_range("start_index", start_index, 0, 2 ** 31 - 1)
        self.start_index = start_index or 0

    def _indices(self, n):
        return np.arange(self.start_index, self.start_index + self._cap(max(n - self.start_index, 0)))


class RandomSampler(BuiltinSampler):
    """A random permutation of the indices, reshuffled every epoch.

    Args:
        replacement (bool): draw with replacement. Default False.
        num_samples (int): how many indices. Default None (all).
    """

    def __init__(self, replacement=False, num_samples=None):
        super().__init__(num_samples)
        check_dataset_type("replacement", replacement, (bool,))
        self.replacement = replacement

    def _indices(self, n):
        rng = self._rng_get()
        if self.replacement:
            return rng.integers(0, n, size=self._cap(n))
        return rng.permutation(n)[:self._cap(n)]

    def _indices_static(self, n):
        return np.arange(self._cap(n))

    def is_shuffled(self):
        return True


class DistributedSampler(BuiltinSampler):
    """The rows of one shard, as MindSpore's DistributedSampler: shard k gets rows k,
    k + num_shards, k + 2*num_shards, ... of the (optionally shuffled) order; every shard gets
    ceil(n / num_shards) rows, wrapping around to the start to even them out.

    Args:
        num_shards (int): number of shards (devices).
        shard_id (int): this shard, in [0, num_shards).
        shuffle (bool): shuffle the rows (the same permutation on every shard). Default True.
        num_samples (int): cap on rows per shard. Default None.
        offset (int): starting shard of the round-robin (uneven distribution). Default -1.

    Raises:
        ValueError: shard_id out of range.
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        check_dataset_type("num_shards", num_shards, (int,))
        check_dataset_range("num_shards", num_shards, 1, 2 ** 31 - 1)
        check_dataset_type("shard_id", shard_id, (int,))
        check_dataset_range("shard_id", shard_id, 0, num_shards - 1)
        check_dataset_type("shuffle", shuffle, (bool,))
        self.num_shards, self.shard_id, self.shuffle, self.offset = num_shards, shard_id, shuffle, offset

    def _positions(self, n):
        if n == 0:
            return np.zeros(0, np.int64)
        if self.offset == -1:
            per_shard = -(-n // self.num_shards)  # ceil: shards are evened out by wrapping around
            pos = (self.num_shards * np.arange(per_shard) + self.shard_id) % n
        else:
            pos = np.arange(self.shard_id - self.offset, n, self.num_shards)
            pos = pos[pos >= 0]
        return pos[:self._cap(len(pos))]

    def _indices(self, n):
        pos = self._positions(n)
        if self.shuffle:
            pos = self._rng_get().permutation(n)[pos]
        return pos

    def _indices_static(self, n):
        return self._positions(n)

    def is_shuffled(self):
        return self.shuffle

    def is_sharded(self):
        return True


class SubsetSampler(BuiltinSampler):
    """The given indices, in the given order.

    Args:
        indices (list[int]): the indices.
        num_samples (int): how many of them. Default None (all).
    """

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        indices = list(indices.tolist() if isinstance(indices, np.ndarray) else indices)
        for i, v in enumerate(indices):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"Type of indices element must be int, but got list[{i}]: {v!r}, "
                                f"type: {type(v)}.")
        self.indices = np.asarray(indices, dtype=np.int64)

    def _indices(self, n):
        if len(self.indices) and (self.indices.max() >= n or self.indices.min() < -n):
            raise RuntimeError(f"For 'SubsetSampler', an index is out of range for a dataset of {n} "
                               f"rows: {self.indices.max()}.")
        return self.indices[:self._cap(len(self.indices))] % max(n, 1)

    def _indices_static(self, n):
        return self.indices[:self._cap(len(self.indices))]


class SubsetRandomSampler(SubsetSampler):
    """The given indices in a random order, reshuffled every epoch (torch's SubsetRandomSampler).

    Args:
        indices (list[int]): the indices.
        num_samples (int): how many of them. Default None (all).
    """

    def _indices(self, n):
        idx = super()._indices(n)
        return idx[self._rng_get().permutation(len(idx))]

    def is_shuffled(self):
        return True


class WeightedRandomSampler(BuiltinSampler):
    """`num_samples` indices drawn with probabilities proportional to `weights` (with
    replacement by default), redrawn every epoch; torch's WeightedRandomSampler maps here.

    Args:
        weights (list[float]): one non-negative weight per row, not all zero.
        num_samples (int): indices per epoch. Default None: len(weights).
        replacement (bool): draw with replacement. Default True.

    Raises:
        ValueError: empty, negative or all-zero weights; too few non-zero weights to draw without
            replacement.
    """

    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        w = np.asarray(list(weights), dtype=np.float64)
        if w.ndim != 1 or w.size == 0:
            raise ValueError("weights size should not be 0.")
        if (w < 0).any():
            raise ValueError("weights should not contain negative numbers.")
        if not w.any():
            raise ValueError("elements of weights should not be all zero.")
        check_dataset_type("replacement", replacement, (bool,))
        if not replacement and num_samples is not None and num_samples > np.count_nonzero(w):
            raise ValueError("num_samples should not be larger than the number of non-zero weights "
                             "when replacement is False.")
        self.weights, self.replacement = w, replacement

    def _indices(self, n):
        count = self.num_samples if self.num_samples else len(self.weights)
        return self._rng_get().choice(len(self.weights), size=count, replace=self.replacement,
                                      p=self.weights / self.weights.sum())

    def _indices_static(self, n):
        return np.zeros(self.num_samples if self.num_samples else len(self.weights), np.int64)

    def is_shuffled(self):
        return True


class _IterableSampler(BuiltinSampler):
    """A user iterable of indices (e.g. a list, or an object with __iter__), used as given."""

    def __init__(self, source):
        super().__init__(None)
        self.source = source

    def _indices(self, n):
        return np.asarray([int(i) for i in self.source], dtype=np.int64)

    def _indices_static(self, n):
        if hasattr(self.source, "__len__"):
            return np.zeros(len(self.source), np.int64)
        return self._indices(n)


def _to_sampler(sampler):
    if isinstance(sampler, BuiltinSampler):
        return sampler
    try:
        iter(sampler)
    except TypeError:
        raise TypeError("sampler should be either iterable or from mindspore.dataset.samplers.") \
            from None
    return _IterableSampler(sampler)
