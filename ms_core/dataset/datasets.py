"""Dataset pipelines: sources (`GeneratorDataset`, `NumpySlicesDataset`) and the operations
(`batch`, `shuffle`, `map`, `repeat`, `take`, `skip`, `project`, `rename`, `split`) with
MindSpore's semantics, executed lazily in the calling thread on NumPy arrays.

Each dataset object is a node of a pipeline; iterating it (directly, or through
`create_tuple_iterator` / `create_dict_iterator`) runs one epoch: every random operation draws a
new order each epoch from a generator seeded by `ds.config.set_seed` (or `ms.set_seed`).
"""
import builtins
import copy
import numbers
import warnings

import numpy as np

from .._checkparam import check_dataset_range, check_dataset_type
from ..common.tensor import Tensor
from . import samplers as _samplers

__all__ = ["Dataset", "GeneratorDataset", "NumpySlicesDataset", "zip"]

_INT32_MAX = 2 ** 31 - 1


def _check_columns(columns, name):
    """MindSpore's column-name checks: a str or non-empty list of distinct non-empty strs."""
    check_dataset_type(name, columns, (list, str))
    if isinstance(columns, str):
        if not columns:
            raise ValueError(f"{name} should not be an empty str.")
        return [columns]
    if not columns:
        raise ValueError(f"{name} should not be empty.")
    for i, c in enumerate(columns):
        if not c:
            raise ValueError(f"{name}[{i}] should not be empty.")
        check_dataset_type(f"{name}[{i}]", c, (str,))
    if len(set(columns)) != len(columns):
        raise ValueError(f"Every column name should not be same with others in {name}.")
    return list(columns)


def _to_array(x, idx=None):
    """One column value as a NumPy array (what MindSpore's GeneratorDataset accepts)."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, bytes):
        return np.frombuffer(x, np.uint8)
    if isinstance(x, dict):
        where = "input data" if idx is None else f"The {idx}th item of input data"
        raise TypeError(f"{where} is expected to be int, float, str, bytes, numpy.ndarray, Tensor "
                        f"or list/tuple of them, but got dict.")
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a torch tensor left in a half-converted source
        return x.detach().cpu().numpy()
    arr = np.asarray(x)
    if arr.dtype == object:
        where = "the input" if idx is None else f"{idx}th item of the input"
        raise TypeError(f"Data type of {where} or its converted Numpy array is expected to be int "
                        f"or float or str, but got {arr.dtype}.")
    return arr


def _convert_row(row):
    """A source's item as a tuple of arrays: a single value is one column."""
    if isinstance(row, (np.ndarray, Tensor, numbers.Number, str, bytes, np.generic, dict)):
        return (_to_array(row),)
    if isinstance(row, (tuple, list)):
        return tuple(_to_array(x, i + 1) for i, x in enumerate(row))
    return (_to_array(row),)


