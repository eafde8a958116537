"""Function and class bodies that need no change kept away from libcst.

libcst's parse, the walk and the printing cost far more per line than CPython's ``ast``. Before a
conversion, the ``ast`` of the input finds the bodies of functions and classes (at any depth
outside functions that need a change) that hold nothing any rule acts on; each is replaced by a
one-statement placeholder of the same number of lines (a string literal, so line numbers, and with
them the report, stay as they were), the smaller text is converted, and the bodies' text is put
back where the placeholders are in the output. Where any check fails the caller converts the whole
text as before: the fast path may only decline, never change the output.

A body is left to libcst when any of these holds anywhere in its definition (decorators, header,
body):

- an identifier (name, attribute, keyword, parameter, definition's name) that a table or rule
  acts on: every method and attribute name of the mapping tables and the rules' words (the
  pattern the walk's statement filter uses, :func:`walker._rule_words`, derived from the tables);
- a name bound to something of torch's: a torch alias, a name imported from anything but the
  standard library, a name the file's changed top-level code binds (classes, functions, values),
  an attribute its changed classes set, a name inherited from the package (star imports,
  re-exported torch names, module classes of other files);
- a string in which the statement filter finds anything, an import, a shift operator, an
  in-place (``name_``) identifier; for MindSpore, complex numbers and ``, :]`` slices;
- a binding of a builtin or of a name the converter may choose for the target's modules (the
  clash check reads every binding of the file);
- any ``import *`` in the file, or the placeholder's text in the input, turns the fast path off.
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

from migrate.convert.builtin_names import BUILTINS

PLACEHOLDER = "migrate-kept-body:"
ENABLED = True  # False: every conversion parses the whole text (bench/tests compare the two)
# names the converter may give the target's modules, or generated code reads (names.choose_names)
_TARGET_PREFIXES = ("ms", "nn", "ops", "math", "py_math", "np", "numpy", "init", "_builtins", "_py_builtins",
                    "mindspore", "builtins", "torch")
_NUMBERED = re.compile(r"\w+_\d+")
_STDLIB = frozenset(sys.stdlib_module_names) - {"__future__"}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody", "handlers")


@dataclass
class Reduced:
    """The text to convert (``code``) and, per placeholder, its text and the body it stands for."""

    code: str
    bodies: list  # (placeholder text as written in ``code``, the body's original text)


class _Words:
    """What makes a definition need the converter (see the module's docstring)."""

    def __init__(self, words: "re.Pattern", rule_names, text_filter, live_names: set, mindspore: bool):
        self.words, self.rule_names, self.text_filter = words, frozenset(rule_names), text_filter
        self.names, self.mindspore = live_names, mindspore

    def hit(self, name: str) -> bool:
        """An attribute, keyword, parameter or definition's name a rule may act on."""
        return name.endswith("_") or self.words.fullmatch(name) is not None

    def hit_name(self, name: str) -> bool:
        """A name read or bound a rule may act on: one bound to something of torch's, or one the
        rules look for (the tables' method names are attributes: ``int`` alone is Python's)."""
        return name in self.names or name in self.rule_names or name.endswith("_")


def reduce_source(code: str, tree: ast.Module, words: "re.Pattern", rule_names, text_filter, inherited=(),
                  mindspore: bool = False) -> Reduced | None:
    """``code`` with the bodies that need no change replaced by placeholders; None when there is
    none (or the fast path does not apply to this file). ``tree``: ``ast.parse(code)``;
    ``words``: the tables' and rules' words; ``rule_names``: the names (not attributes) the rules
    look for; ``text_filter``: the walk's statement filter for
    this file (its ``search`` finds what a rule could act on in a text)."""
    if PLACEHOLDER in code or "\\\n" in code or "\\\r" in code:
        return None  # (a line continuation could hide where a body ends)
    live = _imported_names(tree)
    if live is None:
        return None  # a star import: any name may be torch's
    live |= set(inherited)
    check = _Words(words, rule_names, text_filter, live, mindspore)
    _settle_top_level(tree, check)
    lines = code.splitlines(keepends=True)
    spans = []
    _collect(tree.body, check, lines, spans)
    if not spans:
        return None
    return _replace(lines, spans)


def restore(out: str, reduced: Reduced) -> str | None:
    """``out`` (the conversion of ``reduced.code``) with the bodies' text back; None when a
    placeholder is not found exactly once, or not as written (re-indented, changed)."""
    for placeholder, body in reduced.bodies:
        at = out.find(placeholder)
        if at < 0 or out.find(placeholder, at + 1) >= 0 or (at and out[at - 1] not in "\r\n"):
            return None
        out = out[:at] + body + out[at + len(placeholder):]
    return out


def _imported_names(tree: ast.Module) -> set | None:
    """Names bound by imports of anything but the standard library (at any depth); None when the
    file has a star import."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if any(a.name == "*" for a in node.names):
                return None
            std = node.level == 0 and (node.module or "").split(".")[0] in _STDLIB
            out.update(a.asname or a.name for a in node.names if not std)
        elif isinstance(node, ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in node.names
                       if a.name.split(".")[0] not in _STDLIB)
    return out


def _settle_top_level(tree: ast.Module, check: _Words) -> None:
    """Add to ``check.names`` what the top-level statements that need the converter bind, until
    nothing more is added: a statement that reads one of them needs the converter too."""
    live, rest = [], [st for st in tree.body if not isinstance(st, (ast.Import, ast.ImportFrom))]
    while True:
        live.extend(st for st in rest if _needs_converter(st, check))
        rest = [st for st in rest if not any(st is s for s in live)]
        before = len(check.names)
        for st in live:
            _add_bindings(st, check)
        if len(check.names) == before or not rest:
            return


def _add_bindings(st: ast.stmt, check: _Words) -> None:
    """The names a top-level statement binds at the top level (assignments, definitions,
    imports), and, at any depth, the names and attributes it assigns a value a rule could act
    on (``self.conv = nn.Conv2d(...)``, ``h = torch.relu(x)``)."""
    names = check.names
    for node in _outside_functions(st):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, _DEFS):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    _add_assigned(st, check, in_function=isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _add_assigned(node: ast.AST, check: _Words, in_function: bool) -> None:
    """Add the attributes, and outside functions the names, that ``node`` and what is under it
    assign a value a rule could act on (a function's own names do not reach its siblings)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and child.value is not None \
                and _needs_converter(child.value, check):
            for target in (child.targets if isinstance(child, ast.Assign) else [child.target]):
                _add_target(target, check.names, in_function)
        _add_assigned(child, check, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                      ast.Lambda)))


