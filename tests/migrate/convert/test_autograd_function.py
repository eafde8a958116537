"""torch.autograd.Function whose ctx keeps intermediates or attributes (MS133), ``Cls.apply`` as a
value, and ``x.to(v)`` when v may be a dtype or a device (the generated ``torch_to``)."""
import importlib.util

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT, check

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

FIXTURE = FIXTURE_ROOT / "convert" / "autograd_ctx.py"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_ctx_attribute_keeps_forward_and_backward_on_a_torch_function_cell():
    res = check("""\
        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, alpha=2.0):
                ctx.alpha = alpha
                return x * alpha

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.alpha, None


        scale = Scale.apply
        """, """\
        class Scale(TorchFunction):
            @staticmethod
            def forward(ctx, x, alpha=2.0):
                ctx.alpha = alpha
                return x * alpha

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.alpha, None


        scale = Scale()
        """)
    assert {c.rule for c in res.changes} >= {"MS133", "MS132"}
    assert "from migrate_runtime import TorchFunction\n" in res.code


def test_ctx_mark_dirty_is_marked():
    res = convert_source("import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n"
                         "    def forward(ctx, x):\n        ctx.mark_dirty(x)\n        return x.mul_(2)\n\n"
                         "    @staticmethod\n    def backward(ctx, g):\n        return g * 2\n")
    assert "MS901 torch.autograd.Function: ctx.mark_dirty has no counterpart" in res.code


def test_saved_intermediates_match_torch_forward_and_gradients(tmp_path):
    res = convert_source(FIXTURE.read_text())
    assert res.error is None and "# migrate: MS" not in res.code, res.code
    (tmp_path / "ms_autograd_ctx.py").write_text(res.code)
    tmod = _load(FIXTURE, "torch_autograd_ctx")
    cmod = _load(tmp_path / "ms_autograd_ctx.py", "ms_autograd_ctx")
    torch.manual_seed(0)
    tnet, mnet = tmod.make_model(), cmod.make_model()
    mnet.fc.weight.set_data(ms.Tensor(tnet.fc.weight.detach().numpy()))
    mnet.fc.bias.set_data(ms.Tensor(tnet.fc.bias.detach().numpy()))
    x = np.random.RandomState(0).randn(4, 6).astype(np.float32)
    w = np.arange(5, dtype=np.float32)
    tx = torch.tensor(x, requires_grad=True)
    ty = tnet(tx)
    (ty * torch.tensor(w)).sum().backward()
    my = mnet(ms.Tensor(x))
    gx, (gw, gb) = ms.grad(lambda v: (mnet(v) * ms.Tensor(w)).sum(), grad_position=0,
                           weights=mnet.trainable_params())(ms.Tensor(x))
    support = tmod.sparsemax(tmod.Scale.apply(tnet.fc(tx), 3.0), -1).detach().numpy()
    assert (support == 0).any() and (support != 0).sum(-1).max() > 1  # both branches of backward run
    np.testing.assert_allclose(my.asnumpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), tnet.fc.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), tnet.fc.bias.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call, expected", [
    ("x.to(y.dtype)", "x.astype(y.dtype)"),
    ("x.to(device)", "x"),
    ("x.to(args.device, non_blocking=True)", "x"),
    ("x.to(local_rank)", "x"),
    ("x.to('cuda:0')", "x"),
    ("x.to(dt)", "torch_to(x, dt)"),
    ("x.to(*a)", "torch_to(x, *a)"),
])
def test_to_casts_statically_or_at_run_time(call, expected):
    check(f"y = {call}\n", f"y = {expected}\n")


def test_to_at_run_time_casts_like_torch():
    from migrate.runtime.values import torch_to
    x = np.array([1.7, -2.2], np.float32)
    t = torch.tensor(x)
    m = ms.Tensor(x)
    cases = [((torch.int32,), (ms.int32,)), ((torch.float64,), (ms.float64,)),
             ((t.to(torch.float16),), (m.astype(ms.float16),)), (("cpu",), ("cpu",)),
             ((None, torch.int64), (None, ms.int64)), ((), ())]
    for targs, margs in cases:
        want = t.to(*targs).numpy()
        got = torch_to(m, *margs).asnumpy()
        assert got.dtype == want.dtype, (targs, got.dtype)
        np.testing.assert_array_equal(got, want)
    dense = ms.nn.Dense(2, 2)  # a Cell: its floating-point parameters are cast, itself returned
    assert torch_to(dense, ms.float16) is dense and dense.weight.dtype == dense.bias.dtype == ms.float16
    with pytest.raises(TypeError, match="For 'to', casting a list"):
        torch_to([1.0], ms.float16)


