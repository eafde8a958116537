"""Before/after pairs for the rules and table entries: each with a rewrite case, a no-op case
(same text, no torch import or not torch's), an aliased-import case and a marker case."""
import pytest

from mappings import load_tables
from migrate import convert_source
from migrate.runtime.index import SIGNATURES
from migrate.convert.registry import MARKERS, RULES
from tests.migrate.convert.helpers import without_guards

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def one(expr: str, header: str = HEADER, target: str = "ms_core") -> str:
    """Convert ``y = expr`` and return the converted statement (marker lines included)."""
    res = convert_source(f"{header}y = {expr}\n", target)
    assert res.error is None
    body = [ln for ln in without_guards(res.code).splitlines() if ln and not ln.startswith(("import ", "from "))]
    return "\n".join(body)


HEU = "weight_init=HeUniform(negative_slope=math.sqrt(5))"
PAIRS = [
    # MS110 conv: padding -> pad_mode + padding, groups -> group, explicit bias and torch inits
    ("nn.Conv2d(3, 8, 3, stride=2, padding=(1, 2), groups=1, bias=False)",
     f"nn.Conv2d(3, 8, 3, stride=2, pad_mode='pad', padding=(1, 1, 2, 2), group=1, has_bias=False, {HEU})"),
    ("nn.Conv2d(4, 8, (3, 5), padding='same', groups=2)",
     f"nn.Conv2d(4, 8, (3, 5), group=2, has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(4 // 2 * 15)))"),
    ("nn.Conv2d(4, 8, 3, padding='valid', bias=False, device='cuda')",
     f"nn.Conv2d(4, 8, 3, pad_mode='valid', has_bias=False, {HEU})"),
    ("nn.Conv2d(4, 8, 3, 1, 1, 1, 1, False)",
     f"nn.Conv2d(4, 8, 3, 1, pad_mode='pad', padding=1, dilation=1, group=1, has_bias=False, {HEU})"),
    ("nn.Conv1d(4, 8, 3, padding=1)",
     f"nn.Conv1d(4, 8, 3, pad_mode='pad', padding=1, has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(12)))"),
    ("nn.ConvTranspose2d(8, 4, 2, stride=2)",
     f"nn.Conv2dTranspose(8, 4, 2, stride=2, pad_mode='pad', has_bias=True, {HEU}, "
     "bias_init=Uniform(scale=1 / math.sqrt(16)))"),
    # MS111 dense
    ("nn.Linear(16 * 5 * 5, 120)",
     f"nn.Dense(16 * 5 * 5, 120, {HEU}, bias_init=Uniform(scale=1 / math.sqrt(16 * 5 * 5)))"),
    ("nn.Linear(in_features=8, out_features=2, bias=False)",
     f"nn.Dense(in_channels=8, out_channels=2, has_bias=False, {HEU})"),
    # MS112 batch norm
    ("nn.BatchNorm2d(8)", "nn.BatchNorm2d(8)"),
    ("nn.BatchNorm2d(8, momentum=0.3, track_running_stats=False)",
     "nn.BatchNorm2d(8, momentum=0.7, use_batch_statistics=True)"),
    ("nn.BatchNorm1d(8, eps=1e-3, affine=False)", "nn.BatchNorm1d(8, eps=1e-3, affine=False)"),
    ("nn.BatchNorm2d(c, momentum=m)", "nn.BatchNorm2d(c, momentum=1 - m)"),
    # MS113 pooling
    ("nn.MaxPool2d(2)", 'nn.MaxPool2d(2, stride=2)'),
    ("nn.MaxPool2d(3, 2, 1)", "nn.MaxPool2d(3, 2, pad_mode='pad', padding=1)"),
    ("nn.MaxPool2d(2, ceil_mode=True)", "nn.MaxPool2d(2, stride=2, pad_mode='pad', ceil_mode=True)"),
    ("nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)",
     "nn.AvgPool2d(3, stride=1, pad_mode='pad', padding=1, count_include_pad=False)"),
    # MS114 dropout, layer norm
    ("nn.Dropout()", "nn.Dropout()"),
    ("nn.Dropout(0.1)", "nn.Dropout(keep_prob=0.9)"),
    ("nn.Dropout(p=rate, inplace=True)", "nn.Dropout(keep_prob=1.0 - rate)"),
    ("nn.LayerNorm(64)", "nn.LayerNorm((64,), epsilon=1e-05)"),
    ("nn.LayerNorm([8], eps=1e-6)", "nn.LayerNorm([8], epsilon=1e-6)"),
    # activations and other layers
    ("nn.ReLU(inplace=True)", "nn.ReLU()"),
    ("nn.GELU()", "nn.GELU(approximate=False)"),
    ("nn.GELU(approximate='tanh')", "nn.GELU()"),
    ("nn.LeakyReLU(0.1, True)", "nn.LeakyReLU(alpha=0.1)"),
    ("nn.Hardswish()", "nn.HSwish()"),
    ("nn.Softmax(dim=1)", "nn.Softmax(axis=1)"),
    ("nn.Flatten()", "nn.Flatten()"),
    # (the runtime's EmbeddingTorch: torch's padding row gets no gradient)
    ("nn.Embedding(100, 16, padding_idx=0)",
     "EmbeddingTorch(100, 16, padding_idx=0, embedding_table=Normal(sigma=1.0))"),
    ("nn.GroupNorm(2, 8)", "nn.GroupNorm(2, 8)"),
    ("nn.PReLU()", "nn.PReLU()"),
    ("nn.Sequential(nn.ReLU(), *rest)", "nn.SequentialCell(nn.ReLU(), *rest)"),
    ("nn.ModuleList([nn.ReLU()])", "nn.CellList([nn.ReLU()])"),
    ("nn.Parameter(torch.zeros(3), requires_grad=False)", "ms.Parameter(ops.zeros((3,)), requires_grad=False)"),
    ("nn.CrossEntropyLoss(label_smoothing=0.1)", "nn.CrossEntropyLoss(label_smoothing=0.1)"),
    # MS002 functional (the functional table)
    ("F.relu(x, inplace=True)", "ops.relu(x)"),
    ("F.softmax(x, dim=-1)", "ops.softmax(x, axis=-1)"),
    ("F.dropout(x, 0.2)", "ops.dropout(x, p=0.2)"),
    ("F.leaky_relu(x)", "ops.leaky_relu(x, alpha=0.01)"),
    ("F.gelu(x)", 'ops.gelu(x)'),
    ("F.pad(x, (1, 1, 2, 2), mode='constant', value=0.0)", "ops.pad(x, (1, 1, 2, 2), mode='constant', value=0.0)"),
    ("F.adaptive_avg_pool2d(x, 1)", "ops.adaptive_avg_pool2d(x, 1)"),
    ("F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)",
     "ops.interpolate(x, scale_factor=2.0, mode='bilinear', align_corners=False, recompute_scale_factor=True)"),
    ("F.conv2d(x, w, b, 2, 1)", "ops.conv2d(x, w, b, 2, pad_mode='pad', padding=1)"),
    ("F.conv2d(x, w, padding='same', groups=4)", "ops.conv2d(x, w, pad_mode='same', groups=4)"),
    ("F.smooth_l1_loss(a, b)", "ops.smooth_l1_loss(a, b, reduction='mean')"),
    ("nn.InstanceNorm2d(8)", "nn.InstanceNorm2d(8, affine=False)"),
    ("nn.MaxPool1d(3, padding=1)", "nn.MaxPool1d(3, stride=3, pad_mode='pad', padding=1)"),
    ("nn.SELU(inplace=True)", "nn.SeLU()"),
    # MS001 torch.* (the torch table)
    ("torch.cat([x, y], dim=1)", "ops.cat([x, y], axis=1)"),
    ("torch.flatten(x)", "ops.flatten(x, start_dim=0)"),
    ("torch.flatten(x, 1)", "ops.flatten(x, start_dim=1)"),
    ("torch.transpose(x, 0, 1)", "ops.swapaxes(x, 0, 1)"),
    ("torch.permute(x, (0, 2, 1))", "ops.transpose(x, (0, 2, 1))"),
    ("torch.mean(x, dim=1, keepdim=True)", "ops.mean(x, axis=1, keep_dims=True)"),
    ("torch.max(x)", "ops.amax(x)"),
    ("torch.sum(x, dim=1, keepdim=True)", "ops.sum(x, 1, True)"),
    ("torch.argmax(x, dim=-1)", "ops.argmax(x, -1)"),
    ("F.one_hot(t, num_classes=10)", "ops.one_hot(t, 10).astype(ms.int64)"),
    ("torch.max(x, 1)", "ops.max(x, 1)"),
    ("torch.max(x, y)", "ops.maximum(x, y)"),
    ("torch.zeros(2, 3, dtype=torch.float32, device=dev)", "ops.zeros((2, 3), dtype=ms.float32)"),
    ("torch.ones(shape)", "ops.ones(shape)"),
    ("torch.randn(4)", "ops.randn(4)"),
    ("torch.arange(10)", "ops.arange(10)"),
    ("torch.tensor([1, 2], dtype=torch.long)", "ms.Tensor([1, 2], dtype=ms.int64)"),
    ("torch.from_numpy(a)", "ms.Tensor(a)"),
    ("torch.Tensor([1, 2])", "ms.Tensor([1, 2], ms.float32)"),
    ("torch.Tensor(2, 3)", "ops.zeros((2, 3), ms.float32)"),
    ("torch.Tensor()", "ops.zeros((0,), ms.float32)"),
    ("torch.LongTensor([1, 2])", "ms.Tensor([1, 2], ms.int64)"),
    ("torch.manual_seed(0)", "ms.set_seed(0)"),
    ("torch.device('cuda')", "None"),
    ("torch.cuda.is_available()", "False"),
    ("torch.save(model.state_dict(), 'm.pt')", "ms.save_checkpoint(model, 'm.pt')"),
    ("torch.load('m.pt', map_location='cpu')", "ms.hub.load('m.pt')"),
    ("torch.float16", "ms.float16"),
    ("torch.logsumexp(x, 1, keepdim=True)", "ops.logsumexp(x, 1, True)"),
    ("torch.div(a, b, rounding_mode='floor')", "ops.div(a, b, rounding_mode='floor')"),
    # MS120 init: a name may hold a plain Tensor (assign_value), `.weight` is a Parameter (set_data)
    ("nn.init.xavier_uniform_(w)", "w.assign_value(initializer(XavierUniform(), w.shape, w.dtype).init_data())"),
    ("nn.init.trunc_normal_(w, std=0.02)",
     "w.assign_value(initializer(TruncatedNormal(mean=0.0, sigma=0.02, a=-2.0, b=2.0), w.shape, w.dtype).init_data())"),
    ("nn.init.uniform_(w, -0.1, 0.1)", "w.assign_value(initializer(Uniform(scale=0.1), w.shape, w.dtype).init_data())"),
    # any other range: U[a, b) by ops.uniform (MindSpore's Uniform initializer is symmetric)
    ("nn.init.uniform_(w, 0, 1)",
     "w.assign_value(ops.uniform(w.shape, ms.Tensor(0, ms.float32), ms.Tensor(1, ms.float32), dtype=w.dtype))"),
    # a tensor made in the same expression: a new U[a, b) tensor of its shape and dtype
    ("torch.zeros(n).uniform_(0., 2.)",
     "ops.uniform(ops.zeros(n).shape, ms.Tensor(0., ms.float32), ms.Tensor(2., ms.float32), dtype=ops.zeros(n).dtype)"),
    ("torch.FloatTensor(2, 3, device=d)", "ops.zeros((2, 3), ms.float32)"),
    # pytorchcv's XConv2d: star sizes after two plain values (or an int first) are sizes
    ("torch.Tensor(c, g, *ks)", "ops.zeros((c, g, *ks), ms.float32)"),
    ("torch.LongTensor(2, *ks)", "ops.zeros((2, *ks), ms.int64)"),
    # Parameter(data=...) by MindSpore's name (pytorchcv's XConv2d mask)
    ("nn.Parameter(data=t, requires_grad=False)", "ms.Parameter(default_input=t, requires_grad=False)"),
    ("torch.FloatTensor(n)", "(ops.zeros((n,), ms.float32) if isinstance(n, int) else ms.Tensor(n, ms.float32))"),
    ("torch.autograd.Variable(torch.ones(2), volatile=True)", "ops.stop_gradient(ops.ones((2,)))"),
    ("nn.init.kaiming_normal_(self.fc.weight, mode='fan_out', nonlinearity='relu')",
     "self.fc.weight.set_data(initializer(HeNormal(negative_slope=0, mode='fan_out', nonlinearity='relu'), "
     "self.fc.weight.shape, self.fc.weight.dtype))"),
    ("nn.init.zeros_(b)", "b.assign_value(initializer(Zero(), b.shape, b.dtype).init_data())"),
    ("nn.init.constant_(b, 0.5)", "b.assign_value(initializer(Constant(0.5), b.shape, b.dtype).init_data())"),
    ("nn.init.normal_(w, 0, 0.01)",
     "w.assign_value(initializer(Normal(mean=0, sigma=0.01), w.shape, w.dtype).init_data())"),
]


