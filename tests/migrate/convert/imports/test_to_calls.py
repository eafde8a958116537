"""`.to(...)` reaches its final form in one conversion (issue 10 class 11): a dtype is never lost
with the device, a torch name only a dropped argument held keeps no import, and a parameter the
first conversion typed as a module or tensor is typed the same way the second time.
The numeric half is the fixture tests/fixtures/imports/to_calls.py (test_import_fixtures.py)."""
import re
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.torchless import torch_blocked

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

HEADER = "import torch\nimport torch.nn as nn\n"


def once(src: str) -> str:
    out = convert_source(HEADER + src)
    assert out.error is None, out.error
    assert convert_source(out.code).code == out.code
    return out.code


def test_positional_dtype_after_the_device_is_kept_even_without_a_mapping():
    code = once("def f(t: torch.Tensor, d):\n    return t.to(d, torch.float16), t.to('cuda', torch.float8_e4m3fn)\n")
    assert "return t.astype(ms.float16), t.astype(torch.float8_e4m3fn)" in code
    assert "# migrate: MS901 torch.float8_e4m3fn has no mapping" in code


def test_non_blocking_is_not_a_dtype():
    code = once("def f(t: torch.Tensor):\n    return t.to(torch.float64, True)\n")
    assert "return t.astype(ms.float64)" in code


def test_to_another_tensor_takes_its_dtype():
    code = once("def f(t: torch.Tensor, u: torch.Tensor):\n    return t.to(u)\n")
    assert "return t.astype(u.dtype)" in code
    ns: dict = {}
    with torch_blocked():
        exec(compile(code, "<converted>", "exec"), ns)
    t, u = np.arange(3, dtype=np.float32), np.zeros(2, dtype=np.float64)
    ref = torch.from_numpy(t).to(torch.from_numpy(u))
    got = ns["f"](ms.Tensor(t), ms.Tensor(u))
    assert got.dtype == ms.float64 and ref.dtype == torch.float64
    np.testing.assert_array_equal(got.asnumpy(), ref.numpy())


def test_a_torch_name_only_in_a_dropped_argument_needs_no_import():
    code = once("def f(x):\n    return x.to(dtype=torch.float16, memory_format=torch.channels_last)\n")
    assert not re.search(r"^\s*import torch\b", code, re.M) and "return x.astype(ms.float16)" in code


def test_module_annotation_types_the_parameter_on_the_second_conversion_too():
    code = once("def f(m: nn.Module, d):\n    y = torch.fft.hfft(d)\n    return m.to(device=d, dtype=torch.float16)\n")
    assert "def f(m: nn.Cell, d):" in code
    # a Cell's parameters cast by the generated torch_to, not turned into astype
    assert "return torch_to(m, device=d, dtype=ms.float16)" in code


# Files that keep torch for marked code are walked again by a second conversion: the methods the
# first one translated must be recognised in their target form (vit_pytorch: 10 files gained an
# MS903 marker on `.softmax(axis=-1)`; a ddof written by the std rule was marked MS915).
@pytest.mark.parametrize("call", ["x.softmax(dim=-1)", "x.log_softmax(dim=1)", "x.std()",
                                  "x.var(dim=0)", "torch.tensor([1.0, 2.0]).std()"])
def test_methods_in_target_form_are_left_alone_when_torch_stays(call):
    code = once(f"def f(x: torch.Tensor):\n    keep = torch.fft.hfft(x)\n    return {call}\n")
    assert "MS903" not in code and "MS915" not in code


def test_an_unknown_keyword_is_still_marked_when_torch_stays():
    code = once("def f(x: torch.Tensor):\n    keep = torch.fft.hfft(x)\n    return x.softmax(bogus=1)\n")
    assert "# migrate: MS903 Tensor.softmax: unknown argument bogus=" in code


def test_std_with_numpy_style_axis_but_no_ddof_is_not_taken_for_the_target_form():
    # torch accepts axis= for dim=; without ddof it is torch's call (n - 1), never left as is:
    # translated as dim=0 with torch's n - 1
    code = once("def f(x: torch.Tensor):\n    keep = torch.fft.hfft(x)\n    return x.std(axis=0)\n")
    assert "return x.std(axis=0, ddof=1)" in code
