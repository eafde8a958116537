"""Learning rates read from an optimizer's parameter groups are numbers (MS238).

torch keeps a group's ``'lr'`` as a Python float; MindSpore's optimizers keep it as a Parameter
(a scalar Tensor the LR schedulers assign to). Arithmetic on it works either way, but a script that
formats it (``f"{lr:.2e}"``), logs it (``json.dumps``) or compares it as a number fails or prints
``Parameter(...)``. So every read of ``'lr'`` from a parameter group -- ``opt.param_groups[0]['lr']``,
``g['lr']`` for ``g`` of a ``for`` loop or comprehension over ``<anything>.param_groups`` -- becomes
``float(...)``; writes (``g['lr'] = v``) stay, as both optimizers take a number there.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import children
from migrate.convert.training.rules import LR_READS


def lr_reads(tp, body: list):
    """The module's statements with every read of a group's 'lr' wrapped in float(), or None when
    nothing changed."""
    return tp.tree.walk_blocks(body, lambda stmts: _block(tp, stmts))


def _block(tp, stmts: list):
    out, changed = [], False
    for st in stmts:
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)) or not _mentions_groups(st):
            out.append(st)
            continue
        finder = _Reads()
        st.visit(finder)
        if finder.found:
            new = st.visit(_Wrap(finder.found))
            for node in finder.found:
                tp.record(node, _float(node), LR_READS.id, "exact",
                          "a group's lr read as a number (MindSpore keeps a Parameter there)")
            st, changed = tp.tree.rebuilt(st, new), True
        out.append(st)
    return out if changed else None


def _mentions_groups(st) -> bool:
    """Whether ``st`` has a ``.param_groups`` (a Name of that spelling: every read found below is
    one). A walk of the nodes: printing each statement to search its text regenerated the
    enclosing statements' code once per level of nesting."""
    stack = [st]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            if node.value == "param_groups":
                return True
            continue
        stack.extend(children(node))
    return False


def _is_groups(node) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "param_groups"


def _is_lr(node) -> bool:
    return (isinstance(node, cst.Subscript) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.SimpleString)
            and node.slice[0].slice.value.evaluated_value == "lr")


def _float(node):
    return cst.Call(cst.Name("float"), [cst.Arg(node)])


class _Reads(cst.CSTVisitor):
    """The 'lr' subscripts read (not assigned, not already in float()) of a parameter group."""

    def __init__(self):
        self.groups: list[set[str]] = [set()]   # names bound to a group, per loop level
        self.found: list[cst.Subscript] = []
        self.skip: set[int] = set()

    def _bind(self, target, iterable) -> None:
        names = set(self.groups[-1])
        if _is_groups(iterable) and isinstance(target, cst.Name):
            names.add(target.value)
        self.groups.append(names)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, node.iter)

    def leave_For(self, node: cst.For) -> None:
        self.groups.pop()

    def _comp(self, node) -> None:
        """A comprehension binds its for targets for its element, which libcst visits first."""
        names, comp = set(self.groups[-1]), node.for_in
        while comp is not None:
            if _is_groups(comp.iter) and isinstance(comp.target, cst.Name):
                names.add(comp.target.value)
            comp = comp.inner_for_in
        self.groups.append(names)

    def _leave_comp(self, node) -> None:
        self.groups.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _leave_comp

    def visit_Assign(self, node: cst.Assign) -> None:
        self.skip.update(id(t.target) for t in node.targets)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.skip.add(id(node.target))

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "float" and len(node.args) == 1:
            self.skip.add(id(node.args[0].value))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self.skip or not _is_lr(node):
            return
        group = node.value
        if (isinstance(group, cst.Name) and group.value in self.groups[-1]) or \
                (isinstance(group, cst.Subscript) and _is_groups(group.value)):
            self.found.append(node)


class _Wrap(cst.CSTTransformer):
    def __init__(self, found):
        self.ids = {id(n) for n in found}

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript):
        return _float(updated) if id(original) in self.ids else updated
