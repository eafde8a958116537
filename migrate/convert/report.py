"""Conversion reports: the terminal's lines (rich markup), Markdown and JSON.

The terminal gets the summary first (:func:`summary_lines`), then one line per rule with changes
to review (:func:`rule_groups`, :func:`group_lines`), or every change with ``-v``
(:func:`change_lines`); the files get everything. Nothing is cut or dropped.

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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.markup import escape

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


LABELS = ("exact", "transformed", "approximate", "unsupported")
REVIEW = ("approximate", "unsupported")


def summary_lines(summary: Summary) -> list[str]:
    """The run's totals as rich-markup lines, printed first: two rows of headers over
    right-aligned numbers, each row at most 5 columns, so they fit 80 columns whatever the
    numbers and no header is ever cut."""
    s = summary.to_dict()
    totals = [("files", f"{s['files']:,}"), ("failed", f"{s['failed']:,}"),
              ("torch sites", f"{s['torch_sites']:,}"), ("converted", f"{s['converted']:,}"),
              ("rate", f"{s['conversion_rate']:.1%}")]
    labels = [(k, f"{s['by_label'][k]:,}") for k in LABELS]
    lines = ["[bold]migrate convert[/]", *_columns(totals), *_columns(labels, LABEL_STYLE)]
    if s["skipped"]:
        lines.append(f"{s['skipped']:,} path(s) skipped (listed above)")
    return lines


def _columns(cells: list[tuple[str, str]], styles: dict | None = None) -> list[str]:
    """A header line and a value line, each column as wide as its header or its value."""
    widths = [max(len(h), len(v)) for h, v in cells]
    head = "  ".join(f"[bold]{h.rjust(w)}[/]" for (h, _), w in zip(cells, widths))
    values = "  ".join(f"[{styles[h]}]{v.rjust(w)}[/]" if styles else v.rjust(w)
                       for (h, v), w in zip(cells, widths))
    return [head, values]


@dataclass
class RuleGroup:
    """The changes of one rule with one label: how many, where the first is, their notes."""

    rule: str
    label: str
    count: int = 0
    first: str = ""
    notes: Counter = field(default_factory=Counter)

    @property
    def note(self) -> str:
        """The most frequent note (the first one met among equals), empty notes last."""
        named = [(n, -i) for i, n in enumerate(self.notes) if n]
        if not named:
            return ""
        return max(named, key=lambda item: (self.notes[item[0]], item[1]))[0]


def rule_groups(reports: list[FileReport], labels=REVIEW) -> list[RuleGroup]:
    """The changes with these labels, one group per (rule, label), the largest first."""
    groups: dict[tuple[str, str], RuleGroup] = {}
    for r in reports:
        for c in r.changes:
            if c.label not in labels:
                continue
            g = groups.setdefault((c.rule, c.label), RuleGroup(c.rule, c.label, first=f"{r.path}:{c.line}"))
            g.count += 1
            g.notes[c.note] += 1
    return sorted(groups.values(), key=lambda g: (-g.count, g.rule, g.label))


def group_lines(groups: list[RuleGroup], summaries: dict[str, str] | None = None) -> list[str]:
    """One line per group: count, rule, label, first location, its most frequent note (or the
    rule's summary when its notes are empty) and how many other notes the rule has."""
    if not groups:
        return []
    count_w = max(5, *(len(f"{g.count:,}") for g in groups))
    where_w = min(max(len(g.first) for g in groups), 40)
    lines = [f"[bold]{'count'.rjust(count_w)}  rule   {'label'.ljust(11)}  {'first at'.ljust(where_w)}  note[/]"]
    for g in groups:
        note = g.note or (summaries or {}).get(g.rule, "")
        others = len([n for n in g.notes if n and n != note])
        more = f" [dim](+{others} other note{'s' * (others > 1)})[/]" if others else ""
        lines.append(f"{g.count:>{count_w},}  {g.rule:<5}  [{LABEL_STYLE[g.label]}]{g.label:<11}[/]  "
                     f"{escape(g.first.ljust(where_w))}  {escape(note)}{more}")
    return lines


def change_lines(reports: list[FileReport], labels=LABELS) -> list[str]:
    """Every change with these labels, one line each: where, rule, label, before -> after, note."""
    lines = []
    for r in reports:
        for c in r.changes:
            if c.label in labels:
                edit = f"{_one_line(c.before)} -> {_one_line(c.after)}" if c.before or c.after else ""
                note = f"  [dim]({escape(c.note)})[/]" if c.note and edit else escape(c.note)
                lines.append(f"{escape(r.path)}:{c.line}: {c.rule} [{LABEL_STYLE[c.label]}]{c.label}[/]: "
                             f"{escape(edit)}{note}")
    return lines


def _one_line(code: str) -> str:
    return " ".join(code.split())
