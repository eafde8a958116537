"""Oracle: tests/fixtures/training/parts/bare_samples.py (a DataLoader over samples that are not
tuples) converted with --target mindspore and run on real MindSpore 2.10: torch's batches (the
stacked samples, not a list of one column; the dataset indexed by Python ints)."""
import textwrap
from pathlib import Path

import numpy as np
import pytest

from migrate import convert_source

from .test_oracle import ORACLE
from .test_oracle_first_pass_left import _dec, _enc, run_on_mindspore

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "training" / "parts" / "bare_samples.py"

DRIVER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mindspore as ms
    case = json.load(open(sys.argv[1]))
    ns = {}
    exec(compile(case["code"], "<converted>", "exec"), ns)
    def tensor(d):
        return ms.Tensor(np.array(d["data"], dtype=d["dtype"]).reshape(d["shape"]))
    def enc(t):
        a = t.asnumpy()
        return {"dtype": a.dtype.name, "shape": list(a.shape), "data": a.ravel().tolist()}
    out = {"windows": [enc(t) for t in ns["window_sums"](tensor(case["tokens"]))],
           "dicts": [enc(t) for t in ns["dict_batches"](tensor(case["x"]))]}
    json.dump(out, open(sys.argv[2], "w"))
""")


def test_a_loader_over_bare_samples_gives_torchs_batches_on_mindspore(tmp_path):
    src = FIXTURE.read_text()
    code = convert_source(src, target="mindspore").code
    assert "DataLoaderTorch(" in code and "# migrate: MS9" not in code, code
    namespace = {"__name__": "bare_samples_torch"}
    exec(compile(src, str(FIXTURE), "exec"), namespace)  # noqa: S102
    tokens = np.arange(11, dtype=np.float32) * 0.5
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    want_windows = namespace["window_sums"](torch.tensor(tokens))
    want_dicts = namespace["dict_batches"](torch.tensor(x))
    got = run_on_mindspore(DRIVER, {"code": code, "tokens": _enc(tokens), "x": _enc(x)}, tmp_path)
    for key, want in (("windows", want_windows), ("dicts", want_dicts)):
        assert len(got[key]) == len(want) == 2
        for g, w in zip(got[key], want):
            np.testing.assert_allclose(_dec(g), w.numpy(), rtol=1e-5, atol=1e-6)
