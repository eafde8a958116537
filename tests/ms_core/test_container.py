"""SequentialCell, CellList, CellDict (naming, indexing, mutation) and Embedding."""
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn

rng = np.random.default_rng(0)


def names(cell):
    return [p.name for p in cell.get_parameters()]


def x(*shape):
    return ms.Tensor(rng.standard_normal(shape).astype(np.float32))


# --- SequentialCell -------------------------------------------------------------------------

def test_sequential_list_names_and_forward():
    seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    assert names(seq) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert list(seq.name_cells()) == ["0", "1", "2"]
    inp = x(5, 3)
    expected = seq[2](seq[1](seq[0](inp)))
    np.testing.assert_array_equal(seq(inp).asnumpy(), expected.asnumpy())


def test_sequential_varargs_and_ordered_dict():
    seq = nn.SequentialCell(nn.Dense(2, 2), nn.ReLU())
    assert names(seq) == ["0.weight", "0.bias"]
    od = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 3)), ("act", nn.ReLU())]))
    assert names(od) == ["fc.weight", "fc.bias"]
    assert isinstance(od[1], nn.ReLU)
    od.append(nn.Dense(3, 1))
    assert list(od.name_cells()) == ["fc", "act", "2"]
    assert names(od)[-2:] == ["2.weight", "2.bias"]
    assert od(x(1, 2)).shape == (1, 1)


def test_sequential_nested_in_parent_gets_prefixed():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.features = nn.SequentialCell([nn.Dense(3, 3), nn.BatchNorm1d(3)])
            self.head = nn.Dense(3, 1)

        def construct(self, a):
            return self.head(self.features(a))

    net = Net()
    assert names(net) == ["features.0.weight", "features.0.bias", "features.1.moving_mean",
                          "features.1.moving_variance", "features.1.gamma", "features.1.beta",
                          "head.weight", "head.bias"]
    # appending after attachment keeps the parent's prefix
    net.features.append(nn.Dense(3, 3))
    assert names(net.features)[-2:] == ["features.2.weight", "features.2.bias"]
    net.set_train()
    assert net.features[1].training


def test_sequential_indexing_len_slicing_mutation():
    cells = [nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 2), nn.Tanh()]
    seq = nn.SequentialCell(cells)
    assert len(seq) == 4
    assert seq[-1] is cells[3]
    sub = seq[1:3]
    assert isinstance(sub, nn.SequentialCell) and len(sub) == 2 and sub[0] is cells[1]
    with pytest.raises(IndexError, match="index must be in range"):
        seq[7]
    with pytest.raises(TypeError, match="index must be int or slice"):
        seq["a"]
    seq = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 2)])
    del seq[1]
    assert len(seq) == 2 and list(seq.name_cells()) == ["0", "1"]
    assert names(seq) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    seq[0] = nn.Dense(2, 2, has_bias=False)
    assert names(seq) == ["0.weight", "1.weight", "1.bias"]
    seq.insert(1, nn.Sigmoid())
    assert isinstance(seq[1], nn.Sigmoid) and names(seq)[-2:] == ["2.weight", "2.bias"]
    with pytest.raises(TypeError, match="must be a Cell"):
        seq.append(lambda a: a)


