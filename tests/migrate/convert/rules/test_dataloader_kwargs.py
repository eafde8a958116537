"""MS181 for DataLoader(ds, **kwargs): the generated DataLoaderTorch takes torch's signature at
run time -- every key torch accepts is translated or raises naming it, unknown keys raise as in
torch -- and yields torch's batches."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import both_sides

SRC = '''import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset


class Squares(Dataset):
    def __init__(self, n):
        self.x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], int(i) ** 2


def loader(use_cuda, **extra):
    kwargs = {"batch_size": 4}
    if use_cuda:
        kwargs.update({"num_workers": 1, "pin_memory": True})
    kwargs.update(extra)
    return torch.utils.data.DataLoader(Squares(10), **kwargs)


def tensor_loader(**kwargs):
    return DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6)), **kwargs)
'''


def _np(t):
    return t.asnumpy() if hasattr(t, "asnumpy") else t.numpy()


def _batches(loader):
    return [(_np(x), _np(y)) for x, y in loader]


@pytest.fixture(scope="module")
def both():
    tns, cns = both_sides(SRC, 'DataLoaderTorch(Squares(10), **kwargs)')
    return tns, cns


@pytest.mark.parametrize("use_cuda, extra", [(False, {}), (True, {}), (False, {"drop_last": True}),
                                             (True, {"timeout": 5, "prefetch_factor": 2, "persistent_workers": True})])
def test_kwargs_loader_yields_torch_batches(both, use_cuda, extra):
    tns, cns = both
    want = _batches(tns["loader"](False, **{k: v for k, v in extra.items() if k == "drop_last"}))
    got = _batches(cns["loader"](use_cuda, **extra))
    assert len(got) == len(want) == (2 if extra.get("drop_last") else 3)
    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)


def test_shuffled_tensor_dataset_keeps_rows_together(both):
    _, cns = both
    got = _batches(cns["tensor_loader"](batch_size=6, shuffle=True))
    (x, y), = got
    np.testing.assert_array_equal(np.sort(y), np.arange(6))
    np.testing.assert_array_equal(x, np.arange(12.0).reshape(6, 2)[y])  # each row with its label


def test_a_collate_fn_gets_the_list_of_samples_as_in_torch(both):
    """torch's contract: collate_fn([dataset[i] for i in batch indices]) builds each batch."""
    tns, cns = both

    def collate(samples):
        xs, ys = zip(*samples)
        return np.stack(xs).sum(1), np.array(ys) * 10

    want = [(np.asarray(x), np.asarray(y)) for x, y in tns["loader"](False, collate_fn=collate)]
    got = [(np.asarray(x), np.asarray(y)) for x, y in cns["loader"](False, collate_fn=collate)]
    assert len(got) == len(want) == 3 and len(cns["loader"](False, collate_fn=collate)) == 3
    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)


def test_a_collate_fn_over_a_tensor_dataset_gets_its_rows(both):
    """TensorDataset(x, y) (a MindSpore dataset once converted) with a collate_fn: the function
    gets the list of (x_i, y_i) rows, in order, as torch gives them."""
    tns, cns = both

    def collate(rows):
        return [float(x.sum()) for x, _ in rows], [int(y) for _, y in rows]

    want = list(tns["tensor_loader"](batch_size=4, collate_fn=collate))
    got = list(cns["tensor_loader"](batch_size=4, collate_fn=collate))
    assert got == want and len(got) == 2


@pytest.mark.parametrize("extra, error, message", [
    ({"worker_init_fn": print}, ValueError, "'worker_init_fn' has no MindSpore counterpart"),
    ({"batch_sampler": [[0, 1]]}, ValueError, "'batch_sampler' has no MindSpore counterpart"),
    ({"sampler": [0, 1]}, ValueError, "the sampler must be one of ms.dataset.s"),
    ({"batch_size": None}, ValueError, "batch_size=None"),
    ({"bogus": 1}, TypeError, "unexpected keyword argument 'bogus'"),
])
def test_what_cannot_be_translated_raises_naming_it(both, extra, error, message):
    _, cns = both
    with pytest.raises(error, match=message):
        cns["loader"](False, **extra)


def _stack(samples):
    """A collate_fn of the user's: the features stacked, the labels as an int64 array."""
    return np.stack([x for x, _ in samples]), np.array([y for _, y in samples], np.int64)


def test_a_collate_fn_gets_the_samples_and_builds_torchs_batches(both):
    """A collate_fn given at run time is torch's contract (TorchCollateLoader): the function gets
    each batch's list of samples, and the batches are torch's."""
    tns, cns = both
    want = [(np.asarray(x), np.asarray(y)) for x, y in tns["loader"](False, collate_fn=_stack)]
    got = [(np.asarray(x), np.asarray(y)) for x, y in cns["loader"](True, collate_fn=_stack)]
    assert len(got) == len(want) == 3
    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)


def test_a_converted_sampler_is_passed_on(both):
    """sampler=RandomSampler(...)/SequentialSampler(...) converted to ms.dataset's (makemore's
    InfiniteDataLoader): the loader draws the rows through it."""
    import ms_core as ms
    tns, cns = both
    want = _batches(tns["loader"](False))
    got = _batches(cns["loader"](False, sampler=ms.dataset.SequentialSampler()))
    assert len(got) == len(want) == 3
    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)
    drawn = _batches(cns["loader"](False, sampler=ms.dataset.RandomSampler(replacement=True, num_samples=8)))
    rows = np.concatenate([x for x, _ in drawn])
    assert rows.shape == (8, 3) and set(rows[:, 0] // 3) <= set(range(10))
    np.testing.assert_array_equal(np.concatenate([y for _, y in drawn]), (rows[:, 0] // 3) ** 2)
