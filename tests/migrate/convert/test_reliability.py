"""`migrate convert` on hostile trees (issue 13): one bad file never stops a run, nothing is written
outside the tree, OS errors are one line, PEP 263 encodings round-trip.

Each test names the defect of the issue it covers.
"""
import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cli
from migrate.convert import fileio

ROOT = Path(__file__).resolve().parents[3]
MODEL = "import torch.nn as nn\nd = nn.Dropout(0.3)\n"
CONVERTED_MARK = "keep_prob=0.7"


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")


def run(capsys, *args):
    code = cli.main(["convert", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    return code, out, err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def line_with(text: str, needle: str) -> str:
    """The one stderr line holding ``needle``."""
    hits = [ln for ln in text.splitlines() if needle in ln]
    assert len(hits) == 1, text
    return hits[0]


# ---- 1. --in-place writes outside the tree; in-place writes are not atomic ---------------------
def test_in_place_never_writes_through_a_symlink_out_of_the_tree(tmp_path, capsys):
    other = tmp_path / "other" / "model.py"
    other.parent.mkdir()
    other.write_text(MODEL)
    tree = tmp_path / "d"
    tree.mkdir()
    (tree / "link.py").symlink_to("../other/model.py")
    (tree / "own.py").write_text(MODEL)
    before = digest(other)
    code, _, err = run(capsys, tree, "--in-place", "-q")
    assert code == 0
    assert digest(other) == before
    assert (tree / "link.py").is_symlink()
    assert "outside the tree" in line_with(err, "link.py")
    assert CONVERTED_MARK in (tree / "own.py").read_text()


def test_in_place_replaces_the_file_atomically_and_keeps_its_mode(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(MODEL)
    src.chmod(0o754)
    inode = src.stat().st_ino
    assert run(capsys, src, "--in-place", "-q")[0] == 0
    assert CONVERTED_MARK in src.read_text()
    assert src.stat().st_ino != inode  # a new file renamed over the old one, not a rewrite
    assert src.stat().st_mode & 0o777 == 0o754
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]


def test_a_failed_in_place_write_leaves_the_original_whole(tmp_path, capsys, monkeypatch):
    src = tmp_path / "m.py"
    src.write_text(MODEL)

    def disk_full(a, b):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", disk_full)
    code, _, err = run(capsys, src, "--in-place", "-q")
    assert code == 1
    assert src.read_text() == MODEL
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]  # no temp file left behind
    assert "No space left on device; the disk is full" in line_with(err, "m.py")


# ---- 2. one bad file aborts a whole directory run --------------------------------------------
DEEP = {
    "binop500.py": "import torch\nx = 1" + " + 1" * 500 + "\ny = torch.ones(2, 3)\n",
    "abs500.py": "import torch\nx = torch.ones(2)" + ".abs()" * 500 + "\n",
    "calls199.py": "import torch\nx = " + "torch.abs(" * 199 + "y" + ")" * 199 + "\n",
    "parens199.py": "import torch\nx = torch.ones(" + "(" * 198 + "1" + ")" * 198 + ")\n",
    "parens2000.py": "import torch\nx = " + "(" * 2000 + "1" + ")" * 2000 + "\n",
}


def test_deep_files_cost_at_most_themselves(tmp_path, capsys):
    tree, out = tmp_path / "d", tmp_path / "out"
    tree.mkdir()
    for name, text in DEEP.items():
        (tree / name).write_text(text)
    (tree / "zz_model.py").write_text(MODEL)  # after the bad ones in path order
    report = tmp_path / "r.json"
    code, _, err = run(capsys, tree, "-o", out, "-j", 1, "--report", report)
    assert code == 1
    assert "syntax error at line 2: too many nested parentheses" in line_with(err, "parens2000.py")
    assert (out / "parens2000.py").read_text() == DEEP["parens2000.py"]  # copied unchanged
    assert CONVERTED_MARK in (out / "zz_model.py").read_text()
    for name in ("binop500.py", "abs500.py", "calls199.py"):  # CPython compiles them: converted
        text = (out / name).read_text()
        assert "import ms_core" in text and "torch" not in text.replace("ms_core", ""), name
    for name, text in DEEP.items():
        if name != "parens2000.py":
            ast.parse((out / name).read_text())
    # 199 nested brackets must not become 200, CPython's limit: the file converts, and the one
    # statement whose conversion would is kept as written, marked
    text = (out / "parens199.py").read_text()
    assert "# migrate: MS920 converting this statement would nest brackets 200 deep where it has 199" in text
    assert DEEP["parens199.py"].splitlines()[1] in text.splitlines()
    assert not [ln for ln in err.splitlines() if "parens199.py" in ln and "failed" in ln], err
    files = {f["path"]: f["error"] for f in json.loads(report.read_text())["files"]}
    assert files["zz_model.py"] is None and "nested" in files["parens2000.py"]


_CRASHING_RUN = """
import ctypes, sys
sys.path.insert(0, {root!r})
import migrate, migrate.convert as mc
real = mc.convert_source
def crash_on_marker(code, target="ms_core", **selection):
    if "CRASH_HERE" in code:
        ctypes.string_at(0)  # a real segfault, as libcst's native parser gives
    return real(code, target, **selection)
migrate.convert_source = mc.convert_source = crash_on_marker
import cli
sys.exit(cli.main(["convert", *sys.argv[1:]]))
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_that_crashes_the_parser_process_costs_only_that_file(tmp_path, jobs):
    tree, out = tmp_path / "d", tmp_path / "out"
    tree.mkdir()
    (tree / "a_model.py").write_text(MODEL)
    (tree / "b_crash.py").write_text("import torch\nx = torch.ones(2)  # CRASH_HERE\n")
    (tree / "c_model.py").write_text(MODEL)
    report = tmp_path / "r.md"
    proc = subprocess.run([sys.executable, "-c", _CRASHING_RUN.format(root=str(ROOT)), str(tree), "-o",
                           str(out), "-j", str(jobs), "--report", str(report)],
                          capture_output=True, text=True, env=dict(os.environ, COLUMNS="300"), timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "killed by SIGSEGV" in line_with(proc.stderr, "b_crash.py")
    assert (out / "b_crash.py").read_text() == (tree / "b_crash.py").read_text()
    assert CONVERTED_MARK in (out / "a_model.py").read_text()
    assert CONVERTED_MARK in (out / "c_model.py").read_text()
    assert "killed by SIGSEGV" in report.read_text()


def test_single_file_that_crashes_the_parser_is_one_line(tmp_path):
    src = tmp_path / "crash.py"
    src.write_text("import torch\nx = 1  # CRASH_HERE\n")
    proc = subprocess.run([sys.executable, "-c", _CRASHING_RUN.format(root=str(ROOT)), str(src), "-q"],
                          capture_output=True, text=True, env=dict(os.environ, COLUMNS="300"), timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "killed by SIGSEGV" in line_with(proc.stderr, "crash.py")


# ---- 3. OS errors print tracebacks ------------------------------------------------------------
@pytest.fixture
def tree(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "model.py").write_text(MODEL)
    (d / "notes.txt").write_text("notes\n")
    return d


@pytest.mark.parametrize("make", [
    lambda d: (d / "data.bin").symlink_to("missing.bin"),      # dangling
    lambda d: (d / "loop.bin").symlink_to("loop.bin"),         # unreadable: a symlink loop
])
def test_an_unreadable_non_python_file_is_one_line(tree, tmp_path, capsys, make):
    make(tree)
    out = tmp_path / "out"
    code, _, err = run(capsys, tree, "-o", out, "-q")
    assert code == 1
    bad = next(p.name for p in tree.iterdir() if p.suffix == ".bin")
    assert line_with(err, bad).startswith(f"failed: {bad}: cannot copy {bad}: ")
    assert CONVERTED_MARK in (out / "model.py").read_text()
    assert (out / "notes.txt").read_text() == "notes\n"


def deny_writes(monkeypatch, directory: Path):
    """Make ``directory`` read-only: by its mode for a normal user; root ignores modes, so for
    root the OS calls that would create files in it fail as they would for a user."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        return
    real_open = os.open

    def guarded_open(path, flags, *a, **k):
        if flags & os.O_CREAT and Path(os.path.abspath(path)).parent == directory.resolve():
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **k)
    monkeypatch.setattr(os, "open", guarded_open)


