"""Recurrent layers (RNN / LSTM / GRU and their cells) against torch with copied weights.

Forward outputs, final states and the gradients of the input, the initial states and every
weight are compared with torch (`check_op`, float32 rtol 1e-5 / atol 1e-6), across
batch_first, bidirectional, num_layers=2, has_bias=False, RNN tanh/relu and several shapes.
The weights are fed to the ms_core layer as inputs (its ParameterTuples are swapped for the
given Tensors), so `check_op` differentiates them like any other input; torch runs the same
weights through `torch.func.functional_call`.
"""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn
from ms_core.common import dtype as mstype
from tests.optest import check_double_backward, check_op

KINDS = {"LSTM": (nn.LSTM, torch.nn.LSTM), "GRU": (nn.GRU, torch.nn.GRU),
         "RNN": (nn.RNN, torch.nn.RNN)}


@pytest.fixture(autouse=True)
def _seed():
    ms.set_seed(7)
    torch.manual_seed(7)


def _torch_kwargs(kwargs):
    kw = dict(kwargs)
    if "has_bias" in kw:
        kw["bias"] = kw.pop("has_bias")
    return kw


def _swap_weights(net, tensors):
    """Make `net` use `tensors` (in its parameters_and_names order) instead of its Parameters."""
    if "_test_layout" not in net.__dict__:
        net.__dict__["_test_layout"] = (
            [n for n, _ in net.parameters_and_names()],
            {a: [p.name for p in getattr(net, a)]
             for a in ("w_ih_list", "w_hh_list", "b_ih_list", "b_hh_list")})
    layout = net.__dict__["_test_layout"]
    by_name = dict(zip(layout[0], tensors))
    for attr, names in layout[1].items():
        net.__dict__[attr] = tuple(by_name[n] for n in names)


def _layer_case(kind, T, B, I, H, seed=0, dtype=np.float32, **kwargs):  # noqa: E741 (I: input size)
    """(ms_fn, torch_fn, arrays) for check_op: arrays = x, h0 (, c0), every weight."""
    ms_cls, t_cls = KINDS[kind]
    net = ms_cls(I, H, dtype=mstype.float64 if dtype == np.float64 else mstype.float32,
                 **kwargs)
    tnet = t_cls(I, H, **_torch_kwargs({k: v for k, v in kwargs.items()
                                        if k != "nonlinearity"}),
                 **({"nonlinearity": kwargs["nonlinearity"]} if "nonlinearity" in kwargs else {}))
    names = [n for n, _ in net.parameters_and_names()]
    assert sorted(names) == sorted(n for n, _ in tnet.named_parameters())
    rng = np.random.default_rng(seed)
    weights = [rng.uniform(-0.6, 0.6, p.shape).astype(dtype) for _, p in net.parameters_and_names()]
    D = 2 if kwargs.get("bidirectional") else 1
    L = kwargs.get("num_layers", 1)
    xshape = (B, T, I) if kwargs.get("batch_first") else (T, B, I)
    x = rng.standard_normal(xshape).astype(dtype)
    states = [rng.standard_normal((L * D, B, H)).astype(dtype) * 0.5
              for _ in range(2 if kind == "LSTM" else 1)]
    ns = len(states)

    def ms_fn(x, *rest):
        _swap_weights(net, rest[ns:])
        hx = tuple(rest[:ns]) if kind == "LSTM" else rest[0]
        out, h = net(x, hx)
        return (out,) + (tuple(h) if kind == "LSTM" else (h,))

    def torch_fn(x, *rest):
        params = dict(zip(names, rest[ns:]))
        hx = tuple(rest[:ns]) if kind == "LSTM" else rest[0]
        out, h = torch.func.functional_call(tnet.to(x.dtype), params, (x, hx))
        return (out,) + (tuple(h) if kind == "LSTM" else (h,))

    return ms_fn, torch_fn, [x] + states + weights


