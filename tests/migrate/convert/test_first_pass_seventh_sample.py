"""Classes the seventh first-pass sample met (bench/README.md "A seventh sample"): twelve PyPI packages
nobody here had converted (knowledge-graph embeddings, click-through-rate models, PaLM, a speech encoder,
image-quality measures, two packages that import themselves by their own name). Each test is a fixture of our
own: the converted code is checked as text where the rewrite matters and run against torch with the same
weights. The MindSpore side: tests/oracle/test_oracle_first_pass_seventh.py."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_fourth_sample import HEAD, run_both
from tests.migrate.convert.test_fixtures_numeric import copy_weights

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


# deepctr-torch: `for t in embedding_dict.values(): nn.init.normal_(t.weight)` over a local ModuleDict built by
# a comprehension (a commented-out `embedding_dict[k] = ...` beside it); PaLM: `net[-1].weight = net[0].weight`
# in a local Sequential whose middle items are starred; torchkge: `nn.init.xavier_uniform_(emb.weight.data)`. The
# layers' classes are known through the containers, so torch's parameter names become MindSpore's
TYPED_THROUGH_CONTAINERS = '''
def make_table(n, d):
    table = nn.Embedding(n, d)
    nn.init.xavier_uniform_(table.weight.data)
    return table


def make_dict(keys, d):
    embedding_dict = nn.ModuleDict({k: nn.Embedding(6, d) for k in keys})
    # embedding_dict["extra"] = nn.EmbeddingBag(6, d)
    for t in embedding_dict.values():
        nn.init.constant_(t.weight, 0.5)
    return embedding_dict


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.ent = make_table(6, 4)
        self.tables = nn.ModuleDict({k: nn.Embedding(6, 4) for k in "ab"})
        for t in self.tables.values():
            nn.init.constant_(t.weight, 0.25)
        self.local = make_dict("xy", 4)
        self.fc = nn.Linear(4, 3)

    def forward(self, i):
        return self.fc(self.ent(i) + self.tables["a"](i) * self.local["y"](i))


def tied(n, d):
    net = nn.Sequential(nn.Embedding(n, d), *[nn.Linear(d, d) for _ in range(2)], nn.Linear(d, n, bias=False))
    net[-1].weight = net[0].weight
    nn.init.normal_(net[0].weight, std=0.02)
    return net
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_a_layer_reached_through_a_container_built_here_has_its_class(target):
    out, namespace, torch_namespace = run_both(TYPED_THROUGH_CONTAINERS, target)
    assert "t.embedding_table.set_data(" in out and "net[-1].weight = net[0].embedding_table" in out
    # an initializer on p.data writes p (MindSpore's Parameter.data is a Tensor without set_data)
    assert "table.embedding_table.set_data(initializer(XavierUniform(), table.embedding_table.shape" in out
    torch.manual_seed(0)
    net, cell = torch_namespace["Scorer"](), namespace["Scorer"]()
    np.testing.assert_allclose(cell.tables["b"].embedding_table.asnumpy(), np.full((6, 4), 0.25, np.float32))
    np.testing.assert_allclose(cell.local["x"].embedding_table.asnumpy(), np.full((6, 4), 0.5, np.float32))
    assert copy_weights(net, cell) == set()
    i = np.array([[0, 5, 3], [2, 2, 1]], dtype=np.int64)
    np.testing.assert_allclose(cell(ms.Tensor(i)).asnumpy(), net(torch.from_numpy(i)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    seq, cells = torch_namespace["tied"](7, 4), namespace["tied"](7, 4)
    assert cells[3].weight is cells[0].embedding_table  # tied, as torch's
    cells[0].embedding_table.set_data(ms.Tensor(seq[0].weight.detach().numpy()))
    for k in (1, 2):
        cells[k].weight.set_data(ms.Tensor(seq[k].weight.detach().numpy()))
        cells[k].bias.set_data(ms.Tensor(seq[k].bias.detach().numpy()))
    np.testing.assert_allclose(cells(ms.Tensor(i)).asnumpy(), seq(torch.from_numpy(i)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_a_container_that_changes_keeps_its_items_unknown():
    code = HEAD + ("def f(d):\n    net = nn.Sequential(nn.Embedding(4, 2), nn.Linear(2, 2))\n"
                   "    net[0] = nn.Linear(2, 2)\n    return net[0].weight\n")
    assert "return net[0].weight" in convert_source(code).code


# squeezeformer: `output_lengths = input_lengths >> 2` on the lengths tensor
SHIFTS = '''
class Subsample(nn.Module):
    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        out = lengths >> 2
        out -= 1
        up = lengths << (1)
        up >>= 1
        return x * (64 >> 3), out, up, (lengths + 3) << 2
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_a_tensors_bit_shift_is_an_op(target):
    out, namespace, torch_namespace = run_both(SHIFTS, target)
    if target == "mindspore":  # (MindSpore 2.10 has no backward for its shifts)
        assert "out = ops.stop_gradient(ops.bitwise_right_shift(lengths, 2))" in out
    else:
        assert "out = ops.bitwise_right_shift(lengths, 2)" in out
        assert "up = ops.bitwise_right_shift(up, 1)" in out
    assert "x * (64 >> 3)" in out  # Python ints as written
    x = np.ones((2, 3), np.float32)
    lengths = np.array([33, 64, 7], dtype=np.int64)
    got = namespace["Subsample"]()(ms.Tensor(x), ms.Tensor(lengths))
    want = torch_namespace["Subsample"]()(torch.from_numpy(x), torch.from_numpy(lengths))
    for g, w in zip(got, want):
        assert g.asnumpy().dtype == w.numpy().dtype
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())


# piq's FSIM: `imagefft = torch.fft.fft2(x)` then `imagefft * filters` (MindSpore 2.10 has no CPU Mul of a
# complex tensor by a real one)
SPECTRAL_FILTER = '''
def filtered(x, filters):
    imagefft = torch.fft.fft2(x)
    even_odd = torch.view_as_real(torch.fft.ifft2(imagefft * filters))
    return even_odd, torch.view_as_real(torch.fft.rfft(x) * 2.0)
'''


def test_a_name_assigned_an_fft_is_complex_by_form():
    out = convert_source(HEAD + SPECTRAL_FILTER, target="mindspore").code
    assert "ops.ifft2(complex_mul(imagefft, filters))" in out and "complex_mul(ops.rfft(x), 2.0)" in out
    assert "imagefft * filters" in convert_source(HEAD + SPECTRAL_FILTER).code  # ms_core multiplies them itself
    _, namespace, torch_namespace = run_both(SPECTRAL_FILTER, "mindspore")
    rs = np.random.RandomState(0)
    x, filters = rs.randn(2, 4, 6).astype(np.float32), rs.rand(4, 6).astype(np.float32)
    got = namespace["filtered"](ms.Tensor(x), ms.Tensor(filters))
    want = torch_namespace["filtered"](torch.from_numpy(x), torch.from_numpy(filters))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-5)


# mambapy's Jamba (and Hugging Face's _init_weights): `module.weight.data[module.padding_idx].zero_()`, the
# padding row of an Embedding; a bias filled from an index on
FILLED_ITEMS = '''
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 4, padding_idx=1)
        self.fc = nn.Linear(4, 3)
        self.init_weights(self.emb)
        self.fc.weight.data[0].fill_(0.5)
        with torch.no_grad():
            self.fc.bias[1:].zero_()

    def init_weights(self, module):
        if isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_filling_an_indexed_part_of_a_parameter_assigns_the_item(target):
    out, namespace, torch_namespace = run_both(FILLED_ITEMS, target)
    assert "module.embedding_table[module.padding_idx] = 0\n" in out
    assert "self.fc.weight[0] = 0.5\n" in out and "self.fc.bias[1:] = 0\n" in out
    net, cell = torch_namespace["Tagger"](), namespace["Tagger"]()
    np.testing.assert_array_equal(cell.emb.embedding_table.asnumpy()[1], net.emb.weight.detach().numpy()[1])
    np.testing.assert_array_equal(cell.fc.weight.asnumpy()[0], net.fc.weight.detach().numpy()[0])
    np.testing.assert_array_equal(cell.fc.bias.asnumpy()[1:], net.fc.bias.detach().numpy()[1:])