class Dataset:
    """Base of every dataset node: the pipeline operations and the iterators.

    A pipeline is built by chaining operations, each returning a new dataset:
    `GeneratorDataset(src, ["x", "y"]).shuffle(64).map(fn, "x").batch(32, drop_remainder=True)`.
    Iterating yields one list of Tensors per row (`create_tuple_iterator`), or a dict
    column -> Tensor (`create_dict_iterator`).
    """

    def __init__(self, children=()):
        self.children = list(children)

    # --- structure ----------------------------------------------------------------------------
    def get_col_names(self):
        """The column names, in order."""
        return self.children[0].get_col_names()

    def _epoch(self):
        """Yield the rows of one epoch, each a tuple of arrays (one per column)."""
        raise NotImplementedError

    def _num_rows(self):
        """Rows per epoch, without iterating when it can be computed."""
        return self.children[0]._num_rows()

    def get_dataset_size(self):
        """The number of rows (batches after `batch`) in one epoch."""
        return self._num_rows()

    def __len__(self):
        # not in MindSpore's Dataset; handy for code written for torch's len(dataloader)
        return self.get_dataset_size()

    def get_batch_size(self):
        """The batch size of the last `batch` in the pipeline (1 without one)."""
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self):
        return self.children[0].get_repeat_count() if self.children else 1

    def _first_row(self):
        for row in self._epoch():
            return row
        raise RuntimeError("The dataset is empty: no row to infer shapes or types from.")

    def output_shapes(self):
        """The shape of each column, from the first row."""
        return [list(a.shape) for a in self._first_row()]

    def output_types(self):
        """The NumPy dtype of each column, from the first row."""
        return [a.dtype for a in self._first_row()]

    # --- operations ---------------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack `batch_size` consecutive rows into one (a new leading axis per column).

        Args:
            batch_size (int): rows per batch, >= 1.
            drop_remainder (bool): drop the last batch if it is smaller. Default False.
            num_parallel_workers (int): accepted; batching runs in the calling thread.
            per_batch_map (callable): optional `fn(*columns, batch_info)` applied to each batch.

        Raises:
            TypeError: batch_size not an int, drop_remainder not a bool.
            ValueError: batch_size out of [1, 2147483647].

        Example:
            >>> dataset = dataset.batch(32, drop_remainder=True)
        """
        if callable(batch_size) and not isinstance(batch_size, (int, bool)):
            raise NotImplementedError("A callable batch_size is not supported by ms_core.dataset.")
        if not isinstance(batch_size, int):
            raise TypeError(f"batch_size should either be an int or a callable, but got "
                            f"{type(batch_size)}.")
        check_dataset_range("batch_size", int(batch_size), 1, _INT32_MAX)
        check_dataset_type("drop_remainder", drop_remainder, (bool,))
        if num_parallel_workers is not None:
            _check_workers(num_parallel_workers)
        unknown = set(kwargs) - {"per_batch_map", "input_columns", "output_columns",
                                 "python_multiprocessing", "max_rowsize", "pad_info"}
        if unknown:
            raise TypeError(f"batch() got unexpected keyword arguments {sorted(unknown)}.")
        return BatchDataset(self, int(batch_size), drop_remainder, kwargs.get("per_batch_map"),
                            kwargs.get("input_columns"), kwargs.get("output_columns"))

    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of `buffer_size` rows (a full shuffle when it is at least
        the dataset size), reshuffled every epoch.

        Raises:
            TypeError: buffer_size is not an int.
            ValueError: buffer_size out of [2, 2147483647].
        """
        check_dataset_type("buffer_size", buffer_size, (int,))
        check_dataset_range("buffer_size", buffer_size, 2, _INT32_MAX)
        return ShuffleDataset(self, buffer_size)

    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            **kwargs):
        """Apply `operations` (a callable or list of callables, chained) to `input_columns`.

        Args:
            operations: callables taking the input columns' arrays and returning one array or a
                tuple of arrays.
            input_columns (str or list[str]): the columns fed to the first operation. Default:
                the first column.
            output_columns (str or list[str]): names of the last operation's outputs. Default:
                the input columns (their number must then match).
            num_parallel_workers (int): accepted; runs in the calling thread.

        Raises:
            TypeError: an operation is not callable; bad column arguments.
            ValueError: `column_order` (removed in MindSpore 2.0) is passed.

        Example:
            >>> dataset = dataset.map(lambda x: x / 255.0, input_columns="image")
        """
        if "column_order" in kwargs:
            raise ValueError("The parameter 'column_order' had been deleted in map operation. "
                             "Please use '.project' operation instead.")
        ops = operations if isinstance(operations, list) else [operations]
        if not ops:
            raise ValueError("Input operations should not be empty.")
        for op in ops:
            if not callable(op):
                raise TypeError(f"{op!r} is neither a transforms op (TensorOperation) nor a callable "
                                f"pyfunc.")
        if input_columns is not None:
            input_columns = _check_columns(input_columns, "input_columns")
        if output_columns is not None:
            output_columns = _check_columns(output_columns, "output_columns")
        if num_parallel_workers is not None:
            _check_workers(num_parallel_workers)
        return MapDataset(self, ops, input_columns, output_columns)

    def repeat(self, count=None):
        """Repeat the dataset `count` times (-1 or None: forever)."""
        if count is None:
            count = -1
        check_dataset_type("count", count, (int,))
        if (count <= 0 and count != -1) or count > _INT32_MAX:
            raise ValueError("count should be either -1 or positive integer, range[1, INT32_MAX].")
        return self if count == 1 else RepeatDataset(self, count)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        check_dataset_type("count", count, (int,))
        if (count <= 0 and count != -1) or count > _INT32_MAX:
            raise ValueError("count should be either -1 or within the required interval of "
                             "([1, 2147483647]).")
        return self if count == -1 else TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first `count`."""
        check_dataset_type("count", count, (int,))
        check_dataset_range("count", count, 0, _INT32_MAX)
        return SkipDataset(self, count)

    def project(self, columns):
        """Keep only `columns`, in that order."""
        columns = _check_columns(columns, "columns")
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename columns."""
        input_columns = _check_columns(input_columns, "input_columns")
        output_columns = _check_columns(output_columns, "output_columns")
        if len(input_columns) != len(output_columns):
            raise ValueError("The size of input_columns should be the same as that of "
                             "output_columns.")
        return RenameDataset(self, input_columns, output_columns)

    def concat(self, datasets):
        """This dataset's rows followed by those of `datasets` (a dataset or a list); also
        `dataset1 + dataset2`. Columns must have the same names (torch's ConcatDataset).

        Raises:
            TypeError: an element is not a Dataset.
            ValueError: the column names differ.
        """
        others = datasets if isinstance(datasets, list) else [datasets]
        return ConcatDataset([self] + others)

    def __add__(self, other):
        return self.concat(other)

    def zip(self, datasets):
        """This dataset's columns beside those of `datasets` (a dataset or a tuple of them)."""
        others = datasets if isinstance(datasets, tuple) else (datasets,)
        return zip((self,) + others)

    # --- iteration ----------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator yielding, per row, a list of Tensors (NumPy arrays with `output_numpy`).

        Args:
            columns (list[str]): the columns to output, in order. Default: all.
            num_epochs (int): epochs the iterator may run (-1: unlimited); iterating the same
                iterator object again starts the next epoch.
            output_numpy (bool): yield NumPy arrays instead of Tensors.

        Example:
            >>> for x, y in dataset.create_tuple_iterator():
            ...     loss = train_step(x, y)
        """
        return _Iterator(self, columns, num_epochs, output_numpy, as_dict=False)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator yielding, per row, a dict column name -> Tensor (or NumPy array)."""
        return _Iterator(self, None, num_epochs, output_numpy, as_dict=True)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    # --- splitting ----------------------------------------------------------------------------
    def split(self, sizes, randomize=True):
        """Split a random-accessible dataset into several (what torch's `random_split` maps to).

        Args:
            sizes (list[int] or list[float]): absolute sizes summing to the dataset size, or
                fractions in (0, 1] summing to 1 (rounded as MindSpore does, the remainder going to
                the first split).
            randomize (bool): assign rows to splits at random (seeded). Default True.

        Returns:
            list of datasets.

        Raises:
            RuntimeError: the dataset is not a random-accessible source.
            ValueError: bad sizes.
        """
        raise RuntimeError("split() is supported on a GeneratorDataset / NumpySlicesDataset with a "
                           "random-accessible source, before any other operation.")

    def __deepcopy__(self, memo):
        new = copy.copy(self)
        new.children = [copy.deepcopy(c, memo) for c in self.children]
        return new