CASES = [
    ("LSTM", dict(T=5, B=3, I=4, H=6)),
    ("LSTM", dict(T=1, B=1, I=2, H=3)),
    ("LSTM", dict(T=4, B=2, I=3, H=5, batch_first=True)),
    ("LSTM", dict(T=4, B=2, I=3, H=5, bidirectional=True)),
    ("LSTM", dict(T=3, B=2, I=3, H=4, num_layers=2)),
    ("LSTM", dict(T=3, B=2, I=3, H=4, num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(T=4, B=2, I=3, H=4, has_bias=False)),
    ("GRU", dict(T=5, B=3, I=4, H=6)),
    ("GRU", dict(T=4, B=2, I=3, H=5, batch_first=True, bidirectional=True)),
    ("GRU", dict(T=3, B=2, I=3, H=4, num_layers=2, has_bias=False)),
    ("RNN", dict(T=5, B=3, I=4, H=6)),
    ("RNN", dict(T=5, B=3, I=4, H=6, nonlinearity="relu")),
    ("RNN", dict(T=3, B=2, I=3, H=4, num_layers=2, bidirectional=True, nonlinearity="relu")),
]


@pytest.mark.parametrize("kind,shape", CASES, ids=lambda v: v if isinstance(v, str) else
                         "-".join(f"{k}{v2}" for k, v2 in v.items()))
def test_layer_forward_and_grads_match_torch(kind, shape):
    ms_fn, torch_fn, arrays = _layer_case(kind, **shape)
    check_op(ms_fn, torch_fn, arrays)


def test_default_state_is_zeros_and_output_structure():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32))
    out, (h, c) = net(x)
    assert out.shape == (5, 2, 8) and h.shape == (4, 2, 4) and c.shape == (4, 2, 4)
    zeros = ms.Tensor(np.zeros((4, 2, 4), np.float32))
    out2, (h2, c2) = net(x, (zeros, zeros))
    np.testing.assert_array_equal(out.asnumpy(), out2.asnumpy())
    gru_out, gru_h = nn.GRU(3, 4, batch_first=True)(ms.Tensor(np.ones((2, 5, 3), np.float32)))
    assert gru_out.shape == (2, 5, 4) and gru_h.shape == (1, 2, 4)


def test_parameter_names_shapes_and_default_init():
    net = nn.LSTM(3, 8, num_layers=2, bidirectional=True)
    shapes = {n: p.shape for n, p in net.parameters_and_names()}
    # as MindSpore 2.10 (checked): every weight_ih first, then weight_hh, bias_ih, bias_hh
    assert list(shapes)[:4] == ["weight_ih_l0", "weight_ih_l0_reverse", "weight_ih_l1",
                                "weight_ih_l1_reverse"]
    assert shapes["weight_ih_l0"] == (32, 3) and shapes["weight_ih_l1_reverse"] == (32, 16)
    assert shapes["weight_hh_l1"] == (32, 8) and shapes["bias_hh_l0_reverse"] == (32,)
    assert len(shapes) == 16
    bound = 1 / np.sqrt(8)
    for _, p in net.parameters_and_names():
        a = p.asnumpy()
        assert a.dtype == np.float32 and np.abs(a).max() <= bound and np.abs(a).max() > bound / 2
    assert [n for n, _ in nn.GRU(3, 4, has_bias=False).parameters_and_names()] == \
        ["weight_ih_l0", "weight_hh_l0"]
    assert {n: p.shape for n, p in nn.GRUCell(3, 4).parameters_and_names()} == \
        {"weight_ih": (12, 3), "weight_hh": (12, 4), "bias_ih": (12,), "bias_hh": (12,)}

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4)

    assert [p.name for p in Net().get_parameters()] == \
        ["lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0", "lstm.bias_hh_l0"]


