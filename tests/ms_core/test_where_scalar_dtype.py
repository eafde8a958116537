"""A Python number beside a tensor in where / masked_fill is weak, as in torch and MindSpore:
the result keeps the tensor's dtype (an int 0 made float32 inputs float64, and a loss built on
it differentiated in float64)."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import ops

MASK = np.array([[True, False, True], [False, False, True]])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("value", [0, 2, 0.5])
def test_masked_fill_and_where_keep_the_tensors_dtype(dtype, value):
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    t = torch.from_numpy(a)
    m = ms.Tensor(MASK)
    for got, ref in ((ops.masked_fill(ms.Tensor(a), m, value), t.masked_fill(torch.from_numpy(MASK), value)),
                     (ops.where(m, value, ms.Tensor(a)), torch.where(torch.from_numpy(MASK), value, t)),
                     (ops.where(m, ms.Tensor(a), value), torch.where(torch.from_numpy(MASK), t, value))):
        assert str(got.asnumpy().dtype) == str(ref.numpy().dtype) == dtype
        np.testing.assert_array_equal(got.asnumpy(), ref.numpy())


def test_the_gradient_through_where_with_a_number_is_float32():
    a = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    t = torch.tensor(a, requires_grad=True)
    (torch.where(torch.from_numpy(MASK), 0, t) * 3).sum().backward()
    g = ms.grad(lambda x: (ops.where(ms.Tensor(MASK), 0, x) * 3).sum())(ms.Tensor(a))
    assert g.dtype == ms.float32
    np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)
