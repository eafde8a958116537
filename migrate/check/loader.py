"""Finding and importing a model's code: the torch original and its conversion, side by side.

A model is addressed as a file (``models/resnet.py``: the package it belongs to is found by
walking up the ``__init__.py`` files, so its relative imports work) or as a module under a root
directory (``--model pkg.module:Net() --root DIR``). What the module needs is converted once:
the whole package, or for a loose file the file and the sibling modules it imports. The
conversion is cached by content (every file's text, the converter's key, the target), so a
second check of any model of the same package converts nothing.

Both versions are imported under the same module names without colliding: each import runs with
the names it defines taken out of ``sys.modules``. The torch original stays registered afterwards,
as a plain import would leave it (its classes pickle); the converted side is taken out again and
lives on only in the objects that use it, and what was registered before it is put back. Importing runs with ``sys.argv
= [file]`` (a script that parses its arguments at
import time sees none of migrate's) and as a module, so an ``if __name__ == "__main__":`` block
never runs. When a package's own ``__init__.py`` fails (it imports torchvision, say) although the
model's module does not need it, the module is imported with its parent packages as empty
stand-ins, and a note says so.
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import traceback
import types
from dataclasses import dataclass, field

SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".tox", ".venv", "venv", "node_modules",
             ".mypy_cache", ".pytest_cache"}
_COPY_LIMIT = 1 << 20  # non-Python files of a package up to this size are copied beside it
_MODULE_SPEC = re.compile(r"^\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)\s*:(.+)$", re.S)


class LoadError(Exception):
    """A model's code cannot be found, converted or imported (the message says which and why)."""


@dataclass(frozen=True)
class ModelSource:
    """Where a model's module is.

    Attributes:
        root: the directory that goes on ``sys.path``.
        module: the dotted module name under `root` ('models.resnet', or 'model' for a loose
            file).
        file: the module's file.
        package: the top-level package name, or None for a loose module.
    """

    root: str
    module: str
    file: str
    package: str | None

    @property
    def top(self) -> str:
        return self.module.split(".")[0]


