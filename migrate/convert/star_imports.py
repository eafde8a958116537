"""Names that reach a file through ``import *`` (issue 10 class 5).

Two ways torch's names arrive without an import of their own:

- ``from torch.nn import *`` / ``from torch import *``: every public name of that torch module
  (mappings/torch_names.txt) that the file does not bind itself is a torch alias;
- ``from .layers import *`` where ``layers.py`` of the same package imports ``torch.nn as nn``
  (geffnet's efficientnet_builder.py gets ``nn``, ``F`` and ``torch`` that way): a directory is
  converted with a package-level table of what each module exports by ``*``
  (:func:`package_exports`), built from the import statements alone (``ast``, and only for the
  modules some file star-imports), and each file starts with the torch aliases it inherits.
"""
from __future__ import annotations

import ast
import re
from contextvars import ContextVar
from pathlib import Path

import libcst as cst

from mappings import load_tables
from migrate.convert.cst import dotted
from migrate.convert.probes import probe_answer
from migrate.convert.torch_names import star_names

ROOTS = ("torch", "torchvision", "torchaudio", "torchtext")

# The top-level packages a run converts (a directory run of torchvision's own code; a package and
# the torch library it uses, converted together): their names are the run's own code, imported
# from its converted copy, never torch's to translate or mark. Set for the length of one file's
# conversion (convert_source(own=...), a directory run's worker): the import scans deep in the
# walk read it here rather than through every call.
OWN_PACKAGES: ContextVar[frozenset] = ContextVar("own_packages", default=frozenset())


def _torch_root(root: str) -> bool:
    """torch's (a root above), unless the run converts a package of that name."""
    return root in ROOTS and root not in OWN_PACKAGES.get()
TARGETS = ("ms_core", "mindspore")
_STAR_LINE = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\*", re.M)


def package_imported_names(body) -> set[str]:
    """Local names bound by module-level ``from X import a`` (libcst statements) where X is not
    torch's: where a package's re-exports of torch names arrive by name."""
    out = set()
    for st in body:
        if not isinstance(st, cst.SimpleStatementLine):
            continue
        for small in st.body:
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            root = (dotted(small.module) or "").split(".")[0] if small.module is not None else None
            if not small.relative and (_torch_root(root) or root in TARGETS):
                continue  # torch's own, or the converted code's target package
            for a in small.names:
                local = a.asname.name if a.asname else a.name
                if isinstance(local, cst.Name):
                    out.add(local.value)
    return out


def torch_star_aliases(module_quals, bound: set[str]) -> dict[str, str]:
    """The aliases ``from <q> import *`` gives for each torch module ``q`` of ``module_quals``
    (later imports win, as in Python), minus the names in ``bound``; modules the names file does
    not describe give none (their star import stays, marked)."""
    out: dict[str, str] = {}
    for q in module_quals:
        for name in star_names(q) or ():
            if name not in bound:
                out[name] = f"{q}.{name}"
    return out


# --------------------------------------------------------------------------------------------
# the package-level table
# --------------------------------------------------------------------------------------------
def package_exports(root: Path, files, statements: "ModuleStatements | None" = None) -> dict[str, dict[str, str]]:
    """For each file of ``files`` (paths under ``root``) that star-imports a module of the same
    tree, or imports by name what such a module re-exports of torch's (``from kornia.core import
    Module`` where kornia.core has ``Module = torch.nn.Module``): the torch aliases it inherits
    ``{local name: qualified torch name}``.

    Example: ``{"geffnet/efficientnet_builder.py": {"nn": "torch.nn", "F": "torch.nn.functional",
    "torch": "torch"}}`` (keys are the paths as given). ``statements``: the run's parsed files,
    shared with its other pre-passes.
    """
    table = _Exports(root, statements)
    out = {}
    for path in files:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        inherited = {}
        if _STAR_LINE.search(text) is not None:
            for module, level in _star_imports(text):
                target = table.resolve(Path(path), module, level)
                if target is not None:
                    inherited.update(table.exports(target))
        for module, level, name, local in _named_imports(text, path, table.statements):
            given = table.given(Path(path), module, level, name)
            if given is not None:
                inherited[local] = given
        if inherited:
            out[str(path)] = inherited
    return out


