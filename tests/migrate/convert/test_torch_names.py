"""torch.nn classes named by their torch.nn.modules paths resolve to the torch.nn names the tables
use (without importing torch); private and non-class names stay as written."""
import pytest

from migrate import convert_source
from migrate.convert.torch_names import public_name


@pytest.mark.parametrize("qual,want", [
    ("torch.nn.modules.linear.Linear", "torch.nn.Linear"),
    ("torch.nn.modules.Linear", "torch.nn.Linear"),
    ("torch.nn.modules.activation.MultiheadAttention", "torch.nn.MultiheadAttention"),
    ("torch.nn.modules.loss._Loss", "torch.nn.modules.loss._Loss"),
    ("torch.nn.modules.utils._pair", "torch.nn.modules.utils._pair"),
    ("torch.nn.modules.linear.NoSuchLayer", "torch.nn.modules.linear.NoSuchLayer"),
    ("torch.nn.Linear", "torch.nn.Linear"),
])
def test_public_name(qual, want):
    assert public_name(qual) == want


def test_module_paths_convert_like_torch_nn_names():
    src = ("import torch\nfrom torch.nn.modules.linear import Linear\n"
           "a = torch.nn.modules.linear.Linear(3, 2)\nb = Linear(3, 2)\nc = torch.nn.Linear(3, 2)\n")
    code = convert_source(src).code
    lines = [ln.split(" = ", 1)[1] for ln in code.splitlines() if ln[:4] in ("a = ", "b = ", "c = ")]
    assert len(lines) == 3 and lines[0] == lines[1] == lines[2] and lines[0].startswith("nn.Dense(3, 2"), code


def test_torch_six_names_become_what_they_re_exported():
    """torch._six (gone since torch 2.0; old training utilities still import it) re-exported
    math's constants and the builtin types: the converted code names those."""
    src = ("from torch._six import inf, string_classes, int_classes\nimport torch\n\n"
           "def f(x, n):\n    if n == inf:\n        return isinstance(x, string_classes)\n"
           "    if isinstance(n, int_classes):\n        return n\n"
           "    return torch._six.nan\n")
    code = convert_source(src).code
    assert "if n == math.inf:" in code and "isinstance(x, str)" in code and "return math.nan" in code, code
    assert "isinstance(n, int)" in code, code
    assert "_six" not in code and "MS9" not in code, code
    namespace = {}
    exec(code, namespace)
    assert namespace["f"]("a", float("inf")) is True and namespace["f"](1, 2) == 2
    assert namespace["f"](1, 2.5) != namespace["f"](1, 2.5)  # nan
