"""The generated helpers of migrate/convert/state_runtime.py (attention with run-time options,
torch._foreach_* list ops, ...): before/after pairs, and the converted code run on ms_core
against torch (forward and gradients)."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import check
from tests.migrate.convert.rules.test_grad_mode import _run

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

# --- F.scaled_dot_product_attention with is_causal known at run time ---------------------------

def test_sdpa_runtime_is_causal_uses_the_helper():
    check("def f(q, k, v, c):\n    return F.scaled_dot_product_attention(q, k, v, is_causal=c)\n",
          "def f(q, k, v, c):\n    return _torch_sdpa(q, k, v, None, 0.0, c, None)\n")


def test_sdpa_literal_is_causal_stays_inline():
    got = check("def f(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v, is_causal=False)\n",
                "def f(q, k, v):\n    return ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -2, -1)) "
                "* q.shape[-1] ** -0.5, -1), v)\n")
    assert "_torch_sdpa" not in got.code


SDPA = """
import torch.nn.functional as F

def f(q, k, v, mask, causal, scale):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0, is_causal=causal,
                                          scale=scale)
"""


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("mask", [None, "bool", "float"])
@pytest.mark.parametrize("scale", [None, 0.3])
def test_sdpa_runtime_options_match_torch(causal, mask, scale):
    tf, cf, _ = _run(SDPA, "f")
    rs = np.random.RandomState(1)
    q, k, v = (rs.randn(2, 2, n, 4).astype(np.float32) for n in (3, 5, 5))
    m = None if mask is None else (rs.rand(3, 5) > 0.3) if mask == "bool" else rs.randn(3, 5).astype(np.float32)
    if mask == "bool":
        m[:, 0] = True  # no row entirely masked (torch and softmax give NaN there)
    tq = [torch.from_numpy(a).requires_grad_() for a in (q, k, v)]
    ref = tf(*tq, None if m is None else torch.from_numpy(m), causal, scale)
    (ref * ref).sum().backward()
    cm = None if m is None else ms.Tensor(m)
    fn = lambda a, b, c: (lambda o: (o * o).sum())(cf(a, b, c, cm, causal, scale))  # noqa: E731
    grads = ms.grad(fn, grad_position=(0, 1, 2))(*(ms.Tensor(a) for a in (q, k, v)))
    out = cf(*(ms.Tensor(a) for a in (q, k, v)), cm, causal, scale)
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    for g, t in zip(grads, tq):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)  # softmax backward
