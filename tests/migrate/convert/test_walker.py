"""Imports, aliases, labels, markers, validity and idempotency of the converter."""
import textwrap

import pytest

from migrate import convert_source
from migrate.convert.guards import GUARD_NOTE
from tests.migrate.convert.helpers import body, check, without_guards


def test_no_torch_is_a_no_op():
    src = "import os\nos.rename('a', 'b')\nx = nn.Linear(2, 3)\n"
    res = convert_source(src)
    assert res.code == src and res.changes == []


def test_imports_are_replaced_and_comments_kept():
    src = "# header comment\nimport torch  # the framework\nimport torch.nn as nn\n\nfc = nn.Linear(2, 3, bias=False)\n"
    res = convert_source(src)
    # the target imports go where the first torch import was; its trailing comment stays below them
    assert res.code == ("# header comment\nimport math\nimport ms_core as ms\nfrom ms_core import nn\n"
                        "from ms_core.common.initializer import HeUniform\n# the framework\n\n"
                        "fc = nn.Dense(2, 3, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))\n")


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
    assert res.code == "import ms_core as ms\nfrom ms_core import nn\nd = nn.Dropout(keep_prob=0.75)\n"


def test_target_mindspore_is_one_substitution():
    res = convert_source("import torch.nn as nn\nimport torch\nr = nn.ReLU()\nt = torch.zeros(2, 3)\n",
                         target="mindspore")
    assert res.code == "import mindspore as ms\nfrom mindspore import nn, ops\nr = nn.ReLU()\nt = ops.zeros((2, 3))\n"


def test_non_torch_calls_are_never_touched():
    code = """\
        def f(s, d):
            os.rename(s, d)
            parts = s.split(",")
            return d.get(3), parts.count("a")
        """
    check("import os\n" + textwrap.dedent(code), code)
    # `.size()` on a value the converter cannot type goes through `torch_size`, which calls the
    # object's own size() when it is not a tensor (tests/migrate/convert/test_script_classes.py)


def test_unmapped_torch_call_is_marked_and_import_kept():
    src = "import torch\nimport torch.nn as nn\ny = torch.fft.hfft(x)  # spectrum\nfc = nn.Linear(2, 2)\n"
    res = convert_source(src)
    # import torch stays, guarded (the unconverted line needs it: test_guards.py); the target
    # imports go where the torch imports were
    assert "\n    import torch\nelse:" in res.code
    assert without_guards(res.code) == (
                        "import math\nimport ms_core as ms\nfrom ms_core import nn\n"
                        "from ms_core.common.initializer import HeUniform, Uniform\n"
                        "# migrate: MS901 torch.fft.hfft has no mapping\ny = torch.fft.hfft(x)  # spectrum\n"
                        "fc = nn.Dense(2, 2, weight_init=HeUniform(negative_slope=math.sqrt(5)), "
                        "bias_init=Uniform(scale=1 / math.sqrt(2)))\n")
    assert [(c.line, c.rule) for c in res.changes if c.label == "unsupported"] == [(1, "MS900"), (3, "MS901")]


def test_unsupported_argument_keeps_the_call_with_a_marker():
    res = check("conv = nn.Conv2d(3, 8, 3, padding_mode='reflect')\n",
                "# migrate: MS902 torch.nn.Conv2d: padding_mode='reflect': only zero padding is supported "
                "by nn.Conv2d\nconv = nn.Conv2d(3, 8, 3, padding_mode='reflect')\n")
    assert any(c.label == "unsupported" and c.rule == "MS902" for c in res.changes)


def test_star_args_marker():
    # a function with a generated torch-signature wrapper takes them (MS181); one without is marked
    check("y = F.softmax(*args)\n", "y = torch_softmax(*args)\n")
    check("y = F.one_hot(*args)\n",
          "# migrate: MS903 torch.nn.functional.one_hot: cannot translate *-arguments\ny = F.one_hot(*args)\n")


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
    src = ("import torch.nn as nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        self.d = nn.Dropout(0.1)\n")
    res = convert_source(src)
    drop = next(c for c in res.changes if c.before.startswith("nn.Dropout"))
    assert drop.line == 7
    base = next(c for c in res.changes if c.before == "nn.Module")
    assert base.line == 4


def test_multiline_call_keeps_its_layout_and_comments():
    # the arguments the rule adds follow the last one written (the trailing comma's newline
    # is kept as it was, so they start the next line)
    check("""\
        conv = nn.Conv2d(
            3, 16,  # rgb in
            kernel_size=3,
            padding=1,
        )
        """, """\
        conv = nn.Conv2d(
            3, 16,  # rgb in
            kernel_size=3,
            pad_mode='pad', padding=1,
        has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(27)))
        """)


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
    src = "import torch\ny = torch.fft.hfft(x)\n"
    once = convert_source(src).code
    assert convert_source(once).code == once


