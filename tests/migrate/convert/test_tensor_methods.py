"""Tensor methods on receivers of every kind: in-place methods written back with copy_, item
statements, views (marked), methods whose MindSpore meaning differs on receivers the converter
cannot type (marked), and torch-signature calls left as written that ms_core runs as torch does.
Before/after pairs, and the converted code run against torch."""
import textwrap

import numpy as np
import pytest
import torch

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, after, check

rs = np.random.RandomState(0)
X = rs.randn(3, 4).astype(np.float32)
Y = rs.randn(3, 4).astype(np.float32)


def run_both(code: str, *arrays):
    """Run `def f(...)` of `code` on torch and, converted, on ms_core; return both results."""
    src = HEADER + textwrap.dedent(code)
    res = convert_source(src)
    assert res.error is None and "# migrate: MS9" not in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(compile(src, "<torch>", "exec"), t_ns)
    exec(compile(res.code, "<converted>", "exec"), m_ns)
    t_out = t_ns["f"](*(torch.tensor(a) for a in arrays))
    m_out = m_ns["f"](*(ms.Tensor(a) for a in arrays))
    return t_out, m_out, res.code


def assert_same(t_out, m_out):
    t_out = t_out if isinstance(t_out, tuple) else (t_out,)
    m_out = m_out if isinstance(m_out, tuple) else (m_out,)
    assert len(t_out) == len(m_out)
    for t, m in zip(t_out, m_out):
        np.testing.assert_allclose(m.asnumpy(), t.numpy(), rtol=1e-6, atol=1e-7)


# ---- in-place methods ------------------------------------------------------------------------
@pytest.mark.parametrize("before,expected", [
    ("x.add_(y, alpha=2)", "x.copy_(x.copy().add(y, alpha=2))"),
    ("self.w.mul_(0.5)", "self.w.copy_(self.w.copy().mul(0.5))"),
    ("m.weight.data.clamp_(-1, 1)", "m.weight.data.copy_(m.weight.data.copy().clamp(-1, 1))"),
    ("x.relu_()", "x.copy_(ops.relu(x.copy()))"),
    ("x.add_(y).clamp_(0, 1)", "x.copy_(x.copy().add(y).clamp(0, 1))"),
    ("(x + y).clamp_(0, 1)", "(x + y).clamp(0, 1)"),
    # on a new tensor: the out-of-place call, as torch.ones(3).mul(2) converts (a second
    # conversion of ops.ones((3,)).mul(2)-like forms may type the receiver: the same result)
    ("torch.ones(3).mul_(2)", "ops.mul(ops.ones((3,)), 2)"),
    ("x.copy_(y)", "x.copy_(y)"),
    # a tensor a module holds, reached through a container: not a view
    ("self.blocks[0].conv.weight.copy_(y)", "self.blocks[0].conv.weight.copy_(y)"),
    ("m.layers[i].bias.mul_(2)", "m.layers[i].bias.copy_(m.layers[i].bias.copy().mul(2))"),
    # reached through getattr: a held tensor too (timm's vision_transformer weight loading)
    ("getattr(m, f'conv{x}').weight.copy_(y)", "getattr(m, f'conv{x}').weight.copy_(y)"),
    ("getattr(m.mlp, 'fc1').bias.mul_(2)",
     "getattr(m.mlp, 'fc1').bias.copy_(getattr(m.mlp, 'fc1').bias.copy().mul(2))"),
    # copy_ into an attribute of any object (evaluated once): the object's tensor
    ("make(m).weight.copy_(y)", "make(m).weight.copy_(y)"),
])
def test_in_place_forms(before, expected):
    check(f"def f(x, y, m, self):\n    z = {before}\n", f"def f(x, y, m, self):\n    z = {expected}\n")


def test_in_place_on_a_view_or_an_index_inside_an_expression_is_marked():
    out = after("""\
        def f(x: torch.Tensor, mask, m, y):
            a = x[0].mul_(2)
            b = x.view(-1).add_(1)
            c = x.float().div_(255)
            x[mask].zero_()
            x[0].T.copy_(y)
            m.layers[0].weight[0].copy_(y)
            getattr(m, 'fc').weight.T.copy_(y)
            x.view(-1).copy_(y)
            make(m).weight.mul_(2)
            return a, b, c
        """)
    assert out.count("# migrate: MS905") == 8, out
    assert "x[mask] =" not in out  # advanced indexing copies in torch: no write-back


def test_item_statements_become_assignments():
    code = """\
        def f(x, y):
            x = x * 1
            x[:, 0].mul_(10)
            x[1].copy_(y[0])
            x[..., ::2].clamp_(-0.5, 0.5)
            x[2, 1:].add_(y[0, 1:], alpha=-1)
            return x
        """
    assert "x[:, 0] = x[:, 0].mul(10)" in after(code) and "x[1] = y[0]" in after(code)
    t, m, _ = run_both(code, X, Y)
    assert_same(t, m)


