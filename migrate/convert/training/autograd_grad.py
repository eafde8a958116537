"""``g = torch.autograd.grad(f(x), x, create_graph=True)[0]`` -> ``g = ms.grad(lambda x: f(x))(x)``.

The pattern is clear when ``inputs`` is one name and ``outputs`` is an expression whose names
are either that input or assigned by a simple statement earlier in the same block (inlined
into the lambda). ``x.requires_grad_()`` on that input is dropped: ms.grad differentiates
with respect to the lambda's argument.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import bind_args, code_of, dotted, method_call, parse_expr, removed, single_assign
from migrate.convert.training.rules import AUTOGRAD_GRAD
from migrate.convert.training.tree import Names

_PARAMS = ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs",
           "allow_unused", "is_grads_batched", "materialize_grads"]
_UNDERSTOOD = {"outputs", "inputs", "grad_outputs", "retain_graph", "create_graph"}


class AutogradGrad:
    """Rewrite the ``torch.autograd.grad`` assignments of one statement list (a
    :meth:`~migrate.convert.training.tree.StatementTree.walk_blocks` function)."""

    def __init__(self, tp):
        self.tp = tp

    def __call__(self, body):
        body = list(body)
        changed = False
        for i, st in enumerate(body):
            new = self._rewrite(body, i)
            if new is not None:
                body[i] = new[0]
                for j in new[1]:
                    old = body[j]
                    self.tp.record(old, "", AUTOGRAD_GRAD.id, "exact",
                                   "requires_grad_ dropped: ms.grad differentiates its lambda's argument",
                                   before=code_of(old))
                    body[j] = removed(old)
                changed = True
        return [b for x in body for b in (x if isinstance(x, list) else [x])] if changed else None

    def _rewrite(self, body, i):
        """(the new statement, indices of requires_grad_ statements to drop), or None."""
        st = body[i]
        a = single_assign(st)
        if a is None:
            return None
        value = a.value
        index0 = False
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 \
                and isinstance(value.slice[0].slice, cst.Index) \
                and code_of(value.slice[0].slice.value) == "0":
            index0, value = True, value.value
        if not (isinstance(value, cst.Call) and self.tp.qual(value.func) == "torch.autograd.grad"):
            return None
        args = bind_args(value, _PARAMS)
        if args is None or "outputs" not in args or not isinstance(args.get("inputs"), cst.Name) \
                or set(args) - _UNDERSTOOD:
            return None
        x = args["inputs"].value
        out = self._outputs(args)
        if out is None:
            return None
        values, opaque = _values_of_x(body, i, x)
        if opaque & set(Names.of(out).reads):
            return None  # a name computed from x by a statement that cannot be inlined
        expr = out.visit(_Inline(values))
        if x not in Names.of(expr).reads:
            return None
        drops = [j for j in range(i) if requires_grad_of(body[j], x)]
        for t in a.targets:
            self.tp.tensor_names.update(Names.bound_by(t))
        self.tp.converter.output.used.add("ms")
        grad = f"ms.grad(lambda {x}: {code_of(expr)})({x})"
        new_value = parse_expr(grad if index0 else f"({grad},)")
        new = st.with_changes(body=[a.with_changes(value=new_value)])
        self.tp.record(st, new, AUTOGRAD_GRAD.id, "transformed",
                       "torch.autograd.grad(outputs, x) -> ms.grad(lambda x: outputs)(x): the graph "
                       "is rebuilt from x (higher order works: nothing to retain or create)",
                       before=code_of(st))
        return new, drops

    def _outputs(self, args: dict):
        """What to differentiate: ``outputs``, summed when ``grad_outputs`` is ones_like(outputs)."""
        out = args["outputs"]
        go = args.get("grad_outputs")
        if go is None:
            return out
        # grad_outputs=ones_like(outputs): the gradient of the sum
        if not (isinstance(go, cst.Call) and (self.tp.qual(go.func) or "").endswith("ones_like")
                and go.args and code_of(go.args[0].value) == code_of(out)):
            return None
        return cst.Call(cst.Attribute(_paren(out), cst.Name("sum")))


def _values_of_x(body: list, i: int, x: str) -> tuple[dict, set]:
    """The names computed from ``x`` before statement ``i`` of the block, as expressions of ``x``
    (each ``name = expr`` with the earlier ones inlined), and the names computed from ``x`` by
    statements that cannot be inlined (loops, tuple or augmented assignments). Names that do not
    depend on ``x`` (the network, constants) stay names: the lambda reads them as they are."""
    values: dict = {}
    opaque: set = set()
    for st in body[:i]:
        a = single_assign(st)
        names = Names.of(st)
        if x in names.writes:
            values, opaque = {}, set()  # a new x: what came from the old one is a constant
            continue
        depends = x in names.reads or bool(set(names.reads) & (set(values) | opaque))
        simple = a is not None and len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name)
        inlined = a.value.visit(_Inline(values)) if depends and simple \
            and not set(Names.of(a.value).reads) & opaque else None
        for name in names.writes:
            values.pop(name, None)
            opaque.discard(name)
            if inlined is not None:
                values[name] = inlined
            elif depends:
                opaque.add(name)
    return values, opaque


class _Inline(cst.CSTTransformer):
    def __init__(self, subst):
        self.subst = subst

    def leave_Name(self, original, updated):
        v = self.subst.get(updated.value)
        return _paren(v) if v is not None else updated

    def visit_Attribute(self, node):
        node.value.visit(self)
        return False

    def leave_Attribute(self, original, updated):
        return updated.with_changes(value=original.value.visit(self))


def _paren(e):
    if isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def requires_grad_of(st, x: str) -> bool:
    """Whether ``st`` is ``x.requires_grad_(...)`` or ``x.requires_grad = ...``."""
    m = method_call(st, "requires_grad_")
    if m is not None and dotted(m[0]) == x:
        return True
    a = single_assign(st)
    return a is not None and dotted(a.targets[0].target) == f"{x}.requires_grad"
