"""Argument rules by area: the irregular rewrites that mapping-table entries name (``rule =``).

Each module registers its rules with :func:`~migrate.convert.registry.argument_rule`; every rule
is ``apply(edit) -> None`` on a :class:`~migrate.convert.call_edit.CallEdit`. ``autograd_function``
holds the torch.autograd.Function rewriter, which node handlers apply (not tables).

Every module of this package is imported here (found, not listed): a new area is a new module.
"""
from __future__ import annotations

import importlib
import pkgutil

from migrate.convert.registry import RULES, Rule

# the modules whose rules tables may name (importing them registers the rules)
AREAS = tuple(importlib.import_module(f"{__name__}.{m.name}")
              for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name))


def argument_rule_named(name: str | None) -> Rule | None:
    """The argument rule a table entry names, or None (the entry names none, or an unknown one)."""
    rule = RULES.get(name) if name else None
    return rule if rule is not None and rule.kind == "argument" else None
