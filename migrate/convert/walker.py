"""The converter: one cheap walk over a libcst tree, driven by the mapping tables.

libcst's visitor rebuilds every node it passes; this walker only rebuilds the nodes on the path to
a change, which keeps the whole conversion close to the cost of a bare parse. What happens at each
kind of node is in :mod:`migrate.convert.handlers`; imports are resolved and rewritten by
:mod:`migrate.convert.imports`; statement-level passes (the training loop) run before the walk.
"""
from __future__ import annotations

import ast
import dataclasses
import gc
import keyword
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst

from mappings import load_attributes, load_tables
from migrate.convert import complex_arith, einops_calls, fstrings, handlers, shifts
from migrate.convert.changes import MARKER_PREFIX, Change, ConvertResult, marker_line, marker_text
from migrate.convert.converter_state import FileFacts, Output, WalkState
from migrate.convert.comments import keep_lost_comments, lost_comment_lines, own_comments, split_comment_tail
from migrate.convert.alias_swap import SWAPPABLE, swap_names, torch_local
from migrate.convert.folding import (
    constant, fold_boolean, fold_identity, fold_not, fold_truth, plain, unwrapped_after_not,
)
from migrate.convert.precedence import fit
from migrate.convert.tidy import left_if, left_loop, reads_only, same_blocks, same_branches
from migrate.convert.trailing_slices import without_trailing_slices
from migrate.convert import inplace_layers
from migrate.convert.view_alias import VIEW_ALIAS, aliased_writes
from migrate.convert.cst import (
    DEEP_BRACKETS, bracket_depth, code_of, count_statements, dotted, is_node_type, is_same_names, keep_parens,
    LeftLoop, LeftPass, RemovedPass, SettledNone, left_pass, parse_expr, parse_statement, attribute, fold_removed,
    parse_source, python_ast, remember_ast, removed, replace_fields, rewrite_fields, short, statement_spans,
)
from migrate.convert.builtin_names import BUILTINS, qualify, references
from migrate.convert.guards import stub_assignment
from migrate.convert.imports import (
    ROOTS, ImportRewrite, drop_nested_imports, einops_without_torch, forget_vanished_uses,
    imports_torch_somewhere, note_nested_import, scan_module_imports,
)
from migrate.convert.names import (
    all_bindings, block_bindings, choose_names, function_locals, maybe_bound, target_names,
)
from migrate.convert.receivers import is_tensor, track_assign
from migrate.convert.registry import EVERYTHING, RuleSelection, entry_id
from migrate.convert.annotations import on_annotation
from migrate.convert.layer_attributes import CONV_ATTRS
from migrate.convert.probes import probe_comparison
from migrate.convert.rules import inplace
from migrate.convert.rules.recompute import find_recomputes
from migrate.convert.rules.runtime import final_annotation
from migrate.convert.scopes import ClassScope, FunctionScope
from migrate.convert.package_classes import MODULE_BASES
from migrate.convert.star_imports import OWN_PACKAGES, REEXPORTED, package_imported_names, torch_star_aliases
from migrate.convert.tensor_methods import FUNCTION_METHODS
from migrate.convert.torch_names import public_name, star_names
from migrate.convert.runtime_files import RUNTIME_NAME
from migrate.convert.verbatim import module_code, statement_starts
from migrate.convert.torch_signature import (
    imported_runtime_names, is_runtime_module, runtime_statements, signatures,
)
from migrate.convert.training import training_pass

TARGETS = {"ms_core": "ms_core", "mindspore": "mindspore"}
# Statement-level passes that run before the walk, each ``run(converter, module, code) -> module``.
PASSES = (training_pass,)

# Words that can make a simple statement need the walker besides the file's torch aliases: every
# method name of the tables, and the attributes and names the rules look at.
_RULE_WORDS = ("forward", "apply", "weight", "bias", "running_mean", "running_var", "data", "super",
               "torch", "torchvision", "add_module", "device", "real", "imag", "_modules", "_parameters",
               "import_module", "__import__", "need_weights")


class _AnyOf:
    """Patterns searched as one: ``search`` finds a match of any of them (what one alternation of
    them all finds), or None."""

    __slots__ = ("patterns",)

    def __init__(self, *patterns: "re.Pattern"):
        self.patterns = patterns

    def search(self, text: str):
        for pattern in self.patterns:
            found = pattern.search(text)
            if found is not None:
                return found
        return None


@lru_cache(maxsize=256)
def _interesting(aliases: tuple[str, ...], target: str = "ms_core") -> _AnyOf:
    """A pattern that finds, in a statement's text, anything a rule could act on: the file's
    torch aliases (a small pattern of each file's own), or what the rules look for (one large
    pattern, the same for every file: compiling it was ~3 % of a conversion)."""
    rules = _rule_words(target)
    if not aliases:
        return _AnyOf(rules)
    return _AnyOf(re.compile(r"\b(?:" + "|".join(map(re.escape, aliases)) + r")\b"), rules)


