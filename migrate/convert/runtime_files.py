"""The runtime as a converted tree gets it: one copy of :mod:`migrate.runtime` per import root.

``migrate convert`` writes the package ``migrate/runtime/`` into the output tree under the name
``migrate_runtime`` (:data:`RUNTIME_NAME`; ``migrate_runtime_2``, ... where the tree already holds a
file or directory of that name that is not a copy of ours: a user's file is never overwritten),
with two changes that fix it to the conversion's target: ``backend.py`` imports that target
directly (no environment variable), and the ``if TARGET == ...:`` branches of the generated module
keep only that target's side. A copy is recognised by the first line of its ``__init__.py``
(:func:`is_written_runtime`), so converting a converted tree again rewrites the copy in place,
unchanged.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import libcst as cst

RUNTIME_NAME = "migrate_runtime"
SOURCE = Path(__file__).resolve().parents[1] / "runtime"
_FIRST_LINE = "Run-time help of code converted from PyTorch by ms-migrate"
# the package's modules a written copy holds (the repository's own files, not its generator)
_SKIPPED = ("__init__.py", "backend.py")


def _init_source(target: str) -> str:
    """The written copy's ``__init__.py``: the package's code under a docstring for its readers."""
    code = (SOURCE / "__init__.py").read_text(encoding="utf-8")
    body = code[code.index('"""', 3) + 3:].lstrip("\n")
    doc = (f'"""{_FIRST_LINE} (target: {target}).\n\n'
           "Converted files import from here what static translation could not settle (``from\n"
           f".{RUNTIME_NAME} import TorchConv2d``): classes and functions that take torch's arguments,\n"
           "torch's containers, helpers. Written by ``migrate convert``, which rewrites it on each\n"
           "conversion: do not edit it. Its source, tested against torch, is ms-migrate's\n"
           "``migrate/runtime/``; the converted code and this package never import torch.\n"
           '"""\n')
    return doc + body


def backend_source(target: str) -> str:
    """The written copy's ``backend.py``: the imports of ``target``, fixed."""
    return (f'"""The framework this copy of the runtime runs on: {target} (the conversion\'s target)."""\n'
            f"import {target} as ms\n"
            f"from {target} import nn, ops\n"
            f"from {target}.common import initializer as init\n\n"
            f'TARGET = "{target}"\n\n'
            '__all__ = ["TARGET", "init", "ms", "nn", "ops"]\n')


@lru_cache(maxsize=4)
def runtime_files(target: str) -> dict[str, str]:
    """File name -> text of the runtime package as a tree converted for ``target`` gets it."""
    files = {"__init__.py": _init_source(target), "backend.py": backend_source(target)}
    for path in sorted(SOURCE.glob("*.py")):
        if path.name not in _SKIPPED:
            files[path.name] = for_target(path.read_text(encoding="utf-8"), target)
    return files


def for_target(code: str, target: str) -> str:
    """``code`` with its top-level ``if TARGET == "...":`` branches resolved for ``target``."""
    if "TARGET ==" not in code:
        return code
    out = _branches_alone(code, target)
    if out is None:
        out = _whole_module(code, target)
    if out is code:
        return code
    if not re.search(r"(?<![\w.])TARGET(?! =)\b", out.split("\n\n\n", 1)[-1]):
        out = re.sub(r"from \.backend import TARGET, ", "from .backend import ", out, count=1)
    return out


def _branches_alone(code: str, target: str) -> str | None:
    """What :func:`_whole_module` returns, with libcst parsing only the ``if TARGET`` statements:
    the runtime's generated module has 3,900 lines around one such statement, and its libcst
    parse cost 0.3 s of every run. Each statement is parsed alone, from its ``if`` line to the
    next statement (``ast`` finds both): the lines around it are the file's, as written; the
    indented comments after its last block go with it as they go with it in the whole module (an
    indented block owns them). None where the result could differ from the whole module's (other
    than ``\n`` line ends or four-space indentation, tabs, a branch that leaves nothing)."""
    if "\r" in code or "\t" in code:
        return None
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError):
        return None
    if _first_indent(body) != "    ":
        return None  # statements printed out of their block are indented with the file's unit
    lines = code.splitlines(keepends=True)
    out, done = [], 0
    for i, st in enumerate(body):
        if not _is_target_test(st):
            continue
        start, end = st.lineno - 1, (_first_line(body[i + 1]) - 1 if i + 1 < len(body) else len(lines))
        module = cst.parse_module("".join(lines[start:end]))
        chosen = _branch(module.body[0], target) if len(module.body) == 1 else None
        if not chosen or module.default_indent != "    ":
            return None
        out += [*lines[done:start], module.with_changes(
            body=[chosen[0].with_changes(leading_lines=()), *chosen[1:]]).code]
        done = end
    return "".join([*out, *lines[done:]]) if out else code