# The torch names the file being converted binds at module level that other modules of its tree
# import from it by name (package_reexports): set for one file's conversion, like OWN_PACKAGES.
REEXPORTED: ContextVar[frozenset] = ContextVar("reexported", default=frozenset())


def package_reexports(root: Path, files, statements: "ModuleStatements | None" = None) -> dict[str, frozenset]:
    """For each file of ``files`` that binds a torch name another file of the tree imports from it
    by name (torchvision's ``_internally_replaced_utils`` imports torch.hub's
    ``load_state_dict_from_url``, and its models import it from there): those names. The converted
    module must keep binding them, though its own uses of them are gone."""
    table = _Exports(root, statements)
    out: dict[str, set] = {}
    keys = {Path(f).resolve(): str(f) for f in files}
    for path in files:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for module, level, name, _local in _named_imports(text, path, table.statements):
            if table.given(Path(path), module, level, name) is None:
                continue
            target = table.resolve(Path(path), module, level)
            if target is not None and target.resolve() in keys:
                out.setdefault(keys[target.resolve()], set()).add(name)
    return {k: frozenset(v) for k, v in out.items()}


_FROM_LINE = re.compile(r"^[ \t]*from[ \t]+\.*[\w.]*[ \t]+import[ \t]+[^*]", re.M)


def _named_imports(text: str, path, statements: "ModuleStatements") -> list[tuple[str, int, str, str]]:
    """(module, level, name, local name) of the module-level ``from X import a as b`` statements
    of modules that are not torch's (a package re-exporting torch's names: kornia.core), in the
    file ``path`` whose text is ``text``."""
    if _FROM_LINE.search(text) is None:
        return []
    out = []
    for node in statements.of(path) or ():
        if isinstance(node, ast.ImportFrom) \
                and not (node.level == 0 and _torch_root((node.module or "").split(".")[0])):
            out += [(node.module or "", node.level, a.name, a.asname or a.name) for a in node.names if a.name != "*"]
    return out


def _alias_of(node, names: dict) -> tuple[str, str] | None:
    """(name, torch qualname) for ``name = <torch alias>.<attr>...`` (``Module = torch.nn.Module``),
    or for a capability probe the converter answers (``f = getattr(torch.jit, "script_if_tracing",
    torch.jit.script)``): what the converted module binds, so that a second conversion of the
    package, which reads the answer, sees what the first saw."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    qual = _torch_name(node.value, names)
    return (node.targets[0].id, qual) if qual is not None else None


def _torch_name(value, names: dict) -> str | None:
    """The torch name an expression reads: an attribute chain of a torch alias, or ``getattr`` of
    one answered as :mod:`migrate.convert.probes` answers it; None for anything else."""
    if isinstance(value, ast.Attribute):
        base = _torch_name(value.value, names)
        return f"{base}.{value.attr}" if base is not None else None
    if isinstance(value, ast.Name):
        return names.get(value.id)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr"
            and len(value.args) in (2, 3) and not value.keywords
            and isinstance(value.args[1], ast.Constant) and isinstance(value.args[1].value, str)):
        return None
    module = _torch_name(value.args[0], names)
    answer = probe_answer(load_tables(), module, value.args[1].value) if module is not None else None
    if answer is None:
        return None
    if answer[0]:
        return f"{module}.{value.args[1].value}"
    return _torch_name(value.args[2], names) if len(value.args) == 3 else None


def _star_imports(text: str) -> list[tuple[str, int]]:
    """(module, level) of the file's ``from X import *`` statements that are not torch's."""
    out = []
    for m in _STAR_LINE.finditer(text):
        spec = m.group(1)
        level = len(spec) - len(spec.lstrip("."))
        module = spec[level:]
        if level == 0 and _torch_root(module.split(".")[0]):
            continue
        out.append((module, level))
    return out


class ModuleStatements:
    """Each file's module-level statements (:func:`_module_statements` of its ``ast``), parsed
    once for all the package pre-passes of a run (star imports, re-exports, module bases parsed
    every file once each). What no pre-pass reads is dropped (:func:`_summary`): statements that
    bind nothing, class and function bodies, values that name no torch alias, so that the
    statements of a large tree stay small and cheap to send from the worker process that parsed
    them (:meth:`add`). Where the files' imports lead is kept too (``resolved``: each import was
    looked up on the file system by every pre-pass, half of their time)."""

    def __init__(self):
        self._files: dict[Path, list | None] = {}
        self.resolved: dict[tuple, Path | None] = {}  # (root, importer, module, level) -> file

    def of(self, path) -> list | None:
        """The statements of the file ``path``; None when it cannot be read or parsed."""
        path = Path(path).resolve()
        if path not in self._files:
            self._files[path] = self.parse(path)
        return self._files[path]

    def add(self, path, statements: list | None) -> None:
        """Take the statements of ``path`` that :meth:`parse` gave elsewhere (a worker process)."""
        self._files[Path(path).resolve()] = statements

    @staticmethod
    def parse(path) -> list | None:
        """The module-level statements of the file ``path`` that the pre-passes read, summarised;
        None when it cannot be read or parsed."""
        parsed = ModuleStatements.read(path)
        return None if parsed is None else summarised(parsed[1])

    @staticmethod
    def read(path) -> tuple[str, ast.Module] | None:
        """(the text of the file ``path``, its ``ast``) as the pre-passes read it; None when it
        cannot be read or parsed."""
        try:
            text = Path(path).read_text(encoding="utf-8")
            return text, ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def summarised(tree: ast.Module) -> list:
    """:meth:`ModuleStatements.parse`'s statements of a parsed file (``tree`` is left as it is)."""
    return [kept for node in _module_statements(tree.body) if (kept := _summary(node)) is not None]


