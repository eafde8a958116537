"""libcst helpers shared by the whole converter: source text of nodes, cached parsing, dotted
names, the one table of node fields worth walking, and small statement helpers.

Everything here is a pure function of its arguments (caches hold immutable nodes only), so any
module of the converter may import it without importing the walker.
"""
from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
from functools import lru_cache

import libcst as cst
from libcst._nodes.base import CSTNode

from migrate.convert.comments import own_comments

_EMPTY_MODULE = cst.Module(body=[])
_LEAVES = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)
_Name, _Attribute = cst.Name, cst.Attribute


def parse_source(code: str) -> cst.Module:
    """``cst.parse_module(code)``, without libcst's check of each node its parser builds (the
    parser builds only what the check accepts; checking was ~13 % of a parse). Nodes the
    converter builds itself are checked as usual. Raises what ``cst.parse_module`` raises."""
    if CSTNode.__post_init__ is not _VALIDATING:  # (another libcst, or a parse inside a parse)
        return cst.parse_module(code)
    CSTNode.__post_init__ = _built_by_the_parser
    try:
        return cst.parse_module(code)
    finally:
        CSTNode.__post_init__ = _VALIDATING


def _built_by_the_parser(self) -> None:
    """A node libcst's parser builds: valid by construction."""


_VALIDATING = CSTNode.__post_init__


def code_of(node: cst.CSTNode) -> str:
    """Return the source text of one node.

    Example:
        >>> code_of(parse_expr("nn.Linear(2, 3)").func)
        'nn.Linear'
    """
    if type(node) in _LEAVES and not node.lpar:
        return node.value
    return _EMPTY_MODULE.code_for_node(node)


@lru_cache(maxsize=4096)
def parse_expr(text: str) -> cst.BaseExpression:
    """Parse an expression once; nodes are immutable, so sharing them is safe."""
    return cst.parse_expression(text)


@lru_cache(maxsize=1024)
def parse_statement(text: str) -> cst.BaseStatement:
    """Parse one statement once (shared: for statements that are only ever read or emitted)."""
    return cst.parse_statement(text + "\n")


def new_statement(text: str) -> cst.BaseStatement:
    """A statement of its own: a fresh top node over shared (immutable) children, so that
    statements made from the same text are still told apart by identity."""
    return parse_statement(text).with_changes()


def dotted(node: cst.CSTNode) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else None.

    Example:
        >>> dotted(parse_expr("torch.nn.functional"))
        'torch.nn.functional'
    """
    # exact type checks: CSTNode classes are ABCs, and isinstance on them is slow on a hot path
    t = type(node)
    if t is _Name:
        return node.value
    parts = []
    while t is _Attribute:
        parts.append(node.attr.value)
        node = node.value
        t = type(node)
    if t is not _Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def short(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut to ``limit`` characters (reports and marker comments)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------
# the one table of node fields worth walking
# --------------------------------------------------------------------------------------------
# Fields that hold layout only (punctuation, whitespace, comments, indentation): no walk needs them.
LAYOUT_FIELDS = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
    "footer", "trailing_whitespace", "equal", "colon", "lbrace", "rbrace", "lbracket", "rbracket",
    "dot", "star", "operator", "asynchronous", "encoding", "default_indent", "default_newline",
    "has_trailing_newline", "first_line", "leading_whitespace", "indent", "whitespace",
})
# Fields that spell a name being defined or a keyword (`def f`, `import a as b`, `f(k=v)`,
# `from . import`): the rewriter never changes them; a scan of the names code binds reads them.
DEFINING_FIELDS = frozenset({"name", "keyword", "relative", "posonly_ind"})

_CODE_FIELDS: dict[type, tuple[str, ...]] = {}
_REWRITE_FIELDS: dict[type, tuple[str, ...]] = {}
_ALL_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE_TYPES: dict[type, bool] = {}


def code_fields(t: type) -> tuple[str, ...]:
    """Fields of node type ``t`` that may hold code (everything but layout), in field order."""
    names = _CODE_FIELDS.get(t)
    if names is None:
        names = _CODE_FIELDS[t] = tuple(
            f.name for f in dataclasses.fields(t)
            if f.name not in LAYOUT_FIELDS and not f.name.startswith("whitespace"))
    return names


def rewrite_fields(t: type) -> tuple[str, ...]:
    """Fields of ``t`` that may hold code the converter rewrites: skipping the others is most of
    the walker's speed."""
    names = _REWRITE_FIELDS.get(t)
    if names is None:
        names = _REWRITE_FIELDS[t] = tuple(n for n in code_fields(t) if n not in DEFINING_FIELDS)
    return names


