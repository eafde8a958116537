"""Proofs of mappings/functional.toml (torch.nn.functional.*): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Expr, case_id, run

pytest.importorskip("torch")

CASES = [
    Expr("torch.nn.functional.relu", "F.relu(x)"),
    Expr("torch.nn.functional.softmax", "F.softmax(x, dim=1)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
