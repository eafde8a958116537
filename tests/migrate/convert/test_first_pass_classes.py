"""Before/after pairs of the classes the first pass over packages nobody here had converted found
(bench/README.md "First pass"); tests/fixtures/imports/packages/firstpasspkg runs them all against
torch. Each pair has a case the rule must leave alone."""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def body(code: str) -> str:
    """The converted code after the generated block (the lines that follow the last import)."""
    out = convert_source(HEAD + code).code
    return out[out.index(code.splitlines()[0].split("(")[0].split(" =")[0]):]


def test_a_layer_list_of_one_class_types_its_items():
    code = ("class P(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
            "        self.pe = nn.ModuleList([nn.Embedding(1, d) for _ in range(2)])\n"
            "        self.mixed = nn.ModuleList([nn.Embedding(1, d), nn.Linear(d, d)])\n"
            "    def forward(self, x):\n        return x + self.pe[0].weight + self.mixed[1].weight\n")
    assert "return x + self.pe[0].embedding_table + self.mixed[1].weight" in body(code)


def test_a_module_built_in_place_and_moved_to_a_tensor_casts_its_parameters():
    code = ("class R(nn.Module):\n    def forward(self, x):\n        return x\n"
            "def f(x: torch.Tensor):\n    return R().to(x)(x), torch.ones(2).to(x)\n")
    out = body(code)
    assert "return torch_to(R(), x)(x), ops.ones((2,)).astype(x.dtype)" in out


def test_a_devices_type_is_cpu():
    out = body("def f(x: torch.Tensor, y):\n    return x.device.type == 'mps', y.device.type, y.type\n")
    assert "return \"cpu\" == 'mps', \"cpu\", y.type" in out


def test_private_convolution_bases_in_isinstance():
    out = body("def f(m):\n    return isinstance(m, nn.modules.conv._ConvNd), "
               "issubclass(m, nn.modules.conv._ConvTransposeNd)\n")
    assert ("isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose, "
            "nn.Conv3dTranspose))") in out
    assert "issubclass(m, (nn.Conv1dTranspose, nn.Conv2dTranspose, nn.Conv3dTranspose))" in out
    conv = ms.nn.Conv1d(2, 2, 3)
    assert isinstance(conv, (ms.nn.Conv1d, ms.nn.Conv2d))


def test_attention_without_weights_returns_torchs_pair():
    code = ("class A(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
            "        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)\n"
            "    def forward(self, x, w):\n        out, _ = self.attn(x, x, x, need_weights=False)\n"
            "        both = self.attn(x, x, x, need_weights=w)\n        return out\n")
    out = body(code)
    assert "out = self.attn(x, x, x, need_weights=False)[0]\n" in out
    assert "both = self.attn(x, x, x, need_weights=w)" in out


def test_attention_pairs_are_written_plainly():
    code = ("class A(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
            "        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)\n"
            "    def forward(self, x):\n"
            "        first = self.attn(x, x, x, need_weights=False)[0]\n"
            "        out, weights = self.attn(x, x, x, need_weights=False)\n"
            "        none = self.attn(x, x, x, need_weights=False)[1]\n"
            "        pair = (1, None)\n        a, _ = pair\n        b, _ = (x, None)\n"
            "        return first, out, weights, none\n")
    assert body(code) == (
        "class A(nn.Cell):\n    def __init__(self, d):\n        super().__init__()\n"
        "        self.attn = torch_attention_init(nn.MultiheadAttention(d, 2, batch_first=True))\n"
        "    def construct(self, x):\n"
        "        first = self.attn(x, x, x, need_weights=False)[0]\n"
        "        out, weights = self.attn(x, x, x, need_weights=False)[0], None\n"
        "        none = (self.attn(x, x, x, need_weights=False)[0], None)[1]\n"
        "        pair = (1, None)\n        a, _ = pair\n        b, _ = (x, None)\n"
        "        return first, out, weights, none\n")  # (the call is made: its element 1 is None)


