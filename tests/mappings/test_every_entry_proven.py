"""Every mapping-table entry has a differential proof (tests/mappings/proof.py), and every proof
names a real entry. ``NOT_YET_PROVEN`` is the visible debt of entries that predate the proofs: it
must shrink to empty (issue 12), and it must list exactly the entries without a case, so a new
entry without a proof fails here and a proven one must leave the list.
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


NOT_YET_PROVEN = set(Path(HERE / "not_yet_proven.txt").read_text().split())


def test_every_proof_names_a_mapping_entry():
    entries = load_tables()
    unknown = sorted({c.api for c in all_cases()} - set(entries))
    assert not unknown, f"cases for APIs with no mapping entry: {unknown}"


def test_every_entry_is_proven_or_listed_as_debt():
    proven = {c.api for c in all_cases()}
    unproven = set(load_tables()) - proven
    assert not sorted(unproven - NOT_YET_PROVEN), "entries without a proof (add a case to tests/mappings)"
    assert not sorted(NOT_YET_PROVEN - unproven), "proven or removed: delete from not_yet_proven.txt"
