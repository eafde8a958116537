"""Oracle: the plain MindSpore (and named runtime helpers) the converter writes for
tests/fixtures/functions/idiomatic.py -- torch_no_grad for no_grad, one copy_ per in-place chain,
a rebinding for an owned tensor, an empty SequentialCell, a buffer as an attribute, named
functions for the tables' expressions --, converted with --target mindspore, gives torch's values
and gradients on MindSpore 2.10."""
import subprocess
import textwrap

import pytest

from migrate import convert_source

from .test_oracle import ORACLE, REPO, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

FIXTURE = REPO / "tests" / "fixtures" / "functions" / "idiomatic.py"

# runs under the oracle interpreter, which has torch too
DRIVER = textwrap.dedent("""
    import numpy as np, torch, mindspore as ms
    import idiomatic_ms as m
    import idiomatic as t
    def close(g, w, rtol=1e-5, atol=1e-6):
        w = w.detach().numpy() if hasattr(w, "detach") else np.asarray(w)
        np.testing.assert_allclose(g.asnumpy(), w, rtol=rtol, atol=atol)
    X = np.array([0.3, -1.2, 0.8], np.float32)
    for name in ("Distill", "Frozen"):
        tnet, cnet = getattr(t, name)(), getattr(m, name)()
        tx = torch.tensor(X, requires_grad=True)
        out = tnet(tx)
        out.backward()
        value, (gx, gw) = ms.value_and_grad(cnet, 0, cnet.trainable_params())(ms.Tensor(X))
        close(value, out)
        close(gx, tx.grad)
        for g, p in zip(gw, tnet.parameters()):
            close(g, p.grad if p.grad is not None else torch.zeros_like(p))
    rng = np.random.default_rng(0)
    e, p = rng.standard_normal((2, 4)).astype(np.float32), rng.standard_normal((2, 4)).astype(np.float32)
    te = [torch.tensor(a) for a in e]
    ce = [ms.Parameter(ms.Tensor(a), name=f"e{i}", requires_grad=False) for i, a in enumerate(e)]
    t.ema_update(te, [torch.tensor(a) for a in p], 0.9)
    m.ema_update(ce, [ms.Tensor(a) for a in p], 0.9)
    for c, r in zip(ce, te):
        close(c, r)
    tx, ta = torch.tensor(X, requires_grad=True), torch.tensor(1.7, requires_grad=True)
    tout = t.chained(tx, ta, 0.2)
    tout.backward()
    value, (gx, ga) = ms.value_and_grad(lambda a, b: m.chained(a, b, 0.2), (0, 1))(
        ms.Tensor(X), ms.Tensor(np.float32(1.7)))
    close(value, tout)
    close(gx, tx.grad)
    close(ga, ta.grad)
    close(m.self_reading(ms.Tensor(X), 2.0), t.self_reading(torch.tensor(X), 2.0))
    close(m.owned(ms.Tensor(X)), t.owned(torch.tensor(X)))
    close(m.appended(3), t.appended(3))
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    close(m.Block()(ms.Tensor(x)), t.Block()(torch.tensor(x)))
    v = np.float32([0.0, 0.5, -1.5, 2.0])
    seqs = [np.float32([[1, 2], [3, 4], [5, 6]]), np.float32([[7, 8]])]
    want = t.templates(torch.tensor(v), [torch.tensor(s) for s in seqs])
    got = m.templates(ms.Tensor(v), [ms.Tensor(s) for s in seqs])
    for g, w in zip(got, want):
        close(g, w)
    print("ok")
""")


def test_idiomatic_output_matches_torch_on_mindspore(tmp_path):
    res = convert_source(FIXTURE.read_text(), target="mindspore")
    assert res.error is None and "# migrate" not in res.code, res.code
    assert "ms._" not in res.code and "(lambda" not in res.code and "nn.SequentialCell()" in res.code
    (tmp_path / "idiomatic_ms.py").write_text(res.code)
    (tmp_path / "driver.py").write_text(DRIVER)
    out = subprocess.run([ORACLE, str(tmp_path / "driver.py")], capture_output=True, text=True, timeout=600,
                         env=oracle_env("mindspore", tmp_path, FIXTURE.parent))
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]
