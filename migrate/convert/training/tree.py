"""Tree helpers of the training pass: names read and bound, statement paths, identity-preserving
edits, and the input line of every statement across those edits.

Plain recursive scans and rebuilds: libcst's visitors rebuild every node they pass, which would
cost more than the pass itself and lose the statements' identity (the main walk's line numbers
are keyed by it).

A *path* leads from a scope's statement list to one statement: ``[(index, field), ...,
(index, None)]``, where ``field`` names the block of the statement at ``index`` to descend into
(``body``, ``orelse``, ``elif``, ``finalbody``, ``h0`` for the first ``except``...).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.changes import MARKER_PREFIX, marker_line, marker_text
from migrate.convert.comments import lost_comment_lines
from migrate.convert.cst import children, dotted, left_pass, method_call, removed, short


class Refuse(Exception):
    """The training step cannot be rewritten safely: (rule ID, what the person must do)."""

    def __init__(self, rule_id: str, reason: str):
        reason = short(reason, 240)  # one line: it becomes a comment
        super().__init__(reason)
        self.rule_id = rule_id
        self.reason = reason


# --------------------------------------------------------------------------------------------
# names read and bound
# --------------------------------------------------------------------------------------------
class Names:
    """Names a piece of code reads and binds (comprehension/lambda variables excluded), plus the
    attributes and calls in it and whether it leaves its block (return, break, yield...)."""

    def __init__(self):
        self.reads: list[str] = []
        self.writes: list[str] = []
        self.attr_writes: list[str] = []  # dotted attribute targets (self.loss = ...)
        self.local: set[str] = set()
        self.attrs: list[cst.Attribute] = []
        self.calls: list[cst.Call] = []
        self.flow = False
        self.skip: set[int] = set()

    @classmethod
    def of(cls, node, skip=()) -> "Names":
        """Scan ``node`` (or a list of nodes), skipping the nodes whose ids are in ``skip``."""
        v = cls()
        v.skip = set(skip)
        for n in node if isinstance(node, (list, tuple)) else (node,):
            v.scan(n)
        v.reads = [r for r in v.reads if r not in v.local]
        return v

    @classmethod
    def bound_by(cls, target) -> list[str]:
        """The names an assignment to ``target`` (an AssignTarget or an expression) binds."""
        if not isinstance(target, cst.AssignTarget):
            target = cst.AssignTarget(target)
        return cls.of(cst.Assign([target], cst.Name("_"))).writes

    def _bind(self, target) -> None:
        if isinstance(target, cst.Name):
            self.writes.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._bind(e.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)
        else:
            if isinstance(target, cst.Attribute) and dotted(target) is not None:
                self.attr_writes.append(dotted(target))
            self.scan(target)  # x.a = ..., x[i] = ...: x is read

    def scan(self, node) -> None:
        """Add what ``node`` reads, binds and calls."""
        if id(node) in self.skip:
            return
        t = type(node)
        if t is cst.Name:
            self.reads.append(node.value)
        elif t is cst.Attribute:
            self.attrs.append(node)
            self.scan(node.value)
        elif t is cst.Call:
            self.calls.append(node)
            self.scan(node.func)
            for a in node.args:
                self.scan(a.value)
        elif t is cst.Arg:
            self.scan(node.value)
        elif t in _BINDERS:
            _BINDERS[t](self, node)
        elif t in (cst.FunctionDef, cst.ClassDef):
            self.writes.append(node.name.value)  # its body is its own scope
        else:
            if t in (cst.Return, cst.Break, cst.Continue, cst.Yield, cst.Global, cst.Nonlocal):
                self.flow = True
            for c in children(node):
                self.scan(c)

    def _assign(self, node) -> None:
        self.scan(node.value)
        for tg in node.targets:
            self._bind(tg.target)

    def _ann_assign(self, node) -> None:
        if node.value is not None:
            self.scan(node.value)
        self._bind(node.target)

    def _aug_assign(self, node) -> None:
        self.scan(node.value)
        self.scan(node.target)
        self._bind(node.target)

    def _for(self, node) -> None:
        self.scan(node.iter)
        self._bind(node.target)
        self.scan(node.body)
        if node.orelse is not None:
            self.scan(node.orelse)

    def _with_item(self, node) -> None:
        self.scan(node.item)
        if node.asname is not None:
            self._bind(node.asname.name)

    def _named_expr(self, node) -> None:
        self.scan(node.value)
        self._bind(node.target)

    def _comp_for(self, node) -> None:
        inner = Names.of(node.target)
        self.local.update(inner.writes, inner.reads)
        self.scan(node.iter)
        for c in node.ifs:
            self.scan(c)
        if node.inner_for_in is not None:
            self.scan(node.inner_for_in)

    def _lambda(self, node) -> None:
        for p in node.params.params:
            self.local.add(p.name.value)
        self.scan(node.body)


# the nodes that bind names, each with its scan
_BINDERS = {
    cst.Assign: Names._assign, cst.AnnAssign: Names._ann_assign, cst.AugAssign: Names._aug_assign,
    cst.For: Names._for, cst.WithItem: Names._with_item, cst.NamedExpr: Names._named_expr,
    cst.CompFor: Names._comp_for, cst.Lambda: Names._lambda,
}


def free_reads(stmts, bound=None, out=None) -> list[str]:
    """Names the statements read before binding them (in order, no duplicates)."""
    bound = set() if bound is None else bound
    out = [] if out is None else out
    for st in stmts:
        sub_blocks = blocks(st) if isinstance(st, (cst.With, cst.If, cst.For, cst.While, cst.Try)) else []
        if not sub_blocks:
            n = Names.of(st)
            out.extend(r for r in dict.fromkeys(n.reads) if r not in bound and r not in out)
            bound.update(n.writes)
            continue
        # the header (with-items, test, iterable, loop target), then each block in order
        header = Names.of(_header_nodes(st))
        out.extend(r for r in dict.fromkeys(header.reads) if r not in bound and r not in out)
        bound.update(header.writes)
        before = set(bound)
        for _, sub in sub_blocks:
            inner = set(before)
            free_reads(sub, inner, out)
            bound.update(inner)
    return out


def _header_nodes(st) -> list:
    if isinstance(st, cst.With):
        return list(st.items)
    if isinstance(st, (cst.If, cst.While)):
        return [st.test]
    if isinstance(st, cst.For):
        return [cst.Assign([cst.AssignTarget(st.target)], st.iter)]
    return []


def scope_names(body) -> set[str]:
    """Every name a scope's statements read or bind (generated names must avoid them)."""
    n = Names.of(list(body))
    return set(n.reads) | set(n.writes) | n.local