def locate(path: str) -> ModelSource:
    """The module a file is, found by walking up the ``__init__.py`` files.

    Args:
        path: a ``.py`` file, loose or anywhere inside a package.

    Returns:
        A :class:`ModelSource`; for a file inside a package, `root` is the directory above the
        outermost package and `module` the dotted name.

    Raises:
        LoadError: the file does not exist or is not a ``.py`` file.

    Example:
        >>> locate("repo/models/resnet.py")   # doctest: +SKIP
        ModelSource(root='repo', module='models.resnet', file='repo/models/resnet.py', package='models')
    """
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise LoadError(f"{path} does not exist")
    if not path.endswith(".py"):
        raise LoadError(f"{path} is not a Python file (.py)")
    directory, name = os.path.split(path)
    parts = [] if name == "__init__.py" else [name[:-3]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        parts.insert(0, pkg)
    if not parts:
        raise LoadError(f"{path}: an __init__.py outside any package")
    package = parts[0] if (len(parts) > 1 or name == "__init__.py") else None
    return ModelSource(directory, ".".join(parts), path, package)


def split_model_spec(text: str) -> tuple[str, str] | None:
    """('pkg.module', 'Net(10)') from 'pkg.module:Net(10)'; None when `text` is not one."""
    m = _MODULE_SPEC.match(text)
    if m is None or m.group(1).endswith(".py"):
        return None
    return m.group(1), m.group(2).strip()


def from_module(module: str, root: str) -> ModelSource:
    """The :class:`ModelSource` of dotted `module` under directory `root`.

    Raises:
        LoadError: no such module file under `root`.
    """
    root = os.path.abspath(root)
    base = os.path.join(root, *module.split("."))
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            src = locate(candidate)
            if src.module != module and module.endswith("." + src.module) \
                    and not os.path.isfile(os.path.join(root, module.split(".")[0], "__init__.py")):
                # folders without __init__.py between root and the file: an implicit namespace
                # package (PEP 420), which Python imports under the dotted name
                return ModelSource(root, module, candidate, module.split(".")[0])
            if src.module != module:
                raise LoadError(f"{candidate} is module '{src.module}' (its packages' "
                                f"__init__.py files say so), not '{module}' under {root}")
            return src
    raise LoadError(f"no module '{module}' under {root} (looked for {base}.py and "
                    f"{base}/__init__.py)")


# --- the files a module needs ---------------------------------------------------------------------

def source_files(src: ModelSource) -> list[str]:
    """The files to convert, relative to `src.root`: every file of the package, or the loose
    file and the sibling modules (and packages) it imports, transitively; with the torch
    packages under the same root that these import (a package and the resampling library it
    uses, side by side), so that the two import each other converted."""
    if src.package is not None:
        return sorted(_with_used_packages(src.root, _package_files(src.root, src.package), {src.package}))
    out, todo, seen = [], [os.path.relpath(src.file, src.root)], set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        out.append(rel)
        if not rel.endswith(".py"):
            continue
        for name in _imported_tops(os.path.join(src.root, rel)):
            if os.path.isfile(os.path.join(src.root, name + ".py")):
                todo.append(name + ".py")
            elif os.path.isfile(os.path.join(src.root, name, "__init__.py")):
                out += [f for f in _package_files(src.root, name) if f not in seen]
                seen.update(out)
    return sorted(_with_used_packages(src.root, out, set()))


# torch itself and its own tools are never converted along, even when they sit under the root
_NEVER_ALONG = {"torch", "functorch", "torchgen", "ms_core", "mindspore", "migrate"}


def _with_used_packages(root, files, packages) -> list[str]:
    """`files` and every file of the packages under `root` they import (transitively) whose
    code imports torch: another torch package the model's code uses (demucs and julius)."""
    out, seen, todo = list(files), set(packages), list(files)
    while todo:
        rel = todo.pop()
        if not rel.endswith(".py"):
            continue
        for name in _imported_tops(os.path.join(root, rel)):
            if name in seen or name in _NEVER_ALONG or not os.path.isdir(os.path.join(root, name)):
                continue
            seen.add(name)
            more = _package_files(root, name)
            if any("torch" in _imported_tops(os.path.join(root, f)) for f in more if f.endswith(".py")):
                out += more
                todo += more
    return out


def _package_files(root, package) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, package)):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            if fn.endswith(".py") or os.path.getsize(p) <= _COPY_LIMIT:
                out.append(os.path.relpath(p, root))
    return out