def test_pad_passes_a_value_for_the_constant_mode_only():
    out = body("def f(x, mode, value=0.0):\n    a = F.pad(x, (1, 1), mode='reflect', value=0.0)\n"
               "    b = F.pad(x, (1, 1), mode, value)\n    c = F.pad(x, (1, 1), 'constant', 2.0)\n    return a, b, c\n")
    assert "a = ops.pad(x, (1, 1), mode='reflect')\n" in out
    assert "b = ops.pad(x, (1, 1), mode, value if mode == 'constant' else None)\n" in out
    assert "c = ops.pad(x, (1, 1), 'constant', 2.0)\n" in out
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    for mode, value in (("reflect", 0.0), ("replicate", 0.0), ("constant", 2.0)):
        ref = torch.nn.functional.pad(torch.from_numpy(x), (2, 1), mode, value).numpy()
        got = ms.ops.pad(ms.Tensor(x), (2, 1), mode, value if mode == "constant" else None).asnumpy()
        np.testing.assert_array_equal(got, ref)


def test_a_1d_convolutions_geometry_read_through_an_untyped_path_is_torchs():
    out = body("def f(m):\n    return m.conv.kernel_size[0], m.conv.stride, m.conv.dilation[0]\n")
    assert ("return TorchLayerAttrs(m.conv).kernel_size[0], TorchLayerAttrs(m.conv).stride, "
            "TorchLayerAttrs(m.conv).dilation[0]") in out
    namespace = {}
    code = convert_source(HEAD + "def f(m):\n    return m.kernel_size, m.stride, m.dilation, m.in_features\n"
                          "class Own:\n    kernel_size = 5\n").code
    exec(code, namespace)  # noqa: S102 (running the converted code is the test)
    torch_conv = torch.nn.Conv1d(2, 2, 3, 2, dilation=2)
    conv = ms.nn.Conv1d(2, 2, 3, 2, pad_mode="valid", dilation=2)
    assert (conv.kernel_size, conv.stride) == ((1, 3), (1, 2))  # MindSpore's 2-D form
    dense = ms.nn.Dense(4, 3)
    assert namespace["f"](conv)[:3] == (torch_conv.kernel_size, torch_conv.stride, torch_conv.dilation)
    assert namespace["TorchLayerAttrs"](namespace["Own"]()).kernel_size == 5  # a user's own attribute
    assert namespace["TorchLayerAttrs"](dense).in_features == 4


def test_registrations_with_torchs_machinery_at_import_go():
    code = ("torch._C._log_api_usage_once('pkg')\n"
            "@torch.onnx.symbolic_helper.parse_args('v', 'f')\ndef sym(g, x, a):\n    return x\n"
            "torch.onnx.register_custom_op_symbolic('pkg::op', sym, 11)\n"
            "@torch.library.register_fake('pkg::op')\ndef fake(x):\n    return x\n"
            "@torch.compiler.disable(recursive=False)\ndef g(x):\n    return x\n"
            "torch.fx.wrap('g')\n"
            "handle = torch.onnx.register_custom_op_symbolic('pkg::op', sym, 11)\n"
            "@parse_args('v')\ndef own(x):\n    return x\n")
    out = convert_source(HEAD + code).code
    assert "def sym(g, x, a):\n    return x\ndef fake(x):\n    return x\ndef g(x):\n    return x\n" in out
    for gone in ("_log_api_usage_once", "parse_args('v', 'f')", "register_fake", "compiler", "fx.wrap", "'g'\n"):
        assert gone not in out, gone
    # a registration's value has no counterpart: marked; a decorator not torch's stays
    assert "# migrate: MS901" in out and "handle = torch.onnx.register_custom_op_symbolic" in out
    assert "@parse_args('v')\ndef own(x):" in out


