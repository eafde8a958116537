"""Layer attributes torch and MindSpore name differently, read on a receiver whose class is not
known when converting (``num_ftrs = model.fc.in_features``, the fine-tuning idiom; openai/CLIP's
``self.visual.attnpool.c_proj.in_features``): TorchLayerAttrs decides at run time."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import check
from tests.migrate.convert.test_zoo_idioms import _load

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import torch
from torch import nn


class Own(nn.Module):
    def __init__(self):
        super().__init__()
        self.in_features = 7


def sizes(model):
    return (model.fc.in_features, model.fc.out_features, model.emb.num_embeddings,
            model.emb.embedding_dim, model.own.in_features)


def replace_head(model, n):
    model.fc = nn.Linear(model.fc.in_features, n)
    return model.fc.out_features
"""


def test_unknown_receiver_reads_go_through_the_helper():
    check("""\
        def head(model, n):
            num_ftrs = model.fc.in_features
            model.fc = nn.Linear(num_ftrs, n, bias=False)
            model.fc.out_features = n
        """, """\
        def head(model, n):
            num_ftrs = TorchLayerAttrs(model.fc).in_features
            model.fc = nn.Dense(num_ftrs, n, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))
            model.fc.out_features = n
        """)


def test_own_and_known_receivers_are_not_wrapped():
    check("""\
        class M(nn.Module):
            def __init__(self, f):
                super().__init__()
                self.in_features = f
                self.fc = nn.Linear(f, 2, bias=False)

            def forward(self, x):
                return x * self.in_features + self.fc.in_features
        """, """\
        class M(nn.Cell):
            def __init__(self, f):
                super().__init__()
                self.in_features = f
                self.fc = nn.Dense(f, 2, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))

            def construct(self, x):
                return x * self.in_features + self.fc.in_channels
        """)


def test_read_inside_an_f_string_stays_valid():
    """torch's own nn/utils/fusion.py reads linear.out_features inside an f-string: no quotes
    are added there."""
    check("""\
        def f(lin):
            return f"got {lin.out_features}"
        """, """\
        def f(lin):
            return f"got {TorchLayerAttrs(lin).out_features}"
        """)


def test_values_match_torch(tmp_path):
    res = convert_source(SRC)
    assert res.error is None and not res.unsupported, res.code
    cmod = _load(tmp_path, "layer_attr_ms", res.code)
    tmod = __import__("types").ModuleType("layer_attr_torch")
    exec(SRC, tmod.__dict__)

    def holder(lib, mod):
        h = lib.nn.Module() if lib is torch else ms.nn.Cell()
        h.fc = lib.nn.Linear(5, 3) if lib is torch else ms.nn.Dense(5, 3)
        h.emb = lib.nn.Embedding(11, 4) if lib is torch else ms.nn.Embedding(11, 4)
        h.own = mod.Own()
        return h
    t, m = holder(torch, tmod), holder(ms, cmod)
    assert cmod.sizes(m) == tmod.sizes(t) == (5, 3, 11, 4, 7)
    assert cmod.replace_head(m, 9) == tmod.replace_head(t, 9) == 9
    assert m.fc.weight.shape == tuple(t.fc.weight.shape) == (9, 5)


def test_isinstance_with_the_targets_layer_narrows_as_torchs_did(tmp_path):
    """Converting converted code: `isinstance(m, nn.Conv2d)` names the target's Conv2d, written
    from torch's; the reads it guards are decided as the first conversion decided them (timm's
    and peft's init code gained TorchLayerAttrs on a second conversion of the package)."""
    from migrate.convert.project import convert_tree
    src = tmp_path / "src" / "initpkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "init.py").write_text(
        "import torch.nn as nn\n\n\ndef fan_out(m):\n"
        "    if isinstance(m, nn.Conv2d):\n        return m.kernel_size[0] * m.kernel_size[1] * m.out_channels\n"
        "    if isinstance(m, nn.Conv1d):\n        return m.kernel_size[0] * m.out_channels\n"
        "    if isinstance(m, nn.Linear):\n        return m.out_features\n"
        "    if isinstance(m, nn.modules.lazy.LazyModuleMixin):\n        return -1\n    return 0\n")
    assert not [r.error for r in convert_tree(src, tmp_path / "once" / "initpkg") if r.error]
    assert not [r.error for r in convert_tree(tmp_path / "once" / "initpkg", tmp_path / "twice" / "initpkg")
                if r.error]
    once = (tmp_path / "once" / "initpkg" / "init.py").read_text()
    assert "return m.kernel_size[0] * m.kernel_size[1] * m.out_channels" in once, once
    assert "TorchLayerAttrs" not in once and "return m.out_channels" in once, once
    assert "isinstance(m, nn.Conv2d)" in once and "torch_nn.modules.lazy" in once  # torch's nn stays, renamed
    assert (tmp_path / "twice" / "initpkg" / "init.py").read_text() == once


