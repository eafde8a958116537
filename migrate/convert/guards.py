"""Torch imports that must stay, made lazy: converted code never imports torch.

A torch import stays when code the converter could not translate still uses its names (that code
carries a ``# migrate: MS9xx`` marker). Left as written, the import would stop the whole module
(and every module that imports it) where torch is absent, although the marked code may never
run: a pretrained-weight download, a ``__main__`` demo, a training-only branch; and where torch
is installed, the marked code would call torch with the target's tensors. So the names are bound
to stand-ins, and the import is kept only for type checkers (and for the next conversion)::

    if TYPE_CHECKING:  # migrate: MS900 for marked code only: converted code never imports torch
        import torch
    else:
        torch = TorchMissing("torch", {"hub": "MS901 torch.hub.load_state_dict_from_url has no mapping"})

``TorchMissing`` comes from the runtime the file imports (:mod:`migrate.runtime.guards`; the
output needs no package of this project): it raises ``ImportError`` with the marker's reason
when the marked code runs, so it fails where it is reached, never at import time, whether torch
is installed or not.

The guard is recognised on the next conversion (:func:`is_guard`; also the ``try: <imports>
except ImportError: <stand-ins>`` form earlier conversions wrote) and written again from that
conversion's markers, so converting converted code changes nothing.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.changes import MARKER_PREFIX
from migrate.convert.cst import code_of, dotted, parse_statement

STUB = "TorchMissing"  # the runtime's stand-in (migrate/runtime/guards.py), imported by the guarded file
# (short: the guard's line stays under 120 columns)
GUARD_NOTE = f"{MARKER_PREFIX}MS900 for marked code only: converted code never imports torch"
CHECKING = "TYPE_CHECKING"
# the stand-in class an earlier version wrote into each converted file (recognised to be removed)
_OLD_STUB, _OLD_DOC = "_TorchMissing", "Stands for a torch name where torch is not installed"
_MARKER = re.compile(r"#\s*migrate:\s*(MS\d{3}.*)$")
_CATCHES_IMPORT_ERROR = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def is_stub_class(st) -> bool:
    """The stand-in class that an earlier version wrote into the converted file (recognised by its
    docstring): the runtime's TorchMissing replaces it."""
    if not isinstance(st, cst.ClassDef) or not st.name.value.startswith(_OLD_STUB):
        return False
    body = st.body.body if isinstance(st.body, cst.IndentedBlock) else ()
    if not body or not isinstance(body[0], cst.SimpleStatementLine):
        return False
    doc = body[0].body[0]
    return isinstance(doc, cst.Expr) and isinstance(doc.value, cst.SimpleString) and _OLD_DOC in doc.value.value


def catches_import_error(node: cst.Try) -> bool:
    """A ``try`` one of whose handlers catches ImportError (or a bare/broad except)."""
    for h in node.handlers:
        if h.type is None:
            return True
        kinds = h.type.elements if isinstance(h.type, cst.Tuple) else [cst.Element(h.type)]
        if any((dotted(k.value) or "").split(".")[-1] in _CATCHES_IMPORT_ERROR for k in kinds):
            return True
    return False


def stub_assignment(st) -> str | None:
    """The name a ``name = TorchMissing(...)`` line binds (``_TorchMissing`` as an earlier version
    wrote it), else None."""
    if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
        return None
    small = st.body[0]
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name) and isinstance(small.value, cst.Call)):
        return None
    func = small.value.func
    if isinstance(func, cst.Name) and func.value.lstrip("_").startswith(STUB):
        return small.targets[0].target.value
    return None


def is_guard(node) -> bool:
    """A guard this module wrote: ``if TYPE_CHECKING: <imports> else: <stub assignments>`` (or
    ``try: <imports> except ImportError: <stub assignments>``, as earlier conversions wrote)."""
    parts = _guard_parts(node)
    if parts is None:
        return False
    imports, stubs = parts
    return all(isinstance(st, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom))
                                                               for s in st.body) for st in imports) \
        and all(stub_assignment(st) is not None for st in stubs)


def _guard_parts(node):
    """(import lines, stand-in lines) of a guard-shaped statement, else None."""
    if isinstance(node, cst.If) and dotted(node.test) == CHECKING and isinstance(node.body, cst.IndentedBlock) \
            and isinstance(node.orelse, cst.Else) and isinstance(node.orelse.body, cst.IndentedBlock):
        return node.body.body, node.orelse.body.body
    if not (isinstance(node, cst.Try) and len(node.handlers) == 1 and node.orelse is None
            and node.finalbody is None and isinstance(node.body, cst.IndentedBlock)):
        return None
    handler = node.handlers[0]
    if handler.name is not None or handler.type is None \
            or (dotted(handler.type) or "").split(".")[-1] != "ImportError" \
            or not isinstance(handler.body, cst.IndentedBlock):
        return None
    return node.body.body, handler.body.body


