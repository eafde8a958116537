"""Parentheses a replacement needs where it goes: libcst writes a tree as it is, so a rule result
that is an operation or a literal, put where a call was, must bring its own parentheses.

``torch.cuda.device_count().real`` becomes ``(0).real``, not ``0.real`` (a syntax error); a rule
result ``a + b`` under ``-`` or ``*`` stays ``-(a + b)``, not ``-a + b``. The walker asks
:func:`fit` for every child it replaced in a node that binds tighter than the child.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import is_primary

ATOM = 16
_BINARY = {
    cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9, cst.Add: 10,
    cst.Subtract: 10, cst.Multiply: 11, cst.MatrixMultiply: 11, cst.Divide: 11, cst.FloorDivide: 11,
    cst.Modulo: 11, cst.Power: 13,
}
_UNARY_NOT, _UNARY, _COMPARISON, _AWAIT = 4, 12, 5, 14


def precedence(node) -> int:
    """How tightly ``node`` binds (Python's table, higher binds tighter; a primary is ATOM)."""
    if getattr(node, "lpar", None) or is_primary(node):
        return ATOM
    t = type(node)
    if t is cst.BinaryOperation:
        return _BINARY[type(node.operator)]
    if t is cst.UnaryOperation:
        return _UNARY_NOT if type(node.operator) is cst.Not else _UNARY
    if t is cst.BooleanOperation:
        return 2 if type(node.operator) is cst.Or else 3
    if t is cst.Comparison:
        return _COMPARISON
    if t is cst.Await:
        return _AWAIT
    if t is cst.IfExp:
        return 1
    if t is cst.Lambda:
        return 0
    if t is cst.Integer:
        return ATOM - 1  # an operand anywhere, but `.name` cannot follow it
    return -1  # walrus, yield, starred...: parenthesised wherever an operand must be


def _needed(parent, field: str) -> int | None:
    """The least precedence the child in ``parent.field`` must have, or None (any)."""
    t = type(parent)
    if t in (cst.Attribute, cst.Subscript) and field == "value" or t is cst.Call and field == "func":
        return ATOM
    if t is cst.BinaryOperation:
        p = _BINARY[type(parent.operator)]
        if p == _BINARY[cst.Power]:  # right-associative; `2 ** -1` is fine
            return p + 1 if field == "left" else _UNARY
        return p if field == "left" else p + 1
    if t is cst.UnaryOperation:
        return _UNARY_NOT if type(parent.operator) is cst.Not else _UNARY
    if t is cst.BooleanOperation:
        p = 2 if type(parent.operator) is cst.Or else 3
        return p if field == "left" else p + 1
    if t is cst.Comparison and field == "left" or t is cst.ComparisonTarget:
        return _COMPARISON + 1
    if t is cst.Await:
        return ATOM
    if t is cst.IfExp and field in ("test", "body"):
        return 2
    return None


def fit(parent, field: str, child):
    """``child`` (a replacement for ``parent.field``), parenthesised if it would not bind there.

    Args:
        parent: the node the child goes into.
        field: the field of ``parent`` it goes into.
        child: the new child.

    Returns:
        ``child`` or a parenthesised copy.

    Example:
        >>> new = fit(cst.parse_expression("f().real"), "value", cst.Integer("0"))
        >>> cst.Module([]).code_for_node(new)
        '(0)'
    """
    need = _needed(parent, field)
    if need is None or not isinstance(child, cst.BaseExpression) or precedence(child) >= need:
        return child
    return child.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
