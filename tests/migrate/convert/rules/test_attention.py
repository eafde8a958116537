"""Converter entries for attention / transformer / padding layers (mappings/layers_attention.toml):
argument translation before -> after, and the converted tiny_transformer fixture running on
ms_core with torch's weights (renamed linear1/linear2 -> dense1/dense2, LayerNorm weight/bias ->
gamma/beta) and matching torch's outputs and input gradients (rtol 1e-4)."""
import importlib.util

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

FIXTURE = FIXTURE_ROOT / "convert" / "tiny_transformer.py"
HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def convert_line(line):
    res = convert_source(HEADER + f"m = {line}\n")
    return res.code.strip().splitlines()[-1].split("= ", 1)[1], res


@pytest.mark.parametrize("before, after", [
    ("nn.MultiheadAttention(16, 4, dropout=0.1, bias=False, batch_first=True, device='cpu')",
     "torch_attention_init(nn.MultiheadAttention(16, 4, dropout=0.1, has_bias=False, "
     "batch_first=True))"),
    ("nn.MultiheadAttention(16, 4, 0.0, False, True)",
     "torch_attention_init(nn.MultiheadAttention(16, 4, 0.0, False, True))"),
    # MindSpore 2.10's MultiheadAttention takes dtype= (e5d9846: translated, no longer marked)
    ("nn.MultiheadAttention(16, 4, dtype=torch.float64)",
     "torch_attention_init(nn.MultiheadAttention(16, 4, dtype=ms.float64))"),
    ("nn.MultiheadAttention(8, 2, kdim=4, vdim=6)",
     "torch_attention_init(nn.MultiheadAttention(8, 2, kdim=4, vdim=6))"),
    ("nn.TransformerEncoderLayer(16, 4, 32, 0.1, 'gelu', 1e-6, True, True)",
     "torch_attention_init(nn.TransformerEncoderLayer(16, 4, 32, 0.1, 'gelu', 1e-6, True, True))"),
    ("nn.TransformerEncoderLayer(d_model=16, nhead=4, activation=F.gelu, bias=True)",
     "torch_attention_init(nn.TransformerEncoderLayer(d_model=16, nhead=4, "
     "activation=torch_gelu))"),
    ("nn.TransformerDecoderLayer(16, 4, batch_first=True, device=None)",
     "torch_attention_init(nn.TransformerDecoderLayer(16, 4, batch_first=True))"),
    ("nn.TransformerEncoder(layer, 2, enable_nested_tensor=False, mask_check=False)",
     "torch_attention_init(nn.TransformerEncoder(layer, 2))"),
    ("nn.TransformerDecoder(layer, 3, norm=None)",
     "torch_attention_init(nn.TransformerDecoder(layer, 3, norm=None))"),
    ("nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, batch_first=True)",
     "torch_attention_init(nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, "
     "batch_first=True))"),
    ("nn.ZeroPad2d((1, 0, 2, 1))", "nn.ZeroPad2d((1, 0, 2, 1))"),
    ("nn.ConstantPad1d(2, 3.5)", "nn.ConstantPad1d(2, 3.5)"),
    ("nn.ConstantPad3d(1, 0.0)", "nn.ConstantPad3d(1, 0.0)"),
    ("nn.ReflectionPad2d(2)", "nn.ReflectionPad2d(2)"),
    ("nn.ReplicationPad1d((1, 2))", "nn.ReplicationPad1d((1, 2))"),
])
def test_layer_arguments_translated(before, after):
    got, res = convert_line(before)
    assert got.replace("ms_nn.", "nn.") == after
    assert res.unsupported == 0


@pytest.mark.parametrize("before", [
    "nn.TransformerEncoderLayer(16, 4, bias=False)",
    "nn.Transformer(16, 4, dtype=torch.float16)",
    "nn.ZeroPad1d(2)",
])
def test_unsupported_arguments_marked(before):
    _, res = convert_line(before)
    assert res.unsupported >= 1
    assert "# migrate:" in res.code


def _load(path, name, code=None):
    if code is not None:
        path = path.parent / f"{name}.py"
        path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ms_name(tmodel, key):
    base, _, leaf = key.rpartition(".")
    if isinstance(tmodel.get_submodule(base), torch.nn.LayerNorm):
        leaf = {"weight": "gamma", "bias": "beta"}[leaf]
    parts = [{"linear1": "dense1", "linear2": "dense2"}.get(p, p) for p in base.split(".")]
    return ".".join(parts + [leaf])


