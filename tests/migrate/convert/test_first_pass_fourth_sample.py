"""Classes the fourth first-pass sample met (bench/README.md "A fourth sample"): model packages
nobody here had converted (segmentation, audio front ends and losses, anti-aliased CNNs). Each test
is a fixture of our own: the converted code is checked as text where the rewrite matters and run
against torch with the same weights."""
import numpy as np
import pytest

from cli import main
from migrate import convert_source
from tests.migrate.convert.test_fixtures_numeric import copy_weights

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def on_ms_core(code: str) -> str:
    """--target mindspore output made to import ms_core: the same ops, one import apart."""
    return code.replace("import mindspore as ms", "import ms_core as ms").replace("from mindspore", "from ms_core")


def run_both(code: str, target: str = "ms_core"):
    """(converted source, converted namespace, torch namespace)."""
    out = convert_source(HEAD + code, target=target).code
    namespace, torch_namespace = {}, {}
    exec(on_ms_core(out), namespace)  # noqa: S102 (running the converted code is the test)
    exec(HEAD + code, torch_namespace)  # noqa: S102
    return out, namespace, torch_namespace


# nnU-Net's building blocks: a layer class parameter annotated with torch's private convolution
# base (`conv_op: Type[_ConvNd]`), the same base in an isinstance check.
PRIVATE_BASE_ANNOTATION = '''
from typing import Type, Union
from torch.nn.modules.conv import _ConvNd


def make(conv_op: Type[_ConvNd] = nn.Conv2d, norm: Union[None, Type[nn.Module]] = None) -> nn.Module:
    conv = conv_op(3, 4, 3, padding=1, bias=False)
    assert isinstance(conv, _ConvNd)
    return conv
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_an_annotation_naming_a_private_base_is_text_isinstance_keeps_the_classes(target):
    out, namespace, torch_namespace = run_both(PRIVATE_BASE_ANNOTATION, target)
    assert 'def make(conv_op: "Type[_ConvNd]" = TorchConv2d, norm: Union[None, Type[nn.Cell]] = None)' in out
    assert "isinstance(conv, (nn.Conv1d, nn.Conv2d, nn.Conv3d, " in out
    torch.manual_seed(0)
    net, cell = torch_namespace["make"](), namespace["make"]()
    assert copy_weights(net, cell) == set()
    x = np.random.RandomState(0).randn(2, 3, 5, 5).astype(np.float32)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_the_typing_import_goes_above_a_guard_left_above_a_sibling_star_import():
    """antialiased-cnns: `import torch.utils.model_zoo` (unmapped on MindSpore, so guarded where it
    was) above `from pkg import *`, below which the target imports go: the guard reads
    TYPE_CHECKING before the header imports it."""
    code = ("import torch\nimport torch.nn as nn\nimport torch.utils.model_zoo as model_zoo\n"
            "from .layers import *\n\n"
            "class B(nn.Module):\n    def forward(self, x):\n        return F.relu(x)\n\n"
            "def load(url):\n    return model_zoo.load_url(url)\n")
    out = convert_source(code, target="mindspore", inherited={"F": "torch.nn.functional"}).code
    lines = out.splitlines()
    assert lines.index("from typing import TYPE_CHECKING") < next(
        i for i, line in enumerate(lines) if line.startswith("if TYPE_CHECKING:"))
    assert lines.index("from .layers import *") < lines.index("from mindspore import nn, ops")
    again = convert_source(out, target="mindspore", inherited={"F": "torch.nn.functional"}).code
    assert again == out


# asteroid-filterbanks' scripting helper, nnAudio's import check: questions to torch's machinery
# that the converted code answers as torch does when nothing traces or exports it.
PROBES = '''
import sys
import torch.fft

if "torch.fft" not in sys.modules:
    raise RuntimeError("torch.fft module available but not imported")


def scale(x):
    if torch._C._is_tracing() or torch.jit._trace.is_tracing() or torch.onnx.is_in_onnx_export():
        return x
    if torch.fx._symbolic_trace.is_fx_tracing() or torch._dynamo.is_compiling():
        return x
    return x * 2, "torch.nn" in sys.modules
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_questions_to_torchs_tracing_and_modules_are_answered(target):
    out, namespace, torch_namespace = run_both(PROBES, target)
    assert "torch" not in out.replace('"torch.fft module available', "")
    x = np.arange(4, dtype=np.float32)
    got, loaded = namespace["scale"](ms.Tensor(x))
    want, torch_loaded = torch_namespace["scale"](torch.from_numpy(x))
    np.testing.assert_array_equal(got.asnumpy(), want.numpy())
    assert loaded is torch_loaded is True


