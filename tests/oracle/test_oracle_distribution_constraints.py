"""Oracle: torch.distributions.constraints converted with --target mindspore (the runtime's
TorchConstraints) check values as torch's do on real MindSpore 2.10, as on ms_core
(tests/migrate/convert/test_distribution_constraints.py)."""
import subprocess
import textwrap

import pytest

from migrate import convert_source

from .test_oracle import ORACLE, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

SRC = """\
from torch.distributions import constraints


def checks(v, m, s):
    return [constraints.boolean.check(v), constraints.real.check(v), constraints.positive.check(v),
            constraints.nonnegative_integer.check(v), constraints.real_vector.check(v),
            constraints.interval(-0.5, 1.0).check(v), constraints.half_open_interval(-0.5, 1.0).check(v),
            constraints.integer_interval(0, 2).check(v),
            constraints.independent(constraints.less_than(1.0), 1).check(v),
            constraints.simplex.check(s), constraints.multinomial(3).check(s), constraints.lower_triangular.check(m),
            constraints.square.check(m), constraints.symmetric.check(m)]
"""

# runs under the oracle interpreter, which has torch too
DRIVER = textwrap.dedent("""
    import sys
    import numpy as np, torch, mindspore as ms
    sys.path[:0] = [sys.argv[1]]
    import constraints_ms as m
    import constraints_torch as t
    V = np.array([[-2.0, -1.0, -0.5, 0.0], [0.25, 0.5, 1.0, 1.0], [2.0, 3.0, np.nan, np.inf]], np.float32)
    M = np.array([[[1.0, 0.0], [2.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]], [[0.5, 0.5], [0.0, 1.0]]], np.float32)
    S = np.array([[0.25, 0.75, 0.0], [0.5, 0.5, 0.1], [1.0, 0.0, 0.0], [-0.5, 1.5, 0.0]], np.float32)
    got = m.checks(ms.Tensor(V), ms.Tensor(M), ms.Tensor(S))
    want = t.checks(torch.from_numpy(V), torch.from_numpy(M), torch.from_numpy(S))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == ms.bool_, (i, g.dtype)
        np.testing.assert_array_equal(g.asnumpy(), w.numpy(), err_msg=str(i))
    print("ok")
""")


def test_constraints_check_as_torch_on_mindspore(tmp_path):
    res = convert_source(SRC, target="mindspore")
    assert res.error is None and "# migrate" not in res.code, res.code
    (tmp_path / "constraints_ms.py").write_text(res.code)
    (tmp_path / "constraints_torch.py").write_text(SRC)
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path)], capture_output=True, text=True,
                          timeout=600, env=oracle_env("mindspore"))
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-4000:]
