"""ms_core's layers: every module has a place in one order, and imports only downwards.

What a lower layer needs from a higher one at run time (a Tensor's methods and every backward
are ops; the engine wraps results in Tensor) it looks up by name in ms_core._registry, which the
higher modules fill when they load. Checked statically, by parsing every import (top-level or
inside a function) of every module under ms_core/.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "ms_core"

# Lowest first. A module may import modules of its own layer or of the layers before it, never
# of a later one. Names are relative to ms_core ("" is ms_core/__init__.py); a pattern ending in
# "*" is a package and everything in it ("nn.optim*": nn/optim/__init__.py and its modules).
LAYERS = [
    ("leaves", ["_registry", "_axes", "_random", "context", "common.dtype", "_torch_renames"]),
    ("engine", ["_engine"]),
    ("tensor", ["common.tensor_methods", "common.tensor"]),
    ("validation", ["_checkparam"]),
    ("process groups", ["communication._group", "communication.management"]),
    ("primitives", ["_prims*"]),
    ("common", ["common.initializer", "common.parameter", "common.api", "common"]),
    ("autodiff", ["_api"]),
    ("ops", ["ops*"]),
    ("cell", ["nn.cell"]),
    ("layers", ["nn.layer*", "nn.loss*", "nn.optim*", "nn.learning_rate_schedule", "nn.dynamic_lr",
                "nn.utils"]),
    ("experimental optimizers", ["experimental*"]),
    ("training wrappers", ["nn.wrap*", "nn"]),
    ("applications", ["amp", "train*", "hub", "dataset*", "communication", "communication.comm_func",
                      "mint*", "launch"]),
    ("package", [""]),
]


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _matches(name, pattern):
    if pattern.endswith("*"):
        package = pattern[:-1]
        return name == package or name.startswith(package + ".")
    return name == pattern


def _layers_of(name):
    return [i for i, (_, patterns) in enumerate(LAYERS) for pattern in patterns if _matches(name, pattern)]


def _layer(name):
    layers = _layers_of(name)
    assert len(layers) == 1, f"ms_core.{name} is in {len(layers)} layers of LAYERS; give it one"
    return layers[0]


def _imports(name, source=None):
    """(bound name, module, whether the name is bound to that module) for every import of an
    ms_core module in module `name`, anywhere in the file, modules relative to ms_core.
    `from package import x` gives package.x when that is a module, else the package (x is then
    a name defined there)."""
    path = MODULES[name]
    package = [p for p in (name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]) if p]
    for node in ast.walk(ast.parse(source if source is not None else path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((a.asname or a.name, a.name[len("ms_core."):], bool(a.asname)) for a in node.names
                        if a.name.startswith("ms_core."))
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("ms_core")):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""])
            else:
                base = node.module[len("ms_core"):]
            base = base.strip(".")
            for alias in node.names:
                sub = f"{base}.{alias.name}".strip(".")
                yield alias.asname or alias.name, sub if sub in MODULES else base, sub in MODULES


def _imported_modules(name, source=None):
    return {module for _, module, _ in _imports(name, source)}


def test_every_module_has_exactly_one_layer():
    unplaced = {name: len(_layers_of(name)) for name in MODULES if len(_layers_of(name)) != 1}
    assert not unplaced, (f"modules matching no layer (0) or several: {unplaced}; give each its "
                          f"place in LAYERS")


@pytest.mark.parametrize("name", sorted(MODULES), ids=lambda n: n or "ms_core")
def test_no_module_imports_upwards(name):
    layer = _layer(name)
    upward = sorted(f"{m or 'ms_core'} ({LAYERS[_layer(m)][0]})" for m in _imported_modules(name)
                    if m != name and _layer(m) > layer)
    assert not upward, f"ms_core.{name} ({LAYERS[layer][0]}) imports later layers: {upward}"


def test_the_import_graph_has_no_cycle():
    graph = {n: {m for m in _imported_modules(n) if m != n and m != ""} for n in MODULES if n}
    done, on_path = set(), []

    def visit(n):
        if n in on_path:
            raise AssertionError(f"import cycle: {' -> '.join(on_path[on_path.index(n):] + [n])}")
        if n in done:
            return
        on_path.append(n)
        for m in sorted(graph[n]):
            visit(m)
        on_path.pop()
        done.add(n)

    for n in sorted(graph):
        visit(n)


# A module imports what it needs at its top. The one import of an ms_core module inside a
# function, and why:
LOCAL_IMPORTS = {
    # experimental.optim loads on first use, not with `import ms_core` (its optimizers cost ~16 ms)
    ("nn.wrap.cell_wrapper", "experimental.optim.optimizer"),
}


def test_ms_core_modules_are_imported_at_the_top():
    """Imports inside functions are how the old import circle hid; what a lower layer needs at
    run time from a higher one comes from ms_core._registry instead."""
    local = set()
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = ast.Module(body=fn.body, type_ignores=[])
                local |= {(name, m) for m in _imported_modules(name, ast.unparse(body))}
    assert local == LOCAL_IMPORTS, f"function-local imports of ms_core modules: {sorted(local - LOCAL_IMPORTS)}"


def test_the_checks_see_imports_inside_functions():
    """A function-local upward import (how the old import circle was hidden) is found."""
    source = "from . import dtype\n\ndef f():\n    from ..nn.cell import Cell\n    from .. import ops\n"
    assert _imported_modules("common.tensor", source) == {"common.dtype", "nn.cell", "ops"}


def _registry_lookups(path):
    """Names a module looks up as `ops.<name>` when it imports `ops` from ms_core._registry."""
    tree = ast.parse(path.read_text())
    uses = any(isinstance(n, ast.ImportFrom) and (n.module or "").endswith("_registry")
               and any(a.name == "ops" and a.asname is None for a in n.names) for n in ast.walk(tree))
    if not uses:
        return set()
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "ops"} - {"register", "register_module", "get"}


def test_every_registry_lookup_finds_its_op():
    import ms_core  # noqa: F401  (loading it registers every op)
    from ms_core._registry import ops
    lookups = {name: _registry_lookups(path) for name, path in MODULES.items()}
    assert lookups["_engine"] >= {"Tensor", "_sum", "reshape"}
    assert lookups["common.tensor"] >= {"initializer", "add"}
    missing = {name: sorted(n for n in names if n not in vars(ops)) for name, names in lookups.items()}
    assert not {k: v for k, v in missing.items() if v}, missing


def test_the_registry_holds_the_objects_the_ops_namespace_has():
    import ms_core
    from ms_core._registry import ops
    from ms_core.ops import array_ops, functional
    assert ops.Tensor is ms_core.Tensor
    assert ops.add is functional.add and ops.scatter is array_ops.scatter
    assert ops.real is ms_core.ops.real and ops.Complex is ms_core.ops.Complex
    assert ops.get("matmul") is functional.matmul
    assert "broadcast_message" not in vars(ops)  # functional imports it; only what it defines registers


def test_a_name_has_one_owner_and_a_missing_one_says_why():
    from ms_core._registry import OpRegistry
    registry = OpRegistry()
    registry.register("add", len)
    registry.register("add", len)  # the same object again is harmless
    with pytest.raises(ValueError, match=r"'add' is already registered \(by builtins\)"):
        registry.register("add", abs)
    with pytest.raises(ValueError, match="the registry's own attribute"):
        registry.register("register", abs)
    with pytest.raises(AttributeError, match="ms_core has no op 'mul' registered: ops register "
                                             "themselves when ms_core.ops loads"):
        registry.mul


def test_no_module_fills_in_another_module_s_names():
    """The registry replaced module-level placeholders (`F = None`) that one module assigned in
    the others: no module under ms_core assigns an attribute of an ms_core module it imported."""
    writers = []
    for name, path in MODULES.items():
        modules = {bound for bound, _, is_module in _imports(name) if is_module}
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            writers += [f"ms_core.{name}: {ast.unparse(t)}" for t in targets if isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name) and t.value.id in modules]
    assert not writers, writers


def test_every_name_read_through_an_imported_module_exists():
    """`_engine.Tensor`, `F.add`: what a module reads from an ms_core module it imported is
    defined there once ms_core is loaded (a name the registry replaced is gone everywhere)."""
    import importlib

    import ms_core  # noqa: F401
    absent = []
    for name, path in MODULES.items():
        modules = {bound: module for bound, module, is_module in _imports(name) if is_module}
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name) and node.value.id in modules):
                target = importlib.import_module(f"ms_core.{modules[node.value.id]}".rstrip("."))
                if not hasattr(target, node.attr):
                    absent.append(f"ms_core.{name}: {node.value.id}.{node.attr}")
    assert not absent, absent
