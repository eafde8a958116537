"""The converter: one cheap walk over a libcst tree, driven by the mapping tables.

libcst's visitor rebuilds every node it passes; this walker only rebuilds the nodes on the path to
a change, which keeps the whole conversion close to the cost of a bare parse. Alias resolution is
our own pass over the import statements (``import torch.nn as nn``, ``from torch import nn``...),
so a call that is not torch's is never touched.
"""
from __future__ import annotations

import ast
import dataclasses
import re
from functools import lru_cache

import libcst as cst

from mappings import Entry, load_tables
from migrate.changes import MARKER_PREFIX, Change, ConvertResult

TARGETS = {"ms_core": "ms_core", "mindspore": "mindspore"}
# Fields that never hold code we rewrite: skipping them is most of the walker's speed.
_SKIP_FIELDS = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
    "footer", "trailing_whitespace", "equal", "colon", "lbrace", "rbrace", "lbracket", "rbracket",
    "dot", "star", "operator", "asynchronous", "whitespace_after_func", "whitespace_before_args",
    "whitespace_after_star", "whitespace_after_arg", "encoding", "default_indent",
    "default_newline", "has_trailing_newline", "keyword", "name", "relative", "whitespace",
    "first_line", "leading_whitespace", "indent", "posonly_ind",
})
_FIELDS: dict[type, tuple[str, ...]] = {}
_EMPTY = cst.Module(body=[])
_NO_GRAD = {"torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled",
            "torch.autograd.no_grad"}


def _fields(t: type) -> tuple[str, ...]:
    names = _FIELDS.get(t)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(t)
            if f.name not in _SKIP_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS[t] = names
    return names


_ALL_FIELDS: dict[type, tuple[str, ...]] = {}
_setattr = object.__setattr__


def _replace(node, changes: dict):
    """``node.with_changes(**changes)`` without re-validating the node: the walker only puts
    rewritten children where children of that kind were (with_changes costs ~3x more)."""
    t = type(node)
    names = _ALL_FIELDS.get(t)
    if names is None:
        names = _ALL_FIELDS[t] = tuple(f.name for f in dataclasses.fields(t))
    new = object.__new__(t)
    for k in names:
        _setattr(new, k, changes[k] if k in changes else getattr(node, k))
    return new


_NODE_TYPES: dict[type, bool] = {}


def _is_node_type(t: type) -> bool:
    """isinstance(x, CSTNode) for x of type t, cached (CSTNode is an ABC: isinstance is slow)."""
    r = _NODE_TYPES.get(t)
    if r is None:
        r = _NODE_TYPES[t] = issubclass(t, cst.CSTNode)
    return r


def code_of(node: cst.CSTNode) -> str:
    """Return the source text of one node."""
    if type(node) in _LEAVES and not node.lpar:
        return node.value
    return _EMPTY.code_for_node(node)


_LEAVES = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)


@lru_cache(maxsize=4096)
def parse_expr(text: str) -> cst.BaseExpression:
    """Parse an expression once; nodes are immutable, so sharing them is safe."""
    return cst.parse_expression(text)


def dotted(node: cst.CSTNode) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else None."""
    # exact type checks: CSTNode classes are ABCs, and isinstance on them is slow on a hot path
    t = type(node)
    if t is _Name:
        return node.value
    parts = []
    while t is _Attribute:
        parts.append(node.attr.value)
        node = node.value
        t = type(node)
    if t is not _Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


_Name, _Attribute = cst.Name, cst.Attribute


def _import_module_name(node: cst.BaseExpression | None) -> str:
    return dotted(node) if node is not None else ""


# Packages whose names are resolved. torchvision has no table entries: every use is marked
# (MS901), never left silently.
_ROOTS = ("torch", "torchvision")


def torch_bindings(stmt: cst.CSTNode) -> list[tuple[str, str]]:
    """Return (local name, qualified torch name) pairs bound by one import statement."""
    out = []
    if isinstance(stmt, cst.Import):
        for a in stmt.names:
            full = dotted(a.name)
            root = full.split(".")[0]
            if root not in _ROOTS:
                continue
            if a.asname is not None:
                out.append((a.asname.name.value, full))
            else:
                out.append((root, root))
    elif isinstance(stmt, cst.ImportFrom) and not stmt.relative:
        mod = _import_module_name(stmt.module)
        if mod.split(".")[0] not in _ROOTS:
            return out
        if isinstance(stmt.names, cst.ImportStar):
            out.append(("*", mod))
            return out
        for a in stmt.names:
            local = a.asname.name.value if a.asname is not None else a.name.value
            out.append((local, f"{mod}.{a.name.value}"))
    return out


def _statement_spans(code: str) -> tuple[list[int], list[int]]:
    """First and last line of every statement, in the order the walker meets them."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return [], []
    starts: list[int] = []
    ends: list[int] = []

    def visit(body):
        for st in body:
            starts.append(st.lineno)
            ends.append(st.end_lineno or st.lineno)
            for name in st._fields:
                value = getattr(st, name)
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    visit(value)
                elif isinstance(value, list) and value and isinstance(
                        value[0], (ast.excepthandler, ast.match_case)):
                    for h in value:
                        visit(h.body)

    visit(tree.body)
    return starts, ends


