"""Oracle: what the fourth first-pass sample still failed on real MindSpore 2.10 (bench/README.md
"A fourth sample"), each class with a fixture of our own."""
import json
from pathlib import Path

import pytest

from cli import main

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
