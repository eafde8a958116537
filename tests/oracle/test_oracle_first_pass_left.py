"""Oracle: the classes of tests/migrate/convert/test_first_pass_left.py, converted with --target mindspore and run
on real MindSpore 2.10: torch's outputs (values and dtypes) and the float inputs' gradients."""
import json
import subprocess
import textwrap

import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert import test_first_pass_left as left

from .test_oracle import ORACLE, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindspore as ms
    case = json.load(open(sys.argv[1]))
    ns = {}
    exec(compile(case["code"], "<converted>", "exec"), ns)
    fn = ns[case["name"]]

    def tensor(d):
        return ms.Tensor(np.array(d["data"], dtype=d["dtype"]).reshape(d["shape"]))

    def listed(o):
        return list(o) if isinstance(o, tuple) else [o]

    def enc(t):
        a = t.asnumpy()
        return {"dtype": a.dtype.name, "shape": list(a.shape), "data": a.ravel().tolist()}

    args = [tensor(a) for a in case["inputs"]]
    cots = [None if c is None else tensor(c) for c in case["cotangents"]]
    out = {"outputs": [enc(o) for o in listed(fn(*args))]}

    def scalar(*a):
        return sum((o * c).sum() for o, c in zip(listed(fn(*a)), cots) if c is not None)
    if case["floats"]:
        out["grads"] = [enc(g) for g in listed(ms.grad(scalar, grad_position=tuple(case["floats"]))(*args))]
    json.dump(out, open(sys.argv[2], "w"))
""")


def _enc(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "data": a.ravel().tolist()}


def _dec(d):
    return np.array(d["data"], dtype=d["dtype"]).reshape(d["shape"])


def assert_same_as_torch_on_mindspore(code: str, name: str, arrays, tmp_path):
    torch_namespace = {}
    exec(left.HEAD + code, torch_namespace)  # noqa: S102
    want, cots, want_grads = left.torch_and_grads(torch_namespace[name], arrays)
    out = convert_source(left.HEAD + code, target="mindspore").code
    assert "# migrate: MS9" not in out, out
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if want_grads else []
    case = {"code": out, "name": name, "inputs": [_enc(a) for a in arrays], "floats": floats,
            "cotangents": [None if c is None else _enc(c) for c in cots]}
    (tmp_path / "case.json").write_text(json.dumps(case))
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path / "case.json"),
                           str(tmp_path / "out.json")], capture_output=True, text=True, timeout=600,
                          env=oracle_env("mindspore"))
    assert proc.returncode == 0, f"{out}\n{proc.stderr[-3000:]}"
    got = json.loads((tmp_path / "out.json").read_text())
    assert len(got["outputs"]) == len(want)
    for g, w in zip(got["outputs"], want):
        g = _dec(g)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    for g, w in zip(got.get("grads", []), want_grads):
        np.testing.assert_allclose(_dec(g), w, rtol=1e-5, atol=1e-6)
    assert len(got.get("grads", [])) == len(want_grads)


def test_fill_diagonal_gives_torchs_values_and_gradients_on_mindspore(tmp_path):
    rng = np.random.RandomState(0)
    arrays = [rng.randn(4, 4).astype(np.float32), rng.randn(7, 3).astype(np.float32),
              rng.randn(3, 3, 3).astype(np.float32), np.arange(12).reshape(4, 3)]
    assert_same_as_torch_on_mindspore(left.FILL_DIAGONAL, "fill", arrays, tmp_path)


def test_cat_of_int_and_float_operands_gives_torchs_values_on_mindspore(tmp_path):
    rng = np.random.RandomState(0)
    arrays = [rng.randn(2, 3, 2).astype(np.float32), rng.randint(-1, 3, (2, 3)).astype(np.int64)]
    assert_same_as_torch_on_mindspore(left.CAT_PROMOTE, "prompt", arrays, tmp_path)
