"""Every rule's examples (registry.Rule.examples): each before/after pair converts exactly so,
with a change carrying the rule's ID and no marker, and the run-time names the converted code
uses are ones the rules that applied declare (Rule.needs)."""
import re

import pytest

from migrate.convert.registry import RULES
from migrate.runtime.index import EXPORTS
from tests.migrate.convert.helpers import body

CASES = [pytest.param(rule, example, id=f"{rule.id}-{rule.name}-{i}")
         for rule in sorted(RULES.values(), key=lambda r: r.id) for i, example in enumerate(rule.examples)]


def _runtime_names(res) -> set[str]:
    """The run-time helpers and hand-written classes a converted file imports from the runtime
    (not the torch-signature classes and functions generated from a table entry, whose names
    follow the entry's torch name)."""
    return {name for name in res.runtime if EXPORTS.get(name) != "generated"}


@pytest.mark.parametrize("rule,example", CASES)
def test_rule_example(rule, example):
    after, res = body(example.before, example.target)
    assert after == example.after, after
    ids = {c.rule for c in res.changes if c.label != "unsupported"}
    assert rule.id in ids, (ids, res.code)
    # MS256 exists for a torch import kept because a line that uses it is marked
    assert "# migrate:" not in res.code or rule.id == "MS256", res.code
    used = _runtime_names(res) & set(re.findall(r"[A-Za-z_]\w*", after))
    declared = {name for r in RULES.values() if r.id in ids for name in r.needs}
    assert used <= declared, f"run-time names used but not in the needs of the rules applied: {used - declared}"


def test_every_rule_has_an_example():
    """A rule without an example is a rule nobody can see at work (or check still works)."""
    assert sorted(r.name for r in RULES.values() if not r.examples) == []


def test_a_rules_needs_are_names_it_can_get():
    """``needs`` names run-time classes and functions (the converted file gets them by name)."""
    for rule in RULES.values():
        for name in rule.needs:
            assert re.fullmatch(r"[A-Za-z_]\w*", name), (rule.name, name)