def _check_workers(num):
    check_dataset_type("num_parallel_workers", num, (int,))
    if num < 1:
        raise ValueError("num_parallel_workers exceeds the boundary between 1 and the number of "
                         "CPUs!")


class _Iterator:
    """What `create_tuple_iterator` / `create_dict_iterator` return: `next()` gives a row;
    StopIteration ends an epoch, and the next call starts another (up to num_epochs)."""

    def __init__(self, dataset, columns, num_epochs, output_numpy, as_dict):
        check_dataset_type("num_epochs", num_epochs, (int,))
        if num_epochs < -1 or num_epochs == 0:
            raise ValueError("num_epochs should be either -1 or positive integer.")
        check_dataset_type("output_numpy", output_numpy, (bool,))
        names = dataset.get_col_names()
        if columns is not None:
            columns = _check_columns(columns, "columns")
            for c in columns:
                if c not in names:
                    raise ValueError(f"Invalid column name: '{c}' does not exist in the dataset "
                                     f"columns {names}.")
            self._select = [names.index(c) for c in columns]
            names = columns
        else:
            self._select = None
        self.dataset = dataset
        self._names = names
        self._num_epochs = num_epochs
        self._output_numpy = output_numpy
        self._as_dict = as_dict
        self._epochs_done = 0
        self._gen = None

    def __iter__(self):
        return self

    def __next__(self):
        if self._gen is None:
            if 0 < self._num_epochs <= self._epochs_done:
                raise StopIteration  # every epoch the iterator was made for has been consumed
            self._gen = self.dataset._epoch()
        try:
            row = next(self._gen)
        except StopIteration:
            self._gen = None
            self._epochs_done += 1
            raise
        if self._select is not None:
            row = tuple(row[i] for i in self._select)
        out = [a if self._output_numpy else _tensor(a) for a in row]
        return dict(builtins.zip(self._names, out)) if self._as_dict else out

    def get_col_names(self):
        return list(self._names)

    def stop(self):
        self._gen = None


