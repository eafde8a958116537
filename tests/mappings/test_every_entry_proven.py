"""Every mapping-table entry has a differential proof (tests/mappings/proof.py), and every proof
names a real entry: a new entry without a proof fails here.
"""
import importlib
from pathlib import Path

from mappings import load_tables

HERE = Path(__file__).parent


def all_cases() -> list:
    cases = []
    for path in sorted(HERE.glob("test_*.py")):
        if path.stem == Path(__file__).stem:
            continue
        cases += getattr(importlib.import_module(f"tests.mappings.{path.stem}"), "CASES", [])
    return cases


def test_every_proof_names_a_mapping_entry():
    entries = load_tables()
    unknown = sorted({c.api for c in all_cases()} - set(entries))
    assert not unknown, f"cases for APIs with no mapping entry: {unknown}"


def test_every_entry_is_proven():
    unproven = sorted(set(load_tables()) - {c.api for c in all_cases()})
    assert not unproven, f"entries without a proof (add a case to tests/mappings): {unproven}"
