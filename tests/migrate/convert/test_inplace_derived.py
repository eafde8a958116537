"""In-place methods with no table entry of their own (``x.triu_(1)``, found in openai/whisper's
``torch.empty(n, n).fill_(-inf).triu_(1)``): derived from the plain ``Tensor.op`` entry and written
back with ``copy_`` (MS170), or computed out of place on a tensor the expression makes; and
``fill_``/``zero_`` on such a new tensor are ``ops.full_like``/``ops.zeros_like``.
"""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import check
from tests.migrate.convert.test_zoo_idioms import _load

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


# ---- before/after ------------------------------------------------------------------------------
def test_derived_in_place_on_an_argument():
    check("""\
        def f(x):
            x.triu_(1)
            return x.tril_(-1)
        """, """\
        def f(x):
            x.copy_(x.copy().triu(1))
            return x.copy_(x.copy().tril(-1))
        """)


def test_fill_and_triu_on_a_new_tensor():
    check("""\
        def causal_mask(n):
            return torch.empty(n, n).fill_(-np.inf).triu_(1)
        """, """\
        def causal_mask(n):
            return ops.full_like(ops.zeros((n, n)), -np.inf).triu(1)
        """)


def test_zero_on_a_new_tensor():
    check("""\
        def f(n):
            return torch.ones(n, dtype=torch.float64).zero_()
        """, """\
        def f(n):
            return ops.zeros_like(ops.ones(n, dtype=ms.float64))
        """)


def test_a_method_of_a_cell_is_not_derived():
    """``self.head.triu_()``-like calls on a known sub-cell stay as written."""
    check("""\
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU()

            def forward(self, x):
                act = self.act
                return act.triu_(x)
        """, """\
        class M(nn.Cell):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU()

            def construct(self, x):
                act = self.act
                return act.triu_(x)
        """)


# ---- numbers -----------------------------------------------------------------------------------
SRC = """\
import numpy as np
import torch

def causal_mask(n):
    return torch.empty(n, n).fill_(-np.inf).triu_(1)

def band(x, k):
    x.triu_(-k)
    x.tril_(k)
    return x

def cleared(x):
    y = x.clone()
    return y.zero_(), torch.ones(3).zero_()
"""


def test_derived_in_place_matches_torch(tmp_path):
    res = convert_source(SRC)
    assert res.error is None and not res.unsupported, res.code
    cmod = _load(tmp_path, "inplace_derived_ms", res.code)
    tmod = _load_torch(tmp_path)
    np.testing.assert_array_equal(cmod.causal_mask(5).asnumpy(), tmod.causal_mask(5).numpy())
    x = np.random.default_rng(0).standard_normal((6, 6)).astype(np.float32)
    xm, xt = ms.Tensor(x), torch.tensor(x)
    out_m, out_t = cmod.band(xm, 1), tmod.band(xt, 1)
    np.testing.assert_array_equal(xm.asnumpy(), xt.numpy())  # written into the argument
    np.testing.assert_array_equal(out_m.asnumpy(), out_t.numpy())
    for a, b in zip(cmod.cleared(ms.Tensor(x)), tmod.cleared(torch.tensor(x))):
        assert a.dtype == ms.float32
        np.testing.assert_array_equal(a.asnumpy(), b.numpy())


def _load_torch(tmp_path):
    import importlib.util
    path = tmp_path / "inplace_derived_torch.py"
    path.write_text(SRC)
    spec = importlib.util.spec_from_file_location("inplace_derived_torch", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
