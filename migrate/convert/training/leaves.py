"""Tensors trained by hand, without a module: ``w = torch.randn(n, k); w.requires_grad_()`` or
``b = torch.zeros(k, requires_grad=True)``, a loss computed from them, ``loss.backward()``, then
``with torch.no_grad(): w -= w.grad * lr; w.grad.zero_()`` (pytorch/tutorials' "What is torch.nn
really", d2l's linear regression from scratch).

MindSpore differentiates a function with respect to Parameters: each such leaf becomes
``w = ms.Parameter(..., name="w")`` where it is made (its ``requires_grad_()`` or the call given
``requires_grad=True``), the step's ``ms.value_and_grad`` takes ``[w, b]`` as its weights, and the
updates after it read ``w_grad`` from the grads tuple and write the leaf in place
(``w.set_data(w - w_grad * lr)``: rebinding ``w`` would leave the Parameter the function reads
behind); clearing a gradient goes, as value_and_grad returns fresh ones on every call.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import code_of, dotted, method_call, new_statement, parse_expr
from migrate.convert.training.manual import _ParamUpdates
from migrate.convert.training.rules import MANUAL_UPDATE
from migrate.convert.training.tree import Names, walk_statements


def leaf_tensors(body: list) -> set[str]:
    """The names a file makes trainable leaves: ``w.requires_grad_()`` / ``requires_grad_(True)``
    as a statement, or ``w = <call>(..., requires_grad=True)``."""
    names = set()
    for st in walk_statements(body):
        name = _made_leaf(st)
        if name is not None:
            names.add(name)
    return names


def _made_leaf(st) -> str | None:
    """The name ``st`` makes a trainable leaf, or None."""
    m = method_call(st, "requires_grad_")
    if m is not None:
        recv, call = m
        flag = call.args[0].value if call.args else None
        if isinstance(recv, cst.Name) and (flag is None or code_of(flag) == "True"):
            return recv.value
        return None
    small = st.body[0] if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and _asks_grad(small.value):
        return small.targets[0].target.value
    return None


def _asks_grad(value) -> bool:
    return isinstance(value, cst.Call) and any(
        a.keyword is not None and a.keyword.value == "requires_grad" and code_of(a.value) == "True"
        for a in value.args)


class LeafParameters:
    """``fn`` of :meth:`StatementTree.walk_blocks`: the statements that make the step's leaves
    (``names``) make Parameters instead."""

    def __init__(self, tp, names: set[str]):
        self.tp, self.names = tp, names

    def __call__(self, stmts: list):
        out, changed = [], False
        for st in stmts:
            name = _made_leaf(st)
            if name not in self.names:
                out.append(st)
                continue
            if method_call(st, "requires_grad_") is not None:
                new = new_statement(f'{name} = ms.Parameter({name}, name="{name}")')
            else:
                small = st.body[0]
                value = parse_expr(f'ms.Parameter({code_of(small.value)}, name="{name}")')
                new = st.with_changes(body=[small.with_changes(value=value)])
            new = new.with_changes(leading_lines=st.leading_lines, trailing_whitespace=st.trailing_whitespace)
            self.tp.tree.stands_for(new, st)
            self.tp.record(st, new, MANUAL_UPDATE.id, "transformed",
                           f"{name} is trained by hand: a Parameter, which ms.value_and_grad differentiates")
            out.append(new)
            changed = True
        return out if changed else None


def leaf_update(tp, st, leaves: list[str], grads: list[str]):
    """``st`` with the hand-written updates of the leaves rewritten (``w -= w.grad * lr`` ->
    ``w.set_data(w - w_grad * lr)``, ``w.grad.zero_()`` removed); a ``with torch.no_grad():``
    block is unwrapped (nothing is recorded outside a transform). None when ``st`` reads no
    leaf's gradient."""
    reads = {dotted(a.value) for a in Names.of(st).attrs if a.attr.value == "grad"}
    if not reads & set(leaves):
        return None
    new = st
    for leaf, g in zip(leaves, grads):
        new = new.visit(_ParamUpdates(leaf, g))
    if isinstance(new, cst.With) and all(isinstance(it.item, cst.Call) and tp.qual(it.item.func)
                                         in ("torch.no_grad", "torch.autograd.no_grad") for it in new.items):
        inner = list(new.body.body)
        if inner:
            inner[0] = inner[0].with_changes(leading_lines=[*st.leading_lines, *inner[0].leading_lines])
        return inner
    return [new]
