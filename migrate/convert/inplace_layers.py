"""Activations torch computes in place: ``nn.SiLU(inplace=True)``, ``F.relu(x, inplace=True)``.

torch writes the result into the input tensor, so every name of that tensor sees it:

    out1_act = self.act(out1)     # self.act = nn.SiLU(inplace=True)
    return out1 + out1_act        # out1 is activated too

MindSpore's layers and functions have no ``inplace``: the tables drop it, and the converted
``out1`` would keep the values before the activation. Where the input is a name the function
reads elsewhere, the statement binds that name to the result as well (``out1_act = out1 =
self.act(out1)``): both names hold the one activated tensor, as in torch. A call whose result is
discarded (``F.relu(x, inplace=True)`` as a statement) becomes ``x = F.relu(x, inplace=True)``. An
input that is not a plain name (``x[0]``, ``self.h``) is left to the tables, as before.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import children
from migrate.convert.names import target_names
from migrate.convert.registry import node_rule
from migrate.convert.tidy import name_occurrences

INPLACE_ACTIVATION = node_rule(
    "MS103", "inplace_activation",
    "Replace y = act(x), an activation torch computes in place (a layer built with inplace=True, a "
    "torch.nn.functional call with inplace=True), with y = x = act(x) where the function reads x "
    "elsewhere (torch's input tensor holds the result), and the statement act(x) with x = act(x).", examples=[
        ("def f(x):\n"
         "    y = F.relu(x, inplace=True)\n"
         "    return x + y\n",
         "def f(x):\n"
         "    y = x = ops.relu(x)\n"
         "    return x + y\n"),
        ("def f(x):\n"
         "    F.relu(x, inplace=True)\n"
         "    return x\n",
         "def f(x):\n"
         "    x = ops.relu(x)\n"
         "    return x\n"),
    ])

INPLACE_KEY = "{}!inplace"  # ClassScope.attrs key: self.<attr> was built with inplace=True


def built_in_place(call) -> bool:
    """``call`` passes ``inplace=True``."""
    return isinstance(call, cst.Call) and any(
        a.keyword is not None and a.keyword.value == "inplace" and isinstance(a.value, cst.Name)
        and a.value.value == "True" for a in call.args)


def _input_name(converter, call) -> cst.Name | None:
    """The tensor a call activates in place: the one positional argument (a name) of
    ``self.<attr>(x)`` with ``self.<attr>`` built with inplace=True, or of a
    ``torch.nn.functional`` call given ``inplace=True``."""
    if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None \
            or call.args[0].star or not isinstance(call.args[0].value, cst.Name):
        return None
    func = call.func
    owner = converter.class_scope
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        if owner is None or INPLACE_KEY.format(func.attr.value) not in owner.attrs or len(call.args) != 1:
            return None
    elif not built_in_place(call) or not (converter.qual(func) or "").startswith("torch.nn.functional."):
        return None
    return call.args[0].value


def _read_elsewhere(converter, name: str) -> bool:
    """The current function reads ``name`` more than once (the call's argument is one read;
    bindings such as ``name = ...`` or ``for name in ...`` are not reads)."""
    scope = converter.scope
    if scope is None or scope.node is None:
        return False
    if scope.name_counts is None:
        scope.name_counts = _reads(scope.node.body)
    return scope.name_counts.get(name, 0) > 1


def _reads(body) -> dict[str, int]:
    """How often ``body`` reads each name: its occurrences as a name (attribute and keyword names
    aside), less those as the target of an assignment or a for loop."""
    counts = name_occurrences(body)
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.AssignTarget, cst.For)):
            for bound in target_names(node.target):
                counts[bound] -= 1
        stack.extend(children(node))
    return counts


def rebinding(converter, small):
    """``small`` with the input of an in-place activation bound to its result (see the module's
    docstring), or None."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        x = _input_name(converter, small.value)
        if x is None or x.value == small.targets[0].target.value or not _read_elsewhere(converter, x.value) \
                or not converter.allows(INPLACE_ACTIVATION.id):
            return None
        new = small.with_changes(targets=[*small.targets, cst.AssignTarget(cst.Name(x.value))])
    elif isinstance(small, cst.Expr):
        x = _input_name(converter, small.value)
        if x is None or not converter.allows(INPLACE_ACTIVATION.id):
            return None
        new = cst.Assign([cst.AssignTarget(cst.Name(x.value))], small.value, semicolon=small.semicolon)
    else:
        return None
    converter.record(small, new, INPLACE_ACTIVATION.id, "exact",
                     f"torch computes it in place: {x.value} holds the result")
    return new
