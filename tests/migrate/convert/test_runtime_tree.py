"""A converted tree gets the runtime once per import root and its files import what they use: a
package's files relatively (the package stays self-contained), scripts by name from beside them;
a user's file of the runtime's name is never overwritten; the converted tree runs where torch
cannot be imported; converting it again changes nothing (the copies included). A single file gets
the copy beside it (-o), or the definitions inlined between markers (stdout)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import cli
from migrate.convert.project import convert_tree
from migrate.convert.runtime_files import BEGIN, END, is_written_runtime

FILES = {
    "pkg/__init__.py": "from .sub.m import Block\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/m.py": """\
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self, p):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3, padding=p)

            def forward(self, x):
                return self.conv(x).size()
        """,
    "train.py": """\
        import torch
        import torch.nn as nn
        from pkg import Block

        act = nn.ReLU
        print(Block((1, 2))(torch.ones(1, 3, 5, 5)), act.__name__)
        """,
    "tools/migrate_runtime.py": "USER = 'mine'\n",
    "tools/plot.py": """\
        import torch

        def size(x):
            return x.size()

        print(size(torch.zeros(2, 3)))
        """,
}


def _tree(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def _run(cwd: Path, *args) -> str:
    """Run Python in ``cwd`` where torch cannot be imported (ms_core can: it is installed)."""
    code = ("import runpy, sys\nsys.modules['torch'] = None\nsys.argv = sys.argv[1:]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(cwd)}
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _files(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_one_copy_per_import_root_imported_by_each_file(tmp_path):
    out = tmp_path / "out"
    reports = convert_tree(_tree(tmp_path / "src"), out)
    assert not [r.error for r in reports if r.error]
    copies = sorted(str(d.relative_to(out)) for d in out.rglob("migrate_runtime*") if is_written_runtime(d))
    assert copies == ["migrate_runtime", "pkg/migrate_runtime", "tools/migrate_runtime_2"]
    assert (out / "tools" / "migrate_runtime.py").read_text() == "USER = 'mine'\n"  # the user's, untouched
    assert "from ..migrate_runtime import TorchConv2d\n" in (out / "pkg" / "sub" / "m.py").read_text()
    assert "from migrate_runtime import TorchReLU\n" in (out / "train.py").read_text()
    assert "from migrate_runtime_2 import torch_size\n" in (out / "tools" / "plot.py").read_text()
    assert sorted(r.path for r in reports if r.copied and r.path.rstrip("/").endswith(("runtime", "runtime_2"))) \
        == ["migrate_runtime/", "pkg/migrate_runtime/", "tools/migrate_runtime_2/"]
    assert _run(out, "train.py").strip() == "(1, 4, 5, 7) ReLU"
    assert _run(out / "tools", "plot.py").strip() == "(2, 3)"
    again = tmp_path / "again"
    assert not [r.error for r in convert_tree(out, again) if r.error]
    assert _files(again) == _files(out)


def test_a_single_file_gets_the_copy_beside_it_or_the_definitions_inlined(tmp_path, capsys):
    src = _tree(tmp_path / "src") / "tools" / "plot.py"
    dst = tmp_path / "single" / "plot.py"
    assert cli.main(["convert", str(src), "-o", str(dst), "-q"]) == 0
    assert is_written_runtime(dst.parent / "migrate_runtime")
    assert _run(dst.parent, "plot.py").strip() == "(2, 3)"
    assert cli.main(["convert", str(src), "-q"]) == 0
    printed = capsys.readouterr().out
    assert BEGIN in printed and END in printed and "migrate_runtime" not in printed
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "plot.py").write_text(printed)
    assert _run(alone, "plot.py").strip() == "(2, 3)"