def _is_target_test(st) -> bool:
    """``st`` is ``if TARGET == "<name>": ...`` (ast)."""
    test = st.test if isinstance(st, ast.If) else None
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "TARGET" \
        and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)


def _first_line(st) -> int:
    """The first line of a statement (its first decorator's)."""
    return min([st.lineno, *(d.lineno for d in getattr(st, "decorator_list", ()))])


def _first_indent(body) -> str | None:
    """The indentation of the first indented block (what libcst takes as the file's unit)."""
    for st in body:
        if isinstance(st, ast.Match):
            return None
        inner = getattr(st, "body", None)
        if isinstance(inner, list) and inner:  # a one-line suite first: not worth following
            return " " * inner[0].col_offset if inner[0].lineno > st.lineno else None
    return None


def _whole_module(code: str, target: str) -> str:
    """:func:`for_target` by a libcst parse of the whole module."""
    module = cst.parse_module(code)
    body, changed = [], False
    for st in module.body:
        chosen = _branch(st, target)
        if chosen is None:
            body.append(st)
            continue
        changed = True
        if chosen:
            chosen[0] = chosen[0].with_changes(leading_lines=st.leading_lines)
        body.extend(chosen)
    if not changed:
        return code
    return module.with_changes(body=body).code


def _branch(st, target: str) -> list | None:
    """The statements ``st`` stands for on ``target`` when it is an ``if TARGET == ...`` branch."""
    if not isinstance(st, cst.If) or not isinstance(st.test, cst.Comparison):
        return None
    test = st.test
    if not (isinstance(test.left, cst.Name) and test.left.value == "TARGET" and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)
            and isinstance(test.comparisons[0].comparator, cst.SimpleString)):
        return None
    if test.comparisons[0].comparator.evaluated_value == target:
        return list(st.body.body)
    if st.orelse is None:
        return []
    if isinstance(st.orelse, cst.Else):
        return list(st.orelse.body.body)
    return _branch(st.orelse, target) or []


def is_written_runtime(path: Path) -> bool:
    """``path`` is a runtime package that ``migrate convert`` wrote (any target)."""
    init = Path(path) / "__init__.py"
    try:
        with open(init, encoding="utf-8") as f:
            return f.read(len(_FIRST_LINE) + 3) == f'"""{_FIRST_LINE}'
    except OSError:
        return False


def runtime_name(directory: Path, taken=()) -> str:
    """The name of the runtime copy in ``directory``: ``migrate_runtime``, or the first of
    ``migrate_runtime_2``, ``_3``, ... that no user file or directory there has (nor ``taken``: the
    names of the files the conversion writes there). A copy of ours keeps its name."""
    directory = Path(directory)
    n = 1
    while True:
        name = RUNTIME_NAME if n == 1 else f"{RUNTIME_NAME}_{n}"
        path = directory / name
        clash = name in taken or f"{name}.py" in taken or (path.with_suffix(".py")).exists() \
            or (path.exists() and not is_written_runtime(path))
        if not clash:
            return name
        n += 1


def write_runtime(directory: Path, target: str, name: str = RUNTIME_NAME) -> list[Path]:
    """Write the runtime package for ``target`` as ``directory/name`` (files that already hold the
    same text are left alone); return the files written."""
    from migrate.convert.fileio import atomic_write
    folder = Path(directory) / name
    if folder.exists() and not is_written_runtime(folder):
        raise FileExistsError(f"{folder} exists and is not a runtime written by migrate: choose another "
                              f"name (runtime_name)")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in runtime_files(target).items():
        path = folder / file_name
        data = text.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            continue
        atomic_write(str(path), data)
        written.append(path)
    return written


# --------------------------------------------------------------------------------------------
# how each converted file of a tree reaches its copy
# --------------------------------------------------------------------------------------------
_RELATIVE_IMPORT = re.compile(r"^[ \t]*from[ \t]+\.", re.M)
_ABSOLUTE_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import|import[ \t]+([A-Za-z_][\w.]*))", re.M)


