"""Imports, aliases, labels, markers, validity and idempotency of the converter."""
import textwrap

import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import after, body, check


def test_no_torch_is_a_no_op():
    src = "import os\nos.rename('a', 'b')\nx = nn.Linear(2, 3)\n"
    res = convert_source(src)
    assert res.code == src and res.changes == []


def test_imports_are_replaced_and_comments_kept():
    src = "# header comment\nimport torch  # the framework\nimport torch.nn as nn\n\nfc = nn.Linear(2, 3, bias=False)\n"
    res = convert_source(src)
    assert "import torch" not in res.code
    assert res.code.startswith("# header comment\nimport math\nimport ms_core as ms\nfrom ms_core import nn\n")
    assert "fc = nn.Dense(2, 3, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))" in res.code


@pytest.mark.parametrize("imports,ref", [
    ("import torch.nn as nn", "nn.Dropout"),
    ("from torch import nn", "nn.Dropout"),
    ("import torch", "torch.nn.Dropout"),
    ("import torch as T", "T.nn.Dropout"),
    ("from torch.nn import Dropout", "Dropout"),
    ("from torch.nn import Dropout as Drop", "Drop"),
])
def test_aliases_resolve_to_the_same_rewrite(imports, ref):
    res = convert_source(f"{imports}\nd = {ref}(p=0.25)\n")
    assert res.code.splitlines()[-1] == "d = nn.Dropout(keep_prob=0.75)"
    assert "torch" not in res.code


def test_target_mindspore_is_one_substitution():
    res = convert_source("import torch.nn as nn\nimport torch\nr = nn.ReLU()\nt = torch.zeros(2, 3)\n",
                         target="mindspore")
    assert "import mindspore as ms\nfrom mindspore import nn, ops\n" in res.code
    assert "ms_core" not in res.code


def test_non_torch_calls_are_never_touched():
    code = after("""
        import os
        def f(s, d):
            os.rename(s, d)
            parts = s.split(",")
            return d.get(3), parts.size()
    """)
    assert "os.rename(s, d)" in code and 's.split(",")' in code and "d.get(3)" in code
    assert "parts.size()" in code


def test_unmapped_torch_call_is_marked_and_import_kept():
    src = "import torch\nimport torch.nn as nn\ny = torch.fft.fft(x)  # spectrum\nfc = nn.Linear(2, 2)\n"
    res = convert_source(src)
    assert "# migrate: MS901 torch.fft.fft has no mapping\ny = torch.fft.fft(x)  # spectrum" in res.code
    assert "import torch\n" in res.code  # still needed by the unconverted line
    assert "import torch.nn as nn" not in res.code
    assert res.unsupported >= 1
    compile(res.code, "<out>", "exec")


def test_unsupported_argument_keeps_the_call_with_a_marker():
    code, res = body("conv = nn.Conv2d(3, 8, 3, padding_mode='reflect')\n")
    assert "# migrate: MS902 torch.nn.Conv2d: padding_mode='reflect'" in code
    assert "nn.Conv2d(3, 8, 3, padding_mode='reflect')" in code
    assert any(c.label == "unsupported" and c.rule == "MS902" for c in res.changes)


def test_star_args_marker():
    code, _ = body("y = F.softmax(*args)\n")
    assert "# migrate: MS903" in code and "F.softmax(*args)" in code


def test_syntax_error_is_reported_not_raised():
    res = convert_source("import torch\ndef f(:\n")
    assert res.error and "line" in res.error
    assert res.code == "import torch\ndef f(:\n"


def test_every_change_has_a_known_label_and_id():
    _, res = body("""
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)
                self.bn = nn.BatchNorm1d(2, momentum=None)
            def forward(self, x):
                return F.relu(self.fc(x))
    """)
    assert res.changes
    for c in res.changes:
        assert c.label in ("exact", "transformed", "approximate", "unsupported")
        assert c.rule.startswith("MS") and len(c.rule) == 5
        assert c.line > 0


def test_line_numbers_point_at_the_statement():
    src = "import torch.nn as nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.d = nn.Dropout(0.1)\n"
    res = convert_source(src)
    drop = next(c for c in res.changes if c.before.startswith("nn.Dropout"))
    assert drop.line == 7
    base = next(c for c in res.changes if c.rule == "MS101")
    assert base.line == 4


def test_multiline_call_keeps_its_layout_and_comments():
    code = after("""
        conv = nn.Conv2d(
            3, 16,  # rgb in
            kernel_size=3,
            padding=1,
        )
    """)
    assert "3, 16,  # rgb in\n" in code
    compile(code, "<out>", "exec")


