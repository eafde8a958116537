"""ms_core.dataset: sources, batching, shuffling, sharding, map, sizes, iterators, errors."""
import numpy as np
import pytest
import torch

import ms_core as ms
import ms_core.dataset as ds
from ms_core.dataset import transforms


@pytest.fixture(autouse=True)
def _reset_seed():
    yield
    ds.config._CONFIG["seed"] = None


X = np.arange(20, dtype=np.float32).reshape(10, 2)
Y = np.arange(10, dtype=np.int64)


class MapStyle:
    """A torch-style map dataset returning (Tensor, int)."""

    def __init__(self, n=10):
        self.n = n

    def __getitem__(self, i):
        return ms.Tensor(X[i]), int(Y[i])

    def __len__(self):
        return self.n


def _firsts(dataset, col=0):
    return [int(np.asarray(row[col]).reshape(-1)[0]) for row in dataset.create_tuple_iterator(
        output_numpy=True)]


# --- sources ---------------------------------------------------------------------------------------
def test_numpy_slices_tuple_dict_list_and_default_names():
    d = ds.NumpySlicesDataset((X, Y), shuffle=False)
    assert d.get_col_names() == ["column_0", "column_1"]
    rows = list(d)
    assert len(rows) == 10 and isinstance(rows[0], list)
    assert isinstance(rows[0][0], ms.Tensor) and rows[0][0].dtype == ms.float32
    assert rows[0][1].dtype == ms.int64 and rows[0][1].shape == ()
    np.testing.assert_array_equal(rows[3][0].asnumpy(), X[3])
    d = ds.NumpySlicesDataset({"a": [1, 2, 3], "b": [0.5, 1.5, 2.5]}, shuffle=False)
    assert d.get_col_names() == ["a", "b"]
    assert [r["b"].dtype for r in d.create_dict_iterator()] == [ms.float64] * 3  # as MindSpore
    d = ds.NumpySlicesDataset([[1, 2], [3, 4]], column_names=["v"], shuffle=False)
    assert d.get_col_names() == ["v"] and d.output_shapes() == [[2]]


def test_generator_dataset_random_access_iterable_and_generator_function():
    d = ds.GeneratorDataset(MapStyle(), column_names=["x", "y"], shuffle=False)
    rows = list(d.create_tuple_iterator())
    assert len(rows) == 10 and rows[2][0].dtype == ms.float32 and int(rows[2][1]) == 2

    def gen():
        for i in range(7):
            yield np.array([i, i], np.int32), np.float32(i / 2)

    d = ds.GeneratorDataset(gen, ["a", "b"])
    assert d.get_dataset_size() == 7
    assert [int(r[0][0]) for r in d] == list(range(7))
    assert d.output_types() == [np.int32, np.float32]

    class Iterable:
        def __iter__(self):
            return iter([(np.ones(2),), (np.zeros(2),)])

    d = ds.GeneratorDataset(Iterable(), "v")
    assert d.get_dataset_size() == 2 and len(list(d)) == 2
    d = ds.GeneratorDataset([(np.array(0),), (np.array(1),), (np.array(2),)], ["col"], shuffle=False)
    assert _firsts(d) == [0, 1, 2]


def test_shuffle_on_a_generator_warns_and_reads_in_order():
    with pytest.warns(UserWarning, match="shuffle=True has no effect"):
        d = ds.GeneratorDataset(lambda: iter(range(5)), ["v"], shuffle=True)
    assert _firsts(d) == [0, 1, 2, 3, 4]
    ds.config.set_seed(0)
    assert sorted(_firsts(d.shuffle(5))) == [0, 1, 2, 3, 4]


def test_single_value_items_are_one_column_and_num_samples():
    d = ds.GeneratorDataset(lambda: iter(range(10)), ["v"], num_samples=4)
    assert _firsts(d) == [0, 1, 2, 3]
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=False, num_samples=3)
    assert d.get_dataset_size() == 3 and len(list(d)) == 3


