"""Torch-signature classes and functions at run time: converted code on ms_core against torch.

Models are built on both sides, torch's weights copied with the checker's weight map
(``migrate.check.weights.transfer``), and outputs, running statistics and initial distributions
compared (float32: rtol 1e-4 / atol 1e-5 through whole networks, whose errors accumulate).
"""
import importlib.util
import math

import numpy as np
import pytest

from migrate import convert_source
from migrate.check.weights import transfer
from tests.migrate.convert.helpers import FIXTURE_ROOT, HEADER

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

MODELS = ["layer_values", "layer_subclasses", "layer_norm2d", "sequential_built", "layer_lookup",
          "layer_norm_no_bias"]
NO_BATCH_NORM = {"layer_norm2d", "layer_norm_no_bias"}


def _load(path, name, code=None):
    if code is not None:
        path = path.parent / f"{name}.py"
        path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _convert(tmp_path, src, name):
    res = convert_source(src)
    assert res.error is None and not res.unsupported, res.code
    return _load(tmp_path / "x.py", name, res.code)


def _pair(tmp_path, stem, make="make_model"):
    path = FIXTURE_ROOT / "convert" / f"{stem}.py"
    tmod = _load(path, f"torch_sig_{stem}")
    cmod = _convert(tmp_path, path.read_text(), f"ms_sig_{stem}")
    torch.manual_seed(0)
    return tmod, getattr(tmod, make)(), getattr(cmod, make)()


@pytest.mark.parametrize("stem", MODELS)
def test_converted_model_matches_torch_in_eval_and_train(tmp_path, stem):
    tmod, tmodel, cell = _pair(tmp_path, stem)
    rep = transfer(tmodel, cell, strict=True)
    x = np.random.RandomState(0).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    tmodel.eval()
    cell.set_train(False)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    # training mode: batch statistics, and the running statistics they update
    tmodel.train()
    cell.set_train(True)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    state = dict(tmodel.state_dict())
    params = dict(cell.parameters_and_names())
    moving = [(t, m) for t, m in rep.pairs() if t.endswith(("running_mean", "running_var"))]
    assert moving or stem in NO_BATCH_NORM
    for t_name, ms_name in moving:
        np.testing.assert_allclose(params[ms_name].asnumpy(), state[t_name].numpy(), rtol=1e-5, atol=1e-6)


