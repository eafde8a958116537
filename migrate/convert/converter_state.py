"""What a :class:`~migrate.convert.walker.Converter` knows, split by how long it lives.

- :class:`FileFacts`: what the options and the passes before the walk (the import scan, the
  statement spans, the training pass) find about the file. Computed once, then frozen: the walk
  reads them and cannot change them.
- :class:`WalkState`: where the walk is and what it has learnt so far (scopes, the statement being
  converted and its markers, the torch aliases in force, classes and names seen).
- :class:`Output`: what the converted file is being given (the change log, the target modules
  and names it imports, the generated code it needs, whether statements were reshaped).

Code that converts reads them through the converter (``converter.facts.tables``,
``converter.walk_state.line``, ``converter.output.used``); the operations that combine them
(``record``, ``mark``, ``target``, ``qual``...) are methods of the converter.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from migrate.convert.changes import Change
from migrate.convert.registry import RuleSelection
from migrate.convert.scopes import ClassScope, FunctionScope


@dataclass(eq=False)
class FileFacts:
    """Facts about the file: the options, then what the passes before the walk find.

    :meth:`freeze` ends the passes: from then on no attribute can be set and the containers are
    read-only (tuples, frozensets, mapping proxies).
    """

    target_name: str            # "ms_core" or "mindspore"
    pkg: str                    # the package the output imports
    validate: bool              # parse the output once more when statements were reshaped
    rules: RuleSelection        # which rewrites run
    names: Any                  # local names for the target modules: {"ms": "ms", "nn": "nn", ...}
    shadowed: frozenset         # builtins generated code writes as _builtins.name
    renamed: bool               # a second conversion, with other local names
    tables: dict                # the mapping tables (shared, loaded once per process)
    inherited: Any              # aliases a sibling module gives (`import *`, or by name)
    named_modules: frozenset    # einops modules the file's package names in strings
    runtime: str                # the module the file imports the runtime from ("" : inlined)
    aliases: Any = field(default_factory=dict)  # local name -> torch name, as the imports give them
    imported: Any = field(default_factory=set)  # every name bound by a module-level import
    inherited_by_name: Any = field(default_factory=set)  # inherited ones imported by name
    star_aliases: Any = field(default_factory=dict)  # aliases from `from torch.nn import *` ...
    star_modules: Any = field(default_factory=list)  # the torch modules star-imported
    may_rebind: Any = field(default_factory=set)  # torch aliases user code may bind too (a superset)
    stmt_lines: Any = field(default_factory=list)  # first line of every statement, in walk order
    stmt_ends: Any = field(default_factory=list)   # last line of every statement of the input
    top_starts: Any = ()        # where the input's statements start (verbatim.Starts)
    src_lines: Any = field(default_factory=list)   # the input's lines (for the text filter)
    generated: Any = field(default_factory=set)    # ids of statements an earlier conversion generated
    training: Any = None        # the training pass's FileBindings, when it looked at this file
    training_tensors: Any = field(default_factory=set)  # names the training pass found to hold tensors
    deep: bool = False          # brackets nest DEEP_BRACKETS deep somewhere: no statement may get deeper
    aliased_writes: Any = field(default_factory=dict)  # line -> why its in-place write misses a named view
    plain_forwards: bool = False  # a class here that is not a module defines forward (x.forward(...) may be its)
    target_nn: Any = frozenset()  # local names a module-level import binds to the target's nn (a converted file)
    runtime_layers: Any = field(default_factory=dict)  # a runtime class imported here -> the torch layer it is
    recompute: Any = None  # rules.recompute.Recompute: checkpoint/reversible Functions and their blocks
    frozen: bool = False

    def freeze(self) -> None:
        """The passes before the walk are over: make every fact read-only."""
        for name, value in vars(self).items():
            if isinstance(value, (set, frozenset)):
                object.__setattr__(self, name, frozenset(value))
            elif isinstance(value, list):
                object.__setattr__(self, name, tuple(value))
            elif isinstance(value, dict) and name != "tables":
                object.__setattr__(self, name, MappingProxyType(value))
        object.__setattr__(self, "frozen", True)

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("frozen"):
            raise AttributeError(f"FileFacts.{name} is read-only: facts are set by the passes "
                                 f"before the walk (set it in walk_state or output instead)")
        object.__setattr__(self, name, value)


@dataclass(eq=False)
class WalkState:
    """Where the walk is, and what it has learnt about the file so far."""

    # torch aliases in force (a local rebinding and an import inside a function change them)
    aliases: dict = field(default_factory=dict)
    classes: list[ClassScope] = field(default_factory=list)       # the classes being walked
    class_depths: list[int] = field(default_factory=list)  # len(functions) where each class was entered
    functions: list[FunctionScope] = field(default_factory=list)  # the functions (the module first)
    markers: list[list[tuple[str, str]]] = field(default_factory=list)  # per open statement: markers to write
    # per open statement: markers an earlier conversion wrote
    earlier: list[tuple[str, ...]] = field(default_factory=list)
    after: list[list[str]] = field(default_factory=list)  # per simple statement: statements to add after it
    line: int = 0                # the input line changes are recorded at
    stmt_index: int = -1         # the statement being converted (index into facts.stmt_lines)
    pattern: Any = None          # set when uninteresting simple statements may be skipped
    freeze_line: bool = False    # inside code rewritten before its walk: report one line
    storing: bool = False        # walking an assignment's target
    in_isinstance: bool = False  # inside isinstance(x, ...) / issubclass: classes are named, not built
    in_annotation: bool = False  # inside an annotation: a class stands for itself, never for a tuple of classes
    fstring_quotes: frozenset = frozenset()  # the quotes of the f-strings being walked (their expressions avoid them)
    statement_call: Any = None   # the call an expression statement consists of (as written)
    tensor_memo: dict = field(default_factory=dict)  # node -> is_tensor's answer, for the current statement
    import_lines: dict[int, int] = field(default_factory=dict)  # id(module-level line) -> its input line
    nested_imports: dict[int, dict[str, int]] = field(default_factory=dict)  # id(import) -> alias uses when seen
    cell_classes: set[str] = field(default_factory=set)        # classes here that derive from nn.Module
    sequential_classes: set[str] = field(default_factory=set)  # classes here that derive from nn.Sequential
    function_classes: set[str] = field(default_factory=set)    # autograd.Function subclasses turned into Cells
    class_attrs: dict[str, dict[str, str]] = field(default_factory=dict)  # class -> self.<attr> -> layer class
    module_names: set[str] = field(default_factory=set)  # names bound to modules (Cells)
    layer_bases: dict[str, str] = field(default_factory=dict)  # classes here deriving from a torch layer -> it
    view_marked: set[int] = field(default_factory=set)  # lines marked for a write a named view misses
    # walking the arguments of a torch optimizer's constructor: module.parameters() there means
    # the parameters the optimizer can update (see rules/module.py's parameters)
    optimizer_args: bool = False


@dataclass(eq=False)
class Output:
    """What the converted file is being given."""

    changes: list[Change] = field(default_factory=list)  # every torch site: rewritten or marked
    used: set[str] = field(default_factory=set)        # target prefixes used: ms, nn, ops, math, np
    init_names: set[str] = field(default_factory=set)  # names imported from <pkg>.common.initializer
    alias_uses: dict[str, int] = field(default_factory=dict)  # torch alias -> uses left unconverted
    builtins_used: set[str] = field(default_factory=set)  # builtins that generated code reads
    reshaped: bool = False  # statements moved/removed/added: the output is parsed once more
    guarded: bool = False   # a torch import that stays was guarded (the output needs TorchMissing)
    checking: bool = False  # the output has a TYPE_CHECKING block (guards, raise guards)
    signatures: Any = None  # the runtime names the file uses (see torch_signature.signatures)
    walked_body: Any = None  # the module's statements after the walk, before imports are rewritten