@lru_cache(maxsize=2)
def _rule_words(target: str) -> "re.Pattern":
    """Every method name of the tables, the attributes and names the rules look at, and the
    spellings some rules act on."""
    tables = load_tables()
    methods = {k.split(".", 1)[1] for k in tables if k.startswith(("Tensor.", "Module."))}
    methods |= {name for name in FUNCTION_METHODS if "torch." + name in tables}  # x.op() as torch.op(x)
    words = sorted(methods | set(_RULE_WORDS) | _layer_attribute_names())
    # `name_(`: in-place tensor methods are marked; `, :]`: trailing full slices and `1j`, `complex(`:
    # complex arithmetic (MindSpore)
    slices = r"|,\s*(?::|\.\.\.)\s*[\],]|\d[jJ]\b|\bcomplex\s*\(" if target == "mindspore" else ""
    # `, value=`: an attention's value by keyword (MindSpore 2.10 wants it by position); `>>`, `<<`: tensor shifts
    return re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b|[A-Za-z0-9]_\s*\(|[(,]\s*value\s*=(?!=)"
                      + r"|>>|<<" + slices)


def _layer_attribute_names() -> set[str]:
    """torch layer attributes and call keywords that MindSpore names differently
    (layer_attributes.py rewrites them)."""
    return {name for a in load_attributes().values()
            for name in (*a.rename, *a.shadow, *a.absent, *a.forward, *a.counter)} | CONV_ATTRS


def _is_none(node) -> bool:
    """``node`` is written ``None`` (no parentheses): what ``code_of(node) == "None"`` says,
    without printing it."""
    return type(node) is cst.Name and node.value == "None" and not node.lpar


@dataclass(frozen=True)
class InputFacts:
    """What a conversion reads of its input's ``ast`` (CPython's parse), found where a directory
    run has parsed the file already (its package pre-pass, in a worker): the conversion then
    parses it with libcst only. ``key``: (length, hash) of the text they are about."""

    key: tuple
    stmt_lines: list
    stmt_ends: list
    aliased_writes: dict
    plain_forwards: bool
    top_starts: tuple = ()  # where the statements start (verbatim.Starts)


# The InputFacts of the file being converted, when known (set for one file's conversion, like
# star_imports.OWN_PACKAGES); a conversion uses them only for the text they describe.
KNOWN_INPUT: ContextVar = ContextVar("known_input", default=None)


def input_facts(code: str, tree: ast.Module) -> InputFacts:
    """The :class:`InputFacts` of ``code`` (the text a conversion converts: see
    :func:`split_comment_tail`), whose ``ast.parse`` is ``tree`` (not changed afterwards)."""
    remember_ast(code, tree)
    starts, ends = statement_spans(code)
    return InputFacts((len(code), hash(code)), starts, ends, _aliased_writes(code),
                      handlers.defines_plain_forward(None, code), statement_starts(tree))


def _top_starts(code: str) -> tuple:
    """Where the statements of ``code`` start (:class:`verbatim.Starts`; none when it is not
    Python)."""
    try:
        return statement_starts(python_ast(code))
    except (SyntaxError, ValueError):
        return ()


def _known_input(code: str) -> InputFacts | None:
    known = KNOWN_INPUT.get()
    return known if known is not None and known.key == (len(code), hash(code)) else None


@dataclass(frozen=True)
class Checkpoint:
    """A point in the change log to roll back to (see :meth:`Converter.rollback_to`)."""

    changes: int   # changes recorded before it
    depth: int     # statements open (marker lists) at it
    markers: int   # markers waiting for the innermost open statement


class Converter:
    """Convert one source text; create one per file.

    What it knows is split by lifetime (see :mod:`migrate.convert.converter_state`):
    ``facts`` (the options and what the passes before the walk find; frozen when the walk
    starts), ``walk_state`` (where the walk is, what it has learnt so far) and ``output`` (the
    change log and what the converted file needs). Its methods combine them.

    Args:
        target: ``"ms_core"`` or ``"mindspore"``: the package the output imports.
        validate: parse the output once more, when statements were moved, removed or added
            (expression rewrites keep the replaced node's parentheses and cannot break the
            layout), and return the input unchanged (with ``error``) if it is not valid Python.
        names: local names for the target modules (default ``ms``, ``nn``, ``ops``, ``math``;
            ``init``: a local name for the initializer module, default none: its classes are
            imported by name); chosen automatically when user code or a torch import that must
            stay already binds one of them.
        rules: which rewrites run (default: all; see :class:`~migrate.convert.registry.RuleSelection`).
        inherited: torch aliases the file gets from a module of its package by ``import *`` or
            by name when that module re-exports them (``from .core import Module``)
            (``{"nn": "torch.nn"}``; see :mod:`migrate.convert.star_imports`).
        shadowed: builtins the output binds that generated code uses: it writes them as
            ``_builtins.name`` (see :mod:`migrate.convert.builtin_names`); found by the first
            conversion, which converts again with them.
    """

    def __init__(self, target: str = "ms_core", validate: bool = True, names: dict | None = None,
                 rules: RuleSelection = EVERYTHING, inherited: dict | None = None, shadowed=frozenset(),
                 named_modules=frozenset(), runtime: str = RUNTIME_NAME):
        if target not in TARGETS:
            raise ValueError(f"target must be one of {sorted(TARGETS)}, got {target!r}")
        self.facts = FileFacts(
            target_name=target, pkg=TARGETS[target], validate=validate, rules=rules,
            names={"ms": "ms", "nn": "nn", "ops": "ops", "math": "math", "np": "np", "init": "",
                   "builtins": "_builtins", **(names or {})},
            shadowed=frozenset(shadowed), renamed=names is not None, tables=load_tables(),
            inherited=dict(inherited or {}), named_modules=frozenset(named_modules), runtime=runtime)
        self.walk_state = WalkState()
        self.output = Output()
        self._allowed: dict[str, bool] | None = None if rules.everything else {}  # allows()' answers
        self.known: InputFacts | None = None  # facts of the input found before (KNOWN_INPUT)

    # ---- entry point -------------------------------------------------------------------
    def convert(self, code: str, parsed: cst.Module | None = None) -> ConvertResult:
        """Convert ``code``; on a parse error return it unchanged with ``error`` set. ``parsed``:
        its syntax tree when a conversion of it has parsed it already (trees are never changed)."""
        self.known = _known_input(code)
        if "torch" not in code and "einops" not in code and not self._inherits(code) and not MODULE_BASES.get() \
                and not (self.facts.named_modules and einops_calls.imports_by_name(code, self.facts.named_modules)):
            # nothing of torch's can be here: validate with the (much faster) builtin parser only
            try:
                if self.known is None:  # (known facts come from a parse of this text)
                    ast.parse(code)
            except SyntaxError as err:
                return ConvertResult(code, error=f"syntax error at line {err.lineno}: {err.msg}")
            except ValueError as err:  # null bytes
                return ConvertResult(code, error=f"cannot parse: {err}")
            return ConvertResult(code, runtime=imported_runtime_names(code))
        try:
            module = parsed if parsed is not None else parse_source(code)
        except cst.ParserSyntaxError as exc:
            return ConvertResult(code, error=_syntax_error(code, exc))
        parsed = module
        scan_module_imports(module.body, self.facts.aliases, self.facts.imported, self.facts.star_modules)
        if self.facts.star_modules or self.facts.inherited:
            self._add_derived_aliases(module)
        self.walk_state.aliases = dict(self.facts.aliases)  # the walk's own: rebinding changes them
        if (not self.walk_state.aliases and not imports_torch_somewhere(code)
                or einops_without_torch(code, self.walk_state.aliases)) \
                and not einops_calls.imports_by_name(code, self.facts.named_modules) \
                and not MODULE_BASES.get():  # a class deriving from a module class of another file
            # no torch import (einops on NumPy arrays): nothing of torch's to convert
            return ConvertResult(code, runtime=imported_runtime_names(code))
        self.facts.may_rebind = maybe_bound(code, self.walk_state.aliases)
        self._statement_lines(code)
        signatures(self).start(module, code)
        for run_pass in PASSES:
            module = run_pass(self, module, code)
        # what an earlier conversion wrote to reach the runtime (its import, or the inlined block)
        # is the converter's own code, kept or rewritten as a whole: never walked again
        self.facts.generated = {id(st) for st in runtime_statements(module.body)}
        self._read_input(module, code)
        self.facts.freeze()  # the walk only reads the facts
        # module-level code is a scope too: tensors and modules bound there are tracked
        with self.in_function(FunctionScope()):
            body = self._walk_body(module.body)
        if body is not module.body:
            body, left = fold_removed(list(body))
            if left:
                module = module.with_changes(footer=[*left, *module.footer])
        forget_vanished_uses(self, body)
        signatures(self).note_inline_needs()
        again = self._names_free_of_clashes(module, code)
        if again is not None:
            # user code, or a torch import that must stay, binds a name the converted code needs
            # (`ops = [1, 2]`; `nn` for both torch.nn and the target's nn; `list` that generated
            # code calls): convert again with other local names for the target's modules, and
            # Python's builtins named through `builtins`
            names, shadowed = again
            return Converter(self.facts.target_name, self.facts.validate, names, self.facts.rules, self.facts.inherited,
                             shadowed, self.facts.named_modules, self.facts.runtime).convert(code, parsed)
        self.output.walked_body = body
        if self.facts.shadowed:
            self.output.used.add("builtins")  # generated code reads a builtin the file binds (see builtin_names)
        body = ImportRewrite(self).run(body, module.header)
        new = self._with_runtime(module, body)
        self.output.changes.sort(key=lambda c: c.line)
        out = module_code(new, parsed, code, self.facts.top_starts)
        if self.output.signatures.drop_unused(out):  # asked for by a rewrite rolled back since
            new = self._with_runtime(module, body)
            out = module_code(new, parsed, code, self.facts.top_starts)
        out = self._plain_target_names(module, new, out, (parsed, code))
        if self.facts.validate and (self.output.reshaped or self.facts.training is not None):
            # the promise is valid Python whatever happens: a converter bug returns the input
            try:
                ast.parse(out)
            except SyntaxError as err:
                return ConvertResult(code, error=f"internal error: the conversion was not valid Python "
                                                 f"(line {err.lineno}: {err.msg}); file left unchanged")
        # every change is one torch site: rewritten (any label) or left with a marker
        return ConvertResult(out, self.output.changes, len(self.output.changes),
                             runtime=self.output.signatures.used_names())

    def _statement_lines(self, code: str) -> None:
        """Where the input's statements are: the first and last line of each, in walk order, and
        the first line of each top-level one (from the ast of a pre-pass when it has one)."""
        if self.known is None:
            self.facts.stmt_lines, self.facts.stmt_ends = statement_spans(code)
            self.facts.top_starts = _top_starts(code)
        else:
            self.facts.stmt_lines, self.facts.stmt_ends = list(self.known.stmt_lines), list(self.known.stmt_ends)
            self.facts.top_starts = self.known.top_starts
        if self.facts.top_starts:  # (the input's: a pass that reshapes the tree re-aligns stmt_lines)
            self.facts.top_starts = self.facts.top_starts._replace(lines=tuple(self.facts.stmt_lines))

    def _read_input(self, module, code: str) -> None:
        """Facts of the input the walk reads: the statements it may skip, deep nesting, in-place
        writes a named view misses, plain classes with a forward."""
        self.facts.target_nn = _target_nn_names(module.body, self.facts.target_name)
        self.facts.runtime_layers = _runtime_layer_names(module.body)
        if self.facts.training is None and self.facts.stmt_lines:
            # simple statements whose text holds nothing a rule acts on are only tracked, not
            # walked (the statement spans still match the tree: no pass rewrote it)
            self.facts.src_lines = code.splitlines()
            self.walk_state.pattern = _interesting(tuple(sorted(self.walk_state.aliases)), self.facts.target_name)
        self.facts.deep = bracket_depth(code, fast=True) >= DEEP_BRACKETS
        self.facts.recompute = find_recomputes(module, code, self.qual)
        if self.known is not None:
            self.facts.aliased_writes = dict(self.known.aliased_writes)
            self.facts.plain_forwards = self.known.plain_forwards
        else:
            self.facts.aliased_writes = _aliased_writes(code)
            self.facts.plain_forwards = handlers.defines_plain_forward(module, code)

    def _with_runtime(self, module, body):
        """``module`` with ``body`` and what reaches the runtime (its import, or inlined code)."""
        body = self.output.signatures.emit(body)
        new = module.with_changes(body=body) if body is not module.body else module
        return self.output.signatures.with_end_marker(new)

    def star_uses(self, module: str) -> dict[str, str]:
        """The names ``from <module> import *`` gave that unconverted code still uses."""
        prefix = module + "."
        return {n: q for n, q in self.facts.star_aliases.items()
                if self.output.alias_uses.get(n) and q.startswith(prefix) and "." not in q[len(prefix):]}

    def _inherits(self, code: str) -> bool:
        """One of the inherited aliases appears in ``code`` (as a word)."""
        return bool(self.facts.inherited) and re.search(
            r"\b(?:" + "|".join(map(re.escape, self.facts.inherited)) + r")\b", code) is not None

    def _add_derived_aliases(self, module) -> None:
        """Torch aliases without an import of their own in this file: the names of star-imported
        torch modules, and the ones a sibling module gives by ``import *``; names the module binds
        itself are not torch's."""
        bound = block_bindings(module.body, skip=self._is_own_binding) | self.facts.imported | set(self.facts.aliases)
        bound.discard("*")
        # a name imported by name from a module of the package that re-exports torch's
        # (`from kornia.core import Module`) is bound by that import: it stays inherited
        self.facts.inherited_by_name = package_imported_names(module.body) & set(self.facts.inherited)
        bound -= self.facts.inherited_by_name
        self.facts.inherited = {k: v for k, v in self.facts.inherited.items() if k not in bound}
        self.facts.star_aliases = torch_star_aliases(self.facts.star_modules, bound | set(self.facts.inherited))
        for derived in (self.facts.inherited, self.facts.star_aliases):
            self.facts.aliases.update(derived)
            self.facts.imported.update(derived)

    def _names_free_of_clashes(self, module, code: str) -> tuple[dict, frozenset] | None:
        """Local names for the target's modules that nothing else in the file binds, and the
        builtins generated code reads that the output binds; None when the ones used are right
        already."""
        if self.facts.renamed:
            return None  # names were chosen against every binding of the file already
        used = self.output.used
        # the header imports the package as `ms` whenever it is written: for what the walk used,
        # and for an earlier conversion's guards and stand-in class (converting converted code)
        header = used or self.output.guarded or self.facts.generated
        heads = {h for h in ("ms", "nn", "ops", "math", "np") if h in used} | ({"ms"} if header else set())
        kept = {a for a, n in self.output.alias_uses.items() if n}
        # a torch name that other modules of the package import from this one stays bound too
        kept |= REEXPORTED.get() & set(self.facts.aliases)
        for mod in self.facts.star_modules:  # a star import that stays binds every name it gives
            if self.star_uses(mod):
                kept.update(star_names(mod) or ())
        wanted = {self.facts.names[h]: h for h in heads}
        wanted.update((n, "init") for n in self.output.init_names)
        reads = self._generated_builtins(bool(kept))
        wanted.update((n, "builtins") for n in reads)
        clash = {wanted[n] for n in wanted if n in kept}
        maybe = maybe_bound(code, [n for n in wanted if n not in kept])
        user = all_bindings(module, skip=self._is_own_binding) if maybe else set()
        clash |= {wanted[n] for n in maybe & user}
        shadowed = frozenset(n for n in reads if n in kept or n in maybe and n in user)
        clash.discard("builtins")
        if not clash and shadowed == self.facts.shadowed:
            return None
        taken = (user or all_bindings(module, skip=self._is_own_binding)) | set(self.walk_state.aliases)
        if shadowed and self.facts.names["builtins"] in taken:
            clash.add("builtins")
        return choose_names(clash, taken, self.facts.pkg, self.facts.names), shadowed

    def _plain_target_names(self, module, new: cst.Module, out: str, source: tuple) -> str:
        """``out`` (the code of ``new``) with the target's modules given their plain names back
        where a torch alias of the same name stays for marked code (``ms_nn`` -> ``nn``, torch's
        ``nn`` -> ``torch_nn``; see :mod:`migrate.convert.alias_swap`). ``source``: the input's
        tree and text (the statements the swap does not touch are copied from there)."""
        if not self.facts.renamed:
            return out
        renames, user = {}, None
        for head in SWAPPABLE:
            local, alias = self.facts.names.get(head), self.walk_state.aliases.get(head)
            if local == head or not self.output.alias_uses.get(head) or alias is None \
                    or alias.rsplit(".", 1)[-1] != head or re.search(rf"\b{torch_local(head)}\b", out) \
                    or not re.search(rf"(?<![\w.]){re.escape(local)}\.", out):  # (the target's module is used)
                continue
            user = all_bindings(module, skip=self._is_own_binding) if user is None else user
            if head not in user and local not in user:
                renames.update({head: torch_local(head), local: head})
        return module_code(swap_names(new, renames), *source, self.facts.top_starts) if renames else out

    def _generated_builtins(self, guards: bool) -> set[str]:
        """The builtins the code the converter writes into this file reads (``guards``: guards
        are written too): its expressions, and the runtime's definitions when they are inlined."""
        reads = set(self.output.builtins_used)
        reads.update(name for name, _, _ in references(self.output.signatures.inline_source()))
        if guards or self.output.guarded:
            reads.add("ImportError")
        return reads

    def _is_own_binding(self, small) -> bool:
        """A torch import (its names are aliases), an import of what the output imports itself
        (``import math``, ``import numpy as np``, the runtime's names), or a guard's stand-in
        (``torch = TorchMissing(...)``)."""
        if isinstance(small, cst.Assign):
            return stub_assignment(cst.SimpleStatementLine([small])) is not None
        if isinstance(small, cst.ImportFrom) and is_runtime_module(small):
            return True
        if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
            mod = dotted(small.module)
        elif isinstance(small, cst.Import):
            mod = dotted(small.names[0].name) if len(small.names) == 1 else None
        else:
            return False
        if mod == "builtins":
            return True  # what generated code names the builtins through
        root = (mod or "").split(".")[0]
        # `import numpy` / `import numpy as np` bind numpy where templates use it
        numpy_itself = isinstance(small, cst.Import) and mod == "numpy" and \
            (small.names[0].asname is None or dotted(small.names[0].asname.name) == "np")
        return root in (*ROOTS, self.facts.pkg) or mod == "math" or numpy_itself

    # ---- the change log ----------------------------------------------------------------
    def allows(self, rule_id: str) -> bool:
        """Whether the rewrite ``rule_id`` runs (``--select``/``--disable``)."""
        if self._allowed is None:
            return True
        ok = self._allowed.get(rule_id)
        if ok is None:
            ok = self._allowed[rule_id] = self.facts.rules.allows(rule_id)
        return ok

    def record(self, node_before, after, rule: str, label: str, note: str = "") -> None:
        """Record one change at the current line."""
        self.output.changes.append(Change(self.walk_state.line, rule, label, node_before, after, note))

    def record_at(self, line: int, node_before, after, rule: str, label: str, note: str = "") -> None:
        """Record one change at ``line`` (a pass before the walk knows its own lines)."""
        self.output.changes.append(Change(line, rule, label, node_before, after, note))

    def realign_lines(self, lines: list[int]) -> None:
        """A pass before the walk reshaped the tree: ``lines`` is the input line of each of its
        statements, in walk order (so that changes still report lines of the input)."""
        self.facts.stmt_lines = lines

    def mark(self, node, rule: str, reason: str) -> None:
        """Leave ``node`` as it is and put a marker comment above its statement."""
        self.output.changes.append(Change(self.walk_state.line, rule, "unsupported", node, "", reason))
        if self.walk_state.markers:
            self.walk_state.markers[-1].append((rule, reason))

    def apply_entry(self, call: cst.Call, entry, q: str, receiver=None, receiver_before=None):
        """Rewrite ``call`` (its parts converted) with its table ``entry``, as the walk does
        (:func:`migrate.convert.handlers.apply_entry`): for a rule whose result is another
        torch call, converted as that call written by hand would be."""
        return handlers.apply_entry(self, call, entry, q, receiver=receiver, receiver_before=receiver_before)

    def checkpoint(self) -> Checkpoint:
        """The current end of the change log, to :meth:`rollback_to` later."""
        return Checkpoint(len(self.output.changes), len(self.walk_state.markers),
                          len(self.walk_state.markers[-1]) if self.walk_state.markers else 0)

    def rollback_to(self, mark: Checkpoint, keep_markers: bool = True) -> None:
        """Forget the rewrites recorded since ``mark``: their code is kept as written.

        Markers recorded since stay (with their comments) unless ``keep_markers`` is False.
        """
        since = self.output.changes[mark.changes:]
        del self.output.changes[mark.changes:]
        if keep_markers:
            self.output.changes.extend(c for c in since if c.label == "unsupported")
        elif self.walk_state.markers and len(self.walk_state.markers) == mark.depth:
            del self.walk_state.markers[-1][mark.markers:]

    def add_after(self, text: str) -> None:
        """Add the statement ``text`` right after the simple statement being converted."""
        self.walk_state.after[-1].append(text)

    @property
    def can_add_after(self) -> bool:
        """Inside a simple statement (where :meth:`add_after` can add one)."""
        return bool(self.walk_state.after)

    # ---- target names and torch aliases ------------------------------------------------
    def target(self, name: str) -> cst.BaseExpression:
        """Return the expression for a table target such as ``nn.Dense`` and note its import."""
        return parse_expr(self.tname(name))

    def tname(self, name: str) -> str:
        """Source text for a target name (``ms.float32``, ``ops.relu``, ``init.Normal``), with
        the local names this file uses for the target modules; notes the import it needs."""
        head, _, rest = name.partition(".")
        if not rest and head in BUILTINS:
            return self.builtin(head)  # `tuple` (torch.Size)
        if head == "init":
            if self.facts.names["init"]:
                self.output.used.add("init")
                return f"{self.facts.names['init']}.{rest}"
            self.output.init_names.add(rest.split(".")[0])
            return rest
        self.output.used.add(head)
        local = self.facts.names.get(head, head)
        return f"{local}.{rest}" if rest else local

    def builtin(self, name: str) -> str:
        """Source text for Python's builtin ``name`` in generated code: the name, or
        ``_builtins.name`` when the file binds ``name`` itself (``from torch.hub import list``
        that stays, ``def len(x)``); see :mod:`migrate.convert.builtin_names`."""
        self.output.builtins_used.add(name)
        if name not in self.facts.shadowed:
            return name
        self.output.used.add("builtins")
        return f"{self.facts.names['builtins']}.{name}"

    def builtins_in(self, text: str) -> str:
        """Generated code ``text`` (statements, an expression, a template with ``{slot}``
        fields; never user code) with its builtins written as :meth:`builtin` writes them."""
        refs = references(text)
        if not refs:
            return text
        self.output.builtins_used.update(name for name, _, _ in refs)
        hits = [r for r in refs if r[0] in self.facts.shadowed]
        if not hits:
            return text
        self.output.used.add("builtins")
        return qualify(text, hits, self.facts.names["builtins"] + ".")

    def uses_alias(self, node) -> None:
        """Count a torch alias that stays in the output (its import must stay too)."""
        d = dotted(node)
        if d:
            head = d.split(".")[0]
            self.output.alias_uses[head] = self.output.alias_uses.get(head, 0) + 1

    def keep_aliases_in(self, node) -> None:
        """Every torch alias used inside ``node`` stays in the output, so its import must stay."""
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Name):
                if n.value in self.walk_state.aliases:
                    self.output.alias_uses[n.value] = self.output.alias_uses.get(n.value, 0) + 1
                continue
            if isinstance(n, cst.Attribute):  # `torch.nn.X` uses the alias torch, not a name nn
                stack.append(n.value)
                continue
            stack.extend(n.children)

    def aliases_changed(self) -> None:
        """New torch aliases (an import inside a function): the text filter must know them."""
        if self.walk_state.pattern is not None:
            self.walk_state.pattern = _interesting(tuple(sorted(self.walk_state.aliases)), self.facts.target_name)

    def qual(self, node) -> str | None:
        """Resolve a Name/Attribute chain to its qualified torch name, or None."""
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.walk_state.aliases.get(head)
        if base is None:
            return None
        return public_name(f"{base}.{rest}" if rest else base)

    def drop_nested_imports(self, block):
        """Remove the torch imports of a function body that no unconverted code still uses."""
        return drop_nested_imports(self, block)

    # ---- scopes ------------------------------------------------------------------------
    @property
    def scope(self) -> FunctionScope | None:
        """The innermost function scope (the module's at top level)."""
        return self.walk_state.functions[-1] if self.walk_state.functions else None

    @property
    def class_scope(self) -> ClassScope | None:
        """The innermost class being walked, or None."""
        return self.walk_state.classes[-1] if self.walk_state.classes else None

    @property
    def nested(self) -> bool:
        """Inside a function or class (the module scope is the first function scope)."""
        return len(self.walk_state.functions) > 1 or bool(self.walk_state.classes)

    @property
    def in_cell(self) -> bool:
        """Inside a class that becomes a Cell."""
        return bool(self.walk_state.classes) and self.walk_state.classes[-1].cell

    @contextmanager
    def in_function(self, scope: FunctionScope):
        """Walk a function body (or the module) in ``scope``."""
        self.walk_state.functions.append(scope)
        self.walk_state.tensor_memo = {}
        try:
            yield scope
        finally:
            self.walk_state.functions.pop()
            self.walk_state.tensor_memo = {}

    @contextmanager
    def in_class(self, scope: ClassScope):
        """Walk a class body in ``scope``."""
        self.walk_state.classes.append(scope)
        self.walk_state.class_depths.append(len(self.walk_state.functions))
        self.walk_state.tensor_memo = {}
        try:
            yield scope
        finally:
            self.walk_state.classes.pop()
            self.walk_state.class_depths.pop()
            self.walk_state.tensor_memo = {}

    @property
    def in_class_body(self) -> bool:
        """Directly in a class body (not in one of its methods)."""
        depths = self.walk_state.class_depths
        return bool(depths) and depths[-1] == len(self.walk_state.functions)

    @property
    def at_module_top(self) -> bool:
        """In a statement directly in the module body (not in a function, class, if, try...)."""
        return not self.nested and len(self.walk_state.markers) <= 1

    def rebound_in(self, node: cst.FunctionDef) -> set[str]:
        """The torch aliases that ``node`` binds as its own locals (a parameter called ``torch``,
        ``nn = Net()``): inside it those names are not torch's."""
        names = self.facts.may_rebind & self.walk_state.aliases.keys()
        if not names:
            return set()
        return names & function_locals(node, skip=self._is_own_binding)

    def rebind_at_module_top(self, node: cst.Assign) -> None:
        """``nn = Net()`` in the module body: from here on ``nn`` is not torch's."""
        names = {n for t in node.targets for n in target_names(t.target)} & self.facts.may_rebind
        gone = [n for n in names if self.walk_state.aliases.pop(n, None) is not None]
        if gone:
            self.aliases_changed()

    @contextmanager
    def without_aliases(self, names: set[str]):
        """Walk with ``names`` not resolving to torch (locals of a function that rebind them)."""
        if not names:
            yield
            return
        saved = {n: self.walk_state.aliases.pop(n) for n in names if n in self.walk_state.aliases}
        self.aliases_changed()
        try:
            yield
        finally:
            self.walk_state.aliases.update(saved)
            self.aliases_changed()

    @contextmanager
    def naming_classes(self):
        """Inside ``isinstance(x, ...)``/``issubclass``: classes are named, not built."""
        saved, self.walk_state.in_isinstance = self.walk_state.in_isinstance, True
        try:
            yield
        finally:
            self.walk_state.in_isinstance = saved

    @contextmanager
    def unaligned(self, block):
        """Walk ``block`` after rewriting it: its statements no longer match the source, so none
        is skipped by the text filter, changes inside report the current line, and counting
        resumes after the block as written."""
        start, pattern = self.walk_state.stmt_index, self.walk_state.pattern
        self.walk_state.pattern, self.walk_state.freeze_line = None, True
        try:
            yield
        finally:
            self.walk_state.pattern, self.walk_state.freeze_line = pattern, False
            self.walk_state.stmt_index = start + count_statements(block)

    # ---- the walk ----------------------------------------------------------------------
    def walk(self, node):
        """Return ``node`` rewritten (the same object when nothing changed)."""
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            return handler(self, node)
        return self.generic(node)

    def generic(self, node):
        """Walk the children of ``node`` that may hold code; rebuild it only if one changed."""
        changes = None
        for name in rewrite_fields(type(node)):
            value = getattr(node, name)
            t = type(value)
            if t in (tuple, list):
                if not value or not is_node_type(type(value[0])):
                    continue
                new = self.walk_seq(value)
            elif is_node_type(t):
                new = self.walk(value)
            else:
                continue
            if new is not value:
                if changes is None:
                    changes = {}
                changes[name] = fit(node, name, new)  # `-(a + b)`, not `-a + b`
        return replace_fields(node, changes) if changes else node

    def walk_seq(self, seq):
        """Walk a sequence of nodes; a handler may return a list (statements) to splice in."""
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
        saved = self.walk_state.line
        out = self.walk_seq(body)
        self.walk_state.line = saved
        return out

    def _next_statement(self) -> None:
        self.walk_state.tensor_memo = {}  # what a statement binds may change the answers
        self.walk_state.stmt_index += 1
        if self.walk_state.stmt_index < len(self.facts.stmt_lines) and not self.walk_state.freeze_line:
            self.walk_state.line = self.facts.stmt_lines[self.walk_state.stmt_index]

    def enter_stmt(self, node) -> None:
        """A compound statement starts: its line, and a list for its markers."""
        self._next_statement()
        self._open(node)

    def _open(self, node) -> None:
        """A statement starts: a list for its markers; the ones above it already are noted."""
        self.walk_state.markers.append([])
        del self.walk_state.earlier[len(self.walk_state.markers) - 1:]
        self.walk_state.earlier.append(tuple(ln.comment.value for ln in node.leading_lines if ln.comment is not None
                                   and ln.comment.value.startswith(MARKER_PREFIX)))

    def earlier_receiver(self, method: str) -> str | None:
        """``"Module"`` or ``"Tensor"`` when an earlier conversion marked ``<that>.<method>(...)``
        in the statement being converted (and not the other): the type it found for the receiver,
        which this conversion may no longer see (the training loop it learnt it from is
        rewritten). None otherwise."""
        texts = self.walk_state.earlier[len(self.walk_state.markers) - 1] if self.walk_state.markers else ()
        found = {kind for kind in ("Module", "Tensor") for text in texts
                 if re.match(rf"{re.escape(MARKER_PREFIX)}MS\d+ {kind}\.{re.escape(method)}:", text)}
        return found.pop() if len(found) == 1 else None

    def leave_stmt(self, old, new):
        """A statement ends: write above it the comments its rewrite lost, and its markers
        (once each)."""
        found = self.walk_state.markers.pop()
        new = keep_lost_comments(old, new)
        if not found:
            return new
        lines = list(new.leading_lines)
        have = {ln.comment.value for ln in lines if ln.comment is not None}
        for rule, reason in found:
            text = marker_text(rule, reason)
            if text not in have:
                have.add(text)
                lines.append(marker_line(rule, reason))
        return new.with_changes(leading_lines=lines)

    # statements
    def on_simple_line(self, node: cst.SimpleStatementLine):
        start = self.checkpoint() if self.facts.deep else None
        self._open(node)
        self.walk_state.after.append([])
        try:
            new = self._simple_line(node)
        finally:
            extra = self.walk_state.after.pop()
        if extra and isinstance(new, cst.SimpleStatementLine):
            self.output.reshaped = True
            # statements a rule needs right after this one (same indentation: same block)
            new = [new, *(parse_statement(text) for text in extra)]
        if start is not None and new is not node:
            return self._no_deeper(node, new, start)
        return new

    def _no_deeper(self, node: cst.SimpleStatementLine, new, start: Checkpoint):
        """``new`` (the rewrite of ``node``), unless it nests brackets deeper than ``node`` where
        that is deep already: 199 levels must not become 200, CPython's limit. Then ``node`` is
        kept as written, marked (MS920)."""
        before = bracket_depth(code_of(node))
        if before < DEEP_BRACKETS:
            return new
        after = max(bracket_depth(code_of(st)) for st in (new if isinstance(new, list) else [new]))
        if after <= before:
            return new
        self.rollback_to(start, keep_markers=False)
        self.keep_aliases_in(node)  # its torch names stay: so do their imports
        reason = (f"converting this statement would nest brackets {after} deep where it has {before} "
                  f"(CPython stops at 200); left as written: convert it by hand")
        self.output.changes.append(Change(self.walk_state.line, DEEP_MARKER, "unsupported", node, "", reason))
        if any(ln.comment is not None and ln.comment.value == marker_text(DEEP_MARKER, reason)
               for ln in node.leading_lines):
            return node
        return node.with_changes(leading_lines=[*node.leading_lines, marker_line(DEEP_MARKER, reason)])

    def _simple_line(self, node: cst.SimpleStatementLine):
        out = None
        for i, small in enumerate(node.body):
            self._next_statement()
            new = self._small(small)
            if new is not small:
                if out is None:
                    out = list(node.body[:i])
                if new is None:
                    continue
            if out is not None:
                out.append(new)
        if not self.nested:
            self.walk_state.import_lines[id(node)] = self.walk_state.line
        new_node = node
        if out is not None:
            if not out:
                self.walk_state.markers.pop()
                kept = removed(node)  # the line goes, its comments stay (on a `pass`)
                return kept[0] if kept else []
            out[-1] = out[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            new_node = node.with_changes(body=out)
        return self.leave_stmt(node, new_node)

    def on_suite(self, node: cst.SimpleStatementSuite):
        out = None
        for i, small in enumerate(node.body):
            self._next_statement()
            new = self._small(small) or LeftPass()
            if new is not small and out is None:
                out = list(node.body[:i])
            if out is not None:
                out.append(new)
        return node if out is None else node.with_changes(body=out)

    def _small(self, small):
        new = self._small_converted(small)
        if self.facts.aliased_writes and self.walk_state.line in self.facts.aliased_writes:
            self._mark_aliased_write(small, new)
        return new

    def _small_converted(self, small):
        if isinstance(small, (cst.Assign, cst.Expr)) and isinstance(small.value, cst.Call):
            small = inplace_layers.rebinding(self, small) or small
        if self.walk_state.pattern is not None and self.walk_state.stmt_index < len(self.facts.stmt_ends):
            i = self.walk_state.stmt_index
            first, last = self.facts.stmt_lines[i], self.facts.stmt_ends[i]
            text = self.facts.src_lines[first - 1] if first == last else "\n".join(self.facts.src_lines[first - 1:last])
            if self.walk_state.pattern.search(text) is None:
                if isinstance(small, cst.Assign):
                    track_assign(self, small)
                return small
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            # module-level imports are rewritten at the end, once uses are known
            return note_nested_import(self, small) if self.nested else small
        if isinstance(small, cst.Assign):
            data = inplace.data_assignment(self, small) or inplace.chain_assignment(self, small)
            if data is not None:
                return data
            new = handlers.on_assign(self, small)
            if self._left_self_assignment(small, new):
                return None
            return self._settled_none(small, _unpacked_pair(small, new))
        if isinstance(small, cst.Expr):
            new = inplace.subscript_statement(self, small) or self._assert_statement(small)
            if new is not None:
                return new
            self.walk_state.statement_call = small.value
        if isinstance(small, cst.AugAssign):
            if handlers.complex_part_target(self, small, [small.target]):
                return small
            new = inplace.data_statement(self, small)
            if new is not None:
                return new
        new = self.walk(small)
        if isinstance(small, cst.Expr) and new is not small and isinstance(small.value, cst.Call) \
                and (isinstance(new.value, cst.Name) and new.value.value == "None"
                     or dotted(new.value) and not (self.walk_state.markers and self.walk_state.markers[-1])):
            # a call that means nothing on the target (`torch.cuda.synchronize()`), or one that
            # became a plain read of its receiver (`model.cuda()` -> `model`)
            return None
        if isinstance(small, cst.Expr) and new is not small:
            return self._grad_free_update(small, self._owned_update(small, self._setattr_statement(small, new)))
        return new

    def _assert_statement(self, small: cst.Expr):
        """The statement ``torch._assert(cond, msg)`` as ``assert cond, msg`` (what torch's
        function runs; the tables' expression form is for where a value is needed), its parts
        converted; None for anything else."""
        call = small.value
        if not isinstance(call, cst.Call) or self.qual(call.func) != "torch._assert" or len(call.args) != 2 \
                or any(a.star for a in call.args):
            return None
        entry = self.facts.tables.get("torch._assert")
        args = {a.keyword.value if a.keyword else ("condition", "message")[i]: a.value for i, a in enumerate(call.args)}
        if entry is None or set(args) != {"condition", "message"} or not self.allows(entry_id(entry)):
            return None
        new = self.walk(cst.Assert(test=_enclosed(args["condition"]), msg=_enclosed(args["message"])))
        self.record(small, new, entry_id(entry), "exact", "an assert statement, as torch._assert runs")
        return new

    def _mark_aliased_write(self, small, new) -> None:
        """Mark (MS907) an in-place write a named view of the tensor would see in torch, and not
        in MindSpore (:mod:`migrate.convert.view_alias`), once per line: where the conversion
        rewrote the write (``t.mul_(2)``) or knows the name holds a tensor (``t += 1``; a NumPy
        array's views stay views)."""
        line = self.walk_state.line
        name, viewed_tensor, reasons = self.facts.aliased_writes[line]
        reason = reasons.get(self.facts.target_name)
        if reason is None or line in self.walk_state.view_marked or not self.allows(VIEW_ALIAS) \
                or new is small and not viewed_tensor and not is_tensor(self, cst.Name(name)):
            return
        self.walk_state.view_marked.add(line)
        self.mark(small, VIEW_ALIAS, reason)

    def _owned_update(self, old: cst.Expr, new):
        """The statement ``t.add_(1)``, converted to ``t.copy_(t.copy().add(1))``, as the rebinding
        ``t = t.add(1)`` where the function owns ``t`` (no alias can see the update: see
        :mod:`migrate.convert.owned`); ``new`` itself otherwise."""
        call = new.value if isinstance(new, cst.Expr) else None
        scope = self.scope
        if scope is None or not scope.owned or not isinstance(call, cst.Call) or len(call.args) != 1 \
                or not isinstance(call.func, cst.Attribute) or call.func.attr.value != "copy_" \
                or not isinstance(call.func.value, cst.Name) or call.func.value.value not in scope.owned:
            return new
        name = call.func.value.value
        copies = _copies_of(call.args[0].value, name)
        if len(copies) != 1 or f"{name}.copy_(" in code_of(call.args[0].value) or \
                not isinstance(old.value, cst.Call) or code_of(old.value).startswith(f"{name}.copy_("):
            return new  # (a chain that reads t keeps its writes; a copy_ the user wrote stays)
        value = call.args[0].value.visit(_Uncopied(name))
        return cst.Assign([cst.AssignTarget(cst.Name(name))], value, semicolon=new.semicolon)

    def _grad_free_update(self, old: cst.Expr, new):
        """The statement ``t.add_(1)``, converted to ``t.copy_(t.copy().add(1))``, as
        ``t.copy_(t.add(1))`` where grad mode is off (``@torch.no_grad()`` optimizer steps, EMA
        updates): the copy keeps the value an op saved for its backward from the write, and
        there nothing is saved. ``new`` itself elsewhere, and for a ``copy_`` the user wrote."""
        scope = self.scope
        call = new.value if isinstance(new, cst.Expr) else None
        if scope is None or not scope.grad_off or not isinstance(call, cst.Call) or len(call.args) != 1 \
                or call.args[0].keyword is not None or not isinstance(call.func, cst.Attribute) \
                or call.func.attr.value != "copy_" or not inplace.inplace_method_call(old.value) \
                or old.value.func.attr.value == "copy_":
            return new
        root = code_of(call.func.value)
        value = call.args[0].value
        if len(_copies_of(value, root)) != 1 or f"{root}.copy_(" in code_of(value):
            return new  # (a chain that reads t keeps its writes)
        return new.with_changes(value=call.with_changes(args=[call.args[0].with_changes(
            value=value.visit(_Uncopied(root)))]))

    def _setattr_statement(self, old: cst.Expr, new):
        """A statement a rewrite made ``setattr(obj, 'name', value)`` (``self.register_buffer('pe',
        pe)``) as the assignment it is: ``obj.name = value``; ``new`` itself for any other
        statement, a name that is no identifier or one Python would mangle (``__x``), or a
        ``setattr`` the user wrote."""
        call = new.value if isinstance(new, cst.Expr) else None
        if not isinstance(call, cst.Call) or len(call.args) != 3 or any(a.keyword or a.star for a in call.args) \
                or code_of(call.func) != self.builtin("setattr") \
                or isinstance(old.value, cst.Call) and code_of(old.value.func) == code_of(call.func):
            return new
        name = call.args[1].value
        text = name.evaluated_value if isinstance(name, cst.SimpleString) else None
        if not isinstance(text, str) or not text.isidentifier() or keyword.iskeyword(text) \
                or text.startswith("__") and not text.endswith("__"):
            return new
        return cst.Assign([cst.AssignTarget(attribute(call.args[0].value, text))], call.args[2].value,
                          semicolon=new.semicolon)

    def _settled_none(self, old: cst.Assign, new):
        """``new`` marked a :class:`SettledNone` when the conversion made a function's ``name =
        <value>`` into ``name = None`` (``device = x.device``) without a marker: the function drops
        it if it never reads the name (:mod:`migrate.convert.tidy`)."""
        if new is old or not isinstance(new, cst.Assign) or len(new.targets) != 1 \
                or not isinstance(new.targets[0].target, cst.Name) or not _is_none(new.value) \
                or _is_none(old.value) or self.in_class_body or self.scope is None \
                or self.scope.local_names is None or (self.walk_state.markers and self.walk_state.markers[-1]):
            return new
        self.scope.settled = True
        return SettledNone(targets=new.targets, value=new.value, semicolon=new.semicolon)

    def _left_self_assignment(self, old: cst.Assign, new) -> bool:
        """``new`` is what a rewrite left of ``old`` that does nothing: ``x = x`` of ``x =
        x.to(device)``, ``x, y = x, y`` of ``x, y = x.cuda(), y.cuda()``. It goes, unless it
        carries a marker or stands in a class body (where ``x = x`` copies an outer name)."""
        if new is old or not isinstance(new, cst.Assign) or self.in_class_body \
                or (self.walk_state.markers and self.walk_state.markers[-1]):
            return False
        return all(is_same_names(t.target, new.value) for t in new.targets)

    def on_block(self, node: cst.IndentedBlock):
        body = self._walk_body(node.body)
        if body is node.body:
            return node
        body, left = fold_removed(list(body))
        if left:
            node = node.with_changes(footer=[*left, *node.footer])
        if not body:
            body = [left_pass()]
        elif body[0] is not node.body[0] and body[0].leading_lines and not node.body[0].leading_lines \
                and all(ln.comment is None for ln in body[0].leading_lines):
            # the block's first statements went (`x = x`): no blank line opens the block
            body = [body[0].with_changes(leading_lines=[]), *body[1:]]
        return node.with_changes(body=body)

    def on_compound(self, node):
        self.enter_stmt(node)
        return self.leave_stmt(node, self.generic(node))

    def on_if(self, node: cst.If):
        if id(node) in self.facts.generated and not self.nested:
            self.walk_state.stmt_index += 1 + count_statements(node.body)  # kept as written (see convert)
            return node
        self.enter_stmt(node)
        new = handlers.on_if(self, node)
        test = fold_truth(node.test, new.test) if isinstance(new, cst.If) else None
        if test is not None and test is not new.test:  # `if not False or not use_flash:` -> `if True:`
            new = new.with_changes(test=test)
        if new is not node and not self.walk_state.markers[-1]:
            taken = _branch_taken(node, new)
            if taken is not None:  # `if torch.cuda.is_available():` -> `if False:`: the branch that runs
                self.walk_state.markers.pop()
                self.output.reshaped = True
                return taken
            if _emptied(node, new):
                # `if torch.cuda.is_available(): model = model.cuda()` -> `if False: pass`: it goes
                self.walk_state.markers.pop()
                return removed(node)  # (its comments stay, those inside the removed calls too)
        if not self.walk_state.markers[-1] and left_if(new, self.facts.shadowed):
            # `if isinstance(k, torch.Tensor): k = k.cpu()` -> `if isinstance(k, ms.Tensor): pass`
            self.walk_state.markers.pop()
            return removed(new)
        block = None if self.walk_state.markers[-1] else same_blocks(node, new, self.facts.shadowed)
        if block is not None:  # `if use_accel: device = None else: device = None` -> `device = None`
            self.walk_state.markers.pop()
            self.output.reshaped = True
            return _statements_of(block, _comments_above(new, block))
        return self.leave_stmt(node, new)

    def on_for(self, node: cst.For):
        if id(node) in self.facts.generated and not self.nested:
            self.walk_state.stmt_index += 1 + count_statements(node.body)  # kept as written (see convert)
            return node
        self.enter_stmt(node)
        new = handlers.on_for(self, node)
        if new is not node and not self.walk_state.markers[-1] and left_loop(node, new, self.facts.shadowed) \
                and self.scope is not None and self.scope.local_names is not None:
            # `for k in w.keys(): w[k] = w[k].cpu()` -> `for k in w.keys(): pass`: gone if the function
            # reads k nowhere else (see migrate.convert.tidy)
            self.scope.settled = True
            new = LeftLoop(**{f.name: getattr(new, f.name) for f in dataclasses.fields(new)})
        return self.leave_stmt(node, new)

    def on_ifexp(self, node: cst.IfExp):
        """``a if torch.cuda.is_available() else b``: where the conversion makes the test a constant,
        the branch taken alone (the other is never evaluated); where it makes both branches the
        same (``x.cuda() if gpu else x``, ``checkpoint(blk, x) if ckpt else blk(x)``), that branch
        alone when the test only reads."""
        markers = self.walk_state.markers[-1] if self.walk_state.markers else []
        marked = len(markers)
        test = fold_truth(node.test, self.walk(node.test))
        test_marked = len(markers) > marked  # (a marked test stays, with its marker)
        value = constant(test) if test is not node.test and constant(node.test) is None else None
        if value is not None:
            return self.walk(node.body if value else node.orelse)
        body, orelse = self.walk(node.body), self.walk(node.orelse)
        if test is node.test and body is node.body and orelse is node.orelse:
            return node
        if not test_marked and same_branches(node, body, orelse) and reads_only(test, self.facts.shadowed):
            return body if "\n" not in code_of(body) else keep_parens(node, body)  # (`(x)`: x)
        return node.with_changes(test=test, body=body, orelse=orelse)

    def on_while(self, node: cst.While):
        self.enter_stmt(node)
        new = self.generic(node)
        test = fold_truth(node.test, new.test)
        if test is not new.test:
            new = new.with_changes(test=test)
        return self.leave_stmt(node, new)

    def on_comp_if(self, node: cst.CompIf):
        new = self.generic(node)
        test = fold_truth(node.test, new.test)
        return new if test is new.test else new.with_changes(test=test)

    def on_boolean_operation(self, node: cst.BooleanOperation):
        """``True and x`` -> ``x``, ``False or x`` -> ``x``, ... where the conversion made the left
        operand a constant (a probe answered); see :mod:`migrate.convert.folding`."""
        left = self.walk(node.left)
        right = self.walk(node.right)
        folded = fold_boolean(node, left, right)
        if folded is not None:
            return folded
        if left is node.left and right is node.right:
            return node
        return node.with_changes(left=fit(node, "left", left), right=fit(node, "right", right))

    def on_unary_operation(self, node: cst.UnaryOperation):
        operand = self.walk(node.expression)
        if isinstance(node.operator, cst.Not):  # `not (a or False)`: only the operand's truth counts
            operand = unwrapped_after_not(node, fold_truth(node.expression, operand))
        folded = fold_not(node, operand)
        if folded is not None:
            return folded  # `not torch.cuda.is_available()` -> `True`
        return node if operand is node.expression else node.with_changes(
            expression=fit(node, "expression", operand))

    def on_with(self, node: cst.With):
        self.enter_stmt(node)
        new = handlers.on_with(self, node)
        if isinstance(new, list):  # the block goes, its statements stay (`with torch.no_grad():`)
            self.walk_state.markers.pop()
            lost = lost_comment_lines(node, new, nested=True)
            if lost and new:
                return [new[0].with_changes(leading_lines=[*new[0].leading_lines, *lost]), *new[1:]]
            return [cst.SimpleStatementLine([LeftPass()], leading_lines=lost)] if lost else new
        return self.leave_stmt(node, new)

    # expressions
    def on_assign_target(self, node):
        """An assignment's (or del's) target: attribute rewrites that read at run time
        (``TorchLayerAttrs``) do not apply where the attribute is written."""
        if isinstance(node, cst.Del):
            handlers.removed_parameter(self, node)
        storing, self.walk_state.storing = self.walk_state.storing, True
        try:
            return self.generic(node)
        finally:
            self.walk_state.storing = storing

    def on_aug_assign(self, node: cst.AugAssign):
        """``c.padding += 1``: the target is written (see :meth:`on_assign_target`), the value read."""
        storing, self.walk_state.storing = self.walk_state.storing, True
        try:
            target = self.walk(node.target)
        finally:
            self.walk_state.storing = storing
        value = self.walk(node.value)
        shifted = shifts.tensor_shift_assign(self, node, target, value)
        if shifted is not None:
            return shifted
        if target is node.target and value is node.value:
            return node
        return node.with_changes(target=target, value=value)

    def on_name(self, node: cst.Name):
        if node.value in self.walk_state.aliases:
            return keep_parens(node, handlers.on_reference(self, node, self.walk_state.aliases[node.value]))
        return node

    def on_attribute(self, node: cst.Attribute):
        q = self.qual(node)
        if q is not None:
            return keep_parens(node, handlers.on_reference(self, node, q))
        return keep_parens(node, handlers.on_plain_attribute(self, node))

    def on_call(self, node: cst.Call):
        return keep_parens(node, handlers.on_call(self, node))

    def on_fstring(self, node: cst.FormattedString):
        """Each expression of an f-string converted as any other, then fitted to the quotes of
        the f-strings around it (:mod:`migrate.convert.fstrings`), or left as written."""
        outer = self.walk_state.fstring_quotes
        self.walk_state.fstring_quotes = outer | {fstrings.quote_of(node)}
        try:
            parts = [self._fstring_part(p) if isinstance(p, cst.FormattedStringExpression) else p
                     for p in node.parts]
        finally:
            self.walk_state.fstring_quotes = outer
        if all(a is b for a, b in zip(parts, node.parts)):
            return node
        return node.with_changes(parts=parts)

    def _fstring_part(self, part: cst.FormattedStringExpression):
        mark = self.checkpoint()
        new = self.generic(part)  # the expression, and those of its format spec
        if new is part:
            return part
        fitted = fstrings.fit(new, self.walk_state.fstring_quotes)
        if fitted is not None:
            return fitted
        self.rollback_to(mark, keep_markers=False)
        self.keep_aliases_in(part)  # its torch names stay: so do their imports
        self.mark(part.expression, fstrings.FSTRING_MARKER,
                  f"{short(code_of(part.expression), 60)} inside an f-string: its conversion needs the "
                  f"f-string's quotes or a backslash (Python < 3.12); convert it by hand")
        return part

    def on_lambda(self, node: cst.Lambda):
        return node.with_changes(body=self.walk(node.body))

    def on_annotation(self, node: cst.Annotation):
        saved, self.walk_state.in_annotation = self.walk_state.in_annotation, True
        try:
            with self.naming_classes():  # `m: nn.Conv2d` names the class (a torch-signature one is a subclass)
                return on_annotation(self, node)
        finally:
            self.walk_state.in_annotation = saved

    def on_binary_operation(self, node: cst.BinaryOperation):
        if isinstance(node.operator, (cst.RightShift, cst.LeftShift)):
            return shifts.tensor_shift(self, node, self.generic(node))
        return complex_arith.complex_arithmetic(self, node, self.generic(node))

    def on_comparison(self, node: cst.Comparison):
        if self.walk_state.aliases:
            new = probe_comparison(self, node)  # 'silu' in dir(F), torch.__version__ < '1.5'
            if new is not None:
                return keep_parens(node, new)
        if _compares_types(node):
            with self.naming_classes():  # `type(m) is nn.Conv2d`: the class itself
                return self.generic(node)
        new = self.generic(node)
        return fold_identity(node, new) or new

    def on_subscript(self, node: cst.Subscript):
        if self.walk_state.aliases:
            new = final_annotation(self, node)
            if new is not None:
                return keep_parens(node, new)
        new = self.generic(node)
        trimmed = without_trailing_slices(self, new) if isinstance(new, cst.Subscript) else None
        if trimmed is not None:
            return trimmed
        # `attn(q, k, v, need_weights=False)[0]` -> `(attn(...)[0], None)[0]`: the element itself
        item = _literal_index(new) if isinstance(node.value, cst.Call) and new is not node else None
        return keep_parens(node, item) if item is not None else new


def _statement_handler(handle):
    """A handler for a compound statement: its line and markers around ``handle(converter, node)``."""
    def on_statement(converter, node):
        if id(node) in converter.facts.generated and not converter.nested:
            converter.walk_state.stmt_index += 1 + count_statements(node.body)  # kept as written (see convert)
            return node
        converter.enter_stmt(node)
        return converter.leave_stmt(node, handle(converter, node))
    return on_statement


def _copies_of(node, name: str) -> list:
    """The ``name.copy()`` calls inside ``node``."""
    found = []

    class Copies(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            if _is_copy_of(n, name):
                found.append(n)
    node.visit(Copies())
    return found


def _is_copy_of(node, name: str) -> bool:
    """``node`` is ``<name>.copy()``, ``name`` the code of the tensor (``t``, ``p.data``, ``st["m"]``)."""
    return isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value == "copy" and code_of(node.func.value) == name


class _Uncopied(cst.CSTTransformer):
    """``name.copy()`` -> ``name``: the copy protected the tensor an update writes into."""

    def __init__(self, name: str):
        self.name = name

    def leave_Call(self, original, updated):
        return updated.func.value if _is_copy_of(updated, self.name) else updated


def _target_nn_names(body, target: str) -> frozenset:
    """The local names the module-level imports bind to the target's ``nn`` (``from ms_core import
    nn as ms_nn``; ``import mindspore.nn as nn``): converted code names its layers through them."""
    names = set()
    for line in body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and dotted(small.module) == target \
                    and not isinstance(small.names, cst.ImportStar):
                names.update((a.asname.name.value if a.asname else "nn") for a in small.names
                             if dotted(a.name) == "nn" and (a.asname is None or isinstance(a.asname.name, cst.Name)))
            elif isinstance(small, cst.Import):
                names.update(a.asname.name.value for a in small.names
                             if dotted(a.name) == f"{target}.nn" and a.asname and isinstance(a.asname.name, cst.Name))
    return frozenset(names)


def _runtime_layer_names(body) -> dict:
    """{local name: torch layer} for the runtime's torch-signature layers a module-level import of the
    runtime binds (``from .migrate_runtime import TorchBatchNorm2d``: ``torch.nn.BatchNorm2d``): a
    converted file's class deriving from one keeps torch's attributes, as its torch original did."""
    layers = load_attributes()
    found = {}
    for line in body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and is_runtime_module(small) \
                    and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    name = dotted(alias.name) or ""
                    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) \
                        else name
                    if name.startswith("Torch") and f"torch.nn.{name[5:]}" in layers:
                        found[local] = f"torch.nn.{name[5:]}"
    return found


def _aliased_writes(code: str) -> dict:
    """:func:`~migrate.convert.view_alias.aliased_writes` of ``code`` (none where CPython cannot
    parse it: deep input is converted without this check)."""
    try:
        return aliased_writes(python_ast(code))
    except (SyntaxError, ValueError, RecursionError):
        return {}


def _literal_index(node: cst.Subscript):
    """The element ``(a, None)[0]`` reads of a tuple the conversion wrote, when the others are
    literals (nothing is lost by not building them); None otherwise."""
    value = node.value
    if not isinstance(value, cst.Tuple) or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) \
            or not isinstance(node.slice[0].slice.value, cst.Integer) \
            or any(not isinstance(e, cst.Element) for e in value.elements):
        return None
    i = int(node.slice[0].slice.value.value, 0)
    if i >= len(value.elements) or any(j != i and code_of(e.value) not in ("None", "True", "False")
                                       for j, e in enumerate(value.elements)):
        return None
    return value.elements[i].value