@pytest.mark.parametrize("env", [{}, {"TORCH_HOME": "~/th"}, {"XDG_CACHE_HOME": "/tmp/xdg"}])
def test_torchs_home_directory_is_computed_without_torch(env, monkeypatch):
    for name in ("TORCH_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = "from torch.hub import _get_torch_home\nroot = _get_torch_home()\nhub = torch.hub.get_dir()\n"
    assert "root = torch_home()\nhub = torch_home('hub')\n" in convert_source(HEAD + code, target="mindspore").code
    out = convert_source(HEAD + code).code
    assert "root = torch_home()\nhub = ms.hub.get_dir()\n" in out and "from torch" not in out
    namespace = {}
    exec(out, namespace)  # noqa: S102 (running the converted code is the test)
    assert namespace["root"] == torch.hub._get_torch_home()
    assert namespace["hub"] == torch.hub.get_dir()


def test_a_layer_list_built_in_a_local_types_its_items_unless_it_grows():
    code = ("class P(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
            "        pe = [nn.Embedding(1, d) for _ in range(2)]\n        self.pe = nn.ModuleList(pe)\n"
            "        grown = [nn.Embedding(1, d)]\n        grown.append(nn.Linear(d, d))\n"
            "        self.grown = nn.ModuleList(grown)\n"
            "    def forward(self, x):\n        return x + self.pe[1].weight + self.grown[0].weight\n")
    assert "return x + self.pe[1].embedding_table + self.grown[0].weight" in body(code)


FFT_PROBE = '''try:
    import torch.fft as new_fft
except ImportError:
    new_fft = None


def fft_conv(x, w):
    """Circular convolution of the last axis through the new FFT module (torch.rfft before 1.7)."""
    if new_fft is None:
        return torch.irfft(torch.rfft(x, 1) * torch.rfft(w, 1), 1, signal_sizes=(x.shape[-1],))
    z = torch.view_as_real(new_fft.rfft(x, dim=-1))
    zw = torch.view_as_real(new_fft.rfft(w, dim=-1))
    prod = torch.stack([z[..., 0] * zw[..., 0] - z[..., 1] * zw[..., 1],
                        z[..., 0] * zw[..., 1] + z[..., 1] * zw[..., 0]], -1)
    return new_fft.irfft(torch.view_as_complex(prod), x.shape[-1], dim=-1)
'''


def test_a_torch_module_probed_for_none_is_present_and_its_fft_matches_torch():
    out = convert_source(HEAD + FFT_PROBE).code
    # the settled branch that never runs goes, with its marker (torch.rfft has no mapping)
    code = out.split('"""')[-1]
    assert "if False" not in code and "torch.rfft" not in code and "return ops.irfft(" in code, out
    assert "import torch.fft" not in out and "is None" not in out.split("def fft_conv")[1]
    namespace = {}
    exec(out, namespace)  # noqa: S102 (running the converted code is the test)
    torch_namespace = {"torch": torch}
    exec(FFT_PROBE, torch_namespace)  # noqa: S102
    rng = np.random.RandomState(0)
    x, w = rng.randn(2, 3, 10).astype(np.float32), rng.randn(3, 10).astype(np.float32)
    want = torch_namespace["fft_conv"](torch.from_numpy(x), torch.from_numpy(w)).numpy()
    got = namespace["fft_conv"](ms.Tensor(x), ms.Tensor(w)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # sums of 10 float32 products
    # a name bound to something else is no probe
    assert "if m is None:" in convert_source(HEAD + "def f(m=None):\n    if m is None:\n        return 1\n").code


def test_repeat_on_an_untyped_receiver_tiles_a_tensor_as_torch_does():
    code = ("def gauss(size):\n    return torch.arange(size, dtype=torch.float32).reshape(1, 1, -1)\n"
            "def f(x, win, reps, own):\n    w = gauss(3).repeat([x.shape[1], 1] + [1])\n"
            "    return w, win.repeat(2, 1, 1), win.repeat(*reps), own.repeat(2)\n"
            "class Own:\n    def repeat(self, n):\n        return ['own'] * n\n")
    out = convert_source(HEAD + code).code
    assert "w = torch_repeat(gauss(3), [x.shape[1], 1] + [1])" in out
    assert "return w, torch_repeat(win, 2, 1, 1), torch_repeat(win, *reps), torch_repeat(own, 2)" in out
    namespace, torch_namespace = {}, {"torch": torch}
    exec(out, namespace)  # noqa: S102 (running the converted code is the test)
    exec(code, torch_namespace)  # noqa: S102
    x = np.zeros((2, 4, 3), np.float32)
    win = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = namespace["f"](ms.Tensor(x), ms.Tensor(win), (1, 2), namespace["Own"]())
    want = torch_namespace["f"](torch.from_numpy(x), torch.from_numpy(win), (1, 2), torch_namespace["Own"]())
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())
    assert got[3] == want[3] == ["own", "own"]


@pytest.mark.parametrize("call", ["torch.roll(x, shifts=(s, 1), dims=(1, 2))", "x.roll(2, 1)", "torch.roll(x, 3)",
                                  "x.roll(-1, dims=-1)", "torch.roll(x, (0, -7), (0, 2))"])
def test_roll_for_mindspore_joins_slices_as_torch_rolls(call):
    code = f"def f(x: torch.Tensor, s):\n    return {call}\n"
    assert "ops.roll(" in convert_source(HEAD + code).code or ".roll(" in convert_source(HEAD + code).code
    out = convert_source(HEAD + code, target="mindspore").code
    assert "return torch_roll(x, " in out and "import mindspore" in out
    # the generated function runs on ms_core too: it is the code MindSpore gets, over the same ops
    namespace = {}
    exec(out.replace("import mindspore as ms", "import ms_core as ms")  # noqa: S102
         .replace("from mindspore import", "from ms_core import"), namespace)
    x = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    want = eval(call, {"torch": torch, "x": torch.from_numpy(x), "s": -4}).numpy()  # noqa: S307
    np.testing.assert_array_equal(namespace["f"](ms.Tensor(x), -4).asnumpy(), want)


WEIGHT_NORM = '''from torch.nn.utils import weight_norm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = weight_norm(nn.Conv1d(2, 3, 3))
        self.fc = nn.utils.weight_norm(nn.Linear(3, 4), dim=None)

    def forward(self, x):
        return self.fc(self.conv(x).mean(-1))
'''


def test_weight_norm_for_mindspore_is_generated_and_computes_torchs_reparametrisation():
    out = convert_source(HEAD + WEIGHT_NORM, target="mindspore").code
    assert "self.conv = torch_weight_norm(nn.Conv1d(" in out and "math.sqrt(3))), dim=None)" in out
    assert "# migrate: MS9" in convert_source(HEAD + "def f(m):\n    return torch.nn.utils.remove_weight_norm(m)\n",
                                              target="mindspore").code
    # the generated function over ms_core's ops: torch's outputs, with torch's g and v
    namespace = {}
    exec(out.replace("import mindspore as ms", "import ms_core as ms")  # noqa: S102
         .replace("from mindspore", "from ms_core"), namespace)
    cell = namespace["Net"]()
    torch.manual_seed(0)
    net = torch_namespace_net()
    params = dict(cell.parameters_and_names())
    assert sorted(params) == ["conv.bias", "conv.weight_g", "conv.weight_v", "fc.bias", "fc.weight_g", "fc.weight_v"]
    for name, p in net.named_parameters():
        params[name].set_data(ms.Tensor(p.detach().numpy().reshape(params[name].shape)))
    x = np.random.RandomState(0).randn(2, 2, 7).astype(np.float32)
    want = net(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def torch_namespace_net():
    namespace = {}
    exec(HEAD + WEIGHT_NORM, namespace)  # noqa: S102
    return namespace["Net"]()


def test_a_factory_whose_shape_may_be_empty_gets_torchs_default_dtype_for_mindspore():
    code = ("def f(s):\n"
            "    return torch.ones([]), torch.zeros(s), torch.ones(2, 3), torch.zeros((), dtype=torch.int64)\n")
    out = convert_source(HEAD + code, target="mindspore").code
    assert ("return ops.ones([], dtype=ms.float32), ops.zeros(s, dtype=ms.float32), ops.ones((2, 3)), "
            "ops.zeros((), dtype=ms.int64)") in out and "import mindspore as ms" in out
    assert "return ops.ones([]), ops.zeros(s), ops.ones((2, 3)), " in convert_source(HEAD + code).code
    namespace = {}
    exec(out.replace("import mindspore as ms", "import ms_core as ms")  # noqa: S102
         .replace("from mindspore", "from ms_core"), namespace)
    got = namespace["f"](())
    want = (torch.ones([]), torch.zeros(()), torch.ones(2, 3), torch.zeros((), dtype=torch.int64))
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape) and str(g.dtype).lower().endswith(str(w.dtype).split(".")[1])
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())


