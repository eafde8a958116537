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

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

FIXTURES = sorted(p for p in (Path(__file__).parents[1] / "fixtures" / "convert").glob("*.py")
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


def copy_weights(tmodel, cell):
    """Copy torch weights into the converted cell; return the names left unmatched."""
    # traversal names (module paths), as torch's state_dict keys are; Parameter.name can differ
    # for cells inserted after their parent was attached (MindSpore's auto-prefix rule)
    params = dict(cell.parameters_and_names())
    used = set()
    for key, value in tmodel.state_dict().items():
        if key.endswith("num_batches_tracked"):
            continue
        base, _, leaf = key.rpartition(".")
        prefix = base + "." if base else ""
        for cand in (key, prefix + _LEAF.get(leaf, leaf), prefix + _NORM_LEAF.get(leaf, leaf)):
            if cand in params and cand not in used and tuple(params[cand].shape) == tuple(value.shape):
                params[cand].set_data(ms.Tensor(value.detach().numpy()))
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
