"""A parameter made with ``nn.Parameter(...)`` is a tensor, not a module (found in openai/CLIP:
``self.class_embedding = nn.Parameter(...)`` then ``self.class_embedding.to(x.dtype)`` was read
as Module.to(dtype) and marked MS902)."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import check
from tests.migrate.convert.test_zoo_idioms import _load

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SRC = """\
import torch
from torch import nn

class V(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.class_embedding = nn.Parameter(width ** -0.5 * torch.randn(width))
        self.pos = torch.nn.Parameter(torch.randn(3, width, dtype=torch.float64))

    def forward(self, x):
        x = x + self.class_embedding.to(x.dtype)
        return x + self.pos.to(x.dtype)
"""


def test_parameter_attribute_to_dtype_is_a_cast():
    check("""\
        class V(nn.Module):
            def __init__(self, w):
                super().__init__()
                self.e = nn.Parameter(torch.randn(w))

            def forward(self, x):
                return x + self.e.to(x.dtype)
        """, """\
        class V(nn.Cell):
            def __init__(self, w):
                super().__init__()
                self.e = ms.Parameter(ops.randn(w))

            def construct(self, x):
                return x + self.e.astype(x.dtype)
        """)


def test_parameter_cast_matches_torch(tmp_path):
    res = convert_source(SRC)
    assert res.error is None and not res.unsupported, res.code
    cmod = _load(tmp_path, "param_receivers_ms", res.code)
    torch.manual_seed(0)
    tm = __import__("types").ModuleType("param_receivers_torch")
    exec(SRC, tm.__dict__)
    t = tm.V(4)
    m = cmod.V(4)
    m.class_embedding.set_data(ms.Tensor(t.class_embedding.detach().numpy()))
    m.pos.set_data(ms.Tensor(t.pos.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    out = m(ms.Tensor(x))
    ref = t(torch.tensor(x))
    assert out.dtype == ms.float32  # the float64 parameter is cast to the input's dtype, as in torch
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
