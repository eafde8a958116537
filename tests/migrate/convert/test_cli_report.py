"""What `migrate convert DIR` prints: the summary first, one line per rule to review, every change
with -v, nothing dropped, a progress bar only on a terminal."""
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

import cli
from migrate.convert.project import Summary
from migrate.convert.report import summary_lines

ROOT = Path(__file__).resolve().parents[3]
MODEL = '''\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.zeros(3), persistent=False)

    def forward(self, x, device):
        x = x.to(device)
        return x + torch.randn(3)


w = torch.hub.list("a/b")
'''
HELPER = '''\
import torch


def f(x, device):
    return x.to(device) + torch.randn(2), torch.hub.list("a/b")
'''


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "model.py").write_text(MODEL)
    (root / "pkg" / "helper.py").write_text(HELPER)
    return root


def plain(text: str) -> list[str]:
    return Console(file=io.StringIO(), width=300).render_str(text).plain.splitlines() if text else [""]


def convert(tree, tmp_path, capsys, *options) -> tuple[list[str], dict]:
    report = tmp_path / "r.json"
    assert cli.main(["convert", str(tree), "-o", str(tmp_path / "out"), "--report", str(report), *options]) == 0
    return capsys.readouterr().err.splitlines(), json.loads(report.read_text())


def review_rows(data: dict) -> list[tuple[str, str, str, str]]:
    """(path:line, rule, label, note) of the changes to review, in the report's order."""
    return [(f"{f['path']}:{c['line']}", c["rule"], c["label"], c["note"]) for f in data["files"]
            for c in f["changes"] if c["label"] in ("approximate", "unsupported")]


def test_summary_first_then_one_line_per_rule_with_count_and_first_location(tree, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    lines, data = convert(tree, tmp_path, capsys)
    s = data["summary"]
    assert lines[0] == "migrate convert"
    assert lines[1].split() == ["files", "failed", "torch", "sites", "converted", "rate"]
    assert lines[2].split() == [str(s["files"]), str(s["failed"]), str(s["torch_sites"]), str(s["converted"]),
                                f"{s['conversion_rate']:.1%}"]
    assert lines[3].split() == ["exact", "transformed", "approximate", "unsupported"]
    assert lines[4].split() == [str(s["by_label"][k]) for k in ("exact", "transformed", "approximate", "unsupported")]
    rows = review_rows(data)
    groups = {}
    for where, rule, label, _ in rows:
        groups.setdefault((rule, label), [0, where])[0] += 1
    assert len(groups) >= 4 and max(n for n, _ in groups.values()) == 2  # the test means something
    assert lines[6] == f"to review (approximate/unsupported): {len(rows)} changes, {len(groups)} rules"
    printed = lines[8:8 + len(groups)]
    expected = sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0]))
    assert [ln.split()[:4] for ln in printed] == [[str(n), rule, label, where]
                                                  for (rule, label), (n, where) in expected]
    assert lines[8 + len(groups):] == [f"-v lists each of the {len(rows)} changes; {tmp_path / 'r.json'} has every "
                                       f"change"]
    assert len(lines) == 5 + 3 + len(groups) + 1


def test_a_group_shows_its_most_frequent_note_or_else_the_rule_summary(tree, tmp_path, capsys):
    lines, data = convert(tree, tmp_path, capsys)
    torch_table = next(ln for ln in lines if " MS001 " in ln)  # the torch table
    assert torch_table.endswith("same distribution, different random stream")
    ms901 = next(ln for ln in lines if " MS901 " in ln)
    note = next(r[3] for r in review_rows(data) if r[1] == "MS901")
    assert ms901.endswith(note)


def test_verbose_lists_every_change_of_the_report(tree, tmp_path, capsys):
    lines, data = convert(tree, tmp_path, capsys, "-v")
    every = [(f"{f['path']}:{c['line']}", c["rule"], c["label"]) for f in data["files"] for c in f["changes"]]
    start = lines.index(f"every change ({len(every)})")
    listed = lines[start + 1:]
    assert [tuple(re.match(r"(\S+:\d+): (MS\d+) (\w+):", ln).groups()) for ln in listed] == every
    assert any('torch_register_buffer(self, "b", ops.zeros((3,)), persistent=False)' in ln for ln in listed)


def test_nothing_is_dropped_past_500_rows(tmp_path, capsys):
    root = tmp_path / "src"
    root.mkdir()
    (root / "many.py").write_text("import torch\n\n\ndef f(x, d):\n" + "".join(
        f"    x = x.to(d) + torch.randn({i + 1})\n" for i in range(300)) + "    return x\n")
    lines, data = convert(root, tmp_path, capsys)
    assert len(review_rows(data)) == 600
    assert "to review (approximate/unsupported): 600 changes, 2 rules" in lines
    assert [ln.split()[:2] for ln in lines if re.match(r"\s*300 ", ln)] == [["300", "MS001"], ["300", "MS147"]]
    lines, _ = convert(root, tmp_path, capsys, "-v")
    # many.py:100: stays itself (rich would print :100: as an emoji)
    assert len([ln for ln in lines if re.match(r"many\.py:\d+: MS(147|001) approximate", ln)]) == 600


@pytest.mark.parametrize("numbers", [0, 7, 123_456_789_012])
def test_summary_fits_80_columns_and_never_cuts_a_header(numbers):
    s = Summary(files=numbers, failed=numbers, torch_sites=numbers,
                by_label={k: numbers for k in ("exact", "transformed", "approximate", "unsupported")})
    rendered = [ln for line in summary_lines(s) for ln in plain(line)]
    assert all(len(ln) <= 80 for ln in rendered), rendered
    assert rendered[1].split() == ["files", "failed", "torch", "sites", "converted", "rate"]
    assert rendered[3].split() == ["exact", "transformed", "approximate", "unsupported"]
    assert rendered[4].split() == [f"{numbers:,}"] * 4


def test_no_progress_bar_without_a_terminal(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    for i in range(25):
        (root / f"m{i}.py").write_text("import torch\nx = torch.ones(2)\n")
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "convert", str(root), "-o", str(tmp_path / "out")],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "TERM": "xterm"})
    assert proc.returncode == 0, proc.stderr
    assert "converting" not in proc.stderr and "\x1b" not in proc.stderr and "━" not in proc.stderr
    assert proc.stderr.splitlines()[:3] == ["migrate convert", "files  failed  torch sites  converted    rate",
                                            "   25       0           50         50  100.0%"]


@pytest.mark.parametrize("files, shown", [(25, True), (5, False)])
def test_progress_bar_on_a_terminal_for_long_runs_only(files, shown):
    stream = io.StringIO()
    err = Console(file=stream, force_terminal=True, width=80)
    with cli._ProgressBar(err, quiet=False) as tick:
        for done in range(files + 1):
            tick(done, files)
    assert ("converting" in stream.getvalue()) is shown
    stream = io.StringIO()
    with cli._ProgressBar(Console(file=stream, force_terminal=True), quiet=True) as tick:
        tick(0, 100)
    assert stream.getvalue() == ""
