"""MS169: contexts that change no value of the converted code are unwrapped -- attention-kernel
selection (sdp_kernel / sdpa_kernel) and autocast(enabled=False) -- and nothing else is."""
import numpy as np
import pytest
import torch

import ms_core as ms
from migrate import convert_source

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch.cuda.amp import autocast\n"
SRC = HEADER + '''
@autocast(enabled=False)
def scale(x):
    return x * 2


def attn(q, k, v, flags):
    with torch.backends.cuda.sdp_kernel(**flags):
        out = F.scaled_dot_product_attention(q, k, v)
    with torch.autocast("cpu", enabled=False), torch.no_grad():
        out = scale(out) + 1
    return out
'''


def test_value_free_contexts_are_unwrapped_and_the_result_is_torch_s():
    res = convert_source(SRC)
    assert "sdp_kernel" not in res.code and "autocast" not in res.code and "# migrate" not in res.code
    assert convert_source(res.code).code == res.code
    assert {c.rule for c in res.changes} >= {"MS169"}
    tns, cns = {}, {}
    exec(SRC, tns)
    exec(res.code, cns)
    q, k, v = (np.random.default_rng(i).standard_normal((2, 3, 5, 4)).astype(np.float32) for i in range(3))
    flags = {"enable_flash": False, "enable_math": True, "enable_mem_efficient": False}
    with pytest.warns(FutureWarning):  # torch deprecates sdp_kernel for sdpa_kernel; same meaning
        want = tns["attn"](*map(torch.from_numpy, (q, k, v)), flags).numpy()
    got = cns["attn"](*map(ms.Tensor, (q, k, v)), flags).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("src, marker", [
    ("@torch.autocast('cuda')\ndef f(x):\n    return x\n", "MS901 torch.autocast"),
    ("@autocast(enabled=on)\ndef f(x):\n    return x\n", "MS901 torch.cuda.amp.autocast"),
])
def test_an_enabled_or_unknown_autocast_decorator_stays_marked(src, marker):
    assert f"# migrate: {marker}" in convert_source(HEADER + src).code