# --- batch -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch_size,drop,expected", [
    (3, False, [3, 3, 3, 1]), (3, True, [3, 3, 3]), (5, True, [5, 5]), (10, False, [10]),
    (11, False, [10]), (11, True, []), (1, False, [1] * 10),
])
def test_batch_sizes_and_drop_remainder(batch_size, drop, expected):
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).batch(batch_size, drop)
    shapes = [x.shape[0] for x, _ in d]
    assert shapes == expected
    assert d.get_dataset_size() == len(expected)
    assert d.get_batch_size() == batch_size


def test_batches_equal_torch_dataloader_unshuffled():
    tds = torch.utils.data.TensorDataset(torch.tensor(X), torch.tensor(Y))
    for bs, drop in [(4, False), (4, True), (3, False)]:
        loader = torch.utils.data.DataLoader(tds, batch_size=bs, shuffle=False, drop_last=drop)
        d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).batch(bs, drop_remainder=drop)
        assert d.get_dataset_size() == len(loader)
        for (mx, my), (tx, ty) in zip(d, loader, strict=True):
            np.testing.assert_array_equal(mx.asnumpy(), tx.numpy())
            np.testing.assert_array_equal(my.asnumpy(), ty.numpy())


def test_per_batch_map():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.batch(4, per_batch_map=lambda x, y, info: (x * 0 + info.get_batch_num(), y),
                input_columns=["x", "y"])
    assert [float(x.asnumpy()[0, 0]) for x, _ in d] == [0.0, 1.0, 2.0]


# --- shuffle ---------------------------------------------------------------------------------------
def test_shuffle_is_seeded_by_dataset_config_and_reshuffles_each_epoch():
    ds.config.set_seed(5)
    a = ds.NumpySlicesDataset((X, Y), ["x", "y"])
    epoch1, epoch2 = _firsts(a, 1), _firsts(a, 1)
    assert sorted(epoch1) == list(range(10)) and epoch1 != list(range(10))
    assert epoch1 != epoch2  # a new order every epoch
    b = ds.NumpySlicesDataset((X, Y), ["x", "y"])
    assert _firsts(b, 1) == epoch1 and _firsts(b, 1) == epoch2  # same seed, same orders
    ds.config.set_seed(6)
    assert _firsts(ds.NumpySlicesDataset((X, Y), ["x", "y"]), 1) != epoch1
    assert ds.config.get_seed() == 6


def test_shuffle_is_seeded_by_ms_set_seed():
    ms.set_seed(11)
    a = _firsts(ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=True), 1)
    ms.set_seed(11)
    b = _firsts(ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=True), 1)
    assert a == b and sorted(a) == list(range(10))


def test_seed_precedence_last_call_wins():
    ds.config.set_seed(3)
    assert ds.config.get_seed() == 3
    ms.set_seed(4)  # MindSpore's set_seed sets the dataset seed too
    assert ds.config.get_seed() == 4
    ds.config.set_seed(5)
    assert ds.config.get_seed() == 5
    ms.set_seed(5)
    ds.config.set_seed(7)
    ms.set_seed(5)  # the same value again still wins, being later
    assert ds.config.get_seed() == 5


def test_default_seed_is_reproducible():
    import ms_core._random as r
    saved = r._SEED[0]
    r._SEED[0] = None
    try:
        assert ds.config.get_seed() == 5489
        a = _firsts(ds.NumpySlicesDataset((X, Y), ["x", "y"]), 1)
        b = _firsts(ds.NumpySlicesDataset((X, Y), ["x", "y"]), 1)
        assert a == b != list(range(10))
    finally:
        r._SEED[0] = saved


def test_shuffle_false_keeps_order_and_none_means_shuffle():
    assert _firsts(ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=False), 1) == list(range(10))
    ds.config.set_seed(0)
    assert _firsts(ds.GeneratorDataset(MapStyle(), ["x", "y"]), 1) != list(range(10))


@pytest.mark.parametrize("buffer_size", [2, 4, 10, 100])
def test_buffer_shuffle_is_a_seeded_permutation(buffer_size):
    ds.config.set_seed(1)
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).shuffle(buffer_size)
    order = _firsts(d, 1)
    assert sorted(order) == list(range(10)) and order != list(range(10))
    ds.config.set_seed(1)
    d2 = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).shuffle(buffer_size)
    assert _firsts(d2, 1) == order
    assert d.get_dataset_size() == 10


