"""Imports: resolving torch aliases, and replacing torch imports by the target's at the end.

Alias resolution is our own pass over the import statements (``import torch.nn as nn``,
``from torch import nn``...): libcst's QualifiedNameProvider costs ~7x a bare parse. The import
statements are rewritten once the walk is done, when it is known which torch names unconverted
code still uses (those imports stay, marked MS900) and which target modules the output needs.
"""
from __future__ import annotations

import ast
import re

import libcst as cst

from migrate.convert.changes import marker_line, marker_text
from migrate.convert.comments import lost_comment_lines, own_comments
from migrate.convert.cst import children, code_of, dotted, parse_statement, python_ast
from migrate.convert.guards import (
    catches_import_error, guard, is_guard, is_raise_guard, is_stub_class, marker_reasons, merge_guards, raise_guard,
)
from migrate.convert.registry import node_rule
from migrate.convert.star_imports import OWN_PACKAGES, REEXPORTED
from migrate.convert.torch_names import is_module, star_names
from migrate.convert.torch_signature import bindable_value, signatures

TRY_IMPORT = node_rule(
    "MS256", "torch_try_import",
    "Replace a torch import that stays, inside a try that catches ImportError (try: import torch.fx / "
    "except ImportError: has_fx = False), with if TYPE_CHECKING: <the import> else: raise ImportError(reason): "
    "converted code never imports torch, so the handler runs, as where torch is absent.", examples=[
    ("try:\n    import torch.fx\n    has_fx = True\nexcept ImportError:\n    has_fx = False\n"
     "if has_fx:\n    g = torch.fx.symbolic_trace(m)\n",
     "try:\n    if TYPE_CHECKING:\n        import torch.fx\n    else:\n"
     "        raise ImportError('torch: MS901 torch.fx.symbolic_trace has no mapping (converted code does not import "
     "torch)')\n    has_fx = True\nexcept ImportError:\n    has_fx = False\nif has_fx:\n"
     "    # migrate: MS901 torch.fx.symbolic_trace has no mapping\n    g = torch.fx.symbolic_trace(m)\n"),
])
TORCH_IMPORTS = node_rule(
    "MS100", "torch_imports",
    "Replace torch imports with the target's (import ms_core as ms, from ms_core import nn, ops, "
    "initializers) where the converted code needs them; keep the ones unconverted code still uses.", examples=[
    ("x = torch.zeros(2)\n",
     "x = ops.zeros((2,))\n"),
])

# Packages whose names are resolved. torchvision has no table entries: every use is marked
# (MS901), never left silently. einops is not torch's, but research model code uses it
# everywhere; its names become generated code (migrate/convert/einops_calls.py).
ROOTS = ("torch", "torchvision", "torchaudio", "torchtext", "einops")
_TORCH_IMPORT = re.compile(r"^\s*(import|from)\s+(torch|torchvision|torchaudio|torchtext|einops)\b", re.M)


def torch_root(root: str) -> bool:
    """Whether a top-level module name is torch's (or a package whose names are resolved), and
    not a package this run converts (star_imports.OWN_PACKAGES)."""
    return root in ROOTS and root not in OWN_PACKAGES.get()


def torch_bindings(stmt: cst.CSTNode) -> list[tuple[str, str]]:
    """Return (local name, qualified torch name) pairs bound by one import statement."""
    out = []
    if isinstance(stmt, cst.Import):
        for a in stmt.names:
            full = dotted(a.name)
            root = full.split(".")[0]
            if not torch_root(root):
                continue
            if a.asname is not None:
                out.append((a.asname.name.value, full))
            else:
                out.append((root, root))
    elif isinstance(stmt, cst.ImportFrom) and not stmt.relative:
        mod = dotted(stmt.module) if stmt.module is not None else ""
        if not torch_root(mod.split(".")[0]):
            return out
        if isinstance(stmt.names, cst.ImportStar):
            out.append(("*", mod))
            return out
        for a in stmt.names:
            local = a.asname.name.value if a.asname is not None else a.name.value
            out.append((local, f"{mod}.{a.name.value}"))
    return out


def imports_torch_somewhere(code: str) -> bool:
    """A torch import at any depth (inside a function, under ``if``...); not a line of a string
    that reads like one (a template of code holding ``import torch``)."""
    return _TORCH_IMPORT.search(code) is not None and _imports_at_all(code, ROOTS)


