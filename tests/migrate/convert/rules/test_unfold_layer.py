"""MS413: nn.Unfold becomes the generated UnfoldTorchLayout (ops.unfold, torch's layout) -- called
directly, inside a Sequential and passed as a class -- and gives torch's values."""
import numpy as np
import pytest
import torch

import ms_core as ms
from tests.migrate.convert.helpers import both_sides

SRC = '''import torch
import torch.nn as nn


class Patches(nn.Module):
    def __init__(self, k, s, layer=nn.Unfold):
        super().__init__()
        self.unfold = nn.Unfold(kernel_size=k, stride=s, padding=s // 2)
        self.seq = nn.Sequential(nn.Unfold(2, stride=2), nn.Identity())
        self.other = layer(k, dilation=2)

    def forward(self, x):
        return self.unfold(x), self.seq(x), self.other(x)
'''


@pytest.mark.parametrize("k, s", [(3, 2), ((2, 3), 1), (4, 4)])
def test_unfold_layers_give_torch_values(k, s):
    tns, cns = both_sides(SRC, 'UnfoldTorchLayout(')
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 10)).astype(np.float32)
    want = [t.numpy() for t in tns["Patches"](k, s)(torch.from_numpy(x))]
    got = [t.asnumpy() for t in cns["Patches"](k, s)(ms.Tensor(x))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)  # a gather: exact
