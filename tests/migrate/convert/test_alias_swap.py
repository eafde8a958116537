"""The target's nn keeps its name when torch's nn stays for marked code: torch's becomes torch_nn
(migrate.convert.alias_swap). Before/after pairs, the cases that keep ms_nn, and the converted
file run without torch."""
import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import without_guards

SRC = ("import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n"
       "    def __init__(self, c: int, act: 'nn.Module' = None):\n        super().__init__()\n"
       "        self.fc = nn.Linear(c, c, bias=False)\n        self.drop = nn.AlphaDropout(0.1)\n"
       "        self.act = act or nn.ReLU()\n\n"
       "    def forward(self, x):\n        return self.act(self.fc(x))\n\n\n"
       "def build(c):\n    return Net(c, act=nn.Tanh())\n")


def test_torch_nn_kept_for_a_marked_line_is_torch_nn_and_the_target_is_nn():
    out = convert_source(SRC).code
    assert "from ms_core import nn\n" in out and "ms_nn" not in out, out
    assert "    from torch import nn as torch_nn\nelse:\n    torch_nn = TorchMissing('torch.nn', {'Alpha" in out
    assert without_guards(out).endswith(
        "class Net(nn.Cell):\n"
        "    def __init__(self, c: int, act: 'torch_nn.Module' = None):\n        super().__init__()\n"
        "        self.fc = nn.Dense(c, c, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))\n"
        "        # migrate: MS901 MindSpore 2.10 has no AlphaDropout (SELU-preserving dropout); it is the identity "
        "in inference mode\n"
        "        self.drop = torch_nn.AlphaDropout(0.1)\n        self.act = act or nn.ReLU()\n\n"
        "    def construct(self, x):\n        return self.act(self.fc(x))\n\n\n"
        "def build(c):\n    return Net(c, act=nn.Tanh())\n"), out  # (a string annotation left is torch's)
    assert convert_source(out).code == out


@pytest.mark.parametrize("extra", [
    "\ndef f(nn=None):\n    return nn\n",      # a parameter named nn: callers may pass nn=
    "\ntorch_nn = 1\n",                        # the name the swap would give is taken
    "\nfor nn in range(2):\n    pass\n",       # the user binds nn
])
def test_the_swap_is_not_made_where_the_names_are_not_free(extra):
    out = convert_source(SRC + extra).code
    assert "self.fc = ms_nn.Dense(" in out and "self.drop = nn.AlphaDropout(0.1)" in out, out


def test_the_converted_file_builds_until_the_marked_line_runs():
    ms = pytest.importorskip("ms_core")
    out = convert_source(SRC.replace("        self.drop = nn.AlphaDropout(0.1)\n",
                                     "        if c > 8:\n            self.drop = nn.AlphaDropout(0.1)\n")).code
    ns = {}
    exec(compile(out, "converted.py", "exec"), ns)
    net = ns["build"](3)
    assert type(net.act).__name__ == "Tanh" and isinstance(net, ms.nn.Cell)
    with pytest.raises(ImportError, match="AlphaDropout"):
        ns["Net"](9)
