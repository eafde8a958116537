"""torch.autograd.Function -> a Cell with ``bprop``: the class rewrite and ``.apply(x)`` calls.

``forward(ctx, *inputs)`` becomes ``construct(self, *inputs)`` and ``backward(ctx, *grads)``
becomes ``bprop(self, *inputs, out, *grads)``; what ``ctx.save_for_backward`` kept is read from
bprop's arguments (forward inputs, or ``out``). Anything else done with ``ctx`` is marked.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import code_of, dotted, parse_expr
from migrate.convert.registry import node_rule
from migrate.convert.scopes import FunctionScope

_CTX = re.compile(r"\bctx\b")


AUTOGRAD_FUNCTION = node_rule(
    "MS131", "autograd_function",
    "Replace a torch.autograd.Function subclass with a Cell whose construct/bprop are its forward/backward.")
FUNCTION_APPLY = node_rule(
    "MS132", "function_apply",
    "Replace MyFunction.apply(x) with MyFunction()(x) (the Function became a Cell with bprop).")


def rewrite_function_class(conv, node: cst.ClassDef):
    """Apply MS131 to a class whose base is torch.autograd.Function (marked when it cannot)."""
    # the class body is rewritten before it is walked: its statements no longer match the
    # source positions the walker counts
    with conv.unaligned(node.body):
        return _rewrite(conv, node)


def _rewrite(conv, node: cst.ClassDef):
    conv.reshaped = True
    body = node.body.body
    fwd = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"), None)
    bwd = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "backward"), None)
    base = node.bases[0].value
    if fwd is None or bwd is None or not _simple_ctx(fwd) or not _simple_ctx(bwd):
        conv.uses_alias(base)
        conv.mark(base, "MS901", "torch.autograd.Function needs static forward(ctx, ...) and backward(ctx, ...)")
        return node
    inputs = [p.name.value for p in fwd.params.params][1:]
    saved = _saved_names(fwd, inputs)
    if saved is None:
        conv.uses_alias(base)
        conv.mark(base, "MS901", "torch.autograd.Function: save_for_backward must save forward inputs "
                                 "or the returned value")
        return node
    conv.cell_classes.add(node.name.value)
    conv.function_classes.add(node.name.value)
    conv.class_scope.cell = True
    conv.used.add("nn")
    new_fwd = _strip_ctx(conv, fwd, "construct", ["self", *inputs], inputs, saved, False)
    grads = [p.name.value for p in bwd.params.params][1:]
    new_bwd = _strip_ctx(conv, bwd, "bprop", ["self", *inputs, "out", *grads], inputs, saved, True)
    if new_fwd is None or new_bwd is None:
        conv.uses_alias(base)
        conv.mark(base, "MS901", "torch.autograd.Function uses ctx for more than save_for_backward/saved_tensors")
        return node
    new_body = [new_fwd if s is fwd else new_bwd if s is bwd else conv.walk(s) for s in body]
    conv.record(base, "nn.Cell", AUTOGRAD_FUNCTION.id, "transformed",
                "autograd.Function -> Cell with bprop(self, *inputs, out, dout); .apply(x) -> Cls()(x)")
    return node.with_changes(bases=[cst.Arg(conv.target("nn.Cell"))],
                             body=node.body.with_changes(body=new_body))


def _simple_ctx(fn: cst.FunctionDef) -> bool:
    decs = {dotted(d.decorator) for d in fn.decorators}
    return decs <= {"staticmethod"} and len(fn.params.params) >= 2 and fn.params.params[0].name.value == "ctx"


def _saved_names(fwd: cst.FunctionDef, inputs: list[str]) -> list[str] | None:
    """What ``ctx.saved_tensors`` holds, as names valid in bprop (inputs, or ``out``)."""
    returned = {code_of(s.value) for s in _walk_returns(fwd.body)}
    saved: list[str] = []
    for stmt in fwd.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                    and dotted(small.value.func) == "ctx.save_for_backward":
                for a in small.value.args:
                    n = code_of(a.value)
                    if n in inputs:
                        saved.append(n)
                    elif returned == {n}:
                        saved.append("out")
                    else:
                        return None
    return saved


def _walk_returns(block):
    for stmt in block.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Return) and small.value is not None:
                    yield small


class _CtxRewriter(cst.CSTTransformer):
    """In forward/backward: drop ctx.save_for_backward(...); ctx.saved_tensors -> the saved names;
    in bprop, a single returned gradient becomes a 1-tuple (MindSpore's bprop returns a tuple)."""

    def __init__(self, saved, is_bprop, n_inputs):
        self.saved = saved
        self.is_bprop = is_bprop
        self.n_inputs = n_inputs

    def leave_SimpleStatementLine(self, original, updated):
        body = [s for s in updated.body if not (
            isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)
            and dotted(s.value.func) == "ctx.save_for_backward") and not _self_assign(s)]
        if not body:
            return cst.RemoveFromParent()
        return updated.with_changes(body=body)

    def leave_Subscript(self, original, updated):
        if dotted(original.value) == "ctx.saved_tensors" and len(updated.slice) == 1:
            idx = updated.slice[0].slice
            if isinstance(idx, cst.Index) and isinstance(idx.value, cst.Integer):
                i = int(idx.value.value)
                if i < len(self.saved):
                    return cst.Name(self.saved[i])
        return updated

    def leave_Attribute(self, original, updated):
        if dotted(updated) == "ctx.saved_tensors":
            return parse_expr("(" + ", ".join(self.saved) + ("," if len(self.saved) == 1 else "") + ")")
        return updated

    def leave_Return(self, original, updated):
        if self.is_bprop and self.n_inputs == 1 and updated.value is not None \
                and not isinstance(updated.value, cst.Tuple):
            return updated.with_changes(value=cst.Tuple([cst.Element(updated.value, comma=cst.Comma())]))
        return updated


def _self_assign(s) -> bool:
    return (isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.value, cst.Name)
            and isinstance(s.targets[0].target, cst.Name) and s.targets[0].target.value == s.value.value)


def _strip_ctx(conv, fn, name, params, inputs, saved, is_bprop):
    body = fn.body.visit(_CtxRewriter(saved, is_bprop, len(inputs)))
    params_node = cst.Parameters([cst.Param(cst.Name(p)) for p in params])
    new = fn.with_changes(name=cst.Name(name), params=params_node, decorators=[], body=body)
    if _CTX.search(code_of(body)):
        return None
    with conv.in_function(FunctionScope(tensors=set(params[1:]))):
        return new.with_changes(body=conv.walk(new.body))


def function_apply(conv, node: cst.Call, walked: cst.Call):
    """Apply MS132: ``walked`` is ``node`` (``Cls.apply(...)``) with its arguments converted."""
    new = walked.with_changes(func=cst.Call(walked.func.value))
    conv.record(node, new, FUNCTION_APPLY.id, "exact", "a Cell with bprop is called, not applied")
    return new
