"""Gradient checkpointing and reversible blocks written as torch.autograd.Functions.

A Function whose forward runs a computation without recording it (``torch.no_grad()``) and whose
backward runs it again with grad on and differentiates it (``torch.autograd.grad`` /
``torch.autograd.backward`` / ``.backward()``) only saves memory: its gradients are those of the
plain computation. Two forms are recognised by that structure (never by a class name):

- the backward itself recomputes a callable that forward called (``ctx.run_function(...)``):
  guided-diffusion's ``CheckpointFunction``, a hand-written ``torch.utils.checkpoint``;
- the backward calls a method of a block class of the file (``block.backward_pass(y, dy)``) that
  recomputes what the block's own forward calls (``self.f``, ``self.g``) and differentiates it:
  the reversible blocks of RevNet / Reformer, whose forward runs under ``torch.no_grad()``.

Such a Function becomes a plain class whose static ``apply`` is its forward without ``ctx`` and
without the no-grad region (MS230; call sites ``F.apply(...)`` stay valid in every file), and the
block's forward loses its no-grad region (MS231): the composition is differentiated directly.
Anything else stays as the other autograd.Function rules leave it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from migrate.convert.comments import own_comments
from migrate.convert.cst import code_of, dotted, is_same_names
from migrate.convert.registry import node_rule

RECOMPUTED_FUNCTION = node_rule(
    "MS230", "recomputed_function",
    "Replace a torch.autograd.Function whose backward recomputes its forward and differentiates it "
    "(gradient checkpointing) with a plain class whose static apply is the forward.", examples=[
    ("class Ckpt(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, fn, x):\n"
     "        ctx.fn = fn\n"
     "        ctx.x = x\n"
     "        with torch.no_grad():\n"
     "            return fn(x)\n"
     "\n"
     "    @staticmethod\n"
     "    def backward(ctx, g):\n"
     "        x = ctx.x.detach().requires_grad_(True)\n"
     "        with torch.enable_grad():\n"
     "            y = ctx.fn(x)\n"
     "        return (None,) + torch.autograd.grad(y, (x,), g)\n",
     "class Ckpt:\n"
     "    @staticmethod\n"
     "    def apply(fn, x):\n"
     "        return fn(x)\n"),
])
REVERSIBLE_BLOCK = node_rule(
    "MS231", "reversible_block",
    "Replace the no-grad region of a reversible block's forward (whose Function recomputes it in "
    "backward) with its statements: the block is differentiated directly.", examples=[
    ("class Half(nn.Module):\n"
     "    def __init__(self, f):\n"
     "        super().__init__()\n"
     "        self.f = f\n"
     "\n"
     "    def forward(self, x):\n"
     "        with torch.no_grad():\n"
     "            y = x + self.f(x)\n"
     "        return y\n"
     "\n"
     "    def backward_pass(self, y, dy):\n"
     "        with torch.enable_grad():\n"
     "            y.requires_grad = True\n"
     "            torch.autograd.backward(self.f(y), dy)\n"
     "        return y.grad\n"
     "\n"
     "\n"
     "class Rev(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, x, block):\n"
     "        ctx.block = block\n"
     "        return block(x)\n"
     "\n"
     "    @staticmethod\n"
     "    def backward(ctx, dy):\n"
     "        return ctx.block.backward_pass(None, dy), None\n",
     "class Half(nn.Cell):\n"
     "    def __init__(self, f):\n"
     "        super().__init__()\n"
     "        self.f = f\n"
     "\n"
     "    def construct(self, x):\n"
     "        y = x + self.f(x)\n"
     "        return y\n"
     "\n"
     "\n"
     "class Rev:\n"
     "    @staticmethod\n"
     "    def apply(x, block):\n"
     "        return block(x)\n"),
])

_FUNCTION_BASES = ("torch.autograd.Function", "torch.autograd.function.Function")
_NO_GRAD = {"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
            "torch.inference_mode", "torch.autograd.inference_mode"}
_DIFFERENTIATE = {"torch.autograd.grad", "torch.autograd.backward"}
# ctx calls that only tell autograd about the backward pass, which no longer exists
_CTX_CALLS = {"save_for_backward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads"}
# what a ctx attribute may hold and be dropped unread: references, and copies made for backward
_PURE_CALLS = {"detach", "clone", "list", "tuple", "len"}


@dataclass(frozen=True)
class Recompute:
    """What the pass before the walk found: Function classes to write as a plain forward, and the
    block classes whose forward loses its no-grad region: name -> (the method their Functions'
    backward calls, whether nothing else calls it)."""

    functions: frozenset = frozenset()
    blocks: dict = field(default_factory=dict)


NOTHING = Recompute()


def find_recomputes(module: cst.Module, code: str, qual) -> Recompute:
    """The :class:`Recompute` facts of ``module`` (``qual`` resolves a name to torch's)."""
    if "autograd" not in code and "Function" not in code or "backward" not in code and "grad(" not in code:
        return NOTHING
    classes = {s.name.value: s for s in module.body if isinstance(s, cst.ClassDef)}
    functions, blocks = set(), {}
    for name, cls in classes.items():
        if not any(qual(b.value) in _FUNCTION_BASES for b in cls.bases):
            continue
        fwd, bwd = _method(cls, "forward"), _method(cls, "backward")
        if fwd is None or bwd is None or plain_forward(fwd, qual) is None:
            continue
        found = _recomputing_blocks(bwd, fwd, classes, qual)
        if found is None:
            continue
        functions.add(name)
        blocks.update({c: (m, code_of(bwd.body).count(f".{m}(")) for c, m in found.items()})
    # a block's backward method that only those backward passes call goes with them
    blocks = {c: (m, code.count(f".{m}(") == sum(n for c2, (m2, n) in blocks.items() if m2 == m))
              for c, (m, _) in blocks.items()}
    return Recompute(frozenset(functions), blocks) if functions else NOTHING


def _recomputing_blocks(bwd, fwd, classes, qual) -> dict | None:
    """{} when backward recomputes a callable of forward and differentiates it; {block class:
    method} when it calls such a method of block classes; None when neither."""
    if _differentiates(bwd, qual) and _shared_callee(bwd, fwd, heads={"ctx", *_param_names(fwd)[1:]}):
        return {}
    called = {c.func.attr.value for c in _nodes_of(bwd, cst.Call) if isinstance(c.func, cst.Attribute)}
    blocks = {}
    for cname, cls in classes.items():
        for meth in called:
            m, block_fwd = _method(cls, meth), _method(cls, "forward")
            if m is None or block_fwd is None or meth == "forward":
                continue
            if _differentiates(m, qual) and _shared_callee(m, block_fwd, heads={"self"}) \
                    and _without_no_grad(block_fwd, qual) is not None:
                blocks[cname] = meth
    return blocks or None


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    if not isinstance(cls.body, cst.IndentedBlock):
        return None
    return next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _param_names(fn: cst.FunctionDef) -> list[str]:
    ps = fn.params
    names = [p.name.value for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)]
    for star in (ps.star_arg, ps.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return names


def _nodes_of(node, kind) -> list:
    """Every node of type ``kind`` in ``node`` (itself included), in source order."""
    found, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, kind):
            found.append(n)
        todo.extend(reversed(n.children))
    return found


