"""How much of real code an `ast` pre-scan could keep away from libcst, losslessly, and what it costs.

The idea (bench/README, "Past PaConvert per core"): CPython's `ast` reads a file ~8x faster than
libcst; the bodies of functions and classes that hold nothing any rule acts on could be replaced by
a placeholder of the same number of lines (a string literal: line numbers, and the report, stay as
they were), the smaller text converted, and the bodies' text put back in the output.

A body is left to libcst when any of these holds anywhere in its definition (decorators, header,
body), which is what keeping the output byte-identical takes:

- an identifier a table or rule acts on: attribute, keyword and definition names are matched
  against every method and attribute name of the mapping tables and the rules' words (the
  pattern of the walk's statement filter, `walker._rule_words`, derived from the tables, so a new
  rule's words are in it); plain names against the rules' names (`walker._RULE_WORDS`);
- a name bound to something of torch's: a torch alias, a name imported from anything but the
  standard library (what it is, is known to the package pre-pass only), a name the file's
  top-level code that needs the converter binds (classes, functions, values), an attribute or a
  module-level name assigned a value that needs it (`self.conv = nn.Conv2d(...)`), a name
  inherited from the package;
- a string (docstrings aside) in which the statement filter finds anything, an import, a lambda,
  a shift operator, an in-place (`name_`) identifier; for MindSpore, complex numbers and `, :]`;
- a binding of a builtin or of a name the converter may choose for the target's modules (the
  clash check reads every binding of the file);
- a definition's own name that a rule reads (`forward`, `__init__`: a Cell's), unless its class
  derives from plain Python classes only;
- a method of a class with any base but a builtin (a Cell, an autograd Function: their rules
  read the class as a whole);
- and for the whole file: any `import *`, a line continuation, the placeholder's text, anything
  that makes the training pass run (its rules read whole functions).

    python bench/prescan_reach.py DIR... [--target ms_core] [--verify]

prints the lines kept, the decision's CPU time against libcst's parse of the same files, the reach
with each criterion relaxed (what blocks it), and with --verify converts every file both ways
(`convert_source` against the placeholder conversion) and counts the differences.
Not part of the test suite.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402

from migrate import convert_source  # noqa: E402
from migrate.convert import walker  # noqa: E402
from migrate.convert.builtin_names import BUILTINS  # noqa: E402
from migrate.convert.cst import code_of  # noqa: E402
from migrate.convert.training.driver import _TRIGGERS  # noqa: E402

# what makes the training pass (the pass before the walk) look at a file: its own textual filter
PASS_TRIGGERS = (*_TRIGGERS, "named_parameters", "named_buffers", "parameters():")

PLACEHOLDER = "migrate-kept-body:"
# names the converter may give the target's modules, or generated code reads (names.choose_names)
_TARGET_NAMES = frozenset({"ms", "nn", "ops", "math", "np", "init", "_builtins", "builtins", "torch",
                           "ms_core", "ms_core_", "mindspore", "mindspore_", "ms_nn", "ms_nn_", "ms_ops", "ms_ops_",
                           "py_math", "py_math_", "numpy_np", "numpy_np_", "ms_init", "ms_init_", "_builtins_",
                           "_py_builtins"})
_NUMBERED = re.compile(r"(?:ms|nn|ops|math|np|init|builtins)_\d+")
_STDLIB = frozenset(sys.stdlib_module_names) - {"__future__"}
_OTHER_LINE_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"
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
    if any(c in code for c in _OTHER_LINE_BREAKS):
        return None  # str.splitlines would split where the ast counts no line
    if any(t in code for t in PASS_TRIGGERS):
        return None  # the training pass runs: its rules read whole functions (`os.environ["WORLD_SIZE"]`)
    live = _imported_names(tree)
    if live is None:
        return None  # a star import: any name may be torch's
    live |= set(inherited)
    check = _Words(words, rule_names, text_filter, live, mindspore)
    lines = code.splitlines(keepends=True)
    _settle_top_level(tree, check)
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
    return name in BUILTINS or name in _TARGET_NAMES or _NUMBERED.fullmatch(name) is not None


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
            if isinstance(st, ast.ClassDef) and not any(_needs_converter(b, check) or _imports_name(b, check)
                                                         for b in (*st.bases, *st.keywords)):
                # a class of torch's kind (a Cell, an autograd Function: its backward's return
                # becomes bprop's tuple) is converted as a whole; a plain class method by method
                _collect(st.body, check, lines, spans, plain_class=True)
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


# ---- the conversion through placeholders (what the converter would do) ------------------------

def convert_reduced(code: str, target: str) -> "walker.ConvertResult | None":
    """The conversion of ``code`` with the bodies that need no change kept away from libcst, or
    None where that does not apply or a check fails (the converter would convert the whole text)."""
    head, tail = walker.split_comment_tail(code)
    if "torch" not in head or tail:
        return None
    try:
        tree = ast.parse(head)
    except (SyntaxError, ValueError, RecursionError):
        return None
    reduced = reduce_source(head, tree, walker._rule_words(target), walker._RULE_WORDS,
                            walker._interesting(tuple(sorted(torch_imports(tree))), target), (),
                            target == "mindspore")
    if reduced is None:
        return None
    result = walker.Converter(target).convert(reduced.code)
    if result.error:
        return None
    out = restore(result.code, reduced)
    if out is None or any(_shows_placeholder(change) for change in result.changes):
        return None
    result.code = out
    return result


def torch_imports(tree: ast.Module) -> set:
    """Names the file's imports of torch (and the packages converted with it) bind."""
    roots = walker.ROOTS
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in roots:
            out.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in roots)
    return out