def test_read_only_output_directory_is_one_line(tree, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    deny_writes(monkeypatch, out)
    code, _, err = run(capsys, tree, "-o", out, "-q")
    assert code == 2
    assert "Permission denied" in line_with(err, "error:") and "choose another -o" in err
    out.chmod(0o755)
    assert list(out.iterdir()) == []


def test_output_under_a_regular_file_is_one_line(tree, tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    code, _, err = run(capsys, tree, "-o", blocker / "out", "-q")
    assert code == 2
    assert "Not a directory" in line_with(err, "error:")
    code, _, err = run(capsys, tree / "model.py", "-o", blocker / "sub" / "m.py", "-q")
    assert code == 2 and "Not a directory" in line_with(err, "error:")


def test_existing_file_as_output_of_a_directory_is_one_line(tree, tmp_path, capsys):
    target = tmp_path / "exists.py"
    target.write_text("keep = 1\n")
    code, _, err = run(capsys, tree, "-o", target, "-q")
    assert code == 2
    assert "is a file" in line_with(err, "error:")
    assert target.read_text() == "keep = 1\n"


def test_unwritable_report_is_one_line_and_checked_first(tree, tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    out = tmp_path / "out"
    code, _, err = run(capsys, tree, "-o", out, "--report", blocker / "r.md", "-q")
    assert code == 2 and "--report" in line_with(err, "error:")
    assert not out.exists()  # refused before converting anything
    ro = tmp_path / "ro"
    ro.mkdir()
    deny_writes(monkeypatch, ro)
    code, _, err = run(capsys, tree, "-o", out, "--report", ro / "r.json", "-q")
    assert code == 2 and "Permission denied" in line_with(err, "error:")


def test_an_unreadable_directory_is_one_line(tree, tmp_path, capsys, monkeypatch):
    locked = tree / "locked"
    locked.mkdir()
    (locked / "m.py").write_text(MODEL)
    real_scandir = os.scandir

    def scandir(path="."):  # what os.walk meets in a directory without read permission
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run(capsys, tree, "-o", tmp_path / "out", "-q")
    assert code == 1
    assert "cannot read the directory locked: Permission denied" in line_with(err, "failed: locked")
    assert CONVERTED_MARK in (tmp_path / "out" / "model.py").read_text()


def test_file_names_with_a_newline_or_undecodable_bytes_stay_on_one_line(tmp_path, capsys):
    tree = tmp_path / "d"
    tree.mkdir()
    (tree / "new\nline.py").write_text("def (:\n")
    bad = os.fsdecode(b"bad\xff.py")
    (tree / bad).write_text("def (:\n")
    report = tmp_path / "r.md"
    code, _, err = run(capsys, tree, "-o", tmp_path / "out", "--report", report, "-q")
    assert code == 1
    assert "failed: new\\nline.py: syntax error at line 1" in err
    assert "failed: bad\\udcff.py: syntax error at line 1" in err
    assert len([ln for ln in err.splitlines() if ln.startswith("failed:")]) == 2
    assert "## bad\\udcff.py" in report.read_text()
    assert (tmp_path / "out" / bad).read_text() == "def (:\n"


# ---- 4. an output directory inside the input is converted again; venv skipped silently ------
def test_output_inside_the_input_is_not_converted_again(tree, capsys):
    out = tree / "out"
    for _ in range(2):
        code, _, err = run(capsys, tree, "-o", out, "-q")
        assert code == 0
    assert not (out / "out").exists()
    assert "the output directory" in line_with(err, "skipped: out")
    assert sorted(p.name for p in out.iterdir()) == ["model.py", "notes.txt"]


def test_virtual_environments_and_node_modules_are_skipped_with_a_word(tree, tmp_path, capsys):
    for d in ("venv", ".venv", "node_modules", "env"):
        (tree / d).mkdir()
        (tree / d / "lib.py").write_text(MODEL)
    (tree / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    report = tmp_path / "r.json"
    code, _, err = run(capsys, tree, "-o", tmp_path / "out", "--report", report)
    assert code == 0
    for d in ("venv", ".venv", "env"):
        assert "a virtual environment" in line_with(err, f"skipped: {d}:")
    assert "node_modules" in err
    assert "3 path(s) skipped" in err or "4 path(s) skipped" in err
    skipped = {s["path"] for s in json.loads(report.read_text())["skipped"]}
    assert skipped == {"venv", ".venv", "node_modules", "env"}
    assert not (tmp_path / "out" / "venv").exists()


# ---- 5. PEP 263 encodings ----------------------------------------------------------------------
ENCODED = {
    "lat.py": ("latin-1", "# -*- coding: latin-1 -*-\nimport torch\nname = 'café'\nx = torch.ones(2, 3)\n"),
    "koi.py": ("koi8-r", "# coding: koi8-r\nimport torch\nname = 'привет'\nx = torch.zeros(2)\n"),
    "bom.py": ("utf-8-sig", "import torch\nname = 'ü'\nx = torch.ones(1)\n"),
}


@pytest.mark.parametrize("name", sorted(ENCODED))
def test_pep263_files_convert_and_keep_their_encoding(tmp_path, capsys, name):
    encoding, text = ENCODED[name]
    src = tmp_path / name
    src.write_bytes(text.encode(encoding))
    dst = tmp_path / f"out_{name}"
    assert run(capsys, src, "-o", dst, "-q")[0] == 0
    raw = dst.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == (encoding == "utf-8-sig")
    result = raw.decode(encoding)
    assert "import ms_core" in result and text.splitlines()[-2] in result


def test_pep263_files_in_a_directory_run(tmp_path, capsys):
    tree = tmp_path / "d"
    tree.mkdir()
    for name, (encoding, text) in ENCODED.items():
        (tree / name).write_bytes(text.encode(encoding))
    (tree / "nocookie.py").write_bytes(b"import torch\nname = '\xe9'\n")  # CPython rejects it too
    code, _, err = run(capsys, tree, "-o", tmp_path / "out", "-q")
    assert code == 1
    assert "not UTF-8" in line_with(err, "nocookie.py")
    for name, (encoding, text) in ENCODED.items():
        assert "import ms_core" in (tmp_path / "out" / name).read_bytes().decode(encoding)


def test_decode_source_round_trips_what_it_accepts():
    for encoding, text in ENCODED.values():
        raw = text.encode(encoding)
        decoded, enc = fileio.decode_source(raw)
        assert decoded == text and fileio.encode_source(decoded, enc) == raw
