"""Tree helpers of the training pass: names read and bound, statement paths, line numbers.

Plain recursive scans and identity-preserving rebuilds: libcst's visitors rebuild every node
they pass, which would cost more than the pass itself and lose the statements' identity (the
main walk's line numbers are keyed by it).
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import libcst as cst

from migrate.changes import MARKER_PREFIX
from migrate.convert import dotted


# --------------------------------------------------------------------------------------------
# small helpers: statements, names read and written
# --------------------------------------------------------------------------------------------
def _call_of(stmt) -> cst.Call | None:
    """The call of an expression statement ``f(...)`` (one small statement on its line)."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            return small.value
    return None


def _method_call(stmt, name: str):
    """``recv.name(...)`` as a statement -> (recv, call), else None."""
    call = _call_of(stmt)
    if call is not None and isinstance(call.func, cst.Attribute) and call.func.attr.value == name:
        return call.func.value, call
    return None


_SKIP = ("whitespace", "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after",
         "header", "footer", "trailing_whitespace", "equal", "colon", "lbrace", "rbrace",
         "lbracket", "rbracket", "dot", "star", "operator", "asynchronous", "newline", "indent",
         "first_line", "leading_whitespace", "encoding", "default_")
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node):
    t = type(node)
    names = _CHILD_FIELDS.get(t)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(t) if not f.name.startswith(_SKIP))
        _CHILD_FIELDS[t] = names
    for n in names:
        v = getattr(node, n)
        if isinstance(v, cst.CSTNode):
            yield v
        elif type(v) in (list, tuple):
            for x in v:
                if isinstance(x, cst.CSTNode):
                    yield x


class _Names:
    """Names a piece of code reads and binds (comprehension/lambda variables excluded).

    A plain recursive scan: libcst's visitors rebuild every node they pass, which costs more
    than the whole rest of this pass.
    """

    def __init__(self):
        self.reads: list[str] = []
        self.writes: list[str] = []
        self.local: set[str] = set()
        self.attrs: list[cst.Attribute] = []
        self.calls: list[cst.Call] = []
        self.flow = False
        self.skip: set[int] = set()

    def _bind(self, target) -> None:
        if isinstance(target, cst.Name):
            self.writes.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._bind(e.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)
        else:
            self.scan(target)  # x.a = ..., x[i] = ...: x is read

    def scan(self, node) -> None:
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
        elif t is cst.Assign:
            self.scan(node.value)
            for tg in node.targets:
                self._bind(tg.target)
        elif t is cst.AnnAssign:
            if node.value is not None:
                self.scan(node.value)
            self._bind(node.target)
        elif t is cst.AugAssign:
            self.scan(node.value)
            self.scan(node.target)
            self._bind(node.target)
        elif t is cst.For:
            self.scan(node.iter)
            self._bind(node.target)
            self.scan(node.body)
            if node.orelse is not None:
                self.scan(node.orelse)
        elif t is cst.WithItem:
            self.scan(node.item)
            if node.asname is not None:
                self._bind(node.asname.name)
        elif t is cst.NamedExpr:
            self.scan(node.value)
            self._bind(node.target)
        elif t in (cst.FunctionDef, cst.ClassDef):
            self.writes.append(node.name.value)  # its body is its own scope
        elif t is cst.CompFor:
            inner = _Names.of(node.target)
            self.local.update(inner.writes, inner.reads)
            self.scan(node.iter)
            for c in node.ifs:
                self.scan(c)
            if node.inner_for_in is not None:
                self.scan(node.inner_for_in)
        elif t is cst.Lambda:
            for p in node.params.params:
                self.local.add(p.name.value)
            self.scan(node.body)
        else:
            if t in (cst.Return, cst.Break, cst.Continue, cst.Yield, cst.Global, cst.Nonlocal):
                self.flow = True
            for c in _children(node):
                self.scan(c)

    @classmethod
    def of(cls, node, skip=()) -> "_Names":
        v = cls()
        v.skip = set(skip)
        for n in node if isinstance(node, (list, tuple)) else (node,):
            v.scan(n)
        v.reads = [r for r in v.reads if r not in v.local]
        return v


