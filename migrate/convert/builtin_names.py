"""Python's builtins in generated code, whatever the converted file binds (issue 13, F11).

The converter writes code of its own into a file: expressions of rules and templates
(``tuple(float(i) for i in s)``, ``list(seq.name_cells().values())``), guards, and -- only in a
file that stands alone (written to stdout) -- the runtime's definitions it inlines. They mean
Python's builtins. (A file that imports the runtime needs none of this for the runtime's code:
it runs in its own module.) A file that binds one of those names itself (``from torch.hub import list``
that stays, ``from torch import *``, ``def len(x)``, ``max = 3``) would change what they do. The
converter then writes those builtins as ``_builtins.list`` with ``import builtins as _builtins``
(:meth:`Converter.builtin <migrate.convert.walker.Converter.builtin>` for one name,
:meth:`~migrate.convert.walker.Converter.builtins_in` for a text); the names it would shadow are
found once the walk knows what the output binds, and the file is converted again with them.
"""
from __future__ import annotations

import ast
import builtins
import re
from functools import lru_cache

# `super` stays bare: `super()` without arguments needs the compiler to see the name itself
BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_")) - {"None", "True", "False", "super"}
_SLOT = re.compile(r"\{\*?[A-Za-z_]\w*\}")  # a template's ``{input}`` / ``{*shapes}`` field


@lru_cache(maxsize=4096)
def references(text: str) -> tuple[tuple[str, int, int], ...]:
    """Where generated code ``text`` reads a builtin that it does not bind itself.

    Args:
        text: Python source (statements or an expression); a template's ``{slot}`` fields are
            read as plain names.

    Returns:
        ``(name, line index, column)`` per reference, columns in characters; empty when ``text``
        does not parse.

    Example:
        >>> references("tuple(float(i) for i in {input})")
        (('tuple', 0, 0), ('float', 0, 6))
    """
    masked = _SLOT.sub(lambda m: "_" * len(m.group()), text)
    try:
        tree = ast.parse(masked)
    except (SyntaxError, ValueError):
        return ()
    bound, reads = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                reads.append(node)
            else:
                bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    lines = masked.split("\n")
    out = []
    for node in reads:
        if node.id in BUILTINS and node.id not in bound:
            line = lines[node.lineno - 1]
            col = len(line.encode("utf-8")[:node.col_offset].decode("utf-8"))  # ast counts bytes
            out.append((node.id, node.lineno - 1, col))
    return tuple(sorted(out, key=lambda r: (r[1], r[2])))


def qualify(text: str, refs, prefix: str) -> str:
    """``text`` with ``prefix`` (``_builtins.``) put before each reference of ``refs`` (as
    :func:`references` gives them).

    Example:
        >>> qualify("list(x)", [("list", 0, 0)], "_builtins.")
        '_builtins.list(x)'
    """
    lines = text.split("\n")
    for _, row, col in sorted(refs, key=lambda r: (r[1], r[2]), reverse=True):
        lines[row] = lines[row][:col] + prefix + lines[row][col:]
    return "\n".join(lines)
