"""Before/after pairs for in-place comparisons (MS326), b.type() as a cast target (MS327),
dtype= translated by a cast, Tensor.unfold's sliding windows (MS328), factory keywords given
as **dd and memory formats; the numbers are checked against torch here and in the fixture
tests/fixtures/convert/windows_and_casts.py (ms_core, and MindSpore 2.10 through the oracle)."""
import numpy as np
import pytest

from migrate import convert_source
from migrate.runtime.arguments import torch_factory_dtype
from migrate.runtime.values import torch_cast
from tests.migrate.convert.rules.test_rules import one

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

PAIRS = [
    ("x.ge_(0.5)", "torch_compare_(ops.ge, x, 0.5)"),
    ("torch.rand(2, 3).ne_(y)", "torch_compare_(ops.ne, ops.rand(2, 3), y)"),
    ("a.type(b.type())", "a.astype(b.dtype)"),
    ("a.type(b[0].type()).sum()", "a.astype(b[0].dtype).sum()"),
    # linspace computes in the requested dtype (float64 arithmetic, integer truncation: MS161)
    ("torch.linspace(0, 1, 5, dtype=torch.float64)", "torch_linspace(0, 1, 5, dtype=ms.float64)"),
    ("torch.linspace(0, 1, 5, dtype=d)", "torch_linspace(0, 1, 5, dtype=d)"),
    ("torch.logspace(0, 1, 5, dtype=torch.float64)", "ops.pow(10.0, ops.linspace(0, 1, 5)).astype(ms.float64)"),
    ("torch.mean(x + 1, 1, dtype=torch.float64)", "ops.mean((x + 1).astype(ms.float64), 1)"),
    ("x.unfold(2, 3, 1)", "torch_unfold_windows(x, 2, 3, 1)"),
    ("torch.empty(3, 4, **dd)", "ops.zeros((3, 4), dtype=torch_factory_dtype(dd))"),
    ("x.is_contiguous(memory_format=torch.channels_last)", "x.is_contiguous()"),
]


@pytest.mark.parametrize("before,after", PAIRS)
def test_pair(before, after):
    got = one(before).splitlines()[-1]
    assert got == f"y = {after}", got


@pytest.mark.parametrize("expr,marker", [
    ("x[:, 0].ge_(0.5)", "MS905"),                       # torch writes through the view
    ("x.type() == 'torch.FloatTensor'", "MS915"),       # torch's type name
])
def test_marked(expr, marker):
    assert f"# migrate: {marker}" in one(expr)


def test_windows_match_torch_with_gradient():
    src = ("import torch\n"
           "def f(x):\n    return (x.unfold(1, 3, 2).unfold(-1, 2, 1) ** 2).sum(-1)\n")
    code = convert_source(src).code
    assert "# migrate" not in code
    ns = {}
    exec(code, ns)
    x = np.random.RandomState(0).randn(2, 7, 5).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    ref_ns = {}
    exec(src, ref_ns)
    ref = ref_ns["f"](tx)
    ref.sum().backward()
    out = ns["f"](ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    g = ms.grad(lambda t: ns["f"](t).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_comparison_keeps_dtype_and_writes_into_the_name():
    src = "import torch\ndef f(x):\n    m = x * 1\n    m.gt_(0.1)\n    return m, (x * 2).le_(0.5)\n"
    ns, ref_ns = {}, {}
    exec(convert_source(src).code, ns)
    exec(src, ref_ns)
    x = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    for out, ref in zip(ns["f"](ms.Tensor(x)), ref_ns["f"](torch.from_numpy(x))):
        assert out.dtype == ms.float32
        np.testing.assert_array_equal(out.asnumpy(), ref.numpy())


def test_runtime_helpers():
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    assert torch_cast(x, None) is x and torch_cast(x, ms.int32).dtype == ms.int32
    assert torch_factory_dtype({"device": "cuda", "dtype": ms.float16}) == ms.float16
    assert torch_factory_dtype({"device": None}) is None
    with pytest.raises(TypeError, match=r"\['out'\] are not torch's factory keywords"):
        torch_factory_dtype({"out": None})