def test_layer_norms_without_bias_have_torchs_parameters_and_gradients(tmp_path):
    """LayerNorm(bias=False), elementwise_affine=False (literal or at run time) and a bias set to
    None after building: the converted layers hold exactly torch's parameters (no beta where torch
    has no bias), and the gradients w.r.t. the input and every parameter are torch's."""
    tmod, tmodel, cell = _pair(tmp_path, "layer_norm_no_bias")
    t_names = {n for n, _ in tmodel.named_parameters()}
    assert not any(n.startswith(("no_bias.", "runtime.", "dropped.")) and n.endswith("bias") for n in t_names)
    rep = transfer(tmodel, cell, strict=True)
    assert {t for t, _ in rep.pairs()} == t_names and len(rep.pairs()) == len(list(cell.get_parameters()))
    x = np.random.RandomState(1).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_(True)
    tmodel(tx).square().sum().backward()
    params = [p for _, p in cell.parameters_and_names()]
    gx, gp = ms.value_and_grad(lambda t: cell(t).square().sum(), 0, params)(ms.Tensor(x))[1]
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    by_ms = dict(zip((n for n, _ in cell.parameters_and_names()), gp))
    t_params = dict(tmodel.named_parameters())
    for t_name, ms_name in rep.pairs():
        np.testing.assert_allclose(by_ms[ms_name].asnumpy(), t_params[t_name].grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("stem", MODELS)
def test_parameter_names_are_their_paths(tmp_path, stem):
    """Children added to attached containers still give unique, path-like Parameter.names."""
    _, _, cell = _pair(tmp_path, stem)
    names = [(path, p.name) for path, p in cell.parameters_and_names()]
    assert all(path == name for path, name in names), [n for n in names if n[0] != n[1]]


PADDINGS = [0, 1, (0, 1), (2, 1), [1], "same", "valid"]
STRIDES = [1, [1], (1, 2), [2], 2]


@pytest.mark.parametrize("padding", PADDINGS, ids=repr)
@pytest.mark.parametrize("stride", STRIDES, ids=repr)
def test_values_known_at_run_time_reach_the_layer(tmp_path, padding, stride):
    """Class 7: padding and stride held by variables (a torch 2-tuple, 'same', a 1-element list)."""
    if padding == "same" and stride not in (1, [1]):
        pytest.skip("torch refuses padding='same' with stride > 1")
    src = HEADER + "def make(p, s, **kw):\n    return nn.Conv2d(2, 4, 3, stride=s, padding=p, **kw)\n"
    mod = _convert(tmp_path, src, f"conv_{abs(hash((str(padding), str(stride))))}")
    tconv = torch.nn.Conv2d(2, 4, 3, stride=stride, padding=padding, groups=2)
    cell = mod.make(padding, stride, groups=2)
    assert type(cell).__name__ == "Conv2d" and type(cell) is not ms.nn.Conv2d  # the torch-signature class
    transfer(tconv, cell, strict=True)
    x = np.random.RandomState(1).randn(1, 2, 7, 8).astype(np.float32)
    with torch.no_grad():
        ref = tconv(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_keyword_dicts_carry_torch_semantics(tmp_path):
    """Class B: **kwargs with torch's BatchNorm momentum give torch's running statistics."""
    src = HEADER + "def norm(c, **kw):\n    return nn.BatchNorm2d(c, **kw)\n"
    mod = _convert(tmp_path, src, "bn_kwargs")
    kw = dict(momentum=0.01, eps=1e-3)
    tbn, bn = torch.nn.BatchNorm2d(3, **kw).train(), mod.norm(3, **kw)
    bn.set_train(True)
    x = np.random.RandomState(2).randn(4, 3, 5, 5).astype(np.float32)
    with torch.no_grad():
        ref = tbn(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), tbn.running_mean.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(bn.running_var.asnumpy(), tbn.running_var.numpy(), rtol=1e-5, atol=1e-7)


def test_layer_classes_and_their_mindspore_classes_are_one_class(tmp_path):
    """isinstance/issubclass/== see a torch-signature class and its MindSpore class as torch's one
    class (also the classes two converted files generate); instances answer torch's names."""
    src = HEADER + "bn, lin, conv, relu = nn.BatchNorm2d, nn.Linear, nn.Conv2d, nn.ReLU\n"
    one, two = _convert(tmp_path, src, "one_class_a"), _convert(tmp_path, src, "one_class_b")
    plain = ms.nn.BatchNorm2d(3)
    assert isinstance(plain, one.bn) and isinstance(one.bn(3), ms.nn.BatchNorm2d)
    assert isinstance(two.bn(3), one.bn) and issubclass(ms.nn.BatchNorm2d, one.bn)
    assert not isinstance(ms.nn.ReLU(), one.bn)
    assert one.relu == two.relu and one.relu == ms.nn.ReLU and one.relu != one.bn
    assert len({one.relu, two.relu, ms.nn.ReLU}) == 1
    b, fc, c = one.bn(3), one.lin(5, 2, bias=False), one.conv(4, 6, 3, groups=2, padding=(0, 1))
    assert b.weight is b.gamma and b.running_var is b.moving_variance and b.track_running_stats
    assert (fc.in_features, fc.out_features, fc.bias) == (5, 2, None)
    assert (c.groups, c.torch_padding, c.padding_mode) == (2, (0, 1), "zeros")


@pytest.mark.parametrize("call, message", [
    ("conv(3, 4, 3, padding_mode='reflect')", "For 'Conv2d' (torch signature), padding_mode other than 'zeros'"),
    ("conv(3, 4, 3, padding='full')", "For 'Conv', padding must be 'same', 'valid'"),
    ("bn(3, momentum=None)", "For 'BatchNorm2d' (torch signature), momentum=None"),
])
def test_what_cannot_be_translated_fails_when_built(tmp_path, call, message):
    src = HEADER + ("conv, bn, ln, uniform = nn.Conv2d, nn.BatchNorm2d, nn.LayerNorm, nn.init.uniform_\n"
                    "w = nn.Parameter(torch.zeros(2, 3))\n")
    mod = _convert(tmp_path, src, f"refuse_{abs(hash(call))}")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        eval(call, vars(mod))


def test_init_functions_as_values_fill_the_weight(tmp_path):
    """Class I: nn.init functions kept in a dict or a partial fill the tensor they are given with
    torch's distribution (bounds and spread from torch's formulas) and return it."""
    src = HEADER + ("from functools import partial\n"
                    "INITS = dict(xavier=nn.init.xavier_uniform_,\n"
                    "             kaiming=partial(nn.init.kaiming_normal_, mode='fan_out', nonlinearity='relu'),\n"
                    "             uniform=partial(nn.init.uniform_, a=-0.05, b=0.05))\n"
                    "def fill(name, w, **kw):\n    return INITS[name](w, **kw)\n")
    mod = _convert(tmp_path, src, "init_values")
    fan_out, fan_in = 300, 200
    for name, kw, bound, std in [
            ("xavier", {}, math.sqrt(6 / (fan_in + fan_out)), math.sqrt(2 / (fan_in + fan_out))),
            ("xavier", {"gain": 2.0}, 2 * math.sqrt(6 / (fan_in + fan_out)), 2 * math.sqrt(2 / (fan_in + fan_out))),
            ("kaiming", {}, None, math.sqrt(2 / fan_out)),
            ("uniform", {}, 0.05, 0.05 / math.sqrt(3))]:
        w = ms.Parameter(ms.Tensor(np.zeros((fan_out, fan_in), np.float32)), name="w")
        assert mod.fill(name, w, **kw) is w
        values = w.asnumpy()
        if bound is not None:
            assert np.abs(values).max() <= bound + 1e-6
        assert abs(values.std() - std) < 0.03 * std, (name, kw, values.std(), std)  # 60,000 draws


def test_sequential_and_module_list_keep_torch_semantics(tmp_path):
    """Class 3 and C: children set as attributes or added later run in insertion order; None
    entries of a ModuleList keep their index."""
    src = HEADER + ("class Stage(nn.Sequential):\n"
                    "    def __init__(self):\n"
                    "        super().__init__()\n"
                    "        self.scale = nn.Linear(3, 3)\n"
                    "        self.add_module('act', nn.Tanh())\n"
                    "        self.out = nn.Linear(3, 2)\n"
                    "def make():\n"
                    "    seq = nn.Sequential()\n"
                    "    seq.add_module('stage', Stage())\n"
                    "    seq.append(nn.Sigmoid())\n"
                    "    return seq, nn.ModuleList([nn.ReLU(), None, nn.Tanh()])\n")
    ns = {}
    exec(src, ns)
    tseq, tlist = ns["make"]()
    mod = _convert(tmp_path, src, "containers")
    seq, cells = mod.make()
    transfer(tseq, seq, strict=True)
    x = np.random.RandomState(3).randn(4, 3).astype(np.float32)
    with torch.no_grad():
        ref = tseq(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(seq(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert len(seq) == len(tseq) == 2 and type(seq[1]).__name__ == "Sigmoid"
    assert [type(c).__name__ for c in seq[0]] == ["Dense", "Tanh", "Dense"]
    assert len(cells) == 3 and cells[1] is None and [c is None for c in cells] == [c is None for c in tlist]


def test_classes_and_functions_named_at_run_time(tmp_path):
    """Class 1: getattr(nn, rnn_type) / getattr(nn, f"BatchNorm{d}d") / getattr(F, act) build
    torch's layers from strings the file spells (a GRU with GELU here); a name the file never
    spells raises a clear error instead of building something else."""
    tmod, tmodel, cell = _pair(tmp_path, "layer_lookup", "make_gru")
    assert type(cell.rnn).__name__ == "GRU" and type(cell.rnn) is not ms.nn.GRU  # the torch-signature class
    transfer(tmodel, cell, strict=True)
    x = np.random.RandomState(3).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    tmodel.eval()
    cell.set_train(False)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    cmod = _load(tmp_path / "ms_sig_layer_lookup.py", "ms_sig_layer_lookup_again")
    with pytest.raises(AttributeError, match=r"'BatchNorm4d' has no MindSpore translation in the migration's tables"):
        cmod.Net(dims=4)


def test_children_of_a_torch_base_called_with_torch_keywords(tmp_path):
    """Class 2: a subclass of nn.Transformer calls the encoder it inherits (and one of its own)
    with torch's ``mask=``; the converted model gives torch's log-probabilities."""
    tmod, tmodel, cell = _pair(tmp_path, "transformer_subclass")
    transfer(tmodel, cell, strict=True)
    x = np.random.RandomState(4).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    tmodel.eval()
    cell.set_train(False)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
