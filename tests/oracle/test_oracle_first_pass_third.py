"""Oracle: the classes the third first-pass sample found (bench/README.md "A third sample"),
converted with --target mindspore, run on real MindSpore 2.10 and give what the ms_core conversion
gives on ms_core, with the same weights (outputs and input gradients).
tests/migrate/convert/test_first_pass_third_sample.py checks the ms_core side against torch."""
import textwrap

import pytest

from . import test_oracle_convert as oracle_convert
from .test_oracle import ORACLE

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

MODEL = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    INPUT_SHAPE = (2, 6, 8)


    def shift(t, amount):
        return F.pad(t, (0, 0, amount, -amount), value=0.)


    class Net(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(dim, dim), nn.LayerNorm(dim), nn.GELU(), nn.LayerNorm(dim))
            nn.init.ones_(self.net[-1].weight)
            nn.init.constant_(self.net[1].bias, 0.25)
            self.register_module("gate", nn.Linear(dim, dim))
            self.constraint = nn.Softplus(beta=2.0, threshold=1.0)

        def forward(self, x):
            for _ in range(3):  # MindSpore 2.10's ops.pad goes wrong on a crop it has run before
                x = self.net(x)
                a, b, c = x.split(3, dim=-1)
                x = torch.cat([shift(a, 1), shift(b, -1), c], dim=-1) + self.net[1].bias
            scores = x @ x.transpose(1, 2)
            i, j = torch.triu_indices(scores.shape[-1], scores.shape[-1], 1)
            scores[:, i, j] = -torch.finfo(scores.dtype).max
            out = scores.softmax(dim=-1) @ self.constraint(self.gate(x))
            keep = torch.ones(out.shape[:2], dtype=torch.uint8)  # a ByteTensor mask, as pytorch-crf's
            keep[:, -1] = 0
            return torch.where(keep.unsqueeze(-1), out, -out)


    def make_model():
        return Net()
''')


def test_third_sample_classes_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "third_sample.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)