def _shows_placeholder(change) -> bool:
    """A change whose snippet is a statement that may hold a kept body's placeholder."""
    return any(not isinstance(part, (str, cst.BaseExpression, cst.SimpleStatementLine, cst.BaseSmallStatement))
               and PLACEHOLDER in _snippet_text(part) for part in (change._before, change._after))


def _snippet_text(part) -> str:
    if isinstance(part, (list, tuple)):
        return "".join(map(_snippet_text, part))
    return code_of(part) if isinstance(part, cst.CSTNode) else str(part or "")


# ---- measuring ----------------------------------------------------------------------------------

def reach(texts: list[str], target: str) -> tuple[int, int, float]:
    """(lines kept, lines, CPU seconds of the decisions: ast.parse and the scan)."""
    total = kept = 0
    spent = 0.0
    for code in texts:
        total += code.count("\n")
        if "torch" not in code:
            continue
        t0 = time.process_time()
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError):
            continue
        found = reduce_source(code, tree, walker._rule_words(target), walker._RULE_WORDS,
                              walker._interesting(tuple(sorted(torch_imports(tree))), target), (),
                              target == "mindspore")
        spent += time.process_time() - t0
        if found is not None:
            kept += sum(body.count("\n") + 1 for _, body in found.bodies)
    return kept, total, spent


def statement_reach(texts: list[str], target: str) -> tuple[int, int]:
    """(lines of simple statements in which the walk's statement filter finds nothing, lines):
    what a pre-scan at the level of single statements could keep away from libcst at most (the
    walk still reads such statements for what they bind: not built, an upper bound)."""
    total = quiet = 0
    for code in texts:
        total += code.count("\n")
        if "torch" not in code:
            continue
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError):
            continue
        pattern = walker._interesting(tuple(sorted(torch_imports(tree))), target)
        lines = code.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not hasattr(node, "body"):
                text = "\n".join(lines[node.lineno - 1:node.end_lineno])
                if pattern.search(text) is None:
                    quiet += node.end_lineno - node.lineno + 1
    return quiet, total


def relaxed(texts: list[str], target: str) -> None:
    """The reach with the criteria relaxed one after the other (each on top of the ones before):
    what stands in the way. The relaxed decisions are not safe: they only measure."""
    imported, first = _imported_names, first_hit
    hit = _Words.hit
    steps = (
        ("names imported from other packages not live",
         lambda: globals().update(_imported_names=lambda tree: imported(tree) and torch_imports(tree))),
        ("definitions' own names ignored (__init__, forward)",
         lambda: globals().update(first_hit=lambda node, check, own_name=True: first(node, check, False))),
        ("attribute and keyword words ignored (torch aliases only)",
         lambda: setattr(_Words, "hit", lambda self, name: False)),
    )
    try:
        for label, relax in steps:
            relax()
            kept, total, _ = reach(texts, target)
            print(f"  + {label}: {kept} of {total} lines ({kept / total:.1%})")
    finally:
        globals().update(_imported_names=imported, first_hit=first)
        _Words.hit = hit


def verify(texts: list[str], target: str, paths=None) -> tuple[int, int, int]:
    """(conversions through placeholders, of them different from convert_source's, fallen back);
    prints the paths of the ones that differ."""
    done = differ = fell_back = 0
    for i, code in enumerate(texts):
        result = convert_reduced(code, target)
        if result is None:
            fell_back += 1
            continue
        full = convert_source(code, target)
        done += 1
        same = (result.code, result.error, sorted(result.runtime or ())) == (full.code, full.error,
                                                                            sorted(full.runtime or ())) \
            and [(c.line, c.rule, c.label, c.before, c.after, c.note) for c in result.changes] \
            == [(c.line, c.rule, c.label, c.before, c.after, c.note) for c in full.changes]
        differ += not same
        if not same:
            print(f"  differs: {paths[i] if paths else i}")
    return done, differ, fell_back


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", help="directories (or files) of Python code")
    ap.add_argument("--target", default="ms_core", choices=("ms_core", "mindspore"))
    ap.add_argument("--verify", action="store_true", help="convert every file both ways and compare")
    args = ap.parse_args(argv)
    paths = [p for d in map(Path, args.dirs) for p in (sorted(d.rglob("*.py")) if d.is_dir() else [d])]
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in paths]
    convert_source(texts[0], args.target)  # (the tables and patterns loaded)
    kept, total, spent = reach(texts, args.target)
    t0 = time.process_time()
    for code in texts:
        if "torch" in code:
            try:
                cst.parse_module(code)
            except cst.ParserSyntaxError:
                pass
    parse = time.process_time() - t0
    print(f"{len(paths)} files, {total} lines: bodies kept away from libcst: {kept} lines ({kept / total:.1%})")
    print(f"  decisions (ast.parse + the scan): {spent:.2f} s CPU; libcst's parse of the same files: {parse:.2f} s"
          f" ({spent / parse:.0%} of it)")
    relaxed(texts, args.target)
    quiet, _ = statement_reach(texts, args.target)
    print(f"  simple statements (any depth) in which the walk's filter finds nothing: {quiet} lines"
          f" ({quiet / total:.1%}; an upper bound for a statement-level pre-scan, not built)")
    if args.verify:
        done, differ, fell_back = verify(texts, args.target, paths)
        print(f"  verify: {done} conversions through placeholders, {differ} differ from convert_source's;"
              f" {fell_back} files converted whole (nothing kept, or a check declined)")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
