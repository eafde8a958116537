"""The ``migrate`` command: thin argument parsing over the ``migrate`` package.

Each subcommand is two small functions: ``_add_<name>(subparsers)`` declares its arguments and
``_run_<name>(args) -> int`` runs it: ``convert`` and ``mappings`` call ``migrate.convert``,
``check`` and ``weights`` call ``migrate.check`` and hand it the converter (``convert_source``),
so the checker never imports the converter. To add a subcommand, write the pair and append it to
``SUBCOMMANDS``; nothing else changes. The libraries are imported inside the run functions: a
subcommand loads only what it uses.

Exit codes: 0 success; 1 some input failed (a file did not parse, a check mismatched);
2 usage errors (missing path, bad option combination), a check that could not run, and OS
errors that stop a run before it starts (an output or report location that cannot be written).
Every error is one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def _console(stderr: bool = True, wide: bool = False):
    """A rich console. `wide`: piped or redirected, it is 200 columns (rich's default there is
    80, which folds every table and note of a check)."""
    from rich.console import Console
    stream = sys.stderr if stderr else sys.stdout
    width = 200 if wide and not stream.isatty() else None
    return Console(stderr=stderr, highlight=False, width=width)


# ---- migrate convert -----------------------------------------------------------------------
def _add_convert(sub) -> None:
    p = sub.add_parser("convert", help="convert PyTorch code to ms_core / MindSpore code",
                       description="Convert a PyTorch file or directory. A file without -o is "
                                   "printed to stdout; the input is only overwritten with --in-place.")
    p.add_argument("path", help="a .py file or a directory (converted recursively)")
    p.add_argument("more", nargs="*", metavar="DEP",
                   help="more source directories converted in the same run (a package and the torch "
                        "packages it imports): each goes to OUT/<its name>, and they import each other "
                        "converted")
    p.add_argument("--library", action="append", metavar="NAME", default=[],
                   help="also convert the installed torch library NAME (torchvision, timm...) that the "
                        "code builds models from: located without importing it, converted into "
                        "OUT/NAME; the code's imports of it then reach the converted copy")
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
    from migrate.convert.project import convert_tree
    from migrate.convert.report import unified_diff, write_report

    err = _console()
    src = Path(args.path)
    if not src.exists():
        _fail(err, f"{src} does not exist" + (" (a dangling symlink)" if src.is_symlink() else ""))
        return 2
    try:
        rules = _rule_selection(args)
    except ValueError as exc:
        err.print(f"[red]error:[/] {exc}")
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
    if args.more or args.library:
        return _run_convert_sources(args, err, rules)
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
            reports = _convert_dir(src, out, args, err, convert_tree, rules)
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
        reports = _convert_one(str(src), dst, args, rules)
        if dst is None and not args.diff and reports[0].error is None:
            if not _write_stdout(reports[0].after):
                return 1
    if args.diff:
        _print_diffs(reports, unified_diff)
    return _finish_convert(args, err, reports, write_report)


def _finish_convert(args, err, reports, write_report) -> int:
    """Failed and skipped files, the report file, the summary; the exit status."""
    from migrate.convert.project import summarize
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
            from migrate.convert.fileio import os_error_message
            _fail(err, os_error_message(exc, args.report, "write the report") + "; choose another --report path")
            return 2
    if not args.quiet:
        _print_convert_report(err, reports, summary, args)
    return 1 if summary.failed else 0


def _print_convert_report(err, reports, summary, args) -> None:
    """The summary first; then one line per rule to review (count, first location, its most
    frequent note), or with -v every change; then where the rest is."""
    from migrate.convert import report
    from migrate.convert.registry import listing
    lines = report.summary_lines(summary)
    groups = report.rule_groups(reports)
    review = sum(g.count for g in groups)
    if args.verbose:
        every = report.change_lines(reports)
        lines += ["", f"[bold]every change ({len(every):,})[/]", *every] if every else []
    elif groups:
        title = (f"[bold]to review ({'/'.join(report.REVIEW)}): {review:,} changes, "
                 f"{len(groups)} rule{'s' * (len(groups) > 1)}[/]")
        lines += ["", title, *report.group_lines(groups, {row[0]: row[3] for row in listing()})]
        where = f"{args.report} has every change" if args.report else "--report FILE writes every change"
        lines.append(f"-v lists each of the {review:,} changes; {where}")
    for line in lines:
        err.print(line, soft_wrap=True, highlight=False, emoji=False)  # path:100: is no emoji


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
    from migrate.convert.fileio import writable_dir_error
    path = Path(report)
    if path.is_dir():
        return f"--report {path} is a directory: give a file name ending in .md or .json"
    problem = writable_dir_error(path.parent if str(path.parent) else Path("."))
    return None if problem is None else f"{problem}; choose another --report path"


def _output_dir_problem(out: Path, of_directory: bool = True) -> str | None:
    """Why files cannot be written in the output directory ``out`` (created if missing), or None."""
    from migrate.convert.fileio import writable_dir_error
    if of_directory and out.exists() and not out.is_dir():
        return f"the output {out} is a file: a directory input needs an output directory"
    problem = writable_dir_error(out)
    return None if problem is None else f"{problem}; choose another -o"


def _convert_one(src: str, dst, args, rules, own=None) -> list:
    """Convert one file in a worker process (a crash of the parser costs this file, not a traceback).
    Written to a file, it imports the runtime from a copy written beside it; to stdout, it holds
    the runtime's definitions it uses (between BEGIN/END markers)."""
    from migrate.convert.project import FileReport, _task, file_package, file_runtime, write_file_runtime
    from migrate.convert.workers import run_isolated

    def crashed(task, reason):
        return FileReport(src, error=f"{reason} while converting it; file left unchanged")
    beside = dst if dst is not None or not args.diff else src  # --diff shows what -o/--in-place write
    link, name = file_runtime(beside, src)
    task = (src, dst, args.target, True, None, bool(args.report or args.verbose), None, rules, None, frozenset(),
            link, file_package(src) if own is None else frozenset(own), frozenset(), frozenset(), {})
    reports = run_isolated(_task, [task], on_failure=crashed)
    copy = write_file_runtime(reports[0], dst, name, args.target) if dst is not None else None
    return reports + ([copy] if copy is not None else [])


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


