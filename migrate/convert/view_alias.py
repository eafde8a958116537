"""In-place writes that torch shares with a named view, and MindSpore does not.

torch's views share memory with their base: after ``v = t.view(-1)``, ``t.mul_(2)`` changes
``v`` too, and ``v.add_(1)`` (or ``v[0] = 1``) changes ``t``. MindSpore's view methods return a
new tensor, so the converted ``t.copy_(t.copy().mul(2))`` leaves ``v`` as it was: the converted
code runs and computes something else. Nothing at the write itself shows it (``t`` is a plain
name), so each function is read in statement order (CPython's ast of the input, which the
pre-passes parse anyway) for:

- a view bound to a name: ``v = t.view(...)`` (``reshape``, ``transpose``, ``detach``, ``t[0]``,
  ``t[:, 1:]``, ``torch.narrow(t, ...)``, a chain of those; ``a, b = t.chunk(2)``);
- a later in-place write into one side: ``t.mul_(...)`` (any method ending in one ``_``),
  ``t[...] = ...``, ``t += ...``;
- a read of the other side after the write (in a loop, anywhere in the loop): the alias is live.

Such a write is marked (MS907) with both names and the view's line, so the reader fixes it (write
the view again after the update, or update through the one tensor both read). A name bound again
ends its view.
"""
from __future__ import annotations

import ast

from migrate.convert.cst import ast_statements

VIEW_ALIAS = "MS907"  # the marker (migrate.convert.registry.MARKERS)

# torch methods (and torch.* functions of the tensor first) whose result shares the tensor's memory
VIEW_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "transpose", "permute", "t",
    "narrow", "select", "squeeze", "unsqueeze", "expand", "expand_as", "diagonal", "movedim", "moveaxis",
    "swapaxes", "swapdims", "unfold", "as_strided", "detach", "real", "imag", "view_as_real",
    "view_as_complex", "unbind", "split", "chunk", "tensor_split",
})
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
# methods ending in "_" that change no value
NO_WRITE = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "register_hook_"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def aliased_writes(tree: ast.Module) -> dict[int, tuple[str, str]]:
    """The first lines of the statements that write in place into a tensor whose named view (or
    base) is read later in the same function: (the name written, the marker's reason)."""
    out: dict[int, tuple[str, str]] = {}
    modules = _imported_names(tree)
    for node in ast_statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _Function(node, out, modules).run()
    return out


