"""Whole model files in tests/fixtures/convert convert cleanly.

Each fixture defines its model classes, ``make_model()`` and ``INPUT_SHAPE``, so the converted
module can later be run on ms_core and compared with torch (see the checker).
"""
import ast
import re
import importlib.util

import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import FIXTURE_ROOT

FIXTURES = sorted((FIXTURE_ROOT / "convert").glob("*.py"))
FIXTURES = [p for p in FIXTURES if not p.name.startswith("_")]


def test_fixture_set_is_complete():
    names = {p.stem for p in FIXTURES}
    assert {"lenet", "mlp", "vgg", "resnet", "mobilenetv2"} <= names


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_converts_without_markers(path):
    src = path.read_text()
    res = convert_source(src)
    assert res.error is None
    assert "# migrate:" not in res.code, [c for c in res.changes if c.label == "unsupported"]
    assert res.unsupported == 0
    tree = ast.parse(res.code)  # valid Python
    leftovers = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in ("torch", "F")]
    assert not leftovers and not re.search(r"^\s*import torch\b", res.code, re.M)
    assert not re.search(r"^\s*from torch\b", res.code, re.M)
    assert "def make_model" in res.code and "INPUT_SHAPE" in res.code
    # a Cell: MindSpore's, or a torch-signature class of the runtime
    assert re.search(r"^class \w+\((nn\.Cell|nn\.SequentialCell|Torch\w+)\)", res.code, re.M)
    assert "def forward(self" not in res.code  # (an autograd.Function keeps its static forward(ctx, ...))
    # converting the output again changes nothing
    again = convert_source(res.code)
    assert again.code == res.code and not again.changes


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_source_is_runnable_torch(path):
    """The inputs themselves are torch model files that work: the module imports, make_model()
    builds an nn.Module with parameters, and a forward pass on an INPUT_SHAPE batch gives one
    finite row per sample."""
    torch = pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location(f"torch_fixture_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    model = module.make_model()
    assert isinstance(model, torch.nn.Module)
    assert sum(p.numel() for p in model.parameters()) > 0
    model.eval()
    with torch.no_grad():
        out = model(torch.randn(*module.INPUT_SHAPE))
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    assert out.shape[0] == module.INPUT_SHAPE[0] and bool(torch.isfinite(out).all())


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_change_lines_point_at_their_code(path):
    """Each call rewrite's line is the first line of the statement holding it (statements span
    at most a dozen lines in the fixtures); inside a rewritten autograd.Function it is the class's."""
    src = path.read_text().splitlines()
    res = convert_source(path.read_text())
    checked = 0
    for c in res.changes:
        head = c.before.split("(")[0].split(".")[-1]
        if c.label != "unsupported" and "(" in c.before and head and not c.before.startswith(("def ", "import")):
            window = "\n".join(src[c.line - 1:c.line + 12])
            assert head in window, (c, src[c.line - 1])
            checked += 1
    assert checked > 3