def test_star_import_and_torchvision_are_marked_not_silent():
    src = ("from torch._prims import *\nimport torchvision\nimport torch.nn as nn\n"
           "m = torchvision.models.resnet18()\nd = nn.ReLU()\n")
    res = convert_source(src)
    assert "\n    import torchvision\nelse:" in res.code
    assert without_guards(res.code) == (
        "# migrate: MS901 star import from torch._prims: its names cannot be resolved; import them "
        "explicitly\nfrom torch._prims import *\nimport ms_core as ms\n"
        "from ms_core import nn\n# migrate: MS901 torchvision.models.resnet18 has no mapping\n"
        "m = torchvision.models.resnet18()\nd = nn.ReLU()\n")
    assert convert_source(res.code).code == res.code


def test_import_line_with_other_modules_keeps_them():
    res = convert_source("import os, torch.nn as nn  # deps\nx = nn.ReLU()\n")
    assert res.code == "import ms_core as ms\nfrom ms_core import nn\nimport os  # deps\nx = nn.ReLU()\n"


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
    # the unmapped call is kept whole (torch.zeros inside it too); the import of ops it would
    # have needed is still written
    res = convert_source("import torch\n\ny = torch.fft.hfft(torch.zeros(3))\n")
    assert without_guards(res.code) == ("import ms_core as ms\nfrom ms_core import ops\n\n"
                                        "# migrate: MS901 torch.fft.hfft has no mapping\n"
                                        "y = torch.fft.hfft(torch.zeros(3))\n")
    res = convert_source("import torch\n\ny = torch.fft.hfft(x)\nz = torch.zeros(3)\n")
    assert without_guards(res.code) == (
        "import ms_core as ms\nfrom ms_core import ops\n\n"
        "# migrate: MS901 torch.fft.hfft has no mapping\ny = torch.fft.hfft(x)\nz = ops.zeros((3,))\n")
    assert convert_source(res.code).code == res.code


def test_kept_torch_alias_never_shadows_the_target_names():
    src = ("import torch.nn as nn\n\nclass P(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.rnn = nn.RNNBase(1, 2)\n        self.fc = nn.Linear(2, 2)\n")
    res = convert_source(src)
    # the target's nn keeps its name: torch's, kept for the marked line, is torch_nn
    assert "\n    import torch.nn as torch_nn\nelse:\n    torch_nn = TorchMissing('torch.nn', " in res.code
    assert without_guards(res.code) == (
                        "import math\nimport ms_core as ms\nfrom ms_core import nn\n"
                        "from ms_core.common.initializer import HeUniform, Uniform\n\nclass P(nn.Cell):\n"
                        "    def __init__(self):\n        super().__init__()\n"
                        "        # migrate: MS901 torch.nn.RNNBase has no mapping\n"
                        "        self.rnn = torch_nn.RNNBase(1, 2)\n"
                        "        self.fc = nn.Dense(2, 2, "
                        "weight_init=HeUniform(negative_slope=math.sqrt(5)), "
                        "bias_init=Uniform(scale=1 / math.sqrt(2)))\n")
    assert convert_source(res.code).code == res.code


def test_module_base_is_labelled_transformed():
    res = convert_source("import torch.nn as nn\nclass M(nn.Module):\n    pass\n")
    base = next(c for c in res.changes if c.before == "nn.Module")
    assert base.rule == "MS010"  # the layers table's entry
    assert base.label == "transformed" and "inference mode" in base.note


def test_imports_inside_functions():
    src = ('"""doc"""\nimport os\n\ndef f(x):\n    import torch\n    import torch.nn.functional as F\n'
           '    y = F.relu(x)\n    return torch.fft.hfft(y)\n\ndef g(x):\n    import torch.nn as nn\n'
           '    return nn.ReLU()(x)\n')
    res = convert_source(src)
    # f still needs torch for the unmapped call; F is gone; g's import is gone
    assert without_guards(res.code) == (
                        '"""doc"""\nimport os\nimport ms_core as ms\nfrom ms_core import nn, ops\n\n'
                        'def f(x):\n    if TYPE_CHECKING:  ' + GUARD_NOTE + '\n        import torch\n    else:\n'
                        "        torch = TorchMissing('torch', {'fft': 'MS901 torch.fft.hfft has no mapping'})\n"
                        '    y = ops.relu(x)\n'
                        '    # migrate: MS901 torch.fft.hfft has no mapping\n    return torch.fft.hfft(y)\n\n'
                        'def g(x):\n    return nn.ReLU()(x)\n')
    assert convert_source(res.code).code == res.code
