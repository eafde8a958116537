"""The linter (ruff, configured in pyproject.toml) passes on the whole tree: the test command
checks it, so CI and a fresh clone run the same check."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_ruff_passes_on_the_whole_tree():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]