GETTER = '''from collections import OrderedDict


class Getter(nn.ModuleDict):
    """torchvision's IntermediateLayerGetter: a ModuleDict subclass whose values are containers."""

    def __init__(self, model):
        super().__init__(OrderedDict(model.named_children()))

    def forward(self, x):
        out = []
        for name, module in self.items():
            x = module(x)
            out.append(x)
        return out


def make():
    return Getter(nn.Sequential(nn.Sequential(nn.Linear(3, 4), nn.ReLU()), nn.Linear(4, 2)))
'''


def test_a_module_dict_subclass_holding_containers_is_torchs_module_dict():
    out = convert_source(HEAD + GETTER).code
    assert "class Getter(TorchModuleDict):" in out
    namespace, torch_namespace = {}, {}
    exec(out, namespace)  # noqa: S102 (running the converted code is the test)
    exec(HEAD + GETTER, torch_namespace)  # noqa: S102
    cell, net = namespace["make"](), torch_namespace["make"]()
    params = dict(cell.parameters_and_names())
    names = {"0.0.weight": "0.0.weight", "0.0.bias": "0.0.bias", "1.weight": "1.weight", "1.bias": "1.bias"}
    assert sorted(params) == sorted(names)
    for name, p in net.named_parameters():
        params[names[name]].set_data(ms.Tensor(p.detach().numpy()))
    x = np.random.RandomState(0).randn(2, 3).astype(np.float32)
    for got, want in zip(cell(ms.Tensor(x)), net(torch.from_numpy(x))):
        np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


