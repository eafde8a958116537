"""migrate.runtime.signature, .containers and .layers against torch: container semantics, layer
values and gradients (float32: rtol 1e-5 / atol 1e-6), the metaclass's class identity."""
import numpy as np
import pytest

from migrate.runtime.containers import TorchModuleDict, TorchModuleList, TorchParameterList, TorchSequential
from migrate.runtime.layers import (
    CircularPadTorch, Dropout2dAnyRank, TorchFunction, UnfoldTorchLayout, torch_attention_init, torch_cast_cell,
    torch_table_dtype,
)
from migrate.runtime.signature import TorchSignature
from tests.optest import check_op

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RNG = np.random.default_rng(1)
TOL = dict(rtol=1e-5, atol=1e-6)


def _dense_like(t_linear):
    d = ms.nn.Dense(t_linear.in_features, t_linear.out_features)
    d.weight.set_data(ms.Tensor(t_linear.weight.detach().numpy()))
    d.bias.set_data(ms.Tensor(t_linear.bias.detach().numpy()))
    return d


def test_sequential_filled_later_runs_in_insertion_order_as_torch():
    t_layers = [torch.nn.Linear(4, 3), torch.nn.Linear(3, 2)]
    t_seq = torch.nn.Sequential()
    t_seq.add_module("first", t_layers[0])
    t_seq.append(torch.nn.Tanh())
    t_seq.add_module("last", t_layers[1])
    m_seq = TorchSequential()
    m_seq.add_module("first", _dense_like(t_layers[0]))
    m_seq.append(ms.nn.Tanh())
    m_seq.add_module("last", _dense_like(t_layers[1]))
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(m_seq(ms.Tensor(x)).asnumpy(), t_seq(torch.tensor(x)).detach().numpy(), **TOL)
    assert len(m_seq) == len(t_seq) == 3
    assert [n for n, _ in m_seq.parameters_and_names()] == [n for n, _ in t_seq.named_parameters()]
    assert isinstance(m_seq[1], ms.nn.Tanh) and len(m_seq[1:]) == len(t_seq[1:]) == 2


def test_sequential_gradients_match_torch():
    t_lin = torch.nn.Linear(3, 2)
    seq = TorchSequential(_dense_like(t_lin), ms.nn.ReLU())
    check_op(lambda x: seq(x), lambda x: torch.nn.Sequential(t_lin, torch.nn.ReLU())(x),
             [RNG.standard_normal((4, 3)).astype(np.float32)])


def test_module_list_keeps_none_entries_as_torch():
    t_list = torch.nn.ModuleList([torch.nn.Linear(2, 2), None])
    t_list.append(torch.nn.Linear(2, 1))
    m_list = TorchModuleList([ms.nn.Dense(2, 2), None])
    m_list.append(ms.nn.Dense(2, 1))
    assert len(m_list) == len(t_list) == 3
    assert [x is None for x in m_list] == [x is None for x in t_list]
    assert [n for n, _ in m_list.parameters_and_names()] == [n for n, _ in t_list.named_parameters()]
    m_list[1] = ms.nn.Dense(2, 2)
    t_list[1] = torch.nn.Linear(2, 2)
    assert [n for n, _ in m_list.parameters_and_names()] == [n for n, _ in t_list.named_parameters()]
    assert len(m_list[:2]) == 2 and isinstance(m_list, ms.nn.CellList)


def test_module_dict_holds_containers_as_torch():
    t_dict = torch.nn.ModuleDict({"blocks": torch.nn.ModuleList([torch.nn.Linear(2, 2)]),
                                  "head": torch.nn.Sequential(torch.nn.Linear(2, 1))})
    m_dict = TorchModuleDict({"blocks": TorchModuleList([ms.nn.Dense(2, 2)]),
                              "head": TorchSequential(ms.nn.Dense(2, 1))})
    assert sorted(n for n, _ in m_dict.parameters_and_names()) == sorted(n for n, _ in t_dict.named_parameters())
    with pytest.raises(KeyError, match="the key must be a non-empty str without '.', but got 'a.b'"):
        m_dict["a.b"] = ms.nn.ReLU()
    with pytest.raises(TypeError, match="the type of cell should be Cell, but got int"):
        m_dict["x"] = 3


def test_parameter_list_grows_with_torch_names():
    values = [RNG.standard_normal((2,)).astype(np.float32) for _ in range(3)]
    t_params = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(v)) for v in values[:2]])
    t_params.append(torch.nn.Parameter(torch.tensor(values[2])))
    m_params = TorchParameterList([ms.Tensor(v) for v in values[:2]])
    m_params.append(ms.Tensor(values[2]))
    assert len(m_params) == len(t_params) == 3
    assert [p.name for p in m_params.get_parameters()] == [n for n, _ in t_params.named_parameters()]
    np.testing.assert_array_equal(m_params[2].asnumpy(), values[2])


