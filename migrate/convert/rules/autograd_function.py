"""torch.autograd.Function -> a Cell with ``bprop``: the class rewrite and ``.apply(x)`` calls.

When ``ctx`` only saves forward inputs or the returned value, ``forward(ctx, *inputs)`` becomes
``construct(self, *inputs)`` and ``backward(ctx, *grads)`` becomes ``bprop(self, *inputs, out,
*grads)``, reading what was saved from bprop's arguments. Otherwise (intermediate tensors saved,
attributes on ``ctx``, default arguments) the class derives from the generated ``TorchFunction``
Cell, which keeps forward and backward as they are and runs forward again on a fresh ``ctx`` in
bprop. What has no counterpart (``ctx.mark_dirty`` ...) is marked.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import code_of, dotted, is_same_names, parse_expr
from migrate.convert.registry import node_rule
from migrate.convert.scopes import FunctionScope

_CTX = re.compile(r"\bctx\b")


AUTOGRAD_FUNCTION = node_rule(
    "MS131", "autograd_function",
    "Replace a torch.autograd.Function subclass with a Cell whose construct/bprop are its forward/backward.", examples=[
    ("class S(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, i):\n"
     "        ctx.save_for_backward(i)\n"
     "        return i * 2\n"
     "\n"
     "    @staticmethod\n"
     "    def backward(ctx, g):\n"
     "        (i,) = ctx.saved_tensors\n"
     "        return g * 2\n",
     "class S(nn.Cell):\n"
     "    def construct(self, i):\n"
     "        return i * 2\n"
     "\n"
     "    def bprop(self, i, out, g):\n"
     "        return (g * 2,)\n"),
])
FUNCTION_APPLY = node_rule(
    "MS132", "function_apply",
    "Replace MyFunction.apply(x) with MyFunction()(x) (the Function became a Cell with bprop).", examples=[
    ("class S(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, i):\n"
     "        return i * 2\n"
     "\n"
     "    @staticmethod\n"
     "    def backward(ctx, g):\n"
     "        return g * 2\n"
     "\n"
     "y = S.apply(x)\n",
     "class S(nn.Cell):\n"
     "    def construct(self, i):\n"
     "        return i * 2\n"
     "\n"
     "    def bprop(self, i, out, g):\n"
     "        return (g * 2,)\n"
     "\n"
     "y = S()(x)\n"),
])
FUNCTION_RECOMPUTE = node_rule(
    "MS133", "autograd_function_recompute",
    "Replace a torch.autograd.Function whose ctx keeps more than inputs/output with a TorchFunction "
    "Cell: its bprop runs forward again on a fresh ctx, then backward.", needs=["TorchFunction"], examples=[
    ("class S(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, i, k=2):\n"
     "        ctx.k = k\n"
     "        return i * k\n"
     "\n"
     "    @staticmethod\n"
     "    def backward(ctx, g):\n"
     "        return g * ctx.k, None\n",
     "class S(TorchFunction):\n"
     "    @staticmethod\n"
     "    def forward(ctx, i, k=2):\n"
     "        ctx.k = k\n"
     "        return i * k\n"
     "\n"
     "    @staticmethod\n"
     "    def backward(ctx, g):\n"
     "        return g * ctx.k, None\n"),
])

# ctx methods whose effect MindSpore's bprop cannot reproduce
_CTX_UNSUPPORTED = ("mark_dirty", "mark_non_differentiable", "set_materialize_grads", "save_for_forward")


def rewrite_function_class(converter, node: cst.ClassDef):
    """Apply MS131 (or MS133) to a class whose base is torch.autograd.Function (marked when it cannot)."""
    converter.output.reshaped = True
    body = node.body.body
    fwd = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"), None)
    bwd = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "backward"), None)
    base = node.bases[0].value
    if fwd is None or bwd is None or not _simple_ctx(fwd) or not _simple_ctx(bwd):
        converter.uses_alias(base)
        converter.mark(base, "MS901", "torch.autograd.Function needs static forward(ctx, ...) and backward(ctx, ...)")
        return node
    unsupported = sorted({m for m in _CTX_UNSUPPORTED for f in (fwd, bwd) if f"ctx.{m}" in code_of(f.body)})
    if unsupported:
        converter.uses_alias(base)
        converter.mark(base, "MS901", f"torch.autograd.Function: ctx.{unsupported[0]} has no counterpart "
                                 "in a MindSpore bprop")
        return node
    inputs = [p.name.value for p in fwd.params.params][1:]
    grads = [p.name.value for p in bwd.params.params][1:]
    out = next(n for n in ("out", *(f"out_{i}" for i in range(1, 100))) if n not in (*inputs, *grads))
    # bprop takes the inputs, the output and the gradients: one name each (forward(ctx, x1, out))
    distinct = not set(inputs) & set(grads)
    saved = _saved_names(fwd, inputs, out) if _plain_params(fwd) and _plain_params(bwd) and distinct else None
    new_fwd = new_bwd = None
    if saved is not None and converter.allows(AUTOGRAD_FUNCTION.id):
        new_fwd = _stripped(fwd, "construct", ["self", *inputs], saved, 0)
        new_bwd = _stripped(bwd, "bprop", ["self", *inputs, out, *grads], saved, len(inputs))
    if new_fwd is None or new_bwd is None:
        return _recompute(converter, node)
    # the class body is rewritten before it is walked: its statements no longer match the
    # source positions the walker counts
    with converter.unaligned(node.body):
        converter.walk_state.cell_classes.add(node.name.value)
        converter.walk_state.function_classes.add(node.name.value)
        converter.class_scope.cell = True
        converter.output.used.add("nn")
        new_body = [_walk_body(converter, new_fwd) if s is fwd else _walk_body(converter, new_bwd) if s is bwd
                    else converter.walk(s) for s in body]
    converter.record(base, "nn.Cell", AUTOGRAD_FUNCTION.id, "transformed",
                "autograd.Function -> Cell with bprop(self, *inputs, out, dout); .apply(x) -> Cls()(x)")
    return node.with_changes(bases=[cst.Arg(converter.target("nn.Cell"))],
                             body=node.body.with_changes(body=new_body))


def _recompute(converter, node: cst.ClassDef):
    """Apply MS133: derive from the generated TorchFunction; forward/backward stay as written."""
    base = node.bases[0].value
    if not converter.allows(FUNCTION_RECOMPUTE.id):
        converter.uses_alias(base)
        converter.mark(base, "MS901", "torch.autograd.Function keeps more than inputs/output in ctx")
        return node
    converter.walk_state.function_classes.add(node.name.value)
    local = converter.output.signatures.helper("TorchFunction")
    # the class becomes a Cell: its forward's inputs are tensors, as a second conversion (which
    # sees a Cell defining forward) finds them
    converter.class_scope.cell = True
    converter.walk_state.cell_classes.add(node.name.value)
    body = [converter.walk(s) for s in node.body.body]
    converter.record(base, local, FUNCTION_RECOMPUTE.id, "transformed",
                "autograd.Function -> TorchFunction Cell: bprop runs forward again (on a fresh ctx) "
                "before backward, so forward costs twice in a backward pass")
    return node.with_changes(bases=[cst.Arg(cst.Name(local))], body=node.body.with_changes(body=body))


def _plain_params(fn: cst.FunctionDef) -> bool:
    """No defaults, no */** parameters: bprop's positional arguments are then fixed."""
    ps = fn.params
    return not (ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or ps.star_kwarg or ps.kwonly_params
                or ps.posonly_params or any(p.default is not None for p in ps.params))


def _simple_ctx(fn: cst.FunctionDef) -> bool:
    decs = {dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "?"
            for d in fn.decorators}
    # once_differentiable, and the autocast casts of custom_fwd/custom_bwd (autocast regions are
    # unwrapped in converted code): nothing of them is left in bprop
    plain = {d for d in decs if not d.endswith(("once_differentiable", "custom_fwd", "custom_bwd"))} \
        <= {"staticmethod"}
    return plain and len(fn.params.params) >= 2 and fn.params.params[0].name.value == "ctx"


def _saved_names(fwd: cst.FunctionDef, inputs: list[str], out: str) -> list[str] | None:
    """What ``ctx.saved_tensors`` holds, as names valid in bprop (inputs, or ``out``, the name of
    bprop's output parameter)."""
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
                        saved.append(out)
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
    """``i = i``, ``(i,) = (i,)``: what ``i = ctx.saved_tensors[0]`` or ``(i,) = ctx.saved_tensors``
    became once the saved names are bprop's own arguments."""
    return isinstance(s, cst.Assign) and all(is_same_names(t.target, s.value) for t in s.targets)


def _stripped(fn, name, params, saved, n_inputs):
    """``fn`` renamed to ``name(params)`` with its ctx uses replaced by ``saved``; None when it
    still reads ctx. ``n_inputs`` > 0 for bprop (a single gradient becomes a 1-tuple)."""
    body = fn.body.visit(_CtxRewriter(saved, n_inputs > 0, n_inputs))
    if _CTX.search(code_of(body)):
        return None
    params_node = cst.Parameters([cst.Param(cst.Name(p)) for p in params])
    return fn.with_changes(name=cst.Name(name), params=params_node, decorators=[], body=body)


def _walk_body(converter, fn):
    params = [p.name.value for p in fn.params.params]
    with converter.in_function(FunctionScope(tensors=set(params[1:]))):
        return fn.with_changes(body=converter.walk(fn.body))


def function_apply(converter, node: cst.Call, walked: cst.Call):
    """Apply MS132: ``walked`` is ``node`` (``Cls.apply(...)``) with its arguments converted."""
    new = walked.with_changes(func=cst.Call(walked.func.value))
    converter.record(node, new, FUNCTION_APPLY.id, "exact", "a Cell with bprop is called, not applied")
    return new