def _imports_at_all(code: str, roots) -> bool:
    """Whether an import statement of ``code`` names a module under ``roots`` (``code`` parses)."""
    try:
        tree = python_ast(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True  # not ours to judge here: the parse that follows says what is wrong
    def under(module: str) -> bool:
        return any(module == r or module.startswith(r + ".") for r in roots)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(under(a.name) for a in node.names) \
                or isinstance(node, ast.ImportFrom) and not node.level and under(node.module or ""):
            return True
    return False


_TORCH_NOT_EINOPS = re.compile(r"^\s*(import|from)\s+(torch|torchvision|torchaudio|torchtext|einops\.layers\.torch)\b",
                               re.M)
_TORCH_ROOTS = ("torch", "torchvision", "torchaudio", "torchtext", "einops.layers.torch")


def einops_without_torch(code: str, aliases: dict) -> bool:
    """The file imports einops and nothing of torch's (nor einops' torch layers), at any depth:
    its einops calls work on other arrays (NumPy), which generated MindSpore code would not take.

    Example:
        >>> einops_without_torch("import numpy as np\\nfrom einops import rearrange\\n",
        ...                      {"rearrange": "einops.rearrange"})
        True
    """
    # the aliases first: when torch's are among them (most files) no import scan is needed
    return all(q.split(".")[0] == "einops" and not q.startswith("einops.layers.torch") for q in aliases.values()) \
        and (_TORCH_NOT_EINOPS.search(code) is None or not _imports_at_all(code, _TORCH_ROOTS))


def scan_module_imports(body, aliases: dict[str, str], imported: set[str], stars: list | None = None) -> None:
    """Fill ``aliases`` (torch names), ``imported`` (every name a module-level import binds) and
    ``stars`` (the torch modules imported with ``*``, in order)."""
    for st in body:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                for local, qual in torch_bindings(small):
                    if local == "*" and stars is not None:
                        stars.append(qual)
                    aliases[local] = qual
                if isinstance(small, (cst.Import, cst.ImportFrom)) and \
                        not isinstance(small.names, cst.ImportStar):
                    for a in small.names:
                        name = a.asname.name if a.asname is not None else a.name
                        if isinstance(name, cst.Name):
                            imported.add(name.value)
                        elif isinstance(a.name, cst.Attribute):
                            imported.add(dotted(a.name).split(".")[0])
        elif isinstance(st, (cst.If, cst.Try, cst.TryStar, cst.Else, cst.ExceptHandler, cst.Finally)) \
                and isinstance(st.body, cst.IndentedBlock):
            # imports under `if`/`try` bind module names too (`try: from torch.hub import f`); a
            # try's body last: what it binds is what runs when nothing fails
            for part in (*getattr(st, "handlers", ()), getattr(st, "orelse", None), getattr(st, "finalbody", None)):
                if part is not None:
                    scan_module_imports([part], aliases, imported, stars)
            scan_module_imports(st.body.body, aliases, imported, stars)


# --------------------------------------------------------------------------------------------
# imports inside functions
# --------------------------------------------------------------------------------------------
def note_nested_import(converter, small):
    """A torch import inside a function or class: its names resolve from here on; whether it
    can go is decided when the function is done (:func:`drop_nested_imports`)."""
    pairs = torch_bindings(small)
    if not pairs:
        return small
    for local, qual in pairs:
        converter.walk_state.aliases[local] = qual
    converter.aliases_changed()
    uses = converter.output.alias_uses
    converter.walk_state.nested_imports[id(small)] = {local: uses.get(local, 0) for local, _ in pairs}
    return small


def drop_nested_imports(converter, block):
    """Remove the torch imports of ``block`` (a function body) whose names no unconverted code
    used since; guard the others (:mod:`migrate.convert.guards`)."""
    if not isinstance(block, cst.IndentedBlock) or not converter.walk_state.nested_imports:
        return block

    left = None
    shared = _declared_global(block.body)

    def uses_since(small, local):
        nonlocal left
        snap = converter.walk_state.nested_imports.get(id(small))
        if snap is None:
            return None
        if local.split(".")[0] in shared:
            # `global Pipe` then `from torch... import Pipe`: the module's name, read by code not
            # walked yet (fairseq's import_pipe): in use, so guarded, never removed
            return max(1, converter.output.alias_uses.get(local, 0) - snap.get(local, 0))
        if left is None:
            left = _names_left(block.body)
        if local.split(".")[0] not in left:
            # a use the walk counted that a later rewrite removed (`hasattr(torch, "npu") and
            # torch.npu.is_available()` settled to False), as forget_vanished_uses at module level
            return 0
        return converter.output.alias_uses.get(local, 0) - snap.get(local, 0)

    rewrite = BlockImports(converter, uses_since, block.body)
    body = rewrite.block(block.body, protected=False)
    if body is block.body:
        return block
    converter.output.reshaped = True
    return block.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])


def _declared_global(statements) -> set[str]:
    """The names a function body declares ``global`` (not inside its nested functions and classes)."""
    names: set[str] = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Global):
            names.update(n.name.value for n in node.names)
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.BaseExpression)):
            stack.extend(children(node))
    return names


