"""Oracle: what the fourth first-pass sample still failed on real MindSpore 2.10 (bench/README.md
"A fourth sample"), each class with a fixture of our own."""
import json
import textwrap
from pathlib import Path

import pytest

from cli import main

from . import test_oracle_convert as oracle_convert
from .test_oracle import ORACLE

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

PACKAGES = Path(__file__).parents[1] / "fixtures" / "check_packages"
LAYER_CLASSES = ("layerzoo.blocks:Net(nn.Conv2d, conv_bias=True, norm_op=nn.BatchNorm2d, "
                 "norm_op_kwargs={'eps': 1e-3, 'momentum': 0.2}, nonlin=nn.LeakyReLU, "
                 "nonlin_kwargs={'negative_slope': 0.1, 'inplace': True})")


def test_a_model_expression_naming_torch_classes_builds_their_conversion_on_mindspore(tmp_path):
    """The MindSpore side evaluates the expression converted for MindSpore (the runtime's
    torch-signature classes), as the ms_core side does: eval mode matches torch there too."""
    report = tmp_path / "r.json"
    assert main(["check", "--model", LAYER_CLASSES, "--root", str(PACKAGES), "--input-shape", "2,1,8,8",
                 "--mode", "eval", "--no-cache", "--ms-python", ORACLE, "--report", str(report), "-q"]) == 0
    assert json.loads(report.read_text())["passed"]


DICTS_IN_A_LIST = textwrap.dedent('''
    import torch
    import torch.nn as nn

    INPUT_SHAPE = (2, 5, 4)


    class Net(nn.Module):  # rtdl's FTTransformer: a ModuleList of ModuleDicts (one holding a Sequential)
        def __init__(self, d=4, n=2):
            super().__init__()
            self.blocks = nn.ModuleList([
                nn.ModuleDict({"norm": nn.LayerNorm(d), "ffn": nn.Sequential(nn.Linear(d, 2 * d), nn.ReLU(),
                                                                             nn.Linear(2 * d, d))})
                for _ in range(n)])
            self.heads = nn.ModuleList((nn.ModuleDict({"lin": nn.Linear(d, d)}),
                                        nn.ModuleDict({"lin": nn.Linear(d, 3)})))

        def forward(self, x):
            for block in self.blocks:
                x = x + block["ffn"](block["norm"](x))
            for block in self.heads:
                x = block["lin"](x)
            return x


    def make_model():
        return Net()
''')


def test_module_dicts_inside_a_module_list_build_and_run_on_mindspore(tmp_path):
    """MindSpore 2.10's CellList refuses a CellDict when built: the runtime's TorchModuleList."""
    fixture = tmp_path / "dicts_in_a_list.py"
    fixture.write_text(DICTS_IN_A_LIST)
    work = tmp_path / "work"
    work.mkdir()
    oracle_convert.test_converted_fixture_runs_the_same_on_mindspore(fixture, work)


def test_a_block_named_after_a_dropout_runs_its_own_forward_on_mindspore(tmp_path):
    """nnU-Net's ResNet18_CIFAR in training mode: the MindSpore side replaced the construct of
    every cell whose class name held "Dropout" (ConvDropoutNormReLU, a convolution block) by the
    mask replay, so the stem passed its input through (a 16x16 against 8x8 shape clash)."""
    report = tmp_path / "r.json"
    assert main(["check", "--model", "layerzoo.blocks:DropNet()", "--root", str(PACKAGES), "--input-shape",
                 "2,1,8,8", "--mode", "train", "--no-cache", "--ms-python", ORACLE, "--report", str(report),
                 "-q"]) == 0
    assert json.loads(report.read_text())["passed"]