@pytest.mark.parametrize("before,after", PAIRS, ids=[b for b, _ in PAIRS])
def test_pair(before, after):
    assert one(before) == f"y = {after}"


@pytest.mark.parametrize("before,after", PAIRS, ids=[b for b, _ in PAIRS])
def test_pair_is_idempotent_and_valid(before, after):
    once = convert_source(f"{HEADER}y = {before}\n").code
    compile(once, "<out>", "exec")
    assert convert_source(once).code == once


@pytest.mark.parametrize("before", [b for b, _ in PAIRS[:40]])
def test_no_op_without_torch(before):
    """The same text with nn/F/torch bound to something else is not torch's: untouched."""
    src = f"import mylib as torch\nfrom mylib import nn, F\ny = {before}\n"
    assert convert_source(src).code == src


@pytest.mark.parametrize("header,expr,expected", [
    ("from torch import nn\n", "nn.Dropout(0.1)", "nn.Dropout(keep_prob=0.9)"),
    ("import torch.nn as tnn\n", "tnn.Linear(2, 3, bias=False)", f"nn.Dense(2, 3, has_bias=False, {HEU})"),
    ("from torch.nn import Conv2d as C\n", "C(1, 2, 3, bias=False)",
     f"nn.Conv2d(1, 2, 3, pad_mode='valid', has_bias=False, {HEU})"),
    ("from torch.nn import functional as fn\n", "fn.softmax(x, 1)", "ops.softmax(x, 1)"),
    ("import torch.nn.functional as Fn\n", "Fn.dropout(x, p=0.5, training=False)",
     "ops.dropout(x, training=False)"),
    ("import torch as th\n", "th.nn.functional.relu(th.cat([a, b], 0))", "ops.relu(ops.cat([a, b], 0))"),
    ("from torch.nn import init\n", "init.ones_(w)",
     "w.assign_value(initializer(One(), w.shape, w.dtype).init_data())"),
    ("from torch.nn.init import kaiming_uniform_\n", "kaiming_uniform_(w, a=1)",
     "w.assign_value(initializer(HeUniform(negative_slope=1, mode='fan_in', nonlinearity='leaky_relu'), w.shape, "
     "w.dtype).init_data())"),
    ("from torch import cat, flatten\n", "flatten(cat(xs, 1), 1)", "ops.flatten(ops.cat(xs, 1), start_dim=1)"),
    ("from torch.nn import BatchNorm2d\n", "BatchNorm2d(4, 1e-3, 0.01)", "nn.BatchNorm2d(4, 1e-3, momentum=0.99)"),
])
def test_aliased_imports(header, expr, expected):
    assert one(expr, header) == f"y = {expected}"


