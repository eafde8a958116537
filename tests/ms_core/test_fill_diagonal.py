"""Tensor.fill_diagonal (MindSpore's out-of-place form of torch's fill_diagonal_): values and
gradients against torch, the wrap of a tall matrix, more than two dimensions, bad input."""
import numpy as np
import pytest
import torch

import ms_core as ms


@pytest.mark.parametrize("shape, wrap", [((4, 4), False), ((7, 3), True), ((7, 3), False), ((3, 5), True),
                                         ((3, 3, 3), False)])
def test_values_and_gradient_match_torch(shape, wrap):
    rng = np.random.RandomState(0)
    a = rng.randn(*shape).astype(np.float32)
    w = rng.randn(*shape).astype(np.float32)
    t = torch.tensor(a, requires_grad=True)
    out = t.clone().fill_diagonal_(-2.5, wrap=wrap)
    (out * torch.from_numpy(w)).sum().backward()

    def f(x):
        return (x.fill_diagonal(-2.5, wrap) * ms.Tensor(w)).sum()
    got = ms.Tensor(a).fill_diagonal(-2.5, wrap)
    assert got.dtype == ms.float32
    np.testing.assert_array_equal(got.asnumpy(), out.detach().numpy())
    np.testing.assert_allclose(ms.grad(f)(ms.Tensor(a)).asnumpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_an_integer_tensor_keeps_its_dtype():
    t = torch.arange(9).reshape(3, 3).fill_diagonal_(7)
    got = ms.Tensor(np.arange(9).reshape(3, 3)).fill_diagonal(7)
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), t.numpy())


@pytest.mark.parametrize("shape, message", [((4,), "at least 2"), ((2, 3, 3), "same length")])
def test_bad_shapes_say_what_is_wrong(shape, message):
    with pytest.raises(ValueError, match=f"For 'fill_diagonal'.*{message}"):
        ms.Tensor(np.zeros(shape, np.float32)).fill_diagonal(1.0)