def package_dirs(root: Path, sources) -> set[Path]:
    """The directories of the tree (relative to ``root``) that are packages: those with an
    ``__init__.py``, and namespace packages: a directory whose files import relatively, or one
    that a file imports by name from its parent directory or the tree's top (``import utils.x``
    in ``train.py`` beside ``utils/``)."""
    root = Path(root)
    rel = [Path(s).relative_to(root) for s in sources]
    dirs = {p.parent for p in rel}
    for d in list(dirs):
        dirs.update(d.parents)
    texts = {}
    for path in rel:
        if path.suffix == ".py":
            try:
                texts[path] = (root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
    out = {d for d in dirs if (root / d / "__init__.py").is_file()} - _script_dirs(texts, root)
    out |= {path.parent for path, text in texts.items() if _RELATIVE_IMPORT.search(text)}
    out |= _relatively_imported_dirs(texts, dirs)
    for path, text in texts.items():
        for a, b in _ABSOLUTE_IMPORT.findall(text):
            first = (a or b).split(".")[0]
            for parent in {path.parent, Path(".")}:
                candidate = parent / first
                if candidate in dirs:
                    out.add(candidate)
    return out


_RELATIVE_FROM = re.compile(r"^[ \t]*from[ \t]+(\.+)([\w.]*)[ \t]+import[ \t]+\(?[ \t]*([\w \t,]*)", re.M)


def _relatively_imported_dirs(texts: dict, dirs: set) -> set[Path]:
    """Directories a package module reaches by a relative import (``from .__arch.RRDB import
    RRDBNet`` in spandrel's ``ESRGAN/__init__.py``, ``from . import blocks``): namespace
    subpackages, imported as ``pkg.sub.module`` even without an ``__init__.py`` of their own."""
    out = set()
    for path, text in texts.items():
        for dots, module, names in _RELATIVE_FROM.findall(text):
            base = path.parent
            for _ in range(len(dots) - 1):
                base = base.parent
            parts = [p for p in module.split(".") if p]
            for i in range(1, len(parts) + 1):
                if base / Path(*parts[:i]) in dirs:
                    out.add(base / Path(*parts[:i]))
            for name in names.replace(" ", "").replace("\t", "").split(","):
                if name and base / Path(*parts, name) in dirs:
                    out.add(base / Path(*parts, name))
    return out


def _script_dirs(texts: dict, root: Path) -> set[Path]:
    """Directories whose files import a sibling module by its bare name (``from transformer_net
    import TransformerNet`` beside ``transformer_net.py``): they run as scripts from there, with
    the directory on the path, whatever ``__init__.py`` it holds (pytorch/examples'
    fast_neural_style). :func:`package_dirs` keeps a package any directory that also imports
    relatively. A package's import of itself by its own name (``from rotary_embedding_torch.rotary_embedding_torch
    import ...`` in ``rotary_embedding_torch/__init__.py``, beside ``rotary_embedding_torch.py``) is not a
    sibling's."""
    modules = {path.parent: set() for path in texts}
    for path in texts:
        modules[path.parent].add(path.stem)
    out = set()
    for path, text in texts.items():
        siblings = modules[path.parent] - {path.stem, "__init__"}
        if "__init__" in modules[path.parent]:
            siblings -= {(Path(root) / path.parent).resolve().name}
        if any((a or b).split(".")[0] in siblings for a, b in _ABSOLUTE_IMPORT.findall(text)):
            out.add(path.parent)
    return out


def runtime_homes(root: Path, sources, packages: set[Path] | None = None) -> dict[str, tuple[Path, int]]:
    """For each source file (its path as given): (the directory, relative to ``root``, that holds
    its runtime copy, how many levels of packages lie between that directory and the file: None
    for a file outside packages, which imports the copy beside it by its absolute name).

    A file in a package imports the copy inside its top-level package, relatively (the converted
    package stays self-contained and imports from anywhere); a script imports the copy in its
    own directory by name (it runs from there). One copy per import root, not per directory.
    """
    root = Path(root)
    packages = package_dirs(root, sources) if packages is None else packages
    out = {}
    for src in sources:
        folder = Path(src).relative_to(root).parent
        if folder not in packages:
            out[str(src)] = (folder, None)
            continue
        top = folder
        while top != Path(".") and top.parent in packages:
            top = top.parent
        out[str(src)] = (top, len(folder.relative_to(top).parts))
    return out


def import_module_text(name: str, depth: int | None) -> str:
    """What follows ``from`` in a converted file's import of the runtime copy called ``name``:
    ``migrate_runtime`` (a script beside it), ``.migrate_runtime``, ``..migrate_runtime``, ..."""
    return name if depth is None else "." * (depth + 1) + name


# --------------------------------------------------------------------------------------------
# the runtime inlined into one file (a file converted to stdout)
# --------------------------------------------------------------------------------------------
BEGIN = "# --- BEGIN migrate runtime: the run-time help this file uses (rewritten by each conversion) ---"
END = "# --- END migrate runtime ---"
BACKEND_NAMES = ("TARGET", "init", "ms", "nn", "ops")


@dataclass(frozen=True)
class _Symbol:
    """A top-level name of a runtime module: a definition (``source``, the names it reads), an
    import of the standard library or the backend (``line``), or another module's name."""

    kind: str  # "def", "stdlib", "backend", "runtime"
    source: str = ""
    reads: frozenset = frozenset()
    module: str = ""  # for "runtime": the module that defines it
    imports: frozenset = frozenset()  # (module, name) a definition imports when it runs


@lru_cache(maxsize=4)
def _symbols(target: str) -> dict[str, dict[str, _Symbol]]:
    """module -> top-level name -> what it is, for the runtime as ``target`` gets it."""
    out = {}
    for file_name, text in runtime_files(target).items():
        if file_name in ("__init__.py", "index.py", "backend.py"):
            continue
        lines = text.splitlines()
        table = out[file_name[:-3]] = {}
        for node in ast.parse(text).body:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
            # a function that imports another module of the runtime when it runs needs that name
            # too; inlined, the name is the block's own and the import line goes
            inner = [n for n in ast.walk(node) if isinstance(n, ast.ImportFrom) and n.level == 1]
            skip = {i for n in inner for i in range(n.lineno, n.end_lineno + 1)} if node.col_offset == 0 else set()
            source = "\n".join(line for i, line in enumerate(lines[first - 1:node.end_lineno], first)
                               if i not in skip)
            reads = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                table[node.name] = _Symbol("def", source, reads,
                                           imports=frozenset((n.module, a.name) for n in inner for a in n.names))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        table[t.id] = _Symbol("def", source, reads)
            elif isinstance(node, ast.ImportFrom) and node.level == 1:
                for alias in node.names:
                    kind = "backend" if node.module == "backend" else "runtime"
                    table[alias.asname or alias.name] = _Symbol(kind, module=node.module)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    table[bound] = _Symbol("stdlib", ast.get_source_segment(text, node))
    return out


def inline_parts(names, target: str) -> tuple[list[str], list[tuple[str, str]], set[str]]:
    """What a file that uses the runtime's ``names`` must hold to have them without the package:
    (the standard-library imports, (name, source) of every definition in the order they must
    run, the backend names they read: ``ms``, ``nn``, ``ops``, ``init``)."""
    from migrate.runtime.index import EXPORTS
    symbols = _symbols(target)
    imports, done, order, backend = [], set(), [], set()

    def visit(module: str, name: str) -> None:
        symbol = symbols[module].get(name)
        if symbol is None:
            return
        if symbol.kind == "runtime":
            return visit(symbol.module, name)
        if symbol.kind == "backend":
            backend.add(name)
            return None
        if symbol.kind == "stdlib":
            if symbol.source not in imports:
                imports.append(symbol.source)
            return None
        if (module, name) in done:
            return None
        done.add((module, name))
        for other, imported in sorted(symbol.imports):
            visit(other, imported)
        for read in sorted(symbol.reads - {name}):
            visit(module, read)
        order.append((name, symbol.source))
        return None

    for name in sorted(names):
        visit(EXPORTS[name], name)
    # the order is the runtime's own (modules by name, definitions as written), whatever names
    # the file reached the block through: a second conversion, which may reach the same
    # definitions from other names, writes the same block
    needed, order = done, []
    done = set()
    for module in sorted(symbols):
        for name in symbols[module]:
            if (module, name) in needed:
                visit(module, name)
    unique = list(dict.fromkeys(order))  # a statement binding two names comes once
    return sorted(imports), unique, backend