def test_converted_tiny_transformer_matches_torch(tmp_path):
    tmod = _load(FIXTURE, "torch_tiny_transformer")
    res = convert_source(FIXTURE.read_text())
    assert res.unsupported == 0 and "# migrate:" not in res.code
    cmod = _load(tmp_path / "x.py", "ms_tiny_transformer", res.code)
    torch.manual_seed(0)
    tmodel = tmod.make_model().eval()
    cell = cmod.make_model()
    cell.set_train(False)

    params = dict(cell.parameters_and_names())
    used = set()
    for key, value in tmodel.state_dict().items():
        name = _ms_name(tmodel, key)
        assert name in params, f"no ms_core parameter {name} for torch {key}"
        assert tuple(params[name].shape) == tuple(value.shape)
        params[name].set_data(ms.Tensor(value.numpy().copy()))
        used.add(name)
    assert used == set(params)

    x = np.random.RandomState(0).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    ref = tmodel(tx)
    cot = np.random.RandomState(1).randn(*ref.shape).astype(np.float32)
    (ref * torch.from_numpy(cot)).sum().backward()
    out = cell(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    g = ms.grad(lambda t: (cell(t) * ms.Tensor(cot)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_converted_fixture_dropout_follows_training_mode(tmp_path):
    res = convert_source(FIXTURE.read_text())
    cmod = _load(tmp_path / "x.py", "ms_tiny_transformer_train", res.code)
    cell = cmod.make_model()
    x = ms.Tensor(np.random.RandomState(0).randn(*cmod.INPUT_SHAPE).astype(np.float32))
    a, b = cell(x).asnumpy(), cell(x).asnumpy()
    np.testing.assert_array_equal(a, b)  # inference mode by default
    cell.set_train(True)
    assert not np.allclose(cell(x).asnumpy(), a)


INIT_FIXTURE = FIXTURE_ROOT / "convert" / "attention_init.py"


def test_converted_attention_layers_start_as_torch_initialises_them(tmp_path):
    """Every attention layer's out_proj.bias (and in_proj_bias) starts at exactly zero on both
    sides, built directly, in Transformer layers, stacked by TransformerEncoder/Decoder and in a
    subclass of nn.Transformer (MindSpore's Dense would draw U(±1/√E)); every parameter passes
    the checker's two-sample KS test against torch's initial values."""
    from migrate.check import check
    tmod = _load(INIT_FIXTURE, "torch_attention_init")
    code = convert_source(INIT_FIXTURE.read_text()).code
    cmod = _load(tmp_path / "x.py", "ms_attention_init", code)
    torch.manual_seed(0)
    ms.set_seed(0)
    tmodel, cell = tmod.AttentionStack(64, 4, 64), cmod.AttentionStack(64, 4, 64)
    ends = ("out_proj.bias", "in_proj_bias")
    ms_biases = {n: p.asnumpy() for n, p in cell.parameters_and_names() if n.endswith(ends)}
    torch_biases = {n: p.detach().numpy() for n, p in tmodel.named_parameters() if n.endswith(ends)}
    assert set(ms_biases) == set(torch_biases) and len(ms_biases) == 2 * 7  # `plain` has none
    assert not any(v.any() for v in torch_biases.values())
    assert not any(v.any() for v in ms_biases.values())
    x = np.random.RandomState(0).randn(5, 2, 64).astype(np.float32)
    res = check(tmodel, cell, [x], mode="eval", layers=False, gradients=False, init_check=True)
    assert len(res.init) == len(list(tmodel.parameters()))
    assert not [r.name for r in res.init if r.ks.differs]


def test_torch_signature_transformer_zeroes_its_attention_biases(tmp_path):
    """A subclass of nn.Transformer (a torch-signature class) zeroes the out_proj.bias of the
    attention layers its MindSpore base builds, before the subclass's own __init__ goes on."""
    source = ("class LM(nn.Transformer):\n"
              "    def __init__(self):\n"
              "        super().__init__(d_model=16, nhead=2, num_encoder_layers=2)\n"
              "        self.seen = self.encoder.layers[1].self_attn.out_proj.bias.sum()\n")
    code = convert_source(HEADER + source).code
    assert "class LM(TorchTransformer):" in code  # the runtime's TorchTransformer runs torch_attention_init
    model = _load(tmp_path / "lm.py", "ms_lm_attention_init", code).LM()
    assert float(model.seen) == 0.0
    biases = [p.asnumpy() for n, p in model.parameters_and_names() if n.endswith("out_proj.bias")]
    assert len(biases) == 2 + 6 * 2 and not any(b.any() for b in biases)