def _tensor(a):
    if a.dtype.kind in "US":  # strings stay NumPy arrays (a Tensor cannot hold them)
        return a
    return Tensor(a)


# --- sources -------------------------------------------------------------------------------------
def _resolve_sampler(name, source, shuffle, sampler, num_shards, shard_id, num_samples):
    """MindSpore's rules combining shuffle / sampler / sharding into one sampler."""
    random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
    if shuffle is not None:
        check_dataset_type("shuffle", shuffle, (bool,))
    if (num_shards is None) != (shard_id is None):
        raise ValueError("num_shards and shard_id need to be passed in together.")
    if num_shards is not None:
        check_dataset_type("num_shards", num_shards, (int,))
        check_dataset_range("num_shards", num_shards, 1, _INT32_MAX)
        check_dataset_type("shard_id", shard_id, (int,))
        if shard_id >= num_shards:
            raise ValueError("shard_id should be less than num_shards.")
        check_dataset_range("shard_id", shard_id, 0, num_shards - 1)
    if num_samples is not None:
        check_dataset_type("num_samples", num_samples, (int,))
        check_dataset_range("num_samples", num_samples, 0, 2 ** 63 - 1)
    if sampler is not None:
        if shuffle is not None:
            raise RuntimeError("sampler and shuffle cannot be specified at the same time.")
        if num_shards is not None:
            raise RuntimeError("sampler and sharding cannot be specified at the same time.")
        if not random_access:
            raise ValueError("sampler is not supported if source does not have attribute "
                             "'__getitem__'.")
        return _samplers._to_sampler(sampler)
    if not random_access:
        if num_shards is not None:
            raise ValueError("num_shards is not supported if source does not have attribute "
                             "'__getitem__'.")
        if shuffle:
            # MindSpore accepts this and reads the source in order; say so instead of silently
            warnings.warn(f"For '{name}', shuffle=True has no effect on a source without "
                          f"'__getitem__' and '__len__' (a generator or iterable is read in "
                          f"order); use .shuffle(buffer_size) to shuffle it.", UserWarning,
                          stacklevel=3)
        return None
    shuffle = True if shuffle is None else shuffle
    if num_shards is not None:
        return _samplers.DistributedSampler(num_shards, shard_id, shuffle=shuffle,
                                            num_samples=num_samples)
    if shuffle:
        return _samplers.RandomSampler(num_samples=num_samples)
    return _samplers.SequentialSampler(num_samples=num_samples)


