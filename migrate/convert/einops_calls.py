"""einops in converted code: its functions and torch layers become generated code over the target.

``from einops import rearrange`` / ``from einops.layers.torch import Rearrange`` are resolved like
torch imports (``einops`` is one of the roots of :mod:`migrate.convert.imports`), so the import
goes once nothing uses it, and stays guarded for what is marked. A reference to an einops name
that has a table entry (``mappings/einops.toml``, ``einops_misc.toml``) becomes the local name
of the generated function or Cell of :mod:`migrate.convert.einops_runtime`; the generated code
takes einops' arguments, so calls, values (``map(rearrange, ...)``), base classes and
``isinstance`` all need nothing more. Names without an entry (``EinMix``) are marked.

einops reached by a module name in a string (monai's ``optional_import("einops.layers.torch",
name="Rearrange")``, ``importlib.import_module("einops")``) reaches the same generated code: the
import by name becomes ``torch_import_module`` / ``torch_import`` (MS501), which answer einops'
modules with module objects holding the generated code and import anything else as before.
"""
from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

from migrate.convert.builtin_names import BUILTINS
from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import signatures

EINOPS = node_rule(
    "MS500", "einops_generated",
    "Replace einops.rearrange / reduce / repeat / pack / unpack / einsum / parse_shape and "
    "einops.layers.torch.Rearrange / Reduce with generated functions and Cells over the target's "
    "ops (einops_rearrange, EinopsRearrange, ...): converted code needs neither einops nor torch.",
        needs=["EinopsRearrange", "EinopsReduce", "einops_asnumpy", "einops_einsum", "einops_pack",
               "einops_parse_shape", "einops_rearrange", "einops_reduce", "einops_repeat", "einops_unpack"],
        examples=[
    ("from einops import rearrange\n"
     "y = rearrange\n",
     "y = einops_rearrange\n"),
])

BY_NAME = node_rule(
    "MS501", "einops_import_by_name",
    "Replace importlib.import_module(name) / __import__(name) with the generated "
    "torch_import_module / torch_import when name is a string naming an einops module, or is "
    "known only at run time in a package that names einops modules in strings "
    "(optional_import('einops.layers.torch', name='Rearrange')): einops' modules are answered by "
    "the generated einops code, any other name is imported as before.",
        needs=["torch_import", "torch_import_module"], examples=[
    ("import importlib\n"
     "m = importlib.import_module('einops')\n",
     "m = torch_import_module('einops')\n"),
])

ROOT = "einops"
# a module of einops named in a string: 'einops', "einops.layers.torch"
_NAMED = re.compile(r"""(["'])(einops(?:\.[A-Za-z_]\w*)*)\1""")
_IMPORT_MODULE_FROM = re.compile(r"^[ \t]*from[ \t]+importlib[ \t]+import[^\n]*\bimport_module\b", re.M)
_IMPORTLIB = re.compile(r"^[ \t]*import[ \t]+importlib\b", re.M)
_BY_NAME_CALL = re.compile(r"\b(?:import_module|__import__)\s*\(")
# einops classes that are modules: a subclass of one is a Cell
LAYERS = frozenset({"einops.layers.torch.Rearrange", "einops.layers.torch.Reduce", "einops.layers.torch.EinMix"})


def is_einops(qual: str | None) -> bool:
    """A qualified name inside the einops package."""
    return qual is not None and qual.split(".", 1)[0] == ROOT


def reference(converter, node, qual: str):
    """Apply MS500 to an einops name (called or not; a call's arguments are einops' own): the
    generated code's local name, or the node as written with a marker (MS901) when there is
    none."""
    entry = converter.facts.tables.get(qual)
    if entry is None or entry.label == "unsupported" or not converter.allows(EINOPS.id):
        converter.uses_alias(node)
        if entry is None or entry.label == "unsupported":
            note = f" ({entry.note})" if entry is not None and entry.note else ""
            converter.mark(node, "MS901", f"{qual} has no mapping{note}")
        return node
    if entry.target in BUILTINS:
        name = converter.builtin(entry.target)
    else:
        name = signatures(converter).helper(entry.target)
    new = cst.Name(name) if "." not in name else cst.parse_expression(name)
    on_mindspore = converter.facts.target_name == "mindspore"
    note = entry.note + (f"; {entry.mindspore_note}" if entry.mindspore_note and on_mindspore
                         else "")
    converter.record(node, new, EINOPS.id, entry.label, note)
    return new



def named_modules(paths) -> frozenset[str]:
    """The einops modules that the files at ``paths`` name in strings (a package's
    ``optional_import("einops", name="rearrange")``)."""
    found: set[str] = set()
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if ROOT in text:
            found.update(m.group(2) for m in _NAMED.finditer(text))
    return frozenset(found)


def imports_by_name(code: str, named: frozenset) -> bool:
    """Whether ``code`` may import an einops module by name: a call of importlib.import_module
    or __import__ with an einops module in a string, or with any name when its package names
    einops modules in strings (``named``)."""
    return _BY_NAME_CALL.search(code) is not None and (bool(named) or _NAMED.search(code) is not None)


def _import_kind(converter, func) -> str | None:
    """'import_module' for importlib.import_module (also imported by name), '__import__' for the
    builtin, else None."""
    code = signatures(converter).code
    if isinstance(func, cst.Name):
        if func.value == "__import__" and "__import__" not in converter.facts.imported:
            return "__import__"
        if func.value == "import_module" and _IMPORT_MODULE_FROM.search(code):
            return "import_module"
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
            and func.value.value == "importlib" and func.attr.value == "import_module" and _IMPORTLIB.search(code):
        return "import_module"
    return None


def import_by_name(converter, node: cst.Call):
    """Apply MS501 to ``importlib.import_module(name)`` / ``__import__(name)``: the call of the
    generated importer (its arguments converted), or None when the name cannot be an einops
    module."""
    kind = _import_kind(converter, node.func)
    if kind is None or not node.args or node.args[0].star or not converter.allows(EINOPS.id) \
            or not converter.allows(BY_NAME.id):
        return None
    first = node.args[0].value
    if isinstance(first, cst.SimpleString):
        if not is_einops(first.evaluated_value if isinstance(first.evaluated_value, str) else None):
            return None
    elif not converter.facts.named_modules:
        return None
    name = signatures(converter).helper("torch_import_module" if kind == "import_module" else "torch_import")
    new = converter.generic(node).with_changes(func=cst.Name(name))
    converter.record(node, new, BY_NAME.id, "transformed",
                f"{name} answers einops' modules with the generated einops code and imports any other "
                "name as before")
    return new
