"""torch's run-time plumbing (mappings/runtime.toml): TorchScript runs as Python, device queries
answer for a target without torch devices, device settings and backend flags go, pretrained-weight
downloads are marked (issue 10 classes 5 and 8)."""
import importlib.util
import textwrap

import numpy as np
import pytest

from mappings import load_tables
from migrate import convert_source
from tests.migrate.convert.helpers import without_guards
from tests.migrate.convert.test_fixtures_numeric import copy_weights
from tests.migrate.convert.torchless import torch_blocked

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

RUNTIME = {name: e for name, e in load_tables().items() if e.table == "runtime"}


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def by_rule(rule: str) -> list[str]:
    return sorted(name for name, e in RUNTIME.items() if e.rule == rule)


def convert(src: str) -> str:
    res = convert_source(textwrap.dedent(src))
    assert res.error is None
    assert convert_source(res.code).code == res.code
    return res.code


SCRIPTED = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import List


@torch.jit.script
def swish(x):
    return x * torch.sigmoid(x)


class Block(nn.Module):
    depth: torch.jit.Final[int]

    def __init__(self, width=4, depth=2):
        super().__init__()
        self.depth = depth
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])

    @torch.jit.ignore
    def scale(self) -> float:
        return 0.5

    @torch.jit.unused
    def debug(self, x):
        return x

    def forward(self, x):
        outs = torch.jit.annotate(List[torch.Tensor], [])
        for layer in self.layers:
            x = swish(layer(x))
            outs.append(x)
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            return outs[-1] * 0.5 + torch.relu(outs[0])  # the same, written for TorchScript
        return outs[-1] * self.scale() + F.relu(outs[0])


def make_model():
    return torch.jit.script(Block())