def test_signature_class_is_its_mindspore_class_where_torch_code_looks():
    class TorchDense(ms.nn.Dense, metaclass=TorchSignature):
        _torch_base = ms.nn.Dense

    class Sub(TorchDense):
        pass

    plain = ms.nn.Dense(2, 2)
    assert isinstance(plain, TorchDense) and issubclass(ms.nn.Dense, TorchDense)
    assert TorchDense == ms.nn.Dense and ms.nn.Dense == TorchDense and hash(TorchDense) == hash(ms.nn.Dense)
    assert type(plain) in (TorchDense,) and {TorchDense: 1}[type(plain)] == 1
    assert TorchDense.__name__ == "Dense" and Sub.__name__ == "Sub"
    assert TorchDense != ms.nn.Conv2d and not isinstance(plain, Sub) and Sub != ms.nn.Dense


def test_signature_class_shows_torch_parameters_and_leaves_a_subclass_arguments_alone():
    """inspect.signature of a torch-signature class is its __init__'s (monai asks a norm class
    whether it takes `num_features`); lists become tuples for the class itself only (geffnet's
    MixedConv2d(nn.ModuleDict) tests `isinstance(kernel_size, list)` in its own __init__)."""
    import inspect

    from migrate.runtime.generated import TorchConv2d, TorchInstanceNorm2d

    assert list(inspect.signature(TorchInstanceNorm2d).parameters)[:5] == \
        list(inspect.signature(torch.nn.InstanceNorm2d).parameters)[:5] == \
        ["num_features", "eps", "momentum", "affine", "track_running_stats"]
    assert TorchConv2d(3, 4, [3, 3], stride=[1, 1]).kernel_size == (3, 3)

    seen = []

    class Mixed(TorchModuleDict):
        def __init__(self, kernel_size, scale=1):
            super().__init__()
            seen.append(kernel_size)

    Mixed([3, 5])
    assert seen == [[3, 5]] and list(inspect.signature(Mixed).parameters) == ["kernel_size", "scale"]


@pytest.mark.parametrize("shape", [(2, 5, 6), (4, 7)])
def test_dropout2d_any_rank_drops_as_torch(shape):
    """torch's Dropout2d on (N, C, L) zeroes whole channels, on 2-D input single elements; the rest
    is scaled by 1/(1-p); in inference mode it is the identity."""
    x = np.ones(shape, np.float32)
    layer = Dropout2dAnyRank(p=0.5)
    np.testing.assert_array_equal(layer(ms.Tensor(x)).asnumpy(), x)
    layer.set_train(True)
    out = layer(ms.Tensor(x)).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    if len(shape) == 3:
        assert all(len(set(row)) == 1 for row in out.reshape(-1, shape[-1]).tolist())


def test_unfold_matches_torch():
    layer = UnfoldTorchLayout(kernel_size=(2, 3), dilation=1, padding=1, stride=2)
    check_op(lambda x: layer(x), lambda x: torch.nn.Unfold((2, 3), 1, 1, 2)(x),
             [RNG.standard_normal((2, 3, 6, 7)).astype(np.float32)])


def test_circular_pad_matches_torch():
    layer = CircularPadTorch((1, 2, 2, 0), 2)
    check_op(lambda x: layer(x), lambda x: torch.nn.CircularPad2d((1, 2, 2, 0))(x),
             [RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)])
    with pytest.raises(ValueError, match="For 'CircularPad1d', the 'padding' must be an int or a tuple of 2 ints"):
        CircularPadTorch((1, 2, 3), 1)


class _TorchClip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x.clamp(-1, 1) * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ctx.scale * 0.5, None  # a gradient of its own, not the forward's


class _MsClip(TorchFunction):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return ms.ops.clamp(x, -1, 1) * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ctx.scale * 0.5, None


def test_autograd_function_as_cell_matches_torch():
    check_op(lambda x: _MsClip()(x, 3.0), lambda x: _TorchClip.apply(x, 3.0),
             [RNG.standard_normal((3, 4)).astype(np.float32) * 2])


def test_cast_cell_as_torch_double():
    cell = ms.nn.Dense(2, 2)
    assert torch_cast_cell(cell, ms.float64) is cell
    assert [p.dtype for p in cell.get_parameters()] == [ms.float64] * 2
    assert torch.nn.Linear(2, 2).double().weight.dtype == torch.float64


def test_attention_init_zeroes_out_proj_bias_as_torch():
    cell = torch_attention_init(ms.nn.MultiheadAttention(4, 2))
    want = torch.nn.MultiheadAttention(4, 2).out_proj.bias.detach().numpy()
    np.testing.assert_array_equal(cell.out_proj.bias.asnumpy(), want)


def test_table_dtype_as_torch_embedding():
    emb = torch_table_dtype(ms.nn.Embedding(5, 3), ms.float64)
    assert emb.embedding_table.dtype == ms.float64
    assert torch.nn.Embedding(5, 3, dtype=torch.float64).weight.dtype == torch.float64
    same = ms.nn.Embedding(5, 3)
    table = same.embedding_table
    assert torch_table_dtype(same, None).embedding_table is table