def children(node):
    """The child nodes of ``node`` that may hold code, in source order."""
    for name in code_fields(type(node)):
        v = getattr(node, name)
        t = type(v)
        if t is list or t is tuple:
            for x in v:
                if is_node_type(type(x)):
                    yield x
        elif is_node_type(t):
            yield v


def is_node_type(t: type) -> bool:
    """isinstance(x, CSTNode) for x of type t, cached (CSTNode is an ABC: isinstance is slow)."""
    r = _NODE_TYPES.get(t)
    if r is None:
        r = _NODE_TYPES[t] = issubclass(t, cst.CSTNode)
    return r


_setattr = object.__setattr__


def replace_fields(node, changes: dict):
    """``node.with_changes(**changes)`` without re-validating the node: for callers that only put
    rewritten children where children of that kind were (with_changes costs ~3x more)."""
    t = type(node)
    names = _ALL_FIELDS.get(t)
    if names is None:
        names = _ALL_FIELDS[t] = tuple(f.name for f in dataclasses.fields(t))
    new = object.__new__(t)
    for k in names:
        _setattr(new, k, changes[k] if k in changes else getattr(node, k))
    return new


# Expressions that `.name`, `(...)` or `[...]` may follow as written. An integer may not (`0.x` is a
# syntax error), nor may any operation (`-x.shape` is `-(x.shape)`, `a + b.dtype` is `a + (b.dtype)`);
# a tuple or a generator expression only in its own parentheses (`f(x for x in y)` has none).
_PRIMARIES = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Float, cst.Imaginary,
              cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Dict,
              cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis)


def is_primary(node: cst.BaseExpression) -> bool:
    """True when ``.name``, a call or a subscript can follow ``node``'s source as it is."""
    return bool(getattr(node, "lpar", None)) or isinstance(node, _PRIMARIES)


def attribute(node: cst.BaseExpression, name: str) -> cst.Attribute:
    """``node.name``, with ``node`` in parentheses unless it takes an attribute as it is.

    Example:
        >>> code_of(attribute(parse_expr("b + c"), "dtype"))
        '(b + c).dtype'
    """
    if not is_primary(node):
        node = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Attribute(value=node, attr=cst.Name(name))


def keep_parens(old, new):
    """A replacement keeps the parentheses of the node it replaces (they may be what makes a
    multi-line expression valid)."""
    if new is old or not old.lpar or getattr(new, "lpar", None) is None or new.lpar:
        return new
    return new.with_changes(lpar=old.lpar, rpar=old.rpar)


_BARE_ARGUMENTS = (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp,
                   cst.Name, cst.Attribute, cst.Call, cst.Subscript)


def as_argument(node):
    """A method receiver moved into a call's arguments without the parentheses its attribute needed
    (``(a + b).f()`` -> ``g(a + b)``); a tuple, lambda or generator keeps them."""
    if isinstance(node, _BARE_ARGUMENTS) and node.lpar:
        return node.with_changes(lpar=[], rpar=[])
    return node


# --------------------------------------------------------------------------------------------
# statements
# --------------------------------------------------------------------------------------------
def call_of(stmt) -> cst.Call | None:
    """The call of an expression statement ``f(...)`` (one small statement on its line)."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            return small.value
    return None


def method_call(stmt, name: str):
    """``recv.name(...)`` as a statement -> (recv, call), else None."""
    call = call_of(stmt)
    if call is not None and isinstance(call.func, cst.Attribute) and call.func.attr.value == name:
        return call.func.value, call
    return None


def is_same_names(target, value) -> bool:
    """``target = value`` binds each name to itself: ``x = x``, ``x, y = x, y`` (parentheses and
    brackets aside), or sets an attribute or item to what it holds: ``self.grid = self.grid``."""
    if isinstance(target, cst.Name):
        return isinstance(value, cst.Name) and value.value == target.value
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        return len(target.elements) == len(value.elements) and all(
            isinstance(t, cst.Element) and isinstance(v, cst.Element) and is_same_names(t.value, v.value)
            for t, v in zip(target.elements, value.elements))
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        return _read_path(target) and type(value) is type(target) and _read_path(value) \
            and code_of(target.with_changes(lpar=[], rpar=[])) == code_of(value.with_changes(lpar=[], rpar=[]))
    return False


def _read_path(node) -> bool:
    """``self.grid``, ``self.blocks[i].fn``: names, attributes and subscripts by a name or a
    literal (reading it again gives the same object)."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _read_path(node.value)
    if isinstance(node, cst.Subscript):
        return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
            and isinstance(node.slice[0].slice.value, (cst.Name, cst.Integer, cst.SimpleString)) \
            and _read_path(node.value)
    return False


