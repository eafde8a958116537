"""What the conversion left behind that does nothing, dropped after the walk.

Rules that remove a device leave two kinds of leftovers:

- ``device = None`` where the value was a device (``device = x.device``, ``torch.device('cuda')``):
  every use of the name that meant something went with the ``.to(device)`` calls and ``device=``
  arguments, so in a function that no longer reads the name the assignment is dead.
- ``pass`` where a statement was removed, and the ``if`` around it: ``if isinstance(k, ms.Tensor):
  pass`` (of ``k = k.cpu()``), ``if use_accel: pass else: pass``.

They go where it can tell they do nothing (the walker asks: :func:`left_if` as it leaves an
``if``, :func:`tidy_function` as it leaves a function that holds a settled assignment):

- a :class:`~migrate.convert.cst.SettledNone` (the walker's mark on an assignment the conversion
  made ``name = None``) inside a function that has no other occurrence of the name at all (no
  read, no other binding, no ``global``/``nonlocal``, no nested function using it) and no call
  of ``locals``/``vars``/``eval``/``exec``; at module or class level it stays (other modules may
  import the name, a class attribute may be read);
- an ``if`` all of whose blocks hold nothing but the conversion's own ``pass``
  (:class:`~migrate.convert.cst.LeftPass`, :class:`~migrate.convert.cst.RemovedPass`) and whose
  tests only read (names, attributes, literals, comparisons, ``isinstance``/``hasattr``-like
  builtins of those); a ``pass`` the user wrote is the user's and keeps its ``if``;
- a block then left empty gets a :class:`~migrate.convert.cst.LeftPass` again, so the statement
  around it is judged the same way, from the inside out.

Comments of what goes stay, above the next statement (:func:`~migrate.convert.cst.removed`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.changes import MARKER_PREFIX
from migrate.convert.cst import (LeftLoop, LeftPass, RemovedPass, SettledNone, children, code_of, fold_removed,
                                 left_pass, removed)
from migrate.convert.folding import plain

# builtins whose call only reads its arguments (given plain arguments)
_READING_BUILTINS = ("isinstance", "issubclass", "hasattr", "callable", "len", "type", "getattr")
# calls that read a function's local names by name
_NAME_READERS = ("locals", "vars", "eval", "exec")


def tidy_function(fn: cst.FunctionDef, shadowed=frozenset()) -> cst.FunctionDef:
    """``fn`` (a function the walk converted, holding a :class:`SettledNone`) without its dead
    settled assignments and the ``if`` statements they leave empty; ``fn`` itself when nothing
    goes. ``shadowed``: builtin names the file binds (their calls may do anything)."""
    dead, loops = _dead_names(fn)
    if not dead and not loops:
        return fn
    return fn.with_changes(body=fn.body.visit(_Tidy(dead, frozenset(shadowed), loops)))


def left_if(node, shadowed=frozenset()) -> bool:
    """Whether the ``if`` statement ``node`` does nothing: every block holds only the
    conversion's ``pass`` lines and its tests only read."""
    return isinstance(node, cst.If) and _left_empty(node) and _tests_read_only(node, shadowed)


def left_loop(old: cst.For, new, shadowed=frozenset()) -> bool:
    """Whether ``new`` (the conversion of the loop ``old``) is a ``for`` loop whose body the
    conversion emptied (only its ``pass`` lines, no marker; ``old``'s body did something), with no
    ``else`` and an iterable that only reads: names, ``range``/``enumerate``/``zip`` of such,
    ``d.keys()``/``values()``/``items()``."""
    return isinstance(new, cst.For) and new.orelse is None and new.asynchronous is None \
        and _only_left_passes(new.body) and not _only_left_passes(old.body) and _reading_iter(new.iter, shadowed)