def _free_reads(stmts, bound=None, out=None) -> list[str]:
    """Names the statements read before binding them (in order, no duplicates)."""
    bound = set() if bound is None else bound
    out = [] if out is None else out
    for st in stmts:
        blocks = _blocks(st) if isinstance(st, (cst.With, cst.If, cst.For, cst.While, cst.Try)) else []
        if not blocks:
            n = _Names.of(st)
            out.extend(r for r in dict.fromkeys(n.reads) if r not in bound and r not in out)
            bound.update(n.writes)
            continue
        # the header (with-items, test, iterable, loop target), then each block in order
        header = _Names.of(_header_nodes(st))
        out.extend(r for r in dict.fromkeys(header.reads) if r not in bound and r not in out)
        bound.update(header.writes)
        before = set(bound)
        for _, sub in blocks:
            inner = set(before)
            _free_reads(sub, inner, out)
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


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        taken.add(name)
        return name
    i = 1
    while f"{name}_{i}" in taken:
        i += 1
    taken.add(f"{name}_{i}")
    return f"{name}_{i}"


def _stmt(text: str) -> cst.BaseStatement:
    # a fresh top node over shared (immutable) children: statements are told apart by identity
    return _parsed_stmt(text).with_changes()


@lru_cache(maxsize=1024)
def _parsed_stmt(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text + "\n")


def _with_comment(stmt, rule_id: str, reason: str):
    """``stmt`` with a marker comment above it (once)."""
    text = f"{MARKER_PREFIX}{rule_id} {_short(reason, 240)}"
    lines = list(stmt.leading_lines)
    if any(ln.comment is not None and ln.comment.value == text for ln in lines):
        return stmt
    return stmt.with_changes(leading_lines=[*lines, cst.EmptyLine(comment=cst.Comment(text))])


class Refuse(Exception):
    """The training step cannot be rewritten safely: (rule ID, what the person must do)."""

    def __init__(self, rule_id: str, reason: str):
        reason = _short(reason, 240)  # one line: it becomes a comment
        super().__init__(reason)
        self.rule_id = rule_id
        self.reason = reason


# --------------------------------------------------------------------------------------------
# tree paths: (index, block field) steps from a scope's body to one statement
# --------------------------------------------------------------------------------------------
def _blocks(st) -> list[tuple[str, list]]:
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


# id(rebuilt statement) -> id(the input statement it comes from): a rebuilt `def`/`for` keeps its
# line for the main walk. Filled during one conversion, cleared by the pass when it ends.
ORIGIN: dict[int, int] = {}


def _rebuilt(old, new):
    """Note that ``new`` replaces ``old`` (for line numbers) and return ``new``."""
    if new is not old:
        ORIGIN[id(new)] = ORIGIN.get(id(old), id(old))
    return new


def _with_block(st, field: str, stmts: list):
    return _rebuilt(st, _with_block_impl(st, field, stmts))


def _with_block_impl(st, field: str, stmts: list):
    stmts = stmts or [_stmt("pass")]
    if field == "body":
        return st.with_changes(body=st.body.with_changes(body=stmts))
    if field == "elif":
        return st.with_changes(orelse=stmts[0])
    if field == "orelse":
        return st.with_changes(orelse=st.orelse.with_changes(body=st.orelse.body.with_changes(body=stmts)))
    if field == "finalbody":
        return st.with_changes(finalbody=st.finalbody.with_changes(
            body=st.finalbody.body.with_changes(body=stmts)))
    i = int(field[1:])
    hs = list(st.handlers)
    hs[i] = hs[i].with_changes(body=hs[i].body.with_changes(body=stmts))
    return st.with_changes(handlers=hs)


def _block_at(body: list, prefix: list) -> list:
    for i, field in prefix:
        body = dict(_blocks(body[i]))[field]
    return body


def _at(body: list, path: list):
    return _block_at(body, path[:-1])[path[-1][0]]


def _set_block(body: list, prefix: list, new: list) -> list:
    if not prefix:
        return list(new)
    i, field = prefix[0]
    sub = dict(_blocks(body[i]))[field]
    return body[:i] + [_with_block(body[i], field, _set_block(sub, prefix[1:], new))] + body[i + 1:]


def _replace_at(body: list, path: list, fn) -> list:
    block = _block_at(body, path[:-1])
    k = path[-1][0]
    return _set_block(body, path[:-1], block[:k] + fn(block[k]) + block[k + 1:])


def _map_blocks(st, fn):
    for field, stmts in _blocks(st):
        new = fn(stmts)
        if new is not None:
            st = _with_block(st, field, new)
    return st


def _seq_or_none(f, stmts):
    new = [f(s) for s in stmts]
    return new if any(a is not b for a, b in zip(new, stmts)) else None


