"""Idioms of real model zoos (issue 10; found converting timm 0.9.16): before/after pairs and
numbers against torch. The fixture is tests/fixtures/convert/zoo_idioms.py.

- a torch name imported under ``try`` whose ``except ImportError`` handler binds a fallback of
  the same name stays bound (other modules import it from this one; without torch the import
  would fail and the handler never ran in torch);
- torch-signature classes carry torch's ``__name__`` (code dispatches on it);
- ``*args`` in calls of entries that only rename (``add_module``) or pack (``zeros``, ``view``);
- NumPy keyword spellings torch accepts (``axis=``, ``keepdims=``);
- in-place ``erfinv_`` (and ``erf_``, ``square_``, ``log1p_``, ``expm1_``).
"""
import importlib.util
import math

import numpy as np
import pytest

from migrate import convert_source
from migrate.check.weights import transfer
from tests.migrate.convert.helpers import FIXTURE_ROOT, check
from tests.migrate.convert.torchless import torch_blocked

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

FIXTURE = FIXTURE_ROOT / "convert" / "zoo_idioms.py"


def _load(tmp_path, name, code):
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    with torch_blocked():
        spec.loader.exec_module(mod)
    return mod


def _converted(tmp_path, src, name):
    res = convert_source(src)
    assert res.error is None and not res.unsupported, res.code
    return _load(tmp_path, name, res.code)


# ---- before/after ------------------------------------------------------------------------------
def test_import_error_fallback_keeps_the_name_bound():
    check("""\
        try:
            from torch.nn.functional import silu
        except ImportError:
            silu = None
        """, """\
        try:
            silu = torch_silu
        except ImportError:
            silu = None
        """)


def test_re_exported_fallback_is_bound_once_and_converts_to_itself(tmp_path):
    """Where sibling modules import the name from this one (a directory run), the binding to its
    converted value is what they import: no guarded torch import that would raise into the
    handler, and a second conversion adds nothing (it added ``_assert = torch__assert`` again)."""
    from migrate.convert.star_imports import REEXPORTED
    src = ("try:\n    from torch import _assert\nexcept ImportError:\n"
           "    def _assert(condition: bool, message: str):\n        assert condition, message\n")
    token = REEXPORTED.set(frozenset({"_assert"}))
    try:
        once = convert_source(src).code
        twice = convert_source(once).code
    finally:
        REEXPORTED.reset(token)
    assert twice == once
    assert "TYPE_CHECKING" not in once and once.count("_assert = torch__assert") == 1, once
    cmod = _load(tmp_path, "reexported_assert", once)
    with pytest.raises(AssertionError, match="boom"):
        cmod._assert(False, "boom")


def test_a_subclass_of_a_runtime_layer_narrows_when_converted_again(tmp_path):
    """``class BNAct(nn.BatchNorm2d)`` becomes ``BNAct(TorchBatchNorm2d)``; converting that output
    again, ``isinstance(m, BNAct)`` must still narrow ``m`` to a BatchNorm2d with torch's attribute
    names (it fell back to the outer BatchNorm2d/BatchNorm3d test: ``TorchLayerAttrs(m)`` added)."""
    # the marked SyncBatchNorm keeps a torch name in the output, so the second conversion walks it
    src = ("import torch\nimport torch.nn as nn\n\n\nclass BNAct(nn.BatchNorm2d):\n    pass\n\n\n"
           "def features(m, group=None):\n    if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm3d)):\n"
           "        if isinstance(m, BNAct):\n            return m.num_features, m.eps\n"
           "        return torch.nn.SyncBatchNorm(m.num_features, process_group=group)\n    return None\n")
    once = convert_source(src).code
    assert convert_source(once).code == once
    cmod = _load(tmp_path, "bn_act_again", once)
    want = torch.nn.BatchNorm2d(4)
    assert cmod.features(cmod.BNAct(4)) == (want.num_features, want.eps)


def test_import_without_fallback_still_goes():
    check("""\
        try:
            from torch.nn.functional import silu
        except ImportError:
            pass

        def f(x):
            return silu(x)
        """, """\
        def f(x):
            return ops.silu(x)
        """)


def test_star_arguments_pass_through_a_rename():
    check("""\
        def build(m, pairs):
            for pair in pairs:
                m.add_module(*pair)
        """, """\
        def build(m, pairs):
            for pair in pairs:
                m.insert_child_to_cell(*pair)
        """)


def test_star_arguments_are_sizes_known_at_run_time():
    check("""\
        def f(b, c, size):
            x = torch.ones(b * c, 4)
            return x.view(b, c, *size) + torch.zeros(1, c, *size)
        """, """\
        def f(b, c, size):
            x = ops.ones((b * c, 4))
            return x.view(b, c, *size) + ops.zeros(torch_sizes(1, c, *size))
        """)


