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
    from migrate.convert.project import convert_tree, summarize
    from migrate.convert.report import changes_table, summary_table, unified_diff, write_report

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


def _convert_one(src: str, dst, args, rules) -> list:
    """Convert one file in a worker process (a crash of the parser costs this file, not a traceback)."""
    from migrate.convert.project import FileReport, _task
    from migrate.convert.workers import run_isolated

    def crashed(task, reason):
        return FileReport(src, error=f"{reason} while converting it; file left unchanged")
    task = (src, dst, args.target, True, None, bool(args.report or args.verbose), None, rules)
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
    p.add_argument("path", help="the PyTorch source file defining the model")
    p.add_argument("--model", required=True, help="constructor expression, e.g. 'Net(10)'")
    p.add_argument("--input-shape", action="append", required=True, metavar="N,C,H,W",
                   help="shape of one input; repeat for multi-input models")
    p.add_argument("--input-dtype", action="append", metavar="DTYPE",
                   help=f"dtype per input ({', '.join(_DTYPE_NAMES)}); one value applies to all")
    p.add_argument("--input-range", action="append", metavar="LO,HI",
                   help="value range [LO, HI) of integer inputs (token ids, labels); per input")
    p.add_argument("--converted", metavar="OUT.py", help="use this converted file instead of "
                                                         "converting PATH")
    p.add_argument("--mode", choices=("eval", "train", "both"), default="both")
    p.add_argument("--train-steps", type=int, default=0, metavar="N")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--loss", choices=("mse", "sum", "cross_entropy"), default="mse")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--float64", action="store_true", help="also run torch in float64 (noise floor)")
    p.add_argument("--local", choices=("auto", "all"), default="auto",
                   help="replay layers on torch's inputs where they disagree (auto) or all")
    p.add_argument("--no-init-check", action="store_true",
                   help="skip the KS test of the initial parameter values")
    p.add_argument("--report", metavar="FILE", action="append",
                   help="write FILE.md, FILE.json or FILE.html (repeat for several)")
    p.add_argument("--quiet", "-q", action="store_true", help="print the verdict only")


def _run_check(args) -> int:
    from rich.console import Console
    from rich.markup import escape

    from migrate import convert_source
    from migrate.check import EXIT_ERROR, CheckError, CheckSettings
    from migrate.check.harness import UsageError, check_file, cleanup
    from migrate.check.report import verdict

    out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    err = _console()
    reports = args.report or []
    if any(os.path.splitext(r)[1].lower() not in _REPORT_SUFFIXES for r in reports):
        err.print("[red]error:[/] --report FILE must end in .md, .json or .html")
        return EXIT_ERROR
    if args.train_steps < 0:
        err.print("[red]error:[/] --train-steps must be >= 0")
        return EXIT_ERROR
    try:
        settings = CheckSettings(rtol=args.rtol, atol=args.atol, mode=args.mode,
                                 train_steps=args.train_steps, optimizer=args.optimizer,
                                 lr=args.lr, loss_fn=args.loss, seed=args.seed,
                                 float64_reference=args.float64,
                                 init_check=not args.no_init_check, local=args.local)
        result, notes = check_file(args.path, args.model, args.input_shape, args.input_dtype,
                                   args.input_range, args.converted, convert=convert_source,
                                   settings=settings)
    except (UsageError, CheckError) as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_ERROR
    finally:
        cleanup()
    if args.quiet:
        style = "green" if result.passed else "red"
        out.print(f"[{style}]{escape(verdict(result))}[/{style}]")
    else:
        result.print_table(out)
    for n in notes:
        err.print(f"[yellow]note:[/] {escape(n)}")
    for report in reports:
        try:
            result.write(report)
        except OSError as exc:
            err.print(f"[red]error:[/] cannot write {report}: {escape(str(exc))}")
            return EXIT_ERROR
        err.print(f"report written to {report}")
    return result.exit_code


# ---- migrate weights -----------------------------------------------------------------------
def _add_weights(sub) -> None:
    p = sub.add_parser("weights",
                       help="convert a torch state dict to an ms_core checkpoint (or back)",
                       description="model.pth -> model.ckpt or model.ckpt -> model.pth. The .pth "
                                   "is loaded with torch.load(weights_only=True) only.")
    p.add_argument("src", help="a .pth/.pt state dict or an ms_core .ckpt")
    p.add_argument("-o", "--output", required=True, help="the file to write (.ckpt or .pth)")
    p.add_argument("--source", metavar="MODEL.py", help="the PyTorch file defining the model "
                                                        "(exact names from each layer's class)")
    p.add_argument("--model", help="constructor expression, with --source or as "
                                   "'model.py:Net(10)'")


def _run_weights(args) -> int:
    from rich.markup import escape

    from migrate import convert_source
    from migrate.check import EXIT_ERROR
    from migrate.check.harness import UsageError, cleanup, prepare
    from migrate.check.weights import convert_file

    err = _console()
    if not os.path.isfile(args.src):
        err.print(f"[red]error:[/] {args.src} does not exist")
        return EXIT_ERROR
    source, model = args.source, args.model
    if model and not source and ".py:" in model:  # --model 'model.py:Net()'
        source, model = model.split(".py:", 1)
        source += ".py"
    if bool(source) != bool(model):
        err.print("[red]error:[/] --model needs the file defining it: --source model.py, or "
                  "--model 'model.py:Net()'")
        return EXIT_ERROR
    torch_model = ms_model = None
    try:
        if source:
            torch_model, ms_model, _, _ = prepare(source, model, convert=convert_source)
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
SUBCOMMANDS = [
    ("convert", _add_convert, _run_convert),
    ("mappings", _add_mappings, _run_mappings),
    ("check", _add_check, _run_check),
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
    """Run the ``migrate`` command; return its exit code."""
    args = build_parser().parse_args(argv)
    return args._run(args)


if __name__ == "__main__":
    sys.exit(main())