def _unpacked_pair(old: cst.Assign, new):
    """``out, _ = (attn(...)[0], None)``, where a rule made a call's value a tuple, written plainly:
    ``out = attn(...)[0]`` (a ``None`` for ``_`` is not bound), or ``out, w = attn(...)[0], None``;
    ``new`` itself for anything else (an assignment of a tuple the user wrote among them)."""
    if not isinstance(new, cst.Assign) or new is old or len(new.targets) != 1 or not isinstance(old.value, cst.Call):
        return new
    target, value = new.targets[0].target, new.value
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, cst.Tuple) \
            or len(target.elements) != len(value.elements) \
            or any(not isinstance(e, cst.Element) for e in (*target.elements, *value.elements)):
        return new
    pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)
             if not (isinstance(t.value, cst.Name) and t.value.value == "_" and code_of(v.value) == "None")]
    if len(pairs) == 1:
        return new.with_changes(targets=[new.targets[0].with_changes(target=pairs[0][0])], value=pairs[0][1])
    return new.with_changes(value=value.with_changes(lpar=[], rpar=[])) if value.lpar else new


def _enclosed(node):
    """``node`` in parentheses when its text spans lines: a call's argument may continue over lines
    inside the call's brackets; in an ``assert`` statement it needs brackets of its own."""
    if "\n" in code_of(node) and not getattr(node, "lpar", None):
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def _statements_of(block, lead) -> list:
    """The statements of a block, to stand where its compound statement was (``lead``: the lines
    above that statement and its header's comment, put above the first)."""
    stmts = [cst.SimpleStatementLine(list(block.body))] if isinstance(block, cst.SimpleStatementSuite) \
        else list(block.body)
    header = block.header.comment if isinstance(block, cst.IndentedBlock) else None
    lead = [*lead, *([cst.EmptyLine(comment=header)] if header is not None else [])]
    if not stmts:
        return [cst.SimpleStatementLine([RemovedPass()], leading_lines=lead)] if lead else []
    return [stmts[0].with_changes(leading_lines=[*lead, *stmts[0].leading_lines]), *stmts[1:]]


