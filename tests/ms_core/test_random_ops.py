"""Random ops: shapes, dtypes, seeding and distributions."""
import numpy as np
import pytest

import ms_core as ms
from ms_core import ops


def test_shapes_dtypes_and_seeds():
    assert ops.randn(2, 3).shape == (2, 3) and ops.randn((2, 3)).dtype == ms.float32
    assert ops.rand(4, dtype=ms.float64).dtype == ms.float64
    assert np.array_equal(ops.randn(5, seed=3).asnumpy(), ops.randn(5, seed=3).asnumpy())
    ms.set_seed(1)
    a = ops.rand(5).asnumpy()
    ms.set_seed(1)
    assert np.array_equal(a, ops.rand(5).asnumpy())
    r = ops.randint(2, 5, (1000,))
    assert r.dtype == ms.int64 and r.asnumpy().min() == 2 and r.asnumpy().max() == 4
    assert sorted(ops.randperm(6).asnumpy().tolist()) == list(range(6))
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    assert ops.randn_like(x).shape == (3, 2) and ops.rand_like(x).dtype == ms.float32


def test_distributions():
    ms.set_seed(0)
    n = ops.randn(20000).asnumpy()
    u = ops.rand(20000).asnumpy()
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1) < 0.03  # 20k draws: > 4 standard errors
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    b = ops.bernoulli(ms.Tensor(np.zeros(20000, np.float32)), 0.3).asnumpy()
    assert abs(b.mean() - 0.3) < 0.02
    m = ops.multinomial(ms.Tensor(np.array([[0.0, 1.0, 0.0]], np.float32)), 4).asnumpy()
    assert m.tolist() == [[1, 1, 1, 1]]


def test_bad_arguments():
    with pytest.raises(ValueError, match="For 'randint', 'low' must be less than 'high'"):
        ops.randint(3, 3, (2,))
    with pytest.raises(ValueError, match="For 'randn', the 'size' must be non-negative ints"):
        ops.randn(-1)
    with pytest.raises(TypeError, match="For 'rand', the 'dtype' must be a float type"):
        ops.rand(2, dtype=ms.int32)
