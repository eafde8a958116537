"""Proofs of mappings/layers_norm.toml (BatchNorm3d, SyncBatchNorm, InstanceNorm1d/3d,
LocalResponseNorm, Dropout1d/3d, and the marked ones): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Layer, Marked, case_id, run

pytest.importorskip("torch")

CASES = [
    Layer("torch.nn.BatchNorm3d", "nn.BatchNorm3d(2)", input="vol", train=True),
    Layer("torch.nn.BatchNorm3d", "nn.BatchNorm3d(2, eps=1e-3, momentum=0.3)", input="vol"),
    Layer("torch.nn.modules.batchnorm.BatchNorm3d", "torch.nn.modules.batchnorm.BatchNorm3d(2)",
          input="vol", train=True),
    Layer("torch.nn.SyncBatchNorm", "nn.SyncBatchNorm(2)", input="img", train=True),
    Layer("torch.nn.modules.batchnorm.SyncBatchNorm",
          "torch.nn.modules.batchnorm.SyncBatchNorm(2, momentum=0.2)", input="img"),
    Marked("torch.nn.SyncBatchNorm", "nn.SyncBatchNorm(2, process_group=group)"),
    Layer("torch.nn.InstanceNorm1d", "nn.InstanceNorm1d(5)", input="seq"),
    Layer("torch.nn.InstanceNorm1d", "nn.InstanceNorm1d(5, affine=True)", input="seq"),
    Layer("torch.nn.InstanceNorm3d", "nn.InstanceNorm3d(2, eps=1e-3, affine=True)", input="vol"),
    Marked("torch.nn.InstanceNorm3d", "nn.InstanceNorm3d(2, track_running_stats=True)"),
    Layer("torch.nn.LocalResponseNorm", "nn.LocalResponseNorm(3)", input="c5",
          arrays=(("c5", "rs.randn(2, 5, 3, 4).astype(np.float32)"),)),
    Layer("torch.nn.LocalResponseNorm", "nn.LocalResponseNorm(5, alpha=0.5, beta=0.6, k=2.0)",
          input="c5", arrays=(("c5", "rs.randn(2, 7, 3, 1).astype(np.float32)"),)),
    Marked("torch.nn.LocalResponseNorm", "nn.LocalResponseNorm(4)"),
    # inference mode: dropout layers are the identity in both
    Layer("torch.nn.Dropout1d", "nn.Dropout1d(0.3)"),
    Layer("torch.nn.Dropout3d", "nn.Dropout3d(p=0.2, inplace=True)", input="vol"),
    Marked("torch.nn.AlphaDropout", "nn.AlphaDropout(0.2)"),
    Marked("torch.nn.FeatureAlphaDropout", "nn.FeatureAlphaDropout(0.2)"),
    Marked("torch.nn.RMSNorm", "nn.RMSNorm(4)"),
    Marked("torch.nn.CrossMapLRN2d", "nn.CrossMapLRN2d(3)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