# auraloss' STFT loss: the window function chosen by its name (`getattr(torch, window)(n)`), and a
# dtype by its name.
BY_NAME = '''
class Windowed(nn.Module):
    def __init__(self, window="hann_window", n=8, dtype="float64"):
        super().__init__()
        self.register_buffer("window", getattr(torch, window)(n))
        self.dtype = getattr(torch, dtype)

    def forward(self, x):
        return (x * self.window).to(self.dtype), getattr(torch, "tanh")(x)
'''


@pytest.mark.parametrize("window", ["hann_window", "hamming_window", "blackman_window", "bartlett_window"])
def test_getattr_of_torch_with_a_name_only_run_time_knows(window):
    out, namespace, torch_namespace = run_both(BY_NAME)
    assert 'torch_register_buffer(self, "window", torch_getattr(window)(n))' in out
    assert "self.dtype = torch_getattr(dtype)" in out and "ops.tanh(x)" in out
    net, cell = torch_namespace["Windowed"](window), namespace["Windowed"](window)
    x = np.random.RandomState(0).randn(3, 8).astype(np.float32)
    got, want = cell(ms.Tensor(x)), net(torch.from_numpy(x))
    assert got[0].dtype == ms.float64
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(AttributeError, match=r"For 'getattr\(torch, name\)', 'no_such_window' has no"):
        namespace["Windowed"]("no_such_window")


# antialiased-cnns' BlurPool: a padding layer chosen by a function, given a list of paddings.
PAD_LAYERS = '''
def pad_layer(kind):
    return nn.ReflectionPad2d if kind == "reflect" else nn.ReplicationPad2d if kind == "repl" else nn.ZeroPad2d


class Blur(nn.Module):
    def __init__(self, kind, sizes):
        super().__init__()
        self.pad = pad_layer(kind)(sizes)
        self.fixed = nn.ReflectionPad2d([1, 0, 2, 1])
        self.const = nn.ConstantPad1d([2, 1], 0.5)

    def forward(self, x):
        y = self.fixed(self.pad(x))
        return y, self.const(y)
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
@pytest.mark.parametrize("kind", ["reflect", "repl", "zero"])
def test_a_padding_layer_given_a_list_gets_a_tuple(target, kind):
    out, namespace, torch_namespace = run_both(PAD_LAYERS, target)
    assert "return TorchReflectionPad2d if " in out
    assert "self.fixed = nn.ReflectionPad2d((1, 0, 2, 1))" in out
    assert "self.const = nn.ConstantPad1d((2, 1), 0.5)" in out
    sizes = [1, 2, 0, 1]
    x = np.random.RandomState(0).randn(2, 3, 5, 6).astype(np.float32)
    got = namespace["Blur"](kind, sizes)(ms.Tensor(x))
    want = torch_namespace["Blur"](kind, sizes)(torch.from_numpy(x))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())


def test_ms_core_padding_layers_refuse_a_list_as_mindspore_does():
    with pytest.raises(TypeError, match="For 'ReflectionPad2d' the input 'padding' must be an integer or tuple, "
                                        "but got list"):
        ms.nn.ReflectionPad2d([1, 1, 1, 1])
    with pytest.raises(TypeError, match=r"For 'ZeroPad2d', the type of parameter 'padding' must be in "
                                        r"\[int, tuple\], but got <class 'list'>"):
        ms.nn.ZeroPad2d([1, 1, 1, 1])


def test_the_checker_finds_the_converted_runtime_from_inside_a_function(tmp_path):
    """unet: the converted package reaches the runtime's generated tables through an import inside a
    function (`getattr(nn, name)` at build time), after the torch side's package of the same name
    is back in sys.modules."""
    pkg = tmp_path / "lazynet"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .model import Net\n")
    (pkg / "model.py").write_text(HEAD + (
        "class Net(nn.Module):\n"
        "    def __init__(self, act='ReLU', norm='BatchNorm1d'):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 3)\n"
        "        self.norm = getattr(nn, norm)(3)\n"
        "        self.act = getattr(nn, act)()\n\n"
        "    def forward(self, x):\n"
        "        return self.act(self.norm(self.fc(x)))\n"))
    assert main(["check", "--root", str(tmp_path), "--model", "lazynet:Net('GELU')", "--input-shape", "4,4",
                 "--no-cache", "-q"]) == 0


# BERT-pytorch's token and segment embeddings: padding_idx=0, whose row torch never trains.
PADDED_EMBEDDINGS = '''
class Token(nn.Embedding):
    def __init__(self, vocab, dim):
        super().__init__(vocab, dim, padding_idx=0)