TREE_MODEL = """\
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.wq = nn.Linear(dim, dim, bias=False)
        self.norm = RMSNorm(dim)

    def forward(self, x):
        return self.wq(self.norm(x))


class Tiny(nn.Module):
    def __init__(self, vocab=7, dim=4):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([Block(dim) for _ in range(2)])
        self.final_norm = nn.LayerNorm(dim)
        self.bn = nn.BatchNorm1d(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.tok_embeddings.weight = self.output.weight

    def forward(self, idx):
        h = self.tok_embeddings(idx)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.final_norm(h))
"""

TREE_EXPORT = """\
import torch

from model import Tiny


def weights(model):
    tied = torch.equal(model.tok_embeddings.weight, model.output.weight)
    return [model.tok_embeddings.weight, model.final_norm.weight, model.final_norm.bias,
            model.bn.running_var, *[layer.wq.weight for layer in model.layers],
            *[layer.norm.weight for layer in model.layers], model.output.weight], tied


def build():
    return Tiny()
"""


def test_a_layer_read_through_an_argument_is_typed_by_the_classes_of_the_tree(tmp_path):
    """llama2.c's export.py: `model.tok_embeddings.weight` of a `model` it takes as an argument;
    model.py's class binds `tok_embeddings` to an nn.Embedding, whose weight MindSpore names
    `embedding_table`, and `final_norm` to a LayerNorm (gamma, beta). A directory run reads the
    tree's classes: the reads are MindSpore's names, and the converted export gives torch's
    values. A name the tree also binds to its own class (`norm`: RMSNorm's own `weight`) stays."""
    from migrate.convert.project import convert_tree
    from tests.migrate.convert.torchless import imported_tree
    src = tmp_path / "src"
    src.mkdir()
    (src / "model.py").write_text(TREE_MODEL)
    (src / "export.py").write_text(TREE_EXPORT)
    assert not [r.error for r in convert_tree(src, tmp_path / "out") if r.error]
    code = (tmp_path / "out" / "export.py").read_text()
    assert "model.tok_embeddings.embedding_table" in code and "model.final_norm.gamma" in code, code
    assert "model.bn.moving_variance" in code and "layer.norm.weight" in code and "layer.wq.weight" in code, code
    torch.manual_seed(0)
    import importlib.util
    spec = importlib.util.spec_from_file_location("tree_model_torch", src / "model.py")
    torch_model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(torch_model)
    reference = torch_model.Tiny()
    with torch.no_grad():
        for p in reference.parameters():
            p.add_(torch.randn_like(p))
        reference.bn.running_var.uniform_(0.5, 2.0)
    import sys
    sys.path.insert(0, str(src))
    try:
        spec = importlib.util.spec_from_file_location("tree_export_torch", src / "export.py")
        torch_export = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(torch_export)
        want, want_tied = torch_export.weights(reference)
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("model", None)
    with imported_tree(tmp_path / "out", "export") as export:
        model = export.build()
        state = {k: v.detach().numpy() for k, v in reference.state_dict().items()}
        names = {"tok_embeddings.embedding_table": "tok_embeddings.weight", "final_norm.gamma": "final_norm.weight",
                 "final_norm.beta": "final_norm.bias", "bn.gamma": "bn.weight", "bn.beta": "bn.bias",
                 "bn.moving_mean": "bn.running_mean", "bn.moving_variance": "bn.running_var"}
        for name, p in model.parameters_and_names():
            p.set_data(ms.Tensor(state[names.get(name, name)]))
        got, got_tied = export.weights(model)
    assert got_tied == want_tied
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.detach().numpy(), rtol=1e-5, atol=1e-6)


RETURNED_UTILS = """\
import torch.nn as nn


def init_embedding(count, dim):
    emb = nn.Embedding(count, dim)
    nn.init.xavier_uniform_(emb.weight.data)
    return emb
"""

RETURNED_MODEL = """\
import torch
import torch.nn as nn

from kge_utils import init_embedding


class Scorer(nn.Module):
    def __init__(self, count=6, dim=4):
        super().__init__()
        self.ent_emb = init_embedding(count, dim)

    def forward(self, idx):
        return (self.ent_emb(idx) * self.ent_emb.weight.sum(0)).sum(-1)

    def normalize(self):
        self.ent_emb.weight.data = torch.nn.functional.normalize(self.ent_emb.weight.data, p=2, dim=1)
"""