def called_names(stmts) -> set[str]:
    """Plain names the statements call (``f(x)``, not ``m.f(x)``)."""
    return {c.func.value for c in Names.of(list(stmts)).calls if isinstance(c.func, cst.Name)}


_GRAD_MODULES = {"ms", "ms_core", "mindspore", "autograd", "torch.autograd"}


def reads_grad(stmts) -> bool:
    """True when the statements touch ``<tensor>.grad`` (not ``ms.grad`` / ``torch.autograd.grad``)."""
    return any(a.attr.value == "grad" and dotted(a.value) not in _GRAD_MODULES
               for a in Names.of(list(stmts)).attrs)


def unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name_1``, ``name_2``... whichever is not taken; the result is taken."""
    if name not in taken:
        taken.add(name)
        return name
    i = 1
    while f"{name}_{i}" in taken:
        i += 1
    taken.add(f"{name}_{i}")
    return f"{name}_{i}"


def with_comment(stmt, rule_id: str, reason: str):
    """``stmt`` with a marker comment above it (once)."""
    text = marker_text(rule_id, short(reason, 240))
    lines = list(stmt.leading_lines)
    if any(ln.comment is not None and ln.comment.value == text for ln in lines):
        return stmt
    return stmt.with_changes(leading_lines=[*lines, marker_line(rule_id, short(reason, 240))])


def carry_comments(old, new: list, last: bool = False) -> list:
    """``new`` (the statements that replace ``old``) with ``old``'s comments: the lines above it
    go above the first one, its end-of-line comment onto the first (``last``: the last) one that
    has none (onto a compound statement's header), the ones inside it (``step(  # note``) above
    the first; a ``pass`` keeps them when nothing replaces ``old``."""
    if not new:
        return removed(old)
    new = _carry_edges(old, list(new), last)
    lost = lost_comment_lines(old, new, nested=True)
    if lost:
        new[0] = new[0].with_changes(leading_lines=[*new[0].leading_lines, *lost])
    return new


def _carry_edges(old, new: list, last: bool) -> list:
    """``new`` with the lines above ``old`` and its end-of-line comment (see carry_comments)."""
    lead = list(old.leading_lines)
    if new[0] is not old and lead and not _starts_with(list(new[0].leading_lines), lead):
        new[0] = new[0].with_changes(leading_lines=[*lead, *new[0].leading_lines])
    tail = getattr(old, "trailing_whitespace", None)
    if tail is None or tail.comment is None or any(st is old for st in new):
        return new
    for i in (reversed(range(len(new))) if last else range(len(new))):
        st = new[i]
        if isinstance(st, cst.SimpleStatementLine) and st.trailing_whitespace.comment is None:
            new[i] = st.with_changes(trailing_whitespace=tail)
            return new
        body = getattr(st, "body", None)
        if isinstance(body, cst.IndentedBlock) and body.header.comment is None:
            new[i] = st.with_changes(body=body.with_changes(header=tail))
            return new
    return new


def _starts_with(lines: list, prefix: list) -> bool:
    """Whether ``lines`` already begins with the comment lines ``prefix`` (same nodes or equal ones)."""
    return len(lines) >= len(prefix) and all(a is b or a.deep_equals(b) for a, b in zip(lines, prefix))


def getitem_columns(node: cst.ClassDef) -> int | None:
    """How many columns a Dataset class's __getitem__ returns (a literal tuple); 0 when it returns
    something else (a tensor, a dict, a name: the sample's structure is known at run time); None
    when its returns disagree or there is no __getitem__."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    for st in node.body.body:
        if isinstance(st, cst.FunctionDef) and st.name.value == "__getitem__":
            sizes = set()
            for s in walk_statements(st.body.body if isinstance(st.body, cst.IndentedBlock) else []):
                if isinstance(s, cst.SimpleStatementLine):
                    for small in s.body:
                        if isinstance(small, cst.Return) and small.value is not None:
                            v = small.value
                            sizes.add(len(v.elements) if isinstance(v, cst.Tuple) else 0)
            return sizes.pop() if len(sizes) == 1 else None
    return None


# --------------------------------------------------------------------------------------------
# blocks and paths
# --------------------------------------------------------------------------------------------
def blocks(st) -> list[tuple[str, list]]:
    """The statement lists inside ``st``, each with the field that holds it."""
    out = []
    if isinstance(st, (cst.For, cst.While, cst.If, cst.With, cst.Try)) and isinstance(st.body, cst.IndentedBlock):
        out.append(("body", list(st.body.body)))
    orelse = getattr(st, "orelse", None)
    if isinstance(orelse, cst.If):
        out.append(("elif", [orelse]))
    elif orelse is not None and isinstance(orelse.body, cst.IndentedBlock):
        out.append(("orelse", list(orelse.body.body)))
    if isinstance(st, cst.Try):
        for i, h in enumerate(st.handlers):
            if isinstance(h.body, cst.IndentedBlock):
                out.append((f"h{i}", list(h.body.body)))
        if st.finalbody is not None and isinstance(st.finalbody.body, cst.IndentedBlock):
            out.append(("finalbody", list(st.finalbody.body.body)))
    return out


def block_at(body: list, prefix: list) -> list:
    """The statement list that ``prefix`` (a path without its last step) leads to."""
    for i, field in prefix:
        body = dict(blocks(body[i]))[field]
    return body


def at(body: list, path: list):
    """The statement at ``path``."""
    return block_at(body, path[:-1])[path[-1][0]]


def walk_statements(body):
    """Every statement of ``body``, nested ones included (functions and classes too)."""
    for st in body:
        yield st
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)) and isinstance(st.body, cst.IndentedBlock):
            yield from walk_statements(st.body.body)
        for _, stmts in blocks(st):
            yield from walk_statements(stmts)


