"""Oracle: a sample of each mapping table's proofs, converted with ``--target mindspore``, run on
real MindSpore 2.10 and compared with torch (values, dtypes, input gradients), as the proofs
compare ms_core with torch (tests/mappings/proof.py).

A table's proof module opts in with ``ORACLE = [code, ...]``: the ``code`` of the Expr cases to
run. ``ORACLE_WRONG_GRADIENT = {code: reason}`` names cases whose MindSpore 2.10 gradient is known
to be wrong (its CPU kernel's bug, listed in the README): their outputs must agree with torch and
their gradients must still differ, so that a fixed MindSpore shows up here.
``ORACLE_FORWARD_ONLY = {code: reason}`` names cases whose MindSpore 2.10 backward has no CPU
kernel: only their outputs are compared. Each module's sample
runs in one MindSpore process. Runs only where an interpreter with
mindspore is given by MS_ORACLE_PYTHON (see test_oracle.py).
"""
import importlib
import json
import subprocess
import textwrap

import numpy as np
import pytest

from migrate import convert_source

from .test_oracle import ORACLE, REPO, oracle_env

torch = pytest.importorskip("torch")

MODULES = sorted(p.stem for p in (REPO / "tests" / "mappings").glob("test_*_table.py"))
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

# Runs under MindSpore: each case's converted function on its inputs; the gradient of
# sum(out * cot) with respect to the float inputs when asked. Results (or the error) per case.
# DRIVER_HEAD (shared with test_oracle_training.py): the cases (argv[1]), their inputs (argv[2]),
# ``results`` and ``flat`` (outputs as a flat list of arrays)
DRIVER_HEAD = textwrap.dedent("""
    import json, sys, traceback
    import numpy as np
    import mindspore as ms
    ms.set_context(pynative_synchronize=True)   # an error is raised by the case that caused it
    cases = json.load(open(sys.argv[1]))
    data = np.load(sys.argv[2])
    results = {}
    def flat(out):
        if isinstance(out, (tuple, list)):
            return [v for item in out for v in flat(item)]
        return [out.asnumpy() if isinstance(out, ms.Tensor) else np.asarray(out)]
""")
DRIVER = DRIVER_HEAD + textwrap.dedent("""
    for i, case in enumerate(cases):
        try:
            ns = {}
            exec(compile(case["code"], f"<case {i}>", "exec"), ns)
            f = ns["f"]
            args = [ms.Tensor(data[f"{i}_in{j}"]) for j in range(case["n_inputs"])]
            outs = flat(f(*args))
            for j, o in enumerate(outs):
                results[f"{i}_out{j}"] = o
            if case["grad"]:
                cots = [ms.Tensor(data[f"{i}_cot{j}"]) for j in range(len(outs))]
                def scalar(*a):
                    out = f(*a)
                    out = out if isinstance(out, (tuple, list)) else (out,)
                    return sum((o * c).sum() for o, c in zip(out, cots))
                grads = ms.grad(scalar, grad_position=tuple(case["floats"]))(*args)
                grads = grads if isinstance(grads, tuple) else (grads,)
                for j, g in enumerate(grads):
                    results[f"{i}_grad{j}"] = g.asnumpy()
        except Exception:
            results[f"{i}_error"] = np.array(traceback.format_exc()[-1500:])
    np.savez(sys.argv[3], **results)
""")


