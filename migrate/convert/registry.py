"""The rule registry: one record per rule, each with its own stable ID.

A rule is one object (:class:`Rule`): its ID, its name, what it replaces (a one-line "Replace A
with B"), how it is applied, the run-time names its output uses (``needs``) and its examples
(before/after pairs, run by one parametrised test). Records are created where the rule lives,
when its module is imported; ``import migrate.convert`` imports them all (the modules of
``rules/`` are discovered, not listed).

IDs keep their meaning: an ID names one rule, one mapping table or one marker, never two, and is
never given to something else later. Ranges:

- ``MS0xx``: a mapping table (``mappings/<table>.toml``, its ``id``): a call or name that table
  translates by its entry alone (no rule). One ID per table file: ``MS00x`` torch, functional,
  tensor, module, init and run-time tables, ``MS01x`` layer tables, ``MS02x`` the training
  table, ``MS03x`` torchvision, ``MS05x`` other libraries (einops).
- ``MS1xx``: rules for model code (layers, tensors, modules, initialisers, torch-signature
  classes, imports and run-time probes).
- ``MS2xx``: rules for training scripts (the training-loop pass, optimisers, data, distributed).
- ``MS3xx``: rules for torch.* and torch.nn.functional calls whose arguments need more than a
  table entry (``rules/torchfn.py``).
- ``MS4xx``: layer rules of the extra layer tables (``rules/layers_more.py``).
- ``MS5xx``: libraries that torch code uses besides torch (einops: ``einops_calls.py``).
- ``MS9xx``: markers, the ``# migrate: MS9xx <reason>`` comments above code left as written.

Reports, ``migrate mappings --rules`` and ``migrate convert --select/--disable`` all read these
records.

A rule is one of three kinds:

- ``argument``: named by mapping-table entries (``rule = "conv2d"``) and run on the
  :class:`~migrate.convert.call_edit.CallEdit` of each call of such an entry, after the generic
  argument fates. Registered with :func:`argument_rule`; its function is ``apply(edit) -> None``.
- ``node``: applied by a node handler of the walk (``forward`` -> ``construct``, ``no_grad``
  blocks, parameter renames...); described with :func:`node_rule` where the handler lives.
- ``statement``: applied by the training-loop pass; described with :func:`statement_rule`.

How to add a mapping with a rule: the entry in its table (``mappings/<table>.toml``: ``torch``,
``target``, ``params``, ``args``, ``rule = "<name>"``) and the rule in the module of its area
(``rules/<area>.py``: ``@argument_rule("MS3xx", "<name>", needs=[...], examples=[(before,
after)])`` over ``def <name>(edit)`` whose docstring starts "Replace A with B"), with the next
free ID of the range; then a test of its numbers against torch. The examples are checked by
``tests/migrate/convert/rules/test_rule_examples.py``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable


@dataclass(frozen=True)
class Example:
    """A rule at work: torch code (after the usual header: ``import torch``, ``import torch.nn as
    nn``, ``import torch.nn.functional as F``) and what it converts to for ms_core (the converted
    lines of that code: without the import lines, the generated block and the guards)."""

    before: str
    after: str
    target: str = "ms_core"  # a rule of one target shows itself converting for it


@dataclass(frozen=True)
class Rule:
    """A registered rule: stable ID, name, kind (argument, node, statement), one-line summary
    ("Replace A with B"), for argument rules the function run on a CallEdit and whether it can
    translate arguments known only at run time (``runtime``: it handles ``edit.runtime``, so a
    torch-signature class can be generated from it), the run-time names its output uses
    (``needs``) and its examples."""

    id: str
    name: str
    kind: str
    doc: str
    apply: Callable | None = None
    runtime: bool = False
    needs: tuple[str, ...] = ()
    examples: tuple[Example, ...] = ()


RULES: dict[str, Rule] = {}   # by name
_IDS: dict[str, str] = {}      # ID -> name of the rule or marker that holds it

MARKERS = {
    "MS900": "torch import kept because unconverted code still uses it",
    "MS901": "torch API with no mapping",
    "MS902": "argument value with no MindSpore equivalent",
    "MS903": "arguments that cannot be matched to the torch signature (*args, unknown keywords)",
    "MS904": "module.zero_grad(): gradients are returned by ms.grad / value_and_grad, not accumulated",
    "MS905": "in-place tensor operation",
    "MS906": "torch API referenced without a call: arguments are not translated",
    "MS907": "in-place update of a tensor a named view shares (or of the view): torch updates both, "
             "MindSpore's view is a copy",
    "MS915": "torch tensor method whose MindSpore meaning differs, on a receiver not known to be a tensor",
    "MS918": "torch layer attribute that MindSpore's layer does not hold in torch's form",
    "MS919": "code inside an f-string whose conversion would need the f-string's quotes or a backslash",
    "MS920": "statement whose conversion would nest brackets deeper than its already deep input",
    "MS921": "a parameter removed from a module to put a computed tensor in its place (weight reparametrisation): "
             "a MindSpore layer may not read it there",
    "MS951": "gradients read or changed between backward() and step(): not rewritten",
    "MS952": "backward() with retain_graph/create_graph/gradient arguments: not rewritten",
    "MS953": "training step whose structure the rules cannot follow: not rewritten",
    "MS954": "higher-order torch.autograd.grad: rewrite with nested ms.grad by hand",
    "MS955": "optimizer.step()/zero_grad() with no backward() the pass could pair it with",
}
_IDS.update({k: "marker" for k in MARKERS})

_ID = re.compile(r"MS\d{3}")


def register(rule: Rule) -> Rule:
    """Add ``rule`` to the registry and return it.

    Raises:
        ValueError: when its name or its ID is taken (by a rule or a marker), or the ID is not
            ``MS`` and three digits.
    """
    if not _ID.fullmatch(rule.id):
        raise ValueError(f"rule {rule.name!r}: ID {rule.id!r} is not MS and three digits")
    if rule.name in RULES:
        raise ValueError(f"rule name {rule.name!r} is registered twice")
    if rule.id in _IDS:
        raise ValueError(f"rule {rule.name!r}: ID {rule.id} is already taken by {_IDS[rule.id]!r}")
    RULES[rule.name] = rule
    _IDS[rule.id] = rule.name
    return rule


def _summary(doc: str | None) -> str:
    """A docstring's first paragraph on one line (its "Replace A with B" sentence)."""
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def _examples(pairs: Iterable[tuple[str, str]]) -> tuple[Example, ...]:
    return tuple(Example(*pair) for pair in pairs)


