"""`p.data = t` on a Parameter: as MindSpore 2.10 does it (run there: a (2, 2) float32 Parameter
given a (3,) float64 Tensor stays the same Parameter, named as before, and holds (3,) Float64)."""
import numpy as np

import ms_core as ms


def test_assigning_data_gives_the_parameter_the_values_shape_and_dtype():
    p = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")
    same = p
    new = np.arange(3, dtype=np.float64)
    p.data = ms.Tensor(new)
    assert p is same and p.name == "w" and p.requires_grad
    assert p.shape == (3,) and p.dtype == ms.float64
    np.testing.assert_array_equal(p.asnumpy(), new)
    new[0] = 7.0  # the parameter holds a copy
    assert p.asnumpy()[0] == 0.0


def test_a_cell_parameter_assigned_through_data_is_what_the_cell_uses():
    net = ms.nn.Dense(2, 1, has_bias=False)
    net.weight.data = ms.Tensor(np.full((1, 2), 0.5, np.float32))
    out = net(ms.Tensor(np.array([[1.0, 3.0]], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[2.0]], rtol=1e-6)


def test_a_tensors_data_reads_its_values_and_takes_new_ones_with_their_shape_and_dtype():
    # MindSpore 2.10 (tests/oracle/snippets/tensor_data.py): t.data is a Tensor of t's values, not
    # t; `t.data = v` gives t v's values, shape and dtype (an EMA over plain tensors)
    t = ms.Tensor(np.arange(4, dtype=np.float32))
    d = t.data
    assert isinstance(d, ms.Tensor) and d is not t
    np.testing.assert_array_equal(d.asnumpy(), np.arange(4, dtype=np.float32))
    t.data = ms.Tensor(np.zeros(3, np.float64))
    assert t.shape == (3,) and t.dtype == ms.float64
    shadow, p = ms.Tensor(np.ones((2, 2), np.float32)), ms.Tensor(np.full((2, 2), 3.0, np.float32))
    shadow.data = (1.0 - 0.9) * p + 0.9 * shadow.data
    np.testing.assert_allclose(shadow.asnumpy(), np.float32(0.1) * 3 + np.float32(0.9), rtol=1e-6)
    assert shadow.dtype == ms.float32
