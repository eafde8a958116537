"""In-place updates where grad mode is off, and chains of in-place ops on a dict's tensor.

``x.add_(y)`` is written ``x.copy_(x.copy().add(y))``: the copy keeps the value an op saved for
its backward away from the write. Under ``torch.no_grad()`` (a block or a decorated optimizer
step, or any method of an Optimizer subclass) nothing is saved, so the update is
``x.copy_(x.add(y))``. A chain on an item of a dict (``state["m"].mul_(d).add_(g)``, an
optimizer's state) writes both ops back into the item; its second op was once computed out of
place and dropped. A chain on an indexed part (``boxes[:, 0].sub_(w).neg_()``) is one item
assignment.
"""
import numpy as np
import pytest

from tests.migrate.convert.helpers import body, check
from tests.migrate.convert.torchless import load_converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


# ---- before/after ------------------------------------------------------------------------------
def test_no_grad_block_writes_without_the_copy():
    check("""\
        def ema(shadow, params, d):
            with torch.no_grad():
                for s, p in zip(shadow, params):
                    s.mul_(d).add_(p, alpha=1 - d)
        """, """\
        def ema(shadow, params, d):
            with torch_no_grad():
                for s, p in zip(shadow, params):
                    s.copy_(s.mul(d).add(p, alpha=1 - d))
        """)


def test_decorated_step_writes_without_the_copy():
    check("""\
        @torch.no_grad()
        def step(params, state, lr):
            for p in params:
                state["m"].mul_(0.9).add_(p.grad)
                p.data.add_(state["m"], alpha=-lr)
        """, """\
        @torch_no_grad()
        def step(params, state, lr):
            for p in params:
                state["m"].copy_(state["m"].mul(0.9).add(p.grad))
                p.data.copy_(p.data.add(state["m"], alpha=-lr))
        """)


def test_methods_of_an_optimizer_write_without_the_copy():
    check("""\
        class Sgd(torch.optim.Optimizer):
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        p.data.add_(p.grad, alpha=-group["lr"])
                def scale(x):
                    x.mul_(2)
        """, """\
        class Sgd(TorchOptimizer):
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        p.data.copy_(p.data.add(p.grad, alpha=-float(group["lr"])))
                def scale(x):
                    x.copy_(x.copy().mul(2))
        """)


def test_grad_mode_on_keeps_the_copy():
    check("""\
        def f(x, y):
            with torch.enable_grad():
                x.mul_(y)
            return x
        """, """\
        def f(x, y):
            with TorchEnableGrad():
                x.copy_(x.copy().mul(y))
            return x
        """)


def test_a_function_defined_in_a_no_grad_block_has_its_own_grad_mode():
    check("""\
        def outer(x):
            with torch.no_grad():
                def inner(y):
                    y.mul_(2)
                inner(x)
        """, """\
        def outer(x):
            with torch_no_grad():
                def inner(y):
                    y.copy_(y.copy().mul(2))
                inner(x)
        """)


def test_a_chain_that_reads_its_tensor_keeps_its_writes():
    check("""\
        @torch.no_grad()
        def f(x):
            x.mul_(2).add_(x)
        """, """\
        @torch_no_grad()
        def f(x):
            x.copy_(x.copy_(x.copy().mul(2)).copy().add(x))
        """)


def test_a_copy_the_user_wrote_stays():
    check("""\
        @torch.no_grad()
        def f(x, y):
            x.copy_(y)
        """, """\
        @torch_no_grad()
        def f(x, y):
            x.copy_(y)
        """)


def test_chain_on_a_dict_item_writes_both_ops():
    check("""\
        def f(state, g, d):
            state["m"].mul_(d).add_(g, alpha=1 - d)
        """, """\
        def f(state, g, d):
            state["m"].copy_(state["m"].copy().mul(d).add(g, alpha=1 - d))
        """)


# ---- numbers against torch ---------------------------------------------------------------------
_STEP = '''\
import torch


@torch.no_grad()
def step(params, state, lr, beta):
    for i, p in enumerate(params):
        m = state[i]
        m["avg"].mul_(beta).add_(p.grad, alpha=1 - beta)
        m["sq"].mul_(beta).addcmul_(p.grad, p.grad, value=1 - beta)
        p.data.mul_(1 - lr * 0.01)
        p.addcdiv_(m["avg"], m["sq"].sqrt().add_(1e-8), value=-lr)


def ema(shadow, params, d):
    with torch.no_grad():
        for s, p in zip(shadow, params):
            s.mul_(d).add_(p, alpha=1 - d)
'''