class _ProgressBar:
    """A progress bar on stderr for runs of at least ``MIN_FILES`` files, shown only when stderr
    is a terminal (piped, redirected or under test, the output stays free of it)."""

    MIN_FILES = 20

    def __init__(self, err, quiet: bool):
        self.err, self.shown = err, not quiet and err.is_terminal
        self.progress = self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.progress is None:
            if not self.shown or total < self.MIN_FILES:
                return
            from rich.progress import Progress
            self.progress = Progress(console=self.err, transient=True)
            self.progress.start()
            self.task = self.progress.add_task("converting", total=total)
        self.progress.update(self.task, completed=done, total=total)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()


def _library_dir(name: str) -> Path:
    """The directory of an installed package, found without importing it (ValueError if none)."""
    import importlib.util
    try:
        spec = importlib.util.find_spec(name) if "." not in name else None
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"--library {name}: no installed package of that name (give its source "
                         f"directory as a DEP instead)")
    return Path(list(spec.submodule_search_locations)[0])


def _run_convert_sources(args, err, rules) -> int:
    """`migrate convert SRC DEP... -o OUT` (or SRC --library NAME): every source in one run, each
    into OUT/<its name> (a file SRC into OUT/<file name>), with the packages of all of them as the
    run's own, so that they import each other converted."""
    from migrate.convert.project import convert_tree, own_packages
    from migrate.convert.report import write_report
    try:
        sources = [Path(args.path), *map(Path, args.more), *map(_library_dir, args.library)]
    except ValueError as exc:
        _fail(err, str(exc))
        return 2
    problem = ("several sources need -o OUT_DIR (no --in-place or --diff)"
               if not args.output or args.in_place or args.diff else
               next((f"{s} is not a directory: a source besides the first is a package directory"
                     for s in sources[1:] if not s.is_dir()), None)
               or next((f"two sources are named {s.name}" for i, s in enumerate(sources)
                        if s.name in [t.name for t in sources[:i]]), None))
    if problem:
        _fail(err, problem)
        return 2
    out = Path(args.output)
    own = own_packages(s for s in sources if s.is_dir()) | {s.stem for s in sources if s.is_file()}
    reports = []
    for s in sources:
        try:
            if s.is_dir():
                got = _convert_dir(s, out / s.name, args, err, convert_tree, rules, own)
            else:
                got = _convert_one(str(s), str(out / s.name), args, rules, own)
        except ValueError as exc:
            _fail(err, str(exc))
            return 2
        for r in got:
            r.path = str(Path(s.name) / r.path) if s.is_dir() else r.path
        reports += got
    return _finish_convert(args, err, reports, write_report)


