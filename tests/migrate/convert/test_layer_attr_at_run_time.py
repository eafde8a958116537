"""Layer attributes torch and MindSpore name differently, read on a receiver whose class is not
known when converting (``num_ftrs = model.fc.in_features``, the fine-tuning idiom; openai/CLIP's
``self.visual.attnpool.c_proj.in_features``): TorchLayerAttrs decides at run time."""
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
