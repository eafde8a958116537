"""The examples in the converter's docstrings are true: every module of migrate.convert has its
doctests run (in a child process with a timeout: workers.run_isolated's example starts workers)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_RUN = """
import doctest, importlib, pkgutil
import migrate.convert as package
attempted = failed = 0
for info in pkgutil.walk_packages(package.__path__, "migrate.convert."):
    result = doctest.testmod(importlib.import_module(info.name))
    attempted, failed = attempted + result.attempted, failed + result.failed
print("attempted", attempted, "failed", failed)
"""


def test_the_converters_docstring_examples_hold():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True, timeout=300, env=env,
                         cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    last = out.stdout.strip().splitlines()[-1].split()
    assert last[0] == "attempted" and int(last[1]) >= 25, out.stdout[-3000:]
    assert last[2:] == ["failed", "0"], out.stdout[-3000:]
