"""Oracle: the classes the fourth first-pass sample found (bench/README.md "A fourth sample"),
converted with --target mindspore, run on real MindSpore 2.10 and give what the ms_core conversion
gives on ms_core, with the same weights (outputs and input gradients).
tests/migrate/convert/test_first_pass_fourth_sample.py checks the ms_core side against torch."""
import textwrap

import pytest

from . import test_oracle_convert as oracle_convert
from .test_oracle import ORACLE

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

MODEL = textwrap.dedent('''
    import sys
    import torch
    import torch.fft
    import torch.nn as nn
    import torch.nn.functional as F

    INPUT_SHAPE = (2, 3, 6, 8)

    if "torch.fft" not in sys.modules:  # nnAudio's check that torch.fft was imported
        raise RuntimeError("torch.fft module available but not imported")


    def pad_layer(kind):
        return nn.ReflectionPad2d if kind == "reflect" else nn.ZeroPad2d


    def pool_op(kind):
        return nn.AvgPool2d if kind == "avg" else nn.MaxPool2d


    class Net(nn.Module):
        def __init__(self, window="hann_window"):
            super().__init__()
            self.pad = pad_layer("reflect")([1, 2, 0, 1])  # antialiased-cnns' BlurPool: a list of paddings
            self.zero = nn.ZeroPad2d([1, 0, 1, 0])
            self.register_buffer("window", getattr(torch, window)(8))  # auraloss: a window by its name
            self.proj = nn.Linear(8, 5)
            self.pool = pool_op("avg")([1, 2], [1, 1])  # nnU-Net: a pool class given lists of sizes

        def forward(self, x):
            if torch._C._is_tracing():  # asteroid-filterbanks' scripting helper
                return x
            h = self.zero(self.pad(x))[..., :6, :8] * self.window
            mask = h.mean(-1) > 0  # normflows' spline: the rows a 2-D mask selects, then ':'
            rows = self.proj(h.reshape(2, 3 * 6, 8)[mask.reshape(2, 18), :])
            phase = torch.angle(h - 0.1)  # auraloss: the phase (here of a real tensor: 0 or pi)
            return h + rows.sum() * 0.1 + self.pool(F.pad(h, (0, 1))) + phase


    def make_model():
        return Net()
''')


def test_fourth_sample_classes_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "fourth_sample.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)
