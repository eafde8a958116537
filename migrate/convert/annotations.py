"""Annotations that name torch types (issue 10 class 5).

``def f(x: torch.Tensor) -> Optional[torch.Tensor]`` converts like any other reference
(``ms.Tensor``). An annotation is evaluated when its function or class is defined, so one that
names a torch type with no mapping (``torch.dtype``, ``torch.device``, ``torch.Size``,
``torch.Generator``) would need torch at import time: such an annotation is written as text
(``device: "torch.device"``), which Python does not evaluate and type checkers still read.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import code_of
from migrate.convert.registry import node_rule

TORCH_ANNOTATION = node_rule(
    "MS192", "torch_annotation",
    "Replace an annotation naming a torch type with no mapping (x: torch.device) with its text "
    "(x: \"torch.device\"): never evaluated, so it needs no torch at import.", examples=[
    ("def f(d: torch.layout):\n"
     "    return d\n",
     'def f(d: "torch.layout"):\n'
     "    return d\n"),
])


def on_annotation(converter, node: cst.Annotation):
    """Convert an annotation; quote it when a torch name in it stays unconverted."""
    expr = node.annotation
    if not converter.walk_state.aliases or isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        return node
    start, uses = converter.checkpoint(), dict(converter.output.alias_uses)
    new = converter.walk(expr)
    marked = [c for c in converter.output.changes[start.changes:] if c.label == "unsupported"]
    if not marked or not converter.allows(TORCH_ANNOTATION.id):
        return node if new is expr else node.with_changes(annotation=new)
    converter.rollback_to(start, keep_markers=False)
    converter.output.alias_uses.clear()
    converter.output.alias_uses.update(uses)  # the names are text now: their imports are not needed for them
    text = " ".join(code_of(new).split())
    quoted = cst.SimpleString(repr(text) if '"' in text else f'"{text}"')
    converter.record(expr, quoted, TORCH_ANNOTATION.id, "approximate",
                "; ".join(sorted({c.note for c in marked})) + ": the annotation is kept as text")
    return node.with_changes(annotation=quoted)