class BlockImports:
    """Strip the torch imports of a block whose names nothing uses any more, and guard the ones
    still used, inside ``if``/``try``/``with``/``for``/``while`` too (not inside nested functions
    and classes: they are rewritten when their own walk ends).

    ``uses_left(small, local)`` is how many unconverted uses of ``local`` (bound by the import
    ``small``) remain, or None when the import is not one to rewrite here.
    """

    def __init__(self, converter, uses_left, statements):
        self.converter = converter
        self.uses_left = uses_left
        self.statements = statements  # where the markers that guards quote are
        self._reasons = None
        self.rebound: set[str] = set()  # names the ImportError handlers of the current try bind

    def reasons(self) -> dict:
        """Per alias and attribute, the reasons of the markers on the code that uses it."""
        if self._reasons is None:
            self._reasons = marker_reasons(self.statements, self.converter.walk_state.aliases)
        return self._reasons

    def block(self, stmts, protected: bool):
        """The statements rewritten (``stmts`` itself when nothing changes)."""
        out, changed, pending = [], False, []
        for st in stmts:
            new = self.statement(st, protected)
            if new is st:
                out.append(st if not pending else st.with_changes(leading_lines=[*pending, *st.leading_lines]))
                pending = []
                continue
            changed = True
            if not new:
                pending.extend(_comments_of(st))
                continue
            first = new[0]
            if out and not pending and not first.leading_lines and is_guard(first) and is_guard(out[-1]):
                out[-1] = merge_guards(out[-1], first)  # consecutive imports: one guard
            else:
                out.append(first.with_changes(leading_lines=[*pending, *first.leading_lines]))
            out.extend(new[1:])
            pending = []
        if not changed:
            return stmts
        if pending or not out:
            out.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=pending))
        return out

    def statement(self, st, protected: bool):
        """One statement: the same node, or the list of statements that replace it."""
        if is_import_line(st):
            parts = self.split_line(st, protected)
            if parts is None:
                return st
            kept = [p for p in parts if p is not None]
            if kept:
                kept[0] = kept[0].with_changes(leading_lines=[*st.leading_lines, *kept[0].leading_lines])
            return kept
        if is_guard(st) or is_raise_guard(st):
            # written by an earlier conversion: its imports are rewritten as if unguarded (a raise
            # guard's as the try around it protects them)
            out = []
            for line in st.body.body:
                parts = self.split_line(line, protected or is_raise_guard(st))
                for p in (parts or (line, None)):
                    if p is not None and out and is_guard(p) and is_guard(out[-1]):
                        out[-1] = merge_guards(out[-1], p)
                    elif p is not None:
                        out.append(p)
            if out:
                out[0] = out[0].with_changes(leading_lines=st.leading_lines)
            return out
        if isinstance(st, (cst.If, cst.Try, cst.TryStar, cst.With, cst.For, cst.While)):
            new = self.compound(st, protected)
            return new if new is st or isinstance(new, list) else [new]
        return st

    def split_line(self, st, protected: bool):
        """An import line as (the line without its torch imports that go or stay guarded, the
        guard of the ones that stay), either part None; None when the line stays as it is.
        Neither part carries the line's leading comments (the caller puts them above its own);
        the comments inside the line that no part keeps go above the first part."""
        converter = self.converter
        plain, guarded, stubs, changed, raised = [], [], [], False, []
        for small in st.body:
            pairs = torch_bindings(small)
            if pairs and pairs[0][0] == "*" and star_names(pairs[0][1]) is not None \
                    and converter.allows(TORCH_IMPORTS.id):
                # `from torch.nn import *`: its names were resolved; it stays for those still used
                used = converter.star_uses(pairs[0][1])
                changed = True
                if not used:
                    converter.record(small, "", TORCH_IMPORTS.id, "exact",
                                     "star import: every name it gave is converted")
                else:
                    (plain if protected else guarded).append(small)
                    stubs.extend(used.items())
                continue
            left = {local: self.uses_left(small, local) for local, _ in pairs}
            if not pairs or None in left.values() or not converter.allows(TORCH_IMPORTS.id):
                plain.append(small)
                continue
            # a name other modules import from this one stays bound (its uses there are converted),
            # unless the handler's fallback is bound to its converted value instead
            bound = self.fallback_bindings(pairs, left)
            kept = REEXPORTED.get() - {b.targets[0].target.value for b in bound}
            new = strip_import(converter, small, {local for local, n in left.items() if n or local in kept})
            changed = changed or new is not small
            plain.extend(bound)
            changed = changed or bool(bound)
            if new is None:
                continue
            other, new = _split_other_modules(new)
            if other is not None:
                plain.append(other)
            if protected and new is not None and not isinstance(new.names, cst.ImportStar) \
                    and converter.allows(TRY_IMPORT.id):
                raised.append(new)
                changed = True
                continue
            if new is None or protected or isinstance(new.names, cst.ImportStar):
                plain.extend([new] if new is not None else [])
                continue
            changed = True
            guarded.append(new)
            stubs.extend((local, qual) for local, qual in torch_bindings(new) if left.get(local) or local in kept)
        if not changed:
            return None
        line = None
        if plain:
            plain[-1] = plain[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            line = st.with_changes(body=plain, leading_lines=[])
        if raised:
            return _with_lost_comments(st, line, self.import_error(st, raised))
        if not guarded:
            return _with_lost_comments(st, line, None)
        guarded[-1] = guarded[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        inner = st.with_changes(body=guarded, leading_lines=[])
        if line is not None:
            inner = inner.with_changes(trailing_whitespace=cst.TrailingWhitespace())
        converter.output.guarded = True
        reasons = self.reasons()
        return _with_lost_comments(st, line, guard(
            [inner], [(local, qual, reasons.get(local, {})) for local, qual in stubs], stub_name(converter)))

    def import_error(self, st, imports) -> cst.If:
        """``if TYPE_CHECKING: <imports> else: raise ImportError(<what stays torch's and why>)`` for
        the torch imports of a ``try`` that catches ImportError: converted code never imports torch
        (where torch is installed, it would call torch with the target's tensors), so the handler
        runs; the imports stay for type checkers and the next conversion."""
        reasons = self.reasons()
        what = []
        for small in imports:
            for local, qual in torch_bindings(small):
                why = reasons.get(local, {}).get("") or next(iter(reasons.get(local, {}).values()), "")
                what.append(f"{qual}: {why}" if why else qual)
        message = "; ".join(what) + " (converted code does not import torch)"
        imports[-1] = imports[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        line = st.with_changes(body=imports, leading_lines=[])
        node = raise_guard([line], message, self.converter.builtin("ImportError"))
        self.converter.output.checking = True
        self.converter.record(imports[0], node, TRY_IMPORT.id, "transformed",
                              "a torch import in a try that catches ImportError raises it: the handler runs, "
                              "as where torch is absent")
        return node

    def fallback_bindings(self, pairs, left) -> list:
        """``name = <its converted value>`` for the torch names of an import that goes while the
        ImportError handler of its ``try`` binds them too (``try: from torch import _assert /
        except ImportError: def _assert...``): other modules import the name from this one, and
        without torch the handler would never run."""
        out = []
        for local, qual in pairs:
            if local in self.rebound and not left.get(local):
                value = bindable_value(self.converter, qual)
                if value is not None:
                    out.append(cst.Assign([cst.AssignTarget(cst.Name(local))], value))
        return out

    def compound(self, st, protected: bool):
        """``if``/``try``/``with``/``for``/``while``: their blocks rewritten; a statement left
        with nothing but ``pass`` in every block (and no test that could act) goes."""
        import_error = isinstance(st, (cst.Try, cst.TryStar)) and catches_import_error(st)
        inner = protected or import_error
        changes = {}
        if isinstance(st.body, cst.IndentedBlock):
            outer, self.rebound = self.rebound, bound_names(st.handlers) if import_error else set()
            body = self.block(st.body.body, inner)
            self.rebound = outer
            if body is not st.body.body:
                changes["body"] = st.body.with_changes(body=body)
        handlers = []
        for h in getattr(st, "handlers", ()):
            body = self.block(h.body.body, protected) if isinstance(h.body, cst.IndentedBlock) else h.body.body
            handlers.append(h if body is h.body.body else h.with_changes(body=h.body.with_changes(body=body)))
        if any(a is not b for a, b in zip(handlers, getattr(st, "handlers", ()))):
            changes["handlers"] = handlers
        for name in ("orelse", "finalbody"):
            part = getattr(st, name, None)
            if isinstance(part, cst.If):
                new = self.compound(part, protected)
                if new is not part:
                    changes[name] = new if not isinstance(new, list) else None
            elif part is not None and isinstance(part.body, cst.IndentedBlock):
                body = self.block(part.body.body, protected)
                if body is not part.body.body:
                    changes[name] = part.with_changes(body=part.body.with_changes(body=body))
        if not changes:
            return st
        new = st.with_changes(**changes)
        if _only_pass(new) or import_error and "body" in changes and _cannot_raise(new):
            return []
        if "body" in changes and _type_checking_only(new):
            # `if TYPE_CHECKING: pass else: _params_t = Any`: what runs is the else block
            rest = list(new.orelse.body.body)
            return [rest[0].with_changes(leading_lines=[*st.leading_lines, *rest[0].leading_lines]), *rest[1:]]
        return new


def bound_names(blocks) -> set[str]:
    """The names the statements of ``blocks`` (handlers, blocks) bind at their own level: defs,
    classes, assignments to names, imports."""
    out = set()
    for block in blocks:
        for st in getattr(block.body, "body", ()):
            if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
                out.add(st.name.value)
            elif isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                        [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                    out.update(t.value for t in targets if isinstance(t, cst.Name))
                    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                        out.update((a.asname.name if a.asname else a.name).value for a in small.names
                                   if isinstance(a.asname.name if a.asname else a.name, cst.Name))
    return out


def _split_other_modules(small):
    """``import os, torch``: (``import os``, ``import torch``); either None when empty."""
    if not isinstance(small, cst.Import):
        return None, small
    ours = [a for a in small.names if torch_root((dotted(a.name) or "").split(".")[0])]
    other = [a for a in small.names if a not in ours]
    if not other:
        return None, small
    if not ours:
        return small, None
    other[-1] = other[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    ours[-1] = ours[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return small.with_changes(names=other), small.with_changes(names=ours)


def is_import_line(st) -> bool:
    """A simple statement line that holds an import."""
    return isinstance(st, cst.SimpleStatementLine) and \
        any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in st.body)


def _comments_of(st) -> list:
    """The comment lines of a statement that goes: above it, inside it and at the end of its line."""
    return [*st.leading_lines, *lost_comment_lines(st.with_changes(leading_lines=[]), [])]


def _with_lost_comments(st, line, guarded):
    """``(line, guarded)``, the parts of import line ``st``, with the comments inside ``st`` that
    neither keeps (``from torch import (nn,  # layers``) above the first part."""
    lost = lost_comment_lines(st.with_changes(leading_lines=[]), [line, guarded], nested=True)
    if not lost or (line is None and guarded is None):
        return line, guarded
    if line is not None:
        return line.with_changes(leading_lines=[*lost, *line.leading_lines]), guarded
    return None, guarded.with_changes(leading_lines=[*lost, *guarded.leading_lines])


def _type_checking_only(st) -> bool:
    """``if TYPE_CHECKING: pass else: <block>`` (``typing.TYPE_CHECKING`` too): the imports for
    type checkers went, and at run time the test is False."""
    return isinstance(st, cst.If) and dotted(st.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING") \
        and isinstance(st.orelse, cst.Else) and isinstance(st.orelse.body, cst.IndentedBlock) \
        and _only_pass(st.with_changes(orelse=None)) and not own_comments(st.body, nested=True)


def _only_pass(st) -> bool:
    """A ``try``/``if`` whose every block holds nothing but ``pass`` (and comments: kept above
    the next statement), and whose ``if`` tests call nothing: removing it changes nothing."""
    if isinstance(st, cst.If):
        if _calls_something(st.test):
            return False
        parts = [st.body, st.orelse]
    elif isinstance(st, cst.Try):
        parts = [st.body, *st.handlers, st.orelse, st.finalbody]
    else:
        return False
    for part in parts:
        if part is None:
            continue
        if isinstance(part, cst.If):
            if not _only_pass(part):
                return False
            continue
        block = part if isinstance(part, cst.IndentedBlock) else part.body
        if not isinstance(block, cst.IndentedBlock):
            return False
        for s in block.body:
            if not (isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)
                    and not s.leading_lines and s.trailing_whitespace.comment is None):
                return False
    return True


def _cannot_raise(st: cst.Try) -> bool:
    """A ``try`` whose body the rewrite left as ``pass`` (its imports converted), with no
    ``else``/``finally`` and no marker or comment in its handlers: they never run, it goes."""
    if st.orelse is not None or st.finalbody is not None or not isinstance(st.body, cst.IndentedBlock):
        return False
    if not all(isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)
               and not s.leading_lines and s.trailing_whitespace.comment is None for s in st.body.body):
        return False
    return not any(own_comments(h, nested=True) for h in st.handlers)


def _calls_something(expr) -> bool:
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Call, cst.NamedExpr, cst.Await, cst.Yield)):
            return True
        stack.extend(n.children)
    return False


def strip_import(converter, small, still: set[str]):
    """The torch import ``small`` without its names not in ``still`` (None when none is left);
    the change is recorded."""
    if isinstance(small.names, cst.ImportStar):
        return small  # kept, and marked: its names cannot be resolved
    if isinstance(small, cst.Import):
        keep = []
        for a in small.names:
            root = (dotted(a.name) or "").split(".")[0]
            local = a.asname.name.value if a.asname is not None else root
            if not torch_root(root) or local in still:
                keep.append(a)
    else:
        keep = [a for a in small.names
                if (a.asname.name.value if a.asname is not None else a.name.value) in still]
    if still:
        converter.record(small, small, "MS900", "unsupported",
                    f"import kept: unconverted code still uses {', '.join(sorted(still))}")
    if len(keep) == len(small.names):
        return small
    converter.record(small, "", TORCH_IMPORTS.id, "exact", "torch import replaced by target imports")
    if not keep:
        return None
    keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return small.with_changes(names=keep)


# --------------------------------------------------------------------------------------------
# module-level imports, at the end of the walk
# --------------------------------------------------------------------------------------------
class ImportRewrite:
    """Replace a module's torch imports by the target's (one use: :meth:`run`).

    The target imports go where the first torch import was; comments on removed import lines
    move to the next statement that stays. Torch imports that unconverted code still needs are
    guarded (:mod:`migrate.convert.guards`), also under ``if``/``try``; the stand-in class the
    guards use goes above the first of them.
    """

    def __init__(self, converter):
        self.converter = converter
        self.blocks = None
        self.out: list = []
        self.header_at: int | None = None  # where the target imports go
        self.pending: list[cst.EmptyLine] = []  # comments of removed lines, for the next kept one
        self.pending_for_header: list[cst.EmptyLine] = []
        self.first_torch: int | None = None
        self.have_math = False
        self.star_marked = False

    def run(self, body, module_header=()):
        """Return ``body`` with its torch imports replaced (``body`` itself if nothing changes);
        ``module_header``: the comment lines above the first statement."""
        self.module_header = module_header
        uses = self.converter.output.alias_uses
        self.blocks = BlockImports(self.converter, lambda small, local: uses.get(local, 0), body)
        converter = self.converter
        for st in body:
            converter.walk_state.line = converter.walk_state.import_lines.get(id(st), converter.walk_state.line)
            if is_stub_class(st):  # an earlier version's stand-in class: the runtime's replaces it
                self.pending.extend(ln for ln in st.leading_lines if ln.comment is not None)
                continue
            if is_import_line(st):
                self._import_line(st)
            elif is_guard(st) or isinstance(st, (cst.If, cst.Try, cst.TryStar, cst.With, cst.For, cst.While)):
                self._compound(st)
            else:
                self._keep(st)
        if self.header_at is None:
            if not (converter.output.used or converter.output.init_names or converter.output.guarded
                    or converter.output.checking):
                return self.out if self.star_marked else body
            if self.first_torch is not None:
                # every torch import stays (unconverted code uses them): the target's go below
                self.header_at = self.first_torch + 1
            else:
                # torch was imported inside functions only: after the module's leading imports
                self.header_at = _after_leading_imports(self.out)
        if converter.facts.inherited:
            # after `from .sibling import *`: the target's names must not be rebound by it
            self.header_at = max(self.header_at, _after_sibling_star_imports(self.out))
        if self.have_math and converter.facts.names["math"] == "math":
            converter.output.used.discard("math")
        inherited = inherited_guard(converter)  # (before the header: its guard needs TYPE_CHECKING)
        return self._with_header(target_header(converter, self.out), inherited)

    def _keep(self, st) -> None:
        if self.pending:
            st = st.with_changes(leading_lines=[*self.pending, *st.leading_lines])
            self.pending = []
        self.out.append(st)

    def _compound(self, st) -> None:
        """A guard of an earlier conversion, or an ``if``/``try``/... holding imports."""
        torch_inside = self.first_torch is None and _holds_torch_import(st)
        if torch_inside:
            self.first_torch = len(self.out)
        new = self.blocks.statement(st, protected=False)
        if new is st:
            self._keep(st)
            return
        took_header = self.header_at is None and (torch_inside or is_guard(st))
        if took_header:
            self.header_at = len(self.out)
            if is_guard(st):  # an earlier conversion's guard keeps the comments it was given
                self.pending_for_header, self.pending = [*self.pending], []
            else:
                self.pending_for_header, self.pending = [*self.pending, *st.leading_lines], []
                new = [n.with_changes(leading_lines=[]) if i == 0 else n for i, n in enumerate(new)]
        if not new:
            # a statement that goes (a try of torch imports only) keeps its comments: above the
            # next statement (the ones above it went with the header if it took the header's place)
            if self.header_at != len(self.out):
                self.pending.extend(_comments_of(st))
            elif not is_guard(st):  # right below the header: its comments, not its blank lines
                lines = _comments_of(st.with_changes(leading_lines=[]) if took_header else st)
                self.pending.extend(ln for ln in lines if ln.comment is not None)
            return
        for n in new:
            self._keep(n)

    def _import_line(self, st) -> None:
        """One line of import statements: strip its torch names, guard the ones still used."""
        if self.first_torch is None and any(torch_bindings(small) for small in st.body):
            self.first_torch = len(self.out)
        for small in st.body:
            st = self._mark_star_import(st, small)
            if isinstance(small, cst.Import) and any(dotted(a.name) == "math" and a.asname is None
                                                     for a in small.names):
                self.have_math = True
        parts = self.blocks.split_line(st, protected=False)
        if parts is None:
            self._keep(st)
            return
        line, guarded = parts
        leading = st.leading_lines
        if self.header_at is None:
            self.header_at = len(self.out)
            self.pending_for_header, self.pending, leading = [*self.pending, *leading], [], []
        if line is None and guarded is None:
            self.pending.extend([*leading, *_comments_of(st.with_changes(leading_lines=[]))])
            return
        if line is None and not leading and not self.pending and not guarded.leading_lines \
                and self.out and is_guard(self.out[-1]):
            self.out[-1] = merge_guards(self.out[-1], guarded)  # consecutive imports: one guard
            return
        first = line if line is not None else guarded
        self._keep(first.with_changes(leading_lines=[*leading, *first.leading_lines]))
        if guarded is not None:
            if line is not None:
                self.out.append(guarded)

    def _mark_star_import(self, st, small):
        """``from torch.xyz import *`` of a module whose names are not known: its names cannot be
        resolved; say so above the line."""
        if not (isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
                and torch_bindings(small)) or star_names(torch_bindings(small)[0][1]) is not None:
            return st
        reason = f"star import from {dotted(small.module)}: its names cannot be resolved; import them explicitly"
        text = marker_text("MS901", reason)
        have = {ln.comment.value for ln in (*st.leading_lines, *(self.module_header if not self.out else ()))
                if ln.comment is not None}
        if text not in have:
            st = st.with_changes(leading_lines=[*st.leading_lines, marker_line("MS901", reason)])
            self.star_marked = True
        self.converter.record(small, "", "MS901", "unsupported", "star import: names cannot be resolved")
        return st

    def _with_header(self, header: list, inherited):
        """The statements with the target imports at ``header_at`` (comments kept) and the guard of
        the names a sibling's star import no longer gives (``inherited``); the runtime's import,
        with the guards' stand-in, goes above the first guard (:meth:`TorchSignatures.emit`)."""
        if inherited is not None:
            header.append(inherited)
        out, at = self.out, self.header_at
        if not header:
            lost = [*self.pending_for_header, *self.pending]
            if lost and at < len(out):
                out[at] = out[at].with_changes(leading_lines=[*lost, *out[at].leading_lines])
            elif lost:
                out.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=lost))
            return out
        if self.pending_for_header:
            header[0] = header[0].with_changes(leading_lines=self.pending_for_header)
        if self.pending:  # comments of removed imports at the very end: keep them below the header
            header.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=self.pending))
        out, at = _checking_before_use(out, at, header)
        return out[:at] + header + out[at:]


