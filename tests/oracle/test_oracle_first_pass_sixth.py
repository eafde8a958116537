"""Oracle: the classes the sixth first-pass sample found (bench/README.md "A sixth sample"),
converted with --target mindspore, run on real MindSpore 2.10 and give what the ms_core conversion
gives on ms_core, with the same weights loaded by name (outputs and input gradients).
tests/migrate/convert/test_first_pass_sixth_sample.py checks the ms_core side against torch."""
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

    INPUT_SHAPE = (2, 3, 4, 4)


    class Block(nn.Module):
        def __init__(self, units):
            super().__init__()
            self.fc1 = nn.Linear(units, units)

        def forward(self, x):
            return F.relu(self.fc1(x))


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 64)
            # BigGAN: a spectral-normalised convolution
            self.conv = nn.utils.spectral_norm(nn.Conv2d(3, 4, 3, padding=1))
            # N-BEATS: blocks in a plain list, their parameters gathered into a ParameterList
            self.blocks = []
            params = []
            for _ in range(2):
                block = Block(64)
                params.extend(block.parameters())
                self.blocks.append(block)
            self.params = nn.ParameterList(params)
            # vocos: layer scales in a ParameterList
            self.scale = nn.ParameterList([nn.Parameter(torch.ones(64)) for _ in range(2)])
            self.apply(self.init_weights)

        def init_weights(self, module):  # pytorch-pretrained-bert: classes naming the weight differently
            if isinstance(module, (nn.Linear, nn.Embedding)):
                module.weight.data.normal_(mean=0.0, std=0.02)

        def forward(self, x):
            # BigGAN's GenBlock: an int scale_factor (2.10's interpolate takes floats only)
            up = F.interpolate(x, scale_factor=2, mode='nearest')
            h = self.conv(F.avg_pool2d(up, 2) * 0.5 + x).flatten(1) + self.emb.weight.sum(0)
            for block, scale in zip(self.blocks, self.scale):
                h = h + scale * block(h)
            return h


    def make_model():
        return Net()
''')


def test_sixth_sample_classes_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "sixth_sample.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)


FORWARD_DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindspore as ms
    case = json.load(open(sys.argv[1]))
    ns = {}
    exec(compile(case["code"], "<converted>", "exec"), ns)
    args = [ms.Tensor(np.array(a, dtype=np.float32)) for a in case["inputs"]]
    outs = ns[case["name"]](*args)
    json.dump({"outputs": [o.asnumpy().tolist() for o in outs], "dtypes": [o.asnumpy().dtype.name for o in outs]},
              open(sys.argv[2], "w"))
""")


def test_complex_arithmetic_runs_on_mindspore_as_torch_computes_it(tmp_path):
    """vocos' ISTFTHead: mag * (cos(p) + 1j * sin(p)); MindSpore 2.10 refuses a Python complex beside a
    tensor and a real tensor times a complex one (forward only: 2.10 does not differentiate a complex Mul)."""
    import numpy as np
    import torch

    from migrate import convert_source
    from tests.migrate.convert.test_first_pass_fourth_sample import HEAD
    from tests.migrate.convert.test_first_pass_sixth_sample import SPECTRUM

    from .test_oracle_first_pass_left import run_on_mindspore

    rs = np.random.RandomState(0)
    mag, p = rs.rand(2, 5).astype(np.float32), rs.randn(2, 5).astype(np.float32)
    torch_namespace = {}
    exec(HEAD + SPECTRUM, torch_namespace)  # noqa: S102
    want = torch_namespace["spectrum"](torch.from_numpy(mag), torch.from_numpy(p))
    code = convert_source(HEAD + SPECTRUM, target="mindspore").code
    got = run_on_mindspore(FORWARD_DRIVER, {"code": code, "name": "spectrum", "inputs": [mag.tolist(), p.tolist()]},
                           tmp_path)
    assert got["dtypes"] == ["float32"] * 3
    for g, w in zip(got["outputs"], want):
        np.testing.assert_allclose(np.array(g, np.float32), w.numpy(), rtol=1e-5, atol=1e-6)
