"""torch.nn.Module's private tables ``_modules``/``_parameters`` -> a Cell's ``_cells``/``_params``
(pytorchcv's DualPathSequential/SequentialConcurrent iterate ``self._modules.values()``: the
converted containers raised AttributeError)."""
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


class Concurrent(nn.Sequential):
    def forward(self, x):
        return torch.cat([m(x) for m in self._modules.values()], dim=1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.branches = Concurrent()
        self.branches.add_module("a", nn.Linear(3, 2))
        self.branches.add_module("b", nn.Linear(3, 4))

    def forward(self, x):
        return self.branches(x)


def own_parameter_count(model):
    return sum(len(m._parameters) for _, m in model.branches._modules.items())
"""


def test_module_tables_become_cell_tables():
    check("""\
        class Seq(nn.Sequential):
            def forward(self, x):
                for m in self._modules.values():
                    x = m(x)
                return x, len(self._parameters)
        """, """\
        class Seq(TorchSequential):
            def construct(self, x):
                for m in self._cells.values():
                    x = m(x)
                return x, len(self._params)
        """)


def test_module_tables_match_torch(tmp_path):
    res = convert_source(SRC)
    assert res.error is None and not res.unsupported, res.code
    cmod = _load(tmp_path, "module_tables_ms", res.code)
    tmod = __import__("types").ModuleType("module_tables_torch")
    exec(SRC, tmod.__dict__)
    t, m = tmod.Net(), cmod.Net()
    for name in ("a", "b"):
        tl, ml = getattr(t.branches, name), getattr(m.branches, name)
        ml.weight.set_data(ms.Tensor(tl.weight.detach().numpy()))
        ml.bias.set_data(ms.Tensor(tl.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(m(ms.Tensor(x)).asnumpy(), t(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    assert cmod.own_parameter_count(m) == tmod.own_parameter_count(t) == 4
