"""The converted module's text, with the statements the conversion kept as they were copied from
the input instead of printed again: top-level ones, the members (methods, class-level
statements) of a top-level class that the conversion changed elsewhere, and the statements of
any indented block inside a changed statement (a method's lines a rewrite did not touch) but the
last one of its block.

libcst's printing of the result was about a tenth of a conversion, and many statements (helpers,
constants, methods with nothing of torch's) come out of the walk as the very nodes that were
parsed. A node's text is the input's text there: libcst's round trip is lossless, a statement
owns the lines from its leading comments and blank lines to the line before the next statement's,
and a statement prints with the indentation its block gives it: nothing for a top-level one,
the class body's own for a member (the same when the converted class keeps the body's indent).
So the text of statement ``i`` is its lines, found from where ``ast`` says it starts (its first
decorator's line) less its ``leading_lines``, up to where the next one's text starts (the last
top-level one's: up to the module's footer; a class's last member's: up to its body's footer).

Inside blocks, where a statement starts is ast's line of it (its place in the walk's order of
statements, ``Starts.lines``), less its ``leading_lines``; its text runs to where the next
statement's of the same block begins, and it is copied where the output prints it at the
indentation (all enclosing blocks' indents) it had in the input. Decorated statements (ast's line
is the ``def``'s) and the ones before them are printed.

Where the lines could be counted differently (CR line ends, a backslash continuing a line into
the next statement, a decorator that does not start its line, no newline at the end, another
indentation or newline than the input's) the module, or the class, is printed as before.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import NamedTuple

import libcst as cst
from libcst._nodes.internal import CodegenState


class Starts(NamedTuple):
    """Where the input's statements start, from its ``ast``."""

    top: tuple[int, ...]    # the first line of each top-level statement
    members: tuple = ()     # per top-level statement: a class's members' first lines, or None
    lines: tuple = ()       # the first line of every statement, in the walk's order (ast's lineno)


def statement_starts(tree: ast.Module) -> Starts:
    """The first line of each top-level statement of ``tree`` and of each member of a top-level
    class (a decorated one's first decorator's line), in order."""
    return Starts(tuple(_first_line(st) for st in tree.body),
                  tuple(tuple(_first_line(m) for m in st.body) if isinstance(st, ast.ClassDef) else None
                        for st in tree.body))


def _first_line(st: ast.stmt) -> int:
    decorators = getattr(st, "decorator_list", None)
    return decorators[0].lineno if decorators else st.lineno


@dataclass(frozen=True)
class _Text(cst.BaseStatement):
    """A statement printed as its input text (which holds its indentation)."""

    text: str

    def _visit_and_replace_children(self, visitor) -> "_Text":
        return self

    def _codegen_impl(self, state: CodegenState) -> None:
        state.add_token(self.text)


class _Input:
    """The input's lines, and where its statements' texts begin (computed when first asked)."""

    def __init__(self, old: cst.Module, code: str, starts: Starts):
        self.old, self.starts = old, starts
        self.lines = code.split("\n")  # ends with "" (the code ends with a newline)
        self.bounds = _text_lines(old.body, starts.top, self.lines, len(old.header) + 1,
                                  len(self.lines) - len(old.footer))
        self.index = {id(st): i for i, st in enumerate(old.body)}
        self._members: dict[int, tuple[int, int]] | None = None  # id(member) -> (class, member)
        self._member_bounds: dict[int, list[int] | None] = {}
        self._nested: dict[int, tuple[int, int, str]] | None = None  # id(statement) -> its lines, indentation

    def nested(self, node, indent: str) -> str | None:
        """The input text of ``node`` when it is a statement of an indented block of the input
        (not the last one of its block) that prints at ``indent`` there too; else None."""
        if self._nested is None:
            self._nested = _nested_texts(self.old, self.starts.lines, self.lines)
        found = self._nested.get(id(node))
        if found is None or found[2] != indent:
            return None
        return "\n".join(self.lines[found[0] - 1:found[1] - 1]) + "\n"

    def text(self, bounds: list[int], i: int) -> str:
        """Lines ``bounds[i]`` .. ``bounds[i + 1] - 1`` (1-based), each with its newline."""
        return "\n".join(self.lines[bounds[i] - 1:bounds[i + 1] - 1]) + "\n"

    def member(self, node) -> tuple[int, int] | None:
        """(class, member) of ``node`` when it is a member of a top-level class of the input."""
        if self._members is None:
            self._members = {id(m): (k, j) for k, st in enumerate(self.old.body) if _class_block(st) is not None
                             for j, m in enumerate(st.body.body)}
        return self._members.get(id(node))

    def member_bounds(self, k: int) -> list[int] | None:
        """Where the texts of the members of top-level class ``k`` begin, and one past the last
        one's; None when they cannot be told."""
        if k not in self._member_bounds:
            block = _class_block(self.old.body[k])
            firsts = self.starts.members[k] if self.starts.members else None
            self._member_bounds[k] = None if firsts is None or block is None else _text_lines(
                block.body, firsts, self.lines, None, self.bounds[k + 1] - len(block.footer))
        return self._member_bounds[k]


