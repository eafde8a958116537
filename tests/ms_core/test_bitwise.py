"""Bitwise ops and operators on integer tensors: MindSpore's BitwiseAnd/Or/Xor, LeftShift/RightShift
(``ops.bitwise_*``), and ``&``, ``|``, ``^`` of integer tensors bitwise as MindSpore 2.10's (logical on
bool tensors, where the two agree). Values against torch."""
import numpy as np
import pytest

import ms_core as ms
from ms_core import ops

torch = pytest.importorskip("torch")

A = np.array([[3, 5, -8], [64, 7, 0]], dtype=np.int64)
B = np.array([[1, 4, 3], [2, 2, 1]], dtype=np.int64)


@pytest.mark.parametrize("name, fn", [
    ("bitwise_and", torch.bitwise_and), ("bitwise_or", torch.bitwise_or), ("bitwise_xor", torch.bitwise_xor),
    ("bitwise_left_shift", torch.bitwise_left_shift), ("bitwise_right_shift", torch.bitwise_right_shift)])
def test_bitwise_ops_match_torch(name, fn):
    got = getattr(ops, name)(ms.Tensor(A), ms.Tensor(B))
    want = fn(torch.from_numpy(A), torch.from_numpy(B)).numpy()
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = getattr(ops, name)(ms.Tensor(A.astype(np.int32)), 2)  # a Python int beside an int32 tensor
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), fn(torch.from_numpy(A.astype(np.int32)), 2).numpy())


def test_integer_operators_are_bitwise_and_bool_ones_logical():
    a, b = ms.Tensor(A), ms.Tensor(B)
    ta, tb = torch.from_numpy(A), torch.from_numpy(B)
    for got, want in [(a & b, ta & tb), (a | b, ta | tb), (a ^ b, ta ^ tb), (a & 1, ta & 1), (6 | a, 6 | ta)]:
        np.testing.assert_array_equal(got.asnumpy(), want.numpy())
    p, q = np.array([True, False, True]), np.array([True, True, False])
    for got, want in [(ms.Tensor(p) & ms.Tensor(q), p & q), (ms.Tensor(p) ^ ms.Tensor(q), p ^ q)]:
        assert got.dtype == ms.bool_
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_a_floating_point_input_is_refused_as_mindspore_does():
    with pytest.raises(TypeError, match="For 'RightShift', the input must be a Tensor of int or bool type"):
        ops.bitwise_right_shift(ms.Tensor(np.ones(2, np.float32)), 1)
