"""Before/after pairs for the layer rules of rules/layers_more.py and rules/init.py
(calculate_gain), the 1-D int arguments and the layer tables added with them: a rewrite case, a
no-op, an aliased import and a marker case each (each rule's own example is in its record: see
test_rule_examples.py)."""
import pytest

from migrate import convert_source
from tests.migrate.convert.rules.test_rules import HEADER, one

HEU = "weight_init=HeUniform(negative_slope=math.sqrt(5))"
PAIRS = [
    # torch's legacy size_average / reduce are the reduction they stand for
    ("nn.CosineEmbeddingLoss(0.1, True)", "nn.CosineEmbeddingLoss(0.1)"),
    ("nn.CosineEmbeddingLoss(0.1, False)", "nn.CosineEmbeddingLoss(0.1, reduction='sum')"),
    # MS400 conv_transpose1d: pad_mode='pad' even without padding; 1-tuples become ints
    ("nn.ConvTranspose1d(4, 8, 3, stride=2, padding=1)",
     f"nn.Conv1dTranspose(4, 8, 3, stride=2, pad_mode='pad', padding=1, has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(24)))"),
    ("nn.ConvTranspose1d(4, 8, (3,), (2,), bias=False)",
     f"nn.Conv1dTranspose(4, 8, 3, 2, pad_mode='pad', has_bias=False, {HEU})"),
    # MS141 conv1d: MindSpore 2.10's Conv1d takes ints only
    ("nn.Conv1d(2, 3, (5,), (2,), dilation=(2,))",
     f"nn.Conv1d(2, 3, 5, 2, pad_mode='valid', dilation=2, has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(10)))"),
    # MS401 conv3d: (d, h, w) padding -> 6 values
    ("nn.Conv3d(2, 4, (3, 1, 3), padding=(1, 0, 1), bias=False)",
     f"nn.Conv3d(2, 4, (3, 1, 3), pad_mode='pad', padding=(1, 1, 0, 0, 1, 1), has_bias=False, "
     f"{HEU})"),
    ("nn.Conv3d(2, 4, 3, stride=2)",
     f"nn.Conv3d(2, 4, 3, stride=2, pad_mode='valid', has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(54)))"),
    # MS402 conv_transpose3d
    ("nn.ConvTranspose3d(2, 4, 3, 2, 1, 1)",
     f"nn.Conv3dTranspose(2, 4, 3, 2, pad_mode='pad', padding=1, output_padding=1, has_bias=True, "
     f"{HEU}, bias_init=Uniform(scale=1 / math.sqrt(108)))"),
    # MS142 conv_transpose2d keeps pad_mode='pad' without padding (k < stride)
    ("nn.ConvTranspose2d(2, 3, 1, stride=2)",
     f"nn.Conv2dTranspose(2, 3, 1, stride=2, pad_mode='pad', has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(3)))"),
    # MS113 pool: 3-D
    ("nn.MaxPool3d(2)", 'nn.MaxPool3d(2, stride=2)'),
    ("nn.AvgPool3d(3, 2, (1, 0, 1))", "nn.AvgPool3d(3, 2, pad_mode='pad', padding=(1, 0, 1))"),
    # MS403 local_response_norm
    ("nn.LocalResponseNorm(5)", "nn.LRN(depth_radius=2, alpha=0.0001 / 5, beta=0.75)"),
    ("nn.LocalResponseNorm(n, alpha=a, k=2.0)",
     "nn.LRN(depth_radius=(n - 1) // 2, bias=2.0, alpha=a / n, beta=0.75)"),
    # MS404 rrelu_inference
    ("nn.RReLU(0.1, 0.3)", "nn.LeakyReLU()"),
    ("nn.RReLU(lo, hi, inplace=True)", "nn.LeakyReLU(alpha=(lo + hi) / 2)"),
    # MS405 bilinear
    ("nn.Bilinear(4, 6, 5)", "nn.BiDense(4, 6, 5, weight_init=Uniform(scale=1 / math.sqrt(4)), "
     "bias_init=Uniform(scale=1 / math.sqrt(4)))"),
    ("nn.Bilinear(n1, n2, 5, bias=False)",
     "nn.BiDense(n1, n2, 5, has_bias=False, weight_init=Uniform(scale=1 / math.sqrt(n1)))"),
    # MS406 upsampling_mode (and MS411 upsample: float scales, recompute_scale_factor=True)
    ("nn.UpsamplingBilinear2d(scale_factor=2)",
     "nn.Upsample(scale_factor=2.0, mode='bilinear', align_corners=True, "
     "recompute_scale_factor=True)"),
    ("nn.UpsamplingNearest2d((4, 4))", 'nn.Upsample(size=(4, 4))'),
    ("nn.Upsample(scale_factor=(2, 3), mode='nearest')",
     "nn.Upsample(scale_factor=(2.0, 3.0), mode='nearest', recompute_scale_factor=True)"),
    ("nn.Upsample(scale_factor=s)",
     "nn.Upsample(scale_factor=torch_float_scale(s), recompute_scale_factor=True)"),
    ("nn.Upsample(size=(4, 4), mode='bilinear')", "nn.Upsample(size=(4, 4), mode='bilinear')"),
    # MS407 implicit_softmax_dim (no dim: approximate, MindSpore's axis -1)
    ("nn.Softmax()", "nn.Softmax()"),
    ("nn.Softmin(1)", "nn.Softmin(1)"),
    # MS408 parameter_list
    ("nn.ParameterList([nn.Parameter(torch.ones(2))])",
     "ms.ParameterTuple([ms.Parameter(ops.ones((2,)))])"),
    # MS155 calculate_gain
    ("nn.init.calculate_gain('relu')", "math.sqrt(2.0)"),
    ("nn.init.calculate_gain('leaky_relu', 0.2)", "math.sqrt(2.0 / (1 + 0.2 ** 2))"),
    ("nn.init.calculate_gain('conv2d')", "1"),
    ("nn.init.calculate_gain(act)",
     "{'linear': 1, 'conv1d': 1, 'conv2d': 1, 'conv3d': 1, 'conv_transpose1d': 1, "
     "'conv_transpose2d': 1, 'conv_transpose3d': 1, 'sigmoid': 1, 'tanh': 5.0 / 3, "
     "'relu': math.sqrt(2.0), 'leaky_relu': math.sqrt(2.0 / (1 + 0.01 ** 2)), 'selu': 3.0 / 4}[act]"),
    # init entries on parameters
    ("nn.init.dirac_(m.weight, groups=2)",
     "m.weight.set_data(initializer(Dirac(groups=2), m.weight.shape, m.weight.dtype))"),
    ("nn.init.sparse_(m.weight, 0.1)",
     "m.weight.set_data(initializer(Sparse(sparsity=0.1), m.weight.shape, m.weight.dtype))"),
    # losses: keyword order differences
    ("nn.TripletMarginLoss(0.5, 1)", "nn.TripletMarginLoss(margin=0.5, p=1)"),
    ("nn.MultiMarginLoss(2, 0.5, w)", "nn.MultiMarginLoss(2, 0.5, weight=w)"),
    ("nn.GaussianNLLLoss(full=True)", "nn.GaussianNLLLoss(full=True)"),
]
MARKED = [
    "nn.ConvTranspose1d(4, 8, 3, output_padding=1)",
    "nn.ConvTranspose3d(2, 4, 3, dilation=(2, 1, 1))",
    "nn.LocalResponseNorm(4)",
    "nn.init.calculate_gain('gelu')",
    "nn.LayerNorm([4, 8], eps=1e-6)",
]
MARKED_FOR_MINDSPORE = [
    "torch.nn.utils.weight_norm(nn.Linear(2, 3))",
    "torch.nn.utils.parametrizations.weight_norm(nn.Linear(2, 3), dim=None)",
]