class GeneratorDataset(Dataset):
    """A dataset read from Python data, as `mindspore.dataset.GeneratorDataset`.

    `source` is one of:
      - random-accessible (`__getitem__` and `__len__`, e.g. a map-style torch-like Dataset or a
        list): rows are read by index, in the order of the sampler (shuffled by default);
      - iterable (`__iter__`), or a callable returning a generator: rows are read in order.
    Each item is a tuple of columns (NumPy arrays, Tensors, numbers); a single value is one
    column. Columns keep their NumPy dtypes (Python floats become float64, ints int64, as in
    MindSpore).

    Args:
        source: the data source (see above).
        column_names (str or list[str]): the column names; required, as in MindSpore.
        num_samples (int): rows to read (per shard). Default None: all.
        num_parallel_workers (int): accepted; rows are read in the calling thread.
        shuffle (bool): shuffle a random-accessible source (default None: True); reshuffled each
            epoch, seeded by `ds.config.set_seed` / `ms.set_seed`.
        sampler: a sampler from `ms_core.dataset` or an iterable of indices (random-accessible
            sources only; excludes shuffle and sharding).
        num_shards, shard_id (int): read only shard `shard_id` of `num_shards`: rows shard_id,
            shard_id + num_shards, ... (each shard gets ceil(n / num_shards) rows).

    Raises:
        TypeError: source is neither callable, iterable nor random-accessible; wrong arg types.
        ValueError: no column_names; num_shards without shard_id; sampler with a non-random-access
            source; ...
        RuntimeError: sampler together with shuffle or sharding; a row with a different number of
            columns than column_names (raised while iterating).

    Example:
        >>> dataset = GeneratorDataset(my_dataset, column_names=["image", "label"], shuffle=True)
        >>> dataset = dataset.batch(32)
        >>> for image, label in dataset:
        ...     ...
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=6):
        super().__init__()
        name = type(self).__name__
        if source is None:
            raise ValueError("source is not provided.")
        if not callable(source):
            try:
                iter(source)
            except TypeError:
                raise TypeError("Input `source` function of GeneratorDataset should be callable, "
                                "iterable or random accessible, commonly it should implement one "
                                "of the method like yield, __getitem__ or __next__(__iter__)."
                                ) from None
        if column_names is None and schema is None:
            raise ValueError("Neither columns_names nor schema are provided. Pass column_names, "
                             "e.g. column_names=['data', 'label'].")
        if column_names is None:
            raise NotImplementedError("ms_core.dataset does not read schemas; pass column_names.")
        self.column_names = _check_columns(column_names, "column_names")
        _check_workers(num_parallel_workers)
        if isinstance(source, builtins.zip):
            source = list(source)  # a zip is consumed by one pass; MindSpore materialises it too
        self.source = source
        self.num_samples = num_samples
        self.sampler = _resolve_sampler(name, source, shuffle, sampler, num_shards, shard_id,
                                        num_samples)
        self._indices_override = None  # set by split()
        self._count = None

    def get_col_names(self):
        return list(self.column_names)

    def get_batch_size(self):
        return 1

    def get_repeat_count(self):
        return 1

    def _base_len(self):
        if self._indices_override is not None:
            return len(self._indices_override)
        return len(self.source)

    def _row(self, i):
        return self._check_width(_convert_row(self.source[i]))

    def _check_width(self, row):
        if len(row) != len(self.column_names):
            raise RuntimeError(f"For '{type(self).__name__}', the 'source' should return the same "
                               f"number of NumPy arrays as specified in column_names, the size of "
                               f"column_names is:{len(self.column_names)} and number of returned "
                               f"NumPy array is:{len(row)}.")
        return row

    def _index_order(self):
        n = self._base_len()
        idx = self.sampler._indices(n)
        if self._indices_override is not None:
            idx = self._indices_override[idx]
        return idx

    def _epoch(self):
        if self.sampler is not None:
            for i in self._index_order():
                yield self._row(int(i))
            return
        it = self.source() if callable(self.source) and not hasattr(self.source, "__iter__") \
            else iter(self.source)
        limit = self.num_samples or None
        for k, item in enumerate(it):
            if limit is not None and k >= limit:
                break
            yield self._check_width(_convert_row(item))

    def _num_rows(self):
        if self.sampler is not None:
            return len(self.sampler._indices_static(self._base_len()))
        if hasattr(self.source, "__len__") and not callable(self.source):
            n = len(self.source)
            return min(n, self.num_samples) if self.num_samples else n
        if self._count is None:  # a generator: count by running one pass, as MindSpore does
            self._count = sum(1 for _ in self._epoch())
        return self._count

    def split(self, sizes, randomize=True):
        if self.sampler is None or not isinstance(self.sampler, (_samplers.RandomSampler,
                                                                 _samplers.SequentialSampler)):
            return super().split(sizes, randomize)
        check_dataset_type("sizes", sizes, (list,))
        check_dataset_type("randomize", randomize, (bool,))
        n = self._base_len()
        if not sizes:
            raise ValueError("sizes cannot be empty.")
        if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
            if any(s <= 0 for s in sizes):
                raise ValueError("sizes must be positive integers.")
            if sum(sizes) != n:
                raise RuntimeError(f"Sum of split sizes {sum(sizes)} is not equal to dataset size "
                                   f"{n}.")
            absolute = list(sizes)
        elif all(isinstance(s, float) for s in sizes):
            if any(s <= 0 or s > 1 for s in sizes):
                raise ValueError("Input sizes is not within the required interval of (0, 1].")
            if abs(sum(sizes) - 1) > 1e-6:
                raise ValueError(f"Sum of calculated split sizes {sum(sizes)} is not equal to 1.")
            absolute = [int(round(s * n)) for s in sizes]
            for frac, size in builtins.zip(sizes, absolute):
                if size == 0:
                    raise RuntimeError(f"Split percentage {frac} is too small.")
            diff = n - sum(absolute)
            if diff > 0:  # MindSpore's rule: a shortfall goes to the first split
                absolute[0] += diff
            elif diff < 0:  # an excess comes off the first split that keeps at least one row
                for i, size in enumerate(absolute):
                    if size + diff > 0:
                        absolute[i] += diff
                        break
        else:
            raise TypeError("sizes should be a list of int or a list of float.")
        base = np.arange(n) if self._indices_override is None else self._indices_override
        order = _samplers._new_rng().permutation(n) if randomize else np.arange(n)
        out, start = [], 0
        for size in absolute:
            part = copy.copy(self)
            part._indices_override = base[order[start:start + size]]
            part.sampler = copy.copy(self.sampler)
            part.sampler._rng = None
            part._count = None
            out.append(part)
            start += size
        return out


def _column_array(d, i):
    """One NumpySlicesDataset column as an array; ragged nested lists get a clear error."""
    if not isinstance(d, (list, tuple)):
        return _to_array(d)
    try:
        arr = np.array(d)
    except ValueError:
        arr = None
    if arr is None or arr.dtype == object:
        raise TypeError(f"For 'NumpySlicesDataset', column {i} must slice into rows of one shape "
                        f"and a numeric or str type, but its nested lists are ragged or mixed.")
    return arr


def _check_slices_column(d, where: str) -> None:
    """MindSpore takes lists and NumPy arrays as NumpySlicesDataset columns (not Tensors)."""
    if not isinstance(d, (list, np.ndarray)):
        raise TypeError(f"For 'NumpySlicesDataset', argument {where} is not of type [<class 'list'>, "
                        f"<class 'numpy.ndarray'>], but got {type(d)}; pass tensor.asnumpy().")


class _NumpySlices:
    """Rows of column arrays sliced along their first axis (the source of NumpySlicesDataset)."""

    def __init__(self, data, column_names):
        names = None
        if isinstance(data, dict):
            names = list(data.keys())
            data = tuple(np.asarray(getattr(v, "values", v)) for v in data.values())
        if isinstance(data, tuple):
            for i, d in enumerate(data):
                _check_slices_column(d, f"data[{i}]")
            self.data = tuple(_column_array(d, i) for i, d in enumerate(data))
        else:
            _check_slices_column(data, "data")
            self.data = (_column_array(data, 0),)
        for d in self.data:
            if d.ndim == 0:
                raise ValueError("NumpySlicesDataset slices data along its first dimension; got a "
                                 "0-d value.")
        lengths = [len(d) for d in self.data]
        if lengths[1:] != lengths[:-1]:
            raise ValueError("Data length in each column is not equal.")
        if column_names is None:
            column_names = names or [f"column_{i}" for i in range(len(self.data))]
        self.column_names = column_names

    def __getitem__(self, index):
        return tuple(d[index, ...] for d in self.data)

    def __len__(self):
        return len(self.data[0])


class NumpySlicesDataset(GeneratorDataset):
    """A dataset that slices in-memory data along its first axis, as
    `mindspore.dataset.NumpySlicesDataset`.

    Args:
        data (list, tuple, dict or numpy.ndarray): a list or array is one column; a tuple holds one
            array per column; a dict maps column names to arrays.
        column_names (list[str]): column names. Default: the dict's keys, else column_0,
            column_1, ...
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as in
            `GeneratorDataset` (shuffle defaults to True).

    Raises:
        ValueError: columns of different lengths; the number of names differs from the columns.

    Example:
        >>> dataset = NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(4)
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        if column_names is not None:
            column_names = _check_columns(column_names, "column_names")
        source = _NumpySlices(data, column_names)
        if len(source.column_names) != len(source.data):
            raise ValueError(f"For 'NumpySlicesDataset', the size of column_names "
                             f"{len(source.column_names)} does not match the number of data "
                             f"columns {len(source.data)}.")
        super().__init__(source, source.column_names, num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)

    def _row(self, i):
        return self.source[i]  # already arrays of the right width


