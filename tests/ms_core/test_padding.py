"""Padding layers and ops.pad's non-constant modes against torch (forward + input gradients)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ms_core as ms
from ms_core import nn, ops
from tests.optest import check_op, check_double_backward

RNG = np.random.default_rng(0)


def _x(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = [
    (lambda: nn.ZeroPad2d(2), lambda: torch.nn.ZeroPad2d(2), (2, 3, 4, 5)),
    (lambda: nn.ZeroPad2d((1, 0, 2, 3)), lambda: torch.nn.ZeroPad2d((1, 0, 2, 3)), (3, 4, 5)),
    (lambda: nn.ConstantPad1d(2, 1.5), lambda: torch.nn.ConstantPad1d(2, 1.5), (2, 3, 4)),
    (lambda: nn.ConstantPad1d((0, 3), -1), lambda: torch.nn.ConstantPad1d((0, 3), -1), (3, 4)),
    (lambda: nn.ConstantPad2d((1, 2, 0, 1), 0.5), lambda: torch.nn.ConstantPad2d((1, 2, 0, 1), 0.5),
     (2, 2, 3, 3)),
    (lambda: nn.ConstantPad3d(1, 2.0), lambda: torch.nn.ConstantPad3d(1, 2.0), (1, 2, 2, 3, 2)),
    (lambda: nn.ReflectionPad1d(2), lambda: torch.nn.ReflectionPad1d(2), (2, 3, 5)),
    (lambda: nn.ReflectionPad1d((3, 1)), lambda: torch.nn.ReflectionPad1d((3, 1)), (3, 4)),
    (lambda: nn.ReflectionPad2d(2), lambda: torch.nn.ReflectionPad2d(2), (2, 2, 4, 3)),
    (lambda: nn.ReflectionPad2d((1, 2, 3, 0)), lambda: torch.nn.ReflectionPad2d((1, 2, 3, 0)),
     (2, 5, 4)),
    (lambda: nn.ReflectionPad3d(1), lambda: torch.nn.ReflectionPad3d(1), (1, 2, 3, 3, 2)),
    (lambda: nn.ReplicationPad1d(3), lambda: torch.nn.ReplicationPad1d(3), (2, 3, 4)),
    (lambda: nn.ReplicationPad1d((0, 2)), lambda: torch.nn.ReplicationPad1d((0, 2)), (3, 4)),
    (lambda: nn.ReplicationPad2d((2, 1, 0, 3)), lambda: torch.nn.ReplicationPad2d((2, 1, 0, 3)),
     (2, 2, 3, 3)),
    (lambda: nn.ReplicationPad2d(4), lambda: torch.nn.ReplicationPad2d(4), (2, 3, 2)),
    (lambda: nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)),
     lambda: torch.nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)), (1, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("ms_layer, torch_layer, shape", CASES)
def test_padding_layers_match_torch(ms_layer, torch_layer, shape):
    m, t = ms_layer(), torch_layer()
    check_op(lambda x: m(x), lambda x: t(x), [_x(*shape)])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_ops_pad_modes_match_torch(mode):
    pad = (2, 1, 1, 2)
    check_op(lambda x: ops.pad(x, pad, mode=mode), lambda x: TF.pad(x, pad, mode=mode),
             [_x(2, 3, 4, 5)])


def test_gradient_accumulates_over_copies():
    # replicate: the edge element receives the gradient of itself and of its 3 copies
    x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 4))
    g = ms.grad(lambda x: nn.ReplicationPad1d(3)(x).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [[[4, 1, 1, 4]]])
    # reflect with padding 2: x[1] and x[2] are copied once on each side... as torch
    g = ms.grad(lambda x: nn.ReflectionPad1d(2)(x).sum())(x)
    tx = torch.arange(4.0).reshape(1, 1, 4).requires_grad_()
    torch.nn.ReflectionPad1d(2)(tx).sum().backward()
    np.testing.assert_array_equal(g.asnumpy(), tx.grad.numpy())


def test_double_backward():
    check_double_backward(lambda x: (nn.ReflectionPad2d(1)(x) ** 2).sum(),
                          [RNG.standard_normal((1, 1, 3, 3))])
    check_double_backward(lambda x: (nn.ReplicationPad1d(2)(x) ** 3).sum(),
                          [RNG.standard_normal((1, 2, 3))])


def test_nn_pad_mindspore_docstring_examples():
    x = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    out = nn.Pad(paddings=((1, 1), (2, 2)), mode="CONSTANT")(x).asnumpy()
    np.testing.assert_array_equal(out, [[0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 2, 3, 0, 0],
                                        [0, 0, 4, 5, 6, 0, 0], [0, 0, 0, 0, 0, 0, 0]])
    out = nn.Pad(paddings=((1, 1), (2, 2)), mode="REFLECT")(x).asnumpy()
    np.testing.assert_array_equal(out, [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1],
                                        [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]])
    out = nn.Pad(paddings=((1, 1), (2, 2)), mode="SYMMETRIC")(x).asnumpy()
    np.testing.assert_array_equal(out, [[2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2],
                                        [5, 4, 4, 5, 6, 6, 5], [5, 4, 4, 5, 6, 6, 5]])


def test_nn_pad_symmetric_grad_matches_torch_equivalent():
    # SYMMETRIC = numpy 'symmetric'; torch has no such mode: compare against an explicit gather
    x = _x(3, 4)
    ri = np.array([0, 0, 1, 2, 2])
    ci = np.array([1, 0, 0, 1, 2, 3, 3, 2])
    check_op(lambda a: nn.Pad(((1, 1), (2, 2)), "SYMMETRIC")(a),
             lambda a: a[ri][:, ci], [x])


def test_validation_messages():
    with pytest.raises(ValueError, match="ConstantPad1d"):
        nn.ConstantPad1d((1, 2, 3, 4), 0.0)
    with pytest.raises(ValueError, match="multiple of 2"):
        nn.ConstantPad2d((1, 2, 3), 0.0)
    with pytest.raises(TypeError, match="'value'"):
        nn.ConstantPad2d(1, "a")
    with pytest.raises(ValueError, match=">= 0"):
        nn.ReflectionPad1d((-1, 2))
    with pytest.raises(ValueError, match="must be less than"):
        nn.ReflectionPad1d(3)(ms.Tensor(_x(1, 2, 3)))
    with pytest.raises(ValueError, match="dims"):
        nn.ReplicationPad2d(1)(ms.Tensor(_x(3, 3)))
    with pytest.raises(ValueError, match="'mode'"):
        nn.Pad(((1, 1),), mode="EDGE")
    with pytest.raises(ValueError, match="'mode'"):
        ops.pad(ms.Tensor(_x(2, 3)), (1, 1), mode="bogus")
    # MindSpore 2.10's message: a value is for mode 'constant' only (torch ignores value=0 there)
    with pytest.raises(ValueError, match="the padding mode 'reflect' can not set value, but got value 0.0"):
        ops.pad(ms.Tensor(_x(2, 3)), (1, 1), mode="reflect", value=0.0)


def test_repr():
    assert "padding=(1, 1, 1, 1)" in repr(nn.ZeroPad2d(1))
    assert "value=2.0" in repr(nn.ConstantPad1d(1, 2.0))