def marked(st) -> bool:
    """Whether ``st`` carries one of the training pass's markers (MS95x)."""
    return any(ln.comment is not None and ln.comment.value.startswith(MARKER_PREFIX + "MS95")
               for ln in st.leading_lines)


def find_backward(body: list, skip: set[int] = frozenset(), prefix=()):
    """Path to the first ``x.backward(...)`` statement of this scope that carries no marker and
    whose id is not in ``skip``, or None."""
    for i, st in enumerate(body):
        if method_call(st, "backward") is not None and not marked(st) and id(st) not in skip:
            return [*prefix, (i, None)]
        for field, stmts in blocks(st):
            found = find_backward(stmts, skip, (*prefix, (i, field)))
            if found is not None:
                return found
    return None


def marked_backwards(body: list, prefix=()):
    """Paths to the ``x.backward()`` statements that carry one of our markers."""
    for i, st in enumerate(body):
        if method_call(st, "backward") is not None and marked(st):
            yield [*prefix, (i, None)]
        for field, stmts in blocks(st):
            yield from marked_backwards(stmts, (*prefix, (i, field)))


# --------------------------------------------------------------------------------------------
# edits that keep identities, and the lines of the input
# --------------------------------------------------------------------------------------------
class StatementTree:
    """Identity-preserving edits of the file's statements, and the input line of each statement.

    Untouched statements keep their identity; a statement rebuilt around a change (a ``for``
    whose body changed) keeps the line of the one it replaces; a new statement takes the line of
    the statement it stands for. The main walk numbers the rewritten tree's statements from this
    (:meth:`walk_order_lines`), so reported lines still point into the input file.

    Args:
        body: the module's statements as parsed.
        walk_lines: the main walker's statement lines (ast order) for that body.
    """

    def __init__(self, body, walk_lines: list[int]):
        self.input_lines = _statement_ids(body, walk_lines)  # id(input statement) -> line
        self.new_lines: dict[int, int | None] = {}  # id(new statement) -> line it stands for
        self._origin: dict[int, tuple] = {}  # id(rebuilt) -> (rebuilt, id of its input statement)

    def line_of(self, st) -> int | None:
        """The input line of an input statement (None for a statement the pass made)."""
        return self.input_lines.get(id(st))

    def stands_for(self, new, old) -> None:
        """``new`` (made by the pass) replaces the input statement ``old``: it takes its line."""
        self.new_lines[id(new)] = self.input_lines.get(id(old))

    def at_line(self, new, line: int | None) -> None:
        """``new`` (made by the pass) reports ``line``."""
        self.new_lines[id(new)] = line

    def rebuilt(self, old, new):
        """Note that ``new`` replaces ``old`` (for line numbers) and return ``new``."""
        if new is not old:
            root = self._origin.get(id(old))
            self._origin[id(new)] = (new, root[1] if root is not None else id(old))
        return new

    def with_block(self, st, field: str, stmts: list):
        """``st`` with its block ``field`` replaced by ``stmts`` (``pass`` when empty)."""
        stmts = stmts or [left_pass()]
        if field == "body":
            new = st.with_changes(body=st.body.with_changes(body=stmts))
        elif field == "elif":
            new = st.with_changes(orelse=stmts[0])
        elif field == "orelse":
            new = st.with_changes(orelse=st.orelse.with_changes(body=st.orelse.body.with_changes(body=stmts)))
        elif field == "finalbody":
            new = st.with_changes(finalbody=st.finalbody.with_changes(
                body=st.finalbody.body.with_changes(body=stmts)))
        else:
            i = int(field[1:])
            hs = list(st.handlers)
            hs[i] = hs[i].with_changes(body=hs[i].body.with_changes(body=stmts))
            new = st.with_changes(handlers=hs)
        return self.rebuilt(st, new)

    def set_block(self, body: list, prefix: list, new: list) -> list:
        """``body`` with the statement list at ``prefix`` replaced by ``new``."""
        if not prefix:
            return list(new)
        i, field = prefix[0]
        sub = dict(blocks(body[i]))[field]
        return body[:i] + [self.with_block(body[i], field, self.set_block(sub, prefix[1:], new))] + body[i + 1:]

    def replace_at(self, body: list, path: list, fn) -> list:
        """``body`` with the statement at ``path`` replaced by the statements ``fn(statement)``."""
        block = block_at(body, path[:-1])
        k = path[-1][0]
        return self.set_block(body, path[:-1], block[:k] + fn(block[k]) + block[k + 1:])

    def map_blocks(self, st, fn):
        """``st`` with each of its blocks replaced by ``fn(statements)`` when that is not None."""
        for field, stmts in blocks(st):
            new = fn(stmts)
            if new is not None:
                st = self.with_block(st, field, new)
        return st

    def walk_blocks(self, stmts: list, fn):
        """Apply ``fn`` (list -> new list or None) to every statement list, innermost first.

        Only the statements on the path to a change are rebuilt; the others keep their identity.
        Returns the new list, or None when nothing changed.
        """
        out, changed = [], False
        for st in stmts:
            new = st
            if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
                if isinstance(st.body, cst.IndentedBlock):
                    inner = self.walk_blocks(list(st.body.body), fn)
                    if inner is not None:
                        new = self.rebuilt(st, st.with_changes(body=st.body.with_changes(body=inner)))
            else:
                for field, sub in blocks(st):
                    inner = self.walk_blocks(sub, fn)
                    if inner is not None:
                        new = self.with_block(new, field, inner)
            changed |= new is not st
            out.append(new)
        res = fn(out)
        if res is not None:
            return res
        return out if changed else None

    def walk_order_lines(self, body) -> list[int]:
        """Lines for the main walk of the rewritten tree: known statements keep theirs."""
        known = {**self.input_lines, **self.new_lines}
        out: list[int] = []

        def visit(st, small):
            ln = None
            if st is not None:
                ln = known.get(id(st))
                if ln is None:
                    root = self._origin.get(id(st))
                    ln = known.get(root[1]) if root is not None else None
            if ln is None and small is not None:
                ln = known.get(id(small))
            out.append(ln if ln is not None else (out[-1] if out else 1))

        _ast_order(body, visit)
        return out


