"""Activation checkpointing with keywords for the function, and the grad mode (rules/grad_mode.py):
before/after pairs, and the converted code run on ms_core against torch."""
import inspect
import textwrap
import warnings

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT, check

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def _run(src: str, name: str, *arrays):
    """``name`` of ``src`` on torch and of its conversion on ms_core, with the same inputs."""
    src = textwrap.dedent(src)
    res = convert_source(src)
    assert res.error is None and "migrate: MS9" not in res.code, res.code
    tns, cns = {}, {}
    exec(src, tns)
    exec(res.code, cns)
    return tns[name], cns[name], res


# --- checkpoint(fn, *args, **kwargs) ----------------------------------------------------------

def test_checkpoint_keywords_use_reentrant_false_is_a_plain_call():
    check("from torch.utils.checkpoint import checkpoint\n"
          "y = checkpoint(blk, x, rope=r, use_reentrant=False)\n",
          "y = blk(x, rope=r)\n")


def test_checkpoint_keywords_by_default_keep_torchs_check():
    got = check("import torch.utils.checkpoint as cp\ny = cp.checkpoint(blk, x, shared_rel_pos_bias=b)\n",
                "y = torch_checkpoint(blk, x, shared_rel_pos_bias=b)\n")
    assert "torch_checkpoint" in got.code


def test_checkpoint_without_keywords_is_unchanged():
    check("from torch.utils.checkpoint import checkpoint\ny = checkpoint(blk, x, use_reentrant=False)\n",
          "y = blk(x)\n")


CHECKPOINT = """
import torch
from torch.utils.checkpoint import checkpoint

def f(x, w, reentrant):
    def blk(x, scale=None):
        return torch.tanh(x * w) * scale
    if reentrant is None:
        return checkpoint(blk, x, scale=w)
    return checkpoint(blk, x, scale=w, use_reentrant=reentrant)
"""


def test_checkpoint_keywords_match_torch():
    tf, cf, _ = _run(CHECKPOINT, "f")
    x, w = np.random.RandomState(0).randn(3, 4).astype(np.float32), np.float32(0.7)
    tx = torch.from_numpy(x).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = tf(tx, torch.tensor(w), False)
        ref.sum().backward()
        for reentrant in (None, True):
            with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
                tf(tx, torch.tensor(w), reentrant)
    out, g = ms.value_and_grad(lambda a: cf(a, ms.Tensor(w), False).sum())(ms.Tensor(x))
    np.testing.assert_allclose(cf(ms.Tensor(x), ms.Tensor(w), False).asnumpy(), ref.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    for reentrant in (None, True):
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            cf(ms.Tensor(x), ms.Tensor(w), reentrant)


# --- the grad mode -------------------------------------------------------------------------------

def test_grad_mode_contexts_and_functions():
    check("from contextlib import nullcontext\n"
          "def f(x, c):\n    ctx = torch.no_grad if c else nullcontext\n    with ctx():\n        y = x * 2\n"
          "    with torch.no_grad():\n        z = x * 3\n    torch._C._set_grad_enabled(False)\n"
          "    on = torch.is_grad_enabled()\n    torch.set_grad_enabled(True)\n    return y, z, on\n",
          "def f(x, c):\n    ctx = torch_no_grad if c else nullcontext\n    with ctx():\n        y = x * 2\n"
          "    with torch_no_grad():\n        z = x * 3\n    TorchSetGradEnabled(False)\n"
          "    on = torch_is_grad_enabled()\n    TorchSetGradEnabled(True)\n    return y, z, on\n")


def test_bare_grad_mode_decorator_is_called():
    check("@torch.no_grad\ndef f(x):\n    return x\n", "@torch_no_grad()\ndef f(x):\n    return x\n")


FIXTURE = (FIXTURE_ROOT / "functions" / "autograd_state.py").read_text()
DECORATED = """
import torch

MODES = []

@torch.no_grad()
def g(x):
    MODES.append(torch.is_grad_enabled())
    return x * 2
"""


@pytest.mark.parametrize("c", [False, True])
def test_grad_mode_matches_torch(c):
    tf, cf, res = _run(FIXTURE, "grad_modes")
    x = np.random.RandomState(4).randn(5).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    tmodes, cmodes = tf.__globals__["MODES"], cf.__globals__["MODES"]
    del tmodes[:], cmodes[:]
    tf(tx, c).backward()
    g = ms.grad(lambda a: cf(a, c))(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert cmodes == tmodes == [not c, True, False, True]
    assert _grad_enabled()  # every mode restored


def test_no_grad_decorator_matches_torch():
    tg, cg, _ = _run(DECORATED, "g")
    cg(ms.Tensor(np.ones(2, np.float32)))
    tg(torch.ones(2, requires_grad=True))
    modes = [inspect.unwrap(f).__globals__["MODES"] for f in (cg, tg)]  # (the decorators wrap)
    assert modes[0] == modes[1] == [False]
    assert _grad_enabled()


def _grad_enabled():
    return ms.common.api._pynative_executor.enable_grad() and torch.is_grad_enabled()


def test_grad_inside_no_grad_is_refused_like_mindspore():
    x = ms.Tensor(np.ones(2, np.float32))
    with ms._no_grad():
        with pytest.raises(RuntimeError, match="In no_grad context, you can not calculate gradient"):
            ms.grad(lambda a: (a * a).sum())(x)
    np.testing.assert_allclose(ms.grad(lambda a: (a * a).sum())(x).asnumpy(), [2.0, 2.0])


INFERENCE = """
import torch

def f(x):
    with torch.inference_mode():
        a = x * 3
        on = torch.is_grad_enabled()
    with torch.autograd.no_grad():
        b = x * x
    return (a.clone() * x + b * x).sum(), on  # (torch refuses an inference tensor in autograd)
"""


def test_inference_mode_matches_torch():
    tf, cf, _ = _run(INFERENCE, "f")
    x = np.random.RandomState(7).randn(4).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    tout, ton = tf(tx)
    tout.backward()
    g, (out, on) = ms.grad(lambda a: cf(a)[0])(ms.Tensor(x)), cf(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert on is ton is False and _grad_enabled()