def _class_block(st) -> cst.IndentedBlock | None:
    return st.body if type(st) is cst.ClassDef and type(st.body) is cst.IndentedBlock else None


def module_code(new: cst.Module, old: cst.Module, code: str, starts: Starts | None) -> str:
    """``new.code``: the code of ``new`` (a rewrite of ``old``, the parse of ``code``, whose
    statements start at ``starts``), with the statements of ``old`` it keeps copied from
    ``code``."""
    if not starts or not starts.top or not _same_layout(new, old, code):
        return new.code
    source = _Input(old, code, starts)
    if source.bounds is None:
        return new.code
    state = CodegenState(default_indent=new.default_indent, default_newline=new.default_newline)
    for h in new.header:
        h._codegen(state)
    for st in new.body:
        i = source.index.get(id(st))
        if i is not None:
            state.add_token(source.text(source.bounds, i))
        else:
            _with_kept_statements(_with_kept_members(st, source), source, "")._codegen(state)
    for f in new.footer:
        f._codegen(state)
    if not state.tokens:
        state.add_token(state.default_newline)  # as libcst: an empty module keeps its newline
    return "".join(state.tokens)


def _with_kept_members(st, source: _Input):
    """``st`` (a top-level statement of the output), with the members of an input class that it
    keeps as they were (at the same indentation) replaced by their text."""
    block = _class_block(st)
    if block is None:
        return st
    members = None
    for j, m in enumerate(block.body):
        where = source.member(m)
        if where is None or _class_block(source.old.body[where[0]]).indent != block.indent:
            continue
        bounds = source.member_bounds(where[0])
        if bounds is not None:
            members = list(block.body) if members is None else members
            members[j] = _Text(source.text(bounds, where[1]))
    return st if members is None else st.with_changes(body=block.with_changes(body=members))


def _same_layout(new: cst.Module, old: cst.Module, code: str) -> bool:
    """Lines are counted alike by ``ast`` and here, and a statement prints as it did."""
    return (new.default_indent == old.default_indent and new.default_newline == old.default_newline == "\n"
            and new.has_trailing_newline and old.has_trailing_newline and code.endswith("\n")
            and "\r" not in code and not code.startswith("\ufeff"))


def _text_lines(body, starts: tuple[int, ...], lines: list[str], first: int | None, end: int) -> list[int] | None:
    """The first line (1-based) of the text of each statement of ``body`` (whose ast statements
    start at ``starts``), and ``end``, one past the last one's; None when they cannot be told
    (``first``: where the first one's must begin, when known)."""
    firsts, j = [], 0
    for st in body:
        if j >= len(starts):
            return None
        firsts.append(starts[j])
        j += len(st.body) if isinstance(st, cst.SimpleStatementLine) else 1  # `a = 1; b = 2`: one line
    if j != len(starts) or not body:
        return None
    bounds = [line - len(st.leading_lines) for line, st in zip(firsts, body)]
    bounds.append(end)
    if first is not None and bounds[0] != first:
        return None
    for k, st in enumerate(body):
        if bounds[k + 1] <= bounds[k] or bounds[k] > 1 and lines[bounds[k] - 2].endswith("\\"):
            return None
        if getattr(st, "decorators", None) and not lines[firsts[k] - 1].lstrip().startswith("@"):
            return None
    return bounds


# Statements that hold indented blocks, and the parts of them that do (at the statement's own
# indentation); `match` is left out (its cases are indented once more, by the statement's own indent).
_COMPOUND = frozenset({cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With})
_PARTS = frozenset({cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.If})


def _with_kept_statements(st, source: _Input, indent: str):
    """``st`` (a statement of the output printed at ``indent``) with the statements of the input
    that it keeps, at the indentation they had there, replaced by their text; ``st`` itself when
    it keeps none."""
    if type(st) not in _COMPOUND:
        return st
    changes = {}
    for field in ("body", "orelse", "handlers", "finalbody"):
        value = getattr(st, field, None)
        if type(value) is cst.IndentedBlock:
            new = _block_with_kept(value, source, indent)
        elif type(value) in _PARTS:
            new = _with_kept_statements(value, source, indent) if type(value) is cst.If else \
                _part_with_kept(value, source, indent)
        elif field == "handlers" and value:
            new = tuple(_part_with_kept(h, source, indent) for h in value)
            new = value if all(a is b for a, b in zip(new, value)) else new
        else:
            continue
        if new is not value:
            changes[field] = new
    return st.with_changes(**changes) if changes else st


