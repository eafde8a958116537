"""Annotations and isinstance with torch types (issue 10 class 5): mapped types convert; an
annotation naming a torch type with no mapping becomes text, so the module imports without torch."""
import re
import textwrap
from typing import Optional

import pytest

from migrate import convert_source
from migrate.convert.guards import STUB
from tests.migrate.convert.torchless import torch_blocked

SRC = '''\
import torch
import torch.nn as nn
from typing import List, Optional, Tuple


def f(x: torch.Tensor, device: Optional[torch.device] = None, dtype: torch.dtype = torch.float32) -> Tuple[torch.Tensor, torch.Size]:
    return x, x.shape


class Head(nn.Module):
    shape: torch.Size
    blocks: List[nn.Module]

    def forward(self, x: Optional[torch.Tensor]) -> torch.Tensor:
        if isinstance(x, torch.Tensor) and isinstance(self, nn.Module):
            return x
        return x
'''  # noqa: E501


def test_mapped_types_convert_and_unmapped_ones_become_text():
    out = convert_source(SRC).code
    assert convert_source(out).code == out
    # torch.Size is mapped: MindSpore shapes are tuples; a converted device is None (MS162);
    # torch.dtype is the target's dtype class
    assert ('def f(x: ms.Tensor, device: Optional[type(None)] = None, dtype: ms.common.dtype.Type = ms.float32)'
            ' -> Tuple[ms.Tensor, tuple]:') in out
    assert '    shape: tuple\n    blocks: List[nn.Cell]\n' in out
    assert "def construct(self, x: Optional[ms.Tensor]) -> ms.Tensor:" in out
    assert "isinstance(x, ms.Tensor) and isinstance(self, nn.Cell)" in out
    assert not re.search(r"^\s*import torch\b", out, re.M) and STUB not in out  # text needs no import


def test_the_converted_module_imports_without_torch():
    out = convert_source(SRC).code
    ns: dict = {}
    with torch_blocked():
        exec(compile(out, "<converted>", "exec"), ns)
    assert ns["f"].__annotations__["device"] == Optional[type(None)]


def test_a_string_annotation_is_left_alone():
    src = "import torch\ndef f(g: 'torch.Generator', x: torch.Tensor):\n    return x\n"
    out = convert_source(src).code
    assert "def f(g: 'torch.Generator', x: ms.Tensor):" in textwrap.dedent(out)


def test_a_subclass_of_a_marked_torch_class_imports_and_fails_only_when_built():
    """``class Loader(DataLoader)`` over an unmapped torch base: the module still imports where
    torch is absent (monai.data does this at import); building one raises the marker's reason."""
    src = ("from torch.utils.data import DataLoader as _DL\n\nclass Loader(_DL):\n"
           "    def __init__(self, ds, **kw):\n        super().__init__(ds, **kw)\n")
    out = convert_source(src).code
    assert "# migrate: MS901 torch.utils.data.DataLoader has no mapping" in out
    ns: dict = {}
    with torch_blocked():
        exec(compile(out, "<converted>", "exec"), ns)
        with pytest.raises(ImportError, match=r"torch.utils.data.DataLoader\(\): MS901 .*does not use torch"):
            ns["Loader"]([1, 2])