def _differentiates(fn: cst.FunctionDef, qual) -> bool:
    """``fn`` calls torch.autograd.grad / torch.autograd.backward, or a ``.backward(...)`` method."""
    return any(qual(c.func) in _DIFFERENTIATE or
               isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward" and qual(c.func) is None
               for c in _nodes_of(fn.body, cst.Call))


def _shared_callee(a: cst.FunctionDef, b: cst.FunctionDef, heads: set[str]) -> bool:
    """``a`` and ``b`` call the same callable, one reached from ``heads`` (``ctx.run_function``,
    ``self.f``, a parameter of forward; ``ctx.fn`` in backward is forward's ``fn``, kept there)."""
    def callees(fn):
        return {d.removeprefix("ctx.") for d in (dotted(c.func) for c in _nodes_of(fn.body, cst.Call))
                if d and d.split(".")[0] in heads}
    return bool(callees(a) & callees(b))


def _is_no_grad(item: cst.WithItem, qual) -> bool:
    return item.asname is None and isinstance(item.item, cst.Call) and qual(item.item.func) in _NO_GRAD


class _Unwrap(cst.CSTTransformer):
    """A ``with torch.no_grad():`` block replaced by its statements; ``failed`` when a no-grad
    context cannot be (another item beside it, or ``as``)."""

    def __init__(self, qual):
        self.qual, self.failed, self.unwrapped = qual, False, 0

    def leave_With(self, original, updated):
        hits = [i for i in updated.items if _is_no_grad(i, self.qual)]
        if not hits:
            if any(isinstance(i.item, cst.Call) and self.qual(i.item.func) in _NO_GRAD for i in updated.items):
                self.failed = True
            return updated
        if len(updated.items) != 1 or not isinstance(updated.body, cst.IndentedBlock):
            self.failed = True
            return updated
        self.unwrapped += 1
        body = list(updated.body.body)
        # the with's blank lines and comments (its own line's too) stay above its first statement
        own = updated.body.header.comment
        kept = [*updated.leading_lines, *([cst.EmptyLine(comment=own)] if own is not None else [])]
        body[0] = body[0].with_changes(leading_lines=[*kept, *body[0].leading_lines])
        return cst.FlattenSentinel(body)


