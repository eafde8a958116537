"""migrate.runtime.arguments and .values: torch's arguments and methods as MindSpore takes them.
Each answer is checked against what torch's own layer or function does with the same arguments."""
import numpy as np
import pytest

from migrate.runtime.arguments import (
    TorchGenerator, torch_conv_padding, torch_factory_dtype, torch_kernel_area, torch_ms_tuple, torch_no_cuda,
    torch_norm_shape, torch_ntuple, torch_pool_padding, torch_seed, torch_sizes,
)
from migrate.runtime.values import (
    TorchLayerAttrs, torch_cast, torch_compare_, torch_conv_attr, torch_eval, torch_param_names, torch_size,
    torch_to, torch_train,
)

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("padding", [0, 1, (1, 2), [2], (0, 0), "same", "valid"])
def test_conv_padding_gives_torch_output(padding):
    """MindSpore's (pad_mode, padding) for torch's padding: the same numbers as torch's conv2d."""
    x = RNG.standard_normal((1, 2, 7, 8)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 3, 3)).astype(np.float32)
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=padding).numpy()
    mode, value = torch_conv_padding(padding, 2)
    conv = ms.nn.Conv2d(2, 3, 3, pad_mode=mode, padding=value)
    conv.weight.set_data(ms.Tensor(w))
    np.testing.assert_allclose(conv(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_conv_padding_forms():
    assert torch_conv_padding((1, 2), 2) == ("pad", (1, 1, 2, 2))
    assert torch_conv_padding((1, 2), 2, per_side=False) == ("pad", (1, 2))
    assert torch_conv_padding(0, 2, transpose=True) == ("pad", 0)
    with pytest.raises(ValueError,
                       match="padding must be 'same', 'valid', an int or a tuple of 2 ints, but got 'full'"):
        torch_conv_padding("full", 2)
    with pytest.raises(ValueError, match="but got \\(1, 2, 3\\)"):
        torch_conv_padding((1, 2, 3), 2)


@pytest.mark.parametrize("padding,ceil", [(0, False), (1, False), (0, True)])
def test_pool_padding_gives_torch_output(padding, ceil):
    x = RNG.standard_normal((1, 2, 7, 7)).astype(np.float32)
    want = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, padding=padding, ceil_mode=ceil).numpy()
    mode, value = torch_pool_padding(padding, ceil, 1, False)
    got = ms.nn.MaxPool2d(3, 2, pad_mode=mode, padding=value, ceil_mode=ceil)(ms.Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_sizes_as_torch_layers_keep_them():
    assert torch_ms_tuple([2], 2) == (2, 2) and torch_ms_tuple([3], 1) == 3 and torch_ms_tuple(4, 2) == 4
    for value in (3, (3, 5), [2]):
        assert torch_ntuple(value, 2) == torch.nn.Conv2d(1, 1, value).kernel_size
    assert torch_ntuple("same", 2) == "same"
    assert torch_kernel_area((3, 5), 2) == 15 and torch_kernel_area(3, 3) == 27
    assert torch_norm_shape(4) == (4,) == torch.nn.LayerNorm(4).normalized_shape
    assert torch_norm_shape([2, 3]) == torch.nn.LayerNorm([2, 3]).normalized_shape
    assert torch_sizes(2, 3) == torch_sizes((2, 3)) == torch_sizes([2, 3]) == tuple(torch.zeros(*[2, 3]).shape)


def test_factory_dtype():
    assert torch_factory_dtype({"dtype": ms.float16, "device": "cpu"}) == ms.float16
    assert torch_factory_dtype({"requires_grad": False}) is None
    with pytest.raises(TypeError, match="the keywords \\['colour'\\] are not torch's factory keywords"):
        torch_factory_dtype({"colour": 1})


def test_generator_streams_repeat_by_seed():
    g = TorchGenerator().manual_seed(7)
    first = [torch_seed(g) for _ in range(3)]
    assert len(set(first)) == 3
    g.manual_seed(7)
    assert [torch_seed(g) for _ in range(3)] == first
    assert g.initial_seed() == 7 == torch.Generator().manual_seed(7).initial_seed()
    assert torch_seed(None, 5) == 5


def test_no_cuda_raises_as_torch_does_without_cuda():
    with pytest.raises(RuntimeError, match="For 'get_device_name', there is no CUDA device"):
        torch_no_cuda("get_device_name", 0)


def test_size_train_eval_on_any_value():
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    assert torch_size(x) == tuple(torch.zeros(2, 3).size()) and torch_size(x, 1) == 3 and torch_size(x, -2) == 2

    class Sized:
        def size(self, dim=None):
            return "own"
    assert torch_size(Sized()) == "own"
    cell = ms.nn.Dense(2, 2)
    assert torch_train(cell) is cell and cell.training
    assert torch_eval(cell) is cell and not cell.training
    assert torch_train(cell, False) is cell and not cell.training

    class Trainer:
        def train(self, *mode):
            return ("train", mode)

        def eval(self):
            return "eval"
    assert torch_train(Trainer(), 3) == ("train", (3,)) and torch_eval(Trainer()) == "eval"


def test_to_casts_tensors_and_cells():
    x = ms.Tensor(np.ones((2,), np.float32))
    assert torch_to(x, "cpu") is x
    assert torch_to(x, ms.float64).dtype == ms.float64
    assert torch_to(x, ms.Tensor(np.ones(1, np.float16))).dtype == ms.float16
    assert torch_to(x, "cpu", dtype=ms.float16).dtype == ms.float16
    cell = ms.nn.Dense(2, 2)
    assert torch_to(cell, ms.float64) is cell
    assert all(p.dtype == ms.float64 for p in cell.get_parameters())
    with pytest.raises(TypeError, match="For 'to', casting a list to Float64 has no counterpart"):
        torch_to([1], ms.float64)


def test_cast_and_in_place_compare_as_torch():
    x = np.array([0.2, 0.7, 0.5], np.float32)
    assert torch_cast(ms.Tensor(x), None).dtype == ms.float32
    assert torch_cast(ms.Tensor(x), ms.float64).dtype == ms.float64
    t, m = torch.tensor(x), ms.Tensor(x)
    got = torch_compare_(ms.ops.ge, m, 0.5)
    t.ge_(0.5)
    assert got is m
    np.testing.assert_array_equal(m.asnumpy(), t.numpy())


def test_param_names_are_paths():
    seq = ms.nn.SequentialCell()
    seq.append(ms.nn.Dense(2, 2))
    net = ms.nn.SequentialCell([seq, ms.nn.Dense(2, 1)])
    torch_param_names(net)
    assert [p.name for p in net.get_parameters()] == [n for n, _ in net.parameters_and_names()]


@pytest.mark.parametrize("torch_layer,ms_layer", [
    ("torch.nn.Conv2d(2, 4, (3, 5), stride=(2, 1), padding=(1, 2), dilation=(1, 2))",
     "ms.nn.Conv2d(2, 4, (3, 5), stride=(2, 1), pad_mode='pad', padding=(1, 1, 2, 2), dilation=(1, 2))"),
    ("torch.nn.Conv1d(2, 4, 5, stride=2, padding=2, dilation=3)",
     "ms.nn.Conv1d(2, 4, 5, stride=2, pad_mode='pad', padding=2, dilation=3)"),
    ("torch.nn.Conv2d(2, 4, 3)", "ms.nn.Conv2d(2, 4, 3, pad_mode='valid')"),
    ("torch.nn.Conv2d(2, 4, 3, padding='same')", "ms.nn.Conv2d(2, 4, 3, pad_mode='same')"),
])
def test_conv_attributes_as_torch_holds_them(torch_layer, ms_layer):
    t, m = eval(torch_layer), eval(ms_layer)
    for name in ("padding", "kernel_size", "stride", "dilation", "padding_mode"):
        assert torch_conv_attr(m, name) == getattr(t, name), name


def test_conv_attribute_with_no_torch_form():
    with pytest.raises(ValueError, match="the padding \\(0, 1, 0, 1\\) \\(before, after per axis\\) has no torch form"):
        torch_conv_attr(ms.nn.Conv2d(1, 1, 3, pad_mode="pad", padding=(0, 1, 0, 1)), "padding")


def test_layer_attributes_read_as_torch():
    dense, emb = ms.nn.Dense(3, 5), ms.nn.Embedding(7, 2)
    t_lin, t_emb = torch.nn.Linear(3, 5), torch.nn.Embedding(7, 2)
    assert (TorchLayerAttrs(dense).in_features, TorchLayerAttrs(dense).out_features) == \
        (t_lin.in_features, t_lin.out_features)
    assert (TorchLayerAttrs(emb).num_embeddings, TorchLayerAttrs(emb).embedding_dim) == \
        (t_emb.num_embeddings, t_emb.embedding_dim)
    own = type("Own", (), {"in_features": 11})()
    assert TorchLayerAttrs(own).in_features == 11


def test_layer_attrs_give_a_1d_convolutions_geometry_as_torch():
    import torch
    from migrate.runtime.backend import nn
    conv, ref = nn.Conv1d(2, 2, 3, 2, pad_mode="valid", dilation=2), torch.nn.Conv1d(2, 2, 3, 2, dilation=2)
    assert conv.kernel_size == (1, 3)  # MindSpore's form
    got = TorchLayerAttrs(conv)
    assert (got.kernel_size, got.stride, got.dilation) == (ref.kernel_size, ref.stride, ref.dilation)
    conv2 = nn.Conv2d(2, 2, (3, 5), pad_mode="valid")
    assert TorchLayerAttrs(conv2).kernel_size == torch.nn.Conv2d(2, 2, (3, 5)).kernel_size