_NOTHING = ast.Constant(None)


def self_assignments(node: ast.ClassDef) -> list:
    """What a summary keeps of a class body (package_layers reads it): ``self.<name> = <callee>()``
    for each assignment to an attribute of ``self`` in its methods, the callee as written and the
    arguments dropped (a container's items kept: :func:`_built`); the value ``None`` when it is not a
    call of a name or attribute chain; ``self.<name> += None`` where a method grows or changes the
    container it holds in place (``self.d[k] = ...``, ``self.blocks.append(...)``)."""
    out = []
    for method in node.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for st in ast.walk(method):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target] \
                if isinstance(st, (ast.AnnAssign, ast.AugAssign)) else []
            value = getattr(st, "value", None)
            for t in targets:
                # (self.a, self.b = ...: each bound to something unknown)
                called = isinstance(t, ast.Attribute) and isinstance(value, ast.Call) \
                    and isinstance(value.func, (ast.Name, ast.Attribute))
                for a in _unpacked(t):
                    if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self":
                        out.append(ast.Assign(targets=[a], value=_built(value) if called and a is t else _NOTHING))
            grown = _grown(st)
            if isinstance(grown, ast.Attribute) and isinstance(grown.value, ast.Name) and grown.value.id == "self":
                out.append(ast.AugAssign(target=grown, op=ast.Add(), value=_NOTHING))
    return out


# a module's methods that return the module itself (``return table.to(device)``)
_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train", "eval",
                           "requires_grad_", "apply"})
# a container's methods that grow or change it in place
_GROWS = frozenset({"append", "extend", "insert", "update", "add_module", "register_module", "pop", "setdefault"})


def _grown(st):
    """The container expression the statement ``st`` grows or changes in place (``d[k] = v``,
    ``d.append(m)``, ``del d[k]``), or None."""
    if isinstance(st, (ast.Assign, ast.AugAssign, ast.Delete)):
        for t in st.targets if isinstance(st, (ast.Assign, ast.Delete)) else [st.target]:
            if isinstance(t, ast.Subscript):
                return t.value
    if isinstance(st, ast.Call) and isinstance(st.func, ast.Attribute) and st.func.attr in _GROWS:
        return st.func.value
    return None