def _branch_taken(old: cst.If, new) -> list | None:
    """The statements that run of ``new``, the conversion of ``old``, whose test the conversion made
    a constant (a probe answered: ``torch.cuda.is_available()`` -> ``False``): the body for True,
    the ``else`` part for False (an ``elif`` stays an ``if``), nothing without one. None when the
    test is not such a constant. The markers of the branch that goes go with it: they are about
    code that never runs on the target (``torch.version.cuda`` under ``torch.cuda.is_available()``);
    a test the conversion answers otherwise than torch carries its own marker and is not folded."""
    value = constant(new.test) if isinstance(new, cst.If) and constant(old.test) is None else None
    if value is None:
        return None
    gone = new.orelse if value else new.body
    # the comments of the branch that goes stay, above the statements that run
    lead = [*new.leading_lines, *(_user_comment_lines(gone) if gone is not None else [])]
    if value:
        return _statements_of(new.body, lead)
    if new.orelse is None:
        return _statements_of(cst.IndentedBlock(body=[]), lead)
    lead = [*lead, *new.orelse.leading_lines]   # the comments above `else:` / `elif`
    if isinstance(new.orelse, cst.If):
        return [new.orelse.with_changes(leading_lines=lead)]
    return _statements_of(new.orelse.body, lead)


