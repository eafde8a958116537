"""The bad-input corpus (tests/fixtures/bad_inputs) through `migrate convert`, one file at a time
and as one directory (-j 2, with symlinks, a FIFO and a virtual environment added; -j 1 runs
are in test_reliability.py, with the issue's deepest files):
exit codes, one line per failed file and no traceback, inputs byte-for-byte untouched, outputs
valid (or the input copied unchanged when it failed)."""
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

import cli
from tests.child import run_cli

nbformat = pytest.importorskip("nbformat")

CORPUS = Path(__file__).parents[2] / "fixtures" / "bad_inputs"
# The files that fail, with the words of their message; every other file converts.
FAILS = {
    "binary_garbage.py": "not UTF-8 (byte 128) and no coding declaration",
    "not_utf8.py": "not UTF-8 (byte 21) and no coding declaration",
    "unknown_codec.py": "unknown encoding: klingon",
    "bom_and_latin1_cookie.py": "encoding problem",
    "utf16_bom.py": "re-encode the file as UTF-8",
    "null_byte.py": "null bytes",
    "syntax_error.py": "syntax error at line 2",
    "tab_space_mix.py": "inconsistent use of tabs and spaces",
    "deep_parens_2000.py": "too many nested parentheses",
    "deep_brackets_300.py": "too many nested parentheses",
    "deep_blocks_100.py": "too many levels of indentation",
    "binop_5000.py": "too deeply nested for Python",
    "nb_bad_cell.ipynb": "cell 2, line 1: invalid syntax",
    "nb_deep_json.ipynb": "JSON nested too deeply",
    "nb_invalid_json.ipynb": "not a valid notebook",
    "nb_v3.ipynb": "notebook format 3",
}
SOURCES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb"))


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")


def digests(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def assert_valid_output(name: str, src: Path, dst: Path):
    """A converted file compiles (in its own encoding); a failed one is the input, unchanged."""
    if name in FAILS:
        assert dst.read_bytes() == src.read_bytes(), name
    elif name.endswith(".ipynb"):
        nb = nbformat.reads(dst.read_text(encoding="utf-8"), as_version=4)
        nbformat.validate(nb)
    else:
        compile(dst.read_bytes(), name, "exec", dont_inherit=True)  # honours PEP 263 cookies


def failed_lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("failed: ")]


def test_every_case_is_in_the_expectations():
    assert set(FAILS) <= set(SOURCES)
    assert len(SOURCES) >= 38


@pytest.mark.parametrize("name", SOURCES)
def test_single_file(tmp_path, capsys, name):
    before = digests(CORPUS)
    dst = tmp_path / name
    code = cli.main(["convert", str(CORPUS / name), "-o", str(dst), "-q"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and out == ""
    assert digests(CORPUS) == before
    if name in FAILS:
        assert code == 1
        assert failed_lines(err) == [ln for ln in err.splitlines() if ln.strip()]
        assert len(failed_lines(err)) == 1 and FAILS[name] in failed_lines(err)[0], err
    else:
        assert code == 0 and err == ""
    assert_valid_output(name, CORPUS / name, dst)


def test_directory(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(CORPUS, tree / "pkg", symlinks=True)
    outside = tmp_path / "outside.py"
    outside.write_text("import torch\n")
    (tree / "link_out.py").symlink_to(outside)
    (tree / "dangling.bin").symlink_to(tree / "missing")
    (tree / "loop.bin").symlink_to("loop.bin")
    os.mkfifo(tree / "pipe.py")
    (tree / "venv").mkdir()
    (tree / "venv" / "site.py").write_text("import torch\n")
    before = digests(tree)
    out = tmp_path / "out"
    report = tmp_path / "r.json"
    # two worker processes and a FIFO among the files: the command runs in a child process with
    # a time limit (a reader stuck on the FIFO fails the test instead of stalling the suite)
    code, _, err = run_cli(["convert", tree, "-o", out, "-j", "2", "--report", report, "-q"], timeout=600)
    assert code == 1 and "Traceback" not in err
    assert digests(tree) == before
    failed = failed_lines(err)
    for name, words in FAILS.items():
        line = [ln for ln in failed if ln.startswith(f"failed: pkg/{name}: ")]
        assert len(line) == 1 and words in line[0], (name, err)
    assert any(ln.startswith("failed: dangling.bin: cannot copy") for ln in failed)
    assert any(ln.startswith("failed: loop.bin: cannot copy") for ln in failed)
    assert len(failed) == len(FAILS) + 2
    skipped = [ln for ln in err.splitlines() if ln.startswith("skipped: ")]
    assert any("link_out.py" in ln and "outside the tree" in ln for ln in skipped)
    assert any("pipe.py" in ln and "FIFO" in ln for ln in skipped)
    assert any(ln.startswith("skipped: venv: a virtual environment") for ln in skipped)
    for name in SOURCES:
        assert_valid_output(name, tree / "pkg" / name, out / "pkg" / name)
    assert (out / "pkg" / "notes.txt").read_bytes() == (CORPUS / "notes.txt").read_bytes()
    assert not (out / "link_out.py").exists() and not (out / "venv").exists()
    data = json.loads(report.read_text())
    assert data["summary"]["failed"] == len(FAILS) + 2
    assert {f["path"] for f in data["files"] if f["error"]} >= {f"pkg/{n}" for n in FAILS}
