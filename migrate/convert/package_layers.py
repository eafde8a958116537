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
    module docstring); ``"<name>[]"`` / ``"<name>[i]"`` for the items of a container every binding
    of the name builds with items of known classes (deepctr's ``self.embedding_dict =
    create_embedding_matrix(...)``, another module's function returning an ``nn.ModuleDict`` of
    ``nn.Embedding``: ``self.embedding_dict[k]`` and its ``.values()`` are Embeddings)."""
    tree = _Tree(root, [str(f) for f in files], statements)
    table = load_attributes()
    kinds: dict[str, set] = {}
    items: dict[str, list] = {}  # attribute name -> the items each binding of it holds
    unknown: set[str] = set()
    for path, f in tree.files.items():
        for node in tree.exports.statements.of(path) or ():
            if not isinstance(node, ast.ClassDef):
                continue
            for st in node.body:
                name = st.targets[0].attr if isinstance(st, ast.Assign) else st.target.attr
                kind, held = _built(tree, f, st.value) if isinstance(st.value, ast.Call) else (None, {})
                items.setdefault(name, []).append(held)
                if kind in table:
                    kinds.setdefault(name, set()).add(kind)
                else:
                    unknown.add(name)
    out = {name: tuple(sorted(k)) for name, k in kinds.items() if name not in unknown}
    for name, bindings in items.items():
        for key in set.intersection(*(set(b) for b in bindings)):
            found = {b[key] for b in bindings}
            if found <= set(table):
                out[name + key] = tuple(sorted(found))
    return out


_CONTAINERS = ("torch.nn.ModuleDict", "torch.nn.ModuleList", "torch.nn.Sequential")


def _built(tree: _Tree, f, call: ast.Call, depth: int = 0) -> tuple[str | None, dict]:
    """(the public torch name of the class ``call`` builds, when the file binds it to torch's, or
    the one a function of the tree returns (torchkge's ``init_embedding(n, d)`` builds and returns
    an ``nn.Embedding``); {``"[]"`` / ``"[i]"``: the class of its items} for a container whose
    items are known (as the summaries keep them: star_imports._built))."""
    parts = _dotted(call.func)
    if not parts or parts[0] in f.classes or depth > 4:
        return None, {}
    bound = tree.binding(f, parts[0])
    if bound is None and len(parts) == 1:
        return _returned_layer(tree, f, parts[0], depth)
    if bound is not None and bound[0] == "tree" and bound[1] is not None:
        name = bound[2] if bound[2] is not None else (parts[1] if len(parts) == 2 else None)
        other = tree.files.get(Path(bound[1]).resolve())
        if name is None or other is None or len(parts) > (1 if bound[2] is not None else 2):
            return None, {}
        return _returned_layer(tree, other, name, depth)
    if bound is None or bound[0] != "qual":
        return None, {}
    kind = public_name(".".join([bound[1], *parts[1:]]))
    return kind, _items(tree, f, kind, call, depth) if kind in _CONTAINERS else {}


def _items(tree: _Tree, f, kind: str, call: ast.Call, depth: int) -> dict:
    """{"[]": the one class of every item, "[i]": the class of the item at i (written out before
    any starred item, from 0, or after the last, from -1)} of the container ``call`` builds."""
    first = call.args[0] if len(call.args) == 1 else None
    if kind == "torch.nn.ModuleDict":
        nodes = first.values if isinstance(first, ast.Dict) else None
    elif isinstance(first, ast.ListComp):
        nodes = [first.elt]
    elif isinstance(first, ast.List):
        nodes = first.elts
    else:
        nodes = list(call.args) if kind == "torch.nn.Sequential" else None
    if not nodes:
        return {}
    found = [None if isinstance(n, ast.Starred) else _built(tree, f, n, depth + 1)[0] if isinstance(n, ast.Call)
             else "?" for n in nodes]
    starred = [i for i, n in enumerate(nodes) if isinstance(n, ast.Starred)]
    out = {}
    if kind != "torch.nn.ModuleDict" and not isinstance(first, ast.ListComp):
        head = found[:starred[0]] if starred else found
        tail = found[starred[-1] + 1:] if starred else found
        out.update({f"[{i}]": k for i, k in enumerate(head) if k is not None and k != "?"})
        out.update({f"[{i - len(tail)}]": k for i, k in enumerate(tail) if k is not None and k != "?"})
    if len(set(found)) == 1 and found[0] not in (None, "?"):
        out["[]"] = found[0]
    return out


def _returned_layer(tree: _Tree, f, name: str, depth: int) -> tuple[str | None, dict]:
    """(the torch layer class every return of the function ``name`` of ``f`` builds, its items)
    as :func:`_built` gives them, or (None, {})."""
    for node in tree.exports.statements.of(f.path) or ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            built = [_built(tree, f, r.value, depth + 1) if isinstance(r.value, ast.Call) else (None, {})
                     for r in node.body if isinstance(r, ast.Return)]
            if built and all(b == built[0] for b in built):
                return built[0]
            return None, {}
    return None, {}