def _comments_above(chain: cst.If, kept_block) -> list:
    """The lines above the ``if`` statement ``chain``, then the comments above its ``elif``/``else``
    and those of its blocks other than ``kept_block`` (their code goes, what the user wrote about
    it stays)."""
    lead, node = list(chain.leading_lines), chain
    while node is not None:
        if node is not chain:
            lead += [ln for ln in node.leading_lines if ln.comment is not None]
        if node.body is not kept_block:
            lead += _user_comment_lines(node.body)
        node = node.orelse if isinstance(node, cst.If) else None
    return lead


def _user_comment_lines(gone) -> list:
    """The comments of code that goes (nested ones too), as lines to keep above what stays; the
    conversion's own markers go with the code they were about."""
    return [cst.EmptyLine(comment=cst.Comment(c)) for c in own_comments(gone, nested=True)
            if not c.startswith(MARKER_PREFIX)]


def _only_pass(block) -> bool:
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else ()
    return bool(body) and all(isinstance(st, cst.Pass) or isinstance(st, cst.SimpleStatementLine)
                              and all(isinstance(s, cst.Pass) for s in st.body) for st in body)


def _emptied(old: cst.If, new) -> bool:
    """``new`` (the conversion of ``old``) is an ``if`` with no ``else`` whose body the conversion
    left as a ``pass`` and whose test only reads: it does nothing."""
    return isinstance(new, cst.If) and new.orelse is None and _only_pass(new.body) and not _only_pass(old.body) \
        and plain(new.test)


