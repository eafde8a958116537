"""F.max_pool3d / F.avg_pool3d (torch.max_pool3d too): before/after pairs, and the converted
calls' values and input gradients against torch."""
import numpy as np
import pytest
import torch

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import check

X = np.random.RandomState(0).randn(2, 2, 5, 6, 7).astype(np.float32)


def test_pool3d_calls_translate():
    check("y = F.max_pool3d(x, 3, 2, 1)\nz = F.avg_pool3d(x, 2)\nw = F.avg_pool3d(x, 3, 1, 1, divisor_override=None)\n",
          "y = ops.max_pool3d(x, 3, 2, padding=1)\nz = ops.avg_pool3d(x, 2, stride=2)\n"
          "w = ops.avg_pool3d(x, 3, 1, 1)\n")  # (divisor_override=0: MindSpore's default)


@pytest.mark.parametrize("expr", [
    "F.max_pool3d(x, 3, 1, 1)", "F.max_pool3d(x, (3, 3, 3), (1, 1, 1), (1, 1, 1))",
    "F.max_pool3d(x, 2)", "F.max_pool3d(x, 3, 2, 1, ceil_mode=True)", "F.max_pool3d(x, 2, 1, dilation=2)",
    "torch.max_pool3d(x, 2, 2)", "F.max_pool3d(x, 2, return_indices=True)[0]",
    "F.avg_pool3d(x, 2)", "F.avg_pool3d(x, 3, 2, 1)", "F.avg_pool3d(x, 3, 2, 1, count_include_pad=False)",
    "F.avg_pool3d(x, 2, ceil_mode=True)", "F.avg_pool3d(x, 3, 1, 1, divisor_override=4)",
])
def test_pool3d_values_and_gradients_match_torch(expr):
    src = f"import torch\nimport torch.nn.functional as F\n\ndef f(x):\n    return {expr}\n"
    res = convert_source(src)
    assert not res.unsupported, res.code
    t_ns, m_ns = {}, {}
    exec(src, t_ns)
    exec(res.code, m_ns)
    tx = torch.tensor(X, requires_grad=True)
    ref = t_ns["f"](tx)
    cot = np.random.RandomState(1).randn(*ref.shape).astype(np.float32)
    (ref * torch.tensor(cot)).sum().backward()
    out = m_ns["f"](ms.Tensor(X))
    grad = ms.grad(lambda v: (m_ns["f"](v) * ms.Tensor(cot)).sum())(ms.Tensor(X))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
