"""einops in converted code: its functions and torch layers become generated code over the target.

``from einops import rearrange`` / ``from einops.layers.torch import Rearrange`` are resolved like
torch imports (``einops`` is one of the roots of :mod:`migrate.convert.imports`), so the import
goes once nothing uses it, and stays guarded for what is marked. A reference to an einops name
that has a table entry (``mappings/einops.toml``, ``einops_misc.toml``) becomes the local name
of the generated function or Cell of :mod:`migrate.convert.einops_runtime`; the generated code
takes einops' arguments, so calls, values (``map(rearrange, ...)``), base classes and
``isinstance`` all need nothing more. Names without an entry (``EinMix``) are marked.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.builtin_names import BUILTINS
from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import signatures

EINOPS = node_rule(
    "MS500", "einops_generated",
    "Replace einops.rearrange / reduce / repeat / pack / unpack / einsum / parse_shape and "
    "einops.layers.torch.Rearrange / Reduce with generated functions and Cells over the target's "
    "ops (einops_rearrange, EinopsRearrange, ...): converted code needs neither einops nor torch.")

ROOT = "einops"
# einops classes that are modules: a subclass of one is a Cell
LAYERS = frozenset({"einops.layers.torch.Rearrange", "einops.layers.torch.Reduce", "einops.layers.torch.EinMix"})


def is_einops(qual: str | None) -> bool:
    """A qualified name inside the einops package."""
    return qual is not None and qual.split(".", 1)[0] == ROOT


def reference(conv, node, qual: str):
    """Apply MS500 to an einops name (called or not; a call's arguments are einops' own): the
    generated code's local name, or the node as written with a marker (MS901) when there is
    none."""
    entry = conv.tables.get(qual)
    if entry is None or entry.label == "unsupported" or not conv.allows(EINOPS.id):
        conv.uses_alias(node)
        if entry is None or entry.label == "unsupported":
            note = f" ({entry.note})" if entry is not None and entry.note else ""
            conv.mark(node, "MS901", f"{qual} has no mapping{note}")
        return node
    if entry.target in BUILTINS:
        name = conv.builtin(entry.target)
    else:
        name = signatures(conv).helper(entry.target)
    new = cst.Name(name) if "." not in name else cst.parse_expression(name)
    note = entry.note + (f"; {entry.mindspore_note}" if entry.mindspore_note and conv.target_name == "mindspore"
                         else "")
    conv.record(node, new, EINOPS.id, entry.label, note)
    return new

