"""The torch layer classes a tree's own classes hold under each attribute name, for reads the
converter cannot type in the file it converts.

``export.py`` reads ``model.tok_embeddings.weight`` of a ``model`` it takes as an argument; the
class that builds ``self.tok_embeddings = nn.Embedding(...)`` is in ``model.py``, and MindSpore's
Embedding names the weight ``embedding_table``. One scan of the tree (the summarised statements
the package pre-passes share) gives, for each attribute name that the tree's classes only ever
bind to layers of the attribute table, those layer classes; the layer-attribute rewrites then
treat ``<anything untyped>.tok_embeddings`` as one of them (several classes: the run-time helper
decides by class). A name also bound to anything else is left out.
"""
from __future__ import annotations

import ast
from contextvars import ContextVar
from pathlib import Path

from mappings import load_attributes
from migrate.convert.package_classes import _dotted, _Tree
from migrate.convert.star_imports import ModuleStatements
from migrate.convert.torch_names import public_name

# attribute name -> the torch layer classes the tree's classes bind it to (set for one file's
# conversion, like package_classes.MODULE_BASES)
LAYER_ATTRIBUTES: ContextVar[dict] = ContextVar("layer_attributes", default={})

def package_layer_attributes(root: Path, files, statements: ModuleStatements | None = None) -> dict:
    """{attribute name: tuple of torch layer classes} over the classes of ``files`` (see the
    module docstring)."""
    tree = _Tree(root, [str(f) for f in files], statements)
    table = load_attributes()
    kinds: dict[str, set] = {}
    unknown: set[str] = set()
    for path, f in tree.files.items():
        for node in tree.exports.statements.of(path) or ():
            if not isinstance(node, ast.ClassDef):
                continue
            for st in node.body:
                name = st.targets[0].attr
                kind = _layer_class(tree, f, st.value) if isinstance(st.value, ast.Call) else None
                if kind in table:
                    kinds.setdefault(name, set()).add(kind)
                else:
                    unknown.add(name)
    return {name: tuple(sorted(k)) for name, k in kinds.items() if name not in unknown}


def _layer_class(tree: _Tree, f, call: ast.Call, depth: int = 0) -> str | None:
    """The public torch name of the class ``call`` builds, when the file binds it to torch's, or
    the one a function of the tree returns (torchkge's ``init_embedding(n, d)`` builds and returns
    an ``nn.Embedding``)."""
    parts = _dotted(call.func)
    if not parts or parts[0] in f.classes or depth > 4:
        return None
    bound = tree.binding(f, parts[0])
    if bound is None and len(parts) == 1:
        return _returned_layer(tree, f, parts[0], depth)
    if bound is not None and bound[0] == "tree" and bound[1] is not None:
        name = bound[2] if bound[2] is not None else (parts[1] if len(parts) == 2 else None)
        other = tree.files.get(Path(bound[1]).resolve())
        if name is None or other is None or len(parts) > (1 if bound[2] is not None else 2):
            return None
        return _returned_layer(tree, other, name, depth)
    if bound is None or bound[0] != "qual":
        return None
    return public_name(".".join([bound[1], *parts[1:]]))


def _returned_layer(tree: _Tree, f, name: str, depth: int) -> str | None:
    """The torch layer class every return of the function ``name`` of ``f`` builds, or None."""
    for node in tree.exports.statements.of(f.path) or ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            kinds = {_layer_class(tree, f, r.value, depth + 1) if isinstance(r.value, ast.Call) else None
                     for r in node.body if isinstance(r, ast.Return)}
            return kinds.pop() if len(kinds) == 1 else None
    return None