def _statement_lines(code: str) -> list[int]:
    """Start line of every statement in the order the walker meets them."""
    return _statement_spans(code)[0]


# Words that can make a simple statement need the walker besides the file's torch aliases: every
# method name of the tables, and the attributes and names the rules look at.
_RULE_WORDS = ("forward", "apply", "weight", "bias", "running_mean", "running_var", "data", "super",
               "torch", "torchvision", "add_module", "device")


@lru_cache(maxsize=256)
def _interesting(aliases: tuple[str, ...]) -> "re.Pattern":
    """A regex that finds, in a statement's text, anything a rule could act on."""
    methods = {k.split(".", 1)[1] for k in load_tables() if k.startswith(("Tensor.", "Module."))}
    words = sorted(set(aliases) | methods | set(_RULE_WORDS))
    # `name_(`: in-place tensor methods are marked
    return re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b|[A-Za-z0-9]_\s*\(")


class Converter:
    """Convert one source text; create one per file (it holds per-file state).

    Args:
        target: ``"ms_core"`` or ``"mindspore"``: the package the output imports.
        validate: parse the output once more, when statements were moved, removed or added
            (expression rewrites keep the replaced node's parentheses and cannot break the
            layout), and return the input unchanged (with ``error``) if it is not valid Python.
        names: local names for the target modules (default ``ms``, ``nn``, ``ops``); chosen
            automatically when a torch import that must stay already uses one of them.
    """

    def __init__(self, target: str = "ms_core", validate: bool = True, names: dict | None = None):
        if target not in TARGETS:
            raise ValueError(f"target must be one of {sorted(TARGETS)}, got {target!r}")
        self.pkg = TARGETS[target]
        self.target_name = target
        self.validate = validate
        self.reshaped = False  # statements moved/removed/added: the output is parsed once more
        self.training = None   # set by the training pass when it rewrote something
        self.names = {"ms": "ms", "nn": "nn", "ops": "ops", **(names or {})}
        self.tables = load_tables()
        self.aliases: dict[str, str] = {}
        self.alias_uses: dict[str, int] = {}
        self.changes: list[Change] = []
        self.used: set[str] = set()          # target prefixes used: ms, nn, ops, math
        self.init_names: set[str] = set()    # names imported from <pkg>.common.initializer
        self.cell_classes: set[str] = set()  # classes in this file that derive from nn.Module
        self.sequential_classes: set[str] = set()  # classes here that derive from nn.Sequential
        self.function_classes: set[str] = set()  # autograd.Function subclasses turned into Cells
        self.class_attrs: dict[str, dict[str, str]] = {}  # class -> self.<attr> -> layer class
        self.module_names: set[str] = set()  # module-level names bound to modules
        self.class_stack: list[dict] = []
        self.func_stack: list[dict] = []
        self.markers: list[list[tuple[str, str]]] = []
        self.stmt_lines: list[int] = []
        self.stmt_index = -1
        self.line = 0
        self.in_isinstance = False
        self.import_lines: dict[int, int] = {}
        self.imported: set[str] = set()  # every name bound by a module-level import
        self.after: list[list[str]] = []  # per simple statement: statements to add after it
        self.nested_imports: dict[int, dict[str, int]] = {}  # id(import) -> alias uses when seen
        self.stmt_ends: list[int] = []
        self.src_lines: list[str] = []
        self.pattern = None  # set when uninteresting simple statements may be skipped
        self.freeze_line = False  # inside code rewritten before its walk: report one line

    # ---- entry point -------------------------------------------------------------------
    def convert(self, code: str) -> ConvertResult:
        """Convert ``code``; on a parse error return it unchanged with ``error`` set."""
        if "torch" not in code:
            # nothing of torch's can be here: validate with the (much faster) builtin parser only
            try:
                ast.parse(code)
            except SyntaxError as err:
                return ConvertResult(code, error=f"syntax error at line {err.lineno}: {err.msg}")
            except ValueError as err:  # null bytes
                return ConvertResult(code, error=f"cannot parse: {err}")
            return ConvertResult(code)
        try:
            module = cst.parse_module(code)
        except cst.ParserSyntaxError as exc:
            return ConvertResult(code, error=_syntax_error(code, exc))
        self._scan_imports(module.body)
        if not self.aliases and not _imports_torch_somewhere(code):
            return ConvertResult(code)  # no torch import: nothing of torch's to convert
        self.stmt_lines, self.stmt_ends = _statement_spans(code)
        for run_pass in _passes():
            module = run_pass(self, module, code)
        if self.training is None and self.stmt_lines:
            # simple statements whose text holds nothing a rule acts on are only tracked, not
            # walked (the statement spans still match the tree: no pass rewrote it)
            self.src_lines = code.splitlines()
            self.pattern = _interesting(tuple(sorted(self.aliases)))
        # module-level code is a scope too: tensors and modules bound there are tracked
        self.func_stack.append({"tensors": set(), "modules": set(), "narrow": {}})
        body = self._walk_body(module.body)
        self.func_stack.pop()
        clash = {a for a, n in self.alias_uses.items() if n and a in self.used
                 and self.names.get(a) == a}
        if clash:
            # a torch import that must stay binds a name the converted code needs (`nn` for both
            # torch.nn and the target's nn): convert again with other local names for ours
            names = dict(self.names)
            names.update({a: f"ms_{a}" if a != "ms" else "ms_core_" for a in clash})
            if names["ms"] == "ms_core_" and self.pkg == "mindspore":
                names["ms"] = "mindspore_"
            return Converter(self.target_name, self.validate, names).convert(code)
        body = self._rewrite_imports(body)
        new = module.with_changes(body=body) if body is not module.body else module
        self.changes.sort(key=lambda c: c.line)
        out = new.code
        if self.validate and (self.reshaped or self.training is not None):
            # the promise is valid Python whatever happens: a converter bug returns the input
            try:
                ast.parse(out)
            except SyntaxError as err:
                return ConvertResult(code, error=f"internal error: the conversion was not valid Python "
                                                 f"(line {err.lineno}: {err.msg}); file left unchanged")
        # every change is one torch site: rewritten (any label) or left with a marker
        return ConvertResult(out, self.changes, len(self.changes))

    # ---- bookkeeping -------------------------------------------------------------------
    def _scan_imports(self, body) -> None:
        for st in body:
            if isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    for local, qual in torch_bindings(small):
                        self.aliases[local] = qual
                    if isinstance(small, (cst.Import, cst.ImportFrom)) and \
                            not isinstance(small.names, cst.ImportStar):
                        for a in small.names:
                            name = a.asname.name if a.asname is not None else a.name
                            if isinstance(name, cst.Name):
                                self.imported.add(name.value)
                            elif isinstance(a.name, cst.Attribute):
                                self.imported.add(dotted(a.name).split(".")[0])
            elif isinstance(st, (cst.If, cst.Try)):
                self._scan_imports(st.body.body)

    def record(self, node_before, after, rule: str, label: str, note: str = "") -> None:
        """Record one change at the current line."""
        self.changes.append(Change(self.line, rule, label, node_before, after, note))

    def mark(self, node, rule: str, reason: str) -> None:
        """Leave ``node`` as it is and put a marker comment above its statement."""
        self.changes.append(Change(self.line, rule, "unsupported", node, "", reason))
        if self.markers:
            self.markers[-1].append((rule, reason))

    def target(self, name: str) -> cst.BaseExpression:
        """Return the expression for a table target such as ``nn.Dense`` and note its import."""
        return parse_expr(self.tname(name))

    def tname(self, name: str) -> str:
        """Source text for a target name (``ms.float32``, ``ops.relu``, ``init.Normal``), with
        the local names this file uses for the target modules; notes the import it needs."""
        head, _, rest = name.partition(".")
        if head == "init":
            self.init_names.add(rest.split(".")[0])
            return rest
        self.used.add(head)
        local = self.names.get(head, head)
        return f"{local}.{rest}" if rest else local

    def uses_alias(self, node) -> None:
        """Count a torch alias that stays in the output (its import must stay too)."""
        d = dotted(node)
        if d:
            head = d.split(".")[0]
            self.alias_uses[head] = self.alias_uses.get(head, 0) + 1

    def qual(self, node) -> str | None:
        """Resolve a Name/Attribute chain to its qualified torch name, or None."""
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base

    @property
    def nested(self) -> bool:
        """Inside a function or class (the module scope is the first entry of func_stack)."""
        return len(self.func_stack) > 1 or bool(self.class_stack)

    @property
    def in_cell(self) -> bool:
        return bool(self.class_stack) and self.class_stack[-1]["cell"]

    # ---- the walk ----------------------------------------------------------------------
    def walk(self, node):
        """Return ``node`` rewritten (the same object when nothing changed)."""
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            return handler(self, node)
        return self.generic(node)

    def generic(self, node):
        changes = None
        for name in _fields(type(node)):
            value = getattr(node, name)
            t = type(value)
            if t in (tuple, list):
                if not value or not _is_node_type(type(value[0])):
                    continue
                new = self._walk_seq(value)
            elif _is_node_type(t):
                new = self.walk(value)
            else:
                continue
            if new is not value:
                if changes is None:
                    changes = {}
                changes[name] = new
        return _replace(node, changes) if changes else node

    def _walk_seq(self, seq):
        out = None
        for i, item in enumerate(seq):
            new = self.walk(item)
            if new is not item:
                if out is None:
                    out = list(seq[:i])
                if isinstance(new, list):
                    out.extend(new)
                    continue
            if out is not None:
                out.append(new)
        return seq if out is None else out

    def _walk_body(self, body):
        saved = self.line
        out = self._walk_seq(body)
        self.line = saved
        return out

    def _enter_stmt(self) -> None:
        self.stmt_index += 1
        if self.stmt_index < len(self.stmt_lines) and not self.freeze_line:
            self.line = self.stmt_lines[self.stmt_index]
        self.markers.append([])

    def _leave_stmt(self, old, new):
        found = self.markers.pop()
        if not found:
            return new
        lines = list(new.leading_lines)
        have = {ln.comment.value for ln in lines if ln.comment is not None}
        for rule, reason in found:
            text = f"{MARKER_PREFIX}{rule} {reason}"
            if text not in have:
                have.add(text)
                lines.append(cst.EmptyLine(comment=cst.Comment(text)))
        return new.with_changes(leading_lines=lines)

    # statements
    def on_simple_line(self, node: cst.SimpleStatementLine):
        self.markers.append([])
        self.after.append([])
        try:
            new = self._simple_line(node)
        finally:
            extra = self.after.pop()
        if extra and isinstance(new, cst.SimpleStatementLine):
            self.reshaped = True
            # statements a rule needs right after this one (same indentation: same block)
            return [new, *(_statement(text) for text in extra)]
        return new

    def _simple_line(self, node: cst.SimpleStatementLine):
        out = None
        for i, small in enumerate(node.body):
            self.stmt_index += 1
            if self.stmt_index < len(self.stmt_lines) and not self.freeze_line:
                self.line = self.stmt_lines[self.stmt_index]
            new = self._small(small)
            if new is not small:
                if out is None:
                    out = list(node.body[:i])
                if new is None:
                    continue
            if out is not None:
                out.append(new)
        if not self.nested:
            self.import_lines[id(node)] = self.line
        new_node = node
        if out is not None:
            if not out:
                self.markers.pop()
                if node.leading_lines:
                    return cst.SimpleStatementLine([cst.Pass()], leading_lines=node.leading_lines)
                return []
            out[-1] = out[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            new_node = node.with_changes(body=out)
        return self._leave_stmt(node, new_node)

    def on_suite(self, node: cst.SimpleStatementSuite):
        out = None
        for i, small in enumerate(node.body):
            self.stmt_index += 1
            if self.stmt_index < len(self.stmt_lines) and not self.freeze_line:
                self.line = self.stmt_lines[self.stmt_index]
            new = self._small(small) or cst.Pass()
            if new is not small and out is None:
                out = list(node.body[:i])
            if out is not None:
                out.append(new)
        return node if out is None else node.with_changes(body=out)

    def _small(self, small):
        if self.pattern is not None and self.stmt_index < len(self.stmt_ends):
            i = self.stmt_index
            first, last = self.stmt_lines[i], self.stmt_ends[i]
            text = self.src_lines[first - 1] if first == last else "\n".join(self.src_lines[first - 1:last])
            if self.pattern.search(text) is None:
                if isinstance(small, cst.Assign):
                    rules.track_assign(self, small)
                return small
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            # module-level imports are rewritten at the end, once uses are known
            return self._nested_import(small) if self.nested else small
        if isinstance(small, cst.Assign):
            return rules.on_assign(self, small)
        return self.walk(small)

    def on_compound(self, node):
        self._enter_stmt()
        new = self.generic(node)
        return self._leave_stmt(node, new)

    def on_block(self, node: cst.IndentedBlock):
        body = self._walk_body(node.body)
        if body is node.body:
            return node
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return node.with_changes(body=body)

    def on_class(self, node: cst.ClassDef):
        self._enter_stmt()
        new = rules.on_class(self, node)
        return self._leave_stmt(node, new)

    def on_function(self, node: cst.FunctionDef):
        self._enter_stmt()
        new = rules.on_function(self, node)
        return self._leave_stmt(node, new)

    def on_with(self, node: cst.With):
        self._enter_stmt()
        new = rules.on_with(self, node)
        if isinstance(new, list):
            self.markers.pop()
            return new
        return self._leave_stmt(node, new)

    def on_for(self, node: cst.For):
        self._enter_stmt()
        new = rules.on_for(self, node)
        return self._leave_stmt(node, new)

    # expressions
    def on_name(self, node: cst.Name):
        if node.value in self.aliases:
            return _keep_parens(node, rules.on_reference(self, node, self.aliases[node.value]))
        return node

    def on_attribute(self, node: cst.Attribute):
        q = self.qual(node)
        if q is not None:
            return _keep_parens(node, rules.on_reference(self, node, q))
        return _keep_parens(node, rules.on_plain_attribute(self, node))

    def on_call(self, node: cst.Call):
        return _keep_parens(node, rules.on_call(self, node))

    def on_lambda(self, node: cst.Lambda):
        return node.with_changes(body=self.walk(node.body))

    # ---- imports -----------------------------------------------------------------------
    def _nested_import(self, small):
        """A torch import inside a function or class: its names resolve from here on; whether it
        can go is decided when the function is done (:meth:`drop_nested_imports`)."""
        pairs = torch_bindings(small)
        if not pairs:
            return small
        for local, qual in pairs:
            self.aliases[local] = qual
        if self.pattern is not None:
            self.pattern = _interesting(tuple(sorted(self.aliases)))
        self.nested_imports[id(small)] = {local: self.alias_uses.get(local, 0) for local, _ in pairs}
        return small

    def drop_nested_imports(self, block):
        """Remove the torch imports of ``block`` whose names no unconverted code used since."""
        if not isinstance(block, cst.IndentedBlock) or not self.nested_imports:
            return block
        body, changed = [], False
        for st in block.body:
            if isinstance(st, cst.SimpleStatementLine):
                kept = []
                for small in st.body:
                    snap = self.nested_imports.get(id(small))
                    if snap is None:
                        kept.append(small)
                    elif any(self.alias_uses.get(k, 0) > n for k, n in snap.items()):
                        kept.append(small)
                        self.record(small, small, "MS900", "unsupported",
                                    "import kept: unconverted code still uses it")
                    else:
                        self.record(small, "", "MS100", "exact", "torch import replaced by target imports")
                        changed = True
                if len(kept) != len(st.body):
                    if not kept:
                        continue
                    kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                    st = st.with_changes(body=kept)
            body.append(st)
        if not changed:
            return block
        self.reshaped = True
        self.used.add("ms")
        return block.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])

    def _header(self, body=()) -> list[cst.SimpleStatementLine]:
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
        if "math" in self.used and ("math", "", "math") not in have:
            lines.append("import math")
        ms_local = self.names["ms"]
        if (self.pkg, "", ms_local) not in have:
            lines.append(f"import {self.pkg} as {ms_local}")
        mods = [m for m in ("nn", "ops") if m in self.used and (self.pkg, m, self.names[m]) not in have]
        if mods:
            parts = [m if self.names[m] == m else f"{m} as {self.names[m]}" for m in mods]
            lines.append(f"from {self.pkg} import {', '.join(parts)}")
        init_mod = f"{self.pkg}.common.initializer"
        names = sorted(n for n in self.init_names if (init_mod, n, n) not in have)
        if names:
            lines.append(f"from {init_mod} import {', '.join(names)}")
        return [_statement(text) for text in lines]

    def _rewrite_imports(self, body):
        """Replace torch imports by the target's; keep the ones unconverted code still uses.

        The target imports go where the first torch import was; comments on removed import
        lines move to the next statement that stays.
        """
        out: list = []
        header_at = None
        pending: list[cst.EmptyLine] = []
        pending_for_header: list[cst.EmptyLine] = []
        first_torch = None
        have_math = False
        for st in body:
            self.line = self.import_lines.get(id(st), self.line)
            if not (isinstance(st, cst.SimpleStatementLine)
                    and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in st.body)):
                if pending:
                    st = st.with_changes(leading_lines=[*pending, *st.leading_lines])
                    pending = []
                out.append(st)
                continue
            kept, removed = [], False
            if first_torch is None and any(torch_bindings(small) for small in st.body):
                first_torch = len(out)
            for small in st.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar) \
                        and torch_bindings(small):
                    text = (f"{MARKER_PREFIX}MS901 star import from {dotted(small.module)}: its names "
                            "cannot be resolved; import them explicitly")
                    if all(ln.comment is None or ln.comment.value != text for ln in st.leading_lines):
                        st = st.with_changes(leading_lines=[*st.leading_lines,
                                                            cst.EmptyLine(comment=cst.Comment(text))])
                    self.changes.append(Change(self.line, "MS901", "unsupported", small, "",
                                               "star import: names cannot be resolved"))
                if isinstance(small, cst.Import) and any(dotted(a.name) == "math" and a.asname is None
                                                         for a in small.names):
                    have_math = True
                new_small, dropped = self._strip_torch_import(small)
                removed = removed or dropped
                if new_small is not None:
                    kept.append(new_small)
            if removed and header_at is None:
                header_at = len(out)
                pending_for_header, pending = [*pending, *st.leading_lines], []
                if kept:
                    st = st.with_changes(leading_lines=[])
            if kept:
                if kept != list(st.body):
                    kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                    st = st.with_changes(body=kept)
                if pending:
                    st = st.with_changes(leading_lines=[*pending, *st.leading_lines])
                    pending = []
                out.append(st)
            else:
                if header_at != len(out) or pending:
                    pending.extend(st.leading_lines)
                comment = st.trailing_whitespace.comment
                if comment is not None:
                    pending.append(cst.EmptyLine(comment=comment))
        if header_at is None:
            if not (self.used or self.init_names):
                return body
            if first_torch is not None:
                # every torch import stays (unconverted code uses them): the target's go below
                header_at = first_torch + 1
            else:
                # torch was imported inside functions only: after the module's leading imports
                header_at = _after_leading_imports(out)
        if have_math:
            self.used.discard("math")
        header = self._header(out)
        if not header:
            lost = [*pending_for_header, *pending]
            if lost and header_at < len(out):
                out[header_at] = out[header_at].with_changes(
                    leading_lines=[*lost, *out[header_at].leading_lines])
            return out
        if pending_for_header:
            header[0] = header[0].with_changes(leading_lines=pending_for_header)
        if pending:  # comments of removed imports at the very end: keep them below the header
            header[-1] = header[-1].with_changes(trailing_whitespace=header[-1].trailing_whitespace)
            header.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=pending))
        return out[:header_at] + header + out[header_at:]

    def _strip_torch_import(self, small):
        """Return (the import without its unused torch names or None, whether any was removed)."""
        pairs = torch_bindings(small)
        if not pairs:
            return small, False
        still = {local for local, _ in pairs if self.alias_uses.get(local)}
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
        if len(keep) == len(small.names):
            if still:
                self.record(small, small, "MS900", "unsupported",
                            f"import kept: unconverted code still uses {', '.join(sorted(still))}")
            return small, False
        if still:
            self.record(small, small, "MS900", "unsupported",
                        f"import kept: unconverted code still uses {', '.join(sorted(still))}")
        self.record(small, "", "MS100", "exact", "torch import replaced by target imports")
        if not keep:
            return None, True
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return small.with_changes(names=keep), True