def _convert_dir(src, out, args, err, convert_tree, rules, own=None):
    with _ProgressBar(err, args.quiet) as tick:
        jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
        return convert_tree(src, out, args.target, jobs=jobs, in_place=args.in_place,
                            keep_text=args.diff, progress=tick,
                            details=bool(args.report or args.verbose), rules=rules, own=own)


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
        t.add_row(escape(e.torch), escape(target), f"[{LABEL_STYLE[e.label]}]{e.label}[/]", registry.entry_id(e),
                  escape(e.note))
    out.print(t)
    out.print(f"{len(entries)} entries")
    return 0


# ---- migrate check -------------------------------------------------------------------------
# the dtypes migrate.check.harness.make_inputs accepts (named here: --help needs no NumPy)
_DTYPE_NAMES = ("float32", "float64", "float16", "int64", "int32", "bool")
_REPORT_SUFFIXES = (".md", ".markdown", ".json", ".html", ".htm")


def _add_check(sub) -> None:
    p = sub.add_parser("check", help="run a PyTorch model and its conversion side by side",
                       description="Convert MODEL.py (or take --converted), build both models "
                                   "with the same expression, copy the weights, feed the same "
                                   "inputs and compare outputs, every layer, gradients and "
                                   "training steps. Exit 0 pass, 1 mismatch, 2 could not run.")
    p.add_argument("path", nargs="?", help="the PyTorch file defining the model: a loose file or "
                                           "any module of a package (its relative imports work)")
    p.add_argument("--model", help="constructor expression, e.g. 'Net(10)'; without PATH: "
                                   "'pkg.module:Net(10)' (with --root)")
    p.add_argument("--root", metavar="DIR", help="the directory holding pkg for --model "
                                                 "pkg.module:EXPR (default: the current one)")
    p.add_argument("--cache", metavar="DIR", help="where converted packages are kept (default: "
                                                  "$MIGRATE_CHECK_CACHE or ~/.cache/ms-migrate/"
                                                  "check)")
    p.add_argument("--no-cache", action="store_true", help="convert into a temporary directory")
    p.add_argument("--input-shape", action="append", metavar="N,C,H,W",
                   help="shape of one input; repeat for multi-input models; A+B passes the tuple "
                        "of two tensors as one argument (an LSTM state: 2,3,16+2,3,16)")
    p.add_argument("--input-dtype", action="append", metavar="DTYPE",
                   help=f"dtype per input ({', '.join(_DTYPE_NAMES)}); one value applies to all")
    p.add_argument("--input-range", action="append", metavar="LO,HI",
                   help="value range [LO, HI) of integer inputs (token ids, labels); per input")
    p.add_argument("--converted", metavar="OUT.py", help="use this converted file (or converted "
                                                         "copy of the root directory) instead of "
                                                         "converting PATH")
    p.add_argument("--mode", choices=("eval", "train", "both"), default="both")
    p.add_argument("--train-steps", type=int, default=0, metavar="N")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--loss", choices=("mse", "sum", "cross_entropy"), default="mse")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--float64", action="store_true",
                   help="always run torch in float64 too and show its noise column everywhere "
                        "(by default it runs only where a tolerance fails)")
    p.add_argument("--threads", type=int, default=1, metavar="N",
                   help="torch threads (default 1: on a busy machine more threads spin against "
                        "each other; the converted model's BLAS keeps its own)")
    p.add_argument("--local", choices=("auto", "all"), default="auto",
                   help="replay layers on torch's inputs where they disagree (auto) or all")
    p.add_argument("--no-init-check", action="store_true",
                   help="skip the KS test of the initial parameter values")
    p.add_argument("--report", metavar="FILE", action="append",
                   help="write FILE.md, FILE.json or FILE.html (repeat for several)")
    p.add_argument("--quiet", "-q", action="store_true", help="print the verdict only")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="give up (exit 2) when the check takes longer; it then runs in a child "
                        "process, which also turns a crash or an out-of-memory kill into exit 2")
    p.add_argument("--ms-python", metavar="PYTHON",
                   help="an interpreter with MindSpore: the --target mindspore conversion runs "
                        "there too, as a third column (torch vs ms_core vs MindSpore)")
    p.add_argument("--zoo", metavar="MODELS.toml",
                   help="check every model listed in this file (see migrate/check/zoo.py); "
                        "one summary table, a report per model")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="with --zoo: checks running at once (0: one per CPU)")
    p.add_argument("--report-dir", metavar="DIR",
                   help="with --zoo: where each model's HTML and JSON reports go (default: "
                        "MODELS-reports/ beside the zoo file)")