def test_in_place_code_runs_as_torch_with_gradients():
    code = """\
        def f(x, y):
            z = x * 1
            z.mul_(y).add_(y.sin(), alpha=0.5)
            z.clamp_(-1, 1)
            w = torch.zeros(3, 4).add_(z)
            return z, w
        """
    t, m, _ = run_both(code, X, Y)
    assert_same(t, m)
    ns = {}
    exec(compile(convert_source(HEADER + textwrap.dedent(code)).code, "<c>", "exec"), ns)
    g = ms.grad(lambda a, b: ns["f"](a, b)[0].sum(), grad_position=(0, 1))(ms.Tensor(X), ms.Tensor(Y))
    tx, ty = torch.tensor(X, requires_grad=True), torch.tensor(Y, requires_grad=True)
    z = tx * 1
    z.mul_(ty).add_(ty.sin(), alpha=0.5)
    z.clamp_(-1, 1)
    z.sum().backward()
    np.testing.assert_allclose(g[0].asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[1].asnumpy(), ty.grad.numpy(), rtol=1e-5, atol=1e-6)


# ---- receivers the converter cannot type ------------------------------------------------------
def test_std_and_var_on_an_untyped_receiver_are_marked_typed_ones_translated():
    out = after("""\
        def f(a, x: torch.Tensor):
            return a.std(), x.std(), x.var(1, keepdim=True), a.std(dim=0)
        """)
    assert out.count("# migrate: MS915") == 1 and "a.std()" in out, out
    assert "x.std(ddof=1)" in out and "x.var(axis=1, ddof=1, keepdims=True)" in out
    assert "a.std(axis=0, ddof=1)" in out  # dim= is torch's keyword: a is a tensor


def test_a_call_with_a_keyword_torch_does_not_take_is_not_marked_as_untyped():
    # x.std(ddof=1) is already MindSpore's form (a second conversion of reinforce.py marked it)
    out = after("""\
        def f(a):
            return a.std(ddof=1), a.var(axis=0, ddof=1)
        """)
    assert "# migrate:" not in out and "a.std(ddof=1), a.var(axis=0, ddof=1)" in out, out


def test_type_without_argument_is_marked_and_casts_are_translated():
    out = after("""\
        def f(x):
            return x.type(), x.type(torch.float16), x.type('torch.cuda.LongTensor')
        """)
    assert "# migrate: MS915" in out and "x.astype(ms.float16)" in out and "x.astype(ms.int64)" in out


def test_requires_grad_statement_kept_value_dropped():
    check("""\
        def f(p):
            p.requires_grad_(False)
            q = torch.zeros(3).requires_grad_()
        """, """\
        def f(p):
            p.requires_grad_(False)
            q = ops.zeros((3,))
        """)


def test_memory_and_device_methods_are_dropped():
    check("""\
        def f(x, model):
            return x.pin_memory(), x.share_memory_(), x.as_subclass(torch.Tensor), x.cpu()
        """, """\
        def f(x, model):
            return x, x, x, x
        """)


@pytest.mark.parametrize("code", [
    # left as written on an untyped receiver: MindSpore 2.10's methods take torch's arguments
    "def f(a, b):\n    return a.transpose(0, 1), b.transpose(1, 2)\n",
    "def f(a, b):\n    return a.sum(1, True), b.max(2)[0], a.flatten(1), b.squeeze(1)\n",
    "def f(a, b):\n    return a.view(2, 6), b.permute(2, 0, 1), a.expand(2, 3, 4), a.repeat(2, 1)\n",
])
def test_untyped_receivers_keep_torch_meaning_on_ms_core(code):
    # S5 of the real-code catalogue: a 2-D x.transpose(0, 1) must not be the identity
    t, m, converted = run_both(code, X, rs.randn(2, 3, 4).astype(np.float32))
    assert "a.transpose(0, 1)" in converted or "transpose" not in code
    assert_same(t, m)


# ---- arguments and receivers that are expressions (fuzz finding F2) -----------------------------
@pytest.mark.parametrize("before,expected", [
    ("a.type_as(b + c)", "a.astype((b + c).dtype)"),
    ("a.type_as(-b)", "a.astype((-b).dtype)"),
    ("a.view_as(b if c else a)", "ops.reshape(a, (b if c else a).shape)"),
    ("(a + b).new_zeros(3)", "ops.zeros((3,), (a + b).dtype)"),
    ("a.type_as(torch.ones(2).double())", "a.astype(ops.ones((2,)).astype(ms.float64).dtype)"),
])
def test_rules_that_take_an_attribute_of_an_expression_parenthesise_it(before, expected):
    check(f"def f(a, b, c):\n    return {before}\n", f"def f(a, b, c):\n    return {expected}\n")


def test_type_as_of_an_expression_runs_as_torch():
    code = "def f(x, y):\n    return x.type_as(y.long() + 1), (x + y).new_ones(2).type_as(-x)\n"
    t, m, converted = run_both(code, X, Y)
    assert "x.astype((y.long() + 1).dtype)" in converted and ".astype((-x).dtype)" in converted, converted
    assert [str(v.dtype) for v in m] == ["Int64", "Float32"]
    assert_same(t, m)


