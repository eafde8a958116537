"""Proofs of mappings/layers_loss.toml (margin, embedding and likelihood losses): see
tests/mappings/proof.py. Every float input, targets included, gets its gradient compared."""
import pytest

from tests.mappings.proof import Layer, Marked, ProvenBy, case_id, run

pytest.importorskip("torch")

PAIR = (("a", "rs.randn(4, 6).astype(np.float32)"), ("b", "rs.randn(4, 6).astype(np.float32)"),
        ("y4", "np.array([1, -1, -1, 1], np.int64)"),
        ("s46", "np.sign(rs.randn(4, 6)).astype(np.float32)"),
        ("c", "rs.randn(4, 6).astype(np.float32)"),
        ("k4", "np.array([0, 5, 2, 3], np.int64)"),
        ("b01", "(rs.rand(4, 6) > 0.5).astype(np.float32)"),
        ("cnt", "rs.poisson(2.0, (4, 6)).astype(np.float32)"),
        ("var", "(np.abs(rs.randn(4, 6)) + 0.1).astype(np.float32)"),
        ("w6", "np.arange(1, 7).astype(np.float32)"))

CASES = [
    Layer("torch.nn.CosineEmbeddingLoss", "nn.CosineEmbeddingLoss()", input=("a", "b", "y4"),
          arrays=PAIR),
    Layer("torch.nn.CosineEmbeddingLoss", "nn.CosineEmbeddingLoss(0.2, reduction='none')",
          input=("a", "b", "y4"), arrays=PAIR),
    Layer("torch.nn.CosineEmbeddingLoss", "nn.CosineEmbeddingLoss(0.1, False)", input=("a", "b", "y4"), arrays=PAIR),
    Marked("torch.nn.CosineEmbeddingLoss", "nn.CosineEmbeddingLoss(0.1, flag)"),
    Layer("torch.nn.MarginRankingLoss", "nn.MarginRankingLoss(0.1)", input=("a", "b", "s46"),
          arrays=PAIR),
    Layer("torch.nn.MarginRankingLoss", "nn.MarginRankingLoss(reduction='sum')",
          input=("a", "b", "s46"), arrays=PAIR),
    Layer("torch.nn.SoftMarginLoss", "nn.SoftMarginLoss()", input=("a", "s46"), arrays=PAIR,
          constant=("s46",)),
    Layer("torch.nn.SoftMarginLoss", "nn.SoftMarginLoss(reduction='none')", input=("a", "s46"),
          arrays=PAIR, constant=("s46",)),
    Layer("torch.nn.TripletMarginLoss", "nn.TripletMarginLoss()", input=("a", "b", "c"),
          arrays=PAIR),
    Layer("torch.nn.TripletMarginLoss", "nn.TripletMarginLoss(0.5, 1, swap=True, "
          "reduction='sum')", input=("a", "b", "c"), arrays=PAIR),
    Layer("torch.nn.HingeEmbeddingLoss", "nn.HingeEmbeddingLoss(0.5)", input=("a", "s46"),
          arrays=PAIR, constant=("s46",)),   # the target only selects: torch gives it no gradient
    Layer("torch.nn.MultiMarginLoss", "nn.MultiMarginLoss()", input=("a", "k4"), arrays=PAIR),
    Layer("torch.nn.MultiMarginLoss", "nn.MultiMarginLoss(2, 0.5, torch.arange(1.0, 7.0), "
          "reduction='none')", input=("a", "k4"), arrays=PAIR),
    Layer("torch.nn.MultiLabelSoftMarginLoss", "nn.MultiLabelSoftMarginLoss()",
          input=("a", "b01"), arrays=PAIR),
    Layer("torch.nn.MultiLabelSoftMarginLoss",
          "nn.MultiLabelSoftMarginLoss(torch.arange(1.0, 7.0), reduction='sum')",
          input=("a", "b01"), arrays=PAIR),
    Layer("torch.nn.PoissonNLLLoss", "nn.PoissonNLLLoss()", input=("a", "cnt"), arrays=PAIR),
    # torch's gradient of the Stirling term w.r.t. a zero count is nan (0 * log 0 masked after
    # the fact); ms_core's is 0. Counts are data: the target is not differentiated here.
    Layer("torch.nn.PoissonNLLLoss", "nn.PoissonNLLLoss(False, True, eps=1e-6)",
          input=("var", "cnt"), arrays=PAIR, constant=("cnt",)),
    Layer("torch.nn.GaussianNLLLoss", "nn.GaussianNLLLoss()", input=("a", "b", "var"),
          arrays=PAIR),
    Layer("torch.nn.GaussianNLLLoss", "nn.GaussianNLLLoss(full=True, eps=0.5, "
          "reduction='none')", input=("a", "b", "var"), arrays=PAIR),
    Marked("torch.nn.MultiLabelMarginLoss", "nn.MultiLabelMarginLoss()"),
    Marked("torch.nn.TripletMarginWithDistanceLoss", "nn.TripletMarginWithDistanceLoss()"),
    Marked("torch.nn.AdaptiveLogSoftmaxWithLoss", "nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])"),
    # the base class of custom losses: subclasses built and run against torch
    ProvenBy("torch.nn.modules.loss._Loss",
             "tests/migrate/convert/test_torch_signature_layers.py::"
             "test_custom_loss_on_torchs_loss_base"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
