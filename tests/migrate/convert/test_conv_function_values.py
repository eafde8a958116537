"""F.conv1d / F.conv2d / F.conv3d used as values (``[F.conv1d, F.conv2d, F.conv3d][d - 1]``)
become generated torch-signature functions that translate padding where they are called; their
values and gradients are torch's."""
import numpy as np
import pytest
import torch

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, after

SRC = ("def f(x, w, d, p):\n    conv = [F.conv1d, F.conv2d, F.conv3d][d - 1]\n"
       "    return conv(x, w, stride=1, padding=p, groups=2)\n")


def test_conv_functions_as_values_become_torch_signature_functions():
    out = after(SRC)
    assert "conv = [torch_conv1d, torch_conv2d, torch_conv3d][d - 1]" in out and "# migrate" not in out, out


@pytest.mark.parametrize("d,padding",
                         [(1, 1), (1, (2,)), (1, "same"), (2, (1, 0)), (3, 1), (3, (1, 0, 2)), (3, "valid")])
def test_conv_function_values_match_torch(d, padding):
    code = HEADER + SRC
    res = convert_source(code)
    t_ns, m_ns = {}, {}
    exec(code, t_ns)
    exec(res.code, m_ns)
    rs = np.random.RandomState(d)
    x = rs.randn(2, 4, *([5] * d)).astype(np.float32)
    w = rs.randn(6, 2, *([3] * d)).astype(np.float32)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ref = t_ns["f"](tx, tw, d, padding)
    ref.sum().backward()
    out = m_ns["f"](ms.Tensor(x), ms.Tensor(w), d, padding)
    gx, gw = ms.grad(lambda a, b: m_ns["f"](a, b, d, padding).sum(), grad_position=(0, 1))(ms.Tensor(x), ms.Tensor(w))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)  # sums of 54 terms
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-4)  # sums over 250 positions
