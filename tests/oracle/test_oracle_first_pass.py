"""Oracle: the first-pass classes (bench/README.md "First pass"), converted with --target
mindspore, run on real MindSpore 2.10 and give what the ms_core conversion gives on ms_core, with
the same weights (outputs and input gradients). tests/fixtures/imports/packages/firstpasspkg checks
the ms_core side against torch."""
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
    from torch.hub import _get_torch_home
    try:
        import torch.fft as new_fft
    except ImportError:
        new_fft = None

    INPUT_SHAPE = (2, 3, 12)
    DATA_ROOT = _get_torch_home()
    torch._C._log_api_usage_once("first_pass")


    def parametrize(module):
        return torch.nn.utils.weight_norm(module)


    torch.fx.wrap("parametrize")


    class Smoother(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("kernel", torch.full((4, 1, 3), 1.0 / 3, dtype=torch.float64))

        def forward(self, x):
            return F.conv1d(x, self.kernel.repeat(1, 1, 1), padding=1, groups=4)


    class Head(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)

        def forward(self, x):
            return self.fc(x)


    HEADS = {"linear": Head}


    class Net(nn.Module):
        def __init__(self, pad_mode="reflect"):
            super().__init__()
            self.conv = parametrize(nn.Conv1d(3, 4, 3, dilation=2))
            assert isinstance(self.conv, nn.modules.conv._ConvNd)
            self.pad_mode = pad_mode
            self.pe = nn.ModuleList([nn.Embedding(1, 4) for _ in range(2)])
            corners = [nn.Embedding(1, 4), nn.Embedding(1, 4)]
            self.corners = nn.ModuleList(corners)
            self.attn = nn.MultiheadAttention(4, 2, batch_first=True)
            self.logit_scale = nn.Parameter(torch.ones([]) * 2.0)
            self.pool_padding = [1, 1]
            self.head = HEADS["linear"](4)

        def forward(self, x):
            if x.device.type == "mps":
                x = x.contiguous()
            total = (self.conv.kernel_size[0] - 1) * self.conv.dilation[0]
            x = F.pad(x, (total, 0), self.pad_mode, 0.0)
            h = Smoother().to(x)(self.conv(x)).transpose(1, 2) + self.pe[1].weight
            out, _ = self.attn(h, h, h, need_weights=False)
            if new_fft is not None:  # a smoothing of the time axis through its spectrum
                out = new_fft.irfft(new_fft.rfft(out, dim=1) * 0.5, out.shape[1], dim=1)
            w = out.transpose(1, 2).contiguous()  # pairs of neighbouring steps, through the strides
            strides = list(w.stride())
            pairs = w.as_strided([*w.shape[:-1], w.shape[-1] - 1, 2], strides[:-1] + [1, 1])
            out = out[:, 1:] + pairs.sum(-1).transpose(1, 2)
            out = out.masked_fill(out > 1.0, 1) + F.avg_pool2d(out.unsqueeze(1), 3, 1, self.pool_padding).squeeze(1)
            out = self.head.forward(out)
            return torch.roll(out, shifts=(1, -1), dims=(1, 2)) * self.logit_scale + self.corners[1].weight


    def make_model():
        return Net()
''')


def test_first_pass_classes_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "first_pass.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)