def stub_name(converter) -> str:
    """The local name of the runtime's ``TorchMissing``, which a guard binds to the torch names
    that stay (:mod:`migrate.convert.guards`)."""
    return signatures(converter).helper("TorchMissing")


def inherited_guard(converter):
    """A guard importing the torch names that the file got from a sibling by ``import *`` and that
    unconverted code still uses (the sibling's conversion no longer gives them), or None."""
    # a name imported by name from the package module that re-exports it is bound there (that
    # module's conversion guards it if it stays torch's): no guard of its own here
    used = {local: qual for local, qual in converter.facts.inherited.items()
            if converter.output.alias_uses.get(local) and local not in converter.facts.inherited_by_name}
    if not used or not converter.allows(TORCH_IMPORTS.id):
        return None
    lines = []
    for local, qual in sorted(used.items()):
        if qual == local:
            lines.append(f"import {qual}")
        elif is_module(qual):
            lines.append(f"import {qual} as {local}")
        else:
            mod, _, name = qual.rpartition(".")
            lines.append(f"from {mod} import {name}" + (f" as {local}" if name != local else ""))
    converter.output.guarded = True
    reasons = marker_reasons(converter.output.walked_body, converter.walk_state.aliases)
    return guard([parse_statement(text) for text in lines],
                 [(local, qual, reasons.get(local, {})) for local, qual in sorted(used.items())],
                 stub_name(converter))


