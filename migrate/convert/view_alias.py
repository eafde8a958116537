"""In-place writes that torch shares with a named view, and the converted code does not.

torch's views share memory with their base: after ``v = t.view(-1)``, ``t.mul_(2)`` changes
``v`` too, and ``v.add_(1)`` (or ``v[0] = 1``) changes ``t``. The converted code shares most of
those writes too: ms_core's views and MindSpore 2.10's (PyNative) see a ``copy_`` or an item
assignment into their base, and a view's item assignment reaches its base. What it does not share
(measured on both, see :func:`missed_on`): ``t += 1`` (a new tensor on both), a copy where torch
makes a view (``detach`` on ms_core, ``unfold``, ``real``, ...), and on MindSpore 2.10 a ``copy_``
into a strided view (a transpose, a column): there the converted code runs and computes something
else. Nothing at the write itself shows it (``t`` is a plain name), so each function is read in
statement order (CPython's ast of the input, which the pre-passes parse anyway) for:

- a view bound to a name: ``v = t.view(...)`` (``reshape``, ``transpose``, ``detach``, ``t[0]``,
  ``t[:, 1:]``, ``torch.narrow(t, ...)``, a chain of those; ``a, b = t.chunk(2)``);
- a later in-place write into one side: ``t.mul_(...)`` (any method ending in one ``_``),
  ``t[...] = ...``, ``t += ...``;
- a read of the other side after the write (in a loop, anywhere in the loop): the alias is live.

Such a write is marked (MS907) on the targets that miss it, with both names, so the reader fixes
it (take the view again after the update, or update through the one tensor both read). A name
bound again ends its view.
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
# the makers (``index``: a basic subscript) whose result the converted code shares writes with, both
# ways, as torch's views do: ms_core's views (measured against torch), and MindSpore 2.10's, where a
# write into the base (copy_, item assignment) reaches every one of them and ``detach`` shares too
SHARED_ON_MS_CORE = frozenset({
    "view", "view_as", "reshape", "reshape_as", "flatten", "transpose", "permute", "t", "narrow", "select",
    "squeeze", "unsqueeze", "expand", "expand_as", "diagonal", "movedim", "moveaxis", "swapaxes", "swapdims",
    "unbind", "split", "chunk", "tensor_split", "T", "mT", "index",
})
SHARED_ON_MINDSPORE = SHARED_ON_MS_CORE | {"detach"}
# MindSpore 2.10's copy_ into a view reaches the base only for these (a contiguous view); into a
# strided one (a transpose, a column, an index) it leaves the base as it was, without an error
CONTIGUOUS_ON_MINDSPORE = frozenset({"view", "view_as", "reshape", "reshape_as", "flatten", "squeeze",
                                     "unsqueeze", "expand", "expand_as", "detach"})
TARGETS = ("ms_core", "mindspore")
# view methods NumPy's arrays do not have: a name viewed through one holds a tensor
TORCH_ONLY_VIEWS = frozenset({"view_as", "reshape_as", "narrow", "select", "unsqueeze", "expand", "expand_as",
                              "movedim", "unbind", "chunk", "tensor_split", "detach", "t", "permute", "swapdims",
                              "unflatten", "split"})
# methods ending in "_" that change no value
NO_WRITE = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "register_hook_"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def aliased_writes(tree: ast.Module) -> dict[int, tuple[str, bool, dict[str, str]]]:
    """The first lines of the statements that write in place into a tensor whose named view (or
    base) is read later in the same function, and the converted code does not share the write on
    some target: (the name written, whether the view is known to be a tensor's (made by a method
    NumPy's arrays lack), target -> the marker's reason)."""
    out: dict[int, tuple[str, bool, dict[str, str]]] = {}
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


def _viewed(value, modules: frozenset = frozenset({"torch"})) -> tuple[str | None, frozenset]:
    """(the name whose memory ``value`` shares as torch computes it, or None; the view methods and
    attributes it applies, ``index`` for a basic subscript: ``t[0].T`` -> ("t", {index, T})).
    ``modules``: names bound by imports, whose view functions take the tensor first."""
    found, node = set(), value
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in VIEW_METHODS:
            if isinstance(node.func.value, ast.Name) and node.func.value.id in modules:  # torch.narrow(t, ...)
                if not node.args:
                    break
                found.add(node.func.attr)
                node = node.args[0]
            else:
                found.add(node.func.attr)
                node = node.func.value
        elif isinstance(node, ast.Attribute) and node.attr in VIEW_ATTRIBUTES:
            found.add(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and _basic_index(node.slice):
            found.add("index")
            node = node.value
        else:
            break
    return (node.id, frozenset(found)) if found and isinstance(node, ast.Name) else (None, frozenset())


def missed_on(kind: str, view_written: bool, makers: frozenset) -> dict[str, str]:
    """target -> why an in-place write of ``kind`` (``method``: ``x.op_()``, written back with
    copy_; ``item``: ``x[i] = ...``; ``aug``: ``x += ...``) into a view (``view_written``) or its
    base does not reach the other side in the converted code; empty where it does on both."""
    if kind == "aug":
        return dict.fromkeys(TARGETS, "an augmented assignment binds a new tensor (MindSpore's += is not in place)")
    out = {}
    for target, shared in (("ms_core", SHARED_ON_MS_CORE), ("mindspore", SHARED_ON_MINDSPORE)):
        copies = sorted(makers - shared)
        if copies:
            out[target] = f"{', '.join(copies)} makes a copy"
    if view_written and kind == "method" and "mindspore" not in out and not makers <= CONTIGUOUS_ON_MINDSPORE:
        out["mindspore"] = "MindSpore 2.10's copy_ into a strided view leaves its base as it was"
    return out


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

    def __init__(self, fn, out: dict, modules: frozenset):
        self.fn, self.out, self.modules = fn, out, modules
        self.order: list[tuple] = []  # (kind, name, line, loop ids, stmt line, base) in statement order
        self.makers: dict[tuple[str, int], frozenset] = {}  # (view name, line bound) -> its view makers

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
                self._check(i, name, line, loops, views, base)  # (a write's last field: its kind)

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

    def _check(self, i: int, name: str, line: int, loops: tuple, views: dict, kind: str) -> None:
        pairs = [(v, base, at, bound, v) for v, (base, at, bound) in views.items() if base == name]  # t written
        if name in views:
            base, at, bound = views[name]
            pairs.append((name, base, at, bound, base))  # v written, t reads
        for view, base, at, bound, reader in pairs:
            makers = self.makers.get((view, at), frozenset())
            missed = missed_on(kind, view == name, makers)
            # (in a loop the view is bound outside of, a read earlier in its body comes later)
            if missed and self._read_later(i, reader, tuple(loop for loop in loops if loop not in bound)):
                self.out.setdefault(line, (name, bool(makers & TORCH_ONLY_VIEWS), {target: (
                    f"in-place update of {name} while {view} is a view of {base} and {reader} is read after "
                    f"it: torch updates both; here {why}, and {reader} keeps the old values; take the view "
                    f"again after the update, or update the tensor that is read") for target, why in missed.items()}))
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
            base, makers = _viewed(stmt.value, self.modules) if len(stmt.targets) == 1 else (None, frozenset())
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    self._reads(target, loops)
                else:
                    self._targets(target, stmt.lineno, loops, base, makers)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            if stmt.value is not None:
                self._reads(stmt.value, loops)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                self._bind(stmt.target.id, stmt.lineno, loops, *_viewed(stmt.value, self.modules))
        else:
            self._reads(stmt, loops)
        if written is not None:
            kind = "aug" if isinstance(stmt, ast.AugAssign) else \
                "item" if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript) else "method"
            self.order.append(("write", written, stmt.lineno, loops, kind))

    def _targets(self, target, line: int, loops: tuple, base, makers: frozenset = frozenset()) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, line, loops, base, makers)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:  # a, b = t.chunk(2): each part views t
                self._targets(e.value if isinstance(e, ast.Starred) else e, line, loops, base, makers)
        else:
            self._reads(target, loops)

    def _bind(self, name: str, line: int, loops: tuple, base, makers: frozenset = frozenset()) -> None:
        self.order.append(("bind", name, line, loops, base))
        if base is not None:
            self.makers[name, line] = makers

    def _reads(self, node, loops: tuple) -> None:
        self.order.append(("reads", node, 0, loops, None))  # walked by run() when it may matter