def single_assign(stmt) -> cst.Assign | None:
    """The assignment of a line that holds exactly one ``targets = value`` statement."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
            and isinstance(stmt.body[0], cst.Assign):
        return stmt.body[0]
    return None


@dataclasses.dataclass(frozen=True)
class RemovedPass(cst.Pass):
    """The ``pass`` that holds the comments of a statement the conversion removed:
    :func:`fold_removed` moves the comments to the next statement where the block has one."""


@dataclasses.dataclass(frozen=True)
class LeftPass(cst.Pass):
    """The ``pass`` the conversion writes into a block whose statements it removed (not one the
    user wrote): :mod:`migrate.convert.tidy` drops a statement left holding only these."""


def left_pass() -> cst.SimpleStatementLine:
    """A line with a :class:`LeftPass`: what stands in a block the conversion emptied."""
    return cst.SimpleStatementLine([LeftPass()])


@dataclasses.dataclass(frozen=True)
class SettledNone(cst.Assign):
    """``name = None`` where the conversion made the value None (``device = x.device``,
    ``d = torch.device('cuda')``): :mod:`migrate.convert.tidy` drops it when the function never
    reads the name."""


@dataclasses.dataclass(frozen=True)
class LeftLoop(cst.For):
    """A ``for`` loop whose body the conversion emptied (``for k in w.keys(): w[k] = w[k].cpu()``):
    :mod:`migrate.convert.tidy` drops it when the function reads its loop names nowhere else."""


def removed(stmt) -> list:
    """What replaces a removed statement: nothing, or a ``pass`` that keeps its comments (the
    lines above it and its end-of-line comment as they were, the others above the ``pass``)."""
    tail = getattr(stmt, "trailing_whitespace", None)
    if tail is not None and tail.comment is None:
        tail = None
    inner = stmt.with_changes(leading_lines=[], **({"trailing_whitespace": cst.TrailingWhitespace()} if tail else {}))
    lines = [*stmt.leading_lines, *(cst.EmptyLine(comment=cst.Comment(c)) for c in own_comments(inner, nested=True))]
    if tail is not None:
        return [cst.SimpleStatementLine([RemovedPass()], leading_lines=lines, trailing_whitespace=tail)]
    # blank lines alone are no comment to keep: the statement simply goes
    return [cst.SimpleStatementLine([RemovedPass()], leading_lines=lines)] \
        if any(ln.comment is not None for ln in lines) else []


def _removed_only(st) -> bool:
    return isinstance(st, cst.SimpleStatementLine) and all(isinstance(s, RemovedPass) for s in st.body)


def fold_removed(stmts: list) -> tuple[list, list]:
    """(``stmts`` with the ``pass`` lines of removed statements gone where the block keeps other
    statements -- their comments above the next statement --, comment lines left for the block's
    end). ``stmts`` itself, and no lines, when there is nothing to fold."""
    if not any(_removed_only(st) for st in stmts) or all(_removed_only(st) for st in stmts):
        return stmts, []
    out, pending = [], []
    for st in stmts:
        if _removed_only(st):
            tail = st.trailing_whitespace.comment
            pending += [*st.leading_lines, *([cst.EmptyLine(comment=tail)] if tail is not None else [])]
            continue
        out.append(st.with_changes(leading_lines=[*pending, *st.leading_lines]) if pending else st)
        pending = []
    return out, [ln for ln in pending if ln.comment is not None]


def bind_args(call: cst.Call, names: list[str]) -> dict | None:
    """Match a call's arguments to the parameter ``names`` (positional, then keywords).

    Returns:
        ``{name: value node}`` for the arguments given, or None when the call has ``*``/``**``
        arguments, too many positional ones or an unknown keyword.
    """
    out = {}
    for i, a in enumerate(call.args):
        if a.star:
            return None
        if a.keyword is None:
            if i >= len(names):
                return None
            out[names[i]] = a.value
        elif a.keyword.value in names:
            out[a.keyword.value] = a.value
        else:
            return None
    return out


def count_statements(block) -> int:
    """Statements in ``block`` as the walker (and ast) count them."""
    if isinstance(block, cst.SimpleStatementSuite):
        return len(block.body)
    n = 0
    for st in getattr(block, "body", ()):
        if isinstance(st, cst.SimpleStatementLine):
            n += len(st.body)
            continue
        n += 1
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(st, field, None)
            if isinstance(sub, cst.If):  # elif
                n += count_statements(cst.IndentedBlock(body=[sub]))
            elif sub is not None:
                n += count_statements(sub.body if isinstance(sub, (cst.Else, cst.Finally)) else sub)
        for h in getattr(st, "handlers", ()):
            n += count_statements(h.body)
    return n


_LAST_AST: list = [None, None]  # [source text, its ast.Module]


def python_ast(code: str) -> ast.Module:
    """``ast.parse(code)``, kept for the next call with the same text: the pre-passes of one
    conversion read the input's ast two or three times (a parse each was 7 % of a conversion).
    The tree is shared: callers only read it. Raises what ``ast.parse`` raises."""
    text, tree = _LAST_AST
    if text is code or text == code:
        return tree
    tree = ast.parse(code)
    _LAST_AST[:] = [code, tree]
    return tree


def remember_ast(code: str, tree: ast.Module) -> None:
    """Make ``tree`` (``ast.parse(code)``, made by the caller) :func:`python_ast`'s answer for
    ``code``. The caller does not change it afterwards."""
    _LAST_AST[:] = [code, tree]


def ast_statements(body):
    """Every statement (ast) of ``body`` and of the blocks under it, each before its own blocks'
    (what ``ast.walk`` finds of them, without walking every expression)."""
    for st in body:
        yield st
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(st, name, None)
            if isinstance(inner, list):
                yield from ast_statements(inner)
        for part in (*getattr(st, "handlers", ()), *getattr(st, "cases", ())):
            yield from ast_statements(part.body)


def statement_spans(code: str) -> tuple[list[int], list[int]]:
    """First and last line of every statement, in the order the walker meets them (ast's)."""
    try:
        tree = python_ast(code)
    except (SyntaxError, ValueError):
        return [], []
    starts: list[int] = []
    ends: list[int] = []
    _spans(tree.body, starts, ends)
    return starts, ends


def _spans(body, starts: list, ends: list) -> None:
    # (a function of the module: a nested one calling itself is a cycle left to the collector)
    for st in body:
        starts.append(st.lineno)
        ends.append(st.end_lineno or st.lineno)
        for name in st._fields:
            value = getattr(st, name)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                _spans(value, starts, ends)
            elif isinstance(value, list) and value and isinstance(value[0], (ast.excepthandler, ast.match_case)):
                for h in value:
                    _spans(h.body, starts, ends)


# Ordinary code may gain a level of brackets (torch.ones(2, 3) -> ops.ones((2, 3))); code already
# nested deeper than this never does, so the output stays as far from CPython's limit as the input.
DEEP_BRACKETS = 100
_BRACKETS = re.compile(r"[()\[\]{}]")


def bracket_depth(code: str, fast: bool = False) -> int:
    """The deepest nesting of brackets in ``code``. With ``fast``, brackets inside strings and
    comments count too (an upper bound for balanced code, at a fraction of tokenize's cost)."""
    depth = deepest = 0
    if fast:
        for ch in _BRACKETS.findall(code):
            if ch in "([{":
                depth += 1
                deepest = max(deepest, depth)
            elif depth:  # never below 0: closing brackets in strings must not hide real depth
                depth -= 1
        return deepest
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
                depth += 1
                deepest = max(deepest, depth)
            elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return deepest