def _checking_before_use(out: list, at: int, header: list) -> tuple[list, int]:
    """``out`` (and the header's place in it) with the header's ``from typing import TYPE_CHECKING``
    moved (out of ``header``) above the first statement before ``at`` that reads it: a guard left
    where its torch import was, above a header that goes below a sibling's ``import *`` (see
    :func:`_after_sibling_star_imports`)."""
    line = next((st for st in header if _is_checking_import(st)), None)
    first = next((i for i, st in enumerate(out[:at]) if _CHECKING_NAME.search(code_of(st))), None)
    if line is None or first is None:
        return out, at
    header.remove(line)
    moved = line.with_changes(leading_lines=out[first].leading_lines)
    return [*out[:first], moved, out[first].with_changes(leading_lines=[]), *out[first + 1:]], at + 1


_CHECKING_NAME = re.compile(r"\bTYPE_CHECKING\b")


def _is_checking_import(st) -> bool:
    return isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 \
        and isinstance(st.body[0], cst.ImportFrom) and st.body[0].module is not None \
        and dotted(st.body[0].module) == "typing" and not isinstance(st.body[0].names, cst.ImportStar) \
        and [a.name.value for a in st.body[0].names] == ["TYPE_CHECKING"]


def _after_sibling_star_imports(body) -> int:
    """Index after the last top-level ``from <not torch> import *``."""
    at = 0
    for i, st in enumerate(body):
        if is_import_line(st) and any(isinstance(s, cst.ImportFrom) and isinstance(s.names, cst.ImportStar)
                                      and not torch_bindings(s) for s in st.body):
            at = i + 1
    return at


