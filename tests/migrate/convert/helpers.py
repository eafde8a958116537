"""Helpers for before/after converter tests."""
import textwrap
from pathlib import Path

import libcst as cst

from migrate import convert_source
from migrate.convert.cst import code_of
from migrate.convert.guards import is_guard

TESTS = Path(__file__).resolve().parents[2]  # tests/
REPO = TESTS.parent
FIXTURE_ROOT = TESTS / "fixtures"

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def split_generated(code: str) -> tuple[str, str]:
    """(what the converter wrote to reach the runtime: its import line, or the inlined block;
    the code without it) of a converted file."""
    import libcst as cst
    from migrate.convert.torch_signature import runtime_statements
    module = cst.parse_module(code)
    block = runtime_statements(module.body)
    if not block:
        return "", code
    rest = [st for st in module.body if not any(st is b for b in block)]
    generated = module.with_changes(body=block).code
    return generated, module.with_changes(body=rest).code


def body(code: str, target: str = "ms_core"):
    """Convert ``HEADER + code`` and return (the converted code after the import block and the
    generated torch-signature block, result)."""
    src = HEADER + textwrap.dedent(code)
    res = convert_source(src, target)
    assert res.error is None, res.error
    lines = without_guards(split_generated(res.code)[1]).splitlines()
    # drop the generated import block
    i = 0
    while i < len(lines) and (lines[i].startswith(("import ", "from ")) or not lines[i].strip()):
        i += 1
    return "\n".join(lines[i:]) + "\n", res


def after(code: str, target: str = "ms_core") -> str:
    return body(code, target)[0]


def check(before: str, expected: str, target: str = "ms_core"):
    got, res = body(before, target)
    assert got == textwrap.dedent(expected), got
    return res


def without_guards(code: str) -> str:
    """``code`` without the guards of torch imports that stay, the TYPE_CHECKING import they use
    and the import of their stand-in (TorchMissing, from the runtime) (:mod:`migrate.convert.guards`),
    which tests of other rules do not look at."""
    import re
    module = cst.parse_module(code)
    body = [st for st in module.body if not (is_guard(st) or code_of(st).strip() == "from typing import TYPE_CHECKING")]
    if len(body) != len(module.body):
        code = module.with_changes(body=body).code
        code = re.sub(r"^from migrate_runtime import TorchMissing\n", "", code, flags=re.M)
        code = re.sub(r"^(from migrate_runtime import .*)TorchMissing, ", r"\1", code, flags=re.M)
        return code
    return code


def both_sides(src: str, expect: str) -> tuple[dict, dict]:
    """Convert ``src`` (no marker, ``expect`` in the output, converting again changes nothing)
    and run both: (torch namespace, converted namespace)."""
    from migrate import convert_source
    res = convert_source(src)
    assert "# migrate" not in res.code and expect in res.code, res.code
    assert convert_source(res.code).code == res.code
    tns, cns = {}, {}
    exec(src, tns)
    exec(res.code, cns)
    return tns, cns


def load_module(name: str, path):
    """Import the file ``path`` as module ``name`` (registered, so torch can pickle its classes)."""
    import importlib.util
    import sys
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def fixture_pair(path, out_dir, expect: str = ""):
    """Convert the fixture file ``path`` (no marker, ``expect`` in the output, converting again
    changes nothing), write it to ``out_dir`` and import both: (torch module, converted module)."""
    res = convert_source(Path(path).read_text())
    assert res.error is None and "# migrate" not in res.code and expect in res.code, res.code
    assert convert_source(res.code).code == res.code
    stem = Path(path).stem
    out = Path(out_dir) / f"{stem}_ms.py"
    out.write_text(res.code)
    return load_module(f"{stem}_torch", path), load_module(f"{stem}_ms", out)
