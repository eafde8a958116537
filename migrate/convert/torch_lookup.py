"""``getattr(nn, name)`` with a name only run time knows (issue 10, class 1).

Real models choose a layer or a function by a string::

    self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)   # 'LSTM' or 'GRU'
    norm = getattr(nn, f"BatchNorm{dims}d")(c, momentum=0.01)
    act = getattr(F, cfg.activation)

The converter cannot know the name; the runtime can: the call becomes the runtime's lookup
(``torch_nn_getattr(rnn_type)``, ``torch_functional_getattr(...)``) over every torch.nn
(torch.nn.functional) name the mapping tables translate, each answered by the class (function)
that takes torch's arguments, so the layer built with torch's arguments is right; a name the
tables do not map raises a clear error when the code runs (never a torch keyword on a MindSpore
class, never torch). Literal names (``getattr(nn, 'ReLU')``) are not handled here: they name one
class statically.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import LOOKUPS, signatures

TORCH_LOOKUP = node_rule(
    "MS153", "torch_name_lookup",
    "Replace getattr(nn, name) / getattr(F, name) whose name only run time knows with the runtime's "
    "lookup over the torch-signature classes (functions) of every torch.nn (functional) name the "
    "tables translate (torch_nn_getattr(name)); any other name raises a clear error.",
    needs=["torch_nn_getattr", "torch_functional_getattr", "torch_getattr"], examples=[
    ("def rnn(kind):\n"
     "    assert kind in ('LSTM', 'GRU')\n"
     "    return getattr(nn, kind)(4, 8)\n",
     "def rnn(kind):\n"
     "    assert kind in ('LSTM', 'GRU')\n"
     "    return torch_nn_getattr(kind)(4, 8)\n"),
])


def lookup_call(converter, node: cst.Call):
    """Apply MS153 to ``getattr(nn, name)`` (``name`` not a literal); None when ``node`` is not
    such a call."""
    args = node.args
    if len(args) != 2 or any(a.keyword is not None or a.star for a in args) \
            or isinstance(args[1].value, (cst.SimpleString, cst.ConcatenatedString)) \
            or not converter.allows(TORCH_LOOKUP.id):
        return None
    module = converter.qual(args[0].value)
    if module not in LOOKUPS:
        return None
    name = signatures(converter).lookup(module)
    new = cst.Call(cst.Name(name), [cst.Arg(converter.walk(args[1].value))])
    converter.record(node, new, TORCH_LOOKUP.id, "transformed",
                     f"getattr({module}, name): the runtime's classes (functions) with torch's signature")
    return new