def _converter(target: str = "ms_core"):
    """`migrate.convert_source` for `target`, with a cache key naming the converter's version (a
    digest of its code and mapping tables): converted packages are cached under it."""
    import hashlib
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for folder, pattern in ((here / "migrate" / "convert", "*.py"), (here / "migrate" / "runtime", "*.py"),
                            (here / "mappings", "*.toml"), (here / "mappings", "*.py")):
        for f in sorted(folder.rglob(pattern)):
            digest.update(f.name.encode() + f.read_bytes())
    return _Converter(target, digest.hexdigest()[:16])


class _Converter:
    """The converter the checker is handed: ``convert(text, inherited=None)``, its cache key,
    and the package's star-import table. A class, not a functools.partial: multiprocessing
    pickles a partial without its attributes, so zoo children lost the key and the table."""

    takes_own = True  # convert(text, own=...): the packages converted together

    def __init__(self, target: str, cache_key: str):
        self.target, self.cache_key = target, cache_key

    def __call__(self, text: str, inherited: dict | None = None, own=frozenset(), module_bases=frozenset(),
                 runtime: str | None = None):
        from migrate import convert_source
        if runtime is None:
            return convert_source(text, target=self.target, inherited=inherited, own=own, module_bases=module_bases)
        return convert_source(text, target=self.target, inherited=inherited, own=own, module_bases=module_bases,
                              runtime=runtime)

    @staticmethod
    def module_bases_for(root, paths) -> dict:
        """{path: the bases of its classes that are module classes of other files}: a class whose
        nn.Module base is two files away is a Cell, as `migrate convert DIR` converts it."""
        from migrate.convert.package_classes import package_module_bases
        return package_module_bases(Path(root), paths)

    @staticmethod
    def runtime_for(root, paths) -> tuple[dict, dict]:
        """({path: the module its conversion imports the runtime from}, {path: (directory, name)
        of that copy}): the files of a package reach one copy inside it, as `migrate convert DIR`
        writes it."""
        from migrate.convert.project import plan_runtime
        return plan_runtime(Path(root), list(paths), Path(root))

    def write_runtime(self, directory, name: str) -> None:
        """Write the runtime for this converter's target as ``directory/name``."""
        from migrate.convert.runtime_files import write_runtime
        write_runtime(Path(directory), self.target, name)

    @staticmethod
    def for_package(root, paths) -> dict:
        """{path: torch aliases the file gets from a sibling by `import *`}: a package is
        converted as `migrate convert DIR` converts it (the checker converts file by file)."""
        from migrate.convert.star_imports import package_exports
        return package_exports(Path(root), paths)


def _cache_dir(args):
    from migrate.check.loader import default_cache_dir
    return None if args.no_cache else (args.cache or default_cache_dir())


def _run_check(args) -> int:
    from rich.markup import escape

    from migrate.check import EXIT_ERROR
    err = _console(wide=True)
    if args.zoo:
        return _run_zoo(args, err)
    problem = _check_usage(args)
    if problem:
        err.print(f"[red]error:[/] {escape(problem)}")
        return EXIT_ERROR
    import torch
    torch.set_num_threads(max(1, args.threads))
    job = _check_job(args)
    outcome = _run_check_job(job, args)
    if isinstance(outcome, str):
        err.print(f"[red]error:[/] {escape(outcome)}")
        return EXIT_ERROR
    result, notes = outcome
    _show_check(result, notes, args.quiet, err)
    return _write_reports(result, job.reports, err) or result.exit_code