def _without_no_grad(fn: cst.FunctionDef, qual) -> cst.FunctionDef | None:
    """``fn`` with its no-grad regions unwrapped; None when one cannot be."""
    unwrap = _Unwrap(qual)
    new = fn.visit(unwrap)
    return None if unwrap.failed else new


class _Ctx(cst.CSTTransformer):
    """``ctx.attr`` -> ``attr``; calls that only speak to autograd (``ctx.save_for_backward``) go."""

    def leave_SimpleStatementLine(self, original, updated):
        # (the statements as written: their ctx.<name> are plain names by now)
        body = [new for s, new in zip(original.body, updated.body) if not (
            isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)
            and isinstance(s.value.func, cst.Attribute) and dotted(s.value.func.value) == "ctx"
            and s.value.func.attr.value in _CTX_CALLS)]
        return updated.with_changes(body=body) if body else cst.RemoveFromParent()

    def leave_Attribute(self, original, updated):
        if isinstance(updated.value, cst.Name) and updated.value.value == "ctx":
            return cst.Name(updated.attr.value)
        return updated


class _Names(cst.CSTVisitor):
    """Every name read or bound, ``ctx.attr``'s ``attr`` aside."""

    def __init__(self):
        self.names: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False


def _names(node) -> list[str]:
    v = _Names()
    node.visit(v)
    return v.names


def _ctx_writes(fwd: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """``ctx.attr = value`` assignments of forward: attr -> the values."""
    writes: dict[str, list] = {}
    for assign in _nodes_of(fwd.body, cst.Assign):
        for t in assign.targets:
            if isinstance(t.target, cst.Attribute) and dotted(t.target.value) == "ctx":
                writes.setdefault(t.target.attr.value, []).append(assign.value)
    return writes


def _pure(value) -> bool:
    """``value`` computes nothing worth keeping unread: names, items, and copies."""
    return all((dotted(c.func) or "").rsplit(".", 1)[-1] in _PURE_CALLS for c in _nodes_of(value, cst.Call))


class _DropUnread(cst.CSTTransformer):
    """``x = x`` (what ``ctx.x = x`` became) and an unread copy kept for backward go."""

    def __init__(self, unread: set[str]):
        self.unread = unread

    def leave_SimpleStatementLine(self, original, updated):
        body = [s for s in updated.body if not (isinstance(s, cst.Assign) and (
            all(is_same_names(t.target, s.value) for t in s.targets)
            or len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name)
            and s.targets[0].target.value in self.unread and _pure(s.value)))]
        return updated.with_changes(body=body) if body else cst.RemoveFromParent()