@lru_cache(maxsize=256)
def _statement(text: str) -> cst.SimpleStatementLine:
    return cst.parse_statement(text + "\n")


_TORCH_IMPORT = re.compile(r"^\s*(import|from)\s+(torch|torchvision)\b", re.M)


def _imports_torch_somewhere(code: str) -> bool:
    """A torch import at any depth (inside a function, under ``if``...)."""
    return _TORCH_IMPORT.search(code) is not None


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


def _keep_parens(old, new):
    """A replacement keeps the parentheses of the node it replaces (they may be what makes a
    multi-line expression valid)."""
    if new is old or not old.lpar or getattr(new, "lpar", None) is None or new.lpar:
        return new
    return new.with_changes(lpar=old.lpar, rpar=old.rpar)


def _syntax_error(code: str, exc: cst.ParserSyntaxError) -> str:
    """Python's own message and line (libcst's are less precise), else libcst's."""
    try:
        ast.parse(code)
    except SyntaxError as err:
        return f"syntax error at line {err.lineno}: {err.msg}"
    return f"syntax error at line {exc.raw_line}: {exc.message}"


_HANDLERS = {
    cst.SimpleStatementLine: Converter.on_simple_line,
    cst.SimpleStatementSuite: Converter.on_suite,
    cst.IndentedBlock: Converter.on_block,
    cst.ClassDef: Converter.on_class,
    cst.FunctionDef: Converter.on_function,
    cst.With: Converter.on_with,
    cst.For: Converter.on_for,
    cst.If: lambda self, n: rules.on_if(self, n),
    cst.While: Converter.on_compound,
    cst.Try: Converter.on_compound,
    cst.Name: Converter.on_name,
    cst.Attribute: Converter.on_attribute,
    cst.Call: Converter.on_call,
    cst.Lambda: Converter.on_lambda,
    # leaves and whitespace: nothing inside to convert
    cst.SimpleString: lambda self, n: n,
    cst.Integer: lambda self, n: n,
    cst.Float: lambda self, n: n,
    cst.Pass: lambda self, n: n,
    cst.Newline: lambda self, n: n,
    cst.EmptyLine: lambda self, n: n,
}
if hasattr(cst, "TryStar"):
    _HANDLERS[cst.TryStar] = Converter.on_compound


@lru_cache(maxsize=1)
def _passes() -> tuple:
    """Statement-level passes that run before the walk, each ``apply(conv, module, code)``.

    Extension point: the training-loop pass (``migrate.training``) plugs in here when present.
    """
    passes = []
    try:
        from migrate import training
    except ImportError:
        training = None
    if training is not None and hasattr(training, "apply"):
        passes.append(training.apply)
    return tuple(passes)


def convert_source(code: str, target: str = "ms_core") -> ConvertResult:
    """Convert PyTorch source text to ms_core (or MindSpore) source text.

    Args:
        code: Python source that uses torch.
        target: ``"ms_core"`` (default) or ``"mindspore"``.

    Returns:
        A :class:`ConvertResult` with ``.code`` and ``.changes``; ``.error`` is set (and
        ``.code`` is the input) when the source does not parse.

    Raises:
        ValueError: for an unknown target.

    Example:
        >>> convert_source("import torch.nn as nn\\nfc = nn.Linear(4, 2, bias=False)\\n").code.splitlines()[-1]
        'fc = nn.Dense(4, 2, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))'
    """
    return Converter(target).convert(code)


from migrate import rules  # noqa: E402  (rules import helpers from this module)
