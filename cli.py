"""The ``migrate`` command: thin argument parsing over the ``migrate`` package.

Each subcommand is two small functions: ``_add_<name>(subparsers)`` declares its arguments and
``_run_<name>(args) -> int`` runs it. To add one (``migrate check``, ``migrate weights``), write
the pair and append it to ``SUBCOMMANDS``; nothing else changes.

Exit codes: 0 success; 1 some input failed (a file did not parse, a check mismatched);
2 usage errors (missing path, bad option combination) and OS errors that stop a run before it
starts (an output or report location that cannot be written). Every error is one line on stderr.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _console(stderr: bool = True):
    from rich.console import Console
    return Console(stderr=stderr, highlight=False)


# ---- migrate convert -----------------------------------------------------------------------
def _add_convert(sub) -> None:
    p = sub.add_parser("convert", help="convert PyTorch code to ms_core / MindSpore code",
                       description="Convert a PyTorch file or directory. A file without -o is "
                                   "printed to stdout; the input is only overwritten with --in-place.")
    p.add_argument("path", help="a .py file or a directory (converted recursively)")
    p.add_argument("-o", "--output", help="output file, or output directory for a directory")
    p.add_argument("--target", choices=("ms_core", "mindspore"), default="ms_core",
                   help="package the output imports (default: ms_core)")
    p.add_argument("--diff", action="store_true", help="print a unified diff instead of writing")
    p.add_argument("--report", metavar="FILE", help="write a report: FILE.md or FILE.json")
    p.add_argument("--jobs", "-j", type=int, default=1,
                   help="worker processes for directories (0: one per CPU)")
    p.add_argument("--in-place", action="store_true", help="overwrite the input files")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary table")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="list every change in the terminal (default: only the ones to review)")


def _run_convert(args) -> int:
    from migrate.project import convert_tree, summarize
    from migrate.report import changes_table, summary_table, unified_diff, write_report

    err = _console()
    src = Path(args.path)
    if not src.exists():
        _fail(err, f"{src} does not exist" + (" (a dangling symlink)" if src.is_symlink() else ""))
        return 2
    if args.in_place and (args.output or args.diff):
        _fail(err, "--in-place cannot be combined with -o or --diff")
        return 2
    if args.report and Path(args.report).suffix not in (".md", ".markdown", ".json"):
        _fail(err, "--report FILE must end in .md or .json")
        return 2
    problem = _report_problem(args.report)
    if problem:
        _fail(err, problem)
        return 2
    if src.is_dir():
        if not (args.output or args.in_place or args.diff):
            _fail(err, "converting a directory needs -o OUT_DIR, --in-place or --diff")
            return 2
        out = None if args.diff else (src if args.in_place else Path(args.output))
        problem = _output_dir_problem(out) if out is not None and not args.in_place else None
        if problem:
            _fail(err, problem)
            return 2
        try:
            reports = _convert_dir(src, out, args, err, convert_tree)
        except ValueError as exc:
            _fail(err, str(exc))
            return 2
    else:
        if not src.is_file():
            _fail(err, f"{src} is not a regular file nor a directory: give a .py or .ipynb file")
            return 2
        dst = None
        if args.in_place:
            if src.is_symlink():
                _fail(err, f"{src} is a symlink: --in-place does not write through symlinks; "
                           f"convert {os.path.realpath(src)} itself")
                return 2
            dst = str(src)
        elif args.output and not args.diff:
            o = Path(args.output)
            dst = str(o / src.name if o.is_dir() else o)
            if Path(dst).resolve() == src.resolve():
                _fail(err, "the output is the input file: use --in-place to overwrite it")
                return 2
            problem = (f"the output {dst} is a directory: give a file name or another -o"
                       if Path(dst).is_dir() else _output_dir_problem(Path(dst).parent, of_directory=False))
            if problem:
                _fail(err, problem)
                return 2
        reports = _convert_one(str(src), dst, args)
        if dst is None and not args.diff and reports[0].error is None:
            if not _write_stdout(reports[0].after):
                return 1
    if args.diff:
        _print_diffs(reports, unified_diff)
    for r in reports:
        if r.error:
            _say(err, "red", "failed", f"{r.path}: {r.error}")
        elif r.skipped:
            _say(err, "yellow", "skipped", f"{r.path}: {r.skipped}")
    summary = summarize(reports)
    if args.report:
        try:
            write_report(args.report, reports, summary, args.target)
        except OSError as exc:
            from migrate.fileio import os_error_message
            _fail(err, os_error_message(exc, args.report, "write the report") + "; choose another --report path")
            return 2
    if not args.quiet:
        review = changes_table(reports, everything=args.verbose)
        if review is not None:
            err.print(review)
        err.print(summary_table(summary))
    return 1 if summary.failed else 0


def _say(err, style: str, label: str, text: str) -> None:
    """One line on stderr, never wrapped, with the text shown literally (paths may hold `[`)."""
    from rich.markup import escape
    # a file name may hold a newline or undecodable bytes: show them escaped, on the one line
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    err.print(f"[{style}]{label}:[/] {escape(text)}", soft_wrap=True)


def _fail(err, text: str) -> None:
    _say(err, "red", "error", text)


def _report_problem(report) -> str | None:
    """Why --report cannot be written (checked before converting anything), or None."""
    if not report:
        return None
    from migrate.fileio import writable_dir_error
    path = Path(report)
    if path.is_dir():
        return f"--report {path} is a directory: give a file name ending in .md or .json"
    problem = writable_dir_error(path.parent if str(path.parent) else Path("."))
    return None if problem is None else f"{problem}; choose another --report path"


def _output_dir_problem(out: Path, of_directory: bool = True) -> str | None:
    """Why files cannot be written in the output directory ``out`` (created if missing), or None."""
    from migrate.fileio import writable_dir_error
    if of_directory and out.exists() and not out.is_dir():
        return f"the output {out} is a file: a directory input needs an output directory"
    problem = writable_dir_error(out)
    return None if problem is None else f"{problem}; choose another -o"


def _convert_one(src: str, dst, args) -> list:
    """Convert one file in a worker process (a crash of the parser costs this file, not a traceback)."""
    from migrate.project import FileReport, _task
    from migrate.workers import run_isolated

    def crashed(task, reason):
        return FileReport(src, error=f"{reason} while converting it; file left unchanged")
    task = (src, dst, args.target, True, None, bool(args.report or args.verbose))
    return run_isolated(_task, [task], on_failure=crashed)


def _write_stdout(text: str) -> bool:
    """Print the converted file; False when the reader went away (``| head``)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # stdout is gone: point it at devnull so the interpreter's final flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return False
    return True