@pytest.mark.parametrize("before,after", PAIRS, ids=[b for b, _ in PAIRS])
def test_pair(before, after):
    assert one(before) == f"y = {after}"


@pytest.mark.parametrize("before,after", PAIRS, ids=[b for b, _ in PAIRS])
def test_pair_is_idempotent(before, after):
    once = convert_source(f"{HEADER}y = {before}\n").code
    compile(once, "<out>", "exec")
    assert convert_source(once).code == once


@pytest.mark.parametrize("before", MARKED)
def test_marked(before):
    out = one(before)
    assert out.startswith("# migrate: MS9") and out.endswith(f"y = {before}"), out


@pytest.mark.parametrize("before", MARKED_FOR_MINDSPORE)
def test_weight_norm_for_mindspore_is_generated(before):
    """ms_core's nn.utils.weight_norm has no MindSpore 2.10 counterpart: --target mindspore gets
    the runtime's torch_weight_norm (its numbers: test_first_pass_classes.py, the oracle)."""
    assert one(before).startswith("y = nn.utils.weight_norm(nn.Dense(2, 3, ")
    out = one(before, target="mindspore")
    assert out.startswith("y = torch_weight_norm(nn.Dense(2, 3, ") and "# migrate" not in out, out


MODEL = """import torch
import torch.nn as nn
try:
    from torch.nn.utils.parametrizations import weight_norm
except ImportError:
    from torch.nn.utils import weight_norm


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(3, 4, 3, padding=1))
        self.up = nn.ConvTranspose1d(4, 2, 2, stride=2)
        self.vol = nn.Conv3d(2, 2, (1, 3, 3), padding=(0, 1, 1))
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(2) * 0.5),
                                        nn.Parameter(torch.full((2,), 2.0))])
        self.bil = nn.Bilinear(2, 2, 3)
        self.gain = nn.init.calculate_gain('leaky_relu', 0.1)

    def forward(self, x):
        y = self.up(torch.relu(self.conv(x)))            # (N, 2, 2L)
        v = self.vol(y[:, :, None, :, None].repeat(1, 1, 1, 1, 3))   # (N, 2, 1, 2L, 3)
        z = v.mean(dim=(2, 4)).transpose(1, 2)            # (N, 2L, 2)
        z = z * self.scales[0] + self.scales[1] * self.gain
        return self.bil(z, z)
"""


