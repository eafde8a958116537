"""Converted fixtures run on ms_core and reproduce torch's outputs (inference mode, rtol 1e-4).

Weights are copied by name with the renames the converter applies (BatchNorm weight/bias ->
gamma/beta, running_* -> moving_*); every parameter on both sides must be accounted for.
"""
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

FIXTURES = sorted(p for p in (FIXTURE_ROOT / "convert").glob("*.py")
                  if not p.name.startswith("_"))
_LEAF = {"running_mean": "moving_mean", "running_var": "moving_variance"}
_NORM_LEAF = {"weight": "gamma", "bias": "beta"}


def _load(path: Path, name: str, code: str | None = None):
    if code is not None:
        path = path.parent / f"{name}.py"
        path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _same_up_to_ones(a, b) -> bool:
    return [d for d in tuple(a) if d != 1] == [d for d in tuple(b) if d != 1]


def copy_weights(tmodel, cell):
    """Copy torch weights into the converted cell; return the names left unmatched."""
    # traversal names (module paths), as torch's state_dict keys are; Parameter.name can differ
    # for cells inserted after their parent was attached (MindSpore's auto-prefix rule)
    params = dict(cell.parameters_and_names())
    used = set()
    from migrate.check.weights import ms_path  # sub-cells MindSpore names differently (dense1, ...)
    for key, value in tmodel.state_dict().items():
        if key.endswith("num_batches_tracked"):
            continue
        base, _, leaf = key.rpartition(".")
        base = ms_path(tmodel, base)
        key = f"{base}.{leaf}" if base else leaf
        prefix = base + "." if base else ""
        # (an Embedding's weight is its embedding_table)
        for cand in (key, prefix + _LEAF.get(leaf, leaf), prefix + _NORM_LEAF.get(leaf, leaf),
                     prefix + ("embedding_table" if leaf == "weight" else leaf)):
            if cand in params and cand not in used and _same_up_to_ones(params[cand].shape, value.shape):
                # Conv1d keeps its weight as (out, in, 1, k) in MindSpore: same values, one more axis
                params[cand].set_data(ms.Tensor(value.detach().numpy().reshape(tuple(params[cand].shape))))
                used.add(cand)
                break
        else:
            raise AssertionError(f"no ms_core parameter for torch {key}")
    return set(params) - used


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_converted_fixture_matches_torch(path, tmp_path):
    tmod = _load(path, f"torch_{path.stem}")
    res = convert_source(path.read_text())
    cmod = _load(tmp_path / "x.py", f"ms_{path.stem}", res.code)
    torch.manual_seed(0)
    tmodel = tmod.make_model().eval()
    cell = cmod.make_model()
    cell.set_train(False)
    assert copy_weights(tmodel, cell) == set()
    x = np.random.RandomState(0).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    out = cell(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_default_initializers_reproduce_torch_bounds(tmp_path):
    """Converted Linear/Conv2d get torch's U(-1/sqrt(fan_in), 1/sqrt(fan_in)) weights and biases."""
    src = ("import torch.nn as nn\n"
           "fc = nn.Linear(400, 300)\n"
           "conv = nn.Conv2d(16, 32, 3, padding=1)\n")
    mod = _load(tmp_path / "x.py", "init_defaults", convert_source(src).code)
    for layer, fan_in in ((mod.fc, 400), (mod.conv, 16 * 9)):
        bound = 1 / math.sqrt(fan_in)
        for p in (layer.weight, layer.bias):
            assert np.abs(p.asnumpy()).max() <= bound + 1e-6
        w = layer.weight.asnumpy()  # >= 4,608 draws: the std of U(-b, b) is b / sqrt(3)
        assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound


def test_autograd_function_becomes_cell_with_bprop(tmp_path):
    """The Swish torch.autograd.Function converts to a Cell whose bprop gives torch's gradient."""
    path = next(p for p in FIXTURES if p.stem == "efficientnet")
    tmod = _load(path, "torch_eff_grad")
    cmod = _load(tmp_path / "x.py", "ms_eff_grad", convert_source(path.read_text()).code)
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    tx = torch.from_numpy(x).requires_grad_()
    (tmod.SwishImplementation.apply(tx) * 2).sum().backward()
    swish = cmod.SwishImplementation()
    assert hasattr(cmod.SwishImplementation, "bprop")
    g = ms.grad(lambda v: (swish(v) * 2).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kernel,dilation", [(3, 1), (4, 1), (2, 3), ((2, 5), 1)])
def test_same_padding_is_equivalent_at_stride_1(tmp_path, kernel, dilation):
    """torch's padding='same' puts the odd extra on the bottom/right, as pad_mode='same' does, for
    even kernels and dilations too (torch only allows 'same' with stride 1)."""
    src = (f"import torch.nn as nn\nconv = nn.Conv2d(2, 3, {kernel!r}, padding='same', "
           f"dilation={dilation}, bias=False)\n")
    res = convert_source(src)
    # pad_mode='same' is MindSpore's default: not spelled
    assert "nn.Conv2d(2, 3, " in res.code and "pad_mode" not in res.code and not res.unsupported
    mod = _load(tmp_path / "x.py", f"same_{tmp_path.name}", res.code)
    tconv = torch.nn.Conv2d(2, 3, kernel, padding="same", dilation=dilation, bias=False)
    mod.conv.weight.set_data(ms.Tensor(tconv.weight.detach().numpy()))
    x = np.random.RandomState(1).randn(1, 2, 7, 8).astype(np.float32)
    with torch.no_grad():
        ref = tconv(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(mod.conv(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)


LAYERS = [
    ("nn.MaxPool2d(3, 2, 1)", (1, 2, 7, 8)),
    ("nn.MaxPool2d(2, ceil_mode=True)", (1, 2, 7, 7)),
    ("nn.MaxPool2d(3, 2, 1, ceil_mode=True)", (1, 2, 8, 8)),
    ("nn.AvgPool2d(3, 2, 1)", (1, 2, 7, 8)),
    ("nn.AvgPool2d(3, 2, 1, count_include_pad=False)", (1, 2, 7, 8)),
    ("nn.AvgPool2d(2, ceil_mode=True)", (1, 2, 7, 7)),
    ("nn.GELU()", (2, 5)),
    ("nn.GELU(approximate='tanh')", (2, 5)),
    ("nn.LeakyReLU()", (2, 5)),
    ("nn.Softmax(dim=1)", (2, 5)),
    ("nn.Flatten()", (2, 3, 4)),
    ("nn.LayerNorm(5)", (2, 5)),
    ("nn.LayerNorm([4], eps=1e-3)", (2, 3, 4)),  # two axes: marked (begin_norm_axis in [-1, rank))
    ("nn.GroupNorm(2, 4)", (2, 4, 3, 3)),
    ("nn.Hardswish()", (2, 5)),
    ("nn.ReLU6(inplace=True)", (2, 5)),
    ("nn.Conv2d(2, 3, 3, stride=2, padding=(1, 2))", (1, 2, 7, 8)),
    ("nn.Conv2d(4, 4, 3, padding=1, groups=2)", (1, 4, 5, 5)),
    ("nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)", (1, 2, 4, 4)),
    ("nn.Conv1d(2, 3, 3, padding=1)", (1, 2, 9)),
]


@pytest.mark.parametrize("expr,shape", LAYERS, ids=[e for e, _ in LAYERS])
def test_converted_layer_matches_torch(tmp_path, expr, shape):
    """Each translated layer, with torch's weights, gives torch's output."""
    res = convert_source(f"import torch.nn as nn\nlayer = {expr}\n")
    assert not res.unsupported, res.code
    mod = _load(tmp_path / "x.py", f"layer_{abs(hash(expr))}", res.code)
    tlayer = eval(expr, {"nn": torch.nn}).eval()
    cell = mod.layer
    cell.set_train(False)
    assert copy_weights(tlayer, cell) == set()
    x = np.random.RandomState(2).randn(*shape).astype(np.float32)
    with torch.no_grad():
        ref = tlayer(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_batchnorm_momentum_translation_in_training(tmp_path):
    """torch momentum 0.3 -> MindSpore 0.7: the running statistics after a training step agree."""
    res = convert_source("import torch.nn as nn\nbn = nn.BatchNorm2d(3, momentum=0.3)\n")
    mod = _load(tmp_path / "x.py", "bn_train", res.code)
    tbn = torch.nn.BatchNorm2d(3, momentum=0.3).train()
    mod.bn.set_train(True)
    x = np.random.RandomState(3).randn(4, 3, 5, 5).astype(np.float32)
    tbn(torch.from_numpy(x))
    mod.bn(ms.Tensor(x))
    np.testing.assert_allclose(mod.bn.moving_mean.asnumpy(), tbn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mod.bn.moving_variance.asnumpy(), tbn.running_var.numpy(), rtol=1e-5, atol=1e-6)