def run_driver(tmp_path, driver: str, specs: list, data: dict):
    """Run ``driver`` (a DRIVER_HEAD script) under MindSpore on the case ``specs`` and input
    ``data``; returns its results (an npz file)."""
    (tmp_path / "cases.json").write_text(json.dumps(specs))
    np.savez(tmp_path / "data.npz", **data)
    (tmp_path / "driver.py").write_text(driver)
    proc = subprocess.run([ORACLE, str(tmp_path / "driver.py"), str(tmp_path / "cases.json"),
                           str(tmp_path / "data.npz"), str(tmp_path / "out.npz")],
                          capture_output=True, text=True, timeout=900,
                          env=oracle_env("mindspore"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return np.load(tmp_path / "out.npz")


def _sample(module_name):
    """The sampled Expr cases of one proof module, its {code: reason} of known-wrong gradients
    and the codes whose gradient is not run."""
    from tests.mappings.proof import Expr
    module = importlib.import_module(f"tests.mappings.{module_name}")
    wrong = getattr(module, "ORACLE_WRONG_GRADIENT", {})
    forward_only = set(getattr(module, "ORACLE_FORWARD_ONLY", {}))
    wanted = set(getattr(module, "ORACLE", [])) | set(wrong) | forward_only
    cases = [c for c in module.CASES if isinstance(c, Expr) and c.code in wanted]
    missing = wanted - {c.code for c in cases}
    assert not missing, f"ORACLE names codes with no Expr case: {sorted(missing)}"
    return cases, wrong, forward_only


def _torch_side(case, forward_only=False):
    """Inputs, torch's outputs and input gradients, and the cotangents, for one case."""
    from tests.mappings import proof
    values = proof._arrays(case)
    names = case.inputs if case.inputs is not None else proof._used_names(case.code, values)
    sig = ", ".join(f"{n}: torch.Tensor" for n in names)
    torch_code = f"{proof.HEADER}def f({sig}):\n    return {case.code}\n"
    arrays = [values[n] for n in names]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    grad = case.grad and case.check == "values" and bool(floats) and not forward_only
    t_in = [torch.tensor(a, requires_grad=grad and i in floats) for i, a in enumerate(arrays)]
    torch.manual_seed(0)
    out = proof._exec(torch_code, "torch")["f"](*t_in)
    ref = proof._flat(out)
    cots = proof._cotangents(ref)
    grads = []
    if grad:
        outs = out if isinstance(out, (tuple, list)) else [out]
        sum((o * torch.tensor(c)).sum() for o, c in zip(outs, cots) if c is not None).backward()
        grads = [t_in[i].grad.numpy() if t_in[i].grad is not None else np.zeros_like(arrays[i]) for i in floats]
    converted = convert_source(torch_code, target="mindspore")
    assert converted.error is None and "# migrate: MS9" not in converted.code, converted.code
    return converted.code, arrays, floats, grad, ref, cots, grads


def _compare(label, got, want, case, index=None):
    if not isinstance(want, np.ndarray):   # a Python number or bool: compare the value
        assert got.shape == () and np.isclose(got, want, rtol=case.rtol, atol=case.atol), f"{label}: {got} vs {want}"
        return
    assert got.shape == want.shape, f"{label}: shape {got.shape} vs torch {want.shape}"
    expect = case.dtype[index] if isinstance(case.dtype, tuple) and index is not None else \
        case.dtype if isinstance(case.dtype, str) and index is not None else None
    expect = expect or want.dtype.name
    assert got.dtype.name == expect, f"{label}: dtype {got.dtype} vs {expect}"
    if case.check != "values":
        return
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=label)
    else:
        # MindSpore's float32 CPU kernels differ from torch's in the last digits
        np.testing.assert_allclose(got, want, rtol=max(case.rtol, 2e-5), atol=max(case.atol, 1e-6), err_msg=label)


@pytest.mark.parametrize("module_name", MODULES)
def test_sampled_entries_give_torchs_numbers_on_mindspore(module_name, tmp_path):
    cases, wrong, forward_only = _sample(module_name)
    if not cases:
        pytest.skip(f"{module_name} has no ORACLE sample")
    specs, data, expected = [], {}, []
    for i, case in enumerate(cases):
        code, arrays, floats, grad, ref, cots, grads = _torch_side(case, case.code in forward_only)
        specs.append({"code": code, "n_inputs": len(arrays), "grad": grad, "floats": floats})
        for j, a in enumerate(arrays):
            data[f"{i}_in{j}"] = a
        for j, c in enumerate(cots):
            data[f"{i}_cot{j}"] = c if c is not None else np.zeros(np.shape(ref[j]), np.float32)
        expected.append((ref, grads))
    got = run_driver(tmp_path, DRIVER, specs, data)
    failures = []
    for i, (case, (ref, grads)) in enumerate(zip(cases, expected)):
        label = f"{case.api}: {case.code}"
        try:
            assert f"{i}_error" not in got, f"raised on MindSpore:\n{got[f'{i}_error']}"
            for j, want in enumerate(ref):
                _compare(f"{label} output[{j}]", got[f"{i}_out{j}"], want, case, j)
            if case.code in wrong:
                same = all(np.allclose(got[f"{i}_grad{j}"], want, rtol=1e-4, atol=1e-5) for j, want in enumerate(grads))
                assert not same, f"MindSpore's gradient now agrees with torch's ({wrong[case.code]}): " \
                                 "move the case to ORACLE and the README's list"
                continue
            for j, want in enumerate(grads):
                _compare(f"{label} gradient[{j}]", got[f"{i}_grad{j}"], want, case)
        except AssertionError as exc:
            failures.append(f"{label}\n  {str(exc).strip()[:800]}")
    assert not failures, f"{len(failures)} of {len(cases)} sampled entries differ on MindSpore 2.10:\n" + \
        "\n".join(failures)


def test_every_oracle_sample_names_real_cases():
    for name in MODULES:
        _sample(name)