def _add_target(target: ast.AST, names: set, in_function: bool) -> None:
    if isinstance(target, ast.Attribute):
        names.add(target.attr)
    elif isinstance(target, ast.Name):
        if not in_function:
            names.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _add_target(element, names, in_function)
    elif isinstance(target, ast.Starred):
        _add_target(target.value, names, in_function)


def _outside_functions(st: ast.stmt):
    """The nodes of ``st`` that are not inside a function or class body below it (what binds
    names in ``st``'s own scope)."""
    todo = [st]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, _DEFS) and node is not st or isinstance(node, (ast.Lambda, ast.comprehension)):
            continue
        if isinstance(node, _DEFS):
            todo.extend(node.decorator_list)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _needs_converter(node: ast.AST, check: _Words) -> bool:
    """Anything in ``node`` (a statement, with everything under it) a rule could act on."""
    return first_hit(node, check) is not None


def first_hit(node: ast.AST, check: _Words, own_name: bool = True) -> ast.AST | None:
    """The first node in ``node`` (with everything under it) a rule could act on, or None.
    ``own_name``: False for a method of a class whose bases are all plain Python's (nothing of
    torch's, nothing imported), whose methods' names mean nothing to the rules."""
    for n in _code_nodes(node):
        t = type(n)
        if t is ast.Name:
            if check.hit_name(n.id) or (not isinstance(n.ctx, ast.Load) and _reserved(n.id)):
                return n
        elif t is ast.Attribute:
            if check.hit(n.attr) or n.attr in check.names:
                return n
        elif t is ast.Constant:
            v = n.value
            if isinstance(v, str) and check.text_filter.search(v) is not None or isinstance(v, bytes) \
                    or check.mindspore and isinstance(v, complex):
                return n
        elif t is ast.keyword:
            if n.arg is not None and (check.hit(n.arg) or n.arg == "value"):
                return n
        elif t is ast.arg:  # (a parameter's name is the function's own: only its binding counts)
            if _reserved(n.arg):
                return n
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if (own_name or n is not node) and check.hit(n.name) or _reserved(n.name):
                return n
        elif t in (ast.BinOp, ast.AugAssign):
            if type(n.op) in (ast.RShift, ast.LShift):
                return n
        elif t in (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Lambda):
            return n
        elif t in (ast.ExceptHandler,):
            if n.name is not None and (check.hit(n.name) or _reserved(n.name)):
                return n
        elif t is ast.Subscript and check.mindspore:
            s = n.slice
            if type(s) is ast.Tuple and any(type(e) is ast.Slice or type(e) is ast.Constant and e.value is Ellipsis
                                            for e in s.elts):
                return n
        elif t is ast.MatchAs or t is ast.MatchStar or t is ast.MatchMapping:
            return n
    return None


