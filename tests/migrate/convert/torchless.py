"""Import converted code as where torch is not installed (in this process, for tests).

``import torch`` fails while ``torch_blocked()`` is active: every ``torch*`` entry of
``sys.modules`` is set to None (Python then raises ModuleNotFoundError for the module and
its submodules) and put back afterwards, so torch stays usable by the rest of the test session.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from contextlib import contextmanager
from pathlib import Path

BLOCKED = ("torch", "torchvision", "torchaudio", "functorch")


def _blocked_name(name: str) -> bool:
    return name.split(".")[0] in BLOCKED


@contextmanager
def torch_blocked():
    """``import torch`` (and any submodule) raises ModuleNotFoundError inside the block."""
    saved = {k: v for k, v in sys.modules.items() if _blocked_name(k)}
    try:
        for name in (*saved, *BLOCKED):
            sys.modules[name] = None
        yield
    finally:
        for name in [k for k in sys.modules if _blocked_name(k)]:
            del sys.modules[name]
        sys.modules.update(saved)


@contextmanager
def imported_tree(root: Path, module: str):
    """Import ``module`` from the directory ``root`` (a converted tree) with torch blocked; the
    tree's modules are removed from ``sys.modules`` afterwards."""
    top = module.split(".")[0]
    sys.path.insert(0, str(root))
    try:
        with torch_blocked():
            yield importlib.import_module(module)
    finally:
        sys.path.remove(str(root))
        for name in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
            del sys.modules[name]


def load_converted(tmp_path: Path, name: str, src: str):
    """(module, code): ``src`` converted (it must convert without error or unsupported change),
    written to ``tmp_path/name.py`` and imported from there with torch blocked."""
    from migrate import convert_source
    res = convert_source(src)
    assert res.error is None and not res.unsupported, res.code
    path = tmp_path / f"{name}.py"
    path.write_text(res.code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    with torch_blocked():
        spec.loader.exec_module(mod)
    return mod, res.code
