"""Boolean constants the conversion makes, folded away.

A probe answered when converting leaves a constant where torch code asked a question
(``torch.is_autocast_enabled()`` -> ``False``, ``hasattr(F, 'silu')`` -> ``True``). Inside a
boolean operation the constant is noise a reviewer sends back (``if not False or not use_flash:``),
so the operation is folded:

- anywhere, what Python computes without looking at the other operand: ``True and x`` -> ``x``,
  ``False and x`` -> ``False``, ``True or x`` -> ``True``, ``False or x`` -> ``x``, ``not False``
  -> ``True``. The value is the same object, so this holds wherever the expression stands.
- where only the truth of the value counts (the test of ``if`` / ``elif`` / ``while``, of a
  conditional expression, of a comprehension's ``if``, the operand of ``not``): also a constant
  on the right, ``x and True`` -> ``x``, ``x or False`` -> ``x``; and ``x and False`` -> ``False``,
  ``x or True`` -> ``True`` only when evaluating ``x`` does nothing but read (names, attributes,
  literals, comparisons of those): a call there keeps the operation, as it keeps its effect.

Only constants the conversion wrote are folded: an operand that was already ``True``/``False``
in the input (``while True and not done:``) is the author's and stays, and a test that held a
literal constant anywhere is left to the exact folds.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import children, code_of, keep_parens


def constant(node) -> bool | None:
    """The value of ``True`` / ``False`` / ``not True`` / ``not False``, else None."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = constant(node.expression)
        return None if inner is None else not inner
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def plain(node) -> bool:
    """An expression whose evaluation does nothing but read: literals, names, attribute chains of
    names, and ``not`` / ``and`` / ``or`` / comparisons of those."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return plain(node.value)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not) and plain(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return plain(node.left) and plain(node.right)
    if isinstance(node, cst.Comparison):
        return plain(node.left) and all(plain(c.comparator) for c in node.comparisons)
    return False


def _made(old, new) -> bool | None:
    """The constant value of ``new`` when the conversion made it one (``old`` was not), else None."""
    return constant(new) if constant(old) is None else None


def _literal(value: bool, like) -> cst.Name:
    return keep_parens(like, cst.Name("True" if value else "False"))


def fold_not(old: cst.UnaryOperation, operand) -> cst.BaseExpression | None:
    """``not <operand>`` (``operand``: ``old``'s converted) as a constant when the conversion made
    the operand one; None otherwise."""
    value = _made(old.expression, operand) if isinstance(old.operator, cst.Not) else None
    return None if value is None else _literal(not value, old)


def fold_boolean(old: cst.BooleanOperation, left, right) -> cst.BaseExpression | None:
    """``left and/or right`` (``old``'s operands converted) where the conversion made the left
    operand a constant: what Python evaluates to (see the module docstring); None otherwise."""
    value = _made(old.left, left)
    if value is None and constant(left) is not None and _made(old.right, right) is not None:
        value = constant(left)  # `True and <made False>`: both constants, one of them the conversion's
    if value is None:
        return None
    is_and = isinstance(old.operator, cst.And)
    if value == is_and:  # `True and x`, `False or x`: x
        return keep_parens(old, right)
    return _literal(value, old)  # `False and x`, `True or x`: the constant, x not evaluated


def fold_identity(old: cst.Comparison, new) -> cst.BaseExpression | None:
    """``<made None> is None`` / ``is not None`` (``new``: ``old`` converted) as the constant it is,
    where the conversion made the left operand ``None`` (a question answered:
    ``torch._C._get_tracing_state()`` -> ``None``); None otherwise."""
    if not isinstance(new, cst.Comparison) or len(new.comparisons) != 1 or len(old.comparisons) != 1:
        return None
    op, right = new.comparisons[0].operator, new.comparisons[0].comparator
    made = _is_none(new.left) and not _is_none(old.left)
    if not made or not _is_none(right) or not isinstance(op, (cst.Is, cst.IsNot)):
        return None
    return _literal(isinstance(op, cst.Is), old)


def _is_none(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def has_literal(node) -> bool:
    """Whether ``node`` holds ``True`` or ``False`` anywhere."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name:
            if n.value in ("True", "False"):
                return True
            continue
        stack.extend(children(n))
    return False


def fold_truth(old, new):
    """``new`` (the conversion of the test ``old``) with the constants the conversion made folded
    as a test reads them (only its truth counts); ``new`` itself when nothing folds or ``old``
    held a ``True``/``False`` of its own."""
    if new is old or has_literal(old):
        return new
    return _truth(new)


def _truth(node):
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = _truth(node.expression)
        value = constant(inner)
        if value is not None:
            return _literal(not value, node)
        return node if inner is node.expression else node.with_changes(expression=inner)
    if not isinstance(node, cst.BooleanOperation):
        return node
    left, right = _truth(node.left), _truth(node.right)
    is_and = isinstance(node.operator, cst.And)
    for const, other, other_plain in ((constant(left), right, True), (constant(right), left, plain(left))):
        if const is None:
            continue
        if const == is_and:  # `True and x`, `x and True`, `False or x`, `x or False`: x's truth
            return keep_parens(node, other)
        if other_plain:  # `x and False`, `x or True`: the constant (x only read)
            return _literal(const, node)
    if left is node.left and right is node.right:
        return node
    return node.with_changes(left=left, right=right)


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)


def unwrapped_after_not(node: cst.UnaryOperation, operand):
    """``operand`` (the folded operand of ``not``) without the parentheses its operation had, when
    it became an atom and a space already follows ``not`` (``not (a or False)`` -> ``not a``)."""
    if operand is node.expression or not isinstance(operand, _ATOMS) or len(operand.lpar) != 1 \
            or not isinstance(node.operator.whitespace_after, cst.SimpleWhitespace) \
            or not node.operator.whitespace_after.value \
            or code_of(operand.lpar[0]) != "(" or code_of(operand.rpar[0]) != ")":
        return operand
    return operand.with_changes(lpar=[], rpar=[])
