"""Training-script fixtures: each converts with no unsupported marker, runs on ms_core, and prints
the same per-step losses as the PyTorch original (rtol 1e-4, unshuffled data, weights drawn from
one NumPy generator on both sides by tests/fixtures/training/np_init.py).

All originals run in one subprocess and all converted scripts in another, so torch is imported
once: the whole module takes a few seconds.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from migrate import convert_source
from migrate.convert.runtime_files import write_runtime
from tests.migrate.convert.helpers import FIXTURE_ROOT, REPO

HERE = FIXTURE_ROOT / "training"
ROOT = REPO
FIXTURES = sorted(p.stem for p in HERE.glob("*.py") if p.stem != "np_init")
_LOSS = re.compile(r"\bloss ([-+0-9.eE]+)")
_NUM = re.compile(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?")

# Runs each script as __main__ in its own directory and collects its stdout (or its error).
_DRIVER = r"""
import contextlib, io, json, os, runpy, sys, traceback
out = {}
for path in sys.argv[1:]:
    buf = io.StringIO()
    cwd = os.getcwd()
    d = os.path.dirname(path)
    sys.path.insert(0, d)
    sys.modules.pop("np_init", None)
    try:
        os.chdir(d)
        with contextlib.redirect_stdout(buf):
            runpy.run_path(path, run_name="__main__")
        out[path] = {"stdout": buf.getvalue()}
    except BaseException:
        out[path] = {"stdout": buf.getvalue(), "error": traceback.format_exc()}
    finally:
        os.chdir(cwd)
        sys.path.remove(d)
print(json.dumps(out))
"""


def _run_all(paths) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-c", _DRIVER, *map(str, paths)], capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{name: (conversion result, torch stdout, converted stdout)} for every fixture."""
    tmp = tmp_path_factory.mktemp("converted")
    shutil.copy(HERE / "np_init.py", tmp / "np_init.py")
    write_runtime(tmp, "ms_core")  # the scripts import it from beside them, as a converted tree does
    results = {}
    for name in FIXTURES:
        res = convert_source((HERE / f"{name}.py").read_text())
        results[name] = res
        (tmp / f"{name}.py").write_text(res.code)
    torch_runs = _run_all([HERE / f"{n}.py" for n in FIXTURES])
    ms_runs = _run_all([tmp / f"{n}.py" for n in FIXTURES])
    return {n: (results[n], torch_runs[str(HERE / f"{n}.py")], ms_runs[str(tmp / f"{n}.py")])
            for n in FIXTURES}


def test_every_fixture_is_listed():
    assert set(FIXTURES) >= {"mlp_adamw", "mnist_cnn", "cifar_cnn", "gradscaler", "train_fn"}


@pytest.mark.time_limit(1500)  # the first to use `runs` waits for two children of up to 600 s
@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_converts_without_markers(name, runs):
    res = runs[name][0]
    assert res.error is None
    markers = [c for c in res.changes if c.label == "unsupported"]
    assert not markers, markers
    assert "# migrate:" not in res.code
    assert not re.search(r"^\s*import torch\b", res.code, re.M) and not re.search(r"^\s*from torch\b", res.code, re.M)
    # (self.zero_grad() inside an optimizer class is its own method, as in torch)
    assert ".backward(" not in res.code and ".zero_grad(" not in res.code.replace("self.zero_grad(", "")
    assert "ms.value_and_grad(" in res.code
    assert convert_source(res.code).code == res.code  # converting the output changes nothing


@pytest.mark.time_limit(1500)  # the first to use `runs` waits for two children of up to 600 s
@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_losses_match_torch(name, runs):
    _, want, got = runs[name]
    assert "error" not in want, want.get("error")
    assert "error" not in got, got.get("error")
    a = np.array([float(m) for m in _LOSS.findall(want["stdout"])])
    b = np.array([float(m) for m in _LOSS.findall(got["stdout"])])
    assert len(a) >= 20, want["stdout"]
    assert b.shape == a.shape, (got["stdout"], want["stdout"])
    np.testing.assert_allclose(b, a, rtol=1e-4)
    # every other printed line (accuracy counts, running sums) agrees as well
    wl, gl = want["stdout"].splitlines(), got["stdout"].splitlines()
    assert [_NUM.sub("#", ln) for ln in gl] == [_NUM.sub("#", ln) for ln in wl]
    for x, y in zip(gl, wl):
        np.testing.assert_allclose([float(v) for v in _NUM.findall(x)],
                                   [float(v) for v in _NUM.findall(y)], rtol=1e-4, atol=2e-6)


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_converts_for_real_mindspore_too(name):
    res = convert_source((HERE / f"{name}.py").read_text(), target="mindspore")
    assert res.error is None and res.unsupported == 0
    compile(res.code, name, "exec")
    assert "import mindspore as ms" in res.code and "ms_core" not in res.code
