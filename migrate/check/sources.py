"""Where a layer's code is, as `file:line`: shown beside every row and finding of a report."""
from __future__ import annotations

import functools
import inspect
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
    try:
        _, line = inspect.getsourcelines(klass)
        return f"{_short_path(inspect.getsourcefile(klass))}:{line}"
    except (OSError, TypeError):
        return ""



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
    try:
        lines, start = inspect.getsourcelines(klass)
        fname = inspect.getsourcefile(klass)
    except (OSError, TypeError):
        return ""
    pat = re.compile(r"self\.%s\s*(:[^=]*)?=[^=]" % re.escape(attr))
    for i, line in enumerate(lines):
        if pat.search(line):
            return f"{_short_path(fname)}:{start + i}"
    return ""


def _short_path(path):
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path