def test_shuffle_then_batch_keeps_rows_together():
    ds.config.set_seed(2)
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"]).batch(3)
    for x, y in d:
        np.testing.assert_array_equal(x.asnumpy(), X[y.asnumpy()])


# --- sharding --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,num_shards", [(10, 2), (10, 3), (7, 3), (4, 4), (3, 5)])
def test_sharding_takes_every_num_shards_th_sample(n, num_shards):
    per_shard = -(-n // num_shards)
    seen = []
    for shard_id in range(num_shards):
        d = ds.GeneratorDataset(MapStyle(n), ["x", "y"], num_shards=num_shards, shard_id=shard_id,
                                shuffle=False)
        got = _firsts(d, 1)
        assert got == [(shard_id + k * num_shards) % n for k in range(per_shard)]
        assert d.get_dataset_size() == per_shard
        seen += got
    assert set(seen) == set(range(n))


def test_sharding_with_shuffle_partitions_one_permutation():
    got = []
    for shard_id in range(2):
        ds.config.set_seed(3)
        got.append(_firsts(ds.NumpySlicesDataset((X, Y), ["x", "y"], num_shards=2,
                                                 shard_id=shard_id), 1))
    assert sorted(got[0] + got[1]) == list(range(10))


def test_distributed_sampler_matches_sharding_arguments():
    s = ds.DistributedSampler(num_shards=3, shard_id=2, shuffle=False)
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], sampler=s)
    assert _firsts(d, 1) == [2, 5, 8, 1]


# --- samplers --------------------------------------------------------------------------------------
def test_samplers():
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], sampler=ds.SequentialSampler(2, 3))
    assert _firsts(d, 1) == [2, 3, 4]
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], sampler=ds.SubsetSampler([7, 1, 4]))
    assert _firsts(d, 1) == [7, 1, 4] and d.get_dataset_size() == 3
    ds.config.set_seed(0)
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], sampler=ds.SubsetRandomSampler([7, 1, 4, 5]))
    assert sorted(_firsts(d, 1)) == [1, 4, 5, 7]
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], sampler=[9, 0, 9])  # any iterable of indices
    assert _firsts(d, 1) == [9, 0, 9]
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], sampler=ds.RandomSampler(num_samples=4))
    assert len(set(_firsts(d, 1))) == 4 and d.get_dataset_size() == 4


def test_weighted_random_sampler():
    ds.config.set_seed(0)
    s = ds.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=200)
    d = ds.GeneratorDataset(MapStyle(4), ["x", "y"], sampler=s)
    got = _firsts(d, 1)
    assert set(got) == {1, 3} and 0.6 < got.count(3) / 200 < 0.9
    assert d.get_dataset_size() == 200
    with pytest.raises(ValueError, match="all zero"):
        ds.WeightedRandomSampler([0, 0])


@pytest.mark.parametrize("n,replicas", [(10, 2), (10, 3), (7, 4), (3, 5), (8, 4)])
def test_sharding_equals_torch_distributed_sampler_unshuffled(n, replicas):
    """torch's DistributedSampler(shuffle=False) pads by wrapping and strides by rank: the same
    rows as MindSpore's num_shards/shard_id."""
    for rank in range(replicas):
        t = list(torch.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank,
                                                     shuffle=False))
        d = ds.GeneratorDataset(MapStyle(n), ["x", "y"], num_shards=replicas, shard_id=rank,
                                shuffle=False)
        assert _firsts(d, 1) == t


# --- map -------------------------------------------------------------------------------------------
def test_map_one_column_and_typecast():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.map(lambda x: x * 2, input_columns="x")
    d = d.map(transforms.TypeCast(ms.int32), input_columns=["y"])
    x, y = next(iter(d))
    np.testing.assert_array_equal(x.asnumpy(), X[0] * 2)
    assert y.dtype == ms.int32 and x.dtype == ms.float32


