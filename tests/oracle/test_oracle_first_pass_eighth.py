"""Oracle: the classes the eighth first-pass sample found (bench/README.md "An eighth sample"), converted with
--target mindspore, run on real MindSpore 2.10 and give what the ms_core conversion gives on ms_core, with the
same weights loaded by name (outputs and input gradients). tests/migrate/convert/test_first_pass_eighth_sample.py
checks the ms_core side against torch."""
import textwrap

import pytest

from . import test_oracle_convert as oracle_convert
from .test_oracle import ORACLE

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

MODEL = textwrap.dedent('''
    import math
    from typing import Generic, TypeVar

    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    INPUT_SHAPE = (2, 3, 16)
    ConfigT = TypeVar("ConfigT")


    def kaiser_sinc_filter1d(cutoff, half_width, kernel_size):  # alias-free-torch
        delta_f = 4 * half_width
        beta = 0.1102 * (2.285 * (kernel_size // 2 - 1) * math.pi * delta_f + 7.95 - 8.7)
        window = torch.kaiser_window(kernel_size, beta=beta, periodic=False)
        time = torch.arange(-kernel_size // 2, kernel_size // 2) + 0.5
        kernel = 2 * cutoff * window * torch.sinc(2 * cutoff * time)
        return (kernel / kernel.sum()).view(1, 1, kernel_size)


    class Base(Generic[ConfigT], nn.Module):  # curated-transformers: generic module bases
        pass


    class Net(Base[int]):
        def __init__(self):
            super().__init__()
            self.register_buffer("filter", kaiser_sinc_filter1d(0.25, 0.3, 12))
            self.conv = nn.Conv1d(3, 3, 3, padding=1)

        def forward(self, x):
            y = F.conv1d(F.pad(x, (5, 6), mode="replicate"), self.filter.expand(3, -1, -1), groups=3)
            return self.conv(y) + torch.special.i1(x) - torch.i0(x * 0.5)


    def make_model():
        return Net()
''')


def test_eighth_sample_classes_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "eighth_sample.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)
