"""Argument rules by area: the irregular rewrites that mapping-table entries name (``rule =``).

Each module registers its rules with :func:`~migrate.convert.registry.argument_rule`; every rule
is ``apply(edit) -> None`` on a :class:`~migrate.convert.call_edit.CallEdit`. ``autograd_function``
holds the torch.autograd.Function rewriter, which node handlers apply (not tables).
"""
from __future__ import annotations

from migrate.convert.registry import RULES, Rule
from migrate.convert.rules import (autograd_function, data, hub, init, inplace, layers, layers_more,
                                   module, optim, runtime, state, tensor, torchfn, vision)

# the modules whose rules tables may name (importing them registers the rules)
AREAS = (layers, layers_more, tensor, inplace, init, module, data, optim, autograd_function, runtime,
         torchfn, hub, vision, state)


def argument_rule_named(name: str | None) -> Rule | None:
    """The argument rule a table entry names, or None (the entry names none, or an unknown one)."""
    rule = RULES.get(name) if name else None
    return rule if rule is not None and rule.kind == "argument" else None
