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


def run_on_mindspore(driver: str, case: dict, tmp_path) -> dict:
    """Run ``driver`` on ``case`` (written as JSON) under MindSpore 2.10; its JSON result."""
    (tmp_path / "case.json").write_text(json.dumps(case))
    (tmp_path / "driver.py").write_text(driver)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path / "case.json"),
                           str(tmp_path / "out.json")], capture_output=True, text=True, timeout=600,
                          env=oracle_env("mindspore"))
    assert proc.returncode == 0, f"{case['code']}\n{proc.stderr[-3000:]}"
    return json.loads((tmp_path / "out.json").read_text())


def assert_same_as_torch_on_mindspore(code: str, name: str, arrays, tmp_path):
    torch_namespace = {}
    exec(left.HEAD + code, torch_namespace)  # noqa: S102
    want, cots, want_grads = left.torch_and_grads(torch_namespace[name], arrays)
    out = convert_source(left.HEAD + code, target="mindspore").code
    assert "# migrate: MS9" not in out, out
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if want_grads else []
    case = {"code": out, "name": name, "inputs": [_enc(a) for a in arrays], "floats": floats,
            "cotangents": [None if c is None else _enc(c) for c in cots]}
    got = run_on_mindspore(DRIVER, case, tmp_path)
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


def test_unique_with_a_dim_and_run_time_flags_gives_torchs_values_on_mindspore(tmp_path):
    code = left.UNIQUE + ("\n\ndef call(x, pairs):\n"
                          "    return (*uniques(x, pairs, True, True), *uniques(x, pairs, False, True))\n")
    x = np.random.RandomState(0).randint(0, 5, (3, 4))
    pairs = np.array([[1, 0, 1, 2, 0], [3, 0, 3, 1, 0], [2, 2, 2, 0, 2]])
    assert_same_as_torch_on_mindspore(code, "call", [x, pairs], tmp_path)


MODULE_DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindspore as ms
    case = json.load(open(sys.argv[1]))
    ns = {}
    exec(compile(case["code"], "<converted>", "exec"), ns)
    cell = ns[case["name"]]()
    weights = np.load(case["weights"])
    params = dict(cell.parameters_and_names())
    assert sorted(params) == sorted(weights.files), (sorted(params), weights.files)
    for name, p in params.items():
        p.set_data(ms.Tensor(weights[name]))
    args = [ms.Tensor(np.array(a["data"], dtype=a["dtype"]).reshape(a["shape"])) for a in case["inputs"]]
    cots = [ms.Tensor(np.array(c["data"], dtype=c["dtype"]).reshape(c["shape"])) for c in case["cotangents"]]

    def scalar(*a):
        return sum((o * c).sum() for o, c in zip(cell(*a), cots))
    grads = ms.grad(scalar, grad_position=None, weights=[params[n] for n in case["order"]])(*args)
    json.dump({"outputs": [o.asnumpy().tolist() for o in cell(*args)],
               "grads": [g.asnumpy().tolist() for g in grads]}, open(sys.argv[2], "w"))
""")


def test_embedding_bag_gives_torchs_values_and_weight_gradients_on_mindspore(tmp_path):
    import torch
    torch_namespace = {}
    exec(left.HEAD + left.EMBEDDING_BAG, torch_namespace)  # noqa: S102
    torch.manual_seed(0)
    net = torch_namespace["Memory"]()
    rng = np.random.RandomState(0)
    arrays = [rng.randn(3, 5).astype(np.float32), rng.randint(0, 12, (3, 5)),
              np.array([3, 0, 7, 7, 1, 0, 11, 5, 2]), np.array([0, 2, 2, 5])]
    outs = net(*[torch.tensor(a) for a in arrays])
    cots = [np.asarray(rng.randn(*o.shape), np.float32) for o in outs]
    order = [n for n, _ in net.named_parameters()]
    grads = torch.autograd.grad(sum((o * torch.tensor(c)).sum() for o, c in zip(outs, cots)),
                                list(net.parameters()))
    np.savez(tmp_path / "w.npz", **{n: p.detach().numpy() for n, p in net.named_parameters()})
    code = convert_source(left.HEAD + left.EMBEDDING_BAG, target="mindspore").code
    case = {"code": code, "name": "Memory", "weights": str(tmp_path / "w.npz"), "order": order,
            "inputs": [_enc(a) for a in arrays], "cotangents": [_enc(c) for c in cots]}
    got = run_on_mindspore(MODULE_DRIVER, case, tmp_path)
    for g, w in zip(got["outputs"], outs):
        np.testing.assert_allclose(np.array(g, np.float32), w.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert len(got["grads"]) == len(grads) == 3
    for g, w in zip(got["grads"], grads):
        np.testing.assert_allclose(np.array(g, np.float32), w.numpy(), rtol=1e-5, atol=1e-6)


def test_conv_geometry_written_after_construction_gives_torchs_values_on_mindspore(tmp_path):
    import torch
    torch_namespace = {}
    exec(left.HEAD + left.DILATED, torch_namespace)  # noqa: S102
    torch.manual_seed(0)
    net = torch_namespace["Encoder"]()
    x = np.random.RandomState(0).randn(2, 2, 9, 9).astype(np.float32)
    out = net(torch.tensor(x))
    cots = [np.random.RandomState(1).randn(*out.shape).astype(np.float32)]
    order = [n for n, _ in net.named_parameters()]
    grads = torch.autograd.grad((out * torch.tensor(cots[0])).sum(), list(net.parameters()))
    weights = {n: p.detach().numpy() for n, p in net.named_parameters()}
    np.savez(tmp_path / "w.npz", **weights)
    code = convert_source(left.HEAD + left.DILATED, target="mindspore").code
    code += "\n\nclass Wrapped(Encoder):\n    def construct(self, x):\n        return (super().construct(x),)\n"
    case = {"code": code, "name": "Wrapped", "weights": str(tmp_path / "w.npz"), "order": order,
            "inputs": [_enc(x)], "cotangents": [_enc(c) for c in cots]}
    got = run_on_mindspore(MODULE_DRIVER, case, tmp_path)
    np.testing.assert_allclose(np.array(got["outputs"][0], np.float32), out.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert len(got["grads"]) == len(grads)
    for g, w in zip(got["grads"], grads):
        np.testing.assert_allclose(np.array(g, np.float32), w.numpy(), rtol=1e-5, atol=1e-6)


def test_softmax_over_a_length_one_axis_leaves_another_softmaxs_gradient_right_on_mindspore(tmp_path):
    rng = np.random.RandomState(0)
    arrays = [rng.randn(4, 4, 12).astype(np.float32) for _ in range(3)]
    assert_same_as_torch_on_mindspore(left.SOFTMAX_LENGTH_ONE, "two_attentions", arrays, tmp_path)
