"""The library harness behind `migrate check` and `migrate weights`: find a model's code (a file,
loose or inside a package, or `pkg.module:expr` under a root), convert it, import both versions,
build both models, make inputs, run the check (cli.py parses arguments and prints).

The converter is passed in by the caller (cli.py passes ``migrate.convert_source``): the checker
never imports the converter. It is any function ``convert(source: str)`` returning an object with
``code`` (the converted source), ``error`` (None or a message) and ``unsupported`` (a count); a
``cache_key`` attribute on it (its version) lets converted packages be cached.

    from migrate import convert_source
    from migrate.check import CheckSettings
    from migrate.check.harness import check_file
    result, notes = check_file("repo/models/resnet.py", "ResNet18()", ["2,3,32,32"],
                               convert=convert_source,
                               settings=CheckSettings(mode="both", train_steps=2))
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass, field, replace

import numpy as np

from .api import CheckSettings, check
from .expression import ConvertedExpression, converted_expression, write_runtime
from .loader import (Imported, LoadError, ModelSource, cleanup, convert_tree, from_module,
                     import_side, locate, script_argv, side_active, source_files,
                     split_model_spec, top_names)
from .run import flatten, numpy_to_torch, one_line

__all__ = ["UsageError", "prepare", "check_file", "make_inputs", "cleanup", "load_sides",
           "resolve_model"]

_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
           "int64": np.int64, "int32": np.int32, "bool": np.bool_}
_SHAPE = re.compile(r"^\s*\d+(\s*[,x]\s*\d+)*\s*$")


class UsageError(Exception):
    """Bad input to the command: message printed, exit code 2."""


# --- where the model is ---------------------------------------------------------------------------

def resolve_model(path, model, root=None) -> tuple[ModelSource, str]:
    """(the model's module, the constructor expression) from `migrate check`'s arguments.

    Args:
        path: the model's file (loose, or anywhere inside a package), or None.
        model: the constructor expression ('ResNet18()'); without `path`,
            'pkg.module:ResNet18()'.
        root: the directory holding `pkg` (default: the current directory), used without `path`.

    Raises:
        UsageError: neither form, or the module or file does not exist.

    Example:
        >>> resolve_model(None, "models.resnet:ResNet18()", "repo")  # doctest: +SKIP
        (ModelSource(root='/abs/repo', module='models.resnet', ...), 'ResNet18()')
    """
    try:
        if path:
            return locate(path), model
        spec = split_model_spec(model or "")
        if spec is None:
            raise UsageError(f"--model {model!r}: without PATH, name the model as "
                             f"pkg.module:EXPR (with --root DIR, default the current directory)")
        return from_module(spec[0], root or os.getcwd()), spec[1]
    except LoadError as exc:
        raise UsageError(str(exc)) from None


@dataclass
class Sides:
    """The torch module and the converted one, imported side by side.

    `display` maps a converted tree's directory to the original's (reports show converted files
    as '<original file> (converted)'); `notes` are remarks for the user.
    """

    source: ModelSource
    torch: Imported
    ms: Imported
    display: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    ms_root: str = ""


def load_sides(src: ModelSource, converted=None, convert=None, cache=None,
               target="ms_core") -> Sides:
    """Import the torch module and its conversion (converted here, or the given file/tree).

    Args:
        src: the model's module.
        converted: a converted file (for a loose module) or a directory mirroring `src.root`;
            None converts with `convert`.
        convert: the converter (see the module docstring).
        cache: directory of cached conversions (None: a temporary one per call).
        target: 'ms_core' or 'mindspore' (a tag of the cache key).

    Raises:
        UsageError: nothing to convert with, or an import fails (with the conversion's failures
            that may explain it).
    """
    files = source_files(src)
    names = top_names(files)
    notes, display = [], {}
    ms_src, ms_root = src, None
    if converted is None:
        if convert is None:
            raise UsageError(f"{_show(src.file)}: give the converted file, or a converter to "
                             f"convert it")
        tree = convert_tree(src, convert, cache, target)
        notes += tree.notes()
        ms_root = tree.root
        display[tree.root] = src.root
    elif os.path.isdir(converted):
        ms_root = os.path.abspath(converted)
    elif os.path.isfile(converted):
        ms_src = locate(converted)
        ms_root = ms_src.root
    else:
        raise UsageError(f"{converted} does not exist")
    try:
        t_side = import_side(src, src.root, names, "torch", keep=True)
        m_side = import_side(ms_src, ms_root, names | {ms_src.top}, "converted", other_root=src.root)
    except LoadError as exc:
        text = _relabel_text(str(exc), display)
        failed = [n for n in notes if "does not convert" in n]
        if failed:
            text += f" ({failed[0]})"
        elif notes and converted is None:
            text += f" ({notes[0]}: see `migrate convert {_show(src.file)}`)"
        raise UsageError(text) from None
    notes += t_side.notes + m_side.notes
    return Sides(src, t_side, m_side, display, notes, ms_root)


def _show(path):
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def _relabel_text(text, display):
    for tmp, orig in display.items():
        text = text.replace(tmp, orig)
    return text


# --- building -------------------------------------------------------------------------------------

def build(module, expr: str, side: str, seed: int, converted: ConvertedExpression | None = None,
          active=None):
    """Evaluate the constructor expression in the module's namespace (seeded, with
    ``sys.argv = [the module's file]``); on the converted side, its conversion (`converted`:
    the imports it needs run first, within `active`, the context that makes that side's modules
    importable)."""
    import torch

    import ms_core
    torch.manual_seed(seed)
    ms_core.set_seed(seed)
    np.random.seed(seed)
    code = converted.code if converted is not None else expr
    ns = dict(vars(module))
    try:
        with script_argv(getattr(module, "__file__", "") or ""), active or contextlib.nullcontext():
            for line in converted.imports if converted is not None else ():
                exec(line, ns)  # the runtime names the converted expression reads
            return eval(code, ns)  # the user's own expression, on their own code
    except BaseException as exc:  # noqa: BLE001 (SystemExit from a constructor's argparse)
        if isinstance(exc, KeyboardInterrupt):
            raise
        shown = f"{expr!r}" + (f" (converted: {code!r})" if code != expr else "")
        raise UsageError(f"the model expression {shown} fails on the {side} side: "
                         f"{one_line(exc)}") from None


def prepare(path, model_expr, converted=None, seed=0, *, convert=None, root=None, cache=None):
    """Find, convert (or take the converted file), import both versions, build both models.

    Args:
        path: the PyTorch file defining the model (loose, or anywhere in a package), or None
            with `model_expr` = 'pkg.module:EXPR' and `root`.
        model_expr: the constructor expression, evaluated in each module's namespace
            ('Net(10)').
        converted: the converted file or tree; None converts with `convert`.
        seed: seeds torch, NumPy and ms_core before each model is built.
        convert: the converter (see the module docstring); needed when `converted` is None.
        root: the directory holding the package, when `path` is None.
        cache: the directory of cached conversions (None: convert into a temporary directory).

    Returns:
        (torch_model, ms_model, notes, display): `notes` are remarks for the user (sites the
        conversion left unsupported, files that did not convert, skipped package __init__
        files); `display` maps a converted directory to the original one (for reports).

    Raises:
        UsageError: a file is missing, does not convert or import, or the expression fails.

    Example:
        >>> t, m, notes, _ = prepare("model.py", "Net()", convert=convert_source)  # doctest: +SKIP
    """
    src, expr = resolve_model(path, model_expr, root)
    sides = load_sides(src, converted, convert, cache)
    torch_model = build(sides.torch.module, expr, "torch", seed)
    ms_expr = converted_expression(src, expr, convert, vars(sides.torch.module)) if convert is not None else None
    if ms_expr is not None:
        write_runtime(sides.ms_root, ms_expr, convert)
    ms_model = build(sides.ms.module, expr, "converted", seed, ms_expr, side_active(sides.ms, sides.ms_root))
    _check_types(expr, torch_model, ms_model)
    return torch_model, ms_model, sides.notes, sides.display


def _check_types(model_expr, torch_model, ms_model) -> None:
    import torch

    import ms_core
    if not isinstance(torch_model, torch.nn.Module):
        raise UsageError(f"{model_expr!r} gives a {type(torch_model).__name__} on the torch side, "
                         f"not a torch.nn.Module")
    if not isinstance(ms_model, ms_core.nn.Cell):
        raise UsageError(f"{model_expr!r} gives a {type(ms_model).__name__} in the converted "
                         f"code, not an nn.Cell (was the class converted?)")


# --- inputs ---------------------------------------------------------------------------------------

def parse_shape(text: str) -> tuple:
    """(2, 3, 32, 32) from '2,3,32,32' or '2x3x32x32'.

    Raises:
        UsageError: anything else ('2,x', '2,,3', '-1,3', '').
    """
    if not _SHAPE.match(text or ""):
        raise UsageError(f"--input-shape {text!r} is not a list of positive ints separated by "
                         f"commas, e.g. 2,3,32,32")
    shape = tuple(int(s) for s in re.split(r"[,x]", text))
    if any(s <= 0 for s in shape):
        raise UsageError(f"--input-shape {text!r} must be positive ints, e.g. 2,3,32,32")
    return shape


def make_inputs(shapes, dtypes, ranges, seed) -> list:
    """Random inputs: float N(0, 1); integers uniform in [lo, hi) (default [0, 10)).

    Args:
        shapes: one shape text per model argument; 'A+B' makes one argument that is the tuple
            of two tensors (an LSTM's state (h, c): '2,3,16+2,3,16').
        dtypes: one dtype name, or one per argument.
        ranges: 'LO,HI' for integer arguments: one, or one per argument.
        seed: the random generator's seed.

    Returns:
        a list of arrays (tuples of arrays for 'A+B' shapes).

    Raises:
        UsageError: a malformed shape, dtype or range, or inputs larger than the free memory.

    Example:
        >>> [x.shape for x in make_inputs(["2,3"], None, None, 0)]
        [(2, 3)]
    """
    rng = np.random.default_rng(seed)
    n = len(shapes)
    dtypes = dtypes or ["float32"]
    if len(dtypes) == 1:
        dtypes = dtypes * n
    if len(dtypes) != n:
        raise UsageError(f"give one --input-dtype, or one per --input-shape ({n}), "
                         f"not {len(dtypes)}")
    parsed = [[parse_shape(part) for part in s.split("+")] for s in shapes]
    for dt in dtypes:
        if dt not in _DTYPES:
            raise UsageError(f"--input-dtype {dt!r} is not one of {', '.join(_DTYPES)}")
    _fits_in_memory([p for group in parsed for p in group],
                    [d for group, d in zip(parsed, dtypes) for _ in group])
    out = []
    for i, (group, dt) in enumerate(zip(parsed, dtypes)):
        arrays = tuple(_random_array(rng, shape, _DTYPES[dt], ranges, i) for shape in group)
        out.append(arrays[0] if len(arrays) == 1 else arrays)
    return out


def _random_array(rng, shape, np_dt, ranges, i):
    if np.dtype(np_dt).kind == "f":
        return rng.standard_normal(shape).astype(np_dt)
    if np_dt is np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    lo, hi = _input_range(ranges or [], i)
    return rng.integers(lo, hi, shape).astype(np_dt)


def _input_range(ranges, i):
    if not (i < len(ranges) or len(ranges) == 1):
        return 0, 10
    text = ranges[i] if i < len(ranges) else ranges[0]
    try:
        lo, hi = (int(v) for v in text.split(","))
    except ValueError:
        raise UsageError(f"--input-range {text!r} must be LO,HI (ints)") from None
    if hi <= lo:
        raise UsageError(f"--input-range {text!r}: HI must be greater than LO")
    return lo, hi


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _fits_in_memory(shapes, dtypes) -> None:
    """Refuse inputs that alone exceed the free memory (the check needs many times more)."""
    need = sum(int(np.prod(s, dtype=np.float64)) * np.dtype(_DTYPES[d]).itemsize * 2
               for s, d in zip(shapes, dtypes))  # the float64 reference doubles float32
    free = available_memory()
    if free is not None and need > free:
        raise UsageError(f"the inputs {' and '.join('x'.join(map(str, s)) for s in shapes)} "
                         f"alone need {need / 2**30:.3g} GiB; {free / 2**30:.3g} GiB are free: "
                         f"use a smaller --input-shape")


def _probe(torch_model, inputs, shapes):
    """Run torch once in inference mode: it must run on the inputs and return tensors."""
    import torch
    torch_model.eval()
    try:
        with torch.no_grad():
            out = torch_model(*[numpy_to_torch(x) for x in inputs])
    except MemoryError:
        raise UsageError(f"out of memory running the torch model on inputs of shape "
                         f"{' and '.join(shapes)}: use a smaller --input-shape") from None
    except Exception as exc:
        raise UsageError(f"the torch model does not run on inputs of shape "
                         f"{' and '.join(shapes)}: {one_line(exc)}") from None
    if not any(t.is_floating_point() for t in flatten(out)):
        raise UsageError(f"the torch model returns {_describe_value(out)}: the checker compares "
                         f"floating-point tensor outputs (return the logits, or a tuple/dict "
                         f"holding them)")


def _describe_value(value) -> str:
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{type(value).__name__} {text}"


# --- running --------------------------------------------------------------------------------------

def check_file(path, model_expr, input_shapes, input_dtypes=None, input_ranges=None,
               converted=None, *, convert=None, settings=None, root=None, cache=None,
               ms_python=None, convert_mindspore=None):
    """What `migrate check` does: find and convert the model's code, import and build both
    models, make the inputs, make sure torch runs on them, and check.

    Args:
        path, model_expr, converted, convert, root, cache: as :func:`prepare`.
        input_shapes: one 'N,C,H,W' text per model input.
        input_dtypes, input_ranges: as :func:`make_inputs`.
        settings: the :class:`~migrate.check.api.CheckSettings` (its seed also builds the models
            and draws the inputs).
        ms_python: an interpreter with MindSpore: the model converted by `convert_mindspore`
            (``--target mindspore``) runs there as a third side.
        convert_mindspore: the converter to MindSpore (needed with `ms_python`).

    Returns:
        (result, notes): the :class:`~migrate.check.result.CheckResult`, its sources shown under
        the original file's name and `path`/`model`/`input_shapes` in its settings; `notes` the
        remarks from :func:`prepare` (also in the result's settings).

    Raises:
        UsageError: bad files, expression or inputs. CheckError: the check could not run.

    Example:
        >>> r, _ = check_file("model.py", "Net()", ["2,8"], convert=convert_source)  # doctest: +SKIP
    """
    settings = settings if settings is not None else CheckSettings()
    inputs = make_inputs(input_shapes, input_dtypes, input_ranges, settings.seed)
    torch_model, ms_model, notes, display = prepare(path, model_expr, converted, settings.seed,
                                                    convert=convert, root=root, cache=cache)
    _probe(torch_model, inputs, input_shapes)
    side = None
    if ms_python:
        side = _mindspore_side(path, model_expr, root, cache, ms_python, convert_mindspore,
                               settings.seed)
        settings = replace(settings, mindspore=side)
        notes = notes + side.tree_notes
    try:
        result = check(torch_model, ms_model, inputs, settings)
    finally:
        if side is not None:
            side.close()
    relabel_sources(result, display)
    result.settings.update(path=path or root, model=model_expr, input_shapes=list(input_shapes))
    for n in notes:
        result.settings.setdefault("notes", []).append(n)
    return result, notes


def _mindspore_side(path, model_expr, root, cache, python, convert, seed):
    """The MindSpore side of a check: the model converted for MindSpore (cached like the other)."""
    from .third_side import MindSporeSide
    if convert is None:
        raise UsageError("--ms-python needs a converter to MindSpore (--target mindspore)")
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise UsageError(f"--ms-python {python}: not an executable file")
    src, expr = resolve_model(path, model_expr, root)
    tree = convert_tree(src, convert, cache, "mindspore")
    torch_module = sys.modules.get(src.module)  # the torch side, registered by the check before
    converted = converted_expression(src, expr, convert, vars(torch_module) if torch_module is not None else None)
    write_runtime(tree.root, converted, convert)
    side = MindSporeSide(python, tree.root, src.module,
                         os.path.join(tree.root, os.path.relpath(src.file, src.root)), converted.code, seed,
                         imports=converted.imports)
    side.tree_notes = [f"MindSpore conversion: {n}" for n in tree.notes()]
    return side


def relabel_sources(result, display) -> None:
    """Show files of a converted tree as '<original file> (converted)'."""
    if not display:
        return

    def fix(s):
        for tmp, orig in display.items():
            for form in (tmp, _show(tmp)):
                if s.startswith(form + os.sep):
                    rest, _, line = s[len(form) + 1:].rpartition(":")
                    return f"{_show(os.path.join(orig, rest))} (converted):{line}"
        return s
    for phase in result.phases:
        for r in phase.layers:
            r.ms_source = fix(r.ms_source)
    for f in result.findings:
        f.ms_source = fix(f.ms_source)


# --- one check as a job (the CLI, --timeout and zoo runs) -----------------------------------------

@dataclass
class CheckJob:
    """Everything one `migrate check` needs, picklable (a zoo entry, or the command line).

    Attributes:
        name: what the summary table calls it.
        path, model, root, converted: as :func:`prepare`.
        input_shapes, input_dtypes, input_ranges: as :func:`make_inputs`.
        settings: the :class:`~migrate.check.api.CheckSettings`.
        reports: report files to write (.md, .json, .html).
        timeout: seconds the check may take (None: no limit; a limit runs it in a child process).
        ms_python: an interpreter with MindSpore for the third side (None: none).
    """

    name: str
    path: str | None
    model: str
    input_shapes: list
    input_dtypes: list | None = None
    input_ranges: list | None = None
    root: str | None = None
    converted: str | None = None
    settings: CheckSettings = field(default_factory=CheckSettings)
    reports: list = field(default_factory=list)
    timeout: float | None = None
    ms_python: str | None = None


def run_job(job: CheckJob, convert=None, cache=None, convert_mindspore=None):
    """Run one job in this process: (result, notes). Temporary conversions are removed after.

    Raises:
        UsageError, CheckError: as :func:`check_file`; MemoryError becomes a CheckError.
    """
    from .result import CheckError
    try:
        return check_file(job.path, job.model, job.input_shapes, job.input_dtypes,
                          job.input_ranges, job.converted, convert=convert,
                          settings=job.settings, root=job.root, cache=cache,
                          ms_python=job.ms_python, convert_mindspore=convert_mindspore)
    except MemoryError as exc:
        raise CheckError(f"out of memory ({one_line(exc)}): use a smaller --input-shape") \
            from None
    finally:
        cleanup()
