"""Oracle: x.norm(p) for a number p other than 2, converted with --target mindspore
(ops.vector_norm(x, p, dim, keepdim)), gives torch's values and gradients on real MindSpore 2.10,
as on ms_core (tests/migrate/convert/test_norm_p.py)."""
import subprocess
import textwrap

import pytest

from migrate import convert_source
from tests.migrate.convert.test_norm_p import SRC

from .test_oracle import ORACLE, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

# runs under the oracle interpreter, which has torch too
DRIVER = textwrap.dedent("""
    import sys
    import numpy as np, torch, mindspore as ms
    sys.path[:0] = [sys.argv[1]]
    import norms_ms as m
    import norms_torch as t
    X = np.array([[0.5, -2.0, 3.0], [-4.0, 0.25, -6.0]], np.float32)
    got, want = m.norms(ms.Tensor(X)), t.norms(torch.from_numpy(X))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert tuple(g.shape) == tuple(w.shape) and g.asnumpy().dtype == w.numpy().dtype, (i, g.shape, g.dtype)
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6, err_msg=str(i))
    xt = torch.from_numpy(X).requires_grad_()
    t.loss(xt).backward()
    grad = ms.grad(m.loss)(ms.Tensor(X))
    np.testing.assert_allclose(grad.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    print("ok")
""")


def test_numeric_p_norms_match_torch_on_mindspore(tmp_path):
    res = convert_source(SRC, target="mindspore")
    assert res.error is None and "# migrate" not in res.code, res.code
    (tmp_path / "norms_ms.py").write_text(res.code)
    (tmp_path / "norms_torch.py").write_text(SRC)
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path)], capture_output=True, text=True,
                          timeout=600, env=oracle_env("mindspore"))
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-4000:]
