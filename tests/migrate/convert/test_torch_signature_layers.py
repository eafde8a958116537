"""The torch-signature classes of the layers whose rules live in rules/layers_more.py: every
Layer proof case of those entries (tests/mappings) built through the layer class used as a value
(``make = nn.Conv3d; make(2, 3, 3, padding=1)``), so the generated TorchConv3d translates torch's
arguments at run time; outputs and gradients must equal torch's as the static conversion's do."""
import re

import pytest

from mappings import load_tables
from migrate.convert.rules import layers_more
from tests.mappings import (test_layers_activation_table, test_layers_conv_table,
                            test_layers_misc_table, test_layers_norm_table, test_layers_table)
from tests.mappings.proof import Layer, run_layer

pytest.importorskip("torch")

RULES = {name for name, value in vars(layers_more).items() if callable(value)}
TABLES = load_tables()
CASES = [c for m in (test_layers_table, test_layers_conv_table, test_layers_activation_table,
                     test_layers_norm_table, test_layers_misc_table) for c in m.CASES
         if isinstance(c, Layer) and TABLES[c.api].rule in RULES
         and re.fullmatch(r"nn\.\w+\(.*\)", c.ctor, re.S)]


def _through_value(case: Layer) -> Layer:
    name, args = re.fullmatch(r"(nn\.\w+)\((.*)\)", case.ctor, re.S).groups()
    return Layer(case.api, f"(lambda make: make({args}))({name})", case.input, case.train,
                 case.grad, case.constant, case.arrays, case.rtol, case.atol)


def test_every_rule_of_layers_more_with_a_layer_case_is_covered():
    covered = {TABLES[c.api].rule for c in CASES}
    assert {"conv_transpose1d", "conv3d", "conv_transpose3d", "local_response_norm",
            "rrelu_inference", "bilinear", "upsampling_mode", "implicit_softmax_dim",
            "upsample", "dropout2d_any_rank"} <= covered, covered


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.ctor)
def test_layer_built_through_its_torch_signature_class(case):
    run_layer(_through_value(case))


ATTRIBUTES = """import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm3d(4, eps=1e-3)
        self.conv = nn.Conv3d(2, 6, 3, padding=1, groups=2)
        self.bil = nn.Bilinear(2, 3, 4)

    def forward(self, x):
        return (tuple(self.bn.weight.shape), tuple(self.bn.running_var.shape), self.bn.eps,
                self.conv.groups, self.bil.in1_features, self.bil.in2_features,
                self.bil.out_features)


class Up(nn.ConvTranspose1d):
    def forward(self, x):
        return self.padding, self.kernel_size, self.stride, self.output_padding, self.groups


class Norm(nn.BatchNorm3d):
    def forward(self, x):
        return tuple(self.weight.shape), tuple(self.running_mean.shape), self.num_features


def build():
    return Net(), Up(4, 2, 3, stride=2, padding=1, groups=2), Norm(5)
"""


def test_torch_attributes_of_the_new_layers_read_torch_values():
    """attributes.toml for BatchNorm3d (MindSpore's bn2d child), Conv3d, ConvTranspose1d and
    Bilinear: torch's attribute names read torch's values on the converted layers, statically
    (self.bn.weight -> self.bn.bn2d.gamma) and in subclasses of the torch-signature classes."""
    from migrate import convert_source
    converted = convert_source(ATTRIBUTES)
    assert "# migrate:" not in converted.code, converted.code
    t_ns, m_ns = {}, {}
    exec(compile(ATTRIBUTES, "<torch>", "exec"), t_ns)
    exec(compile(converted.code, "<converted>", "exec"), m_ns)
    for t_layer, m_layer in zip(t_ns["build"](), m_ns["build"]()):
        assert m_layer.construct(None) == t_layer.forward(None)


CUSTOM_LOSS = '''import torch
from torch.nn.modules.loss import _Loss


class SoftDice(_Loss):
    def __init__(self, smooth=1.0, reduction="mean"):
        super().__init__(reduction=reduction)
        self.smooth = smooth

    def forward(self, pred, target):
        p = torch.sigmoid(pred)
        inter = (p * target).sum(dim=1)
        loss = 1 - (2 * inter + self.smooth) / (p.sum(dim=1) + target.sum(dim=1) + self.smooth)
        if self.reduction == "mean":
            return loss.mean()
        if self.reduction == "sum":
            return loss.sum()
        return loss


class Squared(_Loss):
    def forward(self, a, b):
        return ((a - b) ** 2).mean() if self.reduction == "mean" else ((a - b) ** 2).sum()
'''


@pytest.mark.parametrize("make", ["SoftDice()", "SoftDice(0.5, reduction='sum')",
                                  "SoftDice(reduction='none')", "Squared()",
                                  "Squared(None, None, 'sum')"])
def test_custom_loss_on_torchs_loss_base(make):
    """A subclass of torch.nn.modules.loss._Loss converts to a Cell over the generated
    Torch_Loss (nn.LossBase keeping torch's self.reduction): values and input gradients equal
    torch's for every reduction, size_average/reduce given positionally as None included."""
    import numpy as np
    import torch
    import ms_core as ms
    from migrate import convert_source
    code = convert_source(CUSTOM_LOSS).code
    assert "# migrate:" not in code and "def construct(self" in code, code
    t_ns, m_ns = {}, {}
    exec(compile(CUSTOM_LOSS, "<torch>", "exec"), t_ns)
    exec(compile(code, "<converted>", "exec"), m_ns)
    rs = np.random.RandomState(0)
    a, b = rs.randn(3, 5).astype(np.float32), rs.rand(3, 5).astype(np.float32)
    t_a = torch.tensor(a, requires_grad=True)
    t_out = eval(make, t_ns)(t_a, torch.tensor(b))
    cot = np.asarray(rs.randn(*t_out.shape), np.float32)  # 0-d for a reduced loss
    (t_out * torch.tensor(cot)).sum().backward()
    loss = eval(make, m_ns)
    m_out = loss(ms.Tensor(a), ms.Tensor(b))
    np.testing.assert_allclose(m_out.asnumpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    grad = ms.grad(lambda x: (loss(x, ms.Tensor(b)) * ms.Tensor(cot)).sum())(ms.Tensor(a))
    np.testing.assert_allclose(grad.asnumpy(), t_a.grad.numpy(), rtol=1e-5, atol=1e-6)
