"""Sizes given as lists. torch's pooling and convolution layers and functions take an int, a
tuple or a list for kernel_size/stride/dilation/output_size; MindSpore 2.10 takes an int or a
tuple and raises TypeError for a list (ms_core too, as MindSpore: tests/ms_core/test_conv.py). A
list display is written as a tuple, a one-element list as its element (torch reads it for every
axis); a list held by a variable stays a run-time error on both targets, not a different number."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_fourth_sample import run_both
from tests.migrate.convert.test_fixtures_numeric import copy_weights

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

POOLS = '''
class Pools(nn.Module):
    def __init__(self):
        super().__init__()
        self.adaptive = nn.AdaptiveAvgPool2d([2, 2])
        self.max = nn.MaxPool2d([2, 2])
        self.avg = nn.AvgPool2d([2, 2], stride=[1, 1])
        self.max1 = nn.MaxPool1d([2])
        self.conv = nn.Conv2d(3, 3, [3, 3], stride=[1, 1], padding=[1, 1])
        self.max3 = nn.MaxPool3d([1, 2, 2])

    def forward(self, x):
        y = self.conv(x) + F.interpolate(self.adaptive(x), size=[8, 8])
        y = F.adaptive_avg_pool2d(y, [4, 4]) + F.max_pool2d(y, [2, 2]) + F.avg_pool2d(y, [2, 2], [2, 2]) \\
            + self.max(y) + self.avg(y)[..., :4, :4]
        flat = y.flatten(2)
        z = self.max1(flat) + F.max_pool1d(flat, [2]) + F.avg_pool1d(flat, [2])
        w = F.conv2d(y, self.conv.weight, stride=[1, 1], padding=1, dilation=[1, 1])
        v = self.max3(y.unsqueeze(2))
        return y.sum(), z, w, v
'''


def test_list_displays_become_tuples_or_their_one_element():
    out = convert_source("import torch.nn as nn\nimport torch.nn.functional as F\n" + POOLS, "mindspore").code
    for text in ("nn.AdaptiveAvgPool2d((2, 2))", "nn.MaxPool2d((2, 2), stride=(2, 2))",
                 "nn.AvgPool2d((2, 2), stride=(1, 1))", "nn.MaxPool1d(2, stride=2)",
                 "nn.MaxPool3d((1, 2, 2), stride=(1, 2, 2))", "ops.adaptive_avg_pool2d(y, (4, 4))",
                 "ops.max_pool2d(y, (2, 2))", "ops.avg_pool2d(y, (2, 2), (2, 2))",
                 "ops.avg_pool1d(flat, 2, stride=2)", "stride=(1, 1), pad_mode='pad', padding=1, dilation=(1, 1))"):
        assert text in out, text
    assert "[2" not in out.replace("size=[8, 8]", "")  # (interpolate's size takes a list on MindSpore)


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_the_converted_pools_compute_what_torch_computes(target):
    out, namespace, torch_namespace = run_both(POOLS, target)
    torch.manual_seed(0)
    net, cell = torch_namespace["Pools"](), namespace["Pools"]()
    assert copy_weights(net, cell) == set()
    x = np.random.RandomState(0).randn(2, 3, 8, 8).astype(np.float32)
    want = net(torch.from_numpy(x))
    got = cell(ms.Tensor(x))
    for g, w in zip(got, want):
        # sums of 2*3*8*8 float32 values: rtol 1e-5 of the largest
        np.testing.assert_allclose(g.asnumpy(), w.detach().numpy(), rtol=1e-5, atol=1e-5)