@pytest.mark.parametrize("expr,marker", [
    ("nn.BatchNorm2d(8, momentum=None)", "MS902 torch.nn.BatchNorm2d: momentum=None (cumulative average)"),
    ("nn.Conv2d(3, 8, 3, padding_mode='circular')", "MS902 torch.nn.Conv2d: padding_mode='circular'"),
    ("nn.Conv2d(3, 8, 3, dtype=torch.float64)", "MS902 torch.nn.Conv2d: dtype=torch.float64"),
    ("nn.Embedding(10, 4, max_norm=1.0)", "MS902 torch.nn.Embedding: max_norm=1.0"),
    ("nn.LSTM(4, 8, proj_size=2)", "MS902 torch.nn.LSTM: proj_size=2: LSTM with projections"),
    ("torch.geqrf(x)", "MS901 torch.geqrf has no mapping"),
    ("F.one_hot(*a)", "MS903 torch.nn.functional.one_hot: cannot translate *-arguments"),
    ("nn.Dropout(p=0.5, q=1)", "MS903 torch.nn.Dropout: unknown argument q="),
    ("nn.MSELoss(size_average=flag)", "MS902 torch.nn.MSELoss: size_average=flag: deprecated"),
    ("torch.add(a, b, alpha=2)", "MS902 torch.add: alpha=2: alpha=: scale the operand instead"),
])
def test_markers(expr, marker):
    out = one(expr)
    first, second = out.split("\n")
    assert first.startswith(f"# migrate: {marker}"), first
    assert second == f"y = {expr}"  # the code is kept as written