def test_torch_nn_modules_paths_name_torch_nn_classes():
    """``nn.modules.ReLU`` / ``torch.nn.modules.conv.Conv2d`` are torch.nn's classes (monai's
    layer factories register them so); private bases (``_BatchNorm``) are the tuple of their
    subclasses' classes in isinstance (tests/migrate/convert/rules/test_norm_bases.py), and stay
    marked as a base class."""
    check("A = dict(relu=nn.modules.ReLU)\nc = nn.modules.conv.Conv2d(3, 4, 3)\n",
          "A = dict(relu=TorchReLU)\nc = nn.Conv2d(3, 4, 3, pad_mode='valid', has_bias=True, "
          "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(27)))\n")
    assert "isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm))" in convert_source(
        "import torch.nn as nn\nok = isinstance(m, nn.modules.batchnorm._BatchNorm)\n").code
    assert "MS901 torch.nn.modules.batchnorm._BatchNorm has no mapping" in convert_source(
        "import torch.nn as nn\nclass B(nn.modules.batchnorm._BatchNorm):\n    pass\n").code


def test_a_static_forward_of_a_cell_is_not_renamed():
    """A TorchFunction subclass's static forward(ctx, ...) is torch's Function form, not a Cell's
    forward: a later conversion that sees it as a Cell keeps it (monai's LLTMFunction)."""
    src = ("import torch.nn as nn\n\nclass F(nn.Module):\n    @staticmethod\n    def forward(ctx, x):\n"
           "        return x\n")
    assert "def forward(ctx, x):" in convert_source(src).code


CUSTOM_FWD = """\
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x  # not x's true derivative: the Function's own backward is what runs


def f(x):
    return Scale.apply(x)
"""


def test_autocast_decorators_of_a_function_are_dropped_and_bprop_matches_torch(tmp_path):
    """kornia's LightGlue decorates its Function with custom_fwd(cast_inputs=...): its casts apply
    only under torch.autocast, which converted code does not run; the Function converts as usual."""
    torch = pytest.importorskip("torch")
    ms = pytest.importorskip("ms_core")
    res = convert_source(CUSTOM_FWD)
    assert res.error is None and not res.unsupported and "custom_fwd" not in res.code, res.code
    path = tmp_path / "custom_fwd_ms.py"
    path.write_text(res.code)
    cmod = _load(path, "custom_fwd_ms")
    tpath = tmp_path / "custom_fwd_torch.py"
    tpath.write_text(CUSTOM_FWD)
    tmod = _load(tpath, "custom_fwd_torch")
    x = np.array([1.0, -2.0, 0.5], np.float32)
    xt = torch.tensor(x, requires_grad=True)
    tmod.f(xt).sum().backward()
    g = ms.grad(lambda v: cmod.f(v).sum())(ms.Tensor(x))
    np.testing.assert_allclose(cmod.f(ms.Tensor(x)).asnumpy(), tmod.f(torch.tensor(x)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-6)


ONCE_DIFFERENTIABLE = """\
import torch
from torch.autograd.function import once_differentiable


class Power(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, n: int):
        ctx.n = n
        ctx.save_for_backward(x)
        return x ** n

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.n * x ** (ctx.n - 1), None


def f(x):
    return Power.apply(x, 3)
"""


def test_once_differentiable_on_a_kept_function_is_dropped_and_its_gradient_matches_torch(tmp_path):
    """zuko's GaussLegendre: a Function kept as the runtime's TorchFunction (ctx attributes) with
    ``@once_differentiable`` on its backward; the decorator stayed, a torch name applied when the
    class is defined: the converted module could not be imported without torch."""
    res = convert_source(ONCE_DIFFERENTIABLE)
    assert res.error is None and not res.unsupported and "once_differentiable" not in res.code, res.code
    assert "class Power(TorchFunction):" in res.code
    path = tmp_path / "once_ms.py"
    path.write_text(res.code)
    cmod = _load(path, "once_ms")
    tpath = tmp_path / "once_torch.py"
    tpath.write_text(ONCE_DIFFERENTIABLE)
    tmod = _load(tpath, "once_torch")
    x = np.array([1.5, -2.0, 0.5], np.float32)
    xt = torch.tensor(x, requires_grad=True)
    tmod.f(xt).sum().backward()
    g = ms.grad(lambda v: cmod.f(v).sum())(ms.Tensor(x))
    np.testing.assert_allclose(cmod.f(ms.Tensor(x)).asnumpy(), tmod.f(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
