"""Oracle: the fixtures of tests/migrate/convert/test_recompute.py (a checkpoint Function, a reversible
sequence, torch's checkpoint helpers) converted with --target mindspore and run on real MindSpore 2.10
with torch's weights: torch's output, input gradients and parameter gradients."""
import json
import subprocess
import textwrap

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert import test_recompute as rec
from tests.migrate.convert.test_fixtures_numeric import copy_weights

from .test_oracle import ORACLE, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindspore as ms
    case = json.load(open(sys.argv[1]))
    ns = {}
    exec(compile(case["code"], "<converted>", "exec"), ns)
    cell = eval(case["build"], ns)
    cell.set_train(case["train"])
    names, params = zip(*cell.parameters_and_names())
    for n, p in zip(names, params):
        p.set_data(ms.Tensor(np.array(case["weights"][n], np.float32).reshape(p.shape)))
    args = [ms.Tensor(np.array(a, np.float32).reshape(s)) for a, s in case["inputs"]]
    cot = ms.Tensor(np.array(case["cot"][0], np.float32).reshape(case["cot"][1]))

    def scalar(*a):
        return (cell(*a) * cot).sum()
    grads, wgrads = ms.grad(scalar, grad_position=tuple(range(len(args))), weights=list(params))(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    out = {"out": cell(*args).asnumpy().tolist(), "grads": [g.asnumpy().tolist() for g in grads],
           "wgrads": {n: g.asnumpy().tolist() for n, g in zip(names, wgrads)}}
    json.dump(out, open(sys.argv[2], "w"))
""")


@pytest.mark.parametrize("code,build,arrays", [
    (rec.CHECKPOINT, "Block(8)", [np.random.RandomState(0).randn(2, 3, 8).astype(np.float32),
                                  np.random.RandomState(1).rand(2, 3, 1).astype(np.float32)]),
    (rec.REVERSIBLE, "RevNet(8, 3)", [np.random.RandomState(0).randn(2, 5, 8).astype(np.float32)]),
    (rec.SEQUENTIAL, "Tower(6)", [np.random.RandomState(0).randn(3, 6).astype(np.float32)]),
], ids=["checkpoint", "reversible", "sequential"])
def test_recomputed_functions_run_on_mindspore_with_torchs_gradients(code, build, arrays, tmp_path):
    out = convert_source(rec.HEAD + code, target="mindspore").code
    assert "# migrate: MS9" not in out, out
    torch_ns, core_ns = {}, {}
    exec(rec.HEAD + code, torch_ns)  # noqa: S102
    exec(rec.on_ms_core(out), core_ns)  # noqa: S102 (on ms_core: the parameter names MindSpore gives)
    torch.manual_seed(0)
    net, cell = eval(build, torch_ns), eval(build, core_ns)  # noqa: S307
    net.train(True)
    assert copy_weights(net, cell) == set()
    with torch.no_grad():
        cot = np.random.RandomState(1).randn(*net(*map(torch.tensor, arrays)).shape).astype(np.float32)
    want, want_grads, want_params = rec.torch_reference(net, arrays, cot)
    case = {"code": out, "build": build, "train": True,
            "weights": {n: p.asnumpy().ravel().tolist() for n, p in cell.parameters_and_names()},
            "inputs": [(a.ravel().tolist(), list(a.shape)) for a in arrays], "cot": (cot.ravel().tolist(), cot.shape)}
    (tmp_path / "case.json").write_text(json.dumps(case))
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path / "case.json"),
                           str(tmp_path / "out.json")], capture_output=True, text=True, timeout=600,
                          env=oracle_env("mindspore"))
    assert proc.returncode == 0, f"{out}\n{proc.stderr[-3000:]}"
    got = json.loads((tmp_path / "out.json").read_text())
    np.testing.assert_allclose(np.array(got["out"], np.float32), want, rtol=1e-5, atol=1e-6)
    for g, w in zip(got["grads"], want_grads):
        np.testing.assert_allclose(np.array(g, np.float32), w, rtol=1e-5, atol=1e-6)
    rec.assert_same_parameter_grads({n: np.array(g, np.float32) for n, g in got["wgrads"].items()},
                                    want_params, "mindspore")
