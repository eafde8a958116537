"""Oracle: optimizers written as torch.optim.Optimizer subclasses (tests/fixtures/training/
optimizer_subclasses.py: Lion, LARS, an AdamW variant saved and resumed through state_dict(),
Lookahead over SGD, SAM's two gradients per step), converted with --target mindspore, train on
real MindSpore 2.10 as under torch: every printed loss within rtol 1e-4 (float32 over a few
steps, as the ms_core fixture test), the weight sums within one unit of their last printed digit."""
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

from .test_oracle import ORACLE, REPO, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

HERE = FIXTURE_ROOT / "training"
_LINE = re.compile(r"^(.*?) ([-+]?\d+\.\d+)$")


def _numbers(stdout: str) -> dict:
    return {m.group(1): m.group(2) for m in map(_LINE.match, stdout.splitlines()) if m}


def test_optimizer_subclasses_training_on_mindspore_as_torch(tmp_path):
    shutil.copy(HERE / "np_init.py", tmp_path / "np_init.py")
    res = convert_source((HERE / "optimizer_subclasses.py").read_text(), target="mindspore")
    assert res.error is None and res.unsupported == 0
    (tmp_path / "converted.py").write_text(res.code)
    env = {"PYTHONPATH": str(REPO), "GLOG_v": "3", "PATH": "/usr/bin:/bin"}
    want = subprocess.run([sys.executable, str(HERE / "optimizer_subclasses.py")], cwd=HERE, capture_output=True,
                          text=True, timeout=600, env=env)
    got = subprocess.run([ORACLE, "converted.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env=oracle_env("mindspore"))
    assert want.returncode == 0, want.stderr[-3000:]
    assert got.returncode == 0, got.stderr[-3000:]
    a, b = _numbers(want.stdout), _numbers(got.stdout)
    assert len(a) == 35 and a.keys() == b.keys(), (want.stdout, got.stdout)
    for key, value in a.items():
        unit = 10.0 ** -len(value.split(".")[1])
        tol = 1.001 * unit if key.endswith("weights sum") else 1e-4 * abs(float(value))
        assert abs(float(b[key]) - float(value)) <= tol, (key, b[key], value)
    assert "adamw saved step 4 groups 1" in got.stdout
    np.testing.assert_allclose([float(b[k]) for k in a if "loss" in k], [float(a[k]) for k in a if "loss" in k],
                               rtol=1e-4)
