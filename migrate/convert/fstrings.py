"""Rewrites inside f-strings stay valid on every Python the output runs on (3.9 to 3.11 too).

Before Python 3.12 the expressions of an f-string cannot hold the quote that delimits it (nor
that of any f-string around it) nor a backslash. A rule knows nothing of where its result goes:
``torch.__version__`` becomes ``'2.13.0'``, which inside ``f'{torch.__version__}'`` would end
the string. So the walker converts each expression of an f-string as any other, then fits the
result to the quotes it must avoid here: a string literal written with a forbidden quote is
written with another one. When no quote fits (the literal holds both, or needs a backslash),
the expression is left as written and marked (MS919).
"""
from __future__ import annotations

import ast

import libcst as cst

from migrate.convert.cst import code_of

FSTRING_MARKER = "MS919"
_PREFIX_CHARS = "rRbBuUfF"


def quote_of(node: cst.FormattedString) -> str:
    """The quote character that delimits an f-string (``'`` for ``f'''...'''`` too)."""
    return node.start.lstrip(_PREFIX_CHARS)[:1]


def _requoted(node: cst.SimpleString, forbidden: frozenset) -> cst.SimpleString | None:
    """``node`` written with a quote not in ``forbidden``; None when none fits."""
    prefix = node.prefix
    body_quote = node.quote
    if body_quote[0] not in forbidden:
        return node
    try:
        value = ast.literal_eval(node.value)
    except (ValueError, SyntaxError):
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    if "\\" in text or any(not ch.isprintable() for ch in text):
        return None  # it would need a backslash, which an f-string's expression cannot hold
    for quote in ("'", '"'):
        if quote in forbidden or quote in text:
            continue
        new_quote = quote * len(body_quote) if len(body_quote) == 3 and quote * 3 not in text else quote
        if "\n" in text and len(new_quote) == 1:
            continue
        keep = "".join(c for c in prefix if c in "bB")
        return node.with_changes(value=f"{keep}{new_quote}{text}{new_quote}")
    return None


class _Fitter(cst.CSTTransformer):
    """Rewrites the string literals of an expression to avoid the quotes of the f-strings around
    it; ``failed`` when one cannot be."""

    def __init__(self, forbidden: frozenset):
        super().__init__()
        self.forbidden = [forbidden]
        self.failed = False

    def visit_FormattedString(self, node) -> bool:
        if quote_of(node) in self.forbidden[-1]:
            self.failed = True  # a nested f-string with a forbidden quote: not ours to rewrite
        self.forbidden.append(self.forbidden[-1] | {quote_of(node)})
        return True

    def leave_FormattedString(self, original, updated):
        self.forbidden.pop()
        return updated

    def leave_SimpleString(self, original, updated):
        new = _requoted(updated, self.forbidden[-1])
        if new is None:
            self.failed = True
            return updated
        return new


def fit(expression: cst.BaseExpression, forbidden: frozenset) -> cst.BaseExpression | None:
    """``expression`` (the converted expression of an f-string) written so that it holds none
    of the ``forbidden`` quotes and no backslash; None when it cannot be.

    Example:
        >>> code_of(fit(cst.parse_expression("'2.13.0'"), frozenset("'")))
        '"2.13.0"'
    """
    fitter = _Fitter(forbidden)
    new = expression.visit(fitter)
    if fitter.failed or "\\" in code_of(new):
        return None
    return new
