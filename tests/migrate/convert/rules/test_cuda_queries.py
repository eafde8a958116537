"""CUDA device queries (torch.cuda.get_device_properties & co.) where the converter answers
torch.cuda.is_available() with False: the generated torch_no_cuda raises, as torch does on a
machine without CUDA (the fixture tests/fixtures/convert/cuda_config.py takes the CPU path)."""
import pytest
import torch

from migrate import convert_source

QUERIES = ["get_device_properties(0)", "get_device_name()", "get_device_capability()", "current_device()",
           "mem_get_info()"]


@pytest.mark.parametrize("query", QUERIES)
def test_a_cuda_query_raises_where_torch_without_cuda_raises(query):
    name = query.split("(")[0]
    code = convert_source(f"import torch\nx = torch.cuda.{query}\n").code
    assert "# migrate:" not in code and f"torch_no_cuda('torch.cuda.{name}'" in code
    if not torch.cuda.is_available():  # torch's answer on this machine
        with pytest.raises((AssertionError, RuntimeError)):
            eval(f"torch.cuda.{query}")
    with pytest.raises(RuntimeError, match=f"For 'torch.cuda.{name}', there is no CUDA device"):
        exec(code, {"__name__": "converted"})