def plain_forward(fwd: cst.FunctionDef, qual) -> cst.FunctionDef | None:
    """Forward as ``@staticmethod def apply(*inputs)``: no ctx, no no-grad region, nothing kept
    for backward; None when ctx is used otherwise or a ctx attribute's name is taken."""
    if len(fwd.params.params) < 1 or fwd.params.params[0].name.value != "ctx":
        return None
    writes = _ctx_writes(fwd)
    taken = set(_names(fwd.body)) | set(_param_names(fwd))
    for attr, values in writes.items():
        if attr in taken and not all(isinstance(v, cst.Name) and v.value == attr for v in values):
            return None  # `ctx.x = f(x)` beside a name x: one name would stand for two values
    body = _without_no_grad(fwd, qual)
    if body is None:
        return None
    body = body.body.visit(_Ctx())
    counts: dict[str, int] = {}
    for n in _names(body):
        counts[n] = counts.get(n, 0) + 1
    unread = {a for a, values in writes.items() if a not in taken and counts.get(a, 0) == len(values)}
    body = body.visit(_DropUnread(unread))
    if "ctx" in _names(body):
        return None
    params = fwd.params.with_changes(params=fwd.params.params[1:])
    return fwd.with_changes(name=cst.Name("apply"), params=params, body=body,
                            decorators=[cst.Decorator(cst.Name("staticmethod"))])


def rewrite_recomputed(converter, node: cst.ClassDef) -> cst.ClassDef | None:
    """Apply MS230 to a Function class the pass before the walk found (None: left to the others)."""
    fwd, bwd = _method(node, "forward"), _method(node, "backward")
    apply = plain_forward(fwd, converter.qual) if fwd is not None else None
    if apply is None or not converter.allows(RECOMPUTED_FUNCTION.id):
        return None
    converter.output.reshaped = True
    members = [apply if s is fwd else s for s in node.body.body if s is not bwd]
    with converter.unaligned(node.body):
        walked = [converter.walk(s) for s in members]
    converter.record(node.bases[0].value, f"class {node.name.value}", RECOMPUTED_FUNCTION.id, "approximate",
                     "an autograd.Function whose backward recomputes its forward and differentiates it "
                     f"(gradient checkpointing): {node.name.value}.apply(...) runs forward plainly, with the "
                     "same values and gradients; its activations are kept for the backward pass instead of "
                     "recomputed (more memory)")
    return node.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT,
                             body=_with_comments_of(bwd, node.body.body, node.body.with_changes(body=walked)))


def rewrite_block(converter, node: cst.ClassDef) -> cst.ClassDef | None:
    """Apply MS231 to a reversible block class (None: nothing to unwrap)."""
    fwd = _method(node, "forward")
    new_fwd = _without_no_grad(fwd, converter.qual) if fwd is not None else None
    if new_fwd is None or new_fwd.deep_equals(fwd) or not converter.allows(REVERSIBLE_BLOCK.id):
        return None
    converter.output.reshaped = True
    method, only_there = converter.facts.recompute.blocks[node.name.value]
    gone = _method(node, method) if only_there else None
    new = node.with_changes(body=node.body.with_changes(
        body=[new_fwd if s is fwd else s for s in node.body.body if s is not gone]))
    with converter.unaligned(node.body):
        walked = converter.generic(new)
    if gone is not None:
        walked = walked.with_changes(body=_with_comments_of(gone, node.body.body, walked.body))
    converter.record("with torch.no_grad():", "", REVERSIBLE_BLOCK.id, "approximate",
                     f"{node.name.value}.forward runs without its no-grad region: the autograd.Function "
                     f"that recomputed it in {method}() (a reversible block) now runs forward plainly, so "
                     f"the block is differentiated directly (same gradients, activations kept); "
                     + (f"{method}(), which only that Function's backward called, is removed" if gone is not None
                        else f"{method}() is no longer called by it"))
    return walked


def _with_comments_of(removed: cst.FunctionDef, before: list, block: cst.IndentedBlock) -> cst.IndentedBlock:
    """``block`` (a class body without the method ``removed``, which ``before`` held) with the
    comments written in that method kept where it was: above the member that followed it, or
    at the end of the class (not the markers a walk of it may have left: the code they mark is gone)."""
    lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in own_comments(removed, nested=True)
             if not text.startswith("# migrate:")]
    if not lines:
        return block
    at = next(i for i, st in enumerate(before) if st is removed)
    if at < len(block.body):  # the members after it kept their places, one up
        body = list(block.body)
        body[at] = body[at].with_changes(leading_lines=[*lines, *body[at].leading_lines])
        return block.with_changes(body=body)
    return block.with_changes(footer=[*block.footer, *lines])