def _marked(st) -> bool:
    return any(ln.comment is not None and ln.comment.value.startswith(MARKER_PREFIX + "MS95")
               for ln in st.leading_lines)


def _find_backward(body: list, prefix=()):
    """Path to the first unmarked ``x.backward(...)`` statement of this scope, or None."""
    for i, st in enumerate(body):
        if _method_call(st, "backward") is not None and not _marked(st):
            return [*prefix, (i, None)]
        for field, stmts in _blocks(st):
            found = _find_backward(stmts, (*prefix, (i, field)))
            if found is not None:
                return found
    return None


def _called_names(stmts) -> set[str]:
    return {c.func.value for c in _Names.of(list(stmts)).calls if isinstance(c.func, cst.Name)}


def _looks_network(name: str) -> bool:
    """A name that conventionally holds the network (``model``, ``net``, ``generator``...)."""
    low = name.lower()
    return any(w in low for w in ("model", "net", "encoder", "decoder", "generator",
                                  "discriminator", "backbone", "classifier"))


def _marked_backwards(body: list, prefix=()):
    """Paths to the ``x.backward()`` statements that carry one of our markers."""
    for i, st in enumerate(body):
        if _method_call(st, "backward") is not None and _marked(st):
            yield [*prefix, (i, None)]
        for field, stmts in _blocks(st):
            yield from _marked_backwards(stmts, (*prefix, (i, field)))


def _walk_statements(body):
    for st in body:
        yield st
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)) and isinstance(st.body, cst.IndentedBlock):
            yield from _walk_statements(st.body.body)
        for _, stmts in _blocks(st):
            yield from _walk_statements(stmts)


def _scope_names(body) -> set[str]:
    n = _Names.of(list(body))
    return set(n.reads) | set(n.writes) | n.local


def _reads_grad(stmts) -> bool:
    """True when the statements touch ``<tensor>.grad`` (not ``ms.grad`` / ``torch.autograd.grad``)."""
    return any(a.attr.value == "grad" and dotted(a.value) not in _GRAD_MODULES
               for a in _Names.of(list(stmts)).attrs)


_GRAD_MODULES = {"ms", "ms_core", "mindspore", "autograd", "torch.autograd"}


def _bind(call: cst.Call, names: list[str]) -> dict | None:
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


def _getitem_columns(node: cst.ClassDef) -> int | None:
    """How many columns a Dataset class's __getitem__ returns (a literal tuple), else None."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    for st in node.body.body:
        if isinstance(st, cst.FunctionDef) and st.name.value == "__getitem__":
            sizes = set()
            for s in _walk_statements(st.body.body if isinstance(st.body, cst.IndentedBlock) else []):
                if isinstance(s, cst.SimpleStatementLine):
                    for small in s.body:
                        if isinstance(small, cst.Return) and small.value is not None:
                            v = small.value
                            sizes.add(len(v.elements) if isinstance(v, cst.Tuple) else 1)
            return sizes.pop() if len(sizes) == 1 else None
    return None


def _walk_blocks(stmts: list, fn):
    """Apply ``fn`` (list -> new list or None) to every statement list, innermost first.

    Only the statements on the path to a change are rebuilt; the others keep their identity.
    Returns the new list, or None when nothing changed.
    """
    out, changed = [], False
    for st in stmts:
        new = st
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
            if isinstance(st.body, cst.IndentedBlock):
                inner = _walk_blocks(list(st.body.body), fn)
                if inner is not None:
                    new = _rebuilt(st, st.with_changes(body=st.body.with_changes(body=inner)))
        else:
            for field, sub in _blocks(st):
                inner = _walk_blocks(sub, fn)
                if inner is not None:
                    new = _with_block(new, field, inner)
        changed |= new is not st
        out.append(new)
    res = fn(out)
    if res is not None:
        return res
    return out if changed else None


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
    if isinstance(st, cst.Try) or (hasattr(cst, "TryStar") and isinstance(st, cst.TryStar)):
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


def _ordered_lines(body, known: dict[int, int]) -> list[int]:
    """Lines for the main walk of the rewritten tree: known statements keep theirs."""
    out: list[int] = []

    def visit(st, small):
        ln = known.get(id(st), known.get(ORIGIN.get(id(st)))) if st is not None else None
        if ln is None and small is not None:
            ln = known.get(id(small))
        out.append(ln if ln is not None else (out[-1] if out else 1))

    _ast_order(body, visit)
    return out


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