def guard(lines: list, stubs: list[tuple[str, str, dict]], stub_name: str = STUB) -> cst.If:
    """``if TYPE_CHECKING: <lines> else: <local> = TorchMissing(<qualified name>, <reasons>)``.

    Args:
        lines: the import statements (SimpleStatementLine) that stay; the first one's comments
            go above the ``if``.
        stubs: (local name, qualified torch name, {first attribute: reason}) per name still used.
        stub_name: the local name of the runtime's stand-in class in this file.
    """
    first = lines[0]
    body = [first.with_changes(leading_lines=[]), *lines[1:]]
    assigns = [parse_statement(f"{local} = {stub_name}({qual!r}, {_reasons_text(reasons)})")
               for local, qual, reasons in stubs]
    return cst.If(test=cst.Name(CHECKING),
                  body=cst.IndentedBlock(body=body, header=cst.TrailingWhitespace(
                      whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(GUARD_NOTE))),
                  orelse=cst.Else(body=cst.IndentedBlock(body=assigns)), leading_lines=first.leading_lines)


def raise_guard(lines: list, message: str, error: str = "ImportError") -> cst.If:
    """``if TYPE_CHECKING: <lines> else: raise ImportError(message)``: the torch imports of a
    ``try`` that catches ImportError, which converted code never makes (so its handler runs)."""
    first = lines[0]
    body = [first.with_changes(leading_lines=[]), *lines[1:]]
    raised = parse_statement(f"raise {error}({message!r})")
    return cst.If(test=cst.Name(CHECKING), body=cst.IndentedBlock(body=body),
                  orelse=cst.Else(body=cst.IndentedBlock(body=[raised])), leading_lines=first.leading_lines)


def is_raise_guard(node) -> bool:
    """A :func:`raise_guard` an earlier conversion wrote."""
    if not (isinstance(node, cst.If) and dotted(node.test) == CHECKING and isinstance(node.body, cst.IndentedBlock)
            and isinstance(node.orelse, cst.Else) and isinstance(node.orelse.body, cst.IndentedBlock)
            and len(node.orelse.body.body) == 1):
        return False
    last = node.orelse.body.body[0]
    return isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Raise) \
        and all(isinstance(st, cst.SimpleStatementLine) and all(isinstance(x, (cst.Import, cst.ImportFrom))
                                                                for x in st.body) for st in node.body.body)


def merge_guards(first, second) -> cst.If:
    """One guard for two consecutive ones: both import blocks, each stand-in once."""
    imports, stubs = _guard_parts(first)
    more_imports, more_stubs = _guard_parts(second)
    have = {stub_assignment(st) for st in stubs}
    extra = [st for st in more_stubs if stub_assignment(st) not in have]
    lines = [*imports, *more_imports]
    merged = guard([lines[0].with_changes(leading_lines=first.leading_lines), *lines[1:]], [])
    return merged.with_changes(orelse=cst.Else(body=cst.IndentedBlock(body=[*stubs, *extra])))


def _reasons_text(reasons: dict) -> str:
    """A dict literal, keys sorted: the same reasons give the same text (idempotence)."""
    return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in sorted(reasons.items())) + "}"


def marker_reasons(statements, aliases) -> dict[str, dict[str, str]]:
    """For each torch alias, the reasons of the ``# migrate:`` markers above the statements of
    ``statements`` (converted code, any depth) that use it, by the attribute read on it (``""``:
    the alias itself is called or passed). Read from the markers as written, so converting the
    output again finds the same reasons."""
    out: dict[str, dict[str, set]] = {}
    stack = list(statements)
    while stack:
        st = stack.pop()
        texts = [m.group(1) for ln in getattr(st, "leading_lines", ()) if ln.comment is not None
                 for m in [_MARKER.match(ln.comment.value)] if m and not m.group(1).startswith("MS900")]
        header = [st] if isinstance(st, cst.SimpleStatementLine) else \
            [p for f in ("test", "iter", "items", "decorators", "bases", "params")
             for v in [getattr(st, f, None)] if v is not None
             for p in (v if isinstance(v, (tuple, list)) else [v])]
        if texts:
            for part in header:
                for alias, attr in _alias_reads(part, aliases):
                    out.setdefault(alias, {}).setdefault(attr, set()).update(texts)
        if not isinstance(st, cst.SimpleStatementLine):
            stack.extend(_inner_statements(st))
    return {a: {k: "; ".join(sorted(v)) for k, v in d.items()} for a, d in out.items()}


def _inner_statements(st) -> list:
    out = []
    for name in ("body", "orelse", "handlers", "finalbody"):
        part = getattr(st, name, None)
        for p in part if isinstance(part, (tuple, list)) else [part]:
            if isinstance(p, cst.IndentedBlock):
                out.extend(p.body)
            elif isinstance(p, cst.If):
                out.append(p)
            elif p is not None and isinstance(getattr(p, "body", None), cst.IndentedBlock):
                out.extend(p.body.body)
    return out


def _alias_reads(node, aliases) -> list[tuple[str, str]]:
    """(alias, first attribute read on it or "") for every torch alias used inside ``node``."""
    found = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value in aliases:
            found.append((n.value.value, n.attr.value))
            continue
        if isinstance(n, cst.Name):
            if n.value in aliases:
                found.append((n.value, ""))
            continue
        if isinstance(n, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            continue  # inner statements carry their own markers
        if isinstance(n, (cst.Import, cst.ImportFrom)):
            continue  # a module path is no read of an alias (a marked `from torch.x import *`)
        stack.extend(n.children)
    return found


def describe(node) -> str:
    """Short source text of a statement, for reports."""
    return " ".join(code_of(node).split())[:120]