def test_converted_block_matches_torch():
    """weight_norm (parametrizations, imported under try), ConvTranspose1d, Conv3d, ParameterList,
    Bilinear and calculate_gain in one converted module: torch's weights copied with the
    checker's map, outputs and every parameter gradient equal to torch's."""
    import numpy as np
    import torch
    import ms_core as ms
    from migrate.check.weights import transfer
    res = convert_source(MODEL)
    assert "# migrate:" not in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(compile(MODEL, "<torch>", "exec"), t_ns)
    exec(compile(res.code, "<converted>", "exec"), m_ns)
    torch.manual_seed(0)
    tnet, mnet = t_ns["Block"](), m_ns["Block"]()
    rep = transfer(tnet, mnet)
    assert rep.ok, rep.problems()
    x = np.random.RandomState(0).randn(2, 3, 5).astype(np.float32)
    t_out = tnet(torch.tensor(x))
    np.testing.assert_allclose(mnet(ms.Tensor(x)).asnumpy(), t_out.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    t_out.sum().backward()
    params = dict(tnet.named_parameters())
    by_path = dict(mnet.parameters_and_names())
    pairs = rep.pairs()
    grads = ms.grad(lambda a: mnet(a).sum(), None, [by_path[m] for _, m in pairs])(ms.Tensor(x))
    for (t_name, _), g in zip(pairs, grads):
        want = params[t_name].grad.numpy()
        np.testing.assert_allclose(g.asnumpy().reshape(want.shape), want, rtol=1e-5, atol=1e-6,
                                   err_msg=t_name)


def test_aliased_import_and_no_op():
    assert one("tnn.Conv3d(2, 4, 3, bias=False)", "import torch.nn as tnn\n") == (
        f"y = nn.Conv3d(2, 4, 3, pad_mode='valid', has_bias=False, {HEU})")
    assert one("Bilinear(4, 6, 5, bias=False)", "from torch.nn import Bilinear\n") == (
        "y = nn.BiDense(4, 6, 5, has_bias=False, weight_init=Uniform(scale=1 / math.sqrt(4)))")
    # not torch's: unchanged
    assert one("nn.Conv3d(2, 4, 3)", "import mylib as nn\n") == "y = nn.Conv3d(2, 4, 3)"


def test_labels_and_notes():
    res = convert_source(f"{HEADER}a = nn.RReLU()\nb = nn.Softmax()\nc = nn.Embedding(5, 3, "
                         "padding_idx=0)\n")
    labels = {c.rule: (c.label, c.note) for c in res.changes if c.rule != "MS100"}
    assert labels["MS404"][0] == "approximate" and "inference-mode" in labels["MS404"][1]
    assert labels["MS407"][0] == "approximate" and "axis=-1" in labels["MS407"][1]
    # padding_idx: the runtime's EmbeddingTorch keeps the row's gradient at zero, as torch does
    assert labels["MS115"][0] == "transformed" and "EmbeddingTorch" in res.code


@pytest.mark.parametrize("src,what", [
    ("y = nn.InstanceNorm2d(3)\n", "no CPU kernel for InstanceNorm"),
    ("y = nn.InstanceNorm1d(3, affine=True)\n", "no CPU kernel for InstanceNorm"),
    ("y = nn.SoftMarginLoss()\n", "no CPU kernel for SoftMarginLoss"),
    ("y = nn.TripletMarginLoss()\n", "no CPU kernel for TripletMarginLoss"),
    ("y = F.layer_norm(x, (4,))\n", "CPU backend has no kernel for ops.layer_norm"),
    ("y = nn.KLDivLoss()\n", "gives the target (labels) a zero gradient"),
    ("y = F.pad(x, (-1, 1))\n", "negative padding (a crop) wrongly"),
    ("y = nn.MultiheadAttention(8, 2)\n", "mis-combines a bool key_padding_mask"),
])
def test_mindspore_notes_only_with_target_mindspore(src, what):
    """What MindSpore 2.10 itself cannot run on the CPU, or computes wrongly there (each checked
    on 2.10; ms_core computes torch's values), is said in the report with --target mindspore;
    an ms_core conversion carries no such note."""
    def notes(target):
        return " ".join(c.note for c in convert_source(HEADER + src, target).changes)

    assert what in notes("mindspore")
    assert "MindSpore 2.10" not in notes("ms_core")


def test_functional_layer_norm_runs_the_primitive_with_target_mindspore():
    """MS349: F.layer_norm is ops.layer_norm for ms_core; with --target mindspore (whose CPU
    backend has no LayerNormExt kernel) a call of the generated torch_layer_norm over the
    ops.LayerNorm primitive, with torch's arguments; idempotent."""
    src = f"{HEADER}y = F.layer_norm(x, (4,), w, None, eps=1e-6)\n"
    assert convert_source(src).code.splitlines()[-1] == "y = ops.layer_norm(x, (4,), w, None, eps=1e-6)"
    out = convert_source(src, "mindspore").code
    assert out.splitlines()[-1] == "y = torch_layer_norm(x, (4,), w, None, eps=1e-6)"
    assert "from migrate_runtime import torch_layer_norm\n" in out
    assert convert_source(out, "mindspore").code == out


@pytest.mark.parametrize("before,after", [("nn.Dropout2d(0.3, inplace=True)", "Dropout2dAnyRank(0.3)"),
                                          ("nn.Dropout2d()", "Dropout2dAnyRank()")])
def test_dropout2d_any_rank(before, after):
    """MS412: a call of the runtime's nn.Dropout2d subclass."""
    out = one(before)
    assert out.splitlines()[-1] == f"y = {after}"
    assert "from migrate_runtime import Dropout2dAnyRank\n" in convert_source(f"{HEADER}y = {before}\n").code
    assert convert_source(f"{HEADER}y = {before}\n").code == convert_source(
        convert_source(f"{HEADER}y = {before}\n").code).code  # idempotent


DROPOUT = """import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout2d(0.5)

    def forward(self, x):
        return self.drop(x)
"""


@pytest.mark.parametrize("shape,groups", [((64, 40), (64, 40)), ((8, 50, 16), (8, 50)),
                                          ((4, 30, 3, 5), (4, 30))], ids=str)
def test_converted_dropout2d_takes_torch_ranks(shape, groups):
    """torch's Dropout2d zeroes elements of 2-D input and channels of (N, C, L) and (N, C, H, W)
    input; the converted layer does the same in training (MindSpore 2.10's nn.Dropout2d raises on
    2-D/3-D input): every group is all zero or all 1 / (1 - p), about half of them zero, the
    same pattern as torch's, and inference returns the input."""
    import numpy as np
    import torch
    import ms_core as ms
    ns = {}
    exec(compile(convert_source(DROPOUT).code, "<converted>", "exec"), ns)
    net = ns["Net"]()
    x = np.ones(shape, np.float32)
    torch.manual_seed(0)
    ref = torch.nn.Dropout2d(0.5).train()(torch.tensor(x)).numpy()
    out = net.set_train(True)(ms.Tensor(x)).asnumpy()
    for got in (ref, out):
        per_group = got.reshape(groups + (-1,))
        assert set(np.unique(got)) <= {0.0, 2.0}
        assert np.all(per_group.min(-1) == per_group.max(-1))  # whole groups
        assert 0.3 < (per_group[..., 0] == 0).mean() < 0.7
    np.testing.assert_array_equal(net.set_train(False)(ms.Tensor(x)).asnumpy(), x)
