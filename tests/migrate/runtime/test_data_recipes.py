"""migrate.runtime's data helpers of training recipes against torch: a DataLoader with a
collate_fn (padding variable-length sequences, dict batches, len, drop_last, shuffled order),
TensorDataset of tensors given with *, pad_sequence, and nn.Transformer's square mask."""
import numpy as np
import pytest

from migrate.runtime.data import (
    DataLoaderTorch,
    TorchCollateLoader,
    torch_default_collate,
    torch_pad_sequence,
    torch_tensor_dataset,
)
from migrate.runtime.functional import torch_generate_square_subsequent_mask

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RNG = np.random.default_rng(2)
SEQS = [RNG.integers(1, 9, RNG.integers(2, 7)) for _ in range(7)]


class TorchSeqs(torch.utils.data.Dataset):
    def __len__(self):
        return len(SEQS)

    def __getitem__(self, i):
        return torch.tensor(SEQS[i])


class MsSeqs:
    def __len__(self):
        return len(SEQS)

    def __getitem__(self, i):
        return ms.Tensor(SEQS[i])


def _collate(pad, batch):
    padded = pad(batch, batch_first=True, padding_value=0)
    return padded[:, :-1], padded[:, 1:]


@pytest.mark.parametrize("drop_last", [False, True])
def test_a_collate_fn_builds_each_batch_as_torchs(drop_last):
    want = list(torch.utils.data.DataLoader(TorchSeqs(), batch_size=3, drop_last=drop_last,
                                            collate_fn=lambda b: _collate(torch.nn.utils.rnn.pad_sequence, b)))
    loader = DataLoaderTorch(MsSeqs(), batch_size=3, drop_last=drop_last,
                             collate_fn=lambda b: _collate(torch_pad_sequence, b))
    assert isinstance(loader, TorchCollateLoader)
    got = list(loader)
    assert len(loader) == loader.get_dataset_size() == len(want) == (2 if drop_last else 3)
    for (a, b), (x, y) in zip(got, want):
        np.testing.assert_array_equal(a.asnumpy(), x.numpy())
        np.testing.assert_array_equal(b.asnumpy(), y.numpy())
        assert a.dtype == ms.int64


def test_shuffle_reads_every_sample_once_per_epoch_in_a_new_order():
    ms.set_seed(0)
    loader = TorchCollateLoader(MsSeqs(), batch_size=2, shuffle=True, collate_fn=lambda b: [t.asnumpy() for t in b])
    epochs = [[tuple(s) for batch in loader for s in batch] for _ in range(3)]
    for order in epochs:
        assert sorted(order) == sorted(tuple(s) for s in SEQS)
    assert len({tuple(o) for o in epochs}) > 1


def test_default_collate_of_tuples_numbers_and_dicts_is_torchs():
    samples = [{"x": np.full(2, i, np.float32), "y": i, "w": 0.5 * i} for i in range(3)]
    got = torch_default_collate(samples)
    want = torch.utils.data.default_collate(samples)
    for k in want:
        np.testing.assert_array_equal(got[k].asnumpy(), want[k].numpy())
        assert str(got[k].asnumpy().dtype) == str(want[k].numpy().dtype).replace("torch.", "")
    pairs = [(ms.Tensor(np.ones(2, np.float32) * i), i) for i in range(3)]
    x, y = torch_default_collate(pairs)
    assert x.shape == (3, 2) and y.asnumpy().tolist() == [0, 1, 2]


def test_tensor_dataset_of_starred_tensors():
    arrays = (RNG.standard_normal((5, 3)).astype(np.float32), RNG.integers(0, 4, 5), RNG.random(5).astype(np.float32))
    ds = torch_tensor_dataset(*(ms.Tensor(a) for a in arrays))
    assert ds.get_dataset_size() == 5 and ds.get_col_names() == ["column_0", "column_1", "column_2"]
    rows = next(iter(ds.batch(5).create_tuple_iterator(output_numpy=True)))
    for got, want in zip(rows, arrays):
        np.testing.assert_array_equal(got, want)
    assert torch_tensor_dataset(ms.Tensor(arrays[0]), ms.Tensor(arrays[1])).get_col_names() == ["data", "label"]
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        torch_tensor_dataset(ms.Tensor(arrays[0]), ms.Tensor(arrays[1][:4]))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_as_torch(batch_first, side):
    seqs = [RNG.standard_normal((n, 2)).astype(np.float32) for n in (3, 1, 4)]
    got = torch_pad_sequence([ms.Tensor(s) for s in seqs], batch_first, -1.5, side)
    want = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=batch_first,
                                           padding_value=-1.5, padding_side=side)
    np.testing.assert_array_equal(got.asnumpy(), want.numpy())


def test_square_subsequent_mask_is_torchs():
    for n in (1, 4, 7):
        want = torch.nn.Transformer.generate_square_subsequent_mask(n)
        got = torch_generate_square_subsequent_mask(n)
        assert got.dtype == ms.float32
        np.testing.assert_array_equal(got.asnumpy(), want.numpy())
    assert torch_generate_square_subsequent_mask(3, dtype=ms.float64).dtype == ms.float64
