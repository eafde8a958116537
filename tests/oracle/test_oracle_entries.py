"""Oracle for mapping entries: a sample of each table's proof cases (tests/mappings), converted
with ``--target mindspore`` and run on real MindSpore 2.10, must give torch's values and dtypes
(and gradients, where the case compares them) as the ms_core conversion does.

All sampled cases of a table run in one MindSpore process (importing MindSpore takes seconds);
inputs and results cross as JSON. Cases whose entry is known not to run on MindSpore 2.10's CPU
backend are left out of the sample with the reason (the entries carry it in their notes).
"""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from migrate import convert_source
from tests.mappings import proof

from .test_oracle import ORACLE, oracle_env

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

# entries left out of the sample, with why: MindSpore 2.10's CPU backend cannot run them
NO_CPU_KERNEL = {
    "Tensor.unique": "Unique2 has no CPU kernel",
    "Tensor.scatter_add": "ScatterAddExt has no CPU kernel", "Tensor.scatter_add_": "ScatterAddExt",
    "Tensor.index_fill": "IndexFill takes Int32 indices", "Tensor.index_fill_": "IndexFill (Int32)",
    "Tensor.half": "float16 printing/rounding is not what is compared here",
}
# cases whose MindSpore 2.10 result is itself wrong (README, "knowingly differs"), with why
MINDSPORE_WRONG = {
    "x.cross(y[:1], dim=1)": "Cross does not broadcast on CPU: the second batch is crossed with garbage",
    "x.index_put((i, j), v[:4])": "IndexPut's gradient fails for values broadcast along the last axis",
    "x.index_put((i, j), v[:4] * 2, accumulate=True)": "IndexPut's gradient (values along the last axis)",
    "(lambda z: z.index_put_((i, j), v[:4], True))(x * 1)": "IndexPut's gradient (values along the last axis)",
    "x.index_put((mask[:, 0, 0],), v[:1], True)": "IndexPut takes Int32/Int64 indices only, not a bool mask",
    "x.cumsum(1, dtype=torch.float64)": "the gradient through Cast(float32 -> float64) under a float64 "
                                        "cotangent comes back float64 (values right; ms_core and torch: float32)",
}

DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindspore as ms
    cases = json.load(open(sys.argv[1]))
    out = []

    def flat(o):
        if isinstance(o, (tuple, list)):
            return [v for i in o for v in flat(i)]
        if isinstance(o, ms.Tensor):
            a = o.asnumpy()
            return [{"dtype": a.dtype.name, "shape": list(a.shape), "data": a.ravel().tolist()}]
        if isinstance(o, np.ndarray):
            return [{"dtype": o.dtype.name, "shape": list(o.shape), "data": o.ravel().tolist()}]
        if isinstance(o, (bool, int, float)):
            return [{"value": o}]
        return [{"value": repr(o)}]

    for case in cases:
        try:
            ns = {}
            exec(compile(case["code"], "<converted>", "exec"), ns)
            f = ns["f"]
            args = [ms.Tensor(np.array(a["data"], dtype=a["dtype"]).reshape(a["shape"])) for a in case["inputs"]]
            res = {"outputs": flat(f(*args))}
            if case["grad"]:
                cots = [None if c is None else ms.Tensor(np.array(c["data"], dtype=c["dtype"]).reshape(c["shape"]))
                        for c in case["cotangents"]]
                def scalar(*a):
                    o = f(*a)
                    o = o if isinstance(o, (tuple, list)) else [o]
                    return sum((x * c).sum() for x, c in zip(o, cots) if c is not None)
                g = ms.grad(scalar, grad_position=tuple(case["floats"]))(*args)
                res["grads"] = flat(g if isinstance(g, tuple) else (g,))
        except Exception as exc:
            res = {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"}
        out.append(res)
    json.dump(out, open(sys.argv[2], "w"))
""")


def _enc(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "data": a.ravel().tolist()}


def _dec(d):
    if "value" in d:
        return d["value"]
    return np.array(d["data"], dtype=d["dtype"]).reshape(d["shape"])


def _torch_reference(case):
    """(converted code, inputs, float positions, torch outputs, cotangents, torch gradients)."""
    import torch
    values = proof._arrays(case)
    names = case.inputs if case.inputs is not None else proof._used_names(case.code, values)
    sig = ", ".join(f"{n}: torch.Tensor" for n in names)
    torch_code = f"{proof.HEADER}def f({sig}):\n    return {case.code}\n"
    res = convert_source(torch_code, target="mindspore")
    assert res.error is None and "# migrate: MS9" not in res.code, res.code
    arrays = [values[n] for n in names]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    grad = case.grad and case.check == "values"
    t_in = [torch.tensor(a, requires_grad=grad and i in floats) for i, a in enumerate(arrays)]
    t_out = proof._exec(torch_code, "torch")["f"](*t_in)
    ref = proof._flat(t_out)
    cots, t_grads = None, None
    if grad:
        cots = proof._cotangents(ref)
        outs = t_out if isinstance(t_out, (tuple, list)) else [t_out]
        sum((o * torch.tensor(c)).sum() for o, c in zip(outs, cots) if c is not None).backward()
        t_grads = [t_in[i].grad.numpy() if t_in[i].grad is not None else np.zeros_like(arrays[i])
                   for i in floats]
    return res.code, arrays, floats, ref, cots, t_grads


def _sample(module: str, every: int) -> list:
    """Every `every`-th Expr case of a table's proof module (values compared), minus NO_CPU_KERNEL
    and MINDSPORE_WRONG."""
    import importlib
    cases = [c for c in importlib.import_module(f"tests.mappings.{module}").CASES
             if isinstance(c, proof.Expr) and c.check == "values" and c.api not in NO_CPU_KERNEL
             and c.code not in MINDSPORE_WRONG]
    return cases[::every]


@pytest.mark.parametrize("module,every", [("test_tensor_table", 1)])
def test_sampled_entries_give_torchs_results_on_mindspore(module, every, tmp_path):
    cases = _sample(module, every)
    refs = [_torch_reference(c) for c in cases]
    payload = [{"code": code, "inputs": [_enc(a) for a in arrays], "floats": floats,
                "grad": t_grads is not None,
                "cotangents": None if cots is None else [None if c is None else _enc(c) for c in cots]}
               for code, arrays, floats, _, cots, t_grads in refs]
    (tmp_path / "cases.json").write_text(json.dumps(payload))
    (tmp_path / "driver.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path / "cases.json"),
                           str(tmp_path / "out.json")], capture_output=True, text=True, timeout=900,
                          env=oracle_env("mindspore"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((tmp_path / "out.json").read_text())
    failures = []
    for case, (code, _, _, ref, _, t_grads), got in zip(cases, refs, results):
        try:
            assert "error" not in got, got.get("error")
            proof._compare(f"{case.code} on MindSpore", [_dec(o) for o in got["outputs"]], ref, case)
            if t_grads is not None:
                proof._compare(f"{case.code} gradient on MindSpore", [_dec(g) for g in got["grads"]],
                               t_grads, case)
        except AssertionError as exc:
            failures.append(f"{case.api}: {case.code}\n  converted: {code.splitlines()[-1].strip()}\n  {exc}")
    assert not failures, f"{len(failures)} of {len(cases)} sampled cases differ:\n" + "\n".join(failures)


MODULE_DRIVER = textwrap.dedent("""
    import importlib.util, json, sys
    import numpy as np
    module_path, weights_path, out_path, ms_name = sys.argv[1:5]
    ms = __import__(ms_name)
    spec = importlib.util.spec_from_file_location("converted", module_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    net = mod.Net()
    weights = np.load(weights_path)
    for name, p in net.parameters_and_names():
        p.set_data(ms.Tensor(weights[name]))
    x = ms.Tensor(weights["__input__"])
    names = mod.listing(net)
    out, training, evaluating, same = mod.use(net, x)
    json.dump({"listing": names, "out": out.asnumpy().tolist(), "modes": [training, evaluating, same],
               "grad": ms.grad(lambda t: (net(t) * 3).sum())(x).asnumpy().tolist()}, open(out_path, "w"))
""")


def test_module_methods_convert_to_the_same_calls_on_mindspore(tmp_path):
    from tests.migrate.convert.test_module_methods import SOURCE, X
    extra = textwrap.dedent("""\
        def listing(net: nn.Module):
            return ([n for n, _ in net.named_parameters()], len(list(net.parameters())),
                    [n for n, _ in net.named_modules()], [n for n, _ in net.named_children()],
                    len(list(net.children())), len(list(net.block.buffers())))

        def init(m):
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0.1)

        def use(net: nn.Module, x):
            net.apply(init)
            fc = net.get_submodule("block.fc")
            net.train()
            training = fc.training
            net.eval()
            return net.forward(x), training, fc.training, net.cpu() is net
        """)
    src = proof.HEADER + SOURCE + extra
    results = {}
    for target in ("ms_core", "mindspore"):
        res = convert_source(src, target=target)
        assert res.error is None and "# migrate: MS9" not in res.code, res.code
        (tmp_path / f"{target}_model.py").write_text(res.code)
    ns = {}
    exec(compile((tmp_path / "ms_core_model.py").read_text(), "ms_core_model.py", "exec"), ns)
    rng = np.random.default_rng(0)
    weights = {n: rng.standard_normal(p.shape).astype(np.float32) for n, p in ns["Net"]().parameters_and_names()}
    np.savez(tmp_path / "w.npz", __input__=X, **weights)
    (tmp_path / "driver.py").write_text(MODULE_DRIVER)
    for target, python in (("ms_core", sys.executable), ("mindspore", ORACLE)):
        proc = subprocess.run([python, str(tmp_path / "driver.py"), str(tmp_path / f"{target}_model.py"),
                               str(tmp_path / "w.npz"), str(tmp_path / f"{target}.json"), target],
                              capture_output=True, text=True, timeout=600,
                              env=oracle_env(target))
        assert proc.returncode == 0, f"{target}:\n{proc.stderr[-3000:]}"
        results[target] = json.loads((tmp_path / f"{target}.json").read_text())
    ours, theirs = results["ms_core"], results["mindspore"]
    assert ours["listing"] == theirs["listing"] and ours["modes"] == theirs["modes"] == [True, False, True]
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(ours["grad"], theirs["grad"], rtol=2e-5, atol=1e-6)