def _imported_names(tree: ast.Module) -> frozenset:
    """The names the file's imports bind (``torch``, ``ops``, ``F``): ``ops.reshape(t, ...)`` is a
    function of its first argument, not a method of ``ops``."""
    names = set()
    for node in ast_statements(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
    return frozenset(names)


def _base_of(value, modules: frozenset = frozenset({"torch"})) -> str | None:
    """The name whose memory ``value`` shares as torch computes it, or None (``modules``: names
    bound by imports, whose view functions take the tensor first)."""
    node, viewed = value, False
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in VIEW_METHODS:
            if isinstance(node.func.value, ast.Name) and node.func.value.id in modules:  # torch.narrow(t, ...)
                if not node.args:
                    break
                node = node.args[0]
            else:
                node = node.func.value
        elif isinstance(node, ast.Attribute) and node.attr in VIEW_ATTRIBUTES:
            node = node.value
        elif isinstance(node, ast.Subscript) and _basic_index(node.slice):
            node = node.value
        else:
            break
        viewed = True
    return node.id if viewed and isinstance(node, ast.Name) else None


def _basic_index(index) -> bool:
    """An index that makes a view in torch: integers, slices, None, ``...`` (not a tensor)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for p in parts:
        if isinstance(p, ast.Slice):
            continue
        if isinstance(p, ast.Constant) and (p.value is None or p.value is Ellipsis or isinstance(p.value, int)):
            continue
        if isinstance(p, ast.UnaryOp) and isinstance(p.operand, ast.Constant) and isinstance(p.operand.value, int):
            continue
        return False
    return True


def _written(stmt) -> str | None:
    """The name a statement writes into in place: ``t.add_(...)`` (as a statement or as the
    value of one), ``t[...] = ...``, ``t += ...``; also through ``t.data``, which the conversion
    writes as ``t`` itself (``t.data = v`` becomes ``t.copy_(v)``, ``t.data.mul_(s)`` ``t``'s
    update): a second conversion reads those as writes of ``t``."""
    if isinstance(stmt, ast.AugAssign):
        return _holder(stmt.target)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Subscript):
            return _holder(target.value)
        if isinstance(target, ast.Attribute) and target.attr == "data":
            return _holder(target)
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.Return)) else None
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        name = value.func.attr
        if name.endswith("_") and not name.endswith("__") and not name.startswith("_") and name not in NO_WRITE:
            receiver = value.func.value
            while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) \
                    and receiver.func.attr.endswith("_") and not receiver.func.attr.startswith("_"):
                receiver = receiver.func.value  # t.add_(1).mul_(2): t
            return _holder(receiver)
        value = value.func.value
    return None


def _holder(node) -> str | None:
    """The name ``node`` writes into: ``t``, or ``t.data`` (any number of them)."""
    while isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Function:
    """One function's statements in order: views bound, writes, reads."""

    def __init__(self, fn, out: dict[int, tuple[str, str]], modules: frozenset):
        self.fn, self.out, self.modules = fn, out, modules
        self.order: list[tuple] = []  # (kind, name, line, loop ids, stmt line, base) in statement order

    def run(self) -> None:
        self._block(self.fn.body, ())
        if not self._may_alias():
            return
        self.order = [e for entry in self.order for e in self._expanded(entry)]
        views: dict[str, tuple[str, int, tuple]] = {}  # view name -> (base name, line, loops)
        for i, (kind, name, line, loops, base) in enumerate(self.order):
            if kind == "bind":
                views.pop(name, None)
                for v in [v for v, (b, _, _) in views.items() if b == name]:
                    del views[v]  # the base bound again: the view holds the old tensor on both sides
                if base is not None and base != name:  # (`x = x.view(-1)`: the old tensor has no name left)
                    views[name] = (base, line, loops)
            elif kind == "write":
                self._check(i, name, line, loops, views)

    def _may_alias(self) -> bool:
        """Whether a name written in place is a view bound in the function or the base of one:
        without one, there is nothing to mark, and the reads need not be walked."""
        viewed = set()
        for kind, name, _, _, base in self.order:
            if kind == "bind" and base is not None and base != name:
                viewed.update((name, base))
        return any(kind == "write" and name in viewed for kind, name, _, _, _ in self.order)

    def _expanded(self, entry: tuple):
        """``entry``, or for the placeholder of an expression's reads, the reads (names in it)."""
        if entry[0] != "reads":
            yield entry
            return
        _, node, _, loops, _ = entry
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                yield ("read", n.id, getattr(n, "lineno", 0), loops, None)

    def _check(self, i: int, name: str, line: int, loops: tuple, views: dict) -> None:
        pairs = [(v, base, at, bound, v) for v, (base, at, bound) in views.items() if base == name]  # t written
        if name in views:
            base, at, bound = views[name]
            pairs.append((name, base, at, bound, base))  # v written, t reads
        for view, base, at, bound, reader in pairs:
            # (in a loop the view is bound outside of, a read earlier in its body comes later)
            if self._read_later(i, reader, tuple(loop for loop in loops if loop not in bound)):
                self.out.setdefault(line, (name,
                    f"in-place update of {name} while {view} is a view of {base} and {reader} is "
                    f"read after it: torch updates both, MindSpore's view is a copy and keeps the old "
                    f"values; take the view again after the update, or update the tensor that is read"))
                return

    def _read_later(self, i: int, name: str, loops: tuple) -> bool:
        for kind, other, _, other_loops, _ in self.order[i + 1:]:
            if other == name:
                return kind == "read"  # (a binding first: the alias ended)
        # in a loop, a read earlier in the loop's body runs after the write on the next pass
        return any(kind == "read" and other == name and set(loops) & set(other_loops)
                   for kind, other, _, other_loops, _ in self.order[:i])

    # ---- the statements in order ---------------------------------------------------------
    def _block(self, body, loops: tuple) -> None:
        for stmt in body:
            self._statement(stmt, loops)

    def _statement(self, stmt, loops: tuple) -> None:
        if isinstance(stmt, _SCOPES):
            self._reads(stmt, loops)  # a nested function or class reads what it names
            if not isinstance(stmt, ast.Lambda):
                self._bind(stmt.name, stmt.lineno, loops, None)
            return
        if isinstance(stmt, _LOOPS):
            inner = (*loops, id(stmt))
            self._reads(stmt.iter if not isinstance(stmt, ast.While) else stmt.test, inner)
            if not isinstance(stmt, ast.While):
                self._targets(stmt.target, stmt.lineno, inner, None)
            self._block(stmt.body, inner)
            self._block(stmt.orelse, loops)
            return
        fields = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody", "handlers")]
        if any(isinstance(f, list) and f and isinstance(f[0], (ast.stmt, ast.ExceptHandler)) for f in fields):
            for part in ("test", "items", "subject"):
                value = getattr(stmt, part, None)
                for v in value if isinstance(value, list) else [value] if value is not None else []:
                    self._reads(v, loops)
            for f in fields:
                if isinstance(f, list):
                    for st in f:
                        if isinstance(st, ast.ExceptHandler):
                            self._block(st.body, loops)
                        elif isinstance(st, ast.stmt):
                            self._statement(st, loops)
            if isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    self._block(case.body, loops)
            return
        self._simple(stmt, loops)

    def _simple(self, stmt, loops: tuple) -> None:
        written = _written(stmt)
        if isinstance(stmt, ast.Assign):
            self._reads(stmt.value, loops)
            base = _base_of(stmt.value, self.modules) if len(stmt.targets) == 1 else None
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    self._reads(target, loops)
                else:
                    self._targets(target, stmt.lineno, loops, base)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            if stmt.value is not None:
                self._reads(stmt.value, loops)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                self._bind(stmt.target.id, stmt.lineno, loops, _base_of(stmt.value, self.modules))
        else:
            self._reads(stmt, loops)
        if written is not None:
            self.order.append(("write", written, stmt.lineno, loops, None))

    def _targets(self, target, line: int, loops: tuple, base) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, line, loops, base)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:  # a, b = t.chunk(2): each part views t
                self._targets(e.value if isinstance(e, ast.Starred) else e, line, loops, base)
        else:
            self._reads(target, loops)

    def _bind(self, name: str, line: int, loops: tuple, base) -> None:
        self.order.append(("bind", name, line, loops, base))

    def _reads(self, node, loops: tuple) -> None:
        self.order.append(("reads", node, 0, loops, None))  # walked by run() when it may matter