def test_copy_from_torch_state_dict_by_name():
    tnet = torch.nn.GRU(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    net = nn.GRU(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    sd = tnet.state_dict()
    for name, p in net.parameters_and_names():
        p.set_data(ms.Tensor(sd[name].numpy()))
    x = np.random.default_rng(1).standard_normal((3, 6, 4)).astype(np.float32)
    out, h = net(ms.Tensor(x))
    tout, th = tnet(torch.tensor(x))
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), th.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_seq_length_matches_torch_packed_sequence(kind, bidirectional):
    ms_cls, t_cls = KINDS[kind]
    net, tnet = ms_cls(3, 4, bidirectional=bidirectional), t_cls(3, 4, bidirectional=bidirectional)
    sd = tnet.state_dict()
    for name, p in net.parameters_and_names():
        p.set_data(ms.Tensor(sd[name].numpy()))
    lengths = np.array([5, 2, 4], np.int32)
    x = np.random.default_rng(2).standard_normal((5, 3, 3)).astype(np.float32)
    out, h = net(ms.Tensor(x), seq_length=ms.Tensor(lengths))
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), torch.tensor(lengths),
                                                     enforce_sorted=False)
    tout, th = tnet(packed)
    tout, _ = torch.nn.utils.rnn.pad_packed_sequence(tout, total_length=5)
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    hs = (h if kind == "LSTM" else (h,))
    ths = (th if kind == "LSTM" else (th,))
    for a, b in zip(hs, ths):
        np.testing.assert_allclose(a.asnumpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    # gradient reaches the input only through valid steps
    g = ms.grad(lambda t: net(t, seq_length=ms.Tensor(lengths))[0].sum())(ms.Tensor(x)).asnumpy()
    assert np.all(g[2:, 1] == 0) and np.all(g[4:, 2] == 0) and np.any(g[:2, 1] != 0)


@pytest.mark.parametrize("kind,nl", [("LSTMCell", None), ("GRUCell", None), ("RNNCell", "tanh"),
                                     ("RNNCell", "relu")])
@pytest.mark.parametrize("has_bias", [True, False])
def test_cells_match_torch(kind, nl, has_bias):
    ms_cls, t_cls = getattr(nn, kind), getattr(torch.nn, kind)
    extra = {"nonlinearity": nl} if nl else {}
    cell = ms_cls(4, 5, has_bias=has_bias, **extra)
    tcell = t_cls(4, 5, bias=has_bias, **extra)
    names = [n for n, _ in cell.parameters_and_names()]
    assert names == [n for n, _ in tcell.named_parameters()]
    rng = np.random.default_rng(3)
    weights = [rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)
               for _, p in cell.parameters_and_names()]
    ns = 2 if kind == "LSTMCell" else 1
    states = [rng.standard_normal((3, 5)).astype(np.float32) for _ in range(ns)]
    x = rng.standard_normal((3, 4)).astype(np.float32)

    def ms_fn(x, *rest):
        for n, t in zip(names, rest[ns:]):
            cell.__dict__[n] = t
        out = cell(x, tuple(rest[:ns]) if ns == 2 else rest[0])
        return tuple(out) if ns == 2 else out

    def torch_fn(x, *rest):
        out = torch.func.functional_call(tcell, dict(zip(names, rest[ns:])),
                                         (x, tuple(rest[:ns]) if ns == 2 else rest[0]))
        return tuple(out) if ns == 2 else out

    check_op(ms_fn, torch_fn, [x] + states + weights)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_double_backward(kind):
    ms_fn, _, arrays = _layer_case(kind, T=2, B=1, I=2, H=2, dtype=np.float64,
                                   bidirectional=True)
    check_double_backward(ms_fn, arrays)


def test_dropout_between_layers_in_training_only():
    net = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = ms.Tensor(np.random.default_rng(4).standard_normal((5, 2, 3)).astype(np.float32))
    eval_out = net(x)[0].asnumpy()
    assert isinstance(net.dropout_op, nn.Dropout)
    # replay a known mask: the result equals layer 0 -> mask / keep_prob -> layer 1 run by hand
    mask = (np.random.default_rng(5).random((5, 2, 4)) > 0.5).astype(np.float32)
    net.dropout_op.mask_provider = lambda shape, keep: mask
    net.set_train()
    train_out, (h, c) = net(x)
    l0, l1 = nn.LSTM(3, 4), nn.LSTM(4, 4)
    params = dict(net.parameters_and_names())
    for layer, k in ((l0, 0), (l1, 1)):
        for name, p in layer.parameters_and_names():
            p.set_data(ms.Tensor(params[name.replace("l0", f"l{k}")].asnumpy()))
    mid = l0(x)[0].asnumpy() * mask / 0.5
    want = l1(ms.Tensor(mid.astype(np.float32)))[0].asnumpy()
    np.testing.assert_allclose(train_out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(train_out.asnumpy(), eval_out)
    net.set_train(False)
    np.testing.assert_array_equal(net(x)[0].asnumpy(), eval_out)


def test_validation_messages_as_mindspore():
    with pytest.raises(ValueError, match="For 'LSTM', the 'hidden_size' must be int and must > 0"):
        nn.LSTM(3, 0)
    with pytest.raises(TypeError, match="For 'LSTM', the type of 'dropout' must be 'float'"):
        nn.LSTM(3, 4, dropout=0)
    with pytest.raises(ValueError, match=r"the 'dropout' must be a number in range \[0, 1\)"):
        nn.GRU(3, 4, dropout=1.0)
    with pytest.raises(TypeError, match="the type of 'has_bias' should be 'bool'"):
        nn.GRU(3, 4, has_bias=1)
    with pytest.raises(ValueError, match=r"the 'nonlinearity' must be in \['tanh', 'relu'\]"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(TypeError, match="the length of 'hx' must be '2'"):
        net = nn.LSTM(3, 4)
        net(ms.Tensor(np.ones((2, 1, 3), np.float32)), (ms.Tensor(np.zeros((1, 1, 4), np.float32)),))
    with pytest.raises(ValueError, match="input_size=3"):
        nn.GRU(3, 4)(ms.Tensor(np.ones((2, 1, 5), np.float32)))
    assert "nonlinearity='relu'" in repr(nn.RNN(3, 4, nonlinearity="relu"))