def _unchanged(converter, node):
    return node


def _compares_types(node: cst.Comparison) -> bool:
    """``type(x) == ...`` / ``x.__class__ is ...``: a comparison of classes of instances."""
    for part in (node.left, *(c.comparator for c in node.comparisons)):
        if isinstance(part, cst.Call) and isinstance(part.func, cst.Name) and part.func.value == "type":
            return True
        if isinstance(part, cst.Attribute) and part.attr.value == "__class__":
            return True
    return False


def _syntax_error(code: str, exc: cst.ParserSyntaxError) -> str:
    """Python's own message and line (libcst's are less precise), else libcst's."""
    try:
        ast.parse(code)
    except SyntaxError as err:
        return f"syntax error at line {err.lineno}: {err.msg}"
    return f"syntax error at line {exc.raw_line}: {exc.message}"


DEEP_MARKER = "MS920"

_HANDLERS = {
    cst.SimpleStatementLine: Converter.on_simple_line,
    cst.SimpleStatementSuite: Converter.on_suite,
    cst.IndentedBlock: Converter.on_block,
    cst.ClassDef: _statement_handler(handlers.on_class),
    cst.FunctionDef: _statement_handler(handlers.on_function),
    cst.With: Converter.on_with,
    cst.For: Converter.on_for,
    cst.If: Converter.on_if,
    cst.While: Converter.on_while,
    cst.CompIf: Converter.on_comp_if,
    cst.BooleanOperation: Converter.on_boolean_operation,
    cst.UnaryOperation: Converter.on_unary_operation,
    cst.BinaryOperation: Converter.on_binary_operation,
    cst.Try: Converter.on_compound,
    cst.TryStar: Converter.on_compound,
    cst.Name: Converter.on_name,
    cst.AssignTarget: Converter.on_assign_target,
    cst.Del: Converter.on_assign_target,
    cst.AugAssign: Converter.on_aug_assign,
    cst.Attribute: Converter.on_attribute,
    cst.Call: Converter.on_call,
    cst.Lambda: Converter.on_lambda,
    cst.IfExp: Converter.on_ifexp,
    cst.FormattedString: Converter.on_fstring,
    cst.Subscript: Converter.on_subscript,
    cst.Comparison: Converter.on_comparison,
    cst.Annotation: Converter.on_annotation,
    # leaves and whitespace: nothing inside to convert
    cst.SimpleString: _unchanged,
    cst.Integer: _unchanged,
    cst.Float: _unchanged,
    cst.Pass: _unchanged,
    cst.Newline: _unchanged,
    cst.EmptyLine: _unchanged,
}