def test_map_default_column_chain_and_multiple_outputs():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.map([lambda x: x + 1, lambda x: x * 10])  # default: the first column
    assert float(next(iter(d))[0].asnumpy()[0]) == 10.0
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.map(lambda x: (x[:1], x[1:]), input_columns="x", output_columns=["x0", "x1"])
    assert d.get_col_names() == ["x0", "x1", "y"]
    row = next(iter(d.create_dict_iterator(output_numpy=True)))
    assert row["x0"].tolist() == [0.0] and row["x1"].tolist() == [1.0] and row["y"] == 0
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.map(lambda x, y: (x + y, y), input_columns=["x", "y"]).batch(5)
    x, y = next(iter(d))
    np.testing.assert_array_equal(x.asnumpy(), X[:5] + Y[:5, None])


def test_map_list_result_is_one_column_tuple_is_several():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).map(lambda y: [y, y, y], "y")
    assert next(iter(d.create_tuple_iterator(output_numpy=True)))[1].tolist() == [0, 0, 0]


def test_half_converted_source_returning_torch_tensors():
    class TorchStyle:
        def __getitem__(self, i):
            return torch.tensor(X[i]), torch.tensor(Y[i])

        def __len__(self):
            return 10

    x, y = next(iter(ds.GeneratorDataset(TorchStyle(), ["x", "y"], shuffle=False).batch(4)))
    assert x.dtype == ms.float32 and x.shape == (4, 2) and y.dtype == ms.int64


def test_map_then_project_rename_compose():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.map(transforms.Compose([lambda x: x - 1, transforms.TypeCast(ms.float16)]), "x")
    d = d.project(["y", "x"]).rename(["y"], ["label"])
    assert d.get_col_names() == ["label", "x"]
    label, x = next(iter(d))
    assert x.dtype == ms.float16 and int(label) == 0


def test_one_hot():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    d = d.map(transforms.OneHot(10), "y").batch(2)
    _, y = next(iter(d))
    np.testing.assert_array_equal(y.asnumpy(), np.eye(10, dtype=np.int64)[:2])


# --- sizes and other operations --------------------------------------------------------------------
def test_repeat_take_skip_sizes():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    assert d.repeat(3).get_dataset_size() == 30 and len(list(d.repeat(3))) == 30
    assert d.batch(4).repeat(2).get_dataset_size() == 6
    assert d.take(4).get_dataset_size() == 4 and _firsts(d.take(4), 1) == [0, 1, 2, 3]
    assert d.skip(7).get_dataset_size() == 3 and _firsts(d.skip(7), 1) == [7, 8, 9]
    assert d.skip(20).get_dataset_size() == 0
    assert d.repeat(2).get_repeat_count() == 2
    assert len(d.batch(3)) == 4


def test_split_random_and_sequential():
    ds.config.set_seed(0)
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)
    a, b = d.split([0.8, 0.2])
    assert a.get_dataset_size() == 8 and b.get_dataset_size() == 2
    ya, yb = _firsts(a, 1), _firsts(b, 1)
    assert sorted(ya + yb) == list(range(10))
    a, b = d.split([3, 7], randomize=False)
    assert _firsts(a, 1) == [0, 1, 2] and _firsts(b, 1) == list(range(3, 10))
    with pytest.raises(RuntimeError, match="Sum of split sizes 9 is not equal to dataset size 10"):
        d.split([4, 5])
    # rounding as MindSpore: 10 * [0.35, 0.35, 0.3] -> [4, 4, 3] (11), one row off the first
    assert [p.get_dataset_size() for p in d.split([0.35, 0.35, 0.3])] == [3, 4, 3]
    # 10 * [0.33, 0.33, 0.34] -> [3, 3, 3] (9), the missing row goes to the first
    assert [p.get_dataset_size() for p in d.split([0.33, 0.33, 0.34])] == [4, 3, 3]
    with pytest.raises(RuntimeError, match="Split percentage 0.01 is too small"):
        d.split([0.99, 0.01])
    parts = d.split([0.5, 0.5])
    assert sorted(_firsts(parts[0], 1) + _firsts(parts[1], 1)) == list(range(10))
    assert parts[0].batch(2).get_dataset_size() == 3


