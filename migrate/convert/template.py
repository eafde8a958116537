"""Expression templates of mapping-table entries: a torch call written as a composition of
MindSpore ops (``template = "{input} / ops.clamp(ops.norm({input}, {p}, {dim}, keepdim=True), min={eps})"``).

A template is used where MindSpore has no single op with torch's meaning. Its slots are the
torch parameter names, filled with the call's (converted) arguments or the torch defaults; target
names (``ops.x``, ``ms.x``, ``nn.x``) get the file's local names for the target modules.

``np.`` and ``math.`` names import numpy / math. A ``{*name}`` slot spreads a ``*name``
parameter's values (``np.broadcast_shapes({*shapes})``).

A slot used more than once whose argument is not a plain name or literal (``self.proj(x)``) is
evaluated once: the template becomes ``(lambda _input: ...)(self.proj(x))``, so the call is never
repeated and random or costly arguments keep torch's meaning.
"""
from __future__ import annotations

import re
import string

import libcst as cst

from migrate.convert.cst import code_of, parse_expr

_TARGET_NAME = re.compile(r"(?<![\w.])(ms|ops|nn|np|math)\.([A-Za-z_]\w*)")
_PURE_LEAVES = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)


def slots(template: str) -> list[str]:
    """The slot names of ``template`` in order of appearance (repeats kept)."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def is_pure(node: cst.BaseExpression) -> bool:
    """True for expressions that are cheap and free of effects to evaluate twice: names, attribute
    chains of names, number/string literals, and negated numbers."""
    if isinstance(node, _PURE_LEAVES):
        return True
    if isinstance(node, cst.Attribute):
        return is_pure(node.value)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    return False


def _text(node: cst.BaseExpression) -> str:
    text = code_of(node)
    if isinstance(node, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.Call,
                         cst.Subscript, cst.Tuple, cst.List)):
        return text
    return f"({text})"


def _spread(node: cst.BaseExpression) -> str:
    """The values of a ``*name`` parameter as call arguments (``a, b``)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return ", ".join(code_of(e.value) if not isinstance(e, cst.StarredElement) else code_of(e)
                         for e in node.elements)
    return f"*{_text(node)}"


def _fresh(name: str, others: list[str]) -> str:
    """A lambda parameter name that no other argument's text uses."""
    base = f"_{name}"
    candidate, i = base, 0
    while any(re.search(rf"\b{re.escape(candidate)}\b", t) for t in others):
        i += 1
        candidate = f"{base}{i}"
    return candidate


def render(converter, template: str, values: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """Fill ``template`` with ``values`` (slot name -> argument expression) for ``converter``'s target.

    Args:
        converter: the Converter (gives local names for ``ops``/``ms``/``nn`` and notes the imports).
        template: the entry's template text.
        values: every slot's argument (as written, converted) or default expression.

    Returns:
        The expression to write in place of the call.

    Raises:
        KeyError: when a slot has no value (a table error).

    Example:
        ``render(converter, "ops.gather_elements({input}, {dim}, {index})", ...)`` gives
        ``ops.gather_elements(x, 1, idx)``.
    """
    text = converter.builtins_in(_TARGET_NAME.sub(lambda m: converter.tname(f"{m.group(1)}.{m.group(2)}"), template))
    used = slots(template)
    texts = {name: _spread(values[name[1:]]) if name.startswith("*") else _text(values[name])
             for name in set(used)}
    for name in texts:  # `{input}.ndim` with an integer: `(2).ndim`, not `2.ndim`
        if isinstance(values.get(name), cst.Integer) and re.search(r"\{%s\}[.]" % re.escape(name), template):
            texts[name] = f"({texts[name]})"
    hoisted = [n for n in dict.fromkeys(used) if used.count(n) > 1 and not n.startswith("*")
               and not is_pure(values[n])]
    params = {}
    for name in hoisted:
        others = [t for k, t in texts.items() if k != name]
        params[name] = _fresh(name, others)
        texts[name] = params[name]
    body = text.format(**texts)
    if not hoisted:
        return parse_expr(body)
    args = ", ".join(code_of(values[n]) for n in hoisted)
    return parse_expr(f"(lambda {', '.join(params.values())}: {body})({args})")
