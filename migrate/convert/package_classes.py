"""Classes of a converted tree that are torch modules through a base defined in another of its
files (``class TripletLoss(BaseLoss)`` where ``BaseLoss`` derives, two files away, from
``torch.nn.Module``). A file that imports nothing of torch's is otherwise left as it is, and a
class whose base the converter cannot see keeps ``forward``: MindSpore then calls the Cell's
empty ``construct``. One scan of the tree (``ast``, no imports run) answers it for every file.
"""
from __future__ import annotations

import ast
from contextvars import ContextVar
from pathlib import Path

from migrate.convert.star_imports import ModuleStatements, _Exports

# The base expressions (as written: ``BaseLoss``, ``base.BaseLoss``) of the classes of the file
# being converted that name a module class of the tree: set for one file's conversion, like
# star_imports.OWN_PACKAGES.
MODULE_BASES: ContextVar[frozenset] = ContextVar("module_bases", default=frozenset())

# modules whose capitalised names are layers (nn.Module, nn.Sequential, nn.Linear...); the
# target's own (a tree converted before) count, so that a second conversion decides as the first
_LAYER_MODULES = ("torch.nn", "ms_core.nn", "mindspore.nn")


class _File:
    """One file's module-level class bases and import bindings."""

    def __init__(self, path: Path, statements: list, exports: _Exports):
        self.path = path
        self.classes: dict[str, list] = {}
        self.bound: dict[str, tuple] = {}  # local name -> ("qual", dotted) | ("tree", path, name|None)
        for node in statements:
            if isinstance(node, ast.ClassDef):
                # a generic base (``EncoderModule[ConfigT]``) is its class
                self.classes[node.name] = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.bound[a.asname or a.name.split(".")[0]] = ("qual", a.name if a.asname else
                                                                    a.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                self._import_from(node, exports)

    def _import_from(self, node: ast.ImportFrom, exports: _Exports) -> None:
        module = node.module or ""
        target = exports.resolve(self.path, module, node.level) if node.level or module else None
        for a in node.names:
            if a.name == "*":
                continue
            local = a.asname or a.name
            if target is not None:
                sub = exports.resolve(self.path, f"{module}.{a.name}" if module else a.name, node.level)
                self.bound[local] = ("tree", sub, None) if sub is not None else ("tree", target, a.name)
            elif node.level == 0:
                self.bound[local] = ("qual", f"{module}.{a.name}")


class _Tree:
    """Every file of the tree, and which of their classes are modules (memoised)."""

    def __init__(self, root: Path, files, statements: ModuleStatements | None = None):
        self.exports = _Exports(root, statements)
        self.files: dict[Path, _File] = {}
        for f in files:
            path = Path(f).resolve()
            parsed = self.exports.statements.of(path)
            if parsed is not None:
                self.files[path] = _File(path, parsed, self.exports)
        self.known: dict[tuple, bool] = {}

    def is_module_class(self, path: Path | None, name: str) -> bool:
        """Whether ``name`` in the file ``path`` is a class deriving from a torch module."""
        if path is None or path.resolve() not in self.files:
            return False
        key = (path.resolve(), name)
        if key not in self.known:
            self.known[key] = False  # a cycle of imports ends here
            self.known[key] = self._decide(self.files[key[0]], name)
        return self.known[key]

    def _decide(self, f: _File, name: str) -> bool:
        if name in f.classes:
            return any(self.is_module_base(f, b) for b in f.classes[name])
        bound = f.bound.get(name)
        if bound is not None and bound[0] == "tree" and bound[2] is not None:
            return self.is_module_class(bound[1], bound[2])
        return False

    def binding(self, f: _File, name: str):
        """What ``name`` is bound to in ``f``, followed through the tree's files that only import
        it (``from pkg.tasks import nn``, where tasks.py has ``import torch.nn as nn``, is
        ``("qual", "torch.nn")``); None when ``f`` does not bind it."""
        bound = f.bound.get(name)
        for _ in range(16):  # (a cycle of imports ends here)
            if bound is None or bound[0] != "tree" or bound[2] is None:
                break
            other = self.files.get(Path(bound[1]).resolve()) if bound[1] is not None else None
            further = other.bound.get(bound[2]) if other is not None else None
            if further is None:
                break
            bound = further
        return bound

    def is_module_base(self, f: _File, base) -> bool:
        """Whether a base expression of a class of ``f`` names a torch module class."""
        parts = _dotted(base)
        if not parts:
            return False
        head, rest = parts[0], parts[1:]
        if head in f.classes and not rest:
            return self.is_module_class(f.path, head)
        bound = self.binding(f, head)
        if bound is None:
            return False
        if bound[0] == "qual":
            qual = ".".join([bound[1], *rest])
            module, _, last = qual.rpartition(".")
            return module in _LAYER_MODULES and last[:1].isupper()
        _, path, name = bound
        if name is not None:
            return not rest and self.is_module_class(path, name)
        return len(rest) == 1 and self.is_module_class(path, rest[0])  # module.Class


def _dotted(node) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return head + [node.attr] if head else []
    return []


def package_module_bases(root: Path, files, statements: ModuleStatements | None = None) -> dict[str, frozenset]:
    """For each file of ``files`` with a class whose base is a module class defined in another
    file of the tree (or through one): the base expressions, as written, that name one.
    Bases torch names directly (``nn.Module``) are left out: the converter sees those.
    ``statements``: the run's parsed files, shared with its other pre-passes."""
    files = [str(f) for f in files]
    tree = _Tree(root, files, statements)
    out = {}
    for f in files:
        parsed = tree.files.get(Path(f).resolve())
        if parsed is None:
            continue
        found = set()
        for bases in parsed.classes.values():
            for b in bases:
                parts = _dotted(b)
                bound = tree.binding(parsed, parts[0]) if parts else None
                if bound is not None and bound[0] == "tree" and tree.is_module_base(parsed, b):
                    found.add(".".join(parts))
        if found:
            out[f] = frozenset(found)
    return out
