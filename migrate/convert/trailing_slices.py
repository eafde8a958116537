"""Trailing full slices of an index, for MindSpore 2.10 (``--target mindspore``).

``x[mask, :]`` with a boolean mask of two or more dimensions selects the wrong elements on
MindSpore 2.10 (a (2, 2, 8) tensor gives (k, 2) where torch gives (k, 8)), and ``x[mask, ...]``
is refused. Trailing ``:`` and ``...`` select everything in torch (and NumPy): ``x[mask, :]`` is
``x[mask]``, which MindSpore indexes right. With --target mindspore they are dropped after an
index that may be a tensor (a name, an attribute, a call, a comparison: not a literal or a slice).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.registry import node_rule

TRAILING_SLICES = node_rule(
    "MS248", "trailing_full_slices",
    "Replace x[mask, :] with x[mask] with --target mindspore (trailing full slices after an index that may "
    "be a tensor select everything): MindSpore 2.10 indexes a boolean mask followed by ':' wrong.",
    examples=[("y = x[mask, :]\n", "y = x[mask]\n", "mindspore")])


def _full(element: cst.SubscriptElement) -> bool:
    s = element.slice
    if isinstance(s, cst.Index):
        return isinstance(s.value, cst.Ellipsis)
    return s.lower is None and s.upper is None and s.step is None


def _may_be_tensor(element: cst.SubscriptElement) -> bool:
    s = element.slice
    return isinstance(s, cst.Index) and isinstance(s.value, (cst.Name, cst.Attribute, cst.Call, cst.Comparison,
                                                             cst.UnaryOperation, cst.Subscript)) \
        and not (isinstance(s.value, cst.Name) and s.value.value in ("None", "True", "False"))


def without_trailing_slices(converter, node: cst.Subscript) -> cst.Subscript | None:
    """``node`` without its trailing full slices, or None (not --target mindspore, nothing to drop)."""
    if converter.facts.target_name != "mindspore" or not converter.allows(TRAILING_SLICES.id):
        return None
    elements = list(node.slice)
    keep = len(elements)
    while keep > 0 and _full(elements[keep - 1]):
        keep -= 1
    if keep == len(elements) or keep == 0 or not any(_may_be_tensor(e) for e in elements[:keep]):
        return None
    kept = [*elements[:keep - 1], elements[keep - 1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    new = node.with_changes(slice=kept)
    converter.record(node, new, TRAILING_SLICES.id, "exact",
                     "trailing ':' select everything: dropped (MindSpore 2.10 indexes mask, ':' wrong)")
    return new
