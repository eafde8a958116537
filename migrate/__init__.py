"""migrate: convert PyTorch code to ms_core / MindSpore code, and check the result.

Library use::

    from migrate import convert_source
    res = convert_source(open("model.py").read(), target="ms_core")   # or "mindspore"
    res.code        # the converted source (valid Python, comments kept)
    res.changes     # [Change(line, rule, label, before, after, note), ...]
    res.error       # None, or "syntax error at line N: ..." (then res.code is the input)

    from migrate.check import check                # the differential checker (needs NumPy)
    result = check(torch_net, ms_net, inputs)

Command line: ``migrate convert PATH [-o OUT] [--target ms_core|mindspore] [--diff]
[--report FILE.md|FILE.json] [--jobs N] [--in-place] [--select IDS] [--disable IDS]`` and
``migrate mappings [--search TEXT] [--rules]``.

The converter lives in ``migrate/convert/`` (see its package docstring): one libcst parse, our own
import-alias resolution, one walk that rewrites only the nodes on the path to a change; calls are
rewritten from the mapping tables in ``mappings/`` (argument fates: rename, expression, explicit
default, drop, unsupported) plus named rules in ``migrate/convert/rules/``. Every change has a
label (exact, transformed, approximate, unsupported) and a rule ID: ``MS1xx``/``MS2xx``/``MS3xx``
rewrites, ``MS9xx`` markers, which stay in the output as ``# migrate: MS9xx <reason>`` comments
above code left as written. Converting converted output changes nothing.

Importing ``migrate`` loads the converter only (no NumPy, no checker). ``migrate.check`` is the
checker's package, imported on first use; its entry point is ``migrate.check.check``.
"""
from __future__ import annotations

import importlib

from migrate.convert import Change, ConvertResult, Converter, convert_source

__all__ = ["Change", "ConvertResult", "Converter", "convert_source"]


def __getattr__(name: str):
    """``migrate.check``: the differential checker's package, imported on first use (it needs NumPy)."""
    if name == "check":
        return importlib.import_module("migrate.check")
    raise AttributeError(f"module 'migrate' has no attribute {name!r}")
