"""The library harness behind `migrate check` and `migrate weights`: import a model file and its
conversion, build both models, make inputs, run the check (cli.py parses arguments and prints).

The converter is passed in by the caller (cli.py passes ``migrate.convert_source``): the checker
never imports the converter. It is any function ``convert(source: str)`` returning an object with
``code`` (the converted source), ``error`` (None or a message) and ``unsupported`` (a count).

    from migrate import convert_source
    from migrate.check import CheckSettings
    from migrate.check.harness import check_file
    result, notes = check_file("model.py", "Net()", ["2,3,32,32"], convert=convert_source,
                               settings=CheckSettings(mode="both", train_steps=5))
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile

import numpy as np

from .api import CheckSettings, check
from .run import one_line

_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
           "int64": np.int64, "int32": np.int32, "bool": np.bool_}


class UsageError(Exception):
    """Bad input to the command: message printed, exit code 2."""


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
        raise UsageError(f"importing {_show(path)} failed: {one_line(exc)}") from None
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(directory)
    return module


def _show(path):
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


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
                         f"{one_line(exc)}") from None
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


def prepare(path, model_expr, converted=None, seed=0, *, convert=None):
    """Convert (or read the converted file), import both versions, build both models.

    Args:
        path: the PyTorch source file defining the model.
        model_expr: the constructor expression, evaluated in each file's namespace ('Net(10)').
        converted: the converted file; None converts `path` with `convert`.
        seed: seeds torch, NumPy and ms_core before each model is built.
        convert: the converter, `convert(source) -> result` with `.code`, `.error` and
            `.unsupported` (e.g. ``migrate.convert_source``); needed when `converted` is None.

    Returns:
        (torch_model, ms_model, notes, display_paths): `notes` are remarks for the user (sites
        the conversion left unsupported); `display_paths` maps a temporary converted file to the
        name to show for it.

    Raises:
        UsageError: a file is missing, does not convert or import, or the expression fails.

    Example:
        >>> t, m, notes, _ = prepare("model.py", "Net()", convert=convert_source)  # doctest: +SKIP
    """
    if not os.path.isfile(path):
        raise UsageError(f"{path} does not exist")
    notes = []
    temporary = converted is None
    converted_path = _convert(path, convert, notes) if temporary else converted
    if not os.path.isfile(converted_path):
        raise UsageError(f"{converted} does not exist")
    torch_mod = load_module(path, "torch")
    # The converted file may import siblings of the original: let its directory resolve them.
    try:
        ms_mod = _load_converted(converted_path, os.path.dirname(os.path.abspath(path)))
    except UsageError as exc:
        text = str(exc)
        if temporary:  # name the temporary file after the original
            text = text.replace(_show(os.path.abspath(converted_path)), f"{path} (converted)")
            text = text.replace(os.path.abspath(converted_path), f"{path} (converted)")
        if notes:
            text += f" ({notes[0]}: see `migrate convert {path}`)"
        raise UsageError(text) from None
    torch_model = build(torch_mod, model_expr, "torch", seed)
    ms_model = build(ms_mod, model_expr, "converted", seed)
    _check_types(model_expr, torch_model, ms_model)
    display = {}
    if temporary:
        display[os.path.abspath(converted_path)] = f"{_show(path)} (converted)"
    return torch_model, ms_model, notes, display


def _convert(path, convert, notes) -> str:
    """Convert `path` into a temporary file (kept until :func:`cleanup`); return its path."""
    if convert is None:
        raise UsageError(f"{path}: give the converted file, or a converter to convert it")
    with open(path, encoding="utf-8") as f:
        code = f.read()
    result = convert(code)
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
    return converted_path


def _check_types(model_expr, torch_model, ms_model) -> None:
    import torch

    import ms_core
    if not isinstance(torch_model, torch.nn.Module):
        raise UsageError(f"{model_expr!r} gives a {type(torch_model).__name__} on the torch side, "
                         f"not a torch.nn.Module")
    if not isinstance(ms_model, ms_core.nn.Cell):
        raise UsageError(f"{model_expr!r} gives a {type(ms_model).__name__} in the converted "
                         f"code, not an nn.Cell (was the class converted?)")


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
                         f"{' and '.join(shapes)}: {one_line(exc)}") from None


# --- running --------------------------------------------------------------------------------------

_TEMP_DIRS: list = []


def _remember(tmpdir):
    """Temporary converted files live until the command ends (or the interpreter exits: a
    library caller may still read their source lines)."""
    if not _TEMP_DIRS:
        import atexit
        atexit.register(cleanup)
    _TEMP_DIRS.append(tmpdir)


def cleanup():
    """Remove the temporary converted files (cli.py calls it when a command ends)."""
    import shutil
    while _TEMP_DIRS:
        shutil.rmtree(_TEMP_DIRS.pop(), ignore_errors=True)


def check_file(path, model_expr, input_shapes, input_dtypes=None, input_ranges=None,
               converted=None, *, convert=None, settings=None):
    """What `migrate check` does: convert, import and build both models, make the inputs, make
    sure torch runs on them, and check.

    Args:
        path, model_expr, converted, convert: as :func:`prepare`.
        input_shapes: one 'N,C,H,W' text per model input.
        input_dtypes, input_ranges: as :func:`make_inputs`.
        settings: the :class:`~migrate.check.api.CheckSettings` (its seed also builds the models
            and draws the inputs).

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
    torch_model, ms_model, notes, display = prepare(path, model_expr, converted, settings.seed,
                                                    convert=convert)
    inputs = make_inputs(input_shapes, input_dtypes, input_ranges, settings.seed)
    _probe(torch_model, inputs, input_shapes)
    result = check(torch_model, ms_model, inputs, settings)
    _relabel_sources(result, display)
    result.settings.update(path=path, model=model_expr, input_shapes=input_shapes)
    for n in notes:
        result.settings.setdefault("notes", []).append(n)
    return result, notes


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
