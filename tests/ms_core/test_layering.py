"""ms_core's layers: the engine, primitives and ops never import the Cell layer (nn)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "ms_core"
LOWER = sorted([ROOT / "_engine.py", ROOT / "_api.py", *(ROOT / "_prims").glob("*.py"),
                *(ROOT / "ops").glob("*.py")])


def _imported_modules(path):
    """Every module `path` imports, top-level or inside a function, as a dotted absolute name."""
    package = ["ms_core", *path.relative_to(ROOT).parent.parts]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


@pytest.mark.parametrize("path", LOWER, ids=lambda p: str(p.relative_to(ROOT)))
def test_lower_layers_do_not_import_nn(path):
    bad = [m for m in _imported_modules(path) if m == "ms_core.nn" or m.startswith("ms_core.nn.")]
    assert not bad, f"{path.name} imports {bad}"


def test_the_import_cycle_is_closed_by_bind_alone():
    import ms_core
    from ms_core import _engine
    from ms_core._prims import array, loss, math, nn
    from ms_core.common import tensor
    from ms_core.ops import functional
    assert _engine.Tensor is ms_core.Tensor
    assert all(m.F is functional for m in (tensor, array, math, nn, loss))
    # nothing but ms_core/_binding.py assigns these placeholders
    writers = set()
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            for t in node.targets if isinstance(node, ast.Assign) else ():
                if isinstance(t, ast.Attribute) and t.attr in ("F", "Tensor"):
                    writers.add((path.name, ast.unparse(t)))
    assert writers == {("_binding.py", "_engine.Tensor"), ("_binding.py", "module.F")}
