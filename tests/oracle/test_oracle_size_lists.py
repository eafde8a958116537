"""Oracle: torch code that gives pooling and convolution sizes as lists (torch takes them; MindSpore
2.10's layers and functions raise TypeError for a list), converted with --target mindspore, runs on
real MindSpore 2.10 and gives what the ms_core conversion gives on ms_core, with the same weights.
tests/migrate/convert/test_size_lists.py checks the ms_core side against torch."""
import textwrap

import pytest

from . import test_oracle_convert as oracle_convert
from .test_oracle import ORACLE

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

MODEL = textwrap.dedent('''
    import torch.nn as nn
    import torch.nn.functional as F

    INPUT_SHAPE = (2, 3, 8, 8)


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.adaptive = nn.AdaptiveAvgPool2d([2, 2])
            self.max = nn.MaxPool2d([2, 2])
            self.avg = nn.AvgPool2d([2, 2], stride=[1, 1])
            self.max1 = nn.MaxPool1d([2])
            self.conv = nn.Conv2d(3, 3, [3, 3], stride=[1, 1], padding=[1, 1])

        def forward(self, x):
            y = self.conv(x) + F.interpolate(self.adaptive(x), size=[8, 8])
            y = F.adaptive_avg_pool2d(y, [4, 4]) + F.max_pool2d(y, [2, 2]) + F.avg_pool2d(y, [2, 2], [2, 2]) \\
                + self.max(y) + self.avg(y)[..., :4, :4]
            flat = y.flatten(2)
            return self.max1(flat) + F.avg_pool1d(flat, [2])


    def make_model():
        return Net()
''')


def test_sizes_given_as_lists_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "size_lists.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)