def _built(call: ast.Call) -> ast.Call:
    """``call`` with what package_layers reads of it: the callee, and the items of a container of
    layers as their callees (``nn.ModuleDict({k: nn.Embedding(n, d) for k in ks})`` is kept as
    ``nn.ModuleDict({None: nn.Embedding()})``, ``nn.Sequential(a(x), *rest, b(y))`` as
    ``nn.Sequential(a(), *None, b())``); other arguments dropped."""
    def item(node):
        if isinstance(node, ast.Starred):
            return ast.Starred(value=_NOTHING, ctx=ast.Load())
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            return ast.Call(func=node.func, args=[], keywords=[])
        return _NOTHING

    def items(node):
        if isinstance(node, (ast.List, ast.Tuple)):
            return ast.List(elts=[item(e) for e in node.elts], ctx=ast.Load())
        if isinstance(node, ast.ListComp):
            return ast.ListComp(elt=item(node.elt), generators=[])
        if isinstance(node, ast.DictComp):
            return ast.Dict(keys=[_NOTHING], values=[item(node.value)])
        if isinstance(node, ast.Dict):  # (a key None: **other, whose items are not known)
            return ast.Dict(keys=[_NOTHING] * len(node.values),
                            values=[item(v) if k is not None else _NOTHING for k, v in zip(node.keys, node.values)])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" \
                and not node.args:
            return ast.Dict(keys=[_NOTHING] * len(node.keywords),
                            values=[item(k.value) if k.arg is not None else _NOTHING for k in node.keywords])
        return item(node)
    if call.keywords:
        return ast.Call(func=call.func, args=[], keywords=[])
    return ast.Call(func=call.func, args=[items(a) if len(call.args) == 1 else item(a) for a in call.args],
                    keywords=[])


def returned_calls(node) -> list:
    """What a summary keeps of a function body (package_layers reads it): ``return <callee>()`` for a
    return of a call of a name or attribute chain, or of a local name assigned only such a call
    (``emb = nn.Embedding(n, d); init(emb.weight); return emb``), also through a module method that
    returns the module itself (``return table.to(device)``), the arguments dropped but a container's
    items (:func:`_built`, dropped too where the function grows the container it returns); ``return
    None`` for any other return. Nested functions and classes are not looked into."""
    assigned: dict[str, list] = {}
    grown: set[str] = set()
    returns = []
    todo = list(node.body)
    while todo:
        st = todo.pop()
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(st, ast.Return):
            returns.append(st.value)
        for t in st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) else []:
            for a in _unpacked(t):
                if isinstance(a, ast.Name):
                    assigned.setdefault(a.id, []).append(st.value if a is t else None)
        if isinstance(_grown(st), ast.Name) or isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
            grown.add(_grown(st).id if isinstance(_grown(st), ast.Name) else st.target.id)
        todo.extend(ast.iter_child_nodes(st))

    def called(value):
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                and value.func.attr in _RETURNS_SELF and isinstance(value.func.value, (ast.Name, ast.Call)):
            value = value.func.value
        name = value.id if isinstance(value, ast.Name) else None
        if name is not None and len(assigned.get(name, ())) == 1:
            value = assigned[name][0]
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
            return ast.Call(func=value.func, args=[], keywords=[]) if name in grown else _built(value)
        return _NOTHING
    return [ast.Return(value=called(v)) for v in returns]


