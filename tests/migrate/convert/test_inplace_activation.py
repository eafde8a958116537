"""Activations torch computes in place (``nn.SiLU(inplace=True)``, ``F.relu(x, inplace=True)``):
the input name the function reads elsewhere is bound to the result (spandrel's SPAN block read its
pre-activation tensor after ``self.act1(out1)``; the conversion returned the raw values, 6e-4 off)."""
import numpy as np
import pytest

from tests.migrate.convert.helpers import check
from tests.migrate.convert.torchless import load_converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def test_a_layer_built_in_place_binds_its_input():
    check("""\
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.SiLU(inplace=True)
                self.plain = nn.SiLU()

            def forward(self, x):
                h = self.act(x)
                g = self.plain(h)
                return x + h + g
        """, """\
        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.act = nn.SiLU()
                self.plain = nn.SiLU()

            def construct(self, x):
                h = x = self.act(x)
                g = self.plain(h)
                return x + h + g
        """)


def test_an_input_read_nowhere_else_is_left_alone():
    check("""\
        def f(x):
            y = F.relu(x, inplace=True)
            x = F.relu(x, inplace=True)
            return y
        """, """\
        def f(x):
            y = x = ops.relu(x)
            x = ops.relu(x)
            return y
        """)
    check("""\
        def f(t):
            y = F.leaky_relu(t, 0.1, inplace=True)
            return y
        """, """\
        def f(t):
            y = ops.leaky_relu(t, alpha=0.1)
            return y
        """)


def test_a_discarded_in_place_call_rebinds_its_input():
    check("""\
        def f(x):
            F.relu(x, inplace=True)
            return x
        """, """\
        def f(x):
            x = ops.relu(x)
            return x
        """)


_SPAN_LIKE = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1)
        self.c2 = nn.Conv2d(c, c, 3, padding=1)
        self.act1 = nn.SiLU(inplace=True)
        self.act2 = nn.LeakyReLU(0.1, inplace=True)

    def forward(self, x):
        out1 = self.c1(x)
        out1_act = self.act1(out1)
        out2 = self.c2(out1_act)
        self.act2(out2)
        h = F.relu(x, inplace=True)
        return out1 + out2 + h + x
'''


def test_in_place_activations_compute_what_torch_computes(tmp_path):
    mod, _ = load_converted(tmp_path, "inplace_activation_block", _SPAN_LIKE)
    ns = {}
    exec(compile(_SPAN_LIKE, "torch_block", "exec"), ns)
    torch.manual_seed(0)
    tnet = ns["Block"](3)
    net = mod.Block(3)
    for (name, p), q in zip(tnet.named_parameters(), net.trainable_params()):
        q.set_data(ms.Tensor(p.detach().numpy().copy()))
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    want = tnet(torch.tensor(x)).detach().numpy()
    got = net(ms.Tensor(x))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)  # (two 3x3 convolutions)
