"""F.* / torch.* / tensor-method rewrites, run on ms_core against torch on the same inputs.

Each expression is converted inside ``def f(x: torch.Tensor, ...)`` (so the receivers are known
tensors), then both functions run; results must agree to rtol 1e-4 with the same shape.
"""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

EXPRS = [
 "F.relu(x)", "F.softmax(x, dim=1)", "F.log_softmax(x, dim=-1)", "F.gelu(x)", "F.leaky_relu(x, 0.2)",
 "F.dropout(x, 0.5, training=False)", "F.pad(x, (1, 2))", "F.adaptive_avg_pool2d(img, 1)",
 "F.max_pool2d(img, 2)", "F.avg_pool2d(img, 3, 1, 1)", "F.interpolate(img, scale_factor=2, mode='nearest')",
 "F.linear(x, w)", "F.hardswish(x)", "F.silu(x)", "F.elu(x)", "F.softplus(x)",
 "torch.cat([x, x], dim=1)", "torch.stack([x, x], 0)", "torch.flatten(x)", "torch.flatten(x, 1)",
 "torch.matmul(x, w.transpose(0, 1))", "torch.transpose(x, 0, 2)", "torch.permute(x, (2, 0, 1))",
 "torch.sum(x, dim=1, keepdim=True)", "torch.sum(x)", "torch.mean(x, 1)", "torch.mean(x, dim=(1, 2))",
 "torch.max(x)", "torch.max(x, 1)[0]", "torch.max(x, 1)[1]", "torch.max(x, y)", "torch.argmax(x, 1)",
 "torch.zeros(2, 3)", "torch.ones((2, 3))", "torch.arange(5)", "torch.full((2, 2), 3.0)",
 "torch.exp(x)", "torch.clamp(x, -0.5, 0.5)", "torch.where(x > 0, x, y)", "torch.chunk(x, 3, 1)[1]",
 "torch.split(x, 2, dim=2)[1]", "torch.unsqueeze(x, 0)", "torch.squeeze(torch.unsqueeze(x, 0), 0)",
 "torch.reshape(x, (6, 4))", "torch.logsumexp(x, 1)", "torch.pow(x, 2)", "torch.div(x, 2.0)",
 "torch.ones_like(x)", "torch.linspace(0, 1, 5)", "torch.eye(3)", "torch.sigmoid(x)", "torch.tanh(x)",
 "x.view(2, -1)", "x.view(-1)", "x.size(1)", "x.permute(2, 0, 1)", "x.transpose(1, 2)",
 "x.unsqueeze(1)", "x.flatten()", "x.flatten(1)", "x.chunk(2, dim=2)[0]", "x.sum(dim=1)", "x.mean(1, keepdim=True)",
 "x.max(dim=1)[0]", "x.max()", "x.argmax(1)", "x.detach()", "x.float()", "x.long()", "x.masked_fill(x > 0, 0.0)",
 "x.expand(2, 3, 4)", "x.dim()", "x.numel()", "x.contiguous()", "torch.unsqueeze(x, 0).squeeze(0)",
 "F.cross_entropy(x[:, :, 0], t)", "F.mse_loss(x, y)", "F.l1_loss(x, y)", "F.smooth_l1_loss(x, y)",
 "F.binary_cross_entropy_with_logits(x, (y > 0).float())", "F.nll_loss(F.log_softmax(x[:, :, 0], 1), t)",
 "F.one_hot(t, 3)",
 "torch.Tensor([1, 2]) + x[0, 0, :2]", "torch.Tensor(2, 3).shape[0]", "torch.Tensor(2, *x.shape[1:]).shape[2]",
 "x.clone()", "x.type_as(t)", "x.new_zeros(2, 3)", "x.new_ones((4,))", "x.repeat(2, 1, 1)", "x.view_as(y)",
 "x.add(y)", "x.sub(y)", "x.mul(y)", "x.div(y)", "x.eq(y)", "x.gt(y)", "x.le(y)", "(x > 0).logical_not()",
 "x.cumsum(1)", "x.bmm(y.transpose(1, 2))", "x.index_select(1, t)",
]

HEADER = ("import torch\nimport torch.nn.functional as F\n\n"
          "def f(x: torch.Tensor, y: torch.Tensor, img: torch.Tensor, w: torch.Tensor, t: torch.Tensor):\n"
          "    return ")
_rs = np.random.RandomState(0)
INPUTS = [_rs.randn(2, 3, 4).astype(np.float32), _rs.randn(2, 3, 4).astype(np.float32),
          _rs.randn(1, 2, 6, 6).astype(np.float32), _rs.randn(5, 4).astype(np.float32),
          np.array([0, 2], dtype=np.int64)]


