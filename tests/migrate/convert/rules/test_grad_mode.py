"""Activation checkpointing with keywords for the function, and the grad mode (rules/grad_mode.py):
before/after pairs, and the converted code run on ms_core against torch."""
import textwrap
import warnings

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import check

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
                "y = _torch_checkpoint(blk, x, shared_rel_pos_bias=b)\n")
    assert "_torch_checkpoint" in got.code


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