def _run_zoo(args, err) -> int:
    """`migrate check --zoo FILE`: every model in child processes, a progress bar, one table."""
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, \
        TimeElapsedColumn

    from migrate.check.harness import UsageError
    from migrate.check.zoo import exit_code, load_zoo, run_zoo, summary_index
    try:
        jobs = load_zoo(args.zoo, init_check=not args.no_init_check, ms_python=args.ms_python)
    except UsageError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    report_dir = args.report_dir or os.path.splitext(os.path.abspath(args.zoo))[0] + "-reports"
    n_jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    running = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("[dim]{task.fields[now]}"))
    with Progress(*columns, console=err, transient=True, disable=args.quiet) as progress:
        task = progress.add_task("checking", total=len(jobs), now="")

        def on_start(job):
            running.append(job.name)
            progress.update(task, now=", ".join(running))

        def on_done(job, row):
            running.remove(job.name)
            progress.update(task, advance=1, now=", ".join(running))
            progress.console.print(f"{_VERDICT_STYLE[row.verdict]} {escape(job.name)} "
                                   f"[dim]({row.seconds:.1f}s)[/dim]")
        rows = run_zoo(jobs, (_converter(), _cache_dir(args), _converter("mindspore")),
                       report_dir, n_jobs, args.timeout, max(1, args.threads), on_start, on_done)
    summary_index(rows, os.path.join(report_dir, "summary.json"))
    _console(stderr=False, wide=True).print(_zoo_table(rows, args.zoo))
    err.print(f"reports in {report_dir}")
    return exit_code(rows)


_VERDICT_STYLE = {"PASS": "[green]PASS[/green]", "MISMATCH": "[red]MISMATCH[/red]",
                  "ERROR": "[bold red]ERROR[/bold red]"}


