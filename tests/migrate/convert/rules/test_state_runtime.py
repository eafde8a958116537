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
          "def f(q, k, v, c):\n    return torch_sdpa(q, k, v, None, 0.0, c, None)\n")


def test_sdpa_literal_is_causal_stays_inline():
    got = check("def f(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v, is_causal=False)\n",
                "def f(q, k, v):\n    return ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -2, -1)) "
                "* q.shape[-1] ** -0.5, -1), v)\n")
    assert "torch_sdpa" not in got.code


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


# --- torch._foreach_* ---------------------------------------------------------------------------

def test_foreach_calls_become_the_helper_and_the_probe_is_answered():
    got = check("def upd(ema, model, d):\n    if hasattr(torch, '_foreach_lerp_'):\n"
                "        torch._foreach_lerp_(ema, model, weight=1. - d)\n"
                "    torch._foreach_mul_(ema, scalar=d)\n",
                "def upd(ema, model, d):\n    torch_foreach('lerp_', ema, model, weight=1. - d)\n"
                "    torch_foreach('mul_', ema, scalar=d)\n")
    assert got.runtime == ("torch_foreach",)


FOREACH = """
import torch

def inplace(ema, model, d, w):
    torch._foreach_mul_(ema, scalar=d)
    torch._foreach_add_(ema, model, alpha=1 - d)
    torch._foreach_lerp_(ema, model, weight=0.3)
    torch._foreach_lerp_(ema, model, w)
    torch._foreach_addcmul_(ema, model, model, value=0.5)
    torch._foreach_addcdiv_(ema, model, [m.abs() + 1 for m in model], [0.1, 0.2])
    torch._foreach_sub_(ema, [0.5, 1.5])
    torch._foreach_div_(ema, w)
    torch._foreach_maximum_(ema, model)
    torch._foreach_clamp_max_(ema, 1.5)
    torch._foreach_pow_(ema, 2)
    torch._foreach_sqrt_(ema)
    torch._foreach_neg_(ema)

def out_of_place(xs, ys):
    a = torch._foreach_add(xs, ys, alpha=2.0)
    b = torch._foreach_mul(a, 3.0)
    c = torch._foreach_exp(torch._foreach_neg(b))
    return [*a, *b, *c, *torch._foreach_sigmoid(ys), *torch._foreach_clamp_min(xs, 0.0)]
"""


def test_foreach_in_place_on_parameters_matches_torch():
    tf, cf, _ = _run(FOREACH, "inplace")
    rs = np.random.RandomState(2)
    ema, model = ([rs.randn(*s).astype(np.float32) for s in ((3, 4), (5,))] for _ in range(2))
    t_ema = [torch.nn.Parameter(torch.from_numpy(a.copy()), requires_grad=False) for a in ema]
    c_ema = [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}", requires_grad=False) for i, a in enumerate(ema)]
    with torch.no_grad():
        tf(t_ema, [torch.from_numpy(a) for a in model], 0.9, torch.tensor(0.25))
    assert cf(c_ema, [ms.Tensor(a) for a in model], 0.9, ms.Tensor(np.float32(0.25))) is None
    for c, t in zip(c_ema, t_ema):
        assert isinstance(c, ms.Parameter) and c.dtype == ms.float32
        np.testing.assert_allclose(c.asnumpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_foreach_out_of_place_matches_torch():
    tf, cf, _ = _run(FOREACH, "out_of_place")
    rs = np.random.RandomState(3)
    xs, ys = ([rs.randn(*s).astype(np.float32) for s in ((2, 3), (4,))] for _ in range(2))
    ref = tf([torch.from_numpy(a) for a in xs], [torch.from_numpy(a) for a in ys])
    out = cf([ms.Tensor(a) for a in xs], [ms.Tensor(a) for a in ys])
    assert len(out) == len(ref)
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o.asnumpy(), r.numpy(), rtol=1e-5, atol=1e-6)


# --- transformer activation by name, meshgrid's keyword defaults, Module.__init__(self) -------

def test_activation_fn_kwdefaults_and_explicit_module_init():
    check("from torch.nn.modules.transformer import _get_activation_fn\n"
          "class A(nn.Module):\n    def __init__(self, act):\n        nn.Module.__init__(self)\n"
          "        self.act = _get_activation_fn(act)\n        self.ij = torch.meshgrid.__kwdefaults__\n",
          "class A(nn.Cell):\n    def __init__(self, act):\n        nn.Cell.__init__(self)\n"
          "        self.act = torch_activation_fn(act)\n        self.ij = {'indexing': None}\n")


ACTIVATION = """
import torch
from torch import nn
from torch.nn.modules.transformer import _get_activation_fn

class Block(nn.Module):
    def __init__(self, act):
        nn.Module.__init__(self)
        self.fc = nn.Linear(4, 3)
        self.act = _get_activation_fn(act)
        self.ij = torch.meshgrid.__kwdefaults__ is not None

    def forward(self, x):
        g = torch.stack(torch.meshgrid(x[0, :2], x[0, :3], indexing="ij") if self.ij else
                        torch.meshgrid(x[0, :2], x[0, :3]))
        return self.act(self.fc(x)), g
"""


@pytest.mark.parametrize("act", ["relu", "gelu"])
def test_activation_by_name_and_explicit_module_init_match_torch(act):
    tf, cf, _ = _run(ACTIVATION, "Block")
    tnet, cnet = tf(act), cf(act)
    assert torch.meshgrid.__kwdefaults__ == {"indexing": None}  # the literal the conversion writes
    cnet.fc.weight.set_data(ms.Tensor(tnet.fc.weight.detach().numpy()))
    cnet.fc.bias.set_data(ms.Tensor(tnet.fc.bias.detach().numpy()))
    x = np.random.RandomState(6).randn(2, 4).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    ref, tg = tnet(tx)
    ref.sum().backward()
    out, cg = cnet(ms.Tensor(x))
    g = ms.grad(lambda a: cnet(a)[0].sum())(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cg.asnumpy(), tg.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_activation_by_unknown_name_raises_torchs_error():
    tf, cf, _ = _run(ACTIVATION, "Block")
    for make in (tf, cf):
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            make("tanh")
