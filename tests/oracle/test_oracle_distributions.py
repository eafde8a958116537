"""Oracle: torch.distributions converted with --target mindspore (the generated TorchCategorical
/ TorchNormal) give torch's values and gradients on real MindSpore 2.10, as on ms_core
(tests/migrate/convert/test_distributions.py); samples have torch's shapes and dtypes."""
import subprocess
import textwrap

import pytest

from migrate import convert_source

from .test_oracle import ORACLE, REPO, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

FIXTURE = REPO / "tests" / "fixtures" / "functions" / "distributions.py"

# runs under the oracle interpreter, which has torch too: compares with torch.distributions
DRIVER = textwrap.dedent("""
    import sys
    import numpy as np, torch, mindspore as ms
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    import dist_ms as m
    import distributions as t
    rng = np.random.default_rng(3)
    S = rng.standard_normal((4, 5)).astype(np.float32)
    R = rng.uniform(0.1, 3.0, (4, 5)).astype(np.float32)
    A = np.array([0, 4, 2, 2], np.int64)
    def close(g, w):
        # MindSpore 2.10's CPU log_softmax is off torch's by up to 3e-6 absolute (seen at -0.0747)
        assert g.asnumpy().dtype == w.detach().numpy().dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g.asnumpy(), w.detach().numpy(), rtol=1e-4, atol=1e-5)
    for g, w in zip(m.categorical_terms(ms.Tensor(S), ms.Tensor(R), ms.Tensor(A)),
                    t.categorical_terms(torch.tensor(S), torch.tensor(R), torch.tensor(A))):
        close(g, w)
    ts, tp = torch.tensor(S, requires_grad=True), torch.tensor(R, requires_grad=True)
    t.categorical_loss(ts, tp, torch.tensor(A)).backward()
    gs, gp = ms.grad(lambda s, p: m.categorical_loss(s, p, ms.Tensor(A)), (0, 1))(ms.Tensor(S), ms.Tensor(R))
    close(gs, ts.grad)
    close(gp, tp.grad)
    L = rng.standard_normal((3, 2)).astype(np.float32)
    C = rng.uniform(0.5, 2.0, (2,)).astype(np.float32)
    V = rng.standard_normal((3, 2)).astype(np.float32)
    for g, w in zip(m.normal_terms(ms.Tensor(L), ms.Tensor(C), ms.Tensor(V)),
                    t.normal_terms(torch.tensor(L), torch.tensor(C), torch.tensor(V))):
        close(g, w)
    lo = rng.uniform(-2.0, 0.0, (3, 2)).astype(np.float32)
    hi = rng.uniform(0.5, 3.0, (2,)).astype(np.float32)
    U = np.array([[-3.0, 0.1], [0.2, 2.9], [0.0, 5.0]], np.float32)
    for g, w in zip(m.uniform_terms(ms.Tensor(lo), ms.Tensor(hi), ms.Tensor(U)),
                    t.uniform_terms(torch.tensor(lo), torch.tensor(hi), torch.tensor(U))):
        close(g, w)
    P = rng.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
    G = rng.standard_normal((3, 4)).astype(np.float32)
    B = (rng.uniform(0, 1, (3, 4)) < 0.5).astype(np.float32)
    for g, w in zip(m.bernoulli_terms(ms.Tensor(P), ms.Tensor(G), ms.Tensor(B)),
                    t.bernoulli_terms(torch.tensor(P), torch.tensor(G), torch.tensor(B))):
        close(g, w)
    d = m.uniform_samples(ms.Tensor(np.array([0.0], np.float32)), ms.Tensor(np.array([2.0], np.float32)), 50)
    assert d.shape == (50, 1) and d.dtype == ms.float32 and 0 <= d.asnumpy().min() and d.asnumpy().max() < 2
    d = m.bernoulli_samples(ms.Tensor(np.array([0.3], np.float32)), 50)
    assert d.shape == (50, 1) and set(np.unique(d.asnumpy())) <= {0.0, 1.0}
    d = m.categorical_samples(ms.Tensor(np.array([[0.1, 0.6, 0.3]], np.float32)), 50)
    assert d.shape == (50, 1) and d.dtype == ms.int64, (d.shape, d.dtype)
    d = m.normal_samples(ms.Tensor(np.array([1.0], np.float32)), ms.Tensor(np.array([0.5], np.float32)), 50)
    assert d.shape == (50, 1) and d.dtype == ms.float32, (d.shape, d.dtype)
    print("ok")
""")


def test_distributions_match_torch_on_mindspore(tmp_path):
    res = convert_source(FIXTURE.read_text(), target="mindspore")
    assert res.error is None and "# migrate" not in res.code, res.code
    (tmp_path / "dist_ms.py").write_text(res.code)
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path), str(FIXTURE.parent)],
                          capture_output=True, text=True, timeout=600,
                          env=oracle_env("mindspore"))
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-4000:]