def test_marker_ids_are_documented():
    res = convert_source(f"{HEADER}y = torch.geqrf(x)\nz = nn.BatchNorm2d(3, momentum=None)\n")
    for c in res.changes:
        if c.label == "unsupported":
            assert c.rule in MARKERS


MY_TABLES = {"layers", "functional", "torch", "init", "layers_conv", "layers_activation",
             "layers_norm", "layers_loss", "layers_misc"}
MARKED_WITH_DEFAULTS = {"torch.nn.functional.one_hot",
                        "torch.randint",   # randint() without high and size: marked
                        "torch.scatter",   # scatter(input, dim, index) without src or value: marked
                        # alpha_dropout(input, p, train) with train not known to be False: marked
                        # (torch.nn.functional's, with a variable, raises when built if it is True)
                        "torch.alpha_dropout", "torch.feature_alpha_dropout"}


def test_every_table_entry_converts_a_plain_call():
    """Each entry, called with its required parameters as names, gives valid idempotent code
    that uses its target (or is marked, for entries labelled unsupported)."""
    for name, entry in load_tables().items():
        if name.startswith(("Tensor.", "Module.")) or entry.table not in MY_TABLES:
            continue
        required = [p.name for p in entry.params or () if p.default is None and not p.star]
        call = f"{name}({', '.join(required)})" if entry.params is not None or entry.rule else name
        src = ("import torch\nimport torch.nn\nimport torch.nn.init\nimport torch.nn.functional\nimport torch.cuda\n"
               f"y = {call}\n")
        res = convert_source(src)
        assert res.error is None, name
        compile(res.code, name, "exec")
        assert convert_source(res.code).code == res.code, name
        if entry.label == "unsupported" or name in MARKED_WITH_DEFAULTS:
            assert "# migrate:" in res.code, name
        else:
            assert "# migrate:" not in res.code, (name, res.code)
            if entry.target and not entry.target.startswith(".") and not entry.rule and not entry.template:
                # the target, or the runtime's class over it (nn.Sequential() filled later: TorchSequential)
                assert entry.target.split(".", 1)[-1] in res.code or SIGNATURES.get(name) in res.runtime, \
                    (name, res.code)