def _zoo_table(rows, title):
    from rich.markup import escape
    from rich.table import Table
    t = Table(title=f"migrate check --zoo {escape(title)}")
    for col in ("model", "verdict", "worst quantity", "first culprit", "time"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(escape(r.name), _VERDICT_STYLE[r.verdict], escape(r.worst),
                  escape(r.culprit[:300]), f"{r.seconds:.1f}s")
    passed = sum(r.verdict == "PASS" for r in rows)
    t.caption = f"{passed} of {len(rows)} pass"
    return t


def _check_usage(args) -> str:
    """What is wrong with the check's arguments ('' when nothing)."""
    if any(os.path.splitext(r)[1].lower() not in _REPORT_SUFFIXES for r in args.report or []):
        return "--report FILE must end in .md, .json or .html"
    if args.train_steps < 0:
        return "--train-steps must be >= 0"
    if args.timeout is not None and args.timeout <= 0:
        return "--timeout must be a positive number of seconds"
    if not args.model or not args.input_shape:
        return "give --model and --input-shape (or --zoo FILE)"
    return ""


def _check_settings(args):
    from migrate.check import CheckSettings
    return CheckSettings(rtol=args.rtol, atol=args.atol, mode=args.mode,
                         train_steps=args.train_steps, optimizer=args.optimizer, lr=args.lr,
                         loss_fn=args.loss, seed=args.seed, float64_reference=args.float64,
                         init_check=not args.no_init_check, local=args.local)


def _check_job(args):
    from migrate.check.harness import CheckJob
    return CheckJob(args.model, args.path, args.model, list(args.input_shape), args.input_dtype,
                    args.input_range, args.root, args.converted, _check_settings(args),
                    list(args.report or []), args.timeout, args.ms_python)


def _run_check_job(job, args):
    """(result, notes), or the message of why the check could not run. With a time limit the
    check runs in a child process (killed when the time is up)."""
    from migrate.check import CheckError
    from migrate.check.harness import UsageError, run_job
    from migrate.check.isolate import ChildFailed, run
    work = (job, _converter(), _cache_dir(args), _converter("mindspore") if job.ms_python
            else None)
    try:
        if job.timeout is None:
            return run_job(*work)
        return run(run_job, work, timeout=job.timeout, threads=args.threads)
    except (UsageError, CheckError, ChildFailed) as exc:
        return str(exc)
    except MemoryError as exc:
        return f"out of memory ({exc}): use a smaller --input-shape"


def _show_check(result, notes, quiet, err) -> None:
    from rich.markup import escape

    from migrate.check.report import verdict
    out = _console(stderr=False, wide=True)
    if quiet:
        style = "green" if result.passed else "red"
        out.print(f"[{style}]{escape(verdict(result))}[/{style}]")
    else:
        result.print_table(out)
    for n in notes:
        err.print(f"[yellow]note:[/] {escape(n)}")


def _write_reports(result, reports, err) -> int:
    """Write the reports; 2 (could not run) when one cannot be written, else 0."""
    from rich.markup import escape
    for report in reports:
        try:
            result.write(report)
        except OSError as exc:
            err.print(f"[red]error:[/] cannot write {report}: {escape(str(exc))}")
            return 2
        err.print(f"report written to {report}")
    return 0


# ---- migrate check-ddp ---------------------------------------------------------------------
def _add_check_ddp(sub) -> None:
    p = sub.add_parser("check-ddp", help="run a data-parallel script under torch DDP and its "
                                         "conversion under the ms_core launcher, rank by rank",
                       description="Run SCRIPT under torch DDP (gloo, torchrun; mp.spawn scripts as "
                                   "they are) and its conversion under python -m ms_core.launch (and "
                                   "with --ms-python the --target mindspore conversion under msrun), "
                                   "from the same initial weights, random numbers and data order; "
                                   "compare every rank's losses step by step and its final "
                                   "parameters and buffers. Exit 0 agree, 1 differ, 2 could not run.")
    p.add_argument("script", help="the torch training script")
    p.add_argument("--nproc", type=int, default=2, metavar="N", help="processes per side (default 2)")
    p.add_argument("--steps", type=int, default=None, metavar="S",
                   help="stop every process after S optimizer steps (default: the whole script)")
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                   help="per side; the side's processes are stopped when it runs out (default 600)")
    p.add_argument("--ms-python", metavar="PYTHON",
                   help="an interpreter with MindSpore: also run the --target mindspore conversion "
                        "under that interpreter's msrun")
    p.add_argument("--report", metavar="FILE.json", help="write the result as JSON")
    p.add_argument("--work", metavar="DIR", help="keep the runs' files (logs, traces) in DIR")
    p.add_argument("--args", default="", metavar="'ARGS'",
                   help="the script's arguments, as one string after = (--args='--epochs 3')")


def _run_check_ddp(args) -> int:
    import json
    import shlex

    from rich.markup import escape

    from migrate.check.ddp import EXIT_ERROR, DdpSettings, check_ddp
    err = _console(wide=True)
    if args.nproc < 1 or not os.path.isfile(args.script):
        err.print(f"[red]error:[/] "
                  f"{'--nproc must be at least 1' if args.nproc < 1 else escape(args.script) + ' does not exist'}")
        return EXIT_ERROR
    settings = DdpSettings(nproc=args.nproc, max_steps=args.steps, rtol=args.rtol, atol=args.atol,
                           timeout=args.timeout, args=tuple(shlex.split(args.args)), ms_python=args.ms_python)
    result = check_ddp(args.script, settings, _converter(),
                       _converter("mindspore") if args.ms_python else None, work=args.work)
    _show_check_ddp(result, err)
    if args.report:
        try:
            with open(args.report, "w", encoding="utf-8") as f:
                json.dump(result.to_dict(), f, indent=1)
        except OSError as exc:
            err.print(f"[red]error:[/] cannot write {args.report}: {escape(str(exc))}")
            return EXIT_ERROR
    return result.exit_code


