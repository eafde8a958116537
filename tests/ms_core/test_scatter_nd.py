"""ops.scatter_nd (MindSpore 2.10: a zero tensor with updates added at indices, repeats
accumulating) against torch's index_put(accumulate=True), values and gradients, and its errors."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import ops

rs = np.random.RandomState(1)


@pytest.mark.parametrize("index,shape", [(np.array([[0, 1], [2, 0], [0, 1]]), (3, 2)),   # a repeat
                                         (np.array([[1], [1], [0]]), (2, 3)),            # rows
                                         (np.array([[[0, 0, 1], [1, 1, 0]]]), (2, 2, 2))])
def test_scatter_nd_matches_torch_accumulating_index_put(index, shape):
    k = index.shape[-1]
    updates = rs.randn(*index.shape[:-1], *shape[k:]).astype(np.float32)
    cot = rs.randn(*shape).astype(np.float32)
    tu = torch.tensor(updates, requires_grad=True)
    want = torch.zeros(shape).index_put(tuple(torch.tensor(index[..., j]) for j in range(k)), tu, accumulate=True)
    (want * torch.tensor(cot)).sum().backward()
    got = ops.scatter_nd(ms.Tensor(index), ms.Tensor(updates), shape)
    grad = ms.grad(lambda u: (ops.scatter_nd(ms.Tensor(index), u, shape) * ms.Tensor(cot)).sum())(ms.Tensor(updates))
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad.asnumpy(), tu.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert got.dtype == ms.float32


def test_scatter_nd_keeps_integer_updates():
    got = ops.scatter_nd(ms.Tensor(np.array([[0, 1], [0, 1]], np.int32)), ms.Tensor(np.array([1, 2], np.int64)), (2, 2))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 3], [0, 0]])  # MindSpore 2.10 prints the same
    assert got.dtype == ms.int64


@pytest.mark.parametrize("index,updates,match", [(np.array([[0, 1, 0]]), np.ones(1), "at most the rank"),
                                                 (np.array([[0, 1]]), np.ones(2), "must have shape")])
def test_scatter_nd_errors(index, updates, match):
    with pytest.raises(ValueError, match=match):
        ops.scatter_nd(ms.Tensor(index), ms.Tensor(updates.astype(np.float32)), (2, 2))