def test_numpy_keywords_of_torch_functions():
    check("""\
        def f():
            x = torch.ones(2, 3)
            return x.mean(axis=1, keepdims=True) + torch.sum(x, axis=1, keepdims=True)
        """, """\
        def f():
            x = ops.ones((2, 3))
            return ops.mean(x, axis=1, keep_dims=True) + ops.sum(x, 1, True)
        """)


def test_numpy_keywords_are_not_torch_nn_functional_ones():
    res = convert_source("import torch.nn.functional as F\n\ndef f(x):\n    return F.softmax(x, axis=1)\n")
    assert "migrate: MS903" in res.code  # torch's F.softmax refuses axis= too


def test_erfinv_in_place():
    check("""\
        def f(w):
            w.erfinv_()
            return w.erfinv()
        """, """\
        def f(w):
            w.copy_(ops.erfinv(w.copy()))
            return ops.erfinv(w)
        """)


def test_initialisers_on_an_untyped_argument():
    """uniform_/normal_/zero_/fill_ on a plain argument are read as a tensor's initialisers:
    MindSpore 2.10's methods of those names have no CPU kernel (InplaceUniform, InplaceZero...)."""
    check("""\
        def init_(t, a, b):
            t.uniform_(a, b)
            t.normal_(0.0, 0.02)
            t.zero_()
            t.fill_(3.0)
            return t
        """, """\
        def init_(t, a, b):
            t.assign_value(ops.uniform(t.shape, ms.Tensor(a, ms.float32), ms.Tensor(b, ms.float32), dtype=t.dtype))
            t.assign_value(initializer(Normal(mean=0.0, sigma=0.02), t.shape, t.dtype).init_data())
            t.assign_value(initializer(Zero(), t.shape, t.dtype).init_data())
            t.assign_value(initializer(Constant(3.0), t.shape, t.dtype).init_data())
            return t
        """)


def test_initialisers_on_an_untyped_argument_keep_a_cell_method():
    """A sub-cell's own method of such a name is not a tensor's: left as written."""
    check("""\
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.ReLU()

            def reset(self):
                body = self.body
                body.zero_()
        """, """\
        class M(nn.Cell):
            def __init__(self):
                super().__init__()
                self.body = nn.ReLU()

            def reset(self):
                body = self.body
                body.zero_()
        """)


# ---- numbers -----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", ["make_model", "make_group_norm"])
def test_fixture_matches_torch(tmp_path, make):
    spec = importlib.util.spec_from_file_location("zoo_idioms_torch", FIXTURE)
    tmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tmod)
    cmod = _converted(tmp_path, FIXTURE.read_text(), f"zoo_idioms_ms_{make}")
    torch.manual_seed(0)
    tmodel, cell = getattr(tmod, make)().eval(), getattr(cmod, make)()
    assert transfer(tmodel, cell, strict=True).ok
    x = np.random.RandomState(0).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    cell.set_train(False)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    # the norm chosen by name is the one torch chose
    assert type(cell.norm[0]).__name__ == type(tmodel.norm[0]).__name__
    with pytest.raises(AssertionError, match="expected NCHW input"):
        cell(ms.Tensor(x[0]))


def test_fallback_name_is_torch_function(tmp_path):
    """The re-exported name is torch's function translated, not the fallback: the same errors."""
    cmod = _converted(tmp_path, FIXTURE.read_text(), "zoo_idioms_ms_assert")
    assert cmod._assert(True, "never") is None
    with pytest.raises(AssertionError, match="boom"):
        cmod._assert(False, "boom")


def test_in_place_unary_methods_match_torch(tmp_path):
    src = ("import torch\n\ndef f(x):\n    a, b, c, d, e = x.clone(), x.clone(), x.clone(), x.clone(), x.clone()\n"
           "    a.erfinv_(); b.erf_(); c.square_(); d.log1p_(); e.expm1_()\n    return a, b, c, d, e\n")
    cmod = _converted(tmp_path, src, "inplace_unary")
    x = np.linspace(-0.9, 0.9, 7).astype(np.float32)
    got = cmod.f(ms.Tensor(x))
    want = (torch.from_numpy(x).erfinv(), torch.from_numpy(x).erf(), torch.from_numpy(x).square(),
            torch.from_numpy(x).log1p(), torch.from_numpy(x).expm1())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_erfinv_initializer_is_normal(tmp_path):
    """The in-place inverse-error-function initializer gives torch's distribution (N(0, 0.2²)
    over 20,000 draws: mean and std within 3 standard errors)."""
    cmod = _converted(tmp_path, FIXTURE.read_text(), "zoo_idioms_ms_init")
    w = cmod.erfinv_normal_(ms.Parameter(ms.ops.zeros((200, 100), ms.float32)), std=0.2).asnumpy()
    # uniform on (-0.99, 0.99) through sqrt(2) erfinv: a normal cut at |z| = 2.576
    lim = math.sqrt(2.) * 0.2 * float(torch.special.erfinv(torch.tensor(0.99, dtype=torch.float64)))
    assert np.abs(w).max() <= lim + 1e-6
    ref = torch.empty(200, 100)
    torch.manual_seed(0)
    ref.uniform_(-0.99, 0.99).erfinv_().mul_(0.2 * math.sqrt(2.))
    assert abs(w.mean() - float(ref.mean())) < 3 * 0.2 / math.sqrt(w.size)
    assert abs(w.std() - float(ref.std())) < 3 * 0.2 / math.sqrt(2 * w.size)