def test_sequential_matches_torch_sequential():
    seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    tseq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for name, p in tseq.named_parameters():
            p.copy_(torch.tensor(seq.parameters_dict()[name].asnumpy()))
    inp = x(5, 3)
    np.testing.assert_allclose(seq(inp).asnumpy(), tseq(torch.tensor(inp.asnumpy())).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert sorted(seq.parameters_dict()) == sorted(n for n, _ in tseq.named_parameters())


# --- CellList -------------------------------------------------------------------------------

def test_celllist_append_extend_insert_iterate():
    layers = nn.CellList([nn.Dense(2, 2)])
    layers.append(nn.ReLU())
    layers.extend([nn.Dense(2, 3), nn.Tanh()])
    assert len(layers) == 4
    assert [type(c).__name__ for c in layers] == ["Dense", "ReLU", "Dense", "Tanh"]
    layers.insert(0, nn.Dense(2, 2))
    assert names(layers) == ["0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"]
    assert isinstance(layers[4], nn.Tanh) and isinstance(layers[-1], nn.Tanh)
    layers += [nn.ReLU()]
    assert len(layers) == 6
    with pytest.raises(NotImplementedError, match="not callable"):
        layers(x(1, 2))


def test_celllist_in_parent_trains_every_layer():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList()
            for _ in range(3):
                self.blocks.append(nn.Dense(2, 2))

        def construct(self, a):
            for b in self.blocks:
                a = b(a)
            return a

    net = Net()
    assert names(net) == [f"blocks.{i}.{k}" for i in range(3) for k in ("weight", "bias")]
    grads = ms.grad(lambda a: net(a).sum(), None, net.trainable_params())(x(4, 2))
    assert len(grads) == 6 and all(g.shape == p.shape for g, p in zip(grads, net.trainable_params()))


# --- CellDict -------------------------------------------------------------------------------

def test_celldict():
    d = nn.CellDict({"fc": nn.Dense(2, 2), "act": nn.ReLU()})
    assert len(d) == 2 and list(d) == ["fc", "act"] and "fc" in d
    assert names(d) == ["fc.weight", "fc.bias"]
    d["out"] = nn.Dense(2, 1)
    assert list(d.keys()) == ["fc", "act", "out"]
    assert isinstance(d.pop("act"), nn.ReLU) and "act" not in d
    d.update([("tanh", nn.Tanh())])
    assert [k for k, _ in d.items()] == ["fc", "out", "tanh"]
    with pytest.raises(TypeError, match="type of key must be str"):
        d[1] = nn.ReLU()
    with pytest.raises(KeyError, match="does not exist"):
        d["missing"]
    with pytest.raises(TypeError, match="must be a Cell"):
        d["bad"] = 3
    d.clear()
    assert len(d) == 0 and names(d) == []


@pytest.mark.parametrize("make", [lambda: nn.CellList([nn.ReLU()]), lambda: nn.SequentialCell(nn.ReLU()),
                                  lambda: nn.CellDict({"a": nn.ReLU()})], ids=["list", "sequential", "dict"])
def test_celldict_refuses_containers_as_mindspore_does(make):
    """MindSpore 2.10: `CellDict(dict(h=CellList([...])))` raises this TypeError (checked)."""
    with pytest.raises(TypeError, match=r"For 'CellDict', the type of cell can not be CellDict, CellList or "
                                        r"SequentialCell, but got (CellList|SequentialCell|CellDict)\."):
        nn.CellDict({"h": make()})


def test_cells_moved_from_another_net_are_renamed_by_their_new_path():
    seq = nn.SequentialCell([nn.Dense(2, 2), nn.Dense(2, 2)])
    assert names(seq[1]) == ["1.weight", "1.bias"]
    d = nn.CellDict({"head": seq[1]})
    assert names(d) == ["head.weight", "head.bias"]
    od = nn.SequentialCell(OrderedDict([("first", seq[0])]))
    assert names(od) == ["first.weight", "first.bias"]
    back = nn.SequentialCell([seq[0]])
    assert names(back) == ["0.weight", "0.bias"]


# --- Embedding ------------------------------------------------------------------------------

@pytest.mark.parametrize("use_one_hot", [False, True])
@pytest.mark.parametrize("shape", [(5,), (2, 3)], ids=str)
def test_embedding_matches_torch(use_one_hot, shape):
    emb = nn.Embedding(7, 4, use_one_hot=use_one_hot)
    assert emb.embedding_table.name == "embedding_table"
    temb = torch.nn.Embedding(7, 4)
    with torch.no_grad():
        temb.weight.copy_(torch.tensor(emb.embedding_table.asnumpy()))
    ids = rng.integers(0, 7, size=shape).astype(np.int32)
    ids.reshape(-1)[0] = ids.reshape(-1)[-1]  # repeated ids accumulate gradient
    cot = rng.standard_normal(shape + (4,)).astype(np.float32)
    out = emb(ms.Tensor(ids))
    tout = temb(torch.tensor(ids, dtype=torch.long))
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-6)
    g = ms.grad(lambda i: (emb(i) * ms.Tensor(cot)).sum(), None, emb.trainable_params())(ms.Tensor(ids))
    (tout * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(g[0].asnumpy(), temb.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_embedding_defaults_padding_and_errors():
    ms.set_seed(0)
    emb = nn.Embedding(1000, 64)
    std = emb.embedding_table.asnumpy().std()
    assert 0.009 < std < 0.011  # 'normal' = N(0, 0.01²) (torch: N(0, 1))
    padded = nn.Embedding(5, 3, padding_idx=2)
    np.testing.assert_array_equal(padded.embedding_table.asnumpy()[2], 0)
    with pytest.raises(ValueError, match=r"'padding_idx' must be an int in range \[0, 5\)"):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(ValueError, match="'vocab_size' must be a positive int"):
        nn.Embedding(0, 3)
    with pytest.raises(ValueError, match=r"every id must be in \[0, 5\)"):
        padded(ms.Tensor(np.array([1, 5], np.int32)))
    with pytest.raises(TypeError, match="integer Tensor"):
        padded(ms.Tensor(np.array([1.0], np.float32)))
    table = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    fixed = nn.Embedding(3, 2, embedding_table=table)
    np.testing.assert_array_equal(fixed(ms.Tensor(np.array([[2, 0]], np.int32))).asnumpy(),
                                  [[[4, 5], [0, 1]]])


def test_nn_area_public_names_are_exported():
    for name in ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "Dropout",
                 "Dropout1d", "Dropout2d", "ReLU", "ReLU6", "LeakyReLU", "PReLU", "GELU", "SiLU",
                 "HSwish", "HSigmoid", "Softmax", "LogSoftmax", "ELU", "Softplus", "Mish",
                 "SequentialCell", "CellList", "CellDict", "Embedding", "MSELoss", "L1Loss",
                 "SmoothL1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss",
                 "SoftmaxCrossEntropyWithLogits", "KLDivLoss", "get_activation"]:
        assert hasattr(nn, name), name
    from ms_core import ops
    for name in ["batch_norm", "layer_norm", "group_norm", "dropout", "dropout2d", "gelu", "silu",
                 "hardswish", "hardsigmoid", "leaky_relu", "elu", "relu6", "softplus", "mish",
                 "prelu", "cross_entropy", "nll_loss", "binary_cross_entropy", "smooth_l1_loss",
                 "mse_loss", "l1_loss", "kl_div"]:
        assert callable(getattr(ops, name)), name


def test_insert_child_to_cell_registers_but_does_not_run_as_mindspore_2_10():
    # MindSpore 2.10: SequentialCell.construct runs `cell_list`, which only the container's own
    # methods update; a child inserted by name is listed (parameters, len) but not executed.
    class Double(nn.Cell):
        def construct(self, x):
            return x * 2

    seq = nn.SequentialCell([nn.ReLU()])
    seq.insert_child_to_cell("dbl", Double())
    assert seq(ms.Tensor([1.0, -1.0])).asnumpy().tolist() == [1.0, 0.0]
    assert list(seq.name_cells()) == ["0", "dbl"]
    seq.append(Double())  # append rebuilds the run list from every registered child: both run
    assert seq(ms.Tensor([1.0, -1.0])).asnumpy().tolist() == [4.0, 0.0]
    assert list(seq.name_cells()) == ["0", "dbl", "2"]
