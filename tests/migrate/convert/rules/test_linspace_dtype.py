"""torch.linspace(..., dtype=d) (MS161): the generated torch_linspace computes in float64 for
float64 (else float32) and casts, as torch's does (an integer dtype truncates toward zero), on
ms_core against torch, and with --target mindspore on MindSpore 2.10 when it is available."""
import json
import subprocess

import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

SOURCE = """\
import torch


def grid(dtype, start=-3, end=7.5, steps=6):
    return torch.linspace(start, end, steps, device="cpu", dtype=dtype)


def fixed():
    return [torch.linspace(0, 10, 4, dtype=torch.long), torch.linspace(-5, 5, 4, dtype=torch.int32),
            torch.linspace(0, 1, 7, dtype=torch.float64), torch.linspace(3, -3, 6, dtype=torch.int64),
            torch.linspace(0, 1, 5, dtype=None)]
"""
DTYPES = ["float32", "float64", "int64", "int32", None]


def _cases(mod, dt):
    outs = [mod.grid(None if d is None else getattr(dt, d)) for d in DTYPES]
    return outs + mod.fixed()


def test_linspace_with_a_dtype_matches_torch():
    code = convert_source(SOURCE).code
    assert "torch_linspace(start, end, steps, dtype=dtype)" in code and "# migrate" not in code, code
    assert convert_source(code).code == code
    ns_t, ns_m = {}, {}
    exec(SOURCE, ns_t)
    exec(code, ns_m)
    for ref, out in zip(_cases(type("T", (), ns_t), torch), _cases(type("M", (), ns_m), ms)):
        ref = ref.numpy()
        out = out.asnumpy()
        assert out.dtype == ref.dtype, (out.dtype, ref.dtype)
        np.testing.assert_allclose(out, ref, rtol=1e-12 if ref.dtype == np.float64 else 1e-6, atol=0)


DRIVER = """
import json, sys
import numpy as np
import mindspore as ms
ns = {}
exec(open(sys.argv[1]).read(), ns)
outs = [ns["grid"](None if d is None else getattr(ms, d)) for d in json.loads(sys.argv[2])] + ns["fixed"]()
print(json.dumps([[str(o.asnumpy().dtype), o.asnumpy().tolist()] for o in outs]))
"""


def test_linspace_with_a_dtype_matches_torch_on_mindspore(tmp_path):
    from tests.oracle.test_oracle import ORACLE, REPO
    if ORACLE is None:
        pytest.skip("real MindSpore is not available (set MS_ORACLE_PYTHON)")
    (tmp_path / "m.py").write_text(convert_source(SOURCE, target="mindspore").code)
    (tmp_path / "d.py").write_text(DRIVER)
    proc = subprocess.run([ORACLE, str(tmp_path / "d.py"), str(tmp_path / "m.py"), json.dumps(DTYPES)],
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(REPO), "GLOG_v": "3", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    ns_t = {}
    exec(SOURCE, ns_t)
    for (dtype, values), ref in zip(got, _cases(type("T", (), ns_t), torch)):
        ref = ref.numpy()
        assert dtype == str(ref.dtype)
        np.testing.assert_allclose(np.array(values, dtype=ref.dtype), ref,
                                   rtol=1e-12 if ref.dtype == np.float64 else 1e-6, atol=0)
