"""Proofs of mappings/layers_activation.toml (CELU, Threshold, Softmin, Softmax2d, GLU, RReLU,
Hardshrink, Softshrink, Tanhshrink): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Layer, case_id, run

pytest.importorskip("torch")

CASES = [
    Layer("torch.nn.CELU", "nn.CELU(0.7)"),
    Layer("torch.nn.CELU", "nn.CELU(inplace=True)", grad=False),   # torch: no in-place on a leaf
    Layer("torch.nn.modules.CELU", "torch.nn.modules.CELU()"),
    Layer("torch.nn.Threshold", "nn.Threshold(0.1, 20.0)"),
    Layer("torch.nn.Softmin", "nn.Softmin(1)"),
    Layer("torch.nn.Softmin", "nn.Softmin(dim=-1)", input="m"),
    Layer("torch.nn.Softmax2d", "nn.Softmax2d()", input="img"),
    Layer("torch.nn.GLU", "nn.GLU()"),
    Layer("torch.nn.GLU", "nn.GLU(dim=0)"),
    # eval mode: torch's RReLU is a LeakyReLU with slope (lower + upper) / 2
    Layer("torch.nn.RReLU", "nn.RReLU(0.1, 0.3)"),
    Layer("torch.nn.RReLU", "nn.RReLU()"),
    Layer("torch.nn.Hardshrink", "nn.Hardshrink(0.3)"),
    Layer("torch.nn.Softshrink", "nn.Softshrink()"),
    Layer("torch.nn.Tanhshrink", "nn.Tanhshrink()"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