def test_every_rule_has_an_id_and_a_replace_docstring():
    for r in RULES.values():
        assert r.id.startswith(("MS1", "MS2", "MS3", "MS4", "MS5")) and len(r.id) == 5, r.name
        assert r.doc.startswith("Replace "), r.name
    for name, entry in load_tables().items():
        assert entry.rule is None or entry.rule in RULES, name


def test_target_mindspore():
    res = convert_source(f"{HEADER}y = nn.init.zeros_(w)\n", target="mindspore")
    assert "from mindspore.common.initializer import Zero, initializer" in res.code


def test_functional_avg_pool2d_gets_torchs_stride():
    """F.avg_pool2d's stride defaults to kernel_size; MindSpore's ops.avg_pool2d to 1."""
    from migrate import convert_source
    src = ("import torch.nn.functional as F\n"
           "def f(x):\n"
           "    return F.avg_pool2d(x, 2), F.avg_pool2d(x, 3, 1)\n")
    res = convert_source(src)
    assert "ops.avg_pool2d(x, 2, stride=2), ops.avg_pool2d(x, 3, 1)" in res.code
    # functional_pool_stride: MS144 (it shared MS113 with the pool rule before IDs were made distinct)
    assert [c.label for c in res.changes if c.rule == "MS144"] == ["transformed", "exact"]


def test_values_and_indices_of_torch_named_tuples_become_tuple_items():
    from migrate import convert_source
    src = ("import torch\n"
           "def f(x: torch.Tensor):\n"
           "    a = torch.max(x, dim=1, keepdim=True).values\n"
           "    b = torch.sort(x, 1).indices\n"
           "    c = x.topk(2).values\n"
           "    d = obj.values\n")
    code = convert_source(src).code
    assert "a = ops.max(x, 1, keepdims=True)[0]" in code
    assert "b = ops.sort(x, 1)[1]" in code
    assert "[0]" in code.split("c = ")[1].splitlines()[0]
    assert "d = obj.values" in code


