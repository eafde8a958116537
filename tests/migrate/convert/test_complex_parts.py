"""A tensor's .real / .imag (MindSpore 2.10's are methods) become ops.real / ops.imag; assigning
to them (torch writes into the complex tensor) is marked. Numbers and gradients vs torch."""
import numpy as np
import torch

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import after, check

CODE = ("def f(x: torch.Tensor):\n    z = torch.fft.fft2(x)\n"
        "    return z.real * 2 + z.imag.abs() + torch.fft.fftn(x, dim=(0, 1), norm='ortho').abs()\n")


def test_parts_of_a_tensor_become_ops():
    check("def f(x: torch.Tensor):\n    return x.real, torch.sin(x).imag\n",
          "def f(x: ms.Tensor):\n    return ops.real(x), ops.imag(ops.sin(x))\n")


def test_assigning_to_a_part_is_marked_and_kept():
    out = after("def f(z: torch.Tensor, w):\n    z.real = w\n    z.imag += w\n    return z\n")
    assert out.count("# migrate: MS905 assigning to z.") == 2 and "z.real = w" in out, out


def test_parts_values_and_gradients_match_torch():
    src = "import torch\n" + CODE
    res = convert_source(src)
    assert "# migrate" not in res.code and "ops.real(z)" in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(src, t_ns)
    exec(res.code, m_ns)
    x = np.random.RandomState(0).randn(3, 4, 5).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    ref = t_ns["f"](tx)
    ref.sum().backward()
    out = m_ns["f"](ms.Tensor(x))
    grad = ms.grad(lambda v: m_ns["f"](v).sum())(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)  # sums of 20 terms
    np.testing.assert_allclose(grad.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
