"""The ``migrate`` command: thin argument parsing over the ``migrate`` package.

Each subcommand is two small functions: ``_add_<name>(subparsers)`` declares its arguments and
``_run_<name>(args) -> int`` runs it. To add one (``migrate check``, ``migrate weights``), write
the pair and append it to ``SUBCOMMANDS``; nothing else changes.

Exit codes: 0 success; 1 some input failed (a file did not parse, a check mismatched);
2 usage errors (missing path, bad option combination).
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
    p.add_argument("--select", metavar="IDS", default=None,
                   help="apply only the rewrites whose ID starts with one of these (comma-separated: "
                        "MS1,MS205); markers are always written")
    p.add_argument("--disable", metavar="IDS", default=None,
                   help="do not apply the rewrites whose ID starts with one of these (MS212)")


def _rule_selection(args):
    """The --select/--disable selection; ValueError for an ID prefix that matches no rule."""
    from mappings import load_tables
    from migrate.convert.registry import RULES, RuleSelection

    rules = RuleSelection.parse(args.select, args.disable)
    known = {r.id for r in RULES.values()} | {e.id for e in load_tables().values()}
    for option, prefixes in (("select", rules.select), ("disable", rules.disable)):
        for prefix in prefixes:
            if not any(i.startswith(prefix) for i in known):
                raise ValueError(f"--{option} {prefix}: no rule ID starts with it "
                                 "(see `migrate mappings --rules`)")
    return rules


def _run_convert(args) -> int:
    from migrate.convert.project import convert_file, convert_tree, summarize
    from migrate.convert.report import changes_table, summary_table, unified_diff, write_report

    err = _console()
    src = Path(args.path)
    if not src.exists():
        err.print(f"[red]error:[/] {src} does not exist")
        return 2
    try:
        rules = _rule_selection(args)
    except ValueError as exc:
        err.print(f"[red]error:[/] {exc}")
        return 2
    if args.in_place and (args.output or args.diff):
        err.print("[red]error:[/] --in-place cannot be combined with -o or --diff")
        return 2
    if args.report and Path(args.report).suffix not in (".md", ".markdown", ".json"):
        err.print("[red]error:[/] --report FILE must end in .md or .json")
        return 2
    if src.is_dir():
        if not (args.output or args.in_place or args.diff):
            err.print("[red]error:[/] converting a directory needs -o OUT_DIR, --in-place or --diff")
            return 2
        out = None if args.diff else (src if args.in_place else Path(args.output))
        try:
            reports = _convert_dir(src, out, args, err, convert_tree, rules)
        except ValueError as exc:
            err.print(f"[red]error:[/] {exc}")
            return 2
    else:
        dst = None
        if args.in_place:
            dst = str(src)
        elif args.output and not args.diff:
            o = Path(args.output)
            dst = str(o / src.name if o.is_dir() else o)
            if Path(dst).resolve() == src.resolve():
                err.print("[red]error:[/] the output is the input file: use --in-place to overwrite it")
                return 2
        reports = [convert_file(str(src), dst, args.target, keep_text=True,
                                details=bool(args.report or args.verbose), rules=rules)]
        if dst is None and not args.diff and reports[0].error is None:
            sys.stdout.write(reports[0].after)
    if args.diff:
        _print_diffs(reports, unified_diff)
    for r in reports:
        if r.error:
            err.print(f"[red]failed:[/] {r.path}: {r.error}")
    summary = summarize(reports)
    if args.report:
        write_report(args.report, reports, summary, args.target)
    if not args.quiet:
        review = changes_table(reports, everything=args.verbose)
        if review is not None:
            err.print(review)
        err.print(summary_table(summary))
    return 1 if summary.failed else 0


def _convert_dir(src, out, args, err, convert_tree, rules):
    from rich.progress import Progress
    with Progress(console=err, transient=True, disable=args.quiet) as progress:
        task = progress.add_task("converting", total=None)

        def tick(done, total):
            progress.update(task, completed=done, total=total)

        jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
        return convert_tree(src, out, args.target, jobs=jobs, in_place=args.in_place,
                            keep_text=args.diff, progress=tick,
                            details=bool(args.report or args.verbose), rules=rules)


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
    from rich.markup import escape
    from rich.table import Table
    from mappings import search
    from migrate.convert import registry
    from migrate.convert.report import LABEL_STYLE

    out = _console(stderr=False)
    needle = args.search.lower()
    if args.rules:
        t = Table(title="rules and markers")
        for col in ("id", "kind", "rule", "does"):
            t.add_column(col, overflow="fold")
        for row in registry.listing():
            if needle in " ".join(row).lower():
                t.add_row(*map(escape, row))  # summaries hold brackets: x.shape[i] is not markup
        out.print(t)
        return 0
    t = Table(title="mapping tables")
    for col in ("torch", "target", "label", "id", "note"):
        t.add_column(col, overflow="fold")
    entries = search(args.search)
    for e in sorted(entries, key=lambda e: (e.table, e.torch)):
        target = e.target or f"(rule {e.rule})"
        t.add_row(escape(e.torch), escape(target), f"[{LABEL_STYLE[e.label]}]{e.label}[/]", e.id, escape(e.note))
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