def test_dim_keyword_marks_a_torch_tensor_and_gather_norm_translate():
    from migrate import convert_source
    src = ("import torch\n"
           "def f(x, idx):\n"
           "    a = x.sum(dim=0, keepdim=True)\n"
           "    b = x.gather(dim=1, index=idx)\n"
           "    c = torch.norm(x, dim=1)\n"
           "    d = x.norm(p=1, dim=1)\n"
           "    e = df.sum(axis=0)\n")
    code = convert_source(src).code
    assert "a = ops.sum(x, 0, True)" in code
    assert "b = ops.gather_elements(x, dim=1, index=idx)" in code
    assert "c = ops.norm(x, dim=1)" in code
    assert "d = ops.vector_norm(x, 1, 1, False)" in code  # torch's vector norm (test_norm_p.py: values)
    assert "e = df.sum(axis=0)" in code


def test_size_with_an_axis_and_functional_channel_dropout():
    """`out.size(2)` / `counts.size()` on untyped receivers go through the generated torch_size
    (a tensor's shape, pandas' groupby its own size()); F.dropout2d keeps training=True."""
    from migrate import convert_source
    src = ("import torch.nn.functional as F\n"
           "def f(out, p):\n"
           "    k = out.size(2)\n"
           "    n = counts.size()\n"
           "    return F.dropout2d(out, p)\n")
    code = convert_source(src).code
    assert "k = torch_size(out, 2)" in code
    assert "n = torch_size(counts)" in code
    assert "ops.dropout2d(out, p=p)" in code


def test_a_local_class_named_layernorm_keeps_its_parameter_names():
    """nanoGPT defines its own LayerNorm(nn.Module) with self.weight/self.bias: not torch's."""
    from migrate import convert_source
    src = ("import torch\n"
           "import torch.nn as nn\n"
           "from torch.nn import functional as F\n"
           "class LayerNorm(nn.Module):\n"
           "    def __init__(self, ndim):\n"
           "        super().__init__()\n"
           "        self.weight = nn.Parameter(torch.ones(ndim))\n"
           "    def forward(self, x):\n"
           "        return F.layer_norm(x, self.weight.shape, self.weight, None, 1e-5)\n"
           "class Net(nn.Module):\n"
           "    def __init__(self):\n"
           "        super().__init__()\n"
           "        self.ln = nn.LayerNorm(4)\n"
           "    def forward(self, x):\n"
           "        return x * self.ln.weight\n")
    code = convert_source(src).code
    assert "self.weight = ms.Parameter(ops.ones(ndim))" in code
    assert "ops.layer_norm(x, self.weight.shape, self.weight, None, 1e-5)" in code
    assert "x * self.ln.gamma" in code  # torch's LayerNorm still renames


def test_weight_tying_through_a_module_dict_uses_the_embedding_table():
    """nanoGPT ties `self.transformer.wte.weight = self.lm_head.weight` inside a ModuleDict."""
    from migrate import convert_source
    src = ("import torch.nn as nn\n"
           "class GPT(nn.Module):\n"
           "    def __init__(self):\n"
           "        super().__init__()\n"
           "        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(10, 4), ln=nn.LayerNorm(4)))\n"
           "        self.lm_head = nn.Linear(4, 10, bias=False)\n"
           "        self.transformer.wte.weight = self.lm_head.weight\n"
           "    def forward(self, idx):\n"
           "        return self.lm_head(self.transformer.ln(self.transformer.wte(idx)))\n")
    code = convert_source(src).code
    assert "self.transformer.wte.embedding_table = self.lm_head.weight" in code


def test_tensor_device_and_names_unpacked_from_tensor_ops():
    """`idx.device` has no MindSpore meaning; `q, k = t.split(...)` makes q and k tensors, so
    `k.transpose(1, 2)` is torch's two-axis swap."""
    from migrate import convert_source
    src = ("import torch\n"
           "import torch.nn as nn\n"
           "class A(nn.Module):\n"
           "    def forward(self, idx, x):\n"
           "        device = idx.device\n"
           "        q, k = x.split(2, dim=2)\n"
           "        return k.transpose(1, 2), device\n")
    code = convert_source(src).code
    assert "device = None" in code
    assert "ops.swapaxes(k, 1, 2)" in code
