"""Imports: resolving torch aliases, and replacing torch imports by the target's at the end.

Alias resolution is our own pass over the import statements (``import torch.nn as nn``,
``from torch import nn``...): libcst's QualifiedNameProvider costs ~7x a bare parse. The import
statements are rewritten once the walk is done, when it is known which torch names unconverted
code still uses (those imports stay, marked MS900) and which target modules the output needs.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.changes import MARKER_PREFIX
from migrate.convert.cst import dotted, parse_statement
from migrate.convert.registry import node_rule

TORCH_IMPORTS = node_rule(
    "MS100", "torch_imports",
    "Replace torch imports with the target's (import ms_core as ms, from ms_core import nn, ops, "
    "initializers) where the converted code needs them; keep the ones unconverted code still uses.")

# Packages whose names are resolved. torchvision has no table entries: every use is marked
# (MS901), never left silently.
ROOTS = ("torch", "torchvision")
_TORCH_IMPORT = re.compile(r"^\s*(import|from)\s+(torch|torchvision)\b", re.M)


def torch_bindings(stmt: cst.CSTNode) -> list[tuple[str, str]]:
    """Return (local name, qualified torch name) pairs bound by one import statement."""
    out = []
    if isinstance(stmt, cst.Import):
        for a in stmt.names:
            full = dotted(a.name)
            root = full.split(".")[0]
            if root not in ROOTS:
                continue
            if a.asname is not None:
                out.append((a.asname.name.value, full))
            else:
                out.append((root, root))
    elif isinstance(stmt, cst.ImportFrom) and not stmt.relative:
        mod = dotted(stmt.module) if stmt.module is not None else ""
        if mod.split(".")[0] not in ROOTS:
            return out
        if isinstance(stmt.names, cst.ImportStar):
            out.append(("*", mod))
            return out
        for a in stmt.names:
            local = a.asname.name.value if a.asname is not None else a.name.value
            out.append((local, f"{mod}.{a.name.value}"))
    return out


def imports_torch_somewhere(code: str) -> bool:
    """A torch import at any depth (inside a function, under ``if``...)."""
    return _TORCH_IMPORT.search(code) is not None


def scan_module_imports(body, aliases: dict[str, str], imported: set[str]) -> None:
    """Fill ``aliases`` (torch names) and ``imported`` (every name a module-level import binds)."""
    for st in body:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                for local, qual in torch_bindings(small):
                    aliases[local] = qual
                if isinstance(small, (cst.Import, cst.ImportFrom)) and \
                        not isinstance(small.names, cst.ImportStar):
                    for a in small.names:
                        name = a.asname.name if a.asname is not None else a.name
                        if isinstance(name, cst.Name):
                            imported.add(name.value)
                        elif isinstance(a.name, cst.Attribute):
                            imported.add(dotted(a.name).split(".")[0])
        elif isinstance(st, (cst.If, cst.Try)):
            scan_module_imports(st.body.body, aliases, imported)


# --------------------------------------------------------------------------------------------
# imports inside functions
# --------------------------------------------------------------------------------------------
def note_nested_import(conv, small):
    """A torch import inside a function or class: its names resolve from here on; whether it
    can go is decided when the function is done (:func:`drop_nested_imports`)."""
    pairs = torch_bindings(small)
    if not pairs:
        return small
    for local, qual in pairs:
        conv.aliases[local] = qual
    conv.aliases_changed()
    conv.nested_imports[id(small)] = {local: conv.alias_uses.get(local, 0) for local, _ in pairs}
    return small


def drop_nested_imports(conv, block):
    """Remove the torch imports of ``block`` whose names no unconverted code used since."""
    if not isinstance(block, cst.IndentedBlock) or not conv.nested_imports:
        return block
    body, changed = [], False
    for st in block.body:
        if isinstance(st, cst.SimpleStatementLine):
            kept = []
            for small in st.body:
                snap = conv.nested_imports.get(id(small))
                if snap is None or not conv.allows(TORCH_IMPORTS.id):
                    kept.append(small)
                elif any(conv.alias_uses.get(k, 0) > n for k, n in snap.items()):
                    kept.append(small)
                    conv.record(small, small, "MS900", "unsupported",
                                "import kept: unconverted code still uses it")
                else:
                    conv.record(small, "", TORCH_IMPORTS.id, "exact", "torch import replaced by target imports")
                    changed = True
            if len(kept) != len(st.body):
                if not kept:
                    continue
                kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                st = st.with_changes(body=kept)
        body.append(st)
    if not changed:
        return block
    conv.reshaped = True
    conv.used.add("ms")
    return block.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])


# --------------------------------------------------------------------------------------------
# module-level imports, at the end of the walk
# --------------------------------------------------------------------------------------------
class ImportRewrite:
    """Replace a module's torch imports by the target's (one use: :meth:`run`).

    The target imports go where the first torch import was; comments on removed import lines
    move to the next statement that stays.
    """

    def __init__(self, conv):
        self.conv = conv
        self.out: list = []
        self.header_at: int | None = None  # where the target imports go
        self.pending: list[cst.EmptyLine] = []  # comments of removed lines, for the next kept one
        self.pending_for_header: list[cst.EmptyLine] = []
        self.first_torch: int | None = None
        self.have_math = False

    def run(self, body):
        """Return ``body`` with its torch imports replaced (``body`` itself if nothing changes)."""
        conv = self.conv
        for st in body:
            conv.line = conv.import_lines.get(id(st), conv.line)
            if isinstance(st, cst.SimpleStatementLine) \
                    and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in st.body):
                self._import_line(st)
            else:
                if self.pending:
                    st = st.with_changes(leading_lines=[*self.pending, *st.leading_lines])
                    self.pending = []
                self.out.append(st)
        if self.header_at is None:
            if not (conv.used or conv.init_names):
                return body
            if self.first_torch is not None:
                # every torch import stays (unconverted code uses them): the target's go below
                self.header_at = self.first_torch + 1
            else:
                # torch was imported inside functions only: after the module's leading imports
                self.header_at = _after_leading_imports(self.out)
        if self.have_math:
            conv.used.discard("math")
        return self._with_header(target_header(conv, self.out))

    def _import_line(self, st) -> None:
        """One line of import statements: strip its torch names, keep what remains."""
        kept, removed, header_line = [], False, False
        if self.first_torch is None and any(torch_bindings(small) for small in st.body):
            self.first_torch = len(self.out)
        for small in st.body:
            st = self._mark_star_import(st, small)
            if isinstance(small, cst.Import) and any(dotted(a.name) == "math" and a.asname is None
                                                     for a in small.names):
                self.have_math = True
            new_small, dropped = self._strip(small)
            removed = removed or dropped
            if new_small is not None:
                kept.append(new_small)
        if removed and self.header_at is None:
            self.header_at = len(self.out)
            self.pending_for_header, self.pending = [*self.pending, *st.leading_lines], []
            header_line = True
            if kept:
                st = st.with_changes(leading_lines=[])
        if kept:
            if kept != list(st.body):
                kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                st = st.with_changes(body=kept)
            if self.pending:
                st = st.with_changes(leading_lines=[*self.pending, *st.leading_lines])
                self.pending = []
            self.out.append(st)
        else:
            # (the header line's comments already go above the header; blank lines right
            # below it go with the line)
            if not header_line and (self.header_at != len(self.out) or self.pending
                                    or any(ln.comment is not None for ln in st.leading_lines)):
                self.pending.extend(st.leading_lines)
            comment = st.trailing_whitespace.comment
            if comment is not None:
                self.pending.append(cst.EmptyLine(comment=comment))

    def _mark_star_import(self, st, small):
        """``from torch.nn import *``: its names cannot be resolved; say so above the line."""
        if not (isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
                and torch_bindings(small)):
            return st
        text = (f"{MARKER_PREFIX}MS901 star import from {dotted(small.module)}: its names "
                "cannot be resolved; import them explicitly")
        if all(ln.comment is None or ln.comment.value != text for ln in st.leading_lines):
            st = st.with_changes(leading_lines=[*st.leading_lines, cst.EmptyLine(comment=cst.Comment(text))])
        self.conv.record(small, "", "MS901", "unsupported", "star import: names cannot be resolved")
        return st

    def _strip(self, small):
        """Return (the import without its unused torch names or None, whether any was removed)."""
        conv = self.conv
        pairs = torch_bindings(small)
        if not pairs or not conv.allows(TORCH_IMPORTS.id):
            return small, False
        still = {local for local, _ in pairs if conv.alias_uses.get(local)}
        if isinstance(small, cst.Import):
            keep = []
            for a in small.names:
                full = dotted(a.name)
                is_torch = full == "torch" or full.startswith("torch.")
                local = a.asname.name.value if a.asname is not None else "torch"
                if not is_torch or local in still:
                    keep.append(a)
        elif isinstance(small.names, cst.ImportStar):
            return small, False  # kept, and marked: its names cannot be resolved
        else:
            keep = [a for a in small.names
                    if (a.asname.name.value if a.asname is not None else a.name.value) in still]
        if still:
            conv.record(small, small, "MS900", "unsupported",
                        f"import kept: unconverted code still uses {', '.join(sorted(still))}")
        if len(keep) == len(small.names):
            return small, False
        conv.record(small, "", TORCH_IMPORTS.id, "exact", "torch import replaced by target imports")
        if not keep:
            return None, True
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return small.with_changes(names=keep), True

    def _with_header(self, header: list):
        """The statements with the target imports at ``header_at`` (comments kept)."""
        out, at = self.out, self.header_at
        if not header:
            lost = [*self.pending_for_header, *self.pending]
            if lost and at < len(out):
                out[at] = out[at].with_changes(leading_lines=[*lost, *out[at].leading_lines])
            return out
        if self.pending_for_header:
            header[0] = header[0].with_changes(leading_lines=self.pending_for_header)
        if self.pending:  # comments of removed imports at the very end: keep them below the header
            header[-1] = header[-1].with_changes(trailing_whitespace=header[-1].trailing_whitespace)
            header.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=self.pending))
        return out[:at] + header + out[at:]


def target_header(conv, body=()) -> list[cst.SimpleStatementLine]:
    """The target imports the converted code needs, minus the ones ``body`` already has."""
    have: set[tuple[str, str, str]] = set()  # (module, imported name, local name)
    for st in body:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if isinstance(small, cst.Import):
                    have.update((dotted(a.name), "", a.asname.name.value if a.asname else dotted(a.name))
                                for a in small.names)
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) \
                        and small.module is not None and not small.relative:
                    mod = dotted(small.module)
                    have.update((mod, a.name.value, a.asname.name.value if a.asname else a.name.value)
                                for a in small.names)
    lines = []
    if "math" in conv.used and ("math", "", "math") not in have:
        lines.append("import math")
    ms_local = conv.names["ms"]
    if (conv.pkg, "", ms_local) not in have:
        lines.append(f"import {conv.pkg} as {ms_local}")
    mods = [m for m in ("nn", "ops") if m in conv.used and (conv.pkg, m, conv.names[m]) not in have]
    if mods:
        parts = [m if conv.names[m] == m else f"{m} as {conv.names[m]}" for m in mods]
        lines.append(f"from {conv.pkg} import {', '.join(parts)}")
    init_mod = f"{conv.pkg}.common.initializer"
    names = sorted(n for n in conv.init_names if (init_mod, n, n) not in have)
    if names:
        lines.append(f"from {init_mod} import {', '.join(names)}")
    return [parse_statement(text) for text in lines]


def _after_leading_imports(body) -> int:
    """Index after the module docstring and the imports that open the module."""
    i = 0
    for i, st in enumerate(body):
        if not isinstance(st, cst.SimpleStatementLine):
            return i
        small = st.body[0]
        is_doc = i == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        if not (is_doc or isinstance(small, (cst.Import, cst.ImportFrom))):
            return i
    return len(body)
