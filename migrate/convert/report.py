"""Conversion reports: rich terminal tables, Markdown and JSON.

JSON schema (``schema`` = 1)::

    {
      "schema": 1,
      "target": "ms_core" | "mindspore",
      "summary": {"files", "failed", "copied", "skipped", "torch_sites", "converted", "unsupported",
                  "by_label": {"exact", "transformed", "approximate", "unsupported"},
                  "conversion_rate"},
      "files": [{"path", "error" (null or message), "torch_sites",
                 "changes": [{"line", "rule", "label", "before", "after", "note"}]}],
      "skipped": [{"path", "reason"}]
    }

``files`` lists the converted files and the copied files that failed; ``skipped`` the paths left
alone (``venv``, the output directory, symlinks leading out of the tree).
"""
from __future__ import annotations

import difflib
import json
from pathlib import Path

from migrate.convert.fileio import atomic_write
from migrate.convert.project import FileReport, Summary

LABEL_STYLE = {"exact": "green", "transformed": "cyan", "approximate": "yellow", "unsupported": "red"}


def to_json(reports: list[FileReport], summary: Summary, target: str) -> dict:
    """Return the JSON-ready report (schema above)."""
    return {
        "schema": 1,
        "target": target,
        "summary": summary.to_dict(),
        "files": [{"path": r.path, "error": r.error, "torch_sites": r.torch_sites,
                   "changes": [c.to_dict() for c in r.changes]}
                  for r in reports if _listed(r)],
        "skipped": [{"path": r.path, "reason": r.skipped} for r in reports if r.skipped],
    }


def _listed(r: FileReport) -> bool:
    """Converted files, and copies that failed, get an entry in the reports."""
    return not r.skipped and (not r.copied or r.error is not None)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(reports: list[FileReport], summary: Summary, target: str) -> str:
    """Return the Markdown report: summary table, then one table per file."""
    s = summary.to_dict()
    lines = [f"# migrate convert report (target: {target})", "",
             "| files | failed | torch sites | converted | exact | transformed | approximate | unsupported | rate |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
             f"| {s['files']} | {s['failed']} | {s['torch_sites']} | {s['converted']} | "
             f"{s['by_label']['exact']} | {s['by_label']['transformed']} | {s['by_label']['approximate']} | "
             f"{s['unsupported']} | {s['conversion_rate']:.1%} |", ""]
    for r in reports:
        if not _listed(r):
            continue
        lines.append(f"## {r.path}")
        lines.append("")
        if r.error:
            lines += [f"**error:** {r.error}", ""]
            continue
        if not r.changes:
            lines += ["no changes", ""]
            continue
        lines += ["| line | rule | label | before | after | note |", "| --- | --- | --- | --- | --- | --- |"]
        for c in r.changes:
            lines.append(f"| {c.line} | {c.rule} | {c.label} | `{_md_cell(c.before)}` | "
                         f"{'`' + _md_cell(c.after) + '`' if c.after else ''} | {_md_cell(c.note)} |")
        lines.append("")
    skipped = [r for r in reports if r.skipped]
    if skipped:
        lines += ["## skipped", ""] + [f"- {r.path}: {r.skipped}" for r in skipped] + [""]
    return "\n".join(lines)


def write_report(path: str, reports: list[FileReport], summary: Summary, target: str) -> None:
    """Write a ``.json`` or ``.md`` report, chosen by the file's suffix.

    Raises:
        ValueError: for another suffix.
        OSError: the file cannot be written (an existing report is then left as it was).
    """
    p = Path(path)
    if p.suffix == ".json":
        atomic_write(p, (json.dumps(to_json(reports, summary, target), indent=2) + "\n").encode("utf-8"))
    elif p.suffix in (".md", ".markdown"):
        # backslashreplace: file names that are not valid UTF-8 (surrogate escapes) stay readable
        atomic_write(p, to_markdown(reports, summary, target).encode("utf-8", "backslashreplace"))
    else:
        raise ValueError(f"report file must end in .md or .json, got {p.name}")


def unified_diff(rep: FileReport) -> str:
    """The unified diff between a file's input and output."""
    return "".join(difflib.unified_diff(
        (rep.before or "").splitlines(keepends=True), (rep.after or "").splitlines(keepends=True),
        fromfile=f"a/{rep.path}", tofile=f"b/{rep.path}"))


def summary_table(summary: Summary):
    """A rich Table with the run's totals."""
    from rich.table import Table
    s = summary.to_dict()
    t = Table(title="migrate convert", show_lines=False)
    for col in ("files", "failed", "torch sites", "converted", "exact", "transformed", "approximate",
                "unsupported", "rate"):
        t.add_column(col, justify="right")
    t.add_row(str(s["files"]), str(s["failed"]), str(s["torch_sites"]), str(s["converted"]),
              *(f"[{LABEL_STYLE[k]}]{s['by_label'][k]}[/]" for k in
                ("exact", "transformed", "approximate", "unsupported")),
              f"{s['conversion_rate']:.1%}")
    if s["skipped"]:
        t.caption = f"{s['skipped']} path(s) skipped (listed above)"
    return t


def changes_table(reports: list[FileReport], limit: int = 500, everything: bool = False):
    """A rich Table of the changes a user must review (approximate / unsupported), or of every
    change with ``everything``; None when there is nothing to show."""
    from rich.table import Table
    t = Table(title="changes" if everything else "to review (approximate / unsupported)")
    for col in ("file:line", "rule", "label", "before", "after", "note"):
        t.add_column(col, overflow="fold")
    n = 0
    for r in reports:
        for c in r.changes:
            if (everything or c.label in ("approximate", "unsupported")) and n < limit:
                t.add_row(f"{r.path}:{c.line}", c.rule, f"[{LABEL_STYLE[c.label]}]{c.label}[/]",
                          c.before, c.after, c.note)
                n += 1
    return t if n else None