def _holds_torch_import(st) -> bool:
    """A compound statement with a torch import in one of its blocks (not in nested defs)."""
    stack = [st]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Import, cst.ImportFrom)):
            if torch_bindings(n):
                return True
            continue
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
            continue
        stack.extend(n.children)
    return False


def target_header(converter, body=()) -> list[cst.SimpleStatementLine]:
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
    math_local = converter.facts.names["math"]
    if "math" in converter.output.used and ("math", "", math_local) not in have:
        lines.append("import math" if math_local == "math" else f"import math as {math_local}")
    builtins_local = converter.facts.names["builtins"]
    if "builtins" in converter.output.used and ("builtins", "", builtins_local) not in have:
        lines.append(f"import builtins as {builtins_local}")
    np_local = converter.facts.names["np"]
    if "np" in converter.output.used and ("numpy", "", np_local) not in have:
        lines.append(f"import numpy as {np_local}")
    ms_local = converter.facts.names["ms"]
    if (converter.facts.pkg, "", ms_local) not in have:
        pkg = converter.facts.pkg
        lines.append(f"import {pkg}" if ms_local == pkg else f"import {pkg} as {ms_local}")
    names = converter.facts.names
    mods = [m for m in ("nn", "ops") if m in converter.output.used and (converter.facts.pkg, m, names[m]) not in have]
    if mods:
        parts = [m if converter.facts.names[m] == m else f"{m} as {converter.facts.names[m]}" for m in mods]
        lines.append(f"from {converter.facts.pkg} import {', '.join(parts)}")
    if (converter.output.guarded or converter.output.checking) \
            and ("typing", "TYPE_CHECKING", "TYPE_CHECKING") not in have:
        lines.append("from typing import TYPE_CHECKING")   # the guards' imports are for type checkers only
    init_local = converter.facts.names["init"]
    if "init" in converter.output.used and (f"{converter.facts.pkg}.common", "initializer", init_local) not in have:
        lines.append(f"from {converter.facts.pkg}.common import initializer as {init_local}")
    init_mod = f"{converter.facts.pkg}.common.initializer"
    names = sorted(n for n in converter.output.init_names if (init_mod, n, n) not in have)
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
        is_doc = i == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString,
                                                                                     cst.ConcatenatedString))
        if not (is_doc or isinstance(small, (cst.Import, cst.ImportFrom))):
            return i
    return len(body)