def _ast_order(body, visit) -> None:
    """Call ``visit(node)`` for every statement in the order of ast's statement lists
    (a line of ``a; b`` is two statements)."""
    for st in body:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                visit(st if small is st.body[0] else None, small)
            continue
        visit(st, None)
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
            b = st.body
            if isinstance(b, cst.IndentedBlock):
                _ast_order(b.body, visit)
            else:
                for small in b.body:
                    visit(None, small)
            continue
        for node in _suites_in_order(st):
            if isinstance(node, cst.If):
                _ast_order([node], visit)
            elif isinstance(node, cst.IndentedBlock):
                _ast_order(node.body, visit)
            else:  # SimpleStatementSuite
                for small in node.body:
                    visit(None, small)


def _suites_in_order(st) -> list:
    out = []
    if hasattr(st, "body") and isinstance(st.body, cst.BaseSuite):
        out.append(st.body)
    if isinstance(st, (cst.Try, cst.TryStar)):
        out.extend(h.body for h in st.handlers)
    if isinstance(st, cst.Match):
        out.extend(c.body for c in st.cases)
    orelse = getattr(st, "orelse", None)
    if isinstance(orelse, cst.If):
        out.append(orelse)
    elif orelse is not None:
        out.append(orelse.body)
    final = getattr(st, "finalbody", None)
    if final is not None:
        out.append(final.body)
    return out


def _statement_ids(body, lines: list[int]) -> dict[int, int]:
    """id(statement) -> line, from the main walker's statement lines (ast order)."""
    out: dict[int, int] = {}
    it = iter(lines)

    def visit(st, small):
        ln = next(it, None)
        if ln is None:
            return
        if st is not None:
            out[id(st)] = ln
        if small is not None:
            out[id(small)] = ln

    _ast_order(body, visit)
    return out