def _show_check_ddp(result, err) -> None:
    from rich.markup import escape
    from rich.table import Table
    t = Table(title=f"migrate check-ddp {escape(os.path.basename(result.script))} "
                    f"({result.settings.nproc} processes)")
    for col in ("side", "rank", "steps", "loss max rel diff", "final values max rel diff", "verdict"):
        t.add_column(col)
    for side, comparisons in result.ranks.items():
        for c in comparisons:
            t.add_row(side, str(c.rank), str(c.losses), "-" if c.loss_err is None else f"{c.loss_err:.2e}",
                      "-" if c.param_err is None else f"{c.param_err:.2e} ({escape(c.worst_param or '')})",
                      "[green]agree[/]" if c.passed else "[red]differ[/]: " + escape("; ".join(c.problems)))
    err.print(t)
    for side, run in result.runs.items():
        err.print(f"{side}: {escape(' '.join(run.command[:8]))}{' ...' if len(run.command) > 8 else ''}"
                  f" [{run.seconds:.1f} s]" + (f" [red]{escape(run.error)}[/]" if run.error else ""))
    for n in result.notes:
        err.print(f"[yellow]note:[/] {escape(n)}")
    verdict = ("[red]could not run[/]" if result.error else "[green]PASS[/]" if result.passed
               else "[red]MISMATCH[/]")
    err.print(f"verdict: {verdict}")


# ---- migrate weights -----------------------------------------------------------------------
def _add_weights(sub) -> None:
    p = sub.add_parser("weights",
                       help="convert a torch state dict to an ms_core checkpoint (or back)",
                       description="model.pth -> model.ckpt or model.ckpt -> model.pth. The .pth "
                                   "is loaded with torch.load(weights_only=True) only.")
    p.add_argument("src", help="a .pth/.pt state dict or an ms_core .ckpt")
    p.add_argument("-o", "--output", required=True, help="the file to write (.ckpt or .pth)")
    p.add_argument("--source", metavar="MODEL.py", help="the PyTorch file defining the model "
                                                        "(exact names from each layer's class); "
                                                        "loose or any module of a package")
    p.add_argument("--model", help="constructor expression, with --source; or "
                                   "'model.py:Net(10)'; or 'pkg.module:Net(10)' with --root")
    p.add_argument("--root", metavar="DIR", help="the directory holding pkg for --model "
                                                 "pkg.module:EXPR (default: the current one)")
    p.add_argument("--cache", metavar="DIR", help="where converted packages are kept")
    p.add_argument("--no-cache", action="store_true", help="convert into a temporary directory")


