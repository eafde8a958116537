"""The `migrate check` and `migrate weights` subcommands (registered in cli.py's SUBCOMMANDS).

    migrate check model.py --model "ResNet18(num_classes=10)" --input-shape 2,3,32,32
    migrate weights model.pth -o model.ckpt [--source model.py --model "Net()"]

Exit codes: 0 every comparison within tolerance; 1 mismatch; 2 could not run (the reason is
printed; no report is written).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile

import numpy as np

from .check import EXIT_ERROR, CheckError

_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
           "int64": np.int64, "int32": np.int32, "bool": np.bool_}


class UsageError(Exception):
    """Bad input to the command: message printed, exit code 2."""


# --- arguments ------------------------------------------------------------------------------------

def add_check(sub) -> None:
    """Declare `migrate check`'s arguments on an argparse subparsers object."""
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
                   help=f"dtype per input ({', '.join(_DTYPES)}); one value applies to all")
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


def add_weights(sub) -> None:
    """Declare `migrate weights`'s arguments."""
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


# --- model loading --------------------------------------------------------------------------------

def load_module(path: str, tag: str):
    """Import a Python file in isolation under a unique module name (its directory is on
    sys.path only while it executes, so sibling imports work and nothing leaks)."""
    path = os.path.abspath(path)
    name = f"_migrate_check_{tag}_{hashlib.sha1(path.encode()).hexdigest()[:10]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    directory = os.path.dirname(path)
    sys.path.insert(0, directory)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(name, None)
        raise UsageError(f"importing {_show(path)} failed: {_first_line(exc)}") from None
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(directory)
    return module


def _show(path):
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def _first_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def build(module, expr: str, side: str, seed: int):
    """Evaluate the constructor expression in the module's namespace (seeded)."""
    import torch

    import ms_core
    torch.manual_seed(seed)
    ms_core.set_seed(seed)
    np.random.seed(seed)
    try:
        obj = eval(expr, dict(vars(module)))  # the user's own expression, on their own file
    except BaseException as exc:
        raise UsageError(f"the model expression {expr!r} fails on the {side} side: "
                         f"{_first_line(exc)}") from None
    return obj


def make_inputs(shapes, dtypes, ranges, seed) -> list:
    """Random inputs: float N(0, 1); integers uniform in [lo, hi) (default [0, 10))."""
    rng = np.random.default_rng(seed)
    n = len(shapes)
    dtypes = dtypes or ["float32"]
    if len(dtypes) == 1:
        dtypes = dtypes * n
    if len(dtypes) != n:
        raise UsageError(f"give one --input-dtype, or one per --input-shape ({n}), "
                         f"not {len(dtypes)}")
    ranges = ranges or []
    out = []
    for i, (shape_text, dt) in enumerate(zip(shapes, dtypes)):
        try:
            shape = tuple(int(s) for s in shape_text.replace("x", ",").split(",") if s.strip())
        except ValueError:
            raise UsageError(f"--input-shape {shape_text!r} is not a comma-separated list of "
                             f"ints") from None
        if not shape or any(s <= 0 for s in shape):
            raise UsageError(f"--input-shape {shape_text!r} must be positive ints, e.g. 2,3,32,32")
        if dt not in _DTYPES:
            raise UsageError(f"--input-dtype {dt!r} is not one of {', '.join(_DTYPES)}")
        np_dt = _DTYPES[dt]
        if np.dtype(np_dt).kind == "f":
            out.append(rng.standard_normal(shape).astype(np_dt))
            continue
        lo, hi = 0, 10
        if i < len(ranges) or len(ranges) == 1:
            text = ranges[i] if i < len(ranges) else ranges[0]
            try:
                lo, hi = (int(v) for v in text.split(","))
            except ValueError:
                raise UsageError(f"--input-range {text!r} must be LO,HI (ints)") from None
            if hi <= lo:
                raise UsageError(f"--input-range {text!r}: HI must be greater than LO")
        if np_dt is np.bool_:
            out.append(rng.integers(0, 2, shape).astype(np.bool_))
        else:
            out.append(rng.integers(lo, hi, shape).astype(np_dt))
    return out


