"""Hand-written parameter updates after ``backward()`` -> the same updates on the grads tuple.

``for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)`` becomes
``for p, p_grad in zip(model.trainable_params(), grads): p.set_data(p + -lr * p_grad)``: the
grads of ``ms.value_and_grad(forward_fn, None, model.trainable_params())`` are aligned with
``model.trainable_params()``, in-place updates of a parameter become ``Parameter.set_data``
(MindSpore and ms_core alike), and clearing a gradient (``p.grad.zero_()``, ``p.grad = None``)
goes: value_and_grad returns fresh gradients on every call.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import bind_args, code_of, dotted, new_statement, parse_expr, removed
from migrate.convert.training.rules import MANUAL_UPDATE, PARAM_INPLACE
from migrate.convert.training.tree import carry_comments, unique

# in-place tensor methods on a parameter -> the new value, from the parameter p and the argument x
_INPLACE = {"add_": "{p} + {x}", "sub_": "{p} - {x}", "mul_": "{p} * {x}", "div_": "{p} / {x}",
            "copy_": "{x}"}
_AUG = {"+=": "{p} + {x}", "-=": "{p} - {x}", "*=": "{p} * {x}", "/=": "{p} / {x}"}
_CLEAR = ("zero_", "detach_", "requires_grad_")
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)


def manual_update(tp, st, grads: str, taken: set[str]) -> list:
    """The statements that replace one hand-written update loop ``st`` (a ``for`` over
    ``net.parameters()``, possibly inside ``with torch.no_grad():``)."""
    loop = next(x for x in st.body.body if isinstance(x, cst.For)) if isinstance(st, cst.With) else st
    p = loop.target.value
    g = unique(f"{p}_grad", taken)
    net = code_of(loop.iter.func.value)
    body = loop.body.visit(_ParamUpdates(p, g))
    new = loop.with_changes(
        target=parse_expr(f"({p}, {g})").with_changes(lpar=[], rpar=[]),
        iter=parse_expr(f"{tp.converter.builtin('zip')}({net}.trainable_params(), {grads})"),
        body=body)
    if isinstance(st, cst.With):  # the no_grad block goes (nothing is recorded outside a transform)
        new = carry_comments(st, [new])[0]  # `with torch.no_grad():  # plain SGD`: above the loop
    cleared = f"; {net}.zero_grad() removed" if isinstance(st, cst.With) and len(st.body.body) > 1 else ""
    tp.record(st, new, MANUAL_UPDATE.id, "transformed",
              f"{p}.grad -> {g} from the grads of {net}.trainable_params(); in-place updates -> "
              f"{p}.set_data(...){cleared}", before=loop.iter)
    return [new]


def inplace_updates(tp, loop: cst.For, p: str):
    """``loop`` with in-place arithmetic on its parameter ``p`` (``p.mul_(c)``, ``p.data.add_(x)``,
    ``p -= x``) as ``p.set_data(...)``, or None when there is none (a loop that reads no .grad)."""
    visitor = _ParamUpdates(p, None)
    body = loop.body.visit(visitor)
    if not visitor.changed:
        return None
    new = tp.tree.rebuilt(loop, loop.with_changes(body=body))
    tp.record(loop, new, PARAM_INPLACE.id, "exact", f"in-place updates of {p} -> {p}.set_data(...)",
              before=loop.iter)
    return new


def _paren(node) -> str:
    text = code_of(node)
    return text if isinstance(node, _ATOMS) or node.lpar else f"({text})"


class _ParamUpdates(cst.CSTTransformer):
    """Inside one update loop over parameter ``p`` with gradient ``g``: ``p.grad`` -> ``g``,
    in-place updates of ``p`` -> ``p.set_data(...)``, gradient clearing removed."""

    def __init__(self, p: str, g: str | None):
        self.p = p
        self.g = g  # None: no gradient in this loop (in-place updates only)
        self.changed = False

    def _is_param(self, node) -> bool:
        """``p`` or ``p.data``."""
        return dotted(node) in (self.p, f"{self.p}.data")

    def _is_grad(self, node) -> bool:
        """``p.grad`` or ``p.grad.data``."""
        return dotted(node) in (f"{self.p}.grad", f"{self.p}.grad.data")

    def leave_SimpleStatementLine(self, original, updated):
        if len(updated.body) != 1:
            return updated
        new = self._update(original.body[0], updated.body[0])
        if new is None:
            return updated
        self.changed = True
        if new == "removed":
            out = removed(updated)
            return out[0] if out else cst.RemovalSentinel.REMOVE
        return updated.with_changes(body=[new])

    def _update(self, small, done):
        """What replaces one small statement (``small`` as written, ``done`` with its
        expressions rewritten): a statement, "removed", or None to keep ``done``."""
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                and isinstance(small.value.func, cst.Attribute):
            recv, name = small.value.func.value, small.value.func.attr.value
            if self.g is not None and self._is_grad(recv) and name in _CLEAR:
                return "removed"
            if self._is_param(recv) and name in _INPLACE:
                return self._inplace(done.value, name)
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            t = small.targets[0].target
            if self.g is not None and self._is_grad(t):
                return "removed"  # p.grad = None
            if dotted(t) == f"{self.p}.data":
                return _set_data(self.p, code_of(done.value))
        if isinstance(small, cst.AugAssign) and self._is_param(small.target) \
                and small.operator.__class__ in _AUG_OPS:
            expr = _AUG[_AUG_OPS[small.operator.__class__]].format(p=self.p, x=_paren(done.value))
            return _set_data(self.p, expr)
        return None

    def _inplace(self, call: cst.Call, name: str):
        args = bind_args(call, ["other", "alpha"])
        if args is None or "other" not in args or name not in ("add_", "sub_") and "alpha" in args:
            return None
        x = _paren(args["other"])
        if "alpha" in args:
            x = f"{_paren(args['alpha'])} * {x}"
        return _set_data(self.p, _INPLACE[name].format(p=self.p, x=x))

    def leave_Attribute(self, original, updated):
        if self.g is not None and self._is_grad(updated):
            return cst.Name(self.g)
        if dotted(updated) == f"{self.p}.data":
            return cst.Name(self.p)
        return updated


_AUG_OPS = {cst.AddAssign: "+=", cst.SubtractAssign: "-=", cst.MultiplyAssign: "*=", cst.DivideAssign: "/="}


def _set_data(p: str, expr: str):
    return new_statement(f"{p}.set_data({expr})").body[0]
