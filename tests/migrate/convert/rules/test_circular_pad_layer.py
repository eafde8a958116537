"""MS414: nn.CircularPad1d/2d/3d become the generated CircularPadTorch (ops.pad, mode='circular')
and give torch's values, with int and tuple paddings, also when the class is passed as a value."""
import numpy as np
import pytest
import torch

import ms_core as ms
from migrate import convert_source
from tests.migrate.convert.helpers import both_sides

SRC = '''import torch
import torch.nn as nn


class Pads(nn.Module):
    def __init__(self, p1, p2, p3, pad3=nn.CircularPad3d):
        super().__init__()
        self.one = nn.CircularPad1d(p1)
        self.two = nn.CircularPad2d(padding=p2)
        self.three = pad3(p3)

    def forward(self, x3, x4, x5):
        return self.one(x3), self.two(x4), self.three(x5)
'''


@pytest.mark.parametrize("p1, p2, p3", [(1, 2, 1), ((1, 2), (2, 0, 1, 3), (1, 0, 2, 1, 0, 1))])
def test_circular_pads_give_torch_values(p1, p2, p3):
    tns, cns = both_sides(SRC, "CircularPadTorch(")
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 4, 5))]
    want = [t.numpy() for t in tns["Pads"](p1, p2, p3)(*map(torch.from_numpy, xs))]
    got = [t.asnumpy() for t in cns["Pads"](p1, p2, p3)(*map(ms.Tensor, xs))]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)  # a copy of values: exact


def test_a_wrong_padding_length_fails_when_built():
    res = convert_source("import torch.nn as nn\npad = nn.CircularPad2d((1, 2, 3))\n")
    with pytest.raises(ValueError, match=r"For 'CircularPad2d', the 'padding' must be an int or a tuple of 4"):
        exec(res.code, {})