def _imported_tops(path) -> set:
    """Top-level names of the absolute imports in a file (statically, anywhere in it)."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return set()
    tops = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def top_names(files) -> set:
    """The top-level module names the converted files define (what an import must isolate)."""
    return {f.split(os.sep)[0][:-3] if f.split(os.sep)[0].endswith(".py") else f.split(os.sep)[0]
            for f in files if f.endswith(".py")}


# --- converting once per content ------------------------------------------------------------------

@dataclass
class ConvertedTree:
    """The converted copy of a model's files: `root` mirrors the original root directory.

    Attributes:
        root: the directory to put on ``sys.path`` for the converted side.
        failed: relative path -> why the file did not convert (it is absent from the tree).
        unsupported: how many sites the converter marked, over all files.
        cached: True when the tree came from the cache.
    """

    root: str
    failed: dict = field(default_factory=dict)
    unsupported: int = 0
    cached: bool = False

    def notes(self) -> list[str]:
        out = []
        if self.unsupported:
            out.append(f"the conversion left {self.unsupported} unsupported site(s) (marked "
                       f"'# migrate:')")
        out += [f"{rel} does not convert ({why}): it is missing from the converted side"
                for rel, why in sorted(self.failed.items())]
        return out


def cache_key(src: ModelSource, files, converter_key: str, target: str) -> str:
    """A digest of every file's path and text, the converter's key and the target."""
    h = hashlib.sha256(f"{converter_key}\0{target}\0".encode())
    for rel in files:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(src.root, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:24]


def convert_tree(src: ModelSource, convert, cache_dir: str | None = None,
                 target: str = "ms_core") -> ConvertedTree:
    """Convert what `src` needs into a directory mirroring `src.root` (cached by content).

    Args:
        src: the module to convert, with its package or imported siblings.
        convert: ``convert(source_text)`` -> object with ``code``, ``error``, ``unsupported``;
            its optional attribute ``cache_key`` (a string naming the converter's version)
            enables the cache.
        cache_dir: where converted trees are kept; None (or a converter without ``cache_key``)
            converts into a temporary directory removed by :func:`cleanup`.
        target: a tag for the conversion target ('ms_core', 'mindspore'), part of the key.

    Returns:
        A :class:`ConvertedTree`.

    Example:
        >>> tree = convert_tree(locate("repo/models/resnet.py"), convert_source)  # doctest: +SKIP
    """
    files = source_files(src)
    key = getattr(convert, "cache_key", None)
    if key is not None and hasattr(convert, "for_package"):
        key += "+star-imports"  # trees converted before the star-import table are not reused
    if key is not None and hasattr(convert, "runtime_for"):
        key += "+runtime"  # (trees converted before the runtime was written into them)
    if cache_dir is None or key is None:
        tmp = tempfile.mkdtemp(prefix="migrate-check-")
        remember(tmp)
        return _convert_into(src, files, convert, tmp)
    final = os.path.join(cache_dir, cache_key(src, files, key, target))
    manifest = os.path.join(final, ".migrate-check.json")
    if os.path.isfile(manifest):
        with open(manifest, encoding="utf-8") as f:
            data = json.load(f)
        return ConvertedTree(final, data["failed"], data["unsupported"], cached=True)
    os.makedirs(cache_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".building-", dir=cache_dir)
    tree = _convert_into(src, files, convert, work)
    with open(os.path.join(work, ".migrate-check.json"), "w", encoding="utf-8") as f:
        json.dump({"failed": tree.failed, "unsupported": tree.unsupported, "module": src.module,
                   "root": src.root}, f)
    try:
        os.rename(work, final)  # atomic: parallel checks of one package build it once each
    except OSError:
        shutil.rmtree(work, ignore_errors=True)  # another process finished first: use its copy
    tree.root = final
    return tree


@dataclass(frozen=True)
class PackageFacts:
    """What each file's conversion is told about its package, as `migrate convert DIR` knows it:
    torch aliases from a sibling's `import *`, where the runtime is, module bases defined in other
    files, the packages converted together. Each is an optional attribute of the converter."""

    inherited: dict
    links: dict
    copies: dict
    module_bases: dict
    own: dict

    def options(self, path: str) -> dict:
        """The keyword arguments of ``convert(text, **options)`` for the file at `path`."""
        options = {"inherited": self.inherited[path]} if self.inherited.get(path) else {}
        if path in self.links:
            options["runtime"] = self.links[path]
        facts = dict(self.own, module_bases=self.module_bases[path]) if path in self.module_bases else self.own
        return {**options, **facts}


def package_facts(src: ModelSource, files, convert) -> PackageFacts:
    """The facts `convert` is given for the files of `src`'s package (see :class:`PackageFacts`)."""
    paths = [os.path.join(src.root, rel) for rel in files if rel.endswith(".py")]
    for_package = getattr(convert, "for_package", None)
    runtime_for = getattr(convert, "runtime_for", None)
    links, copies = runtime_for(src.root, paths) if runtime_for else ({}, {})
    bases_for = getattr(convert, "module_bases_for", None)
    # the packages converted together are the code's own (`own`, optional): a package named like
    # a torch one (torchvision's own models) or used beside it keeps its imports
    own = {"own": frozenset(top_names(files))} if getattr(convert, "takes_own", False) else {}
    return PackageFacts(for_package(src.root, paths) if for_package else {}, links, copies,
                        bases_for(src.root, paths) if bases_for else {}, own)


def _convert_into(src, files, convert, out) -> ConvertedTree:
    tree = ConvertedTree(out)
    facts = package_facts(src, files, convert)
    needed = set()
    for rel in files:
        dst = os.path.join(out, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        path = os.path.join(src.root, rel)
        if not rel.endswith(".py"):
            shutil.copyfile(path, dst)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            result = convert(text, **facts.options(path))
        except (OSError, UnicodeDecodeError) as exc:
            tree.failed[rel] = f"cannot read: {exc}"
            continue
        if result.error:
            tree.failed[rel] = str(result.error)
            continue
        tree.unsupported += int(getattr(result, "unsupported", 0) or 0)
        if getattr(result, "runtime", ()) and path in facts.copies:
            needed.add(facts.copies[path])
        with open(dst, "w", encoding="utf-8") as f:
            f.write(result.code)
    for home, name in sorted(needed):
        convert.write_runtime(os.path.join(out, str(home)), name)
    return tree


# --- importing one side ---------------------------------------------------------------------------

@dataclass
class Imported:
    """One side's imported module, its own modules (kept out of ``sys.modules``) and notes."""

    module: types.ModuleType
    modules: dict
    notes: list


def import_side(src: ModelSource, root: str, names, label: str, keep: bool = False,
                other_root: str | None = None) -> Imported:
    """Import `src.module` from directory `root` with the top-level `names` isolated.

    Args:
        src: the module to import (its dotted name; `root` may be a converted copy of its root).
        root: the directory put first on ``sys.path`` while importing.
        names: top-level module names that belong to this side (taken out of ``sys.modules``
            during the import and restored afterwards).
        label: 'torch' or 'converted', for messages.
        keep: leave this side's modules registered in ``sys.modules`` (replacing what was
            there under these names); False puts back what was there before.
        other_root: the other side's root: with ``keep`` False, this side's modules that have no
            file there (the converted tree's runtime) stay registered, so that an import inside
            one of this side's functions (``from .generated import TABLE``, run when the model is
            built or called) finds them instead of failing in the other side's package.

    Returns:
        An :class:`Imported`.

    Raises:
        LoadError: the module cannot be imported (the first line of the error, and where).
    """
    names = set(names) | {src.top}
    file = os.path.join(root, os.path.relpath(src.file, src.root))
    outer = _take(names)
    saved_path, saved_argv = list(sys.path), sys.argv
    sys.path.insert(0, root)
    sys.argv = [file]
    notes = []
    try:
        try:
            module = importlib.import_module(src.module)
        except BaseException as exc:  # noqa: BLE001 (SystemExit from argparse, KeyboardInterrupt)
            if isinstance(exc, KeyboardInterrupt):
                raise
            _take(names)
            module = _retry_without_parents(src, root, file, exc, label, notes)
        mine = _take(names)
        if keep:
            sys.modules.update(mine)
            outer = {}
        elif other_root is not None:
            sys.modules.update(_only_here(mine, root, other_root, outer))
    finally:
        sys.path[:] = saved_path
        sys.argv = saved_argv
        sys.modules.update(outer)
    return Imported(module, mine, notes)


@contextlib.contextmanager
def side_active(side: Imported, root: str):
    """`side`'s modules registered and `root` first on ``sys.path`` for the duration: an import
    run later in its namespace (the runtime names a converted expression reads) finds that side's
    modules, not the other side's of the same name."""
    names = {name.split(".")[0] for name in side.modules}
    outer = _take(names)
    sys.modules.update(side.modules)
    sys.path.insert(0, root)
    try:
        yield
    finally:
        sys.path.remove(root)
        side.modules.update(_take(names))
        sys.modules.update(outer)


def _only_here(modules: dict, root: str, other_root: str, outer: dict) -> dict:
    """The entries of ``modules`` whose file under ``root`` has no counterpart under ``other_root``
    (and whose name the other side has not registered)."""
    only = {}
    for name, module in modules.items():
        file = getattr(module, "__file__", None)
        if name in outer or not file:
            continue
        rel = os.path.relpath(file, root)
        if not rel.startswith("..") and not os.path.exists(os.path.join(other_root, rel)):
            only[name] = module
    return only


def _take(names) -> dict:
    """Remove and return the sys.modules entries of these top-level names."""
    taken = {}
    for key in list(sys.modules):
        if key.split(".")[0] in names:
            taken[key] = sys.modules.pop(key)
    return taken


def _failed_before(exc, file) -> bool:
    """True when the import failed before the module's own code ran (in a parent package)."""
    frames = traceback.extract_tb(exc.__traceback__)
    target = os.path.normcase(os.path.abspath(file))
    return not any(os.path.normcase(os.path.abspath(f.filename)) == target for f in frames)


def _retry_without_parents(src, root, file, exc, label, notes):
    """The import failed in a parent package's __init__.py: import the module itself with empty
    stand-ins for its parents, or raise LoadError with the first error."""
    first = describe(exc, root)
    if "." not in src.module or not _failed_before(exc, file):
        raise LoadError(f"importing {src.module} ({label}) failed: {first}") from None
    parents = src.module.split(".")[:-1]
    for i in range(len(parents)):
        name = ".".join(parents[:i + 1])
        stub = types.ModuleType(name)
        stub.__path__ = [os.path.join(root, *parents[:i + 1])]
        stub.__package__ = name
        stub.__file__ = os.path.join(stub.__path__[0], "__init__.py")
        sys.modules[name] = stub
    try:
        module = importlib.import_module(src.module)
    except BaseException as exc2:  # noqa: BLE001
        if isinstance(exc2, KeyboardInterrupt):
            raise
        raise LoadError(f"importing {src.module} ({label}) failed: {first}; without its "
                        f"packages' __init__.py: {describe(exc2, root)}") from None
    packages = ", ".join(".".join(parents[:i + 1]) for i in range(len(parents)))
    notes.append(f"{label}: importing the package(s) above {src.module} ({packages}) fails "
                 f"({first}); {src.module} was imported with their __init__.py skipped")
    return module


def describe(exc, root=None) -> str:
    """'Type: first line (file:line)' of an exception, the innermost frame under `root`."""
    text = str(exc).strip().splitlines()
    head = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    if isinstance(exc, SystemExit):
        head = f"SystemExit({exc.code!r}) (the module exits when imported)"
    frames = traceback.extract_tb(exc.__traceback__)
    if root is not None:
        mine = [f for f in frames if os.path.abspath(f.filename).startswith(os.path.abspath(root))]
        if mine:
            rel = os.path.relpath(mine[-1].filename, root)
            return f"{head} ({rel}:{mine[-1].lineno})"
    return head


@contextlib.contextmanager
def script_argv(file):
    """``sys.argv = [file]`` for the duration (model constructors that read arguments)."""
    saved = sys.argv
    sys.argv = [file]
    try:
        yield
    finally:
        sys.argv = saved


# --- temporary directories ------------------------------------------------------------------------

_TEMP_DIRS: list = []


def remember(tmpdir):
    """Temporary converted trees live until the command ends (or the interpreter exits: a
    library caller may still read their source lines)."""
    if not _TEMP_DIRS:
        import atexit
        atexit.register(cleanup)
    _TEMP_DIRS.append(tmpdir)


def cleanup():
    """Remove the temporary converted trees (cli.py calls it when a command ends)."""
    while _TEMP_DIRS:
        shutil.rmtree(_TEMP_DIRS.pop(), ignore_errors=True)


def default_cache_dir() -> str:
    """``$MIGRATE_CHECK_CACHE``, else ``~/.cache/ms-migrate/check``."""
    return os.environ.get("MIGRATE_CHECK_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "ms-migrate", "check")
