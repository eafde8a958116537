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
