"""Oracle: the generated helpers for torch's autograd state and list ops (torch_checkpoint,
torch_sdpa, torch_foreach, the grad mode over ms._no_grad, torch_activation_fn), converted with --target mindspore
from tests/fixtures/functions/autograd_state.py, give torch's values and gradients on real
MindSpore 2.10."""
import subprocess
import textwrap

import pytest

from migrate import convert_source

from .test_oracle import ORACLE, REPO, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

FIXTURE = REPO / "tests" / "fixtures" / "functions" / "autograd_state.py"

# runs under the oracle interpreter, which has torch too
DRIVER = textwrap.dedent("""
    import sys, warnings
    import numpy as np, torch, mindspore as ms
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    import state_ms as m
    import autograd_state as t
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(5)
    def close(g, w, rtol=1e-5, atol=1e-6):
        np.testing.assert_allclose(g.asnumpy(), w.detach().numpy(), rtol=rtol, atol=atol)
    X, W = rng.standard_normal((3, 4)).astype(np.float32), np.float32(0.7)
    tx = torch.tensor(X, requires_grad=True)
    t.checkpointed(tx, torch.tensor(W)).sum().backward()
    close(m.checkpointed(ms.Tensor(X), ms.Tensor(W)), t.checkpointed(torch.tensor(X), torch.tensor(W)))
    close(ms.grad(lambda a: m.checkpointed(a, ms.Tensor(W)).sum())(ms.Tensor(X)), tx.grad)
    for mod, arg in ((t, torch.tensor), (m, ms.Tensor)):
        try:
            mod.checkpointed_default(arg(X), arg(W))
            raise AssertionError("no ValueError")
        except ValueError as e:
            assert "Unexpected keyword arguments: scale" in str(e), e
    q, k, v = (rng.standard_normal((2, 2, n, 4)).astype(np.float32) for n in (3, 5, 5))
    mask = rng.random((3, 5)) > 0.3
    mask[:, 0] = True
    for causal in (False, True):
        for mk in (None, mask, rng.standard_normal((3, 5)).astype(np.float32)):
            tq = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
            ref = t.attend(*tq, None if mk is None else torch.tensor(mk), causal, 0.4)
            (ref * ref).sum().backward()
            cm = None if mk is None else ms.Tensor(mk)
            f = lambda a, b, c: (lambda o: (o * o).sum())(m.attend(a, b, c, cm, causal, 0.4))
            close(m.attend(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), cm, causal, 0.4), ref)
            for g, r in zip(ms.grad(f, (0, 1, 2))(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v)), tq):
                close(g, r.grad, 1e-4, 1e-5)  # softmax backward, float32 sums in another order
    E = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5,))]
    M = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5,))]
    te = [torch.nn.Parameter(torch.tensor(a), requires_grad=False) for a in E]
    ce = [ms.Parameter(ms.Tensor(a), name=f"p{i}", requires_grad=False) for i, a in enumerate(E)]
    with torch.no_grad():
        t.ema_update(te, [torch.tensor(a) for a in M], 0.9, torch.tensor(0.25))
    m.ema_update(ce, [ms.Tensor(a) for a in M], 0.9, ms.Tensor(np.float32(0.25)))
    for c, r in zip(ce, te):
        assert isinstance(c, ms.Parameter)
        close(c, r)
    for c, r in zip(m.foreach_values([ms.Tensor(a) for a in E], [ms.Tensor(a) for a in M]),
                    t.foreach_values([torch.tensor(a) for a in E], [torch.tensor(a) for a in M])):
        close(c, r)
    for c in (False, True):
        del m.MODES[:], t.MODES[:]
        tx = torch.tensor(X[0], requires_grad=True)
        t.grad_modes(tx, c).backward()
        close(ms.grad(lambda a: m.grad_modes(a, c))(ms.Tensor(X[0])), tx.grad)
        assert m.MODES == t.MODES == [not c, True, False, True], (m.MODES, t.MODES)
    assert ms.common.api._pynative_executor.enable_grad() and torch.is_grad_enabled()
    S = rng.standard_normal((3, 3)).astype(np.float32)
    for name in ("relu", "gelu"):
        close(m.activation(name, ms.Tensor(S)), t.activation(name, torch.tensor(S)))
    print("ok")
""")


def test_state_helpers_match_torch_on_mindspore(tmp_path):
    res = convert_source(FIXTURE.read_text(), target="mindspore")
    assert res.error is None and "# migrate" not in res.code, res.code
    (tmp_path / "state_ms.py").write_text(res.code)
    (tmp_path / "driver.py").write_text(DRIVER)
    out = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path), str(FIXTURE.parent)],
                         capture_output=True, text=True, timeout=600, env=oracle_env("mindspore"))
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]