@pytest.mark.parametrize("expr", EXPRS)
def test_expression_matches_torch(expr):
    code = HEADER + expr + "\n"
    res = convert_source(code)
    assert not res.unsupported, res.code
    tns, cns = {}, {}
    exec(code, tns)
    exec(res.code, cns)
    ref = tns["f"](*(torch.from_numpy(a) for a in INPUTS))
    out = cns["f"](*(ms.Tensor(a) for a in INPUTS))
    ref = ref.numpy() if hasattr(ref, "numpy") else np.asarray(ref)
    out = out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)
    assert out.shape == ref.shape, (res.code.splitlines()[-1], out.shape, ref.shape)
    assert out.dtype.kind == ref.dtype.kind or ref.dtype.kind == "f", (out.dtype, ref.dtype)
    np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=1e-4, atol=1e-5)


INITS = [
    "nn.init.constant_(w, 0.25)", "nn.init.zeros_(w)", "nn.init.ones_(w)",
    "nn.init.normal_(w, 0.5, 0.02)", "nn.init.uniform_(w, -0.3, 0.3)", "nn.init.trunc_normal_(w, std=0.02)",
    "nn.init.xavier_uniform_(w)", "nn.init.xavier_normal_(w, gain=2.0)",
    "nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')", "nn.init.kaiming_uniform_(w, a=1)",
    "w.data.normal_(0, 0.01)", "w.data.fill_(3.0)", "w.data.zero_()", "w.data.uniform_(-0.3, 0.3)",
    "w.data.normal_(mean=1.0, std=0.5)", "w.data.fill_(-2)",
    # ranges not symmetric around 0: ops.uniform, not the (symmetric) Uniform initializer
    "nn.init.uniform_(w, 0.5, 2.0)", "nn.init.uniform_(w)", "w.data.uniform_(0, 1)",
]


@pytest.mark.parametrize("call", INITS)
def test_init_call_matches_torch_distribution(call):
    """Converted init calls draw from torch's distribution: same mean, std and bounds (64x32x3x3)."""
    code = f"import torch\nimport torch.nn as nn\n\ndef init(w):\n    {call}\n    return w\n"
    res = convert_source(code)
    assert not res.unsupported and any(f"{m}({f}(" in res.code for m in ("set_data", "assign_value")
                                       for f in ("initializer", "ops.uniform")), res.code
    tns, cns = {}, {}
    exec(code, tns)
    exec(res.code, cns)
    shape = (64, 32, 3, 3)
    torch.manual_seed(0)
    ms.set_seed(0)
    ref = tns["init"](torch.nn.Parameter(torch.empty(shape))).detach().numpy()
    out = cns["init"](ms.Parameter(ms.Tensor(np.full(shape, 7.0, np.float32)), name="w")).asnumpy()
    assert abs(out.mean() - ref.mean()) <= 0.05 * ref.std() + 1e-6 + 0.01 * abs(ref.mean())
    assert abs(out.std() - ref.std()) <= 0.05 * ref.std() + 1e-6
    if "uniform" in call:  # bounded: the same bounds
        assert out.min() >= ref.min() - 0.02 * ref.std() - 1e-6 and out.max() <= ref.max() + 0.02 * ref.std() + 1e-6
        assert out.dtype == np.float32


@pytest.mark.parametrize("expr, low, high", [
    ("torch.zeros(n).uniform_(0, 1)", 0.0, 1.0), ("torch.empty(n).uniform_(-2.0, 5.0)", -2.0, 5.0),
    ("torch.zeros(n, dtype=torch.float64).uniform_()", 0.0, 1.0),
    ("torch.FloatTensor(n, device=None).uniform_(2, 3)", 2.0, 3.0),
])
def test_uniform_on_a_fresh_tensor_draws_from_torch_range(expr, low, high):
    """x.uniform_(a, b) on a tensor made in the same expression (gumbel noise, drop-path masks):
    U[a, b) in the tensor's dtype; mean and std of U[a, b) within sampling error (n = 200000)."""
    code = f"import torch\n\ndef draw(n):\n    return {expr}\n"
    res = convert_source(code)
    assert not res.unsupported and "ops.uniform(" in res.code, res.code
    tns, cns = {}, {}
    exec(code, tns)
    exec(res.code, cns)
    ms.set_seed(0)
    ref = tns["draw"](200000).numpy()
    out = cns["draw"](200000).asnumpy()
    assert out.dtype == ref.dtype and out.shape == ref.shape
    assert low <= out.min() and out.max() < high
    width = high - low
    # mean of U[a, b) is (a + b) / 2 with std width/sqrt(12); 5 standard errors of the mean
    assert abs(out.mean() - (low + high) / 2) < 5 * width / np.sqrt(12 * 200000)
    assert abs(out.std() - width / np.sqrt(12)) < 0.01 * width