def convert_source(code: str, target: str = "ms_core", select=(), disable=(), inherited=None,
                   named_modules=frozenset(), runtime: str = RUNTIME_NAME, own=frozenset(),
                   module_bases=frozenset(), validate: bool = True) -> ConvertResult:
    """Convert PyTorch source text to ms_core (or MindSpore) source text.

    Args:
        code: Python source that uses torch.
        target: ``"ms_core"`` (default) or ``"mindspore"``.
        select: rule IDs or ID prefixes to apply (``["MS1", "MS205"]``); empty: all.
        disable: rule IDs or ID prefixes not to apply (``["MS212"]``).
        inherited: torch aliases the code gets from another module by ``import *``
            (``{"nn": "torch.nn"}``: what a directory run finds, see
            :func:`migrate.convert.star_imports.package_exports`).
        named_modules: modules of the packages the conversion replaces (einops) that the code's
            package names in strings (:func:`migrate.convert.einops_calls.named_modules`):
            importlib.import_module / __import__ of a name known at run time answers them with
            generated code.
        runtime: the module the converted code imports the runtime's names from (what
            ``from <runtime> import TorchConv2d`` says: ``migrate_runtime``, ``.migrate_runtime``,
            ``..migrate_runtime``; :func:`migrate.convert.runtime_files.write_runtime` writes
            it), or ``""`` to write their definitions into the code itself, between BEGIN/END
            marker comments (a file that must stand alone: ``migrate convert model.py``).
        own: top-level packages converted in the same run (``{"torchvision"}`` when converting
            torchvision's own code, or a package together with the torch library it imports):
            their names are the code's own, imported from the converted copy, never translated or
            marked as torch's (a directory run passes them; see
            :data:`migrate.convert.star_imports.OWN_PACKAGES`).
        module_bases: base expressions of the code's classes that name module classes defined in
            other files of its package (:func:`migrate.convert.package_classes.package_module_bases`):
            those classes are Cells, though the file imports nothing of torch's.
        validate: parse the output once more when statements were reshaped, and return the input
            with ``error`` set if it is not valid Python; False for a caller that compiles the
            output itself (:func:`migrate.convert.guarded.convert_text`).

    Returns:
        A :class:`ConvertResult` with ``.code``, ``.changes`` and ``.runtime`` (the names it
        takes from the runtime); ``.error`` is set (and
        ``.code`` is the input) when the source does not parse.

    Raises:
        ValueError: for an unknown target or a malformed rule ID.

    Example:
        >>> convert_source("import torch.nn as nn\\nfc = nn.Linear(4, 2, bias=False)\\n").code.splitlines()[-1]
        'fc = nn.Dense(4, 2, has_bias=False, weight_init=HeUniform(negative_slope=math.sqrt(5)))'
    """
    rules = RuleSelection.parse(select, disable) if (select or disable) else EVERYTHING
    head, tail = split_comment_tail(code)
    token = OWN_PACKAGES.set(frozenset(own)) if own else None  # else the run's (a worker sets it)
    bases = MODULE_BASES.set(frozenset(module_bases)) if module_bases else None
    # A conversion allocates containers by the hundred thousand (two syntax trees, the walk's
    # state) of which few form cycles: the cyclic collector, run every 700 allocations, spent a
    # third of the time traversing them. It is off for the conversion of one text; the cycles
    # left (a few thousand objects a file) are collected as usual afterwards.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        result = Converter(target, validate, rules=rules, inherited=inherited, named_modules=named_modules,
                           runtime=runtime).convert(head)
    finally:
        if collecting:
            gc.enable()
        if bases is not None:
            MODULE_BASES.reset(bases)
        if token is not None:
            OWN_PACKAGES.reset(token)
    if tail:  # comment lines ending the file, which libcst would drop: put back as written
        if result.code and not result.code.endswith(("\n", "\r")):
            result.code += head[len(head.rstrip("\r\n")):]
        result.code += tail
    return result
