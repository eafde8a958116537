"""The torch-signature classes of the layers whose rules live in rules/layers_more.py: every
Layer proof case of those entries (tests/mappings) built through the layer class used as a value
(``make = nn.Conv3d; make(2, 3, 3, padding=1)``), so the generated TorchConv3d translates torch's
arguments at run time; outputs and gradients must equal torch's as the static conversion's do."""
import re

import pytest

from mappings import load_tables
from migrate.convert.rules import layers_more
from tests.mappings import (test_layers_activation_table, test_layers_conv_table,
                            test_layers_misc_table, test_layers_norm_table, test_layers_table)
from tests.mappings.proof import Layer, run_layer

pytest.importorskip("torch")

RULES = {name for name, value in vars(layers_more).items() if callable(value)}
TABLES = load_tables()
CASES = [c for m in (test_layers_table, test_layers_conv_table, test_layers_activation_table,
                     test_layers_norm_table, test_layers_misc_table) for c in m.CASES
         if isinstance(c, Layer) and TABLES[c.api].rule in RULES
         and re.fullmatch(r"nn\.\w+\(.*\)", c.ctor, re.S)]


def _through_value(case: Layer) -> Layer:
    name, args = re.fullmatch(r"(nn\.\w+)\((.*)\)", case.ctor, re.S).groups()
    return Layer(case.api, f"(lambda make: make({args}))({name})", case.input, case.train,
                 case.grad, case.constant, case.arrays, case.rtol, case.atol)


def test_every_rule_of_layers_more_with_a_layer_case_is_covered():
    covered = {TABLES[c.api].rule for c in CASES}
    assert {"conv_transpose1d", "conv3d", "conv_transpose3d", "local_response_norm",
            "rrelu_inference", "bilinear", "upsampling_mode", "implicit_softmax_dim",
            "upsample", "dropout2d_any_rank"} <= covered, covered


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.ctor)
def test_layer_built_through_its_torch_signature_class(case):
    run_layer(_through_value(case))
