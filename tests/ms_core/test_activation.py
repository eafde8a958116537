"""Activations (cells and functional) against torch: forward, gradients, second derivatives."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ms_core as ms
from ms_core import nn, ops
from optest import check_double_backward, check_op

rng = np.random.default_rng(0)


def r(*shape, dtype=np.float32, scale=3.0):
    # spread over the interesting ranges (kinks at 0, ±3, 6) without sitting on a kink
    return (rng.standard_normal(shape) * scale).astype(dtype)


# (name, ms_fn, torch_fn)
CASES = [
    ("ReLU", nn.ReLU(), torch.relu),
    ("ReLU6", nn.ReLU6(), TF.relu6),
    ("LeakyReLU_default_0.2", nn.LeakyReLU(), lambda x: TF.leaky_relu(x, 0.2)),
    ("LeakyReLU_1.5", nn.LeakyReLU(1.5), lambda x: TF.leaky_relu(x, 1.5)),
    ("Sigmoid", nn.Sigmoid(), torch.sigmoid),
    ("Tanh", nn.Tanh(), torch.tanh),
    ("GELU_default_tanh", nn.GELU(), lambda x: TF.gelu(x, approximate="tanh")),
    ("GELU_exact", nn.GELU(approximate=False), TF.gelu),
    ("ops.gelu_default_exact", ops.gelu, TF.gelu),
    ("ops.gelu_tanh", lambda x: ops.gelu(x, "tanh"), lambda x: TF.gelu(x, approximate="tanh")),
    ("SiLU", nn.SiLU(), TF.silu),
    ("HSwish", nn.HSwish(), TF.hardswish),
    ("HSigmoid", nn.HSigmoid(), TF.hardsigmoid),
    ("Softmax", nn.Softmax(), lambda x: torch.softmax(x, -1)),
    ("Softmax_axis0", nn.Softmax(0), lambda x: torch.softmax(x, 0)),
    ("LogSoftmax", nn.LogSoftmax(), lambda x: torch.log_softmax(x, -1)),
    ("ELU", nn.ELU(), TF.elu),
    ("ELU_0.5", nn.ELU(0.5), lambda x: TF.elu(x, 0.5)),
    ("Softplus", nn.Softplus(), TF.softplus),
    ("Softplus_beta2_thr3", nn.Softplus(2, 3), lambda x: TF.softplus(x, 2, 3)),
    ("Mish", nn.Mish(), TF.mish),
    ("Hardtanh", nn.Hardtanh(-2.0, 1.5), lambda x: TF.hardtanh(x, -2.0, 1.5)),
    ("SeLU", nn.SeLU(), TF.selu),
    ("Softsign", nn.Softsign(), TF.softsign),
    ("LogSigmoid", nn.LogSigmoid(), TF.logsigmoid),
    ("HShrink", nn.HShrink(), TF.hardshrink),
    ("SoftShrink", nn.SoftShrink(), TF.softshrink),
    ("Tanhshrink", nn.Tanhshrink(), TF.tanhshrink),
    ("ops.relu6", ops.relu6, TF.relu6),
    ("ops.leaky_relu", lambda x: ops.leaky_relu(x, 0.1), lambda x: TF.leaky_relu(x, 0.1)),
    ("ops.elu", lambda x: ops.elu(x, 2.0), lambda x: TF.elu(x, 2.0)),
    ("ops.silu", ops.silu, TF.silu),
    ("ops.hardswish", ops.hardswish, TF.hardswish),
    ("ops.hardsigmoid", ops.hardsigmoid, TF.hardsigmoid),
    ("ops.softplus", ops.softplus, TF.softplus),
    ("ops.mish", ops.mish, TF.mish),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,ms_fn,torch_fn", CASES, ids=IDS)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2, 2)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_matches_torch(name, ms_fn, torch_fn, shape, dtype):
    # torch's hardsigmoid backward multiplies by 1.0f/6.0f computed in float32 even for float64
    rtol = 1e-7 if "sigmoid" in name.lower() and "hard" in name.lower() or name == "HSigmoid" else None
    check_op(ms_fn, torch_fn, [r(*shape, dtype=dtype)], rtol=rtol if dtype == np.float64 else None)


@pytest.mark.parametrize("name,ms_fn,torch_fn", CASES, ids=IDS)
def test_activation_double_backward(name, ms_fn, torch_fn):
    check_double_backward(ms_fn, [r(2, 3, dtype=np.float64)])


@pytest.mark.parametrize("name,ms_fn,torch_fn", CASES, ids=IDS)
def test_activation_keeps_float32(name, ms_fn, torch_fn):
    assert ms_fn(ms.Tensor(r(3, 2))).dtype == ms.float32


def test_softplus_is_stable_for_large_inputs():
    x = ms.Tensor(np.array([-1000.0, 0.0, 1000.0], np.float32))
    np.testing.assert_allclose(ops.softplus(x).asnumpy(), [0.0, np.log(2.0), 1000.0], rtol=1e-6)
    np.testing.assert_allclose(nn.Mish()(x).asnumpy(), [0.0, 0.0, 1000.0], atol=1e-6)


# --- PReLU ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,channel", [((5,), 1), ((3, 4), 1), ((3, 4), 4), ((2, 3, 2, 2), 3)],
                         ids=str)
def test_prelu_matches_torch_including_weight_grad(shape, channel):
    w = (rng.random(channel) * 0.5).astype(np.float32)

    def ms_fn(x, weight):
        return ops.prelu(x, weight)

    check_op(ms_fn, TF.prelu, [r(*shape), w])
    check_double_backward(ms_fn, [r(*shape[:2], dtype=np.float64), w.astype(np.float64)])


def test_prelu_cell_parameter_and_arguments():
    p = nn.PReLU()
    # MindSpore stores the slope in attribute `w`, created as Parameter(name='a')
    assert p.w.name == "a" and p.w.shape == (1,)
    np.testing.assert_allclose(p.w.asnumpy(), [0.25])
    p3 = nn.PReLU(3, [0.1, 0.2, 0.3])
    x = ms.Tensor(r(2, 3, 2))
    expected = TF.prelu(torch.tensor(x.asnumpy()), torch.tensor([0.1, 0.2, 0.3])).numpy()
    np.testing.assert_allclose(p3(x).asnumpy(), expected, rtol=1e-6)
    gw = ms.grad(lambda a: p3(a).sum(), None, p3.trainable_params())(x)[0]
    assert gw.shape == (3,)
    with pytest.raises(ValueError, match="length should be equal to the channel"):
        nn.PReLU(3, [0.1])
    with pytest.raises(TypeError, match="only supported float, list and tensor"):
        nn.PReLU(1, "x")
    with pytest.raises(ValueError, match="'channel' must be a positive int"):
        nn.PReLU(0)


# --- defaults and get_activation ------------------------------------------------------------

def test_mindspore_defaults_differ_from_torch_where_documented():
    x = ms.Tensor(np.array([-1.0, 1.0], np.float32))
    np.testing.assert_allclose(nn.LeakyReLU()(x).asnumpy(), [-0.2, 1.0])  # torch: -0.01
    gelu_default = nn.GELU()(x).asnumpy()
    tanh_form = TF.gelu(torch.tensor([-1.0, 1.0]), approximate="tanh").numpy()
    np.testing.assert_allclose(gelu_default, tanh_form, rtol=1e-6)
    assert not np.allclose(gelu_default, TF.gelu(torch.tensor([-1.0, 1.0])).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name,cls", [("relu", nn.ReLU), ("ReLU6", nn.ReLU6), ("gelu", nn.GELU),
                                      ("leakyrelu", nn.LeakyReLU), ("hswish", nn.HSwish),
                                      ("hsigmoid", nn.HSigmoid), ("silu", nn.SiLU),
                                      ("softmax", nn.Softmax), ("logsoftmax", nn.LogSoftmax),
                                      ("elu", nn.ELU), ("prelu", nn.PReLU), ("sigmoid", nn.Sigmoid),
                                      ("tanh", nn.Tanh), ("mish", nn.Mish)])
def test_get_activation(name, cls):
    assert isinstance(nn.get_activation(name), cls)


def test_get_activation_errors_and_dense_activation_string():
    with pytest.raises(KeyError, match="must be one of"):
        nn.get_activation("swishy")
    dense = nn.Dense(3, 2, activation="relu6")
    assert isinstance(dense.activation, nn.ReLU6)


def test_gelu_argument_validation():
    with pytest.raises(ValueError, match="'approximate' must be 'none' or 'tanh'"):
        ops.gelu(ms.Tensor(r(2)), approximate="fast")
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.silu(np.ones(2))


@pytest.mark.parametrize("op,torch_fn", [
    (ops.ReLU6(), TF.relu6), (ops.GeLU(), lambda x: TF.gelu(x, approximate="tanh")),
    (ops.HSwish(), TF.hardswish), (ops.HSigmoid(), TF.hardsigmoid), (ops.Mish(), TF.mish),
    (ops.SeLU(), TF.selu), (ops.Softplus(), TF.softplus), (ops.Softsign(), TF.softsign),
    (ops.Elu(), TF.elu)], ids=lambda v: type(v).__name__)
def test_operator_classes(op, torch_fn):
    check_op(op, torch_fn, [r(3, 4)])


def test_fast_gelu_formula():
    x = r(10).astype(np.float64)
    expected = x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))
    np.testing.assert_allclose(nn.FastGelu()(ms.Tensor(x)).asnumpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(ops.FastGeLU()(ms.Tensor(x)).asnumpy(), expected, rtol=1e-12)
