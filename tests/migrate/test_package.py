"""The `migrate` package face: the converter eagerly, the checker only on first use."""
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=env, cwd=REPO, timeout=300).stdout.strip()


def test_import_migrate_loads_the_converter_without_numpy_or_the_checker():
    out = _run("import sys, migrate\n"
               "print('numpy' in sys.modules, 'migrate.check' in sys.modules, migrate.convert_source.__module__)")
    assert out == "False False migrate.convert.walker"


def test_check_is_the_checkers_package_loaded_on_first_use():
    out = _run("import sys, migrate\n"
               "pkg = migrate.check\n"
               "print(pkg.__name__, callable(pkg.check), 'numpy' in sys.modules)\n"
               "import migrate.check.compare\n"
               "print(migrate.check is pkg, migrate.check.compare.__name__)")
    assert out == "migrate.check True True\nTrue migrate.check.compare"
