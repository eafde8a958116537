"""Where a layer's code is, as `file:line`: shown beside every row and finding of a report."""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import re

_LIBRARY_PREFIXES = ("torch.", "ms_core.", "mindspore.")


def source_of(obj) -> str:
    """`file:line` of a module/cell's forward/construct (the class when that fails)."""
    return _class_source(obj if inspect.isclass(obj) else type(obj))


@functools.lru_cache(maxsize=None)
def _class_source(klass) -> str:
    for meth in ("construct", "forward"):
        fn = klass.__dict__.get(meth)
        if fn is None:
            for base in klass.__mro__:
                if meth in base.__dict__:
                    fn = base.__dict__[meth]
                    # a user subclass of a library container: its own class line says more
                    if base.__module__.startswith(_LIBRARY_PREFIXES) and \
                            not klass.__module__.startswith(_LIBRARY_PREFIXES):
                        fn = None
                    break
        if fn is not None:
            try:
                _, line = inspect.getsourcelines(fn)
                return f"{_short_path(inspect.getsourcefile(fn))}:{line}"
            except (OSError, TypeError):
                continue
    found = class_lines(klass)
    return f"{_short_path(found[2])}:{found[1]}" if found else ""


def layer_source(root, path) -> str:
    """Where a layer's behaviour is decided, as `file:line`.

    For a library layer (torch.nn.Conv2d, ms_core.nn.Conv2d...) that is the line constructing it
    in the user's model (`self.conv1 = nn.Conv2d(...)`: the arguments are what a conversion gets
    wrong); for a user-defined layer, its forward/construct.
    """
    obj = _at(root, path)
    if obj is None:
        return ""
    if not type(obj).__module__.startswith(_LIBRARY_PREFIXES):
        return source_of(obj)
    parts = path.split(".") if path else []
    # Walk up: the nearest user-defined ancestor class whose source assigns this attribute.
    for i in range(len(parts) - 1, -1, -1):
        parent = _at(root, ".".join(parts[:i]))
        if parent is None or type(parent).__module__.startswith(_LIBRARY_PREFIXES):
            continue
        site = _assignment_line(type(parent), parts[i])
        if site:
            return site
        return source_of(parent)
    return source_of(obj)


def _at(root, path):
    obj = root
    for part in (path.split(".") if path else []):
        if hasattr(obj, "_cells") and part in getattr(obj, "_cells", {}):
            obj = obj._cells[part]
        elif hasattr(obj, "_modules") and part in obj._modules:
            obj = obj._modules[part]
        else:
            return None
    return obj


@functools.lru_cache(maxsize=None)
def _assignment_line(klass, attr) -> str:
    found = class_lines(klass)
    if not found:
        return ""
    lines, start, fname = found
    pat = re.compile(r"self\.%s\s*(:[^=]*)?=[^=]" % re.escape(attr))
    for i, line in enumerate(lines):
        if pat.search(line):
            return f"{_short_path(fname)}:{start + i}"
    return ""


def class_lines(klass):
    """(source lines, first line number, file) of a class, or None.

    Unlike ``inspect.getsourcelines`` this does not need the class's module in ``sys.modules``
    (the checker imports the torch and the converted module under the same name and keeps
    neither registered): the file comes from the class's own functions.
    """
    fname = _class_file(klass)
    if not fname:
        return None
    lines = linecache.getlines(fname)
    if not lines:
        return None
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    node = _find_class(tree, klass.__qualname__.split("."))
    if node is None:
        return None
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return lines[first - 1:node.end_lineno], first, fname


def _class_file(klass):
    for value in vars(klass).values():
        fn = getattr(value, "__func__", getattr(value, "fget", value))
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_filename and not code.co_filename.startswith("<"):
            return code.co_filename
    try:
        return inspect.getsourcefile(klass)
    except (OSError, TypeError):
        return None


def _find_class(tree, parts):
    body = tree.body
    node = None
    for part in parts:
        if part == "<locals>":
            return None
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _short_path(path):
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path