class Tokens(nn.Module):
    def __init__(self, vocab=6, dim=4):
        super().__init__()
        self.token = Token(vocab, dim)
        self.segment = nn.Embedding(3, dim, padding_idx=2)
        self.plain = nn.Embedding(vocab, dim)

    def forward(self, ids, segments):
        return self.token(ids) * self.plain(ids) + self.segment(segments)
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_an_embeddings_padding_row_gets_no_gradient_as_in_torch(target):
    out, namespace, torch_namespace = run_both(PADDED_EMBEDDINGS, target)
    assert "class Token(TorchEmbedding):" in out
    assert "self.segment = EmbeddingTorch(3, dim, padding_idx=2, embedding_table=" in out
    assert "self.plain = nn.Embedding(vocab, dim, embedding_table=" in out
    net, cell = torch_namespace["Tokens"](), namespace["Tokens"]()
    with torch.no_grad():  # rows the padding never reaches otherwise: non-zero, so the mask matters
        net.token.weight[0] = 1.5
        net.segment.weight[2] = -0.5
    assert copy_weights(net, cell) == set()
    ids = np.array([[0, 1, 5, 0], [2, 0, 3, 4]], np.int64)
    segments = np.array([[2, 0, 1, 2], [1, 1, 2, 0]], np.int64)
    want = net(torch.from_numpy(ids), torch.from_numpy(segments))
    (want * want).sum().backward()
    params = [p for _, p in cell.parameters_and_names()]
    grads = ms.grad(lambda i, s: (cell(i, s) ** 2).sum(), grad_position=None, weights=params)(
        ms.Tensor(ids), ms.Tensor(segments))
    np.testing.assert_allclose(cell(ms.Tensor(ids), ms.Tensor(segments)).asnumpy(), want.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    torch_grads = {"token.embedding_table": net.token.weight.grad, "segment.embedding_table": net.segment.weight.grad,
                   "plain.embedding_table": net.plain.weight.grad}
    for (name, _), grad in zip(cell.parameters_and_names(), grads):
        np.testing.assert_allclose(grad.asnumpy(), torch_grads[name].numpy(), rtol=1e-5, atol=1e-6)
    assert not np.abs(torch_grads["token.embedding_table"].numpy()[0]).any()


# rtdl's categorical embeddings: one Embedding per feature in a ModuleList, initialised in a loop
# over the container (`for m in self.embeddings: nn.init.uniform_(m.weight, ...)`).
LOOP_ITEMS = '''
class Categorical(nn.Module):
    def __init__(self, cardinalities=(3, 4), d=5):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(c, d) for c in cardinalities])
        self.norms = nn.ModuleList([nn.LayerNorm(d) for _ in cardinalities])
        for m in self.embeddings:
            nn.init.uniform_(m.weight, -0.5, 0.5)
        for i, norm in enumerate(self.norms):
            nn.init.constant_(norm.bias, 0.25 * (i + 1))
        m = nn.Linear(d, 2)
        nn.init.zeros_(m.bias)
        self.out = m

    def forward(self, x):
        h = sum(self.norms[i](e(x[:, i])) for i, e in enumerate(self.embeddings))
        return self.out(h) + self.embeddings[0].weight[0, :2] + self.norms[1].bias[:2]
'''


def test_a_loop_over_a_container_of_one_class_types_its_variable():
    out, namespace, torch_namespace = run_both(LOOP_ITEMS)
    assert "m.embedding_table.set_data(initializer(Uniform(scale=0.5), m.embedding_table.shape, " in out
    assert "norm.beta.set_data(initializer(Constant(0.25 * (i + 1)), norm.beta.shape, norm.beta.dtype))" in out
    assert "m.bias.set_data(initializer(Zero(), m.bias.shape, m.bias.dtype))" in out  # (a Dense after the loop)
    cell = namespace["Categorical"]()
    table = dict(cell.parameters_and_names())["embeddings.1.embedding_table"].asnumpy()
    assert np.abs(table).max() <= 0.5 and table.std() > 0.1  # U(-0.5, 0.5), not N(0, 1)
    np.testing.assert_array_equal(dict(cell.parameters_and_names())["norms.1.beta"].asnumpy(), np.full(5, 0.5))
    net = torch_namespace["Categorical"]()
    assert copy_weights(net, cell) == set()
    x = np.array([[0, 3], [2, 1], [1, 0]], np.int64)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_a_buffer_read_off_a_child_and_set_on_its_parent_is_one_parameter_to_the_checker(tmp_path):
    """normflows' MADE: `self.degrees = self.linear.degrees`, a buffer of the child kept on the
    block too. torch keeps a plain attribute; the converted buffer is a Parameter, which the parent
    Cell registers under a second name: the checker gives it its value once."""
    model = tmp_path / "made.py"
    model.write_text(HEAD + (
        "class Masked(nn.Linear):\n"
        "    def __init__(self, n):\n"
        "        super().__init__(n, n)\n"
        "        self.register_buffer('degrees', torch.arange(n))\n"
        "        self.register_buffer('mask', (self.degrees[:, None] >= self.degrees).float())\n\n"
        "    def forward(self, x):\n"
        "        return F.linear(x, self.weight * self.mask, self.bias)\n\n\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, n=4):\n"
        "        super().__init__()\n"
        "        self.linear = Masked(n)\n"
        "        self.degrees = self.linear.degrees\n\n"
        "    def forward(self, x):\n"
        "        return torch.relu(self.linear(x)) * self.degrees\n"))
    assert main(["check", str(model), "--model", "Block()", "--input-shape", "3,4", "--no-cache", "-q"]) == 0


# normflows' spline: the bins of the elements inside the interval, `widths[inside, :]`, a 2-D mask.
MASKED_ROWS = '''
def inside(x, widths, out):
    mask = (x > -1) & (x < 1)
    out[mask, ...] = widths[mask, :].sum(-1) * x[mask]
    return out, widths[mask, :, ...], widths[0, :]
'''


def test_trailing_full_slices_after_a_mask_are_dropped_for_mindspore():
    assert "widths[mask, :].sum(-1)" in convert_source(HEAD + MASKED_ROWS).code
    out, namespace, torch_namespace = run_both(MASKED_ROWS, "mindspore")
    assert "out[mask] = widths[mask].sum(-1) * x[mask]" in out
    assert "return out, widths[mask], widths[0, :]" in out
    rs = np.random.RandomState(0)
    x, widths = rs.randn(3, 4).astype(np.float32) * 1.5, rs.randn(3, 4, 5).astype(np.float32)
    got = namespace["inside"](ms.Tensor(x), ms.Tensor(widths), ms.Tensor(np.zeros((3, 4), np.float32)))
    want = torch_namespace["inside"](torch.from_numpy(x), torch.from_numpy(widths), torch.zeros(3, 4))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_a_torch_signature_class_takes_a_list_of_sizes_as_the_tuple_mindspore_wants():
    """nnU-Net: `get_matching_pool_op(...)(stride, stride)`, a pool class returned by a function
    (its torch-signature class) given lists; MindSpore 2.10's pools and convolutions refuse a list."""
    from migrate.runtime.signature import TorchSignature

    seen = {}

    class Probe(ms.nn.Cell, metaclass=TorchSignature):
        _torch_base = ms.nn.Cell  # a torch-signature class itself (a user's subclass keeps its lists)

        def __init__(self, kernel_size, stride=None, layers=None, flags=None):
            super().__init__()
            seen.update(kernel_size=kernel_size, stride=stride, layers=layers, flags=flags)

    cells = [ms.nn.ReLU()]
    Probe([2, 3], stride=[1, 1], layers=cells, flags=[True, False])
    assert seen["kernel_size"] == (2, 3) and seen["stride"] == (1, 1)
    assert seen["layers"] is cells and seen["flags"] == [True, False]  # (not sizes: as given)


# auraloss' STFT loss: magnitude and phase of the complex spectrum.
PHASE = '''
def phase(x, n_fft=16):
    spec = torch.stft(x, n_fft, hop_length=4, window=torch.hann_window(n_fft), return_complex=True)
    return torch.angle(spec), torch.angle(x - 0.5)
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_the_angle_of_complex_and_real_tensors_is_torchs(target):
    out, namespace, torch_namespace = run_both(PHASE, target)
    assert "return torch_angle(spec), torch_angle(x - 0.5)" in out
    x = np.random.RandomState(0).rand(2, 64).astype(np.float32)
    got, want = namespace["phase"](ms.Tensor(x)), torch_namespace["phase"](torch.from_numpy(x))
    # the bins whose imaginary part is zero up to rounding sit on the branch cut: -pi and pi agree
    wrapped = np.angle(np.exp(1j * (got[0].asnumpy().astype(np.float64) - want[0].numpy())))
    np.testing.assert_allclose(wrapped, 0, atol=1e-4)
    np.testing.assert_array_equal(got[1].asnumpy(), want[1].numpy())