def _part_with_kept(part, source: _Input, indent: str):
    """An ``else``/``finally``/``except`` part with its block's kept statements copied."""
    if type(part.body) is not cst.IndentedBlock:
        return part
    body = _block_with_kept(part.body, source, indent)
    return part if body is part.body else part.with_changes(body=body)


def _block_with_kept(block: cst.IndentedBlock, source: _Input, indent: str) -> cst.IndentedBlock:
    inner = indent + (source.old.default_indent if block.indent is None else block.indent)
    body = None
    for j, st in enumerate(block.body):
        text = source.nested(st, inner)
        new = _Text(text) if text is not None else _with_kept_statements(st, source, inner)
        if new is not st:
            body = list(block.body) if body is None else body
            body[j] = new
    return block if body is None else block.with_changes(body=body)


def _nested_texts(old: cst.Module, firsts: tuple, lines: list[str]) -> dict[int, tuple[int, int, str]]:
    """id(statement) -> (its first line, one past its last line, its indentation) for each
    statement of an indented block of ``old`` but the last one of its block (whose text ends where
    its block's footer begins, which is not counted here), from ``firsts``, the first line of
    every statement in the walk's order. Decorated statements, and the ones before them, are left
    out (ast's line of a decorated statement is its ``def``'s); so is everything when the
    statements do not line up with ``firsts``."""
    found: dict[int, tuple[int, int, str]] = {}
    blocks: list[tuple[list, list[int], str]] = []
    counter = [0]
    _number(old.body, counter, blocks, "", old.default_indent, False)
    if counter[0] != len(firsts):
        return {}
    for body, index, indent in blocks:
        starts = []
        for st, k in zip(body, index):
            line = firsts[k]
            starts.append(None if getattr(st, "decorators", None) or line > len(lines)
                          or not _begins_at(lines[line - 1], indent) else line - len(st.leading_lines))
        for i in range(len(body) - 1):
            a, b = starts[i], starts[i + 1]
            if a is None or b is None or a >= b or a < 2 or lines[a - 2].endswith("\\") or lines[b - 2].endswith("\\"):
                continue
            found[id(body[i])] = (a, b, indent)
    return found


def _begins_at(line: str, indent: str) -> bool:
    return line.startswith(indent) and len(line) > len(indent) and not line[len(indent)].isspace()


def _number(body, counter: list[int], blocks: list, indent: str, default: str, record: bool) -> None:
    """Number the statements of ``body`` (at ``indent``) and of the blocks inside them in the
    order ast's walk meets them (``counter``: the next number); with ``record``, add ``body``,
    the numbers of its statements and ``indent`` to ``blocks``. A simple statement line holds as
    many statements as it has parts (``a = 1; b = 2``)."""
    index = []
    for st in body:
        index.append(counter[0])
        if type(st) is cst.SimpleStatementLine:
            counter[0] += len(st.body)
            continue
        counter[0] += 1
        if type(st) is cst.Match:
            for case in st.cases:
                _number_block(case.body, counter, blocks, None, default)
            continue
        for part in _parts_in_order(st):
            if type(part) is cst.If:  # elif: a statement of its own, in no block of its own
                _number([part], counter, blocks, indent, default, False)
            else:
                _number_block(part, counter, blocks, indent, default)
    if record:
        blocks.append((body, index, indent))


def _number_block(block, counter: list[int], blocks: list, indent: str | None, default: str) -> None:
    """Number the statements of ``block`` (inside a statement at ``indent``; None: not recorded)."""
    if type(block) is not cst.IndentedBlock:  # `if x: a; b`
        counter[0] += len(block.body)
        return
    inner = None if indent is None else indent + (default if block.indent is None else block.indent)
    if inner is None:
        _number(block.body, counter, [], "", default, False)
    else:
        _number(block.body, counter, blocks, inner, default, True)


def _parts_in_order(st):
    """The blocks of compound statement ``st`` (and an ``elif``) in ast's order of its fields."""
    yield st.body
    for h in getattr(st, "handlers", ()):
        yield h.body
    orelse = getattr(st, "orelse", None)
    if orelse is not None:
        yield orelse if type(orelse) is cst.If else orelse.body
    final = getattr(st, "finalbody", None)
    if final is not None:
        yield final.body