def _code_nodes(node: ast.AST):
    """``ast.walk(node)`` without the strings that stand alone as statements (docstrings: no rule
    reads them)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if type(child) is ast.Expr and type(child.value) is ast.Constant and type(child.value.value) is str:
                continue
            todo.append(child)


def _reserved(name: str) -> bool:
    """A name whose binding the converter reads across the file: a builtin, or a name it may give
    the target's modules."""
    return name in BUILTINS or name.startswith(_TARGET_PREFIXES) or _NUMBERED.fullmatch(name) is not None


def _collect(body: list, check: _Words, lines: list, spans: list, plain_class: bool = False) -> None:
    """(first line, last line, indentation) of each body under ``body`` (outside functions that
    need the converter) that can be kept as written. ``plain_class``: ``body`` is the body of a
    class whose bases are plain Python's."""
    for st in body:
        if isinstance(st, _DEFS):
            if first_hit(st, check, own_name=not plain_class) is None:
                span = _body_span(st, lines)
                if span is not None:
                    spans.append(span)
                continue
            if isinstance(st, ast.ClassDef):
                plain = not any(_needs_converter(b, check) or _imports_name(b, check) for b in (*st.bases, *st.keywords))
                _collect(st.body, check, lines, spans, plain)
            continue
        for field in _BLOCKS:
            inner = getattr(st, field, None)
            if inner:
                _collect(inner, check, lines, spans)


def _imports_name(node: ast.AST, check: _Words) -> bool:
    """``node`` names anything but a builtin (a class of this file or one imported)."""
    return any(type(n) is ast.Name and n.id not in BUILTINS for n in ast.walk(node))


def _body_span(st, lines: list) -> tuple | None:
    """The lines of ``st``'s body when it starts on a line of its own (after the header's)."""
    first = st.body[0]
    start = first.lineno
    if first.col_offset == 0:
        return None
    prefix = lines[start - 1].encode("utf-8")[:first.col_offset]
    if prefix.strip() or not prefix.isascii():
        return None  # the body starts on the header's line (`def f(): return 1`)
    end = st.end_lineno
    if end > len(lines) or not lines[end - 1].rstrip("\r\n").strip():
        return None
    return start, end, prefix.decode()


def _replace(lines: list, spans: list) -> Reduced:
    out, bodies, at = [], [], 0
    for n, (start, end, indent) in enumerate(spans):
        out.extend(lines[at:start - 1])
        body = lines[start - 1:end]
        ending = body[-1][len(body[-1].rstrip("\r\n")):]
        mid = "".join(ln[len(ln.rstrip("\r\n")):] for ln in body[:-1])
        placeholder = f"{indent}'''{PLACEHOLDER}{n}{mid}'''"
        out.append(placeholder + ending)
        bodies.append((placeholder, "".join(body)[:len("".join(body)) - len(ending)]))
        at = end
    out.extend(lines[at:])
    return Reduced("".join(out), bodies)
