"""Proofs of mappings/layers.toml (torch.nn layers): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Layer, case_id, run

pytest.importorskip("torch")

CASES = [
    Layer("torch.nn.Conv2d", "nn.Conv2d(2, 3, 3, padding=1)", input="img"),
    Layer("torch.nn.BatchNorm2d", "nn.BatchNorm2d(2)", input="img", train=True),
    Layer("torch.nn.Linear", "nn.Linear(4, 3)"),
    # torch ignores Identity's arguments (placeholders built with another layer's arguments)
    Layer("torch.nn.Identity", "nn.Identity(54, unused_argument1=0.1, **{'unused_argument2': 3})"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