# --- operations ----------------------------------------------------------------------------------
class BatchInfo:
    """What `per_batch_map` receives last: the batch and epoch numbers."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


class BatchDataset(Dataset):
    """`dataset.batch(...)`: consecutive rows stacked along a new first axis."""

    def __init__(self, child, batch_size, drop_remainder, per_batch_map=None, input_columns=None,
                 output_columns=None):
        super().__init__([child])
        self.batch_size = batch_size
        self.drop_remainder = drop_remainder
        self.per_batch_map = per_batch_map
        names = child.get_col_names()
        self.input_columns = names if input_columns is None else \
            _check_columns(input_columns, "input_columns")
        self.output_columns = None if output_columns is None else \
            _check_columns(output_columns, "output_columns")
        self._epochs = 0

    def get_col_names(self):
        names = self.children[0].get_col_names()
        if self.per_batch_map is not None and self.output_columns is not None:
            return _replace_columns(names, self.input_columns, self.output_columns)
        return names

    def get_batch_size(self):
        return self.batch_size

    def _stack(self, rows):
        cols = []
        for c in range(len(rows[0])):
            shape = rows[0][c].shape
            for r in rows:
                if r[c].shape != shape:
                    raise RuntimeError(f"Inconsistent batch shapes, batch operation expects same "
                                       f"shape for each data row, but got inconsistent shape in "
                                       f"column {c}, expected shape for this column is:"
                                       f"{list(shape)}, got shape:{list(r[c].shape)}")
            cols.append(np.stack([r[c] for r in rows]))
        return tuple(cols)

    def _epoch(self):
        rows, batch_num = [], 0
        for row in self.children[0]._epoch():
            rows.append(row)
            if len(rows) == self.batch_size:
                yield self._finish(self._stack(rows), batch_num)
                rows, batch_num = [], batch_num + 1
        if rows and not self.drop_remainder:
            yield self._finish(self._stack(rows), batch_num)
        self._epochs += 1

    def _finish(self, batch, batch_num):
        if self.per_batch_map is None:
            return batch
        names = self.children[0].get_col_names()
        pos = [names.index(c) for c in self.input_columns]
        out = self.per_batch_map(*[batch[i] for i in pos], BatchInfo(batch_num, self._epochs))
        out = out if isinstance(out, tuple) else (out,)
        out = tuple(_to_array(o) for o in out)
        return _replace_values(batch, pos, out)

    def _num_rows(self):
        n = self.children[0]._num_rows()
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)


class ShuffleDataset(Dataset):
    """`dataset.shuffle(buffer_size)`: MindSpore's buffer shuffle (each incoming row replaces a
    randomly chosen buffered row, which is emitted), a new order every epoch."""

    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = buffer_size
        self._rng = None

    def _epoch(self):
        if self._rng is None:
            self._rng = _samplers._new_rng()
        rng = self._rng
        buffer = []
        for row in self.children[0]._epoch():
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            k = int(rng.integers(len(buffer)))
            out, buffer[k] = buffer[k], row
            yield out
        for k in rng.permutation(len(buffer)):
            yield buffer[k]


def _replace_columns(names, inputs, outputs):
    """Column names after replacing `inputs` by `outputs` (at the first input's position)."""
    first = names.index(inputs[0])
    kept = [n for n in names if n not in inputs]
    insert_at = sum(1 for n in names[:first] if n not in inputs)
    return kept[:insert_at] + list(outputs) + kept[insert_at:]


def _replace_values(row, pos, values):
    if len(pos) == len(values) and pos == sorted(pos) and pos == list(range(pos[0], pos[0] + len(pos))):
        return row[:pos[0]] + tuple(values) + row[pos[0] + len(pos):]
    first = pos[0]
    kept = [v for i, v in enumerate(row) if i not in pos]
    insert_at = sum(1 for i in range(first) if i not in pos)
    return tuple(kept[:insert_at]) + tuple(values) + tuple(kept[insert_at:])


class MapDataset(Dataset):
    """`dataset.map(operations, input_columns, output_columns)`."""

    def __init__(self, child, operations, input_columns, output_columns):
        super().__init__([child])
        names = child.get_col_names()
        self.operations = operations
        self.input_columns = input_columns if input_columns is not None else names[:1]
        for c in self.input_columns:
            if c not in names:
                raise RuntimeError(f"Invalid parameter, input column name: {c} doesn't exist in the "
                                   f"dataset columns {names}.")
        self.output_columns = output_columns
        self._pos = [names.index(c) for c in self.input_columns]

    def get_col_names(self):
        names = self.children[0].get_col_names()
        if self.output_columns is None:
            return names
        return _replace_columns(names, self.input_columns, self.output_columns)

    def _epoch(self):
        n_out = None if self.output_columns is None else len(self.output_columns)
        for row in self.children[0]._epoch():
            values = tuple(row[i] for i in self._pos)
            for op in self.operations:
                out = op(*values)
                values = tuple(out) if isinstance(out, tuple) else (out,)
            values = tuple(_to_array(v) for v in values)
            expected = len(self._pos) if n_out is None else n_out
            if len(values) != expected:
                raise RuntimeError(f"For 'map', the operations returned {len(values)} columns, but "
                                   f"{expected} are expected ("
                                   f"{'output_columns' if n_out is not None else 'input_columns'}"
                                   f"={self.output_columns or self.input_columns}); pass "
                                   f"output_columns naming each output.")
            yield _replace_values(row, self._pos, values)


class ConcatDataset(Dataset):
    """`dataset.concat(...)` / `d1 + d2`: the datasets' rows one after another."""

    def __init__(self, datasets):
        for i, d in enumerate(datasets):
            if not isinstance(d, Dataset):
                raise TypeError(f"For 'concat', every element must be a Dataset, but element {i} is "
                                f"{type(d).__name__}.")
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(f"For 'concat', the column names of every dataset must be the same, "
                                 f"but got {names} and {d.get_col_names()}.")
        super().__init__(datasets)

    def _epoch(self):
        for child in self.children:
            yield from child._epoch()

    def _num_rows(self):
        return sum(child._num_rows() for child in self.children)


def zip(datasets):  # noqa: A001  (MindSpore's name: ds.zip)
    """Combine datasets column-wise, row by row, stopping at the shortest (`mindspore.dataset.zip`).

    Args:
        datasets (tuple[Dataset]): two or more datasets with distinct column names.

    Raises:
        TypeError: not a tuple of Datasets.
        ValueError: fewer than two datasets, or a column name appears twice.

    Example:
        >>> data = ds.zip((images, labels))
    """
    if not isinstance(datasets, tuple) or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError("For 'zip', the 'datasets' must be a tuple of Datasets.")
    if len(datasets) < 2:
        raise ValueError("For 'zip', at least two datasets are required.")
    return ZipDataset(list(datasets))


class ZipDataset(Dataset):
    """`ds.zip((d1, d2))` / `d1.zip(d2)`: the columns of several datasets side by side."""

    def __init__(self, datasets):
        names = [n for d in datasets for n in d.get_col_names()]
        if len(set(names)) != len(names):
            raise ValueError(f"For 'zip', the column names of the datasets must be distinct, but got "
                             f"{names}; rename them first.")
        super().__init__(datasets)
        self._names = names

    def get_col_names(self):
        return list(self._names)

    def _epoch(self):
        iters = [child._epoch() for child in self.children]
        while True:
            row = ()
            for it in iters:
                try:
                    row += tuple(next(it))
                except StopIteration:
                    return
            yield row

    def _num_rows(self):
        return min(child._num_rows() for child in self.children)


class RepeatDataset(Dataset):
    """`dataset.repeat(count)`: the child's epochs back to back (-1: forever)."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = count

    def get_repeat_count(self):
        return self.count

    def _epoch(self):
        k = 0
        while self.count == -1 or k < self.count:
            yield from self.children[0]._epoch()
            k += 1

    def _num_rows(self):
        if self.count == -1:
            raise RuntimeError("The dataset size of an infinitely repeated dataset is unknown; "
                               "repeat(count) with a positive count.")
        return self.children[0]._num_rows() * self.count


class TakeDataset(Dataset):
    """`dataset.take(count)`."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = count

    def _epoch(self):
        if self.count == 0:
            return
        for k, row in enumerate(self.children[0]._epoch()):
            yield row
            if k + 1 >= self.count:
                break

    def _num_rows(self):
        return min(self.count, self.children[0]._num_rows())


class SkipDataset(Dataset):
    """`dataset.skip(count)`."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = count

    def _epoch(self):
        for k, row in enumerate(self.children[0]._epoch()):
            if k >= self.count:
                yield row

    def _num_rows(self):
        return max(0, self.children[0]._num_rows() - self.count)


class ProjectDataset(Dataset):
    """`dataset.project(columns)`."""

    def __init__(self, child, columns):
        super().__init__([child])
        names = child.get_col_names()
        for c in columns:
            if c not in names:
                raise RuntimeError(f"Invalid parameter, column name: {c} doesn't exist in the "
                                   f"dataset columns {names}.")
        self.columns = columns
        self._pos = [names.index(c) for c in columns]

    def get_col_names(self):
        return list(self.columns)

    def _epoch(self):
        for row in self.children[0]._epoch():
            yield tuple(row[i] for i in self._pos)


class RenameDataset(Dataset):
    """`dataset.rename(input_columns, output_columns)`."""

    def __init__(self, child, inputs, outputs):
        super().__init__([child])
        names = child.get_col_names()
        for c in inputs:
            if c not in names:
                raise RuntimeError(f"Invalid parameter, column name: {c} doesn't exist in the "
                                   f"dataset columns {names}.")
        mapping = dict(builtins.zip(inputs, outputs))
        self._names = [mapping.get(n, n) for n in names]

    def get_col_names(self):
        return list(self._names)

    def _epoch(self):
        return self.children[0]._epoch()
