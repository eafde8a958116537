"""Convert files and directories: one file per task in a process pool, one bad file never stops the rest."""
from __future__ import annotations

import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from migrate.convert.changes import Change, ConvertResult
from migrate.convert.registry import EVERYTHING, RuleSelection
from migrate.convert.star_imports import package_exports
from migrate.convert.walker import Converter

SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".venv", "venv", "node_modules", ".mypy_cache",
             ".pytest_cache"}


@dataclass
class FileReport:
    """What happened to one file (light enough to send back from a worker process)."""

    path: str
    changes: list[Change] = field(default_factory=list)
    torch_sites: int = 0
    error: str | None = None
    copied: bool = False
    before: str | None = None   # kept only for --diff
    after: str | None = None

    @property
    def converted(self) -> int:
        return sum(1 for c in self.changes if c.label != "unsupported")

    def count(self, label: str) -> int:
        return sum(1 for c in self.changes if c.label == label)


@dataclass
class Summary:
    """Totals over a run, as the summary table and the reports show them."""

    files: int = 0
    failed: int = 0
    copied: int = 0
    torch_sites: int = 0
    by_label: dict = field(default_factory=lambda: {k: 0 for k in
                                                    ("exact", "transformed", "approximate", "unsupported")})

    @property
    def converted(self) -> int:
        return sum(v for k, v in self.by_label.items() if k != "unsupported")

    @property
    def rate(self) -> float:
        total = self.converted + self.by_label["unsupported"]
        return 1.0 if total == 0 else self.converted / total

    def to_dict(self) -> dict:
        return {"files": self.files, "failed": self.failed, "copied": self.copied,
                "torch_sites": self.torch_sites, "converted": self.converted,
                "by_label": dict(self.by_label), "unsupported": self.by_label["unsupported"],
                "conversion_rate": round(self.rate, 4)}


def summarize(reports: list[FileReport]) -> Summary:
    """Add up per-file reports."""
    s = Summary()
    for r in reports:
        if r.copied:
            s.copied += 1
            continue
        s.files += 1
        s.failed += r.error is not None
        s.torch_sites += r.torch_sites
        for c in r.changes:
            s.by_label[c.label] = s.by_label.get(c.label, 0) + 1
    return s


def convert_file(src: str, dst: str | None, target: str = "ms_core", keep_text: bool = False,
                 display: str | None = None, details: bool = True,
                 rules: RuleSelection = EVERYTHING, inherited: dict | None = None) -> FileReport:
    """Convert one file; write it to ``dst`` when given. Errors are reported, never raised.

    Args:
        src: path of the PyTorch file.
        dst: where to write the result (may equal ``src`` for in-place); None to not write.
        target: ``"ms_core"`` or ``"mindspore"``.
        keep_text: keep the before/after text on the report (for ``--diff`` and stdout).
        display: the path to show in reports (defaults to ``src``).
        details: keep before/after snippets of every change (False: only of the changes
            labelled approximate or unsupported, which is much faster).
        rules: which rewrites run (``--select``/``--disable``).
        inherited: torch aliases the file gets from a module of its package by ``import *``
            (:func:`migrate.convert.star_imports.package_exports`).

    Returns:
        A :class:`FileReport`.
    """
    name = display or src
    try:
        raw = Path(src).read_bytes()
    except OSError as exc:
        return FileReport(name, error=f"cannot read: {exc.strerror}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if dst is not None and dst != src:
            Path(dst).parent.mkdir(parents=True, exist_ok=True)
            Path(dst).write_bytes(raw)  # keep the tree complete; the file is reported unconverted
        return FileReport(name, error=f"not UTF-8 (byte {exc.start}): re-encode the file as UTF-8")
    result: ConvertResult = Converter(target, rules=rules, inherited=inherited).convert(text)
    changes = result.changes
    if not details:
        # exact/transformed snippets are only needed by full reports; keep the ones to review
        changes = [c if c.label in ("approximate", "unsupported")
                   else Change(c.line, c.rule, c.label, "", "", c.note) for c in changes]
    rep = FileReport(name, changes, result.torch_sites, result.error)
    if keep_text:
        rep.before, rep.after = text, result.code
    if dst is not None and (result.error is None or dst != src):
        Path(dst).parent.mkdir(parents=True, exist_ok=True)
        if result.code != text or dst != src:
            Path(dst).write_text(result.code, encoding="utf-8")
    return rep


def _task(args):
    return convert_file(*args)


def plan(root: Path, out: Path | None, in_place: bool) -> tuple[list[tuple[str, str | None]], list[tuple[Path, Path]]]:
    """List (source, destination) pairs for Python files and the non-Python files to copy."""
    py, other = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for fn in sorted(filenames):
            p = Path(dirpath) / fn
            rel = p.relative_to(root)
            dst = p if in_place else (out / rel if out is not None else None)
            if fn.endswith(".py"):
                py.append((str(p), None if dst is None else str(dst)))
            elif out is not None and not in_place:
                other.append((p, out / rel))
    return py, other


def convert_tree(root: Path, out: Path | None, target: str = "ms_core", jobs: int = 1,
                 in_place: bool = False, keep_text: bool = False, progress=None,
                 details: bool = True, rules: RuleSelection = EVERYTHING) -> list[FileReport]:
    """Convert every ``.py`` file under ``root`` (relative layout kept, so package-relative imports
    keep working) and copy the other files to ``out``.

    Args:
        root: the directory to convert.
        out: output directory (required unless ``in_place``); None with ``keep_text`` only reports.
        target: ``"ms_core"`` or ``"mindspore"``.
        jobs: worker processes (1 converts in this process).
        in_place: overwrite the sources.
        keep_text: keep before/after text (for ``--diff``).
        progress: optional callable ``progress(done, total)``.
        details: keep every change's snippets (see :func:`convert_file`).
        rules: which rewrites run (``--select``/``--disable``).

    Returns:
        One :class:`FileReport` per file, Python files first in path order.
    """
    py, other = plan(root, out, in_place)
    if out is not None and not in_place and out.resolve() == root.resolve():
        raise ValueError("the output directory is the input directory: use --in-place to overwrite")
    # names that reach a file through `from .sibling import *` (one table for the whole tree)
    inherited = package_exports(root, [src for src, _ in py])
    tasks = [(src, dst, target, keep_text, str(Path(src).relative_to(root)), details, rules, inherited.get(src))
             for src, dst in py]
    reports: list[FileReport] = []
    if jobs <= 1 or len(tasks) < 2:
        for i, t in enumerate(tasks):
            reports.append(_task(t))
            if progress:
                progress(i + 1, len(tasks))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            chunk = max(1, min(32, len(tasks) // (jobs * 4)))
            for i, rep in enumerate(pool.map(_task, tasks, chunksize=chunk)):
                reports.append(rep)
                if progress:
                    progress(i + 1, len(tasks))
    for src, dst in other:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        reports.append(FileReport(str(src.relative_to(root)), copied=True))
    return reports