def test_concat_and_zip():
    a = ds.NumpySlicesDataset((X[:3], Y[:3]), ["x", "y"], shuffle=False)
    b = ds.NumpySlicesDataset((X[5:7], Y[5:7]), ["x", "y"], shuffle=False)
    c = a + b
    assert _firsts(c, 1) == [0, 1, 2, 5, 6] and c.get_dataset_size() == 5
    assert _firsts(a.concat([b, a]), 1) == [0, 1, 2, 5, 6, 0, 1, 2]
    z = ds.zip((a, ds.NumpySlicesDataset({"w": np.arange(10, 20)}, shuffle=False)))
    assert z.get_col_names() == ["x", "y", "w"] and z.get_dataset_size() == 3
    rows = list(z.create_dict_iterator(output_numpy=True))
    assert [int(r["w"]) for r in rows] == [10, 11, 12] and [int(r["y"]) for r in rows] == [0, 1, 2]
    assert a.zip(ds.NumpySlicesDataset({"w": [1, 2]}, shuffle=False)).get_dataset_size() == 2
    with pytest.raises(ValueError, match="column names of the datasets must be distinct"):
        ds.zip((a, b))
    with pytest.raises(ValueError, match="column names of every dataset must be the same"):
        a + ds.NumpySlicesDataset({"w": [1]}, shuffle=False)
    with pytest.raises(TypeError, match="must be a tuple of Datasets"):
        ds.zip([a, b])
    # a Python zip source still works (materialised), the builtin is untouched
    d = ds.GeneratorDataset(zip([1, 2], [3, 4]), ["a", "b"], shuffle=False)
    assert _firsts(d) == [1, 2]


# --- iterators -------------------------------------------------------------------------------------
def test_dict_iterator_and_output_numpy():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).batch(5)
    rows = list(d.create_dict_iterator())
    assert list(rows[0]) == ["x", "y"] and isinstance(rows[0]["x"], ms.Tensor)
    rows = list(d.create_dict_iterator(output_numpy=True))
    assert isinstance(rows[1]["y"], np.ndarray) and rows[1]["y"].tolist() == [5, 6, 7, 8, 9]
    rows = list(d.create_tuple_iterator(columns=["y"], output_numpy=True))
    assert len(rows[0]) == 1 and rows[0][0].tolist() == [0, 1, 2, 3, 4]


def test_iterator_runs_num_epochs():
    d = ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False).batch(5)
    it = d.create_tuple_iterator(num_epochs=2)
    assert len(list(it)) == 2 and len(list(it)) == 2 and len(list(it)) == 0
    it = d.create_tuple_iterator()
    first = next(it)
    assert int(first[1].asnumpy()[0]) == 0
    for epoch in range(3):
        assert sum(1 for _ in it) in (1, 2)  # the rest of the epoch, then full epochs


def test_training_loop_shape():
    """The MindSpore idiom: for epoch: for batch in dataset.create_tuple_iterator()."""
    d = ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=True).batch(4, drop_remainder=True)
    steps = 0
    for _ in range(2):
        for x, y in d.create_tuple_iterator():
            assert x.shape == (4, 2) and y.shape == (4,)
            steps += 1
    assert steps == 2 * d.get_dataset_size() == 4


# --- errors ----------------------------------------------------------------------------------------
def _d():
    return ds.NumpySlicesDataset((X, Y), ["x", "y"], shuffle=False)