def _unpacked(target):
    """The targets an assignment target binds (a tuple's or list's items, a starred one's)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [a for t in target.elts for a in _unpacked(t)]
    return _unpacked(target.value) if isinstance(target, ast.Starred) else [target]


def _summary(node):
    """``node`` with what the pre-passes read of it (imports; the names classes, functions and
    assignments bind; class bases; an assigned value that may name a torch alias, or ``__all__``'s),
    or None for a statement that binds nothing."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return type(node)(name=node.name, args=ast.arguments(), body=returned_calls(node), decorator_list=[])
    if isinstance(node, ast.ClassDef):
        return ast.ClassDef(name=node.name, bases=node.bases, keywords=[], body=self_assignments(node),
                            decorator_list=[])
    if isinstance(node, ast.Assign):
        named_all = any(isinstance(n, ast.Name) and n.id == "__all__" for t in node.targets for n in ast.walk(t))
        if not named_all and not isinstance(node.value, (ast.Name, ast.Attribute)) and not (
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "getattr"):
            # _alias_of reads names, attribute chains and getattr calls only
            return ast.Assign(targets=node.targets, value=_NOTHING)
        return node
    if isinstance(node, ast.AnnAssign):
        return ast.AnnAssign(target=node.target, annotation=_NOTHING, value=None, simple=node.simple)
    if isinstance(node, ast.AugAssign):
        return ast.AugAssign(target=node.target, op=node.op, value=_NOTHING)
    return None


class _Exports:
    """What ``from <module> import *`` gives, per file of the tree (torch aliases only), cached."""

    def __init__(self, root: Path, statements: ModuleStatements | None = None):
        self.root = Path(root).resolve()
        self.statements = statements if statements is not None else ModuleStatements()
        self.cache: dict[Path, dict[str, str]] = {}
        self.everything: dict[Path, dict[str, str]] = {}  # every torch alias bound at module level

    def resolve(self, importer: Path, module: str, level: int) -> Path | None:
        """The file of the tree that ``from <.. module> import *`` in ``importer`` loads."""
        key = (self.root, str(importer), module, level)
        known = self.statements.resolved
        if key not in known:
            known[key] = self._resolve(importer, module, level)
        return known[key]

    def _resolve(self, importer: Path, module: str, level: int) -> Path | None:
        importer = importer.resolve()
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            candidates = [base]
        else:
            top = importer.parent
            while (top.parent / "__init__.py").exists() and top.parent != top:
                top = top.parent  # the top package that holds the importer
            candidates = [top.parent, self.root, self.root.parent]
        parts = [p for p in module.split(".") if p]
        for base in candidates:
            target = base.joinpath(*parts)
            for path in (target.with_suffix(".py"), target / "__init__.py"):
                if path.is_file() and self._inside(path):
                    return path
        return None

    def _inside(self, path: Path) -> bool:
        try:
            path.resolve().relative_to(self.root)
        except ValueError:
            return False
        return True

    def exports(self, path: Path) -> dict[str, str]:
        """The torch aliases ``from <path's module> import *`` binds in the importer."""
        path = path.resolve()
        if path in self.cache:
            return self.cache[path]
        self.cache[path] = {}  # a cycle of star imports ends here
        statements = self.statements.of(path)
        if statements is None:
            return {}
        names, public = self._module_names(path, statements)
        self.everything[path] = dict(names)  # what an explicit import may take (any name)
        if public is not None:
            names = {k: v for k, v in names.items() if k in public}
        else:
            names = {k: v for k, v in names.items() if not k.startswith("_")}
        self.cache[path] = names
        return names

    def _module_names(self, path: Path, statements) -> tuple[dict[str, str], set | None]:
        """(torch aliases bound at module level, in statement order; ``__all__`` when literal)."""
        names: dict[str, str] = {}
        public = None
        for node in statements:
            if isinstance(node, ast.Import):
                for a in node.names:
                    root = a.name.split(".")[0]
                    local = a.asname or root
                    if _torch_root(root):
                        names[local] = a.name if a.asname else root
                    else:
                        names.pop(local, None)
            elif isinstance(node, ast.ImportFrom):
                self._import_from(path, node, names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.pop(node.name, None)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            names.pop(n.id, None)
                            if n.id == "__all__" and isinstance(node, ast.Assign):
                                public = _literal_names(node.value)
                alias = _alias_of(node, names)
                if alias is not None:  # Module = torch.nn.Module (kornia.core re-exports torch's)
                    names[alias[0]] = alias[1]
        return names, public

    def _import_from(self, path: Path, node: ast.ImportFrom, names: dict) -> None:
        module = node.module or ""
        torch_module = node.level == 0 and _torch_root(module.split(".")[0])
        for a in node.names:
            if a.name == "*":
                if torch_module:
                    names.update(torch_star_aliases([module], set()))
                else:
                    target = self.resolve(path, module, node.level)
                    if target is not None:
                        names.update(self.exports(target))
            elif torch_module:
                names[a.asname or a.name] = f"{module}.{a.name}"
            else:
                names.pop(a.asname or a.name, None)
                given = self.given(path, module, node.level, a.name)
                if given is not None:
                    names[a.asname or a.name] = given

    def given(self, importer: Path, module: str, level: int, name: str) -> str | None:
        """The torch name ``from <module> import <name>`` binds in ``importer``, when the module
        is one of the tree and ``name`` is a torch alias there (its re-export of torch's)."""
        target = self.resolve(importer, module, level)
        if target is None:
            return None
        self.exports(target)
        return self.everything.get(target.resolve(), {}).get(name)


def _module_statements(body):
    """Module-level statements, including those under module-level if/try (not in functions);
    a try's handlers before its body, so that what the body binds (what runs when nothing
    fails) wins."""
    for node in body:
        if isinstance(node, (ast.If, ast.Try)):
            for h in getattr(node, "handlers", ()):
                yield from _module_statements(h.body)
            yield from _module_statements(node.orelse)
            yield from _module_statements(node.body)
        else:
            yield node


def _literal_names(node) -> set | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    return set(value) if isinstance(value, (list, tuple)) else None