FRAMES = '''import math


def frames(a, kernel_size, stride):
    """demucs' unfold: frames of the last axis through the tensor's strides."""
    *shape, length = a.shape
    n_frames = math.ceil(length / stride)
    a = F.pad(a, (0, (n_frames - 1) * stride + kernel_size - length))
    strides = list(a.stride())
    assert strides[-1] == 1, 'data should be contiguous'
    return a.as_strided([*shape, n_frames, kernel_size], strides[:-1] + [stride, 1])


def shifted(x):
    return torch.as_strided(x, (2, 2), (1, 2), 1)
'''


def test_frames_through_strides_match_torch_with_gradients():
    out = convert_source(HEAD + FRAMES).code
    assert "return torch_as_strided(a, [*shape, n_frames, kernel_size], strides[:-1] + [stride, 1])" in out
    assert "return torch_as_strided(x, (2, 2), (1, 2), 1)" in out
    namespace, torch_namespace = {}, {}
    exec(out, namespace)  # noqa: S102 (running the converted code is the test)
    exec(HEAD + FRAMES, torch_namespace)  # noqa: S102
    x = np.random.RandomState(0).randn(2, 3, 10).astype(np.float32)
    cot = np.random.RandomState(1).randn(2, 3, 4, 4).astype(np.float32)
    t = torch.from_numpy(x).requires_grad_()
    want = torch_namespace["frames"](t, 4, 3)
    (want * torch.from_numpy(cot)).sum().backward()
    got = namespace["frames"](ms.Tensor(x), 4, 3)
    np.testing.assert_array_equal(got.asnumpy(), want.detach().numpy())
    grad = ms.grad(lambda a: (namespace["frames"](a, 4, 3) * ms.Tensor(cot)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)
    y = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(namespace["shifted"](ms.Tensor(y)).asnumpy(),
                                  torch_namespace["shifted"](torch.from_numpy(y)).numpy())
    assert ms.Tensor(x).stride() == list(torch.from_numpy(x).stride())  # MindSpore 2.10's Tensor.stride
    assert "strides = list(torch_stride(a))" in out


UNTYPED_FORWARD = ("class Inner(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                   "        self.fc = nn.Linear(3, 2)\n    def forward(self, x):\n        return self.fc(x)\n"
                   "NETS = {'inner': Inner}\n"
                   "class Outer(nn.Module):\n    def __init__(self, kind):\n        super().__init__()\n"
                   "        self.net = NETS[kind]()\n"
                   "    def forward(self, x):\n        return self.net.forward(x) * 2\n")


def test_forward_called_on_a_module_the_walk_cannot_type_is_its_construct():
    out = body(UNTYPED_FORWARD)
    assert "return self.net.construct(x) * 2" in out
    namespace, reference = {}, {}
    exec(convert_source(HEAD + UNTYPED_FORWARD).code, namespace)  # noqa: S102 (running the converted code is the test)
    exec(HEAD + UNTYPED_FORWARD, reference)  # noqa: S102
    torch.manual_seed(0)
    torch_model, model = reference["Outer"]("inner"), namespace["Outer"]("inner")
    model.net.fc.weight.set_data(ms.Tensor(torch_model.net.fc.weight.detach().numpy()))
    model.net.fc.bias.set_data(ms.Tensor(torch_model.net.fc.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    expected = torch_model(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(model(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_forward_keeps_its_name_where_a_plain_class_of_the_file_defines_one():
    code = UNTYPED_FORWARD + "class Scorer:\n    def forward(self, x):\n        return x\n"
    out = body(code)
    assert "return self.net.forward(x) * 2" in out and "    def forward(self, x):\n        return x\n" in out


AVG_POOL_PADDING = ("def pool(x, padding):\n"
                    "    a = F.avg_pool2d(x, 3, 1, (1, 0))\n"
                    "    b = F.avg_pool2d(x, kernel_size=2, padding=padding)\n"
                    "    pool3 = F.avg_pool3d\n"
                    "    c = pool3(x.unsqueeze(2), (1, 2, 2), padding=[0, 1, 0])\n"
                    "    return a, b, c\n")


def test_average_pooling_padding_per_axis_is_padding_per_side():
    out = body(AVG_POOL_PADDING)
    assert "a = ops.avg_pool2d(x, 3, 1, (1, 1, 0, 0))" in out
    assert "b = torch_avg_pool2d(x, kernel_size=2, padding=padding)" in out  # known at run time only
    namespace, reference = {}, {}
    exec(convert_source(HEAD + AVG_POOL_PADDING).code, namespace)  # noqa: S102 (running the converted code is the test)
    exec(HEAD + AVG_POOL_PADDING, reference)  # noqa: S102
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 6)).astype(np.float32)
    for padding in ([1, 0], (0, 1), 1):
        expected = reference["pool"](torch.from_numpy(x), padding)
        got = namespace["pool"](ms.Tensor(x), padding)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g.asnumpy(), e.numpy(), rtol=1e-5, atol=1e-6)


def test_ms_core_average_pooling_refuses_one_padding_per_axis_as_mindspore_does():
    x = ms.Tensor(np.zeros((1, 1, 4, 4), np.float32))
    with pytest.raises(TypeError, match="'padding' must be an int or a tuple of 4 ints"):
        ms.ops.avg_pool2d(x, 2, 2, (1, 0))
    with pytest.raises(ValueError, match="'padding' must be an int or a tuple of 6 ints"):
        ms.ops.avg_pool3d(ms.ops.expand_dims(x, 2), 1, 1, (0, 1, 0))


def test_masked_fill_int_value_takes_the_inputs_dtype_for_mindspore():
    code = ("def f(x, m, labels):\n    a = x.masked_fill(m, -100)\n    b = torch.masked_fill(x, m, 0.5)\n"
            "    labels.masked_fill_(m, -100)\n    return a, b, (x * 2).masked_fill(m, 0)\n")
    out = convert_source(HEAD + code, target="mindspore").code
    assert "a = ops.masked_fill(x, m, ms.Tensor(-100, x.dtype))" in out
    assert "b = ops.masked_fill(x, m, 0.5)" in out  # a float literal is a float tensor's kind already
    assert "labels.copy_(ops.masked_fill(labels.copy(), m, ms.Tensor(-100, labels.dtype)))" in out
    assert "ops.masked_fill((x * 2), m, 0)" in out  # not computed twice: left, with a note
    assert "a = ops.masked_fill(x, m, -100)" in convert_source(HEAD + code).code  # ms_core takes any scalar
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    labels = ms.Tensor(np.arange(6, dtype=np.int64).reshape(2, 3))
    for t, ref in ((x, torch.arange(6, dtype=torch.float32)), (labels, torch.arange(6))):
        mask = t > 2
        got = ms.ops.masked_fill(t, mask, ms.Tensor(-100, t.dtype))
        expected = ref.reshape(2, 3).masked_fill(ref.reshape(2, 3) > 2, -100)
        assert got.dtype == t.dtype
        np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


def test_a_second_conversion_keeps_the_layer_attribute_reads_the_first_one_wrote():
    code = ("class Patches(nn.Module):\n    def __init__(self, k, size):\n        super().__init__()\n"
            "        self.proj = nn.Conv3d(3, 4, kernel_size=k, stride=k, padding=k)\n"
            "        self.grid = [s // t for s, t in zip(size, self.proj.stride)]\n"
            "        self.width = self.head.in_features if hasattr(self, 'head') else 0\n"
            "    def forward(self, x):\n        return self.proj(x)\n"
            "def unmapped(m, x):\n    return nn.Module.forward(m, x)\n")  # torch names stay (marked)
    for target in ("ms_core", "mindspore"):
        once = convert_source(HEAD + code, target=target).code
        assert "zip(size, self.proj.stride)" in once  # a Conv3d's stride is torch's on both sides
        assert "TorchLayerAttrs(self.head).in_features" in once  # a class unknown here: decided at run time
        assert convert_source(once, target=target).code == once


def test_a_reduction_whose_calls_a_rule_writes_is_the_runtimes_function_as_a_value():
    code = ("class Miner:\n    def __init__(self, hardest=True):\n"
            "        self.pick = torch.max if hardest else torch.min\n"
            "    def __call__(self, d):\n        return self.pick(d, dim=1)\n")
    out = body(code)
    assert "self.pick = torch_max if hardest else torch_min" in out and "MS901" not in out
    namespace = {}
    exec(convert_source(HEAD + code).code, namespace)  # noqa: S102 (running the converted code is the test)
    d = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    for hardest, op in ((True, torch.max), (False, torch.min)):
        got, expected = namespace["Miner"](hardest)(ms.Tensor(d)), op(torch.from_numpy(d), dim=1)
        np.testing.assert_array_equal(got.values.asnumpy(), expected.values.numpy())
        np.testing.assert_array_equal(got.indices.asnumpy(), expected.indices.numpy())


def test_attention_inputs_given_by_keyword_are_passed_by_position():
    """detr's encoder: `self.self_attn(q, k, value=src, ...)`. MindSpore 2.10's MultiheadAttention
    evaluates args[2] before it reads a `value` keyword (IndexError); by position it runs, and the
    outputs are torch's."""
    code = ("class E(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
            "        self.attn = nn.MultiheadAttention(d, 2)\n"
            "    def forward(self, src, mask):\n        q = k = src\n"
            "        a = self.attn(q, k, value=src, key_padding_mask=mask)[0]\n"
            "        b = self.attn(query=q, key=k, value=src)[0]\n        return a + b\n")
    out = body(code)
    assert "a = self.attn(q, k, src, key_padding_mask=mask)[0]" in out, out
    assert "b = self.attn(q, k, src)[0]" in out, out
    namespace = {}
    exec(compile(convert_source(HEAD + code).code, "converted_attn.py", "exec"), namespace)
    torch.manual_seed(0)
    t_namespace = {}
    exec(compile(HEAD + code, "torch_attn.py", "exec"), t_namespace)
    t_model, m_model = t_namespace["E"](8).eval(), namespace["E"](8)
    m_model.set_train(False)
    from tests.migrate.convert.test_fixtures_numeric import copy_weights
    assert copy_weights(t_model, m_model) == set()
    x = np.random.RandomState(0).randn(4, 2, 8).astype(np.float32)
    mask = np.zeros((2, 4), dtype=bool)
    mask[1, 3] = True
    with torch.no_grad():
        ref = t_model(torch.from_numpy(x), torch.from_numpy(mask)).numpy()
    got = m_model(ms.Tensor(x), ms.Tensor(mask)).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
