"""F.local_response_norm (pytorchcv's AlexNet calls it) -> the generated
torch_local_response_norm: forward and gradients against torch, odd and even sizes, ranks 3-5."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_zoo_idioms import _load

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import torch.nn.functional as F

def lrn(x, size, alpha, beta, k):
    return F.local_response_norm(x, size, alpha=alpha, beta=beta, k=k)
"""


@pytest.fixture(scope="module")
def cmod(tmp_path_factory):
    res = convert_source(SRC)
    assert res.error is None and not res.unsupported, res.code
    assert "torch_local_response_norm(" in res.code
    return _load(tmp_path_factory.mktemp("lrn"), "lrn_ms", res.code)


@pytest.mark.parametrize("shape,size", [((2, 7, 5), 5), ((2, 6, 4, 3), 4), ((1, 5, 2, 3, 2), 3),
                                        ((2, 3, 4, 4), 1)])
def test_matches_torch(cmod, shape, size):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    c = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    args = (size, 2e-2, 0.75, 2.0)
    xt = torch.tensor(x, requires_grad=True)
    out_t = torch.nn.functional.local_response_norm(xt, *args)
    (out_t * torch.tensor(c)).sum().backward()
    out_m = cmod.lrn(ms.Tensor(x), *args)
    np.testing.assert_allclose(out_m.asnumpy(), out_t.detach().numpy(), rtol=1e-5, atol=1e-6)
    g = ms.grad(lambda v: (cmod.lrn(v, *args) * ms.Tensor(c)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_two_dimensional_input_is_refused(cmod):
    with pytest.raises(ValueError, match="For 'local_response_norm', the input must have 3 or more"):
        cmod.lrn(ms.Tensor(np.ones((2, 3), np.float32)), 3, 1e-4, 0.75, 1.0)