def test_idempotent_on_own_output():
    src = HEADER_MODEL
    once = convert_source(src).code
    twice = convert_source(once)
    assert twice.code == once and twice.changes == []


HEADER_MODEL = textwrap.dedent("""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.fc = nn.Linear(8, 2)

        def forward(self, x):
            x = F.relu(self.bn(self.conv(x)))
            x = F.adaptive_avg_pool2d(x, 1).view(x.size(0), -1)
            with torch.no_grad():
                y = torch.zeros(1)
            return self.fc(x) + y
""")


def test_idempotent_with_a_marker_left():
    src = "import torch\ny = torch.fft.fft(x)\n"
    once = convert_source(src).code
    assert convert_source(once).code == once


def test_star_import_and_torchvision_are_marked_not_silent():
    src = ("from torch.nn import *\nimport torchvision\nimport torch.nn as nn\n"
           "m = torchvision.models.resnet18()\nd = nn.ReLU()\n")
    res = convert_source(src)
    assert "# migrate: MS901 star import from torch.nn" in res.code and "from torch.nn import *" in res.code
    assert "# migrate: MS901 torchvision.models.resnet18 has no mapping\nm = torchvision.models.resnet18()" in res.code
    assert "import torchvision" in res.code and "d = nn.ReLU()" in res.code
    assert convert_source(res.code).code == res.code


def test_import_line_with_other_modules_keeps_them():
    res = convert_source("import os, torch.nn as nn  # deps\nx = nn.ReLU()\n")
    assert "import os  # deps\n" in res.code and "torch" not in res.code


def test_docstring_examples():
    import doctest

    import mappings
    from migrate.convert import cst, registry, walker
    for mod in (mappings, walker, cst, registry):
        assert doctest.testmod(mod).failed == 0


def test_file_without_torch_still_reports_syntax_errors():
    res = convert_source("x = 1\ndef f(:\n    pass\n")
    assert res.error == "syntax error at line 2: invalid syntax" or res.error.startswith("syntax error at line 2")
    assert convert_source("x = 1\n").error is None


def test_target_imports_added_even_when_every_torch_import_stays():
    res = convert_source("import torch\n\ny = torch.fft.fft(torch.zeros(3))\n")
    assert res.code == ("import torch\nimport ms_core as ms\nfrom ms_core import ops\n\n"
                        "# migrate: MS901 torch.fft.fft has no mapping\ny = torch.fft.fft(torch.zeros(3))\n") \
        or "from ms_core import ops" not in res.code  # the call is kept whole, so ops may be unused
    res = convert_source("import torch\n\ny = torch.fft.fft(x)\nz = torch.zeros(3)\n")
    assert "import torch\nimport ms_core as ms\nfrom ms_core import ops\n" in res.code
    assert convert_source(res.code).code == res.code


def test_kept_torch_alias_never_shadows_the_target_names():
    src = ("import torch.nn as nn\n\nclass P(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.rnn = nn.RNNBase(1, 2)\n        self.fc = nn.Linear(2, 2)\n")
    res = convert_source(src)
    assert "from ms_core import nn as ms_nn" in res.code and "import torch.nn as nn" in res.code
    assert "class P(ms_nn.Cell):" in res.code and "self.fc = ms_nn.Dense(2, 2," in res.code
    assert "# migrate: MS901 torch.nn.RNNBase has no mapping\n        self.rnn = nn.RNNBase(1, 2)" in res.code
    assert convert_source(res.code).code == res.code


def test_module_base_is_labelled_transformed():
    res = convert_source("import torch.nn as nn\nclass M(nn.Module):\n    pass\n")
    base = next(c for c in res.changes if c.rule == "MS101")
    assert base.label == "transformed" and "inference mode" in base.note


def test_imports_inside_functions():
    src = ('"""doc"""\nimport os\n\ndef f(x):\n    import torch\n    import torch.nn.functional as F\n'
           '    y = F.relu(x)\n    return torch.fft.fft(y)\n\ndef g(x):\n    import torch.nn as nn\n    return nn.ReLU()(x)\n')
    res = convert_source(src)
    assert res.code.startswith('"""doc"""\nimport os\nimport ms_core as ms\nfrom ms_core import nn, ops\n')
    # f still needs torch for the unmapped call; F is gone; g's import is gone
    assert "def f(x):\n    import torch\n    y = ops.relu(x)\n" in res.code
    assert "def g(x):\n    return nn.ReLU()(x)\n" in res.code
    assert convert_source(res.code).code == res.code
