"""Oracle: torch.stft / torch.istft converted with --target mindspore (the runtime's torch_stft and
torch_istft: MindSpore 2.10's ops.stft returns complex128 and it has no istft) run on real
MindSpore 2.10 and give what the ms_core conversion gives on ms_core, outputs and input gradients;
tests/migrate/runtime/test_functional.py checks ms_core against torch."""
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

    INPUT_SHAPE = (2, 64)


    class Spectral(nn.Module):
        """A learnt gain per frequency on the spectrogram (real and imaginary parts alike)."""

        def __init__(self, n_fft=16):
            super().__init__()
            self.n_fft = n_fft
            self.gain = nn.Linear(n_fft // 2 + 1, n_fft // 2 + 1)

        def forward(self, x):
            window = torch.hann_window(self.n_fft)
            z = torch.stft(x, self.n_fft, self.n_fft // 4, window=window, normalized=True, return_complex=True)
            parts = torch.view_as_real(z).transpose(1, 3)
            z = torch.view_as_complex(self.gain(parts).transpose(1, 3).contiguous())
            return torch.istft(z, self.n_fft, self.n_fft // 4, window=window, normalized=True, length=x.shape[-1])


    def make_model():
        return Spectral()
''')


def test_stft_and_istft_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "spectral.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)