def test_in_place_on_a_parameter_held_through_a_container_updates_it_like_torch():
    src = ("import torch\nfrom torch import nn\n\nclass N(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.layers = nn.ModuleList([nn.Linear(2, 3), nn.Linear(3, 2)])\n\n"
           "    def load(self, w):\n        with torch.no_grad():\n            self.layers[0].weight.copy_(w)\n"
           "            self.layers[1].bias.mul_(0.5)\n")
    res = convert_source(src)
    assert "# migrate:" not in res.code, res.code
    ns_t, ns_m = {}, {}
    exec(compile(src, "torch_n", "exec"), ns_t)
    exec(compile(res.code, "ms_n", "exec"), ns_m)
    t, m = ns_t["N"](), ns_m["N"]()
    m.layers[1].bias.set_data(ms.Tensor(t.layers[1].bias.detach().numpy()))
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    t.load(torch.tensor(w))
    m.load(ms.Tensor(w))
    np.testing.assert_array_equal(m.layers[0].weight.asnumpy(), t.layers[0].weight.detach().numpy())
    np.testing.assert_array_equal(m.layers[1].bias.asnumpy(), t.layers[1].bias.detach().numpy())


def test_copy_into_parameters_reached_through_getattr_updates_them_like_torch():
    src = ("import torch\nfrom torch import nn\n\nclass N(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.fc1, self.fc2 = nn.Linear(2, 3), nn.Linear(3, 2)\n\n"
           "    def load(self, ws):\n        with torch.no_grad():\n            for r in range(2):\n"
           "                getattr(self, f'fc{r + 1}').weight.copy_(ws[r])\n"
           "                getattr(self, f'fc{r + 1}').bias.mul_(0.5)\n")
    res = convert_source(src)
    assert "# migrate:" not in res.code, res.code
    ns_t, ns_m = {}, {}
    exec(compile(src, "torch_n", "exec"), ns_t)
    exec(compile(res.code, "ms_n", "exec"), ns_m)
    t, m = ns_t["N"](), ns_m["N"]()
    for name in ("fc1", "fc2"):
        getattr(m, name).bias.set_data(ms.Tensor(getattr(t, name).bias.detach().numpy()))
    ws = [np.arange(6, dtype=np.float32).reshape(3, 2), -np.arange(6, dtype=np.float32).reshape(2, 3)]
    t.load([torch.tensor(w) for w in ws])
    m.load([ms.Tensor(w) for w in ws])
    for name in ("fc1", "fc2"):
        for p in ("weight", "bias"):
            np.testing.assert_array_equal(getattr(getattr(m, name), p).asnumpy(),
                                          getattr(getattr(t, name), p).detach().numpy())


def test_in_place_on_a_run_time_to_is_marked_once_and_stays_so():
    """``x.to(dt).sub_(m)`` writes into x in torch when dt is x's dtype: the generated torch_to
    aliases like torch's to(); converting the output again changes nothing (timm's loader)."""
    src = "import torch\ndef f(x, dt, m):\n    with ctx():\n        x = x.to(dt).sub_(m).div_(2)\n    return x\n"
    once = convert_source(src).code
    assert once.count("# migrate: MS905 Tensor.sub_: in-place sub_() on torch_to(x, dt)") == 1, once
    assert convert_source(once).code == once


def test_a_tensors_data_is_a_tensor_so_numpy_converts_in_one_pass():
    """``x.data.numpy()``: ``.data`` goes and ``.numpy()`` must convert in the same pass, or the
    second conversion changes the file (timm's utils/onnx.py)."""
    check("def f(x: torch.Tensor):\n    return x.data.numpy(), x.T.numpy()\n",
          "def f(x: ms.Tensor):\n    return x.asnumpy(), x.T.asnumpy()\n")


def test_in_place_chains_compute_torchs_values():
    """x.mul_(a).add_(g) as one write, and x.mul_(2).add_(x) (which reads the x mul_ wrote) as two:
    the values torch leaves in x and returns (float32, exact here)."""
    import numpy as np
    import torch

    import ms_core as ms
    from migrate import convert_source
    src = ("import torch\n\n\ndef f(x, g):\n    y = x.mul_(0.5).add_(g, alpha=2.0)\n    return y\n\n\n"
           "def h(x):\n    y = x.mul_(2).add_(x)\n    return y\n")
    code = convert_source(src).code
    ns = {}
    exec(compile(code, "converted", "exec"), ns)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = np.full((2, 3), 0.25, np.float32)
    for name, args in (("f", (a, g)), ("h", (a,))):
        t_args = [torch.tensor(v) for v in args]
        m_args = [ms.Tensor(v) for v in args]
        want = {"f": lambda x, g: x.mul_(0.5).add_(g, alpha=2.0), "h": lambda x: x.mul_(2).add_(x)}[name](*t_args)
        got = ns[name](*m_args)
        np.testing.assert_array_equal(got.asnumpy(), want.numpy())
        np.testing.assert_array_equal(m_args[0].asnumpy(), t_args[0].numpy())  # written into x
