"""Proofs of mappings/functional.toml (torch.nn.functional.* and their torch.* aliases): see
tests/mappings/proof.py. Grouped as the table is: activations, dropout, pooling, convolution and
normalisation, losses, the rest."""
import pytest

from tests.mappings.proof import Expr, case_id, run

pytest.importorskip("torch")

SAMPLING = "dropout samples a mask: the kept share and the 1/(1-p) scale match torch's"
LABELS = (("lab", "rs.randint(0, 3, (4,)).astype(np.int64)"), ("logits", "rs.randn(4, 3).astype(np.float32)"))

CASES = [
    # --- activations ------------------------------------------------------------------------
    Expr("torch.nn.functional.relu", "F.relu(x)"),
    Expr("torch.nn.functional.relu", "F.relu(x * 1, inplace=True)"),
    Expr("torch.relu", "torch.relu(x)"),
    Expr("torch.nn.functional.relu6", "F.relu6(x * 4)"),
    Expr("torch.nn.functional.hardswish", "F.hardswish(x * 3)"),
    Expr("torch.nn.functional.hardsigmoid", "F.hardsigmoid(x * 3, inplace=False)"),
    Expr("torch.nn.functional.silu", "F.silu(x)"),
    Expr("torch.nn.functional.sigmoid", "F.sigmoid(x)"),
    Expr("torch.sigmoid", "torch.sigmoid(x)"),
    Expr("torch.nn.functional.tanh", "F.tanh(x)"),
    Expr("torch.tanh", "torch.tanh(x)"),
    Expr("torch.nn.functional.gelu", "F.gelu(x)"),
    Expr("torch.nn.functional.gelu", "F.gelu(x, approximate='tanh')"),
    Expr("torch.nn.functional.leaky_relu", "F.leaky_relu(x)"),
    Expr("torch.nn.functional.leaky_relu", "F.leaky_relu(x + 0, 0.2, inplace=True)"),
    Expr("torch.nn.functional.elu", "F.elu(x)"),
    Expr("torch.nn.functional.elu", "F.elu(x, alpha=0.5)"),
    Expr("torch.nn.functional.softplus", "F.softplus(x)"),
    Expr("torch.nn.functional.softplus", "F.softplus(x * 10, beta=2, threshold=5)"),
    Expr("torch.nn.functional.softmax", "F.softmax(x, dim=1)"),
    Expr("torch.softmax", "torch.softmax(x, -1)"),
    Expr("torch.nn.functional.log_softmax", "F.log_softmax(x, dim=-1)"),
    Expr("torch.log_softmax", "torch.log_softmax(x, 1)"),
    # --- dropout (eval: identity; training: sampled) ----------------------------------------
    Expr("torch.nn.functional.dropout", "F.dropout(x, 0.5, training=False)"),
    Expr("torch.nn.functional.dropout", "F.dropout(torch.ones(100, 100), p=0.3)", check="stats",
         rtol=0.05, atol=0.02, why=SAMPLING),
    Expr("torch.nn.functional.dropout1d", "F.dropout1d(x, 0.5, False)"),
    Expr("torch.nn.functional.dropout1d", "F.dropout1d(torch.ones(50, 40, 10), p=0.5)", check="stats",
         rtol=0.1, atol=0.05, why=SAMPLING),
    Expr("torch.nn.functional.dropout2d", "F.dropout2d(img, training=False)"),
    Expr("torch.nn.functional.dropout2d", "F.dropout2d(torch.ones(50, 40, 3, 3), 0.25)", check="stats",
         rtol=0.1, atol=0.05, why=SAMPLING),
    Expr("torch.nn.functional.dropout3d", "F.dropout3d(vol, training=False)"),
    Expr("torch.nn.functional.dropout3d", "F.dropout3d(torch.ones(50, 40, 2, 2, 2), 0.5)", check="stats",
         rtol=0.1, atol=0.05, why=SAMPLING),
    # --- pooling ----------------------------------------------------------------------------
    Expr("torch.nn.functional.max_pool2d", "F.max_pool2d(img, 2)"),
    Expr("torch.nn.functional.max_pool2d", "F.max_pool2d(img, 3, stride=2, padding=1)"),
    Expr("torch.nn.functional.max_pool2d", "F.max_pool2d(img, kernel_size=2, stride=1, ceil_mode=True)"),
    Expr("torch.nn.functional.avg_pool2d", "F.avg_pool2d(img, 2)"),
    Expr("torch.nn.functional.avg_pool2d", "F.avg_pool2d(img, 3, 1, 1)"),
    Expr("torch.nn.functional.avg_pool2d", "F.avg_pool2d(img, 3, 2, 1, count_include_pad=False)"),
    Expr("torch.nn.functional.adaptive_avg_pool2d", "F.adaptive_avg_pool2d(img, 1)"),
    Expr("torch.nn.functional.adaptive_avg_pool2d", "F.adaptive_avg_pool2d(img, (4, 3))"),
    Expr("torch.nn.functional.adaptive_max_pool2d", "F.adaptive_max_pool2d(img, 2)"),
    # --- linear, convolution, normalisation, padding, resizing ------------------------------
    Expr("torch.nn.functional.linear", "F.linear(x, w)"),
    Expr("torch.nn.functional.linear", "F.linear(x, w, v)"),
    Expr("torch.nn.functional.conv2d", "F.conv2d(img, k)",
         arrays=(("k", "rs.randn(3, 2, 3, 3).astype(np.float32)"),)),
    Expr("torch.nn.functional.conv2d", "F.conv2d(img, k, b, stride=2, padding=1)",
         arrays=(("k", "rs.randn(3, 2, 3, 3).astype(np.float32)"), ("b", "rs.randn(3).astype(np.float32)"))),
    Expr("torch.nn.functional.conv2d", "F.conv2d(img, k, padding='same', groups=2)",
         arrays=(("k", "rs.randn(4, 1, 3, 3).astype(np.float32)"),)),
    Expr("torch.nn.functional.layer_norm", "F.layer_norm(x, (4,))"),
    Expr("torch.nn.functional.layer_norm", "F.layer_norm(x, [3, 4], g, b, eps=1e-3)",
         arrays=(("g", "rs.randn(3, 4).astype(np.float32)"), ("b", "rs.randn(3, 4).astype(np.float32)"))),
    Expr("torch.nn.functional.group_norm", "F.group_norm(img, 2)"),
    Expr("torch.nn.functional.group_norm", "F.group_norm(x, 3, g, b)",
         arrays=(("g", "rs.randn(3).astype(np.float32)"), ("b", "rs.randn(3).astype(np.float32)"))),
    Expr("torch.nn.functional.pad", "F.pad(x, (1, 2))"),
    Expr("torch.nn.functional.pad", "F.pad(img, (1, 1, 2, 0), value=0.5)"),
    Expr("torch.nn.functional.pad", "F.pad(img, (2, 2, 1, 1), mode='reflect')"),
    Expr("torch.nn.functional.pad", "F.pad(img, (1, 2, 1, 2), 'replicate')"),
    Expr("torch.nn.functional.interpolate", "F.interpolate(img, scale_factor=2, mode='nearest')"),
    Expr("torch.nn.functional.interpolate", "F.interpolate(img, size=(9, 4), mode='bilinear', align_corners=False)"),
    Expr("torch.nn.functional.interpolate", "F.interpolate(img, scale_factor=2, mode='bilinear', align_corners=True)"),
    Expr("torch.nn.functional.one_hot", "F.one_hot(t, 3)", grad=False),
    Expr("torch.nn.functional.one_hot", "F.one_hot(idx, num_classes=4)", grad=False),
    # --- losses -----------------------------------------------------------------------------
    Expr("torch.nn.functional.cross_entropy", "F.cross_entropy(logits, lab)", arrays=LABELS),
    Expr("torch.nn.functional.cross_entropy", "F.cross_entropy(logits, lab, reduction='sum', label_smoothing=0.1)",
         arrays=LABELS),
    Expr("torch.nn.functional.cross_entropy", "F.cross_entropy(logits, lab, ignore_index=1)", arrays=LABELS),
    Expr("torch.nn.functional.nll_loss", "F.nll_loss(F.log_softmax(logits, 1), lab)", arrays=LABELS),
    Expr("torch.nn.functional.nll_loss", "F.nll_loss(logits, lab, reduction='none')", arrays=LABELS),
    Expr("torch.nn.functional.mse_loss", "F.mse_loss(x, y)"),
    Expr("torch.nn.functional.mse_loss", "F.mse_loss(x, y, reduction='sum')"),
    Expr("torch.nn.functional.l1_loss", "F.l1_loss(x, y)"),
    Expr("torch.nn.functional.l1_loss", "F.l1_loss(x, y, reduction='none')"),
    Expr("torch.nn.functional.smooth_l1_loss", "F.smooth_l1_loss(x, y)"),
    Expr("torch.nn.functional.smooth_l1_loss", "F.smooth_l1_loss(x, y, reduction='sum', beta=0.5)"),
    Expr("torch.nn.functional.binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits(x, u)"),
    Expr("torch.nn.functional.binary_cross_entropy_with_logits",
         "F.binary_cross_entropy_with_logits(x, u, weight=y.abs().detach(), pos_weight=pos.detach(), reduction='sum')"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
