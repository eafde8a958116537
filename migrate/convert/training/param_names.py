"""Parameter names tested as strings (issue 10 class G): inside ``for name, p in
m.named_parameters():``, tests of ``name`` against torch's parameter names also accept the names
the converted layers give the same parameters.

torch's ``weight``/``bias`` are MindSpore's ``gamma``/``beta`` in the norm layers, ``weight`` is
``embedding_table`` in Embedding, ``running_mean``/``running_var`` are ``moving_mean``/
``moving_variance`` (the checker's weight map, migrate/check/weights.py, has the same pairs).
So ``pn.endswith('weight')`` becomes ``pn.endswith(('weight', 'gamma', 'embedding_table'))``,
``pn == 'bias'`` becomes ``pn in ('bias', 'beta')``, ``'bias' in pn`` becomes
``any(s in pn for s in ('bias', 'beta'))``: the parameters of the same layers pass the tests
(weight decay groups, custom inits). Approximate: a parameter of the user's own that is named like
a MindSpore one (``gamma``) passes too.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import dotted
from migrate.convert.training.manual import inplace_updates
from migrate.convert.training.rules import PARAM_INPLACE, PARAM_NAME_TESTS
from migrate.convert.training.targets import param_loop

# torch parameter name -> the names MindSpore's layers give it (besides the torch name itself)
MS_NAMES = {"weight": ("gamma", "embedding_table"), "bias": ("beta",),
            "running_mean": ("moving_mean",), "running_var": ("moving_variance",)}
_LOOPS = ("named_parameters", "named_buffers")


def param_name_tests(tp, body: list):
    """The module's statements with the parameter-name tests of every ``named_parameters()`` loop
    rewritten, or None when nothing changed."""
    return tp.tree.walk_blocks(body, lambda stmts: _block(tp, stmts))


def _block(tp, stmts: list):
    out, changed = [], False
    for st in stmts:
        name, param = _loop_names(st)
        if name is not None and tp.converter.allows(PARAM_NAME_TESTS.id):
            new = st.with_changes(body=st.body.visit(_Tests(tp, name, st)))
            if not new.body.deep_equals(st.body):
                st = tp.tree.rebuilt(st, new)
                changed = True
        if param is not None and param_loop(tp, st) is None and tp.converter.allows(PARAM_INPLACE.id):
            new = inplace_updates(tp, st, param)  # (a loop that reads .grad is a training step's)
            if new is not None:
                st, changed = new, True
        out.append(st)
    return out if changed else None


def _loop_names(st) -> tuple[str | None, str | None]:
    """(``n``, ``p``) of ``for n, p in x.named_parameters(...):``, (None, ``p``) of
    ``for p in x.parameters():``, else (None, None)."""
    if not (isinstance(st, cst.For) and isinstance(st.iter, cst.Call) and isinstance(st.iter.func, cst.Attribute)):
        return None, None
    attr, t = st.iter.func.attr.value, st.target
    if attr == "parameters" and isinstance(t, cst.Name):
        return None, t.value
    if attr not in _LOOPS or not (isinstance(t, cst.Tuple) and len(t.elements) == 2
                                  and isinstance(t.elements[0].value, cst.Name)):
        return None, None
    p = t.elements[1].value
    return t.elements[0].value.value, p.value if isinstance(p, cst.Name) and attr == "named_parameters" else None


def _aliases(text: str) -> list[str] | None:
    """``'c_proj.weight'`` -> ['c_proj.weight', 'c_proj.gamma', 'c_proj.embedding_table'], or None."""
    head, _, last = text.rpartition(".")
    if last not in MS_NAMES:
        return None
    prefix = head + "." if head else ""
    return [text] + [prefix + alt for alt in MS_NAMES[last]]


def _literal(node) -> str | None:
    if isinstance(node, cst.SimpleString) and node.prefix == "":
        return node.evaluated_value
    return None


def _strings(node) -> list[str] | None:
    """The strings of a literal or of a tuple of literals, expanded by :func:`_aliases`; None
    when nothing expands."""
    items = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
    texts = [_literal(x) for x in items]
    if any(t is None for t in texts):
        return None
    out, grew = [], False
    for t in texts:
        al = _aliases(t)
        grew |= al is not None
        out += al if al is not None else [t]
    return out if grew else None


def _tuple(texts: list[str]) -> str:
    return "(" + ", ".join(repr(t) for t in texts) + ("," if len(texts) == 1 else "") + ")"


class _Tests(cst.CSTTransformer):
    """String tests of the loop's name variable ``name``."""

    def __init__(self, tp, name: str, loop):
        self.tp = tp
        self.name = name
        self.loop = loop  # the changes are recorded at the loop's line

    def _note(self, node, new):
        self.tp.record(self.loop, new, PARAM_NAME_TESTS.id, "approximate",
                       f"{self.name} is a parameter name: MindSpore's layers name weight/bias "
                       "gamma/beta (norms) and embedding_table (Embedding)", before=node)
        return new

    def leave_Call(self, original, updated):
        f = updated.func
        if isinstance(f, cst.Attribute) and f.attr.value in ("endswith", "startswith") \
                and dotted(f.value) == self.name and len(updated.args) == 1:
            texts = _strings(updated.args[0].value)
            if texts is not None:
                arg = updated.args[0].with_changes(value=cst.parse_expression(_tuple(texts)))
                return self._note(original, updated.with_changes(args=[arg]))
        return updated

    def leave_Comparison(self, original, updated):
        if len(updated.comparisons) != 1:
            return updated
        op, right = updated.comparisons[0].operator, updated.comparisons[0].comparator
        left = updated.left
        if isinstance(op, (cst.Equal, cst.NotEqual)):
            lit = right if dotted(left) == self.name else left if dotted(right) == self.name else None
            texts = _strings(lit) if lit is not None else None
            if texts is not None:
                neg = "not in" if isinstance(op, cst.NotEqual) else "in"
                return self._note(original, cst.parse_expression(f"{self.name} {neg} {_tuple(texts)}"))
        if isinstance(op, (cst.In, cst.NotIn)) and dotted(right) == self.name:
            texts = _strings(left)
            if texts is not None:
                expr = f"{self.tp.converter.builtin('any')}(s in {self.name} for s in {_tuple(texts)})"
                return self._note(original, cst.parse_expression(expr if isinstance(op, cst.In) else f"not {expr}"))
        if isinstance(op, (cst.In, cst.NotIn)) and dotted(left) == self.name and isinstance(right, cst.Tuple):
            texts = _strings(right)
            if texts is not None:
                return self._note(original, updated.with_changes(comparisons=[updated.comparisons[0].with_changes(
                    comparator=cst.parse_expression(_tuple(texts)))]))
        return updated

