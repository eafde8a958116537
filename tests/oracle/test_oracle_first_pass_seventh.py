"""Oracle: the classes the seventh first-pass sample found (bench/README.md "A seventh sample"),
converted with --target mindspore, run on real MindSpore 2.10 and give what the ms_core conversion
gives on ms_core, with the same weights loaded by name (outputs and input gradients); the FFT filter
against torch, forward only. tests/migrate/convert/test_first_pass_seventh_sample.py checks the ms_core
side against torch."""
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

    INPUT_SHAPE = (2, 5)


    def make_table(n, d):  # torchkge's init_embedding: an initializer on weight.data
        table = nn.Embedding(n, d)
        nn.init.xavier_uniform_(table.weight.data)
        return table


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.ent = make_table(6, 4)
            self.tables = nn.ModuleDict({k: nn.Embedding(6, 4) for k in "ab"})
            for t in self.tables.values():  # deepctr-torch: a ModuleDict built by a comprehension
                nn.init.normal_(t.weight, mean=0, std=0.1)
                t.weight.data[0].zero_()  # mambapy's Jamba: the padding row (2.10 has no CPU InplaceZero)
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            idx = (x.abs() * 3).long() % 6
            lengths = idx.sum(1) >> 1  # squeezeformer: a tensor's bit shift
            h = self.ent(idx) + self.tables["b"](idx)
            return self.fc(h).sum(1) * lengths.unsqueeze(1).float()


    def make_model():
        return Net()
''')


def test_seventh_sample_classes_run_the_same_on_mindspore(tmp_path):
    fixture = tmp_path / "seventh_sample.py"
    fixture.write_text(MODEL)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)


def test_a_name_assigned_an_fft_multiplies_on_mindspore_as_torch_computes_it(tmp_path):
    """piq's FSIM: ``imagefft = torch.fft.fft2(x)``, then ``imagefft * filters``."""
    import numpy as np
    import torch

    from migrate import convert_source
    from tests.migrate.convert.test_first_pass_fourth_sample import HEAD
    from tests.migrate.convert.test_first_pass_seventh_sample import SPECTRAL_FILTER

    from .test_oracle_first_pass_left import run_on_mindspore
    from .test_oracle_first_pass_sixth import FORWARD_DRIVER

    rs = np.random.RandomState(0)
    x, filters = rs.randn(2, 4, 6).astype(np.float32), rs.rand(4, 6).astype(np.float32)
    torch_namespace = {}
    exec(HEAD + SPECTRAL_FILTER, torch_namespace)  # noqa: S102
    want = torch_namespace["filtered"](torch.from_numpy(x), torch.from_numpy(filters))
    code = convert_source(HEAD + SPECTRAL_FILTER, target="mindspore").code
    got = run_on_mindspore(FORWARD_DRIVER, {"code": code, "name": "filtered", "inputs": [x.tolist(), filters.tolist()]},
                           tmp_path)
    for g, w in zip(got["outputs"], want):
        np.testing.assert_allclose(np.array(g, np.float32), w.numpy(), rtol=1e-5, atol=1e-5)