def prepare(path, model_expr, converted=None, seed=0):
    """Convert (or read the converted file), import both versions, build both models.

    Returns (torch_model, ms_model, notes, display_paths) or raises UsageError.
    """
    if not os.path.isfile(path):
        raise UsageError(f"{path} does not exist")
    notes = []
    tmpdir = None
    if converted is None:
        from migrate.convert import convert_source
        with open(path, encoding="utf-8") as f:
            code = f.read()
        result = convert_source(code)
        if result.error:
            raise UsageError(f"{path} does not convert: {result.error}")
        if result.unsupported:
            notes.append(f"the conversion left {result.unsupported} unsupported site(s) "
                         f"(marked '# migrate:')")
        tmpdir = tempfile.mkdtemp(prefix="migrate-check-")
        _remember(tmpdir)
        converted_path = os.path.join(tmpdir, os.path.basename(path))
        with open(converted_path, "w", encoding="utf-8") as f:
            f.write(result.code)
    else:
        if not os.path.isfile(converted):
            raise UsageError(f"{converted} does not exist")
        converted_path = converted
    torch_mod = load_module(path, "torch")
    # The converted file may import siblings of the original: let its directory resolve them.
    try:
        ms_mod = _load_converted(converted_path, os.path.dirname(os.path.abspath(path)))
    except UsageError as exc:
        text = str(exc)
        if tmpdir is not None:  # name the temporary file after the original
            text = text.replace(_show(os.path.abspath(converted_path)), f"{path} (converted)")
            text = text.replace(os.path.abspath(converted_path), f"{path} (converted)")
        if notes:
            text += f" ({notes[0]}: see `migrate convert {path}`)"
        raise UsageError(text) from None
    torch_model = build(torch_mod, model_expr, "torch", seed)
    ms_model = build(ms_mod, model_expr, "converted", seed)
    import torch

    import ms_core
    if not isinstance(torch_model, torch.nn.Module):
        raise UsageError(f"{model_expr!r} gives a {type(torch_model).__name__} on the torch side, "
                         f"not a torch.nn.Module")
    if not isinstance(ms_model, ms_core.nn.Cell):
        raise UsageError(f"{model_expr!r} gives a {type(ms_model).__name__} in the converted "
                         f"code, not an nn.Cell (was the class converted?)")
    display = {}
    if tmpdir is not None:
        display[os.path.abspath(converted_path)] = f"{_show(path)} (converted)"
    return torch_model, ms_model, notes, display


def _load_converted(path, original_dir):
    sys.path.insert(0, original_dir)
    try:
        return load_module(path, "ms")
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(original_dir)


def _probe(torch_model, inputs, shapes):
    import torch
    torch_model.eval()
    try:
        with torch.no_grad():
            torch_model(*[torch.from_numpy(x) for x in inputs])
    except Exception as exc:
        raise UsageError(f"the torch model does not run on inputs of shape "
                         f"{' and '.join(shapes)}: {_first_line(exc)}") from None


# --- running --------------------------------------------------------------------------------------

_TEMP_DIRS: list = []


def _remember(tmpdir):
    """Temporary converted files live until the command ends (or the interpreter exits: a
    library caller may still read their source lines)."""
    if not _TEMP_DIRS:
        import atexit
        atexit.register(_cleanup)
    _TEMP_DIRS.append(tmpdir)


def _cleanup():
    import shutil
    while _TEMP_DIRS:
        shutil.rmtree(_TEMP_DIRS.pop(), ignore_errors=True)


def run_check(args) -> int:
    """Run `migrate check` from parsed arguments; return the exit code."""
    try:
        return _run_check(args)
    finally:
        _cleanup()


