"""einops reached by a module name in a string (MS501): importlib.import_module / __import__ of an
einops module become the generated importers, which answer with the generated einops code.

Before/after pairs for the calls, then a package (tests/fixtures/convert_by_name) whose model
gets einops only through its own optional_import and importlib: converted as a directory, it
runs with torch and einops impossible to import and computes torch's numbers.
"""
import importlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from migrate import convert_source
from migrate.convert.einops_calls import named_modules
from migrate.convert.project import convert_tree
from tests.migrate.convert.helpers import FIXTURE_ROOT

torch = pytest.importorskip("torch")

HEAD = "import importlib\nfrom importlib import import_module\nimport torch\n\n"
EINOPS = frozenset({"einops", "einops.layers.torch"})


def _last_line(code: str, named=frozenset()) -> str:
    res = convert_source(HEAD + code, named_modules=named)
    assert res.error is None and "# migrate" not in res.code, res.code
    return res.code.rstrip().splitlines()[-1]


@pytest.mark.parametrize("before, named, after", [
    ('m = importlib.import_module("einops")', frozenset(), 'm = torch_import_module("einops")'),
    ("m = import_module('einops.layers.torch')", frozenset(), "m = torch_import_module('einops.layers.torch')"),
    ('m = __import__("einops")', frozenset(), 'm = torch_import("einops")'),
    # a name only run time knows: rewritten when the package names einops modules in strings
    ("m = import_module(name, package=pkg)", EINOPS, "m = torch_import_module(name, package=pkg)"),
    ("m = __import__(name)", EINOPS, "m = torch_import(name)"),
    # no-ops: another module by name, or a run-time name in a package that never names einops
    ('m = importlib.import_module("json")', EINOPS, 'm = importlib.import_module("json")'),
    ("m = import_module(name)", frozenset(), "m = import_module(name)"),
    ("m = __import__(name)", frozenset(), "m = __import__(name)"),
])
def test_import_by_name(before, named, after):
    assert _last_line(before, named) == after


def test_import_module_of_a_user_object_is_not_importlibs():
    """`loader.import_module(...)` of the file's own object is not importlib's."""
    assert _last_line('m = loader.import_module("einops")') == 'm = loader.import_module("einops")'


def test_named_modules_reads_strings_of_the_package(tmp_path):
    (tmp_path / "a.py").write_text("x = optional_import(\"einops.layers.torch\", name='Rearrange')\n"
                                   "y = 'einops'\nz = 'einopsx'\n# einops.rearrange\n")
    assert named_modules([tmp_path / "a.py"]) == {"einops.layers.torch", "einops"}


def test_the_modules_made_hold_the_runtime_code():
    import migrate.runtime as runtime
    res = convert_source(HEAD + 'e = __import__("einops.layers.torch")\nm = import_module("einops.layers.torch")\n'
                         'f = __import__("einops.layers.torch", fromlist=["Rearrange"])\n')
    ns = {}
    exec(res.code, ns)
    assert ns["e"].layers.torch is ns["m"] is ns["f"] and ns["m"].Rearrange is runtime.EinopsRearrange
    assert ns["e"].rearrange is runtime.einops_rearrange and ns["e"].EinopsError is ValueError
    assert ns["torch_import_module"]("json") is importlib.import_module("json")


RUN = textwrap.dedent("""
    import sys
    import numpy as np

    class Blocked:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "einops"):
                raise ImportError("blocked: " + name)

    sys.meta_path.insert(0, Blocked())
    import ms_core as ms
    from bypkg.model import Net
    from bypkg.utils import optional_import
    w = np.load(sys.argv[1])
    net = Net()
    params = dict(net.parameters_and_names())
    assert sorted(params) == ["fc.bias", "fc.weight"], sorted(params)
    for name, p in params.items():
        p.set_data(ms.Tensor(w[name]))
    x = ms.Tensor(w["x"])
    out = net(x)
    grad = ms.grad(lambda t: (net(t) * ms.Tensor(w["cot"])).sum())(x)
    assert optional_import("json", "dumps")[1] and optional_import("no_such_module")[1] is False
    np.savez(sys.argv[2], out=out.asnumpy(), grad=grad.asnumpy())
""")


def test_package_reaching_einops_by_name_runs_without_einops_and_matches_torch(tmp_path):
    root = FIXTURE_ROOT / "convert_by_name"
    reports = convert_tree(root, tmp_path / "out")
    assert not [r.error for r in reports if r.error]
    again = convert_tree(tmp_path / "out", tmp_path / "again")
    for path in (tmp_path / "out").rglob("*.py"):  # converting again changes nothing
        assert (tmp_path / "again" / path.relative_to(tmp_path / "out")).read_text() == path.read_text()
    assert not [r.error for r in again if r.error]
    torch.manual_seed(0)
    fc = torch.nn.Linear(12, 4)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 6)).astype(np.float32)
    cot = rng.standard_normal((2, 4)).astype(np.float32)
    np.savez(tmp_path / "w.npz", x=x, cot=cot, **{"fc.weight": fc.weight.detach().numpy(),
                                                  "fc.bias": fc.bias.detach().numpy()})
    (tmp_path / "run.py").write_text(RUN)
    proc = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(tmp_path / "w.npz"), str(tmp_path / "o.npz")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path / "out",
                          env={"PYTHONPATH": f"{tmp_path / 'out'}:{FIXTURE_ROOT.parents[1]}", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = np.load(tmp_path / "o.npz")
    # torch: the same model written without einops (reference() of the fixture), same weights
    ns = {"torch": torch}
    source = (root / "bypkg" / "model.py").read_text()
    exec(compile(source[source.index("def reference"):], "reference", "exec"), ns)
    net = torch.nn.Module()
    net.fc = fc
    tx = torch.from_numpy(x).requires_grad_(True)
    ref = ns["reference"](net, tx)
    (ref * torch.from_numpy(cot)).sum().backward()
    np.testing.assert_allclose(got["out"], ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["grad"], tx.grad.numpy(), rtol=1e-5, atol=1e-6)