def test_a_layer_returned_by_a_function_of_another_module_is_typed(tmp_path):
    """torchkge: `self.ent_emb = init_embedding(...)`, a function of another module that builds and
    returns an nn.Embedding; `self.ent_emb.weight` is MindSpore's `embedding_table` (it stayed
    `weight`: AttributeError). Forward and the in-place normalisation give torch's values."""
    import importlib.util
    import sys

    from migrate.convert.project import convert_tree
    from tests.migrate.convert.torchless import imported_tree
    src = tmp_path / "src"
    src.mkdir()
    (src / "kge_utils.py").write_text(RETURNED_UTILS)
    (src / "kge_model.py").write_text(RETURNED_MODEL)
    assert not [r.error for r in convert_tree(src, tmp_path / "out") if r.error]
    code = (tmp_path / "out" / "kge_model.py").read_text()
    assert "self.ent_emb.embedding_table" in code and ".weight" not in code, code
    sys.path.insert(0, str(src))
    try:
        spec = importlib.util.spec_from_file_location("returned_model_torch", src / "kge_model.py")
        torch_model = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(torch_model)
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("kge_utils", None)
    reference = torch_model.Scorer()
    idx = np.array([0, 3, 5], np.int64)
    weights = reference.ent_emb.weight.detach().numpy().copy()
    with torch.no_grad():
        want = reference(torch.from_numpy(idx)).numpy()
        reference.normalize()
    normalized = reference.ent_emb.weight.detach().numpy()
    with imported_tree(tmp_path / "out", "kge_model") as model_mod:
        model = model_mod.Scorer()
        model.ent_emb.embedding_table.set_data(ms.Tensor(weights))
        np.testing.assert_allclose(model(ms.Tensor(idx)).asnumpy(), want, rtol=1e-5, atol=1e-6)
        model.normalize()
        np.testing.assert_allclose(model.ent_emb.embedding_table.asnumpy(), normalized, rtol=1e-5, atol=1e-6)


CONTAINER_UTILS = """\
import torch.nn as nn


def build_tables(names, dim, device="cpu"):
    tables = nn.ModuleDict({name: nn.Embedding(5, dim) for name in names})
    for table in tables.values():
        nn.init.normal_(table.weight, mean=0, std=0.1)
    return tables.to(device)


def build_head(dim):
    return nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.LayerNorm(dim))


def build_grown(dim):
    blocks = nn.ModuleList([nn.Embedding(5, dim)])
    blocks.append(nn.Linear(dim, dim))
    return blocks
"""

CONTAINER_MODEL = """\
import torch
import torch.nn as nn

from ctr_utils import build_grown, build_head, build_tables


class Ranker(nn.Module):
    def __init__(self, names=("a", "b"), dim=4):
        super().__init__()
        self.names = names
        self.tables = build_tables(names, dim)
        self.head = build_head(dim)
        self.grown = build_grown(dim)
        for table in self.tables.values():
            nn.init.normal_(table.weight, mean=0, std=0.5)

    def forward(self, idx):
        out = sum(self.tables[n](idx) * self.tables[n].weight.mean(0) for n in self.names)
        return self.head(out) * self.head[-1].weight + self.grown[0](idx)

    def grown_scale(self):
        return self.grown[0].weight.mean()
"""


def test_the_items_of_a_container_returned_by_another_module_are_typed(tmp_path):
    """deepctr-torch: `self.embedding_dict = create_embedding_matrix(...)`, another module's function that
    returns an nn.ModuleDict of nn.Embedding (built by a comprehension, returned through `.to(device)`);
    `self.embedding_dict[k].weight` and `.weight` of a loop over its `.values()` are `embedding_table`
    (they stayed `weight`: AttributeError). A returned Sequential's `[-1]` is its LayerNorm (`gamma`); a
    container the function grows keeps its items unknown (`self.grown[0]` is not renamed)."""
    import importlib.util
    import sys

    from migrate.convert.project import convert_tree
    from tests.migrate.convert.torchless import imported_tree
    src = tmp_path / "src"
    src.mkdir()
    (src / "ctr_utils.py").write_text(CONTAINER_UTILS)
    (src / "ctr_model.py").write_text(CONTAINER_MODEL)
    assert not [r.error for r in convert_tree(src, tmp_path / "out") if r.error]
    code = (tmp_path / "out" / "ctr_model.py").read_text()
    assert "self.tables[n].embedding_table" in code and "table.embedding_table" in code, code
    assert "self.head[-1].gamma" in code and "self.grown[0].weight" in code, code
    sys.path.insert(0, str(src))
    try:
        spec = importlib.util.spec_from_file_location("ctr_model_torch", src / "ctr_model.py")
        torch_model = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(torch_model)
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("ctr_utils", None)
    torch.manual_seed(0)
    reference = torch_model.Ranker()
    with torch.no_grad():
        reference.head[-1].weight.normal_()
    idx = np.array([0, 3, 4], np.int64)
    with torch.no_grad():
        want = reference(torch.from_numpy(idx)).numpy()
    with imported_tree(tmp_path / "out", "ctr_model") as model_mod:
        model = model_mod.Ranker()
        for n in ("a", "b"):
            model.tables[n].embedding_table.set_data(ms.Tensor(reference.tables[n].weight.detach().numpy()))
        model.head[0].weight.set_data(ms.Tensor(reference.head[0].weight.detach().numpy()))
        model.head[0].bias.set_data(ms.Tensor(reference.head[0].bias.detach().numpy()))
        model.head[-1].gamma.set_data(ms.Tensor(reference.head[-1].weight.detach().numpy()))
        model.grown[0].embedding_table.set_data(ms.Tensor(reference.grown[0].weight.detach().numpy()))
        np.testing.assert_allclose(model(ms.Tensor(idx)).asnumpy(), want, rtol=1e-5, atol=1e-6)