"""


def test_torchscript_runs_as_python_and_matches(tmp_path):
    out = convert(SCRIPTED)
    assert "@torch.jit" not in out and "torch." not in without_guards(out)
    assert "    depth: int\n" in out and "def make_model():\n    return Block()\n" in out
    assert "outs = []\n" in out and "if False" not in out  # the scripted branch never runs
    assert "        # the same, written for TorchScript\n        return outs[-1] * self.scale()" in out
    src = tmp_path / "scripted_block.py"  # TorchScript reads the source of what it compiles
    src.write_text(SCRIPTED)
    tns = vars(load(src, "scripted_block"))
    with torch_blocked():
        mns: dict = {}
        exec(compile(out, "<converted>", "exec"), mns)
        cell = mns["make_model"]()
    torch.manual_seed(0)
    tmodel = tns["Block"]().eval()  # the scripted module has the same weights and outputs
    cell.set_train(False)
    assert copy_weights(tmodel, cell) == set()
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    scripted = torch.jit.script(tmodel)
    with torch.no_grad():
        ref = scripted(torch.from_numpy(x)).numpy()
        assert np.allclose(ref, tmodel(torch.from_numpy(x)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("api", by_rule("passthrough"))
def test_script_like_calls_return_their_argument(api):
    out = convert(f"import torch\nimport torch.jit\nimport torch.compiler\ny = {api}(f)\n")
    assert without_guards(out).endswith("\ny = f\n")


@pytest.mark.parametrize("api", by_rule("passthrough"))
def test_script_like_decorators_are_removed(api):
    out = convert(f"import torch\nimport torch.jit\n@{api}\ndef f(x):\n    return x\n"
                  f"@{api}(drop=True)\ndef g(x):\n    return x\n")
    assert out == "import ms_core as ms\ndef f(x):\n    return x\ndef g(x):\n    return x\n"


@pytest.mark.parametrize("api", by_rule("registration"))
def test_registrations_with_torchs_machinery_go(api):
    """As a statement (run at import) the call goes; as a decorator it is removed and the
    function runs as Python; its value is marked."""
    mod = api.rsplit(".", 1)[0]
    out = convert(f"import torch\nimport {mod}\n{api}('pkg::op', 1)\n@{api}('v', 'f')\ndef f(x):\n    return x\n"
                  f"y = f(2)\n")
    assert out == "import ms_core as ms\ndef f(x):\n    return x\ny = f(2)\n", out
    assert "# migrate: MS901" in convert(f"import torch\nimport {mod}\nh = {api}('pkg::op', 1)\n")


@pytest.mark.parametrize("api", by_rule("false") + by_rule("zero") + by_rule("none_value"))
def test_device_and_tracing_queries_answer_for_a_target_without_torch_devices(api):
    if RUNTIME[api].table != "runtime":
        pytest.skip("not this table's")
    package = api.split(".")[0]   # torch, or torchvision for its _is_tracing
    out = convert(f"import {package}\ny = {api}()\n")
    want = {"false": "False", "zero": "0", "none_value": "None"}[RUNTIME[api].rule]
    assert out == f"import ms_core as ms\ny = {want}\n"


def test_torchvisions_tracing_test_is_false_on_the_target():
    """torchvision's _is_tracing is `torch._C._get_tracing_state() is not None`: no tracer runs the
    converted code, so it is False (it read `False is not None`, True, when the state was False)."""
    out = convert("import torch\ndef _is_tracing():\n    return torch._C._get_tracing_state() is not None\n"
                  "def traced():\n    return torch._C._get_tracing_state() is None\n")
    assert "return False\n" in out and "return True\n" in out, out


@pytest.mark.parametrize("api", by_rule("no_op"))
def test_device_settings_and_device_seeding_are_removed(api):
    out = convert(f"import torch\ntorch.manual_seed(0)\n{api}(0)  # every device\nz = {api}(0)\n")
    assert out == "import ms_core as ms\nms.set_seed(0)\n# every device\nz = None\n"


@pytest.mark.parametrize("api", by_rule("backend_flag"))
def test_backend_flags_set_are_removed_and_read_give_torch_default(api):
    import torch
    default = eval(api, {"torch": torch})  # torch's own value on this (CPU) build
    out = convert(f"import torch\n{api} = True\nif {api}:\n    y = 1\nelse:\n    y = 2\n")
    assert f"\n{api} = True" not in out and "# migrate:" not in out
    assert out == f"import ms_core as ms\ny = {1 if default else 2}\n"  # the branch torch's default takes


def test_jit_isinstance_and_final_names():
    out = convert("from torch.jit import Final\nimport torch\nclass A:\n    k: Final[int] = 1\n"
                  "ok = torch.jit.isinstance(x, list)\n")
    assert out == "import ms_core as ms\nclass A:\n    k: int = 1\nok = isinstance(x, list)\n"


@pytest.mark.parametrize("api", ["torch.hub.load", "torch.hub.download_url_to_file"])
def test_hub_fetches_are_marked_and_fail_only_where_reached(api):
    """(torch.hub.load_state_dict_from_url / model_zoo.load_url are translated: tests/migrate/
    convert/rules/test_hub.py)"""
    out = convert(f"""\
        import torch
        import torch.utils.model_zoo
        def net(pretrained=False):
            m = dict(w=1)
            if pretrained:
                m.update({api}("http://example.invalid/w.pth"))
            return m
        """)
    assert "# migrate: MS901 " + RUNTIME[api].note in out
    with torch_blocked():
        ns: dict = {}
        exec(compile(out, "<converted>", "exec"), ns)
        assert ns["net"]() == {"w": 1}
        with pytest.raises(ImportError, match="migrate weights"):
            ns["net"](pretrained=True)


def test_unsupported_runtime_entries_are_marked():
    for api, entry in RUNTIME.items():
        if entry.label == "unsupported":
            out = convert(f"import torch\nimport torch.hub\nimport torch.jit\ny = {api}(a)\n")
            assert f"# migrate: MS901 {entry.note}" in out, api