def _convert_dir(src, out, args, err, convert_tree):
    from rich.progress import Progress
    with Progress(console=err, transient=True, disable=args.quiet) as progress:
        task = progress.add_task("converting", total=None)

        def tick(done, total):
            progress.update(task, completed=done, total=total)

        jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
        return convert_tree(src, out, args.target, jobs=jobs, in_place=args.in_place,
                            keep_text=args.diff, progress=tick,
                            details=bool(args.report or args.verbose))


def _print_diffs(reports, unified_diff) -> None:
    from rich.syntax import Syntax
    out = _console(stderr=False)
    for r in reports:
        if r.before is not None and r.after is not None and r.before != r.after:
            out.print(Syntax(unified_diff(r), "diff", theme="ansi_dark", background_color="default"))


# ---- migrate mappings ----------------------------------------------------------------------
def _add_mappings(sub) -> None:
    p = sub.add_parser("mappings", help="list the mapping tables and rules")
    p.add_argument("--search", default="", metavar="TEXT", help="only rows that contain TEXT")
    p.add_argument("--rules", action="store_true", help="list the named rules and marker IDs instead")


def _run_mappings(args) -> int:
    from rich.table import Table
    from mappings import search
    from migrate.report import LABEL_STYLE
    from migrate import training  # noqa: F401  (registers the training-script rules)
    from migrate.rules import MARKERS, RULES

    out = _console(stderr=False)
    needle = args.search.lower()
    if args.rules:
        t = Table(title="rules")
        for col in ("id", "rule", "does"):
            t.add_column(col, overflow="fold")
        rows = [(r.id, r.name, r.doc) for r in RULES.values()] + [(k, "marker", v) for k, v in MARKERS.items()]
        for row in sorted(rows):
            if needle in " ".join(row).lower():
                t.add_row(*row)
        out.print(t)
        return 0
    t = Table(title="mapping tables")
    for col in ("torch", "target", "label", "id", "note"):
        t.add_column(col, overflow="fold")
    entries = search(args.search)
    for e in sorted(entries, key=lambda e: (e.table, e.torch)):
        target = e.target or f"(rule {e.rule})"
        t.add_row(e.torch, target, f"[{LABEL_STYLE[e.label]}]{e.label}[/]", e.id, e.note)
    out.print(t)
    out.print(f"{len(entries)} entries")
    return 0


# Register new subcommands here: (name, add-arguments function, run function).
SUBCOMMANDS = [
    ("convert", _add_convert, _run_convert),
    ("mappings", _add_mappings, _run_mappings),
]


def _checker_subcommands() -> list:
    """`migrate check` / `migrate weights`, from migrate/check_cli.py when it is installed."""
    try:
        from migrate import check_cli
    except ImportError:
        return []
    return [(name, getattr(check_cli, f"add_{name}"), getattr(check_cli, f"run_{name}"))
            for name in ("check", "weights")
            if hasattr(check_cli, f"add_{name}") and hasattr(check_cli, f"run_{name}")]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="migrate", description="PyTorch -> MindSpore migration toolkit")
    sub = parser.add_subparsers(dest="command", required=True)
    known = {name for name, _, _ in SUBCOMMANDS}
    extra = [c for c in _checker_subcommands() if c[0] not in known]
    for name, add, run in SUBCOMMANDS + extra:
        add(sub)
        sub.choices[name].set_defaults(_run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``migrate`` command; return its exit code."""
    args = build_parser().parse_args(argv)
    return args._run(args)


if __name__ == "__main__":
    sys.exit(main())