def _names_left(body) -> set[str]:
    """Every name the converted body still mentions, imports and earlier guards aside.

    A walk over the code fields (:func:`~migrate.convert.cst.children`): a libcst visitor over the
    whole module dispatched two calls per node and was a tenth of a conversion.
    """
    names: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        t = type(node)
        if t is cst.Name:
            names.add(node.value)
            continue
        if t is cst.Import or t is cst.ImportFrom or t is cst.Try and is_guard(node) \
                or t is cst.If and (is_guard(node) or is_raise_guard(node)):
            continue
        stack.extend(children(node))
    return names


def forget_vanished_uses(converter, body) -> None:
    """Set the use count of torch aliases that no longer appear in ``body`` to zero.

    A rule may drop an argument after the walk counted (and marked) a torch name inside it
    (``x.to(dtype=d, memory_format=torch.channels_last)`` -> ``x.astype(d)``): the import is not
    needed for it, and guarding it anyway would make the next conversion remove the guard.

    Args:
        converter: the converter, after its walk.
        body: the walked module body.
    """
    counted = [a for a, n in converter.output.alias_uses.items() if n]
    if not counted:
        return
    seen = _names_left(body)
    for alias in counted:
        if alias.split(".")[0] not in seen:
            converter.output.alias_uses[alias] = 0
