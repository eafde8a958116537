"""Convert files and directories: one file per task in a process pool, one bad file never stops the rest."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from migrate.convert.changes import Change, ConvertResult
from migrate.convert.registry import EVERYTHING, RuleSelection
from migrate.convert.einops_calls import named_modules
from migrate.convert.package_classes import MODULE_BASES, package_module_bases
from migrate.convert.package_layers import LAYER_ATTRIBUTES, package_layer_attributes
from migrate.convert.star_imports import (
    OWN_PACKAGES,
    REEXPORTED,
    ModuleStatements,
    package_exports,
    summarised,
    package_reexports,
)
from migrate.convert.fileio import (SourceError, atomic_copy, atomic_write, decode_source, encode_source, is_temp_name,
                            is_within, os_error_message)
from migrate.convert.comments import split_comment_tail
from migrate.convert.walker import KNOWN_INPUT, input_facts
from migrate.convert.workers import run_isolated
from migrate.convert.runtime_files import (RUNTIME_NAME, import_module_text, is_written_runtime, runtime_homes,
                                           runtime_name, write_runtime)

SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".venv", "venv", "node_modules", ".mypy_cache",
             ".pytest_cache"}
# Skipped directories the summary names: a user may expect their code in them to be converted.
NAMED_SKIPS = {".venv": "a virtual environment", "venv": "a virtual environment",
               "node_modules": "JavaScript packages"}
SOURCE_SUFFIXES = (".py", ".ipynb")


@dataclass
class FileReport:
    """What happened to one file (light enough to send back from a worker process)."""

    path: str
    changes: list[Change] = field(default_factory=list)
    torch_sites: int = 0
    error: str | None = None
    copied: bool = False
    skipped: str | None = None  # why the path was not converted nor copied (a symlink out of the tree...)
    before: str | None = None   # kept only for --diff
    after: str | None = None
    runtime: tuple = ()         # the runtime's names the converted file imports

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
    skipped: int = 0
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
        return {"files": self.files, "failed": self.failed, "copied": self.copied, "skipped": self.skipped,
                "torch_sites": self.torch_sites, "converted": self.converted,
                "by_label": dict(self.by_label), "unsupported": self.by_label["unsupported"],
                "conversion_rate": round(self.rate, 4)}


def summarize(reports: list[FileReport]) -> Summary:
    """Add up per-file reports."""
    s = Summary()
    for r in reports:
        if r.skipped:
            s.skipped += 1
            continue
        if r.copied:
            s.copied += 1
            s.failed += r.error is not None
            continue
        s.files += 1
        s.failed += r.error is not None
        s.torch_sites += r.torch_sites
        for c in r.changes:
            s.by_label[c.label] = s.by_label.get(c.label, 0) + 1
    return s


def convert_file(src: str, dst: str | None, target: str = "ms_core", keep_text: bool = False,
                 display: str | None = None, details: bool = True, out_root: str | None = None,
                 rules: RuleSelection = EVERYTHING, inherited: dict | None = None,
                 named_modules=frozenset(), runtime: str = RUNTIME_NAME) -> FileReport:
    """Convert one file (``.py``, or ``.ipynb`` code cells); write it to ``dst`` when given.
    Errors are reported, never raised.

    Args:
        src: path of the PyTorch file.
        dst: where to write the result (may equal ``src`` for in-place); None to not write.
        target: ``"ms_core"`` or ``"mindspore"``.
        keep_text: keep the before/after text on the report (for ``--diff`` and stdout).
        display: the path to show in reports (defaults to ``src``).
        details: keep before/after snippets of every change (False: only of the changes
            labelled approximate or unsupported, which is much faster).
        out_root: the output directory ``dst`` must stay in (a symlinked directory inside it
            that leads elsewhere is refused).
        rules: which rewrites run (``--select``/``--disable``).
        inherited: torch aliases the file gets from a module of its package by ``import *`` or
            by name when that module re-exports them (``from .core import Module``)
            (:func:`migrate.convert.star_imports.package_exports`).
        named_modules: modules of replaced packages (einops) the file's package names in strings
            (:func:`migrate.convert.einops_calls.named_modules`).
        runtime: the module the converted file imports the runtime from (``migrate_runtime``,
            ``..migrate_runtime``), or "" to write the definitions it uses into it; writing the
            runtime itself is the caller's (:func:`migrate.convert.runtime_files.write_runtime`).

    Returns:
        A :class:`FileReport`. A file that fails is written to ``dst`` unchanged (unless ``dst``
        is ``src``), so an output tree stays complete.
    """
    name = display or src
    try:
        raw = Path(src).read_bytes()
    except OSError as exc:
        return FileReport(name, error=os_error_message(exc, name, "read"))
    if src.endswith(".ipynb"):
        from migrate.convert.notebook import convert_notebook
        before, result, data = convert_notebook(raw, target, rules, runtime)
    else:
        before, result, data = _convert_python(raw, target, rules, inherited, named_modules, runtime)
    changes = result.changes
    if not details:
        # exact/transformed snippets are only needed by full reports; keep the ones to review
        changes = [c if c.label in ("approximate", "unsupported")
                   else Change(c.line, c.rule, c.label, "", "", c.note) for c in changes]
    rep = FileReport(name, changes, result.torch_sites, result.error, runtime=result.runtime)
    if keep_text and before is not None:
        rep.before, rep.after = before, (result.code if result.error is None else before)
    # a failed file still goes to the output (unchanged) to keep the tree complete; in place it is
    # only rewritten when the conversion changed it
    if dst is not None and (dst != src or (result.error is None and data != raw)):
        error = _write(src, dst, raw if result.error else data, out_root)
        if error is not None and rep.error is None:
            rep.error = error
    return rep


def _convert_python(raw: bytes, target: str, rules: RuleSelection = EVERYTHING, inherited: dict | None = None,
                    named_modules=frozenset(), runtime: str = RUNTIME_NAME):
    """Return (text before, ConvertResult, bytes to write) for a Python file."""
    from migrate.convert.guarded import convert_text
    try:
        text, encoding = decode_source(raw)
    except SourceError as exc:
        return None, ConvertResult("", error=str(exc)), raw
    result = convert_text(text, target, rules, inherited, named_modules, runtime)
    if result.error is not None or result.code == text:
        return text, result, raw
    try:
        return text, result, encode_source(result.code, encoding)
    except SourceError as exc:
        return text, ConvertResult(text, error=str(exc)), raw


def _write(src: str, dst: str, data: bytes, out_root: str | None) -> str | None:
    """Write ``data`` to ``dst`` atomically; return a one-line error or None."""
    parent = Path(dst).parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return os_error_message(exc, parent, "create the directory")
    if out_root is not None and not is_within(parent, out_root):
        return f"not written: {parent} leads out of the output directory through a symlink"
    try:
        mode = None if dst == src else Path(src).stat().st_mode & 0o777
        atomic_write(dst, data, mode=mode, durable=dst == src)
    except OSError as exc:
        return os_error_message(exc, dst, "write")
    return None


def _task(args):
    """One file's conversion in a worker: :func:`convert_file`'s arguments, then the run's facts
    (own packages, names re-exported from this file, bases that are other files' module classes, the
    layer classes the tree's classes hold by attribute name)."""
    *file_args, own, reexported, module_bases, layer_attributes = args
    token = OWN_PACKAGES.set(own)  # the packages of the run: their imports are the code's own
    kept = REEXPORTED.set(reexported)  # torch names sibling modules import from this one
    bases = MODULE_BASES.set(module_bases)  # bases that are module classes of other files
    layers = LAYER_ATTRIBUTES.set(layer_attributes)  # the layers the tree's classes hold, by name
    try:
        return convert_file(*file_args)
    finally:
        LAYER_ATTRIBUTES.reset(layers)
        MODULE_BASES.reset(bases)
        REEXPORTED.reset(kept)
        OWN_PACKAGES.reset(token)


def file_package(path) -> frozenset:
    """The top-level package a file belongs to (found by walking up the ``__init__.py`` files), as
    :func:`own_packages` gives it; empty for a loose file."""
    folder, top = Path(path).resolve().parent, None
    while (folder / "__init__.py").is_file():
        folder, top = folder.parent, folder.name
    return frozenset({top} if top else ())


def own_packages(roots) -> frozenset:
    """The top-level names a run converts: each root that is a package, and the packages and
    modules directly in each root."""
    out = set()
    for root in roots:
        root = Path(root)
        if (root / "__init__.py").is_file():
            out.add(root.name)
        elif root.is_dir():
            out.update(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
            out.update(p.stem for p in root.glob("*.py"))
    return frozenset(out)


def plan(root: Path, out: Path | None, in_place: bool):
    """List what a directory run does.

    Returns:
        (sources, others, skipped): (source, destination) pairs for the ``.py``/``.ipynb`` files,
        (source, destination) pairs of the other files to copy, and (path, reason, failed)
        triples of what is left alone: named directories (``venv``...), the output directory
        when it lies inside ``root``, symlinks that lead out of the tree, symlinks in an in-place
        run (never written through), FIFOs; ``failed`` for directories that cannot be read.
    """
    py, other, skipped = [], [], []
    out_real = os.path.realpath(out) if out is not None and not in_place else None

    def unreadable(exc: OSError):  # os.walk would skip the directory without a word
        rel = Path(exc.filename).relative_to(root) if exc.filename else Path(".")
        skipped.append((rel, os_error_message(exc, rel, "read the directory"), True))
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        keep = []
        for d in sorted(dirnames):
            p = Path(dirpath) / d
            rel = p.relative_to(root)
            if d in SKIP_DIRS:
                if d in NAMED_SKIPS:
                    skipped.append((rel, NAMED_SKIPS[d], False))
            elif os.path.islink(p):
                where = "inside" if is_within(p, root) else "outside"
                skipped.append((rel, f"symlink to a directory {where} the tree: not followed", False))
            elif out_real is not None and os.path.realpath(p) == out_real:
                skipped.append((rel, "the output directory", False))
            elif (p / "pyvenv.cfg").is_file():
                skipped.append((rel, "a virtual environment", False))
            elif is_written_runtime(p):
                pass  # a runtime an earlier conversion wrote: written again where it is needed
            else:
                keep.append(d)
        dirnames[:] = keep
        for fn in sorted(filenames):
            p = Path(dirpath) / fn
            rel = p.relative_to(root)
            if is_temp_name(fn):
                skipped.append((rel, "temporary file of an interrupted write: delete it", False))
                continue
            is_source = fn.endswith(SOURCE_SUFFIXES)
            if in_place and not is_source:
                continue  # an in-place run reads and writes only the source files
            if os.path.islink(p):
                if not is_within(p, root):
                    skipped.append((rel, f"symlink to {os.path.realpath(p)}, outside the tree: not "
                                         f"followed (copy the file into the tree to convert it)", False))
                    continue
                if in_place:
                    skipped.append((rel, "symlink: not written through (its target in the tree is "
                                         "converted itself)", False))
                    continue
            kind = _special_kind(p)
            if kind is not None:  # reading a FIFO would block the run forever
                skipped.append((rel, f"not a regular file ({kind}): not read", False))
                continue
            dst = p if in_place else (out / rel if out is not None else None)
            if is_source:
                py.append((str(p), None if dst is None else str(dst)))
            elif out is not None and not in_place:
                other.append((p, out / rel))
    return py, other, skipped


def _special_kind(path: Path) -> str | None:
    """'FIFO', 'socket' or 'device' for such a file (symlinks followed); None for a regular file
    or one that cannot be looked at (reading it then fails with a one-line error)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file"


def _crashed(task, reason: str) -> FileReport:
    """The report of a file whose worker process died or raised: the file goes out unchanged."""
    src, dst, display, out_root = task[0], task[1], task[4], task[6]
    rep = FileReport(display, error=f"{reason} while converting it; file left unchanged")
    if dst is not None and dst != src:
        try:
            error = _write(src, dst, Path(src).read_bytes(), out_root)
        except OSError as exc:
            error = os_error_message(exc, display, "read")
        if error is not None:
            rep.error += f"; {error}"
    return rep


def plan_runtime(root: Path, sources: list[str], out: Path) -> tuple[dict[str, str], dict[str, tuple[Path, str]]]:
    """How each source file reaches the runtime, and where its copy goes.

    Returns:
        ({source: the module its converted text imports the runtime from}, {source: (the
        directory, relative to the tree, of its copy; the copy's name)}). One copy per import
        root (:func:`~migrate.convert.runtime_files.runtime_homes`); a notebook imports the copy
        beside it. A copy is named ``migrate_runtime`` unless a file or directory of the tree
        (or of ``out``) already has that name.
    """
    homes = runtime_homes(root, [s for s in sources if s.endswith(".py")])
    names: dict[Path, str] = {}
    links, copies = {}, {}
    for src in sources:
        home, depth = homes.get(src) or (Path(src).relative_to(root).parent, None)
        if home not in names:
            try:
                taken = {p.name for p in (root / home).iterdir() if not is_written_runtime(p)}
            except OSError:
                taken = set()
            names[home] = runtime_name(out / home, taken)
        links[src] = import_module_text(names[home], depth)
        copies[src] = (home, names[home])
    return links, copies


def file_runtime(dst: str | None, src: str | None = None) -> tuple[str, str]:
    """(the module a single converted file imports the runtime from, the copy's name) for a file
    written to ``dst`` (None: to stdout, which gets the definitions inlined: ("", "")). The copy
    goes beside the file; the file imports it relatively when its directory is a package."""
    if dst is None:
        return "", ""
    folder = Path(dst).parent
    try:
        taken = {p.name for p in folder.iterdir() if not is_written_runtime(p)}
    except OSError:
        taken = set()
    if src is not None and Path(src).parent.resolve() == folder.resolve():
        taken.discard(Path(src).name)
    name = runtime_name(folder, taken)
    return import_module_text(name, 0 if (folder / "__init__.py").is_file() else None), name


def write_file_runtime(report: FileReport, dst: str, name: str, target: str) -> FileReport | None:
    """Write the runtime beside the single file ``dst`` when its conversion imports it; the copy's
    report (as a copied file), or None when none was needed."""
    if not report.runtime or report.error is not None:
        return None
    folder = Path(dst).parent
    rep = FileReport(str(folder / name) + "/", copied=True)
    try:
        write_runtime(folder, target, name)
    except OSError as exc:
        rep.error = str(exc) if isinstance(exc, FileExistsError) else os_error_message(exc, folder / name, "write")
    return rep


class _RuntimeCopies:
    """The runtime copies of a tree run, each written as soon as the first converted file that
    imports it comes back from the workers (so that the writing overlaps their conversions
    instead of adding to the run's serial part); a report per copy written (as a copied file:
    path ``<dir>/<name>/``)."""

    def __init__(self, copies: dict, out: Path, target: str):
        self.copies, self.out, self.target = copies, out, target
        self.written: dict[tuple, FileReport] = {}

    def __call__(self, task, rep: FileReport) -> None:
        """Write the copy ``task``'s converted file imports, unless written already."""
        if rep is None or not rep.runtime or rep.error is not None:
            return
        home, name = self.copies[task[0]]
        if (home, name) not in self.written:
            self.written[home, name] = self._write(home, name)

    def _write(self, home: Path, name: str) -> FileReport:
        rel = (home / name).as_posix()
        rep = FileReport(rel + "/", copied=True)
        try:
            write_runtime(self.out / home, self.target, name)
        except (OSError, FileExistsError) as exc:
            rep.error = os_error_message(exc, rel, "write") if isinstance(exc, OSError) and \
                not isinstance(exc, FileExistsError) else str(exc)
        return rep

    def reports(self) -> list[FileReport]:
        return [self.written[k] for k in sorted(self.written)]


def _scan_task(path: str):
    """In a worker: one file's summarised module-level statements (the package pre-passes' input:
    parsing every file was most of the serial part of a run), and the facts its conversion reads
    of its ``ast`` (:class:`~migrate.convert.walker.InputFacts`, or None): one parse of it by
    CPython's parser for both."""
    parsed = ModuleStatements.read(path)
    if parsed is None:
        return None, None
    text, tree = parsed
    return summarised(tree), _input_facts(path, text, tree)


def _input_facts(path: str, text: str, tree):
    """The InputFacts of the file, when the text its conversion converts is ``text`` (as
    read for the pre-passes: UTF-8 without a BOM, '\n' line ends, no comment tail); else None."""
    try:
        converted, _ = decode_source(Path(path).read_bytes())
    except (OSError, SourceError):
        return None
    if converted != text or split_comment_tail(text)[1]:
        return None
    try:
        return input_facts(text, tree)
    except RecursionError:
        return None


def _tree_task(args):
    """One file's conversion in a directory run: :func:`_task`'s arguments, then its InputFacts."""
    *task, known = args
    token = KNOWN_INPUT.set(known)
    try:
        return _task(task)
    finally:
        KNOWN_INPUT.reset(token)


def largest_first(fn, tasks: list, paths: list, jobs: int, **options) -> list:
    """:func:`~migrate.convert.workers.run_isolated` over ``tasks`` (one for each file of
    ``paths``), the largest files first: a large file handed out last keeps one worker busy after
    the others have run out of work; the results in the order of ``tasks``."""
    sizes = [_size(p) for p in paths]
    order = sorted(range(len(tasks)), key=lambda i: -sizes[i])  # (stable: equal sizes in path order)
    done = run_isolated(fn, [tasks[i] for i in order], jobs=max(1, jobs), **options)
    results = [None] * len(tasks)
    for i, result in zip(order, done):
        results[i] = result
    return results


def _size(path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def parsed_statements(python_files: list[str], jobs: int) -> tuple[ModuleStatements, dict]:
    """The run's :class:`ModuleStatements`, every file parsed in the worker processes (a file
    whose worker dies is one that cannot be parsed), and {file: its InputFacts or None}."""
    statements, known = ModuleStatements(), {}
    scanned = largest_first(_scan_task, python_files, python_files, jobs)
    for path, found in zip(python_files, scanned):
        summary, known[path] = found if found is not None else (None, None)
        statements.add(path, summary)
    return statements, known


def convert_tree(root: Path, out: Path | None, target: str = "ms_core", jobs: int = 1,
                 in_place: bool = False, keep_text: bool = False, progress=None,
                 details: bool = True, rules: RuleSelection = EVERYTHING, own=None) -> list[FileReport]:
    """Convert every ``.py`` (and ``.ipynb``) file under ``root`` (relative layout kept, so
    package-relative imports keep working) and copy the other files to ``out``.

    Each file is converted in a worker process: a file that crashes the parser, exhausts memory
    or hits a converter bug is reported as that file's failure (and copied unchanged) while the
    run goes on. Nothing is written outside ``out`` (or, in place, outside ``root``).

    Args:
        root: the directory to convert.
        out: output directory (required unless ``in_place``); None with ``keep_text`` only reports.
        target: ``"ms_core"`` or ``"mindspore"``.
        jobs: worker processes.
        in_place: overwrite the sources.
        keep_text: keep before/after text (for ``--diff``).
        progress: optional callable ``progress(done, total)``.
        details: keep every change's snippets (see :func:`convert_file`).
        rules: which rewrites run (``--select``/``--disable``).
        own: the top-level packages of the run, whose imports are the code's own (never torch's);
            default :func:`own_packages` of ``root``. A run of several sources gives them all.

    Returns:
        One :class:`FileReport` per file, Python files first in path order, then the copied
        files, then the skipped paths.

    Raises:
        ValueError: ``out`` is ``root`` without ``in_place``, or a destination is an input file.
    """
    if out is not None and not in_place and out.resolve() == root.resolve():
        raise ValueError("the output directory is the input directory: use --in-place to overwrite")
    py, other, skipped = plan(root, out, in_place)
    if out is not None and not in_place:
        sources = {os.path.realpath(s) for s, _ in py} | {os.path.realpath(s) for s, _ in other}
        for _, dst in py + other:
            if os.path.realpath(dst) in sources:
                raise ValueError(f"the output {dst} would overwrite an input file: choose an output "
                                 f"directory outside {root}")
    out_root = None if out is None else str(root if in_place else out)
    # names that reach a file through `from .sibling import *` (one table for the whole tree);
    # the pre-passes share one parse of each file, made by the workers
    python_files = [src for src, _ in py if src.endswith(".py")]
    statements, known = parsed_statements(python_files, jobs)
    inherited = package_exports(root, python_files, statements)
    reexported = package_reexports(root, python_files, statements)
    named = named_modules(python_files)
    links, copies = plan_runtime(root, [src for src, _ in py], Path(out_root) if out_root else root)
    module_bases = package_module_bases(root, python_files, statements)
    layer_attributes = package_layer_attributes(root, python_files, statements)
    del statements  # not kept in the workers' memory
    own = own_packages([root]) if own is None else frozenset(own)
    tasks = [(src, dst, target, keep_text, str(Path(src).relative_to(root)), details, out_root, rules,
              inherited.get(src), named, links[src], own,
              reexported.get(src, frozenset()), module_bases.get(src, frozenset()), layer_attributes,
              known.get(src))
             for src, dst in py]
    runtimes = _RuntimeCopies(copies, Path(out_root), target) if out_root is not None else None
    reports: list[FileReport] = largest_first(_tree_task, tasks, [src for src, _ in py], jobs, on_failure=_crashed,
                                              progress=progress, on_result=runtimes)
    if runtimes is not None:
        reports += runtimes.reports()
    for src, dst in other:
        rel = src.relative_to(root)
        rep = FileReport(str(rel), copied=True)
        try:
            dst.parent.mkdir(parents=True, exist_ok=True)
            if not is_within(dst.parent, out):
                rep.error = f"not copied: {dst.parent} leads out of the output directory through a symlink"
            else:
                atomic_copy(src, dst)
        except OSError as exc:
            rep.error = os_error_message(exc, rel if exc.filename == str(src) else dst,
                                         "copy" if exc.filename == str(src) else "write")
        reports.append(rep)
    reports += [FileReport(str(rel), copied=True, error=reason) if failed else FileReport(str(rel), skipped=reason)
                for rel, reason, failed in skipped]
    return reports