def _run_check(args) -> int:
    from rich.console import Console
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    err = Console(stderr=True, highlight=False)
    reports = args.report or []
    for report in reports:
        if os.path.splitext(report)[1].lower() not in (".md", ".markdown", ".json", ".html",
                                                       ".htm"):
            err.print("[red]error:[/] --report FILE must end in .md, .json or .html")
            return EXIT_ERROR
    if args.train_steps < 0:
        err.print("[red]error:[/] --train-steps must be >= 0")
        return EXIT_ERROR
    try:
        torch_model, ms_model, notes, display = prepare(args.path, args.model, args.converted,
                                                        args.seed)
        inputs = make_inputs(args.input_shape, args.input_dtype, args.input_range, args.seed)
        _probe(torch_model, inputs, args.input_shape)
        from .check import check
        result = check(torch_model, ms_model, inputs, rtol=args.rtol, atol=args.atol,
                       mode=args.mode, train_steps=args.train_steps, optimizer=args.optimizer,
                       lr=args.lr, loss_fn=args.loss, seed=args.seed,
                       float64_reference=args.float64, init_check=not args.no_init_check,
                       local=args.local)
    except (UsageError, CheckError) as exc:
        err.print(f"[red]error:[/] {_esc(str(exc))}")
        return EXIT_ERROR
    _relabel_sources(result, display)
    result.settings.update(path=args.path, model=args.model, input_shapes=args.input_shape)
    for n in notes:
        result.settings.setdefault("notes", []).append(n)
    if args.quiet:
        style = "green" if result.passed else "red"
        from .check_report import _verdict
        from rich.markup import escape
        out.print(f"[{style}]{escape(_verdict(result))}[/{style}]")
    else:
        result.print_table(out)
    for n in notes:
        err.print(f"[yellow]note:[/] {_esc(n)}")
    for report in reports:
        try:
            result.write(report)
        except OSError as exc:
            err.print(f"[red]error:[/] cannot write {report}: {_esc(str(exc))}")
            return EXIT_ERROR
        err.print(f"report written to {report}")
    return result.exit_code


def _relabel_sources(result, display):
    """Show the temporary converted file as '<model.py> (converted)'."""
    if not display:
        return

    def fix(s):
        for tmp, shown in display.items():
            for form in (tmp, _show(tmp)):
                if s.startswith(form + ":"):
                    return shown + s[len(form):]
        return s
    for phase in result.phases:
        for r in phase.layers:
            r.ms_source = fix(r.ms_source)
    for f in result.findings:
        f.ms_source = fix(f.ms_source)


def _esc(text):
    from rich.markup import escape
    return escape(text)


def run_weights(args) -> int:
    """Run `migrate weights` from parsed arguments; return the exit code."""
    try:
        return _run_weights(args)
    finally:
        _cleanup()


def _run_weights(args) -> int:
    from rich.console import Console

    from .weights import convert_file
    err = Console(stderr=True, highlight=False)
    if not os.path.isfile(args.src):
        err.print(f"[red]error:[/] {args.src} does not exist")
        return EXIT_ERROR
    if args.model and not args.source and ".py:" in args.model:
        args.source, args.model = args.model.split(".py:", 1)
        args.source += ".py"
    if bool(args.source) != bool(args.model):
        err.print("[red]error:[/] --model needs the file defining it: --source model.py, or "
                  "--model 'model.py:Net()'")
        return EXIT_ERROR
    torch_model = ms_model = None
    try:
        if args.source:
            torch_model, ms_model, _, _ = prepare(args.source, args.model)
        notes = convert_file(args.src, args.output, torch_model, ms_model)
    except (UsageError, ValueError, OSError) as exc:
        err.print(f"[red]error:[/] {_esc(str(exc))}")
        return EXIT_ERROR
    for n in notes:
        err.print(f"[yellow]note:[/] {_esc(n)}")
    err.print(f"wrote {args.output}")
    return 0


def main(argv=None) -> int:
    """Stand-alone entry: `python -m migrate.check_cli check ...` / `... weights ...`."""
    parser = argparse.ArgumentParser(prog="migrate")
    sub = parser.add_subparsers(dest="command", required=True)
    add_check(sub)
    add_weights(sub)
    args = parser.parse_args(argv)
    return run_check(args) if args.command == "check" else run_weights(args)


if __name__ == "__main__":
    sys.exit(main())