def argument_rule(rule_id: str, name: str, runtime: bool = False, needs: Iterable[str] = (),
                  examples: Iterable[tuple[str, str]] = ()):
    """Register the decorated ``apply(edit) -> None`` as the argument rule ``name``
    (``runtime``: it also translates parameter names whose values come at run time, see
    :attr:`~migrate.convert.call_edit.CallEdit.runtime`; ``needs``: the run-time names its
    output uses; ``examples``: (before, after) pairs, see :class:`Example`).

    Example::

        @argument_rule("MS111", "dense", examples=[("y = nn.Linear(1, 2)\\n", "y = nn.Dense(...)\\n")])
        def dense(edit) -> None:
            \"\"\"Replace nn.Linear(in, out, bias) with nn.Dense(in, out, has_bias, inits).\"\"\"
    """
    def deco(fn):
        register(Rule(rule_id, name, "argument", _summary(fn.__doc__), fn, runtime, tuple(needs),
                      _examples(examples)))
        return fn
    return deco


def node_rule(rule_id: str, name: str, doc: str, needs: Iterable[str] = (),
              examples: Iterable[tuple[str, str]] = ()) -> Rule:
    """Describe a rule that a node handler of the walk applies; return its record."""
    return register(Rule(rule_id, name, "node", doc, needs=tuple(needs), examples=_examples(examples)))


def statement_rule(rule_id: str, name: str, doc: str, needs: Iterable[str] = (),
                   examples: Iterable[tuple[str, str]] = ()) -> Rule:
    """Describe a rule that the training-loop pass applies; return its record."""
    return register(Rule(rule_id, name, "statement", doc, needs=tuple(needs), examples=_examples(examples)))


def entry_id(entry) -> str:
    """The ID a change made through mapping-table entry ``entry`` carries: its argument rule's,
    else the entry's own (its table's ``MS0xx``, or the marker of an unsupported entry)."""
    rule = RULES.get(entry.rule) if entry.rule else None
    return rule.id if rule is not None and rule.kind == "argument" else entry.id


def listing() -> list[tuple[str, str, str, str]]:
    """Every rule and marker as (id, kind, name, summary) rows, sorted by ID."""
    rows = [(r.id, r.kind, r.name, r.doc) for r in RULES.values()]
    rows += [(k, "marker", "", v) for k, v in MARKERS.items()]
    return sorted(rows)


# --------------------------------------------------------------------------------------------
# --select / --disable
# --------------------------------------------------------------------------------------------
_PREFIX = re.compile(r"MS\d{0,3}")


@dataclass(frozen=True)
class RuleSelection:
    """Which rewrites run: IDs matching a ``select`` prefix (all when empty) and no ``disable``
    prefix. Markers always run: they are how the converter says what it left as written.

    A rewrite that is not selected leaves its code as written (a call stays whole, with its
    arguments), records no change and writes no marker.

    Example:
        >>> s = RuleSelection.parse("MS1,MS205", "MS11")
        >>> s.allows("MS140"), s.allows("MS205"), s.allows("MS111"), s.allows("MS201")
        (True, True, False, False)
    """

    select: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()

    @classmethod
    def parse(cls, select: str | Iterable[str] | None = None,
              disable: str | Iterable[str] | None = None) -> "RuleSelection":
        """Build a selection from comma-separated ID prefixes (``"MS1,MS205"``) or sequences.

        Raises:
            ValueError: for an item that is not ``MS`` followed by up to three digits.
        """
        return cls(_prefixes(select, "select"), _prefixes(disable, "disable"))

    @property
    def everything(self) -> bool:
        """True when every rule runs (the default)."""
        return not self.select and not self.disable

    def allows(self, rule_id: str) -> bool:
        """Whether the rewrite with ID ``rule_id`` runs."""
        if rule_id in MARKERS:
            return True
        if self.select and not rule_id.startswith(self.select):
            return False
        return not (self.disable and rule_id.startswith(self.disable))


def _prefixes(value, option: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    out = []
    for item in items:
        item = item.strip().upper()
        if not item:
            continue
        if not _PREFIX.fullmatch(item):
            raise ValueError(f"--{option}: {item!r} is not a rule ID or an ID prefix (MS1, MS11, MS110)")
        out.append(item)
    return tuple(out)


EVERYTHING = RuleSelection()
