"""Tensors a function owns: a local name bound once to a new tensor that nothing else can see.

torch's in-place methods update the tensor itself, so every alias sees the update
(``v = t.view(-1); t.add_(1)`` changes ``v``; ``out.append(t)`` in a loop keeps one tensor).
The converter writes them as ``t.copy_(t.copy().add(1))``, which keeps that meaning everywhere.
Where ``t`` is owned, no alias exists, and the update is the plain rebinding a reviewer expects:
``t = t.add(1)``.

A name is owned when the function (its nested functions, classes, lambdas and comprehensions
aside, which must not read it) binds it once, by ``t = <new tensor>`` (a torch factory such as
``torch.zeros(...)``, ``x.clone()``, or arithmetic such as ``x * 1.0``), and reads it only where
no alias can come of it: as the receiver of a method or attribute that makes no view, as an
operand of arithmetic or a comparison, as an argument of a torch function that makes no view,
in ``return``, and as the target of an item assignment.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import children, dotted

# torch functions (and methods) whose result is a new tensor, for the binding
_FACTORIES = frozenset({
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "linspace", "logspace",
    "tensor", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
    "eye", "clone",
})
# methods whose result shares the tensor's memory besides the views (t.numpy() sees later updates)
_SHARING = frozenset({"numpy", "asnumpy", "storage", "untyped_storage", "__array__", "as_strided"})
_ARITHMETIC = (cst.BinaryOperation, cst.UnaryOperation)
_NESTED = frozenset({
    cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
})
# the node types _Uses.on_visit acts on (none has subclasses): the others are passed through at
# the cost of a set lookup (libcst's node classes are ABCs: isinstance is slow)
_BINDING_ELSEWHERE = frozenset({cst.AugAssign, cst.AnnAssign, cst.For, cst.WithItem, cst.Del})
_ACTED_ON = frozenset({
    *_NESTED, *_ARITHMETIC, *_BINDING_ELSEWHERE, cst.Global, cst.Nonlocal, cst.Assign, cst.Call, cst.Comparison,
    cst.Return, cst.Attribute, cst.Name,
})


def owned_tensors(node: cst.FunctionDef, aliasing: frozenset, qual) -> frozenset:
    """The names ``node`` owns (see the module's docstring); ``aliasing``: the torch methods whose
    result may share memory with the receiver; ``qual``: the torch name of an expression, or None."""
    finder = _Uses(aliasing | _SHARING, qual)
    finder.walk(node.body)
    params = {p.name.value for p in (*node.params.params, *node.params.kwonly_params, *node.params.posonly_params)}
    return frozenset(name for name, count in finder.bound.items()
                     if count == 1 and name in finder.fresh and name not in finder.refused | params)


class _Uses:
    """One pass over a function's body, parents before their children (what ``_allow`` marks is
    below the node that marks it); code fields only, not libcst's visitor (~5x slower)."""

    def __init__(self, aliasing: frozenset, qual):
        self.aliasing, self.qual = aliasing, qual
        self.bound: dict[str, int] = {}
        self.fresh: set[str] = set()
        self.refused: set[str] = set()
        self.allowed: set[int] = set()  # ids of Name nodes read where no alias comes of them

    def walk(self, root) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if type(node) not in _ACTED_ON or self.on_visit(node):
                stack.extend(reversed(list(children(node))))

    def on_visit(self, node) -> bool:
        t = type(node)  # (exact types: none of these has subclasses, and isinstance of an ABC is slow)
        if t is cst.Name:
            if id(node) not in self.allowed:
                self.refused.add(node.value)
        elif t is cst.Attribute:
            if node.attr.value not in self.aliasing:
                self._allow(node.value)  # t.shape, t.sum (a method's call is checked in _call)
        elif t is cst.Call:
            self._call(node)
        elif t in _NESTED:
            self.refused.update(n.value for n in _names_in(node))  # a nested scope may keep it
            return False
        elif t is cst.Global or t is cst.Nonlocal:
            self.refused.update(n.name.value for n in node.names)
        elif t is cst.Assign:
            self._assign(node)
        elif t in _BINDING_ELSEWHERE:
            self._bind_elsewhere(node)
        elif t is cst.BinaryOperation:
            self._allow(node.left)
            self._allow(node.right)
        elif t is cst.UnaryOperation:
            self._allow(node.expression)
        elif t is cst.Comparison:
            self._allow(node.left)
            for c in node.comparisons:
                self._allow(c.comparator)
        elif t is cst.Return and node.value is not None:
            self._allow(node.value)
            if type(node.value) is cst.Tuple:
                for e in node.value.elements:
                    self._allow(e.value)
        return True

    def _allow(self, node) -> None:
        if type(node) is cst.Name:
            self.allowed.add(id(node))

    def _assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            target = t.target
            if isinstance(target, cst.Name):
                self.bound[target.value] = self.bound.get(target.value, 0) + 1
                self.allowed.add(id(target))
                if len(node.targets) == 1 and self._new_tensor(node.value):
                    self.fresh.add(target.value)
            elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                self.allowed.add(id(target.value))  # t[i] = v writes into t: no alias
            else:
                self.refused.update(n.value for n in _names_in(target))

    def _bind_elsewhere(self, node) -> None:
        target = node.asname.name if isinstance(node, cst.WithItem) and node.asname else getattr(node, "target", None)
        if isinstance(node, cst.Del):
            target = node.target
        for n in _names_in(target) if target is not None else ():
            self.refused.add(n.value)

    def _call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            if func.attr.value not in self.aliasing:
                self.allowed.add(id(func.value))  # t.add_(1), t.sum(): the receiver
            return
        q = self.qual(func)
        if q is not None and q.startswith("torch.") and q.rsplit(".", 1)[-1] not in self.aliasing:
            for a in node.args:
                self._allow(a.value)  # torch.sum(t), torch.cat((t, u)) makes a new tensor
                if isinstance(a.value, (cst.List, cst.Tuple)):
                    for e in a.value.elements:
                        self._allow(e.value)

    def _new_tensor(self, value) -> bool:
        if isinstance(value, _ARITHMETIC):
            return True
        if not isinstance(value, cst.Call) or any(a.keyword and a.keyword.value == "requires_grad" for a in value.args):
            return False  # (a leaf that requires grad refuses in-place updates in torch: keep that)
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "clone":
            return True
        q = self.qual(func)
        return q is not None and q.startswith("torch.") and q.count(".") == 1 and q.split(".")[1] in _FACTORIES


def _names_in(node) -> list[cst.Name]:
    out: list[cst.Name] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name:
            out.append(n)
        else:
            stack.extend(children(n))
    return out


def root_name(node) -> str | None:
    """``t`` for ``t`` (a plain name), else None."""
    text = dotted(node)
    return text if text is not None and "." not in text else None
