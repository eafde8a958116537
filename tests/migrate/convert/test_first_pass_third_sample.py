"""Classes the third first-pass sample met (bench/README.md "A third sample"): model packages
nobody here had converted. Each test is a fixture of our own: the converted code is checked as
text where the rewrite matters and run against torch with the same weights."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_fixtures_numeric import copy_weights

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def on_ms_core(code: str) -> str:
    """--target mindspore output made to import ms_core: the same ops, one import apart."""
    return code.replace("import mindspore as ms", "import ms_core as ms").replace("from mindspore", "from ms_core")


def build(code: str, expr: str):
    """(the converted source, the torch module, the converted cell) built by ``expr``."""
    out = convert_source(HEAD + code).code
    namespace, torch_namespace = {}, {}
    exec(out, namespace)  # noqa: S102 (running the converted code is the test)
    exec(HEAD + code, torch_namespace)  # noqa: S102
    torch.manual_seed(0)
    return out, eval(expr, torch_namespace), eval(expr, namespace)  # noqa: S307


# A residual block that zeroes its last norm's scale through the container's last item, and reads a
# middle item's parameters by a positive index (BoTNet's BottleBlock: nn.init.zeros_(self.net[-1].weight)).
INDEXED_ITEMS = '''
class Block(nn.Module):
    def __init__(self, c, down=False):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(c, c, 1, bias=False),
            nn.BatchNorm2d(c),
            nn.AvgPool2d(2) if down else nn.Identity(),
            nn.Embedding(4, c),
            nn.BatchNorm2d(c),
        )
        nn.init.zeros_(self.net[-1].weight)
        nn.init.constant_(self.net[1].bias, 0.5)
        self.grown = nn.ModuleList([nn.Linear(c, c), nn.LayerNorm(c)])
        self.grown.insert(0, nn.BatchNorm2d(c))

    def forward(self, x):
        h = self.net[0](x)
        h = self.net[1](h) + self.net[-2].weight[0].view(1, -1, 1, 1)
        return self.net[4](h) + self.net[-1].bias.view(1, -1, 1, 1), self.net[4].weight
'''


def test_an_item_of_a_container_written_out_is_typed_by_its_constant_index():
    out, net, cell = build(INDEXED_ITEMS, "Block(3)")
    assert "self.net[-1].gamma.set_data(initializer(Zero(), " in out
    assert "self.net[1].beta.set_data(initializer(Constant(0.5), " in out
    assert "self.net[-2].embedding_table[0]" in out and "self.net[-1].beta.view" in out
    assert "return self.net[4](h) + self.net[-1].beta.view(1, -1, 1, 1), self.net[4].gamma" in out
    assert "self.grown.insert(0, " in out  # (a container that changes is not typed by index)
    params = dict(cell.parameters_and_names())
    np.testing.assert_array_equal(params["net.4.gamma"].asnumpy(), np.zeros(3, np.float32))
    np.testing.assert_array_equal(params["net.1.beta"].asnumpy(), np.full(3, 0.5, np.float32))
    net.eval()
    cell.set_train(False)
    assert copy_weights(net, cell) == set()
    x = np.random.RandomState(0).randn(2, 3, 4, 4).astype(np.float32)
    for got, want in zip(cell(ms.Tensor(x)), net(torch.from_numpy(x))):
        np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


# gMLP's token shift: a pad whose amounts are a variable and its negation, so one side crops.
SHIFT = '''
def shift(t, amount):
    return F.pad(t, (0, 0, amount, -amount), value=0.)


def both(t, p):
    return F.pad(t, p), F.pad(t, (1, -2, -1, 0), "constant", 3.0), F.pad(t, (2, 1), mode="reflect")
'''


def test_a_pad_that_may_crop_crops_by_slicing_for_mindspore():
    assert "return ops.pad(t, (0, 0, amount, -amount), value = 0.)" not in convert_source(HEAD + SHIFT).code
    out = convert_source(HEAD + SHIFT, target="mindspore").code
    assert "return torch_pad_crop(t, (0, 0, amount, -amount), value=0.)" in out
    assert ("return torch_pad_crop(t, p), torch_pad_crop(t, (1, -2, -1, 0), mode=\"constant\", value=3.0), "
            "ops.pad(t, (2, 1), mode=\"reflect\")") in out
    # the generated function runs on ms_core too: it is the code MindSpore gets, over the same ops
    namespace = {}
    exec(on_ms_core(out), namespace)  # noqa: S102
    x = np.random.RandomState(0).randn(2, 5, 4).astype(np.float32)
    for amount in (-2, 1, 0, -1):  # the same function called again, as MindSpore's bug needs
        want = torch.nn.functional.pad(torch.from_numpy(x), (0, 0, amount, -amount))
        np.testing.assert_array_equal(namespace["shift"](ms.Tensor(x), amount).asnumpy(), want.numpy())
    for p in ((1, -1), (-1, -1, 2, 0), (0, 0, 0, 0, 1, 1)):
        want = [w.numpy() for w in eval("both(x, p)", {"both": lambda t, q: (  # noqa: S307
            torch.nn.functional.pad(t, q), torch.nn.functional.pad(t, (1, -2, -1, 0), "constant", 3.0),
            torch.nn.functional.pad(t, (2, 1), mode="reflect")), "x": torch.from_numpy(x), "p": p})]
        for got, w in zip(namespace["both"](ms.Tensor(x), p), want):
            np.testing.assert_array_equal(got.asnumpy(), w)
    with pytest.raises(ValueError, match="For 'pad', 'pad' must hold"):
        namespace["both"](ms.Tensor(x), (1, 1, 1))


# ncps' wired cell: layers registered by torch's alias of add_module, a Softplus constraint.
REGISTERED = '''
class Wired(nn.Module):
    def __init__(self, c=3, layers=2):
        super().__init__()
        for i in range(layers):
            self.register_module(f"layer_{i}", nn.Linear(c, c))
        self.register_module("norm", nn.LayerNorm(c))
        self.constraint = nn.Softplus(beta=2.0, threshold=1.5)

    def forward(self, x):
        h = self.layer_1(self.layer_0(x))
        return self.constraint(self.norm(h) * self.norm.weight) + nn.Softplus()(h)
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_registered_modules_and_softplus_match_torch(target):
    out = convert_source(HEAD + REGISTERED, target=target).code
    assert 'self.insert_child_to_cell(f"layer_{i}", nn.Dense(' in out
    assert "self.norm(h) * self.norm.gamma" in out
    softplus = "SoftplusTorch" if target == "mindspore" else "nn.Softplus"
    assert f"self.constraint = {softplus}(beta=2.0, threshold=1.5)" in out and f"{softplus}()(h)" in out
    # the MindSpore output runs on ms_core too: the same ops, one import apart
    namespace, torch_namespace = {}, {}
    exec(on_ms_core(out), namespace)  # noqa: S102
    exec(HEAD + REGISTERED, torch_namespace)  # noqa: S102
    net, cell = torch_namespace["Wired"](), namespace["Wired"]()
    assert copy_weights(net, cell) == set()
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32) * 3
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


# reformer's full attention: the causal positions set through an index with finfo's max.
CAUSAL_FILL = '''
def causal(dot):
    i, j = torch.triu_indices(dot.shape[-1], dot.shape[-1], 1)
    dot[:, i, j] = -torch.finfo(dot.dtype).max
    return dot.softmax(dim=-1), torch.finfo(torch.float16).eps, torch.finfo().tiny
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_finfo_numbers_are_python_floats_as_torchs(target):
    out = convert_source(HEAD + CAUSAL_FILL, target=target).code
    assert "dot[:, i, j] = -float(np.finfo(ms.dtype_to_nptype(dot.dtype)).max)" in out
    namespace, torch_namespace = {}, {}
    exec(on_ms_core(out), namespace)  # noqa: S102
    exec(HEAD + CAUSAL_FILL, torch_namespace)  # noqa: S102
    x = np.random.RandomState(0).randn(2, 4, 4).astype(np.float32)
    got, want = namespace["causal"](ms.Tensor(x)), torch_namespace["causal"](torch.from_numpy(x))
    np.testing.assert_allclose(got[0].asnumpy(), want[0].numpy(), rtol=1e-5, atol=1e-6)
    assert got[1:] == want[1:] and all(type(v) is float for v in got[1:])


# pytorch-crf's forward algorithm: a uint8 mask (torch.ByteTensor) chooses between two scores.
BYTE_MASK = '''
def step(mask, i, next_score, score):
    return torch.where(mask[i].unsqueeze(1), next_score, score), torch.where(next_score > 0, next_score, 0.0)
'''


def test_a_where_condition_not_bool_by_its_form_is_cast_for_mindspore():
    assert "torch.where(mask[i].unsqueeze(1), " not in convert_source(HEAD + BYTE_MASK).code
    assert "ops.where(ops.unsqueeze(mask[i], 1), next_score" in convert_source(HEAD + BYTE_MASK).code
    out = convert_source(HEAD + BYTE_MASK, target="mindspore").code
    assert ("return ops.where(ops.unsqueeze(mask[i], 1).astype(ms.bool_), next_score, score), "
            "ops.where(next_score > 0, next_score, 0.0)") in out
    namespace, torch_namespace = {}, {}
    exec(on_ms_core(out), namespace)  # noqa: S102
    exec(HEAD + BYTE_MASK, torch_namespace)  # noqa: S102
    rs = np.random.RandomState(0)
    mask = (rs.rand(3, 2) > 0.5).astype(np.uint8)
    a, b = rs.randn(2, 4).astype(np.float32), rs.randn(2, 4).astype(np.float32)
    want = torch_namespace["step"](torch.from_numpy(mask), 1, torch.from_numpy(a), torch.from_numpy(b))
    got = namespace["step"](ms.Tensor(mask), 1, ms.Tensor(a), ms.Tensor(b))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())