def _ours(arrays):
    return [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(arrays)]


def test_no_grad_optimizer_step_and_ema_match_torch(tmp_path):
    mod, code = load_converted(tmp_path, "grad_off_step", _STEP)
    assert ".copy()" not in code, code
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    grads = [rng.standard_normal(w.shape).astype(np.float32) for w in weights]

    tp = [torch.tensor(w.copy(), requires_grad=True) for w in weights]
    for p, g in zip(tp, grads):
        p.grad = torch.tensor(g)
    t_state = [{"avg": torch.zeros(w.shape), "sq": torch.ones(w.shape)} for w in weights]
    t_shadow = [torch.tensor(w.copy()) for w in weights]
    ns = {}
    exec(compile(_STEP, "torch_step", "exec"), ns)
    for _ in range(3):
        ns["step"](tp, t_state, 0.1, 0.9)
        ns["ema"](t_shadow, tp, 0.5)

    mp = _ours(weights)
    for p, g in zip(mp, grads):
        p.grad = ms.Tensor(g)
    m_state = [{"avg": ms.ops.zeros(w.shape, ms.float32), "sq": ms.ops.ones(w.shape, ms.float32)} for w in weights]
    m_shadow = [ms.Tensor(w.copy()) for w in weights]
    for _ in range(3):
        mod.step(mp, m_state, 0.1, 0.9)
        mod.ema(m_shadow, mp, 0.5)

    for name, t, m in [("param", tp, mp), ("shadow", t_shadow, m_shadow),
                       ("avg", [s["avg"] for s in t_state], [s["avg"] for s in m_state]),
                       ("sq", [s["sq"] for s in t_state], [s["sq"] for s in m_state])]:
        for a, b in zip(t, m):
            assert b.dtype == ms.float32, name
            np.testing.assert_allclose(b.asnumpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


# ---- chains on an indexed part ------------------------------------------------------------------
def test_chain_on_an_indexed_part_is_an_item_assignment():
    check("""\
        def flip(boxes, width, points):
            boxes[:, 0].add_(boxes[:, 2]).sub_(width).neg_()
            points[..., 0] = points[..., 0].sub_(width - 1).neg_()
        """, """\
        def flip(boxes, width, points):
            boxes[:, 0] = boxes[:, 0].add(boxes[:, 2]).sub(width).neg()
            points[..., 0] = points[..., 0].sub(width - 1).neg()
        """)


def test_chain_whose_later_op_reads_the_tensor_is_marked():
    got, res = body("""\
        def f(x):
            x[:, 1].mul_(2).add_(x[:, 1])
        """)
    assert got.endswith("    x[:, 1].mul_(2).add_(x[:, 1])\n"), got
    assert "# migrate: MS905 Tensor.mul_: in-place mul_() on x[:, 1]:" in got
    assert "# migrate: MS905 Tensor.add_: in-place add_() on x[:, 1].mul_(2):" in got
    assert res.unsupported == 2


_FLIP = '''\
import torch


def flip(boxes, width, points):
    boxes[:, 0].add_(boxes[:, 2]).sub_(width).neg_()
    boxes[:, 3].neg_().add_(180)
    points[..., 0] = points[..., 0].sub_(width - 1).neg_()
    return boxes, points


def moments(state, g, d):
    state["m"].mul_(d).add_(g, alpha=1 - d)
    return state
'''


def test_chains_on_indexed_parts_and_dict_items_match_torch(tmp_path):
    mod, _ = load_converted(tmp_path, "inplace_chains", _FLIP)
    rng = np.random.default_rng(1)
    boxes = rng.standard_normal((4, 5)).astype(np.float32)
    points = rng.standard_normal((3, 2)).astype(np.float32)
    g = rng.standard_normal(6).astype(np.float32)
    ns = {}
    exec(compile(_FLIP, "torch_chains", "exec"), ns)
    tb, tp = ns["flip"](torch.tensor(boxes), 7.0, torch.tensor(points))
    mb, mp = mod.flip(ms.Tensor(boxes), 7.0, ms.Tensor(points))
    ts = ns["moments"]({"m": torch.ones(6)}, torch.tensor(g), 0.9)
    mst = mod.moments({"m": ms.ops.ones(6, ms.float32)}, ms.Tensor(g), 0.9)
    for t, m in [(tb, mb), (tp, mp), (ts["m"], mst["m"])]:
        assert m.dtype == ms.float32
        np.testing.assert_allclose(m.asnumpy(), t.numpy(), rtol=1e-5, atol=1e-6)
