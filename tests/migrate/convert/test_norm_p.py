"""x.norm(p) / torch.norm(x, p) for a number p other than 2 (1, 1.5, 3, 0, -1, inf, -inf), with dim,
keepdim, dtype: ops.vector_norm(x, p, dim, keepdim), torch's vector norm (over all elements when dim is
None; MindSpore's ops.norm with an ord is a matrix norm of a 2-D input, so these were marked). Values and
gradients against torch; 'nuc' stays marked."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import both_sides

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import math
import torch


def norms(x):
    return [x.norm(p=1, dim=-1, keepdim=True), torch.norm(x, float('inf'), dim=1), x.norm(p=math.inf),
            x.norm(3), x.norm(p=-math.inf, dim=(0, 1)), x.norm(p=0), x.norm(p=-1, dim=0),
            torch.norm(x, p=1, dim=0, dtype=torch.float64), x.norm(p=1.5), x.norm(2, dim=1), x.norm(),
            x.norm(p='fro', dim=(0, 1), keepdim=True), torch.norm(x, 2, dim=-1, keepdim=True)]


def loss(x):
    return sum(n.sum() for n in norms(x)[:4]) + norms(x)[6].sum() + norms(x)[8]
"""

X = np.array([[0.5, -2.0, 3.0], [-4.0, 0.25, -6.0]], np.float32)  # no ties for the max / min, no zeros


def test_numeric_p_norms_match_torch():
    tns, cns = both_sides(SRC, "ops.vector_norm(x, 1, -1, True)")
    want = tns["norms"](torch.from_numpy(X))
    got = cns["norms"](ms.Tensor(X))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == tuple(w.shape), i
        assert g.asnumpy().dtype == w.numpy().dtype, i
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6, err_msg=str(i))
    xt = torch.from_numpy(X).requires_grad_()
    tns["loss"](xt).backward()
    grad = ms.grad(cns["loss"])(ms.Tensor(X))
    np.testing.assert_allclose(grad.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_nuclear_norm_stays_marked():
    res = convert_source("import torch\n\n\ndef f(x):\n    return x.norm(p='nuc')\n")
    assert "# migrate: MS902 Tensor.norm: p='nuc'" in res.code, res.code


NUMPY_SRC = """\
import numpy as np
import torch


def normalise(v, x):
    v = v / np.linalg.norm(v, axis=0)[None, :]
    return v, np.linalg.norm(v - 1.0), x.norm(p=1)
"""


def test_a_numpy_submodule_function_is_not_a_tensor_method():
    """piq's msid: `np.linalg.norm(v, axis=0)` (numpy imported whole; numpy.linalg a submodule on disk) was taken
    for Tensor.norm with p=v and marked MS902; it stays NumPy's call, the tensor's norm beside it is translated."""
    tns, cns = both_sides(NUMPY_SRC, "np.linalg.norm(v, axis=0)[None, :]")
    v = np.array([[1.0, 2.0], [3.0, -4.0]])
    want = tns["normalise"](v, torch.from_numpy(X))
    got = cns["normalise"](v, ms.Tensor(X))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    np.testing.assert_allclose(got[2].asnumpy(), want[2].numpy(), rtol=1e-5, atol=1e-6)