def _only_left_passes(block) -> bool:
    stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
    return all(isinstance(st, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
               and all(isinstance(s, (LeftPass, RemovedPass)) for s in st.body)
               and MARKER_PREFIX not in code_of(st) for st in stmts)


_ITERATING_BUILTINS = ("range", "enumerate", "zip", "reversed")


def _reading_iter(node, shadowed: frozenset) -> bool:
    if isinstance(node, cst.Call) and not any(a.star or a.keyword for a in node.args):
        f = node.func
        if isinstance(f, cst.Name) and f.value in _ITERATING_BUILTINS and f.value not in shadowed:
            return all(_reading_iter(a.value, shadowed) for a in node.args)
        if isinstance(f, cst.Attribute) and f.attr.value in ("keys", "values", "items") and not node.args:
            return plain(f.value)
    return reads_only(node, shadowed)


def name_occurrences(node) -> dict[str, int]:
    """How often each name occurs in ``node`` as a name (not as an attribute or a keyword):
    reads and bindings alike, nested functions included; the names :data:`_NAME_READERS` among
    them. A walk of the code fields (a libcst visitor rebuilt every node it passed)."""
    count: dict[str, int] = {}
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is _Name:
            count[n.value] = count.get(n.value, 0) + 1
        elif t is _Attribute or t is _Arg:  # `a.b`: only `a` is a name; `f(k=v)`: only `v` holds names
            stack.append(n.value)
        else:
            stack.extend(children(n))
    return count


_Name, _Attribute, _Arg = cst.Name, cst.Attribute, cst.Arg


class _Tidy(cst.CSTTransformer):
    """The dead settled assignments of one function removed, and what that empties."""

    def __init__(self, dead: set[str], shadowed: frozenset, loops=frozenset()):
        self.dead, self.shadowed, self.loops = dead, shadowed, loops
        self.emptied = 0  # statements removed so far: a block whose count moved is folded
        self._counts: list[int] = []

    # the marks are subclasses, which libcst rebuilds as their base class: kept as they were
    def leave_SettledNone(self, original, updated):
        return original

    def leave_LeftPass(self, original, updated):
        return original

    def leave_RemovedPass(self, original, updated):
        return original

    def leave_LeftLoop(self, original, updated):
        if id(original) not in self.loops:
            return original
        self.emptied += 1
        kept = removed(original)
        return cst.FlattenSentinel(kept) if kept else cst.RemovalSentinel.REMOVE

    def _keep(self, body) -> list:
        return [s for s in body if not (isinstance(s, SettledNone) and s.targets[0].target.value in self.dead)]

    def leave_SimpleStatementLine(self, original, updated):
        keep = self._keep(updated.body)
        if len(keep) == len(updated.body):
            return updated
        self.emptied += 1
        if not keep:
            kept = removed(updated)
            return cst.FlattenSentinel(kept) if kept else cst.RemovalSentinel.REMOVE
        keep[-1] = keep[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(body=keep)

    def leave_SimpleStatementSuite(self, original, updated):
        keep = self._keep(updated.body)
        if len(keep) == len(updated.body):
            return updated
        self.emptied += 1
        keep = keep or [LeftPass()]
        keep[-1] = keep[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(body=keep)

    def visit_IndentedBlock(self, node) -> None:
        self._counts.append(self.emptied)

    def leave_IndentedBlock(self, original, updated):
        if self._counts.pop() == self.emptied:
            return updated
        body, left = fold_removed(list(updated.body))
        if body and not original.body[0].leading_lines:  # the first statements went: no blank line opens the block
            lines = list(body[0].leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body[0] = body[0].with_changes(leading_lines=lines)
        new = updated.with_changes(body=body or [left_pass()])
        return new.with_changes(footer=[*left, *new.footer]) if left else new

    def leave_If(self, original, updated):
        if not left_if(updated, self.shadowed):
            return updated
        self.emptied += 1
        kept = removed(updated)
        return cst.FlattenSentinel(kept) if kept else cst.RemovalSentinel.REMOVE


def _dead_names(fn: cst.FunctionDef) -> tuple[set[str], set[int]]:
    """The names of the settled assignments in ``fn`` (nested functions included) that nothing
    else in ``fn`` mentions, and the ids of the left loops whose names nothing outside the loop
    mentions."""
    settled, loops = [], []
    stack = [fn]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is SettledNone:
            settled.append(n.targets[0].target.value)
        elif t is LeftLoop:
            loops.append(n)
        stack.extend(children(n))
    if not settled and not loops:
        return set(), set()
    occurrences = name_occurrences(fn)
    if any(occurrences.get(n) for n in _NAME_READERS):
        return set(), set()
    mine: dict[str, int] = {}
    for name in settled:
        mine[name] = mine.get(name, 0) + 1
    dead_loops = set()
    for loop in loops:
        inside = name_occurrences(loop)
        if all(occurrences.get(n, 0) == inside.get(n, 0) for n in name_occurrences(loop.target)):
            dead_loops.add(id(loop))
    return {name for name, n in mine.items() if occurrences.get(name, 0) == n}, dead_loops


def _tests_read_only(node: cst.If, shadowed: frozenset) -> bool:
    while isinstance(node, cst.If):
        if not reads_only(node.test, shadowed):
            return False
        node = node.orelse
    return True


def _left_empty(node) -> bool:
    """Every block of the ``if`` (its ``elif``/``else`` too) holds only the conversion's ``pass``
    lines, and no marker."""
    parts = []
    while isinstance(node, cst.If):
        parts.append(node.body)
        node = node.orelse
    if node is not None:
        parts.append(node.body)
    for block in parts:
        stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for st in stmts:
            small = st.body if isinstance(st, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
            if small is None or not all(isinstance(s, (LeftPass, RemovedPass)) for s in small):
                return False
            if MARKER_PREFIX in code_of(st):
                return False
    return True


def same_branches(old: cst.IfExp, body, orelse) -> bool:
    """Whether the conversion made the branches of the conditional expression ``old`` the same
    (``body`` and ``orelse``: its branches converted); branches the user wrote the same stay."""
    return _bare(body) == _bare(orelse) and _bare(old.body) != _bare(old.orelse)


def same_blocks(old: cst.If, new, shadowed=frozenset()):
    """The ``else`` block of ``new`` (the conversion of the ``if`` statement ``old``), which does
    what any block would: the conversion made every block of the chain the same (``if use_accel: device =
    None`` / ``else: device = None``), the chain ends in ``else`` and its tests only read. None
    otherwise; blocks the user wrote the same stay as written."""
    new_blocks, tests = _chain(new)
    old_blocks, _ = _chain(old)
    if new_blocks is None or old_blocks is None or _same_objects(new_blocks, old_blocks) \
            or not all(reads_only(t, shadowed) for t in tests):
        return None  # (blocks the conversion kept as they were cannot have become the same)
    if len({_block_code(b) for b in new_blocks}) != 1 or len({_block_code(b) for b in old_blocks}) == 1:
        return None
    return new_blocks[-1]  # the else block: the comments of those above it come first


def _same_objects(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _chain(node) -> tuple[list | None, list]:
    """The blocks of an ``if``/``elif``/``else`` chain and its tests; no blocks without a final
    ``else`` (then no block runs whatever the tests say)."""
    blocks, tests = [], []
    while isinstance(node, cst.If):
        blocks.append(node.body)
        tests.append(node.test)
        node = node.orelse
    if not isinstance(node, cst.Else):
        return None, tests
    return [*blocks, node.body], tests


def _block_code(block) -> str:
    """A block's statements as text, without the lines above each (their comments differ, the
    code is what must be the same)."""
    if isinstance(block, cst.SimpleStatementSuite):
        return code_of(cst.SimpleStatementLine(list(block.body)))
    return "".join(code_of(s.with_changes(leading_lines=[])) for s in block.body)


def _bare(node) -> str:
    if isinstance(node, cst.Tuple) and not node.elements:
        return code_of(node)  # `()` is its parentheses
    return code_of(node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node)


def reads_only(test, shadowed: frozenset) -> bool:
    """A test whose evaluation only reads: :func:`~migrate.convert.folding.plain`, calls of the
    reading builtins with such arguments, and ``x in [a, b]`` of literal lists, tuples and sets."""
    if plain(test):
        return True
    if isinstance(test, cst.Call):
        return isinstance(test.func, cst.Name) and test.func.value in _READING_BUILTINS \
            and test.func.value not in shadowed \
            and all(not a.star and reads_only(a.value, shadowed) for a in test.args)
    if isinstance(test, (cst.List, cst.Tuple, cst.Set)):
        return all(isinstance(e, cst.Element) and reads_only(e.value, shadowed) for e in test.elements)
    if isinstance(test, cst.UnaryOperation):
        return isinstance(test.operator, cst.Not) and reads_only(test.expression, shadowed)
    if isinstance(test, cst.BooleanOperation):
        return reads_only(test.left, shadowed) and reads_only(test.right, shadowed)
    if isinstance(test, cst.Comparison):
        return reads_only(test.left, shadowed) and all(reads_only(c.comparator, shadowed) for c in test.comparisons)
    return False
