"""The converter on code it was not written for: torch's own sources.

Whatever the input, the output parses, converting it again changes nothing, and nothing raises.
(The full run over torch.nn / optim / distributions / ao.nn, 333 files, is done by hand; these
few files keep the property in the suite.)
"""
import ast
from pathlib import Path

import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ROOT = Path(torch.__file__).parent
FILES = ["nn/modules/container.py", "nn/modules/batchnorm.py", "nn/modules/linear.py",
         "nn/utils/fusion.py", "nn/modules/instancenorm.py", "optim/sgd.py"]


@pytest.mark.parametrize("rel", FILES)
def test_torch_source_converts_to_valid_idempotent_code(rel):
    path = ROOT / rel
    if not path.exists():
        pytest.skip(f"{rel} not in this torch")
    res = convert_source(path.read_text())
    assert res.error is None, res.error
    ast.parse(res.code)
    assert convert_source(res.code).code == res.code
    for c in res.changes:
        assert c.label in ("exact", "transformed", "approximate", "unsupported")