def test_untyped_initialisers_give_torch_values(tmp_path):
    """zero_/fill_ write torch's values into an argument (a Parameter) in place; uniform_(a, b)
    draws inside [a, b) with torch's mean and std (20,000 draws: 3 standard errors)."""
    src = """\
import torch

def init_(t, a, b, v):
    t.uniform_(a, b)
    u = t.clone()
    t.zero_()
    z = t.clone()
    t.fill_(v)
    return u, z
"""
    cmod = _converted(tmp_path, src, "untyped_init_ms")
    p = ms.Parameter(ms.ops.ones((200, 100), ms.float32))
    u, z = cmod.init_(p, -2.0, 3.0, 1.5)
    ref = torch.empty(200, 100).uniform_(-2.0, 3.0)
    u = u.asnumpy()
    assert u.dtype == np.float32 and u.min() >= -2.0 and u.max() < 3.0
    assert abs(u.mean() - 0.5) < 3 * float(ref.std()) / math.sqrt(u.size)
    assert abs(u.std() - float(ref.std())) < 0.02  # std of U(-2, 3) = 1.443; its sampling error ~0.006
    np.testing.assert_array_equal(z.asnumpy(), torch.zeros(200, 100).numpy())
    np.testing.assert_array_equal(p.asnumpy(), torch.full((200, 100), 1.5).numpy())


def test_stem_matches_torch(tmp_path):
    """Tuple kernel through a variable, padding_mode through a variable, weight standardization,
    add_module children read by local names, a buffer that is None."""
    spec = importlib.util.spec_from_file_location("zoo_idioms_torch_stem", FIXTURE)
    tmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tmod)
    cmod = _converted(tmp_path, FIXTURE.read_text(), "zoo_idioms_ms_stem")
    torch.manual_seed(0)
    tmodel, cell = tmod.make_stem().eval(), cmod.make_stem()
    assert transfer(tmodel, cell, strict=True).ok
    assert cell.mask is None
    x = np.random.RandomState(2).randn(*tmod.INPUT_SHAPE).astype(np.float32)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
        ref_scale, ref_kernel = tmodel.fused_scale()
    cell.set_train(False)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    scale, kernel = cell.fused_scale()
    np.testing.assert_allclose(scale.asnumpy(), ref_scale.numpy(), rtol=1e-5, atol=1e-6)
    assert tuple(kernel) == tuple(ref_kernel)
    with pytest.raises(ValueError, match="padding_mode"):
        cmod.StdConv2d(2, 2, 3, padding_mode='reflect')


def test_fan_in_and_fan_out_match_torch(tmp_path):
    src = ("from torch.nn.init import _calculate_fan_in_and_fan_out\n\n"
           "def f(w):\n    return _calculate_fan_in_and_fan_out(w)\n")
    cmod = _converted(tmp_path, src, "fans")
    for shape in [(5, 3), (8, 4, 3, 3), (6, 2, 5)]:
        assert (cmod.f(ms.ops.zeros(shape, ms.float32))
                == torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(shape)))


def test_data_augmented_assignment_writes_into_the_tensor(tmp_path):
    src = "import torch\n\ndef f(w):\n    w.data *= 0.5\n    w.data -= 1 + 1\n    return w\n"
    cmod = _converted(tmp_path, src, "data_update")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = ms.Parameter(ms.Tensor(x.copy()))
    out = cmod.f(w)
    ref = torch.nn.Parameter(torch.from_numpy(x.copy()))
    ref.data *= 0.5
    ref.data -= 1 + 1
    assert out is w
    np.testing.assert_allclose(w.asnumpy(), ref.detach().numpy(), rtol=1e-6, atol=0)


def test_buffer_that_may_be_none():
    check("""\
        class A(nn.Module):
            def __init__(self, mask=None):
                super().__init__()
                self.register_buffer('mask', mask)
                self.register_buffer('empty', None)
        """, """\
        class A(nn.Cell):
            def __init__(self, mask=None):
                super().__init__()
                torch_register_buffer(self, 'mask', mask)
                torch_register_buffer(self, 'empty', None)
        """)


def test_children_added_by_name_are_known_layers():
    check("""\
        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.add_module('bn', nn.BatchNorm2d(4))

            def scale(self):
                bn = self.bn
                return bn.weight / bn.running_var
        """, """\
        class A(nn.Cell):
            def __init__(self):
                super().__init__()
                self.insert_child_to_cell('bn', nn.BatchNorm2d(4))
                torch_param_names(self)

            def scale(self):
                bn = self.bn
                return bn.gamma / bn.moving_variance
        """)
