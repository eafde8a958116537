"""Oracle tests: the same snippet runs on ms_core and on real MindSpore; printed outputs agree.

Each file in snippets/ is written against `import mindspore as ms` names and imports the module
named by the MS_MODULE environment variable. Real MindSpore is never a dependency: these tests
run only when an interpreter that can import mindspore is given by MS_ORACLE_PYTHON (e.g. a
separate venv with `pip install mindspore==2.10.0 "numpy<2"`) or mindspore imports here.

Outputs are compared as a skeleton (text with numbers blanked) that must be equal, and the
numbers, which must agree to rtol 2e-5 / atol 1e-6: float32 kernels differ in the last digits,
and MindSpore's CPU tanh is a float32 approximation seen 1.23e-5 (relative) off the exact value.
"""
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

SNIPPETS = sorted((Path(__file__).parent / "snippets").glob("*.py"))
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")
REPO = Path(__file__).resolve().parents[2]


def _oracle_python():
    candidate = os.environ.get("MS_ORACLE_PYTHON")
    if candidate and shutil.which(candidate) or candidate and os.path.exists(candidate):
        return candidate
    try:
        import mindspore  # noqa: F401
        return sys.executable
    except Exception:
        return None


ORACLE = _oracle_python()
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]


@functools.lru_cache(maxsize=None)
def runtime_path(target: str) -> str:
    """A directory holding the runtime as a conversion for ``target`` writes it (``migrate_runtime``,
    its backend fixed to that target): converted code run by the oracle imports it from there."""
    from migrate.convert.runtime_files import write_runtime
    folder = Path(tempfile.mkdtemp(prefix=f"oracle-runtime-{target}-"))
    write_runtime(folder, target)
    return str(folder)


def oracle_env(target: str, *paths) -> dict:
    """The environment a child that runs converted code for ``target`` gets: this repository and
    the runtime for the target (and ``paths``) on its path, MindSpore's log quiet."""
    return {"PYTHONPATH": os.pathsep.join([*map(str, paths), str(REPO), runtime_path(target)]),
            "GLOG_v": "3", "PATH": "/usr/bin:/bin"}


def _run(python, module, path):
    env = dict(os.environ, MS_MODULE=module, GLOG_v="3", PYTHONPATH=str(REPO))
    proc = subprocess.run([python, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, f"{module} failed on {path.name}:\n{proc.stderr[-3000:]}"
    return proc.stdout


def _split(text):
    # spaces are dropped: NumPy widens columns for a sign (-0. next to 0.)
    return re.sub(r"[ ]+", "", NUMBER.sub("#", text)), [float(n) for n in NUMBER.findall(text)]


@pytest.mark.parametrize("path", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_snippet_prints_the_same_on_ms_core_and_mindspore(path):
    ours = _run(sys.executable, "ms_core", path)
    theirs = _run(ORACLE, "mindspore", path)
    skel_ours, nums_ours = _split(ours)
    skel_theirs, nums_theirs = _split(theirs)
    assert skel_ours == skel_theirs, f"\n--- ms_core ---\n{ours}\n--- mindspore ---\n{theirs}"
    np.testing.assert_allclose(nums_ours, nums_theirs, rtol=2e-5, atol=1e-6)
