"""Training-script classes seen on real code (nanoGPT, minGPT): converted before/after pairs and
runs against torch."""
import numpy as np
import pytest

from migrate import convert_source

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


def _run(code: str) -> dict:
    ns = {"__name__": "converted"}
    exec(code, ns)
    return ns


def test_bfloat16_in_a_dtype_table_converts_and_the_float32_path_runs():
    """nanoGPT: {'float32': torch.float32, 'bfloat16': torch.bfloat16, ...}[dtype] builds; the
    float32 entry computes as torch does; bfloat16 is named, not computed in on ms_core."""
    src = ("import torch\n"
           "def pick(dtype):\n"
           "    table = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}\n"
           "    return torch.ones(2, dtype=table[dtype]) * 1.5\n")
    res = convert_source(src)
    assert "'bfloat16': ms.bfloat16" in res.code and "MS9" not in res.code, res.code
    ns = _run(res.code)
    assert ns["pick"]("float32").asnumpy().tolist() == torch.ones(2).mul(1.5).tolist()
    assert ns["pick"]("float32").dtype == ms.float32
    with pytest.raises(TypeError, match="no bfloat16"):
        ns["pick"]("bfloat16")
