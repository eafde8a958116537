"""``getattr(nn, name)`` with a name only run time knows (issue 10, class 1).

Real models choose a layer or a function by a string::

    self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)   # 'LSTM' or 'GRU'
    norm = getattr(nn, f"BatchNorm{dims}d")(c, momentum=0.01)
    act = getattr(F, cfg.activation)

The converter cannot know the name, but the file usually spells the names it means (``rnn_type in
['LSTM', 'GRU']``) or a pattern of them (``f"BatchNorm{dims}d"``). The call becomes a generated
lookup over the torch-signature classes (functions) of the torch.nn (torch.nn.functional) names
spelled that way, so the layer built with torch's arguments is right; a name outside that set
raises a clear error when the code runs (never a torch keyword on a MindSpore class, never torch).
Literal names (``getattr(nn, 'ReLU')``) are not handled here: they name one class statically.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import code_of
from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import _CONTAINERS, is_layer_class, signatures, translates

TORCH_LOOKUP = node_rule(
    "MS153", "torch_name_lookup",
    "Replace getattr(nn, name) / getattr(F, name) whose name only run time knows with a generated "
    "lookup over the torch-signature classes (functions) of the torch.nn (functional) names the "
    "file spells as strings or f-string patterns; any other name raises a clear error.", examples=[
    ("def rnn(kind):\n"
     "    assert kind in ('LSTM', 'GRU')\n"
     "    return getattr(nn, kind)(4, 8)\n",
     "def rnn(kind):\n"
     "    assert kind in ('LSTM', 'GRU')\n"
     "    return _torch_nn_getattr(kind)(4, 8)\n"),
])

# torch module -> preferred local name of its generated lookup
LOOKUPS = {"torch.nn": "_torch_nn_getattr", "torch.nn.functional": "_torch_functional_getattr"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def lookup_call(converter, node: cst.Call):
    """Apply MS153 to ``getattr(nn, name)`` (``name`` not a literal); None when ``node`` is not
    such a call or the file spells no candidate name (the torch module is then marked, MS901)."""
    args = node.args
    if len(args) != 2 or any(a.keyword is not None or a.star for a in args) \
            or isinstance(args[1].value, (cst.SimpleString, cst.ConcatenatedString)) \
            or not converter.allows(TORCH_LOOKUP.id):
        return None
    module = converter.qual(args[0].value)
    if module not in LOOKUPS:
        return None
    name = signatures(converter).lookup(module, _candidates(converter, module), LOOKUPS[module])
    if name is None:
        return None
    new = cst.Call(cst.Name(name), [cst.Arg(converter.walk(args[1].value))])
    converter.record(node, new, TORCH_LOOKUP.id, "transformed",
                f"getattr({module}, name): the torch-signature classes of the names this file spells")
    return new


def _candidates(converter, module: str) -> dict[str, str]:
    """Name -> local expression of every ``module`` name the file spells that can be made."""
    sigs = signatures(converter)
    spelled, patterns = _spelled(sigs.module)
    prefix = module + "."
    found = {}
    for qual in sorted(converter.facts.tables):
        short = qual[len(prefix):]
        if not qual.startswith(prefix) or "." in short or not (
                short in spelled or any(p.fullmatch(short) for p in patterns)):
            continue
        if is_layer_class(qual) != (module == "torch.nn"):
            continue
        value = _value(converter, qual, converter.facts.tables[qual])
        if value is not None:
            found[short] = value
    return found


def _value(converter, qual: str, entry) -> str | None:
    """The local expression a lookup returns for ``qual`` (generated class or function, or the
    MindSpore name when calls translate nothing), or None."""
    if not entry.target or entry.target.startswith(".") or entry.label == "unsupported":
        return None
    sigs = signatures(converter)
    if translates(entry) or qual in _CONTAINERS:
        return sigs.layer_class(qual, entry) if is_layer_class(qual) else sigs.function(qual, entry)
    return code_of(converter.target(entry.target))


def _spelled(module: cst.Module | None) -> tuple[set[str], list[re.Pattern]]:
    """Identifier-like strings of ``module`` and the patterns of its f-strings
    (``f"BatchNorm{d}d"`` -> ``BatchNorm.+d``)."""
    words, patterns = set(), []
    if module is None:
        return words, patterns

    class Strings(cst.CSTVisitor):
        def visit_SimpleString(self, node):
            value = node.evaluated_value
            if isinstance(value, str) and _IDENTIFIER.fullmatch(value):
                words.add(value)

        def visit_FormattedString(self, node):
            parts = [re.escape(p.value) if isinstance(p, cst.FormattedStringText) else ".+"
                     for p in node.parts]
            if any(isinstance(p, cst.FormattedStringText) and p.value for p in node.parts):
                patterns.append(re.compile("".join(parts)))
            return False

    module.visit(Strings())
    return words, patterns
