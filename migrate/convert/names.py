"""Which names a scope binds: torch aliases that user code rebinds (a parameter called ``torch``,
``nn = Net()``), and user names that the target imports must not take (``ops = [1, 2]``).

Only statements are looked at (assignment targets, ``for``/``with``/``except`` targets, imports,
``def``/``class`` names, parameters): that is cheap next to the walk, and a regex over the
source text decides first whether a file can bind one of the names at all.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import dotted

# compound statements whose blocks belong to the enclosing scope
_BLOCKS = (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Else, cst.Finally,
           cst.ExceptHandler, cst.ExceptStarHandler)


_OWN_IMPORT_LINE = re.compile(
    r"\s*(?:import|from)\s+(?:torch|torchvision|torchaudio|torchtext|einops|ms_core|mindspore|math)\b")


# characters other than "\n" that end a line for str.splitlines
_OTHER_LINE_ENDS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def maybe_bound(code: str, names) -> set[str]:
    """The ``names`` that ``code`` may bind somewhere (a superset), torch imports and imports of
    the target package aside.

    A binding puts the name where neither ``.``, ``(`` nor ``[`` follows it (``x = 1``,
    ``def f(x)``, ``for x in``, ``as x``), or after ``def``/``class``; ``x.attr`` and ``x(...)``
    only use it.
    """
    names = [n for n in names if n and n.isidentifier()]
    if not names:
        return set()
    alt = "|".join(map(re.escape, names))
    if any(end in code for end in _OTHER_LINE_ENDS):
        pattern = re.compile(rf"(?<![.\w])({alt})\b(?!\s*[.(\[])|\b(?:def|class)\s+({alt})\b")
        return _bound_line_by_line(code.splitlines(), pattern)
    # lines end with "\n" only: searches of the whole text, whose spaces stop at a line's end.
    # Each pattern begins with the words it looks for, so that the regex engine skips ahead to
    # their first letters (a look-behind first made it try every position: 5 % of a conversion);
    # what the look-behind said is checked on the matches (those it refuses hide no other match:
    # every position inside one follows a word character).
    uses = re.compile(rf"({alt})\b(?![^\S\n]*[.(\[])")
    defs = re.compile(rf"(?:def|class)[^\S\n]+({alt})\b")
    found: set[str] = set()
    verdict: dict[int, bool] = {}  # line start -> whether the line counts
    for m in (*_after_non_word(code, uses.finditer(code), "."), *_after_non_word(code, defs.finditer(code), "")):
        start = code.rfind("\n", 0, m.start()) + 1
        counts = verdict.get(start)
        if counts is None:
            end = code.find("\n", start)
            line = code[start:end if end >= 0 else len(code)]
            counts = verdict[start] = not (line.lstrip().startswith("#") or _OWN_IMPORT_LINE.match(line))
        if counts:
            found.add(m.group(1))
    return found


def _after_non_word(code: str, matches, also: str):
    """The matches not preceded by a word character (as ``\\w`` means it) or by one of ``also``."""
    for m in matches:
        i = m.start()
        before = code[i - 1] if i else " "
        if not (before.isalnum() or before == "_" or before in also):
            yield m


def _bound_line_by_line(lines: list[str], pattern) -> set[str]:
    """:func:`maybe_bound` over the lines of a text that ends lines with more than "\n"."""
    found = set()
    for line in lines:
        if pattern.search(line) is None or line.lstrip().startswith("#") or _OWN_IMPORT_LINE.match(line):
            continue
        found.update(m.group(1) or m.group(2) for m in pattern.finditer(line))
    return found


def target_names(node) -> list[str]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``; not ``x.a`` or ``x[i]``)."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for el in node.elements for n in target_names(el.value)]
    if isinstance(node, cst.StarredElement):
        return target_names(node.value)
    return []


def import_names(small) -> list[tuple[str, str]]:
    """(local name, imported dotted name) pairs bound by an import statement (not ``*``)."""
    if isinstance(small, cst.Import):
        out = []
        for a in small.names:
            full = dotted(a.name) or ""
            local = a.asname.name.value if a.asname is not None else full.split(".")[0]
            out.append((local, full if a.asname is not None else full.split(".")[0]))
        return out
    if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
        mod = "." * len(small.relative) + (dotted(small.module) if small.module is not None else "")
        return [(a.asname.name.value if a.asname is not None else a.name.value, f"{mod}.{a.name.value}")
                for a in small.names]
    return []


def param_names(params: cst.Parameters) -> list[str]:
    """Every parameter name of a function or lambda."""
    out = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star.name.value)
    return out


def small_bindings(small, skip=None) -> list[str]:
    """Names one simple statement binds; statements for which ``skip(small)`` is true are
    left out (torch imports: they bind aliases, not user names; the converter's own lines).
    ``import os, torch``: each module is tested on its own."""
    if isinstance(small, cst.Import) and len(small.names) > 1 and skip is not None:
        alone = (small.with_changes(names=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT)]) for a in small.names)
        return [n for one in alone for n in small_bindings(one, skip)]
    if skip is not None and skip(small):
        return []
    if isinstance(small, cst.Assign):
        return [n for t in small.targets for n in target_names(t.target)]
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return target_names(small.target)
    if isinstance(small, (cst.Import, cst.ImportFrom)):
        return [local for local, _ in import_names(small)]
    if isinstance(small, cst.Del):
        return target_names(small.target)
    return []


def block_bindings(body, skip=None, out: set | None = None, declared: set | None = None,
                   methods: bool = True) -> set[str]:
    """Names bound by the statements of ``body`` in their own scope: nested ``def``/``class``
    names count, their bodies do not (they are other scopes). ``global``/``nonlocal`` names
    go to ``declared``."""
    out = set() if out is None else out
    for st in body:
        _statement_bindings(st, skip, out, declared, methods)
    return out


def _statement_bindings(st, skip, out, declared, methods) -> None:
    if isinstance(st, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        for small in st.body:
            if isinstance(small, (cst.Global, cst.Nonlocal)) and declared is not None:
                declared.update(n.name.value for n in small.names)
            out.update(small_bindings(small, skip))
        return
    if isinstance(st, cst.FunctionDef):
        if methods:
            out.add(st.name.value)
        return
    if isinstance(st, cst.ClassDef):
        if skip is None or not skip(st):
            out.add(st.name.value)
        return
    if isinstance(st, cst.For):
        out.update(target_names(st.target))
    elif isinstance(st, cst.With):
        for item in st.items:
            if item.asname is not None:
                out.update(target_names(item.asname.name))
    elif isinstance(st, (cst.Try, cst.TryStar)):
        for h in st.handlers:
            if h.name is not None:
                out.update(target_names(h.name.name))
    for block in blocks_of(st):
        block_bindings(block, skip, out, declared, methods)


def blocks_of(st) -> list:
    """The statement lists directly inside a compound statement (body, else, handlers, finally)."""
    if not isinstance(st, _BLOCKS):
        return []
    out = []
    for name in ("body", "orelse", "handlers", "finalbody"):
        part = getattr(st, name, None)
        for p in part if isinstance(part, (tuple, list)) else [part]:
            if isinstance(p, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                out.append(_statements(p))
            elif isinstance(p, cst.If):
                out.append([p])                  # elif
            elif p is not None and isinstance(p, _BLOCKS):
                out.append(_statements(p.body))  # else / except / finally
    return out


def function_locals(node: cst.FunctionDef, skip=None) -> set[str]:
    """Names local to a function: its parameters and what its body binds, minus names declared
    ``global``/``nonlocal``."""
    declared: set[str] = set()
    out = set(param_names(node.params))
    block_bindings(_body(node), skip, out, declared)
    return out - declared


def all_bindings(module: cst.Module, skip=None) -> set[str]:
    """Every name user code binds anywhere in the module (any scope), methods' names excepted:
    a target import must not take one of them, or the user's binding would hide it (or it would
    hide the user's)."""
    out: set[str] = set()
    _scope_bindings(module.body, False, skip, out)
    return out


def _scope_bindings(body, in_class: bool, skip, out: set) -> None:
    block_bindings(body, skip, out, methods=not in_class)
    for st in _defs_in(body):
        if isinstance(st, cst.FunctionDef):
            out.update(param_names(st.params))
            _scope_bindings(_body(st), False, skip, out)
        else:
            _scope_bindings(_body(st), True, skip, out)


def _body(node):
    return _statements(node.body)


def _statements(block) -> list:
    """The statements of a block; a one-line suite (``def f(): x = 1``) is one statement."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    if isinstance(block, cst.SimpleStatementSuite):
        return [block]
    return []


def _defs_in(body) -> list:
    """The def and class statements of a block, at any depth of if/for/try/with (not inside defs)."""
    out = []
    for st in body:
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
            out.append(st)
        else:
            for block in blocks_of(st):
                out.extend(_defs_in(block))
    return out


# local names the output may give the target's modules, in order of preference ("{pkg}": the
# target package's own name, ms_core or mindspore)
_CANDIDATES = {
    "ms": ("ms", "{pkg}", "{pkg}_"),
    "nn": ("nn", "ms_nn", "ms_nn_"),
    "ops": ("ops", "ms_ops", "ms_ops_"),
    "math": ("math", "py_math", "py_math_"),
    "np": ("np", "numpy_np", "numpy_np_"),  # numpy, for templates that compute shapes or dtypes
    "init": ("", "ms_init", "ms_init_"),  # "": initializer classes imported by their own names
    "builtins": ("_builtins", "_builtins_", "_py_builtins"),  # see migrate.convert.builtin_names
}


def choose_names(heads, taken: set[str], pkg: str, current: dict) -> dict:
    """``current`` with a new local name for each of ``heads`` (target modules: ms, nn, ops, math,
    init) that none of ``taken`` uses.

    Example:
        >>> choose_names({"ops", "ms"}, {"ops", "ms"}, "ms_core", {})
        {'ms': 'ms_core', 'ops': 'ms_ops'}
    """
    out = dict(current)
    for head in sorted(heads, key=list(_CANDIDATES).index):
        options = [o.format(pkg=pkg) for o in _CANDIDATES[head][1:]]
        n = 2
        while not [o for o in options if o not in taken]:
            options = [f"{head}_{n}"]
            n += 1
        out[head] = next(o for o in options if o not in taken)
    return out