@pytest.mark.parametrize("build,exc,match", [
    (lambda: _d().batch(0), ValueError,
     r"Input batch_size is not within the required interval of \[1, 2147483647\]"),
    (lambda: _d().batch(-3), ValueError, "Input batch_size is not within the required interval"),
    (lambda: _d().batch(2.5), TypeError, "batch_size should either be an int or a callable"),
    (lambda: _d().batch(2, drop_remainder=1), TypeError,
     r"Argument drop_remainder with value 1 is not of type \[<class 'bool'>\], but got <class 'int'>"),
    (lambda: _d().shuffle(1), ValueError,
     r"Input buffer_size is not within the required interval of \[2, 2147483647\]"),
    (lambda: _d().shuffle(4.0), TypeError, "Argument buffer_size with value 4.0 is not of type"),
    (lambda: _d().repeat(0), ValueError, "count should be either -1 or positive integer"),
    (lambda: _d().map(lambda x: x, input_columns="z"), RuntimeError,
     "input column name: z doesn't exist"),
    (lambda: _d().map(3), TypeError, "is neither a transforms op"),
    (lambda: _d().map(lambda x: x, column_order=["x"]), ValueError, "'column_order' had been deleted"),
    (lambda: _d().project(["q"]), RuntimeError, "column name: q doesn't exist"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], num_shards=2), ValueError,
     "num_shards and shard_id need to be passed in together"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], num_shards=2, shard_id=2), ValueError,
     "shard_id should be less than num_shards"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], num_shards=0, shard_id=0), ValueError,
     "Input num_shards is not within the required interval"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], num_shards=2, shard_id="0"), TypeError,
     "Argument shard_id with value 0 is not of type"),
    (lambda: ds.GeneratorDataset(MapStyle()), ValueError, "Neither columns_names nor schema"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "x"]), ValueError,
     "Every column name should not be same"),
    (lambda: ds.GeneratorDataset(MapStyle(), []), ValueError, "column_names should not be empty"),
    (lambda: ds.GeneratorDataset(3, ["x"]), TypeError,
     "should be callable, iterable or random accessible"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=True, sampler=[0]), RuntimeError,
     "sampler and shuffle cannot be specified at the same time"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], num_shards=2, shard_id=0,
                                 sampler=[0]), RuntimeError, "sampler and sharding"),
    (lambda: ds.GeneratorDataset(lambda: iter([1]), ["x"], sampler=[0]), ValueError,
     "sampler is not supported if source does not have attribute '__getitem__'"),
    (lambda: ds.GeneratorDataset(lambda: iter([1]), ["x"], num_shards=2, shard_id=0), ValueError,
     "num_shards is not supported if source does not have attribute '__getitem__'"),
    (lambda: ds.GeneratorDataset(MapStyle(), ["x", "y"], shuffle=1), TypeError,
     "Argument shuffle with value 1 is not of type"),
    (lambda: ds.NumpySlicesDataset((X, Y[:3])), ValueError, "Data length in each column is not equal"),
    (lambda: ds.NumpySlicesDataset((X, Y), ["a"]), ValueError, "size of column_names 1"),
    (lambda: ds.NumpySlicesDataset([[1, 2], [3]]), TypeError, "ragged or mixed"),
    (lambda: _d().create_tuple_iterator(num_epochs=0), ValueError, "num_epochs"),
    (lambda: _d().create_tuple_iterator(columns=["w"]), ValueError, "'w' does not exist"),
    (lambda: ds.config.set_seed(-1), ValueError, "Input seed is not within the required interval"),
    (lambda: ds.config.set_seed(1.5), TypeError, "Argument seed with value 1.5"),
    (lambda: ds.DistributedSampler(2, 5), ValueError, "Input shard_id is not within"),
    (lambda: transforms.TypeCast("float99"), TypeError, "Argument data_type"),
])
def test_bad_arguments(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_errors_raised_while_iterating():
    d = ds.GeneratorDataset(MapStyle(), ["x", "y", "z"], shuffle=False)
    with pytest.raises(RuntimeError, match="the size of column_names is:3 and number of returned "
                                           "NumPy array is:2"):
        list(d)

    def ragged():
        yield (np.ones(2),)
        yield (np.ones(3),)

    with pytest.raises(RuntimeError, match=r"Inconsistent batch shapes.*column 0.*:\[2\], got "
                                           r"shape:\[3\]"):
        list(ds.GeneratorDataset(ragged, ["v"]).batch(2))

    def bad_map(x):
        return x, x

    with pytest.raises(RuntimeError, match="returned 2 columns, but 1 are expected"):
        list(_d().map(bad_map, "x"))
    with pytest.raises(TypeError, match="expected to be int, float, str, bytes"):
        list(ds.GeneratorDataset([{"a": 1}], ["a"], shuffle=False))


def test_reachable_as_ms_dataset():
    assert ms.dataset is ds and ms.dataset.GeneratorDataset is ds.GeneratorDataset


def test_numpy_slices_refuse_tensors_as_mindspore_does():
    """MindSpore 2.10 takes lists and NumPy arrays as columns (the converter writes x.asnumpy())."""
    with pytest.raises(TypeError, match=r"argument data\[1\] is not of type"):
        ds.NumpySlicesDataset((X, ms.Tensor(Y)), ["x", "y"], shuffle=False)