def _run_weights(args) -> int:
    from rich.markup import escape

    from migrate.check import EXIT_ERROR
    from migrate.check.harness import UsageError, cleanup, prepare
    from migrate.check.loader import split_model_spec
    from migrate.check.weights import convert_file

    err = _console(wide=True)
    if not os.path.isfile(args.src):
        err.print(f"[red]error:[/] {args.src} does not exist")
        return EXIT_ERROR
    source, model = args.source, args.model
    if model and not source and ".py:" in model:  # --model 'model.py:Net()'
        source, model = model.split(".py:", 1)
        source += ".py"
    by_module = bool(model and not source and split_model_spec(model))
    if bool(source) != bool(model) and not by_module:
        err.print("[red]error:[/] --model needs the file defining it: --source model.py, "
                  "--model 'model.py:Net()', or --model 'pkg.module:Net()' --root DIR")
        return EXIT_ERROR
    torch_model = ms_model = None
    try:
        if model:
            torch_model, ms_model, _, _ = prepare(source, model, convert=_converter(),
                                                  root=args.root, cache=_cache_dir(args))
        notes = convert_file(args.src, args.output, torch_model, ms_model)
    except (UsageError, ValueError, OSError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_ERROR
    finally:
        cleanup()
    for n in notes:
        err.print(f"[yellow]note:[/] {escape(n)}")
    err.print(f"wrote {args.output}")
    return 0


# Register new subcommands here: (name, add-arguments function, run function).
# ---- migrate check-script -------------------------------------------------------------------

def _add_check_script(sub) -> None:
    p = sub.add_parser("check-script", help="train a PyTorch script and its conversion side by side",
                       description="Convert SCRIPT's directory (or take --converted), run both scripts "
                                   "for N optimizer steps from the same weights (the converted one "
                                   "without torch) and report the first step, and the loss or "
                                   "parameter, where they part. Arguments after -- go to both "
                                   "scripts. Exit 0 agree, 1 part, 2 could not run.")
    p.add_argument("script", help="the PyTorch training script")
    p.add_argument("--root", metavar="DIR", help="the directory the script belongs to (converted and "
                                                 "copied whole; default: the script's own)")
    p.add_argument("--converted", metavar="DIR", help="the converted copy of the root directory "
                                                      "(default: convert it into a temporary one)")
    p.add_argument("--steps", type=int, default=5, metavar="N", help="optimizer steps (default 5)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="per run")
    p.add_argument("--json", metavar="FILE", help="write the result as JSON")
    p.add_argument("--work", metavar="DIR", help="keep the runs' copies and traces here")
    p.add_argument("rest", nargs="*", metavar="-- ARGS", help="arguments of both scripts, after --")


def _run_check_script(args) -> int:
    import tempfile

    from migrate.check.script_check import check_script
    err = _console(stderr=True)
    script = Path(args.script).resolve()
    root = Path(args.root).resolve() if args.root else script.parent
    if not script.is_file():
        err.print(f"[red]error:[/] {args.script} is not a file")
        return 2
    rest = args.rest
    with tempfile.TemporaryDirectory(prefix="migrate-check-script-") as tmp:
        converted = Path(args.converted).resolve() if args.converted else Path(tmp) / "converted"
        if not args.converted:
            from migrate.convert.project import convert_tree
            convert_tree(root, converted, "ms_core")
        try:
            result = check_script(script, converted, rest, args.steps, args.rtol, args.atol, args.timeout,
                                  root=root, work=args.work)
        except FileNotFoundError as exc:
            err.print(f"[red]error:[/] {exc}")
            return 2
    _show_script_check(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_dict(), indent=1, default=str))
    return result.exit_code


def _show_script_check(result) -> None:
    from rich.table import Table
    out = _console(stderr=False)
    for side, run in (("torch", result.original), ("converted", result.converted)):
        if run.status != "ran":
            where = f" ({run.where})" if run.where else ""
            out.print(f"[red]{side} run {run.status}:[/] {run.error}{where}")
    if result.losses:
        table = Table("loss", "torch", "converted", "rel err")
        for i, (a, b) in enumerate(result.losses, 1):
            table.add_row(str(i), f"{a:.8g}", f"{b:.8g}", f"{abs(a - b) / max(abs(a), 1e-12):.1e}")
        out.print(table)
    for note in result.notes:
        out.print(f"note: {note}")
    part = result.parting
    if result.exit_code == 2:
        return
    if part is None:
        out.print(f"[green]agree[/] for {result.steps} optimizer steps ({len(result.losses)} losses, "
                  f"{result.parameters} parameters each step)")
        return
    what = {"loss": "the loss", "parameter": f"parameter {part.name}", "missing": f"parameter {part.name}",
            "steps": "the number of steps"}[part.what]
    if part.what == "loss" and part.name:
        what += f" ({part.name})"
    numbers = (f": torch {part.torch:.8g}, converted {part.converted:.8g} (max abs {part.max_abs:.2e}, "
               f"max rel {part.max_rel:.2e}{', at ' + str(part.index) if part.index else ''})"
               if part.torch is not None else "")
    out.print(f"[red]part at step {part.step}[/]: {what}{numbers}{' -- ' + part.detail if part.detail else ''}")


SUBCOMMANDS = [
    ("convert", _add_convert, _run_convert),
    ("mappings", _add_mappings, _run_mappings),
    ("check", _add_check, _run_check),
    ("check-script", _add_check_script, _run_check_script),
    ("check-ddp", _add_check_ddp, _run_check_ddp),
    ("weights", _add_weights, _run_weights),
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="migrate", description="PyTorch -> MindSpore migration toolkit")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, add, run in SUBCOMMANDS:
        add(sub)
        sub.choices[name].set_defaults(_run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``migrate`` command; return its exit code. Arguments after ``--`` go to the
    subcommand's ``rest`` (``check-script``'s scripts)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    tail = []
    if "--" in argv:
        cut = argv.index("--")
        argv, tail = argv[:cut], argv[cut + 1:]
    parser = build_parser()
    args = parser.parse_args(argv)
    if tail:
        if not hasattr(args, "rest"):
            parser.error(f"'migrate {args.command}' takes no arguments after --")
        args.rest = [*args.rest, *tail]
    return args._run(args)


if __name__ == "__main__":
    sys.exit(main())
