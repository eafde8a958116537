"""Capability and version probes (issue 10 class A) are answered when converting, the way torch
2.13 answers them and consistent with what the conversion provides."""
import textwrap

import pytest

from migrate import convert_source
from migrate.convert.probes import _version
from tests.migrate.convert.helpers import without_guards

torch = pytest.importorskip("torch")


def convert(src: str) -> str:
    res = convert_source("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
                         + textwrap.dedent(src))
    assert res.error is None
    assert convert_source(res.code).code == res.code
    lines = without_guards(res.code).splitlines(keepends=True)
    return "".join(ln for ln in lines if not ln.startswith(("import ", "from ")))  # the target imports


@pytest.mark.parametrize("probe,answer", [
    ("hasattr(torch.nn.functional, 'silu')", "True"),
    ("hasattr(F, 'gelu')", "True"),
    ("hasattr(nn, 'SiLU')", "True"),
    ("hasattr(nn, 'NoSuchLayer')", "False"),
    ("'silu' in dir(torch.nn.functional)", "True"),
    ("'silu' not in dir(F)", "False"),
    ("'nothing' in dir(F)", "False"),
    ("hasattr(torch.Tensor, 'view')", "True"),
])
def test_capability_probes_are_answered(probe, answer):
    # the same probe evaluated by torch (the version the mappings follow)
    assert str(eval(probe, {"torch": torch, "nn": torch.nn, "F": torch.nn.functional})) == answer \
        or answer == "False"
    assert convert(f"ok = {probe}\n") == f"ok = {answer}\n"


def test_a_probe_torch_answers_yes_but_the_tables_do_not_map_is_marked():
    out = convert("flash = hasattr(F, 'some_function_torch_has')\n".replace(
        "some_function_torch_has", "ctc_loss"))
    assert out.startswith("# migrate: MS901 torch.nn.functional.ctc_loss has no mapping: the probe is answered False")
    assert out.endswith("flash = False\n")


def test_getattr_probes_give_the_converted_function_or_the_default():
    # the same as the function named directly (a value: the torch-signature function of MS182)
    assert convert("act = getattr(F, 'gelu', None)\n") == convert("act = F.gelu\n")
    assert "gelu" in convert("act = F.gelu\n")
    assert convert("act = getattr(F, 'no_such_fn', F.relu)\n") == convert("act = F.relu\n")
    # a name known only at run time is a function passed as a value (not a probe): marked
    assert convert("act = getattr(F, name, None)\n").endswith("\nact = getattr(F, name, None)\n")


@pytest.mark.parametrize("probe,answer", [
    ("torch.__version__ < '1.5'", "False"),
    ("torch.__version__ >= '2.2'", "True"),        # as a version: 2.13 >= 2.2 (as strings it would be False)
    ("'1.10.0' <= torch.__version__", "True"),
])
def test_version_comparisons_are_answered_as_torch_versions_compare(probe, answer):
    assert str(eval(probe, {"torch": torch})) == answer
    assert convert(f"ok = {probe}\n") == f"ok = {answer}\n"


def test_version_as_a_value_is_a_literal():
    out = convert("major = int(torch.__version__.split('.')[0])\n")
    assert out == "major = int('2.13.0'.split('.')[0])\n"


@pytest.mark.parametrize("probe,answer", [
    ("torchvision.__version__ < '0.9'", "True"),     # a plain string in torchvision: '0.28.0' < '0.9'
    ("torchvision.__version__ >= '0.10'", "True"),
    ("version.parse(torchvision.__version__) < version.parse('0.7')", "version.parse('0.28.0') < version.parse('0.7')"),
])
def test_torchvisions_version_is_the_one_released_with_torch(probe, answer):
    """torchvision 0.28 came with torch 2.13 (detr's util/misc.py reads it to choose its code)."""
    assert convert(f"import torchvision\nfrom packaging import version\nok = {probe}\n") == f"ok = {answer}\n"


def test_version_parts():
    assert _version("1.13.0+cu117") == (1, 13)
    assert _version("2.2") < _version("2.13.0")
