"""Torch-signature classes and functions: what static translation cannot settle, from the runtime.

A direct call ``nn.Conv2d(3, 64, 3, padding=1)`` is translated statically. A torch layer class
used otherwise -- as a value (``act_layer=nn.ReLU``, ``conv_layer = nn.Conv2d``,
``partial(nn.BatchNorm2d, eps=...)``, ``dict(relu=nn.ReLU)``), as a base class
(``class Conv2dSame(nn.Conv2d)``), or in a call whose arguments only run time knows (``**kwargs``,
``padding=p``) -- is replaced by its *torch-signature class* from the runtime
(:mod:`migrate.runtime.generated`): a subclass of the MindSpore class whose ``__init__`` takes
torch's arguments and translates them when the layer is built (``TorchBatchNorm2d``). Torch
functions used as values (``act_fn=F.relu``, ``init=nn.init.xavier_uniform_``) get the runtime's
functions with torch's signature the same way (``torch_relu``). The containers whose MindSpore
semantics differ (``nn.Sequential`` filled after construction or subclassed, ``nn.ModuleList``
holding None) get the runtime's ``TorchSequential`` / ``TorchModuleList``; plain MindSpore
(``nn.SequentialCell``) wherever it means the same.

The generated classes are made ahead of time from the mapping tables by
``python -m migrate.convert.generate_runtime`` (the converter's own translation of each call,
run on parameter names, so the static and the run-time translations cannot disagree);
:data:`~migrate.runtime.index.SIGNATURES` says which runtime name has each torch name's
signature. A converted file imports the names it uses (:class:`TorchSignatures` collects them;
``from .migrate_runtime import TorchConv2d, torch_size`` after the file's imports); a file written
to stdout gets their definitions instead, between BEGIN/END markers. Converting the output again
keeps the import (or the block) and adds only what is new.
"""
from __future__ import annotations

import re
import weakref

import libcst as cst

from migrate.convert.cst import code_of, dotted, parse_statement
from migrate.convert.registry import entry_id, node_rule
from migrate.convert.runtime_files import BEGIN, END, RUNTIME_NAME, inline_parts
from migrate.runtime.index import EXPORTS, SIGNATURES, TARGET_ONLY

TORCH_CLASS = node_rule(
    "MS180", "torch_signature_class",
    "Replace a torch layer class used as a value or a base (act_layer=nn.ReLU, class "
    "Conv2dSame(nn.Conv2d)) with the runtime's subclass of the MindSpore class that takes torch's "
    "arguments and translates them when it is built (TorchReLU).",
        needs=["TorchModuleList", "TorchSequential"], examples=[
    ("def block(c, norm_layer=nn.BatchNorm2d):\n"
     "    return norm_layer(c, momentum=0.01)\n",
     "def block(c, norm_layer=TorchBatchNorm2d):\n"
     "    return norm_layer(c, momentum=0.01)\n"),
])
TORCH_CALL = node_rule(
    "MS181", "torch_signature_call",
    "Replace a layer or function call whose arguments only run time knows (**kwargs, padding=p) "
    "with a call of the runtime's torch-signature class or function.", needs=["DataLoaderTorch"], examples=[
    ("def conv(c, **kw):\n"
     "    return nn.Conv2d(c, c, 3, **kw)\n",
     "def conv(c, **kw):\n"
     "    return TorchConv2d(c, c, 3, **kw)\n"),
])
TORCH_FUNCTION = node_rule(
    "MS182", "torch_function_value",
    "Replace a torch function used as a value (act_fn=F.relu, init=nn.init.xavier_uniform_) with the "
    "runtime's function that takes torch's arguments (torch_relu).", needs=["DataLoaderTorch"], examples=[
    ("act = dict(relu=F.relu)\n",
     "act = dict(relu=torch_relu)\n"),
])
TORCH_CONTAINER = node_rule(
    "MS183", "torch_containers",
    "Replace nn.Sequential filled by name after construction (add_module, setattr) or subclassed, "
    "nn.ModuleList holding None or built from an iterator, and nn.ModuleDict whose values may be containers, with the "
    "runtime's TorchSequential / TorchModuleList / TorchModuleDict (children run in insertion "
    "order; None entries keep their index; containers inside a dict).",
        needs=["TorchModuleDict", "TorchModuleList", "TorchSequential"], examples=[
    ("s = nn.Sequential()\n"
     "s.add_module('act', nn.ReLU())\n",
     "s = TorchSequential()\n"
     "s.insert_child_to_cell('act', nn.ReLU())\n"),
])

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a name the file may bind or read: not one after a dot (an attribute, a module path's part:
# from ms_core.common.initializer import ... binds no `initializer`)
_FREE_WORD = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*")
# an import of a runtime copy (any name a conversion gives one: migrate_runtime, migrate_runtime_2)
_RUNTIME_MODULE = re.compile(r"\.*" + re.escape(RUNTIME_NAME) + r"(?:_\d+)?")
# how a Sequential is filled by name: add_module, setattr, or an attribute of an attribute assigned a
# layer (`self.features.conv0 = nn.Conv2d(...)`, `block.norm = nn.BatchNorm2d(c)`). A class that
# fills itself (`self.add_module(...)`, `setattr(self, ...)`) fills an instance of its own, not an
# `nn.Sequential()` call's (a Sequential subclass is the runtime's TorchSequential as a base): those
# matches begin with `self` and do not count.
_FILLED_BY_NAME = re.compile(r"(?P<own>(?<![\w.])self)?\.(?:add_module|register_module|insert_child_to_cell)\(|"
                             r"\bsetattr\(\s*(?P<own_set>self\s*,)?|"
                             r"(?:\bself\.\w+|(?<![\w.])(?!self\b)\w+)\.\w+\s*=[^=\n][^\n]*\bnn\.")
_NONE_APPENDED = re.compile(r"\.(?:append|insert)\([^\n]*\bNone\b|ModuleList\(\s*\[[^\]]*\bNone\b")
# the containers whose torch semantics need the runtime's class, and the ones that stay plain
_CONTAINERS = {"torch.nn.Sequential": "TorchSequential", "torch.nn.ModuleList": "TorchModuleList",
               "torch.nn.ModuleDict": "TorchModuleDict"}
_PLAIN = {"torch.nn.ModuleDict", "torch.nn.Module", "torch.nn.Identity"}
# what MindSpore 2.10's CellDict refuses as a value
_CONTAINER_TYPES = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
# getattr(<torch module>, name) with a name only run time knows: the runtime's lookup
LOOKUPS = {"torch.nn": "torch_nn_getattr", "torch.nn.functional": "torch_functional_getattr", "torch": "torch_getattr"}


def signatures(converter) -> "TorchSignatures":
    """The runtime names a converter's file uses (created on first use)."""
    if converter.output.signatures is None:
        converter.output.signatures = TorchSignatures(converter)
    return converter.output.signatures


def _named_twice(code: str, name: str) -> bool:
    """``name`` (an identifier) appears twice in ``code`` as a name of its own: not preceded by a
    word character or ``.``, not followed by one. The regex looks for the name itself (a
    look-behind first would make it try every position of the text); the character before is
    checked on each match (a refused match hides no other: inside it, every position follows a
    word character)."""
    seen = 0
    for m in re.finditer(rf"{re.escape(name)}\b", code):
        before = code[m.start() - 1] if m.start() else " "
        if not (before.isalnum() or before in "_."):
            seen += 1
            if seen == 2:
                return True
    return False


def is_layer_class(qual: str) -> bool:
    """``torch.nn.Conv2d``-like: a class of torch.nn (not a function or a submodule), also a
    base class of a torch.nn submodule (``torch.nn.modules.loss._Loss``)."""
    return qual.startswith("torch.nn.") and (qual[9:10].isupper()
                                             or qual.rsplit(".", 1)[-1].lstrip("_")[:1].isupper())


def translates(entry) -> bool:
    """Whether calls of ``entry`` change their arguments (else the MindSpore name is enough)."""
    return entry.params is not None and bool(entry.args or entry.rule) and entry.torch not in _PLAIN


class TorchSignatures:
    """The runtime names one converted file uses, and the local names it uses them under.

    ``link`` (the converter's fact ``runtime``) says how the file reaches the runtime: the module
    it imports from (``migrate_runtime``, ``.migrate_runtime``, ``..migrate_runtime``), or ""
    when the definitions are written into the file (between BEGIN/END markers).
    """

    def __init__(self, converter):
        # the converter holds this object: a strong reference back would make a cycle that keeps
        # its whole state (both syntax trees) alive until the cyclic collector runs
        self.converter = weakref.proxy(converter)
        self.link = converter.facts.runtime
        self.target = converter.facts.target_name
        self.code = ""
        self.newline = "\n"  # the file's line ending (set by start)
        self.names: dict[str, str] = {}     # runtime name -> local name
        self.existing: dict[str, str] = {}  # runtime name -> local name an earlier conversion imported
        self.module: cst.Module | None = None
        self._taken: set[str] | None = None
        self._found: dict = {}  # pattern -> whether it is in the file (searched once a file)

    # ---- the file --------------------------------------------------------------------------
    def start(self, module: cst.Module, code: str) -> None:
        """Note the source and the runtime names an earlier conversion gave it (its import of
        the runtime, or its inlined block)."""
        self.code, self.module, self._found = code, module, {}
        self.newline = module.default_newline
        block = runtime_statements(module.body)
        if len(block) > 1 or block and not isinstance(block[0], cst.SimpleStatementLine):
            # an inlined block: the names the file uses are the ones outside it
            outside = code
            for st in block:
                outside = outside.replace(module.code_for_node(st), "", 1)
            self._taken = set(_FREE_WORD.findall(outside))
        for st in block:
            if isinstance(st, (cst.ClassDef, cst.FunctionDef)):
                if st.name.value in EXPORTS:
                    self.existing[st.name.value] = st.name.value
                continue
            for small in st.body:
                if isinstance(small, cst.ImportFrom) and is_runtime_module(small) \
                        and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        local = alias.asname.name.value if alias.asname else alias.name.value
                        self.existing[alias.name.value] = local

    @property
    def taken(self) -> set[str]:
        """Identifiers the file uses outside the runtime's names."""
        if self._taken is None:
            mine = set(self.existing.values())
            self._taken = {w for w in _FREE_WORD.findall(self.code) if w not in mine}
        return self._taken

    def _name(self, key: str) -> str:
        if key in self.names:
            return self.names[key]
        name = self.existing.get(key)
        if name is None:
            name = key
            used = set(self.names.values()) | set(self.existing.values())
            while name in self.taken or name in used:
                name += "_"
        self.names[key] = name
        return name

    @staticmethod
    def _free(name: str, used: set[str]) -> str:
        while name in used:
            name += "_"
        used.add(name)
        return name

    def drop_unused(self, code: str) -> bool:
        """Forget the names this conversion asked for that ``code`` (the output, with their import)
        does not use (a rewrite that asked for one was rolled back); True when one was dropped.
        Names an earlier conversion imported stay (converting again changes nothing)."""
        if not self.link:
            return False
        unused = [k for k, local in self.names.items() if k not in self.existing and not _named_twice(code, local)]
        for key in unused:
            del self.names[key]
        return bool(unused)

    def used_names(self) -> tuple[str, ...]:
        """The runtime names the converted file takes (imported or inlined)."""
        return tuple(sorted({**self.existing, **self.names}))

    def available(self, name: str) -> bool:
        """The runtime defines ``name`` for this conversion's target."""
        return name in EXPORTS and TARGET_ONLY.get(name, self.target) == self.target

    # ---- what the converted code asks for --------------------------------------------------
    def helper(self, name: str) -> str:
        """The local name of the runtime's class or function ``name`` in this file."""
        if not self.available(name):
            raise KeyError(f"the runtime has no {name!r} for {self.target} (migrate/runtime/index.py)")
        return self._name(name)

    def layer_class(self, qual: str, entry=None) -> str | None:
        """The local name of ``qual``'s torch-signature class, or None when the runtime has none."""
        return self._signature(qual)

    def function(self, qual: str, entry=None) -> str | None:
        """The local name of the runtime's function with ``qual``'s signature, or None."""
        return self._signature(qual)

    def _signature(self, qual: str) -> str | None:
        name = SIGNATURES.get(qual)
        return self.helper(name) if name is not None and self.available(name) else None

    def lookup(self, module: str) -> str | None:
        """The local name of the runtime's ``getattr(module, name)`` for names only run time knows."""
        return self.helper(LOOKUPS[module]) if module in LOOKUPS else None

    def container_call(self, qual: str, node: cst.Call) -> str | None:
        """The container class a call of ``qual`` needs (TorchSequential for an ``nn.Sequential``
        in a file that fills one by name, TorchModuleList for a list that may hold None), or None."""
        if qual == "torch.nn.Sequential" and self.fills_by_name():
            # a child added by name is not run by SequentialCell (its construct runs cell_list,
            # which insert_child_to_cell does not extend on MindSpore 2.10); an empty Sequential
            # that stays empty or is filled by append is an empty SequentialCell
            return self.helper("TorchSequential")
        if qual == "torch.nn.ModuleList" and (
                self._in_code(_NONE_APPENDED)
                or node.args and isinstance(node.args[0].value, cst.GeneratorExp)
                or node.args and self._may_hold_none(node.args[0].value)
                or node.args and self._holds_dicts(node.args[0].value)):
            return self.helper("TorchModuleList")
        if qual == "torch.nn.ModuleDict" and not self._plain_layers_only(node):
            return self.helper("TorchModuleDict")
        return None

    def fills_by_name(self) -> bool:
        """The file fills a container by name other than the instance of its own class (see
        ``_FILLED_BY_NAME``; searched once a file)."""
        if _FILLED_BY_NAME not in self._found:
            self._found[_FILLED_BY_NAME] = any(not (m.group("own") or m.group("own_set"))
                                               for m in _FILLED_BY_NAME.finditer(self.code))
        return self._found[_FILLED_BY_NAME]

    def _in_code(self, pattern: "re.Pattern") -> bool:
        """Whether ``pattern`` is found in the file (a search of the whole text for each
        container call was 2 % of a conversion)."""
        if pattern not in self._found:
            self._found[pattern] = pattern.search(self.code) is not None
        return self._found[pattern]

    def _may_hold_none(self, value) -> bool:
        """``nn.ModuleList([a, b])`` where the file assigns None to ``a`` or ``b`` somewhere
        (``norm = make() if pre_norm else None``): torch keeps the None entries."""
        if not isinstance(value, (cst.List, cst.Tuple)):
            return False
        names = [e.value.value for e in value.elements if isinstance(e.value, cst.Name)]
        return any(re.search(rf"\b{re.escape(n)}\s*=[^=\n][^\n]*\bNone\b", self.code) for n in names)

    def _holds_dicts(self, value) -> bool:
        """``nn.ModuleList([nn.ModuleDict(...) for ...])`` (a list, tuple or comprehension of
        ModuleDicts): MindSpore 2.10's CellList refuses a CellDict when it is built or extended
        (its append takes one; the runtime's TorchModuleList registers each by its index)."""
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            items = [value.elt]
        elif isinstance(value, (cst.List, cst.Tuple)):
            items = [e.value for e in value.elements]
        else:
            return False
        return any(isinstance(v, cst.Call) and self.converter.qual(v.func) == "torch.nn.ModuleDict" for v in items)

    def _plain_layers_only(self, node: cst.Call) -> bool:
        """True when every value of ``nn.ModuleDict({...})`` / ``nn.ModuleDict(dict(k=...))`` is a
        call of a torch layer that is not a container (MindSpore 2.10's CellDict refuses
        CellList, CellDict and SequentialCell values, and values only run time knows may be
        one)."""
        if len(node.args) != 1:
            return False
        arg = node.args[0].value
        if isinstance(arg, cst.Dict):
            values = [e.value for e in arg.elements if isinstance(e, cst.DictElement)]
            if len(values) != len(arg.elements):
                return False
        elif isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name) and arg.func.value == "dict" \
                and all(a.keyword is not None for a in arg.args):
            values = [a.value for a in arg.args]
        else:
            return False
        quals = [self.converter.qual(v.func) if isinstance(v, cst.Call) else None for v in values]
        return all(q is not None and q.startswith("torch.nn.") and q not in _CONTAINER_TYPES for q in quals)

    # ---- emission --------------------------------------------------------------------------
    def emit(self, body: list) -> list:
        """``body`` with the import of the runtime names the file uses after its imports (or,
        with no module to import from, their definitions between BEGIN/END markers); what an
        earlier conversion wrote there is replaced, and left as it is when nothing changed."""
        wanted = {**self.existing, **self.names}
        old = runtime_statements(body)
        if not wanted and not old:
            return body
        new = self._statements(wanted)
        if [code_of(s.with_changes(leading_lines=())) for s in old] == \
                [code_of(s.with_changes(leading_lines=())) for s in new]:
            return body
        self.converter.output.reshaped = True
        if old:  # where the earlier conversion put them, with the comments above them
            at = next(i for i, st in enumerate(body) if st is old[0])
            rest = [st for st in body[at:] if not any(st is o for o in old)]
            marker = [] if self.link else [cst.EmptyLine(comment=cst.Comment(BEGIN))]
            new[0] = new[0].with_changes(leading_lines=[*_without_marker(old[0].leading_lines), *marker])
            return [*body[:at], *new, *_after_block(rest, bool(self.link))]
        at = runtime_position(body, self.converter.facts.pkg, self.names.get("TorchMissing"))
        if at < len(body) and not self.link:
            new[0] = new[0].with_changes(leading_lines=[cst.EmptyLine(), *new[0].leading_lines])
        return [*body[:at], *new, *_after_block(body[at:], bool(self.link))]

    def with_end_marker(self, module: cst.Module) -> cst.Module:
        """``module`` with the END marker of an inlined block that ends the file (no statement
        follows it to carry the marker) in its footer."""
        block = runtime_statements(module.body)
        if self.link or not block or block[-1] is not module.body[-1] \
                or any(ln.comment is not None and ln.comment.value == END for ln in module.footer):
            return module
        return module.with_changes(footer=[cst.EmptyLine(comment=cst.Comment(END)), *module.footer])

    def _statements(self, wanted: dict[str, str]) -> list:
        """The statements that give the file ``wanted`` (runtime name -> local name)."""
        if self.link:
            parts = [n if n == local else f"{n} as {local}" for n, local in sorted(wanted.items(), key=_isort)]
            return [parse_statement(_import_text(self.link, parts) + self.newline)]
        return self._inline(wanted)

    def note_inline_needs(self) -> None:
        """Inlined, the runtime's definitions read the target's modules by the file's names: the
        file imports them (called after the walk, before the imports are written)."""
        if not self.link and (self.names or self.existing):
            _, _, backend = inline_parts({**self.existing, **self.names}, self.target)
            self.converter.output.used.update(name for name in backend if name in ("ms", "nn", "ops"))

    def inline_source(self) -> str:
        """The definitions a file without a runtime to import gets (empty with one)."""
        if self.link:
            return ""
        imports, defs, _ = inline_parts({**self.existing, **self.names}, self.target)
        return "\n".join([*imports, *(source for _, source in defs)])

    def _inline(self, wanted: dict[str, str]) -> list:
        """The runtime's definitions of ``wanted`` and what they need, in the order they must run,
        under the file's local names (the target's modules, names the file binds itself)."""
        imports, defs, backend = inline_parts(wanted, self.target)
        facts = self.converter.facts
        renames = {name: local for name, local in wanted.items() if name != local}
        # what the definitions need besides the names asked for, under names the file leaves free
        # (and the initializer names the walk imports: `initializer` the function beside the module)
        used = set(self.taken) | set(wanted.values()) | set(self.converter.output.init_names)
        for name, _ in defs:
            if name not in wanted and name in used:
                renames[name] = self._free(name, used)
        renames.update({m: facts.names[m] for m in ("ms", "nn", "ops") if facts.names.get(m, m) != m})
        if "init" in backend:  # the initializer module, for the generated layers, by its own name:
            # a file's `init` is often torch's (from torch.nn import init), gone once converted,
            # and a name chosen around it would change when the output is converted again
            renames["init"] = self._free("initializer", used) if "initializer" in used else "initializer"
            imports = [*imports, f"from {facts.pkg}.common import initializer"
                                 + ("" if renames["init"] == "initializer" else f" as {renames['init']}")]
        text = "\n".join([*imports, "", "", *("\n\n\n".join(source for _, source in defs),)])
        text = self.converter.builtins_in(rename_names(text, renames))
        module = cst.parse_module((text + "\n").replace("\n", self.newline))
        statements = list(module.body)
        statements[0] = statements[0].with_changes(
            leading_lines=[cst.EmptyLine(), cst.EmptyLine(comment=cst.Comment(BEGIN))])
        return statements


def _isort(item) -> tuple:
    """isort's order by type (ruff's default): CONSTANTS, Classes, functions."""
    name = item[0]
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2), name


def _import_text(module: str, parts: list[str], width: int = 100) -> str:
    """``from module import a, b`` on one line, or wrapped in parentheses, about ``width`` wide."""
    line = f"from {module} import {', '.join(parts)}"
    if len(line) <= width:
        return line
    lines, current = [], "   "
    for part in parts:
        if len(current) + len(part) + 2 > width:
            lines.append(current.rstrip())
            current = "   "
        current += f" {part},"
    lines.append(current)
    return f"from {module} import (\n" + "\n".join(lines) + "\n)"


def is_runtime_module(small: cst.ImportFrom) -> bool:
    """``from .migrate_runtime import ...`` (any level, any name a conversion gives its copy)."""
    name = "." * len(small.relative) + (dotted(small.module) or "" if small.module is not None else "")
    return _RUNTIME_MODULE.fullmatch(name) is not None


def runtime_statements(body) -> list:
    """The statements of ``body`` that an earlier conversion wrote to reach the runtime: its
    import, or the block between the BEGIN and END markers."""
    for i, st in enumerate(body):
        if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 \
                and isinstance(st.body[0], cst.ImportFrom) and is_runtime_module(st.body[0]):
            return [st]
        if _has_comment(st, BEGIN):
            out = [st]
            for later in body[i + 1:]:
                if _has_comment(later, END):
                    break
                out.append(later)
            return out
    return []


_RUNTIME_IMPORT = re.compile(r"^from[ \t]+\.*" + re.escape(RUNTIME_NAME) + r"(?:_\d+)?[ \t]+import[ \t]+"
                             r"(\([^)]*\)|[^\n]*)", re.M)


def imported_runtime_names(code: str) -> tuple[str, ...]:
    """The runtime names ``code`` imports (a converted file that is converted again without
    being walked: nothing of torch's is left in it), read from its import of the runtime."""
    if RUNTIME_NAME not in code:
        return ()
    found = _RUNTIME_IMPORT.search(code)
    if found is None:
        return ()
    names = found.group(1).strip("()").replace("\\", " ")
    return tuple(sorted(part.split()[0] for part in names.replace("\n", " ").split(",") if part.strip()))


def _has_comment(st, text: str) -> bool:
    return any(ln.comment is not None and ln.comment.value == text for ln in getattr(st, "leading_lines", ()))


def _without_marker(lines) -> list:
    return [ln for ln in lines if ln.comment is None or ln.comment.value not in (BEGIN, END)]


def _after_block(rest: list, imported: bool) -> list:
    """The statements after the runtime's: two blank lines and the END marker after an inlined
    block (the marker a block left is replaced)."""
    if imported or not rest:
        return rest
    lines = [ln for ln in _without_marker(rest[0].leading_lines)]
    while lines and lines[0].comment is None:
        lines.pop(0)
    marker = [cst.EmptyLine(comment=cst.Comment(END)), cst.EmptyLine(), cst.EmptyLine()]
    return [rest[0].with_changes(leading_lines=[*marker, *lines]), *rest[1:]]


def _is_import(st) -> bool:
    return isinstance(st, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in st.body)


def runtime_position(body, pkg: str, stub: str | None) -> int:
    """Where the runtime's import goes: after the target's imports and the imports that follow
    them, before the first statement that needs the guards' stand-in (``stub``) there; never above
    the module's docstring or its ``from __future__`` imports (a file that imports nothing of the
    target, as one that only gains ``torch_import_module``, has no target import to follow)."""
    opening = _module_opening(body)
    at = opening
    for i, st in enumerate(body):
        if _is_import(st) and re.search(rf"\b{pkg}\b", code_of(st)):
            at = max(at, i + 1)
    while at < len(body) and _is_import(body[at]):
        at += 1
    if stub is not None:
        for i, st in enumerate(body[opening:at], opening):
            if not _is_import(st) and re.search(rf"\b{re.escape(stub)}\b", code_of(st)):
                return i
    return at


def _module_opening(body) -> int:
    """Index after the module docstring and the ``from __future__`` imports that must open it."""
    at = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        at = 1
    while at < len(body) and isinstance(body[at], cst.SimpleStatementLine) and all(
            isinstance(s, cst.ImportFrom) and s.relative == [] and isinstance(s.module, cst.Name)
            and s.module.value == "__future__" for s in body[at].body):
        at += 1
    return at


def rename_names(text: str, renames: dict[str, str]) -> str:
    """``text`` (runtime code) with its module-level names renamed: the definitions and every
    read of them and of free names (the target's modules); a function's own parameters and
    locals of the same name are left alone (``TorchPReLU(init=0.25)`` keeps its keyword)."""
    if not renames:
        return text
    from libcst.metadata import GlobalScope, MetadataWrapper, ScopeProvider
    wrapper = MetadataWrapper(cst.parse_module(text))
    targets: set[int] = set()
    for scope in set(wrapper.resolve(ScopeProvider).values()):
        if scope is None:
            continue
        for access in scope.accesses:
            node = access.node
            if isinstance(node, cst.Name) and node.value in renames and \
                    all(isinstance(a.scope, GlobalScope) for a in access.referents):
                targets.add(id(node))
        if isinstance(scope, GlobalScope):
            for assignment in scope.assignments:
                node = getattr(assignment, "node", None)
                name = node.name if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else node
                if isinstance(name, cst.Name) and name.value in renames:
                    targets.add(id(name))

    class Rename(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return updated.with_changes(value=renames[original.value]) if id(original) in targets else updated

    return wrapper.module.visit(Rename()).code


# --------------------------------------------------------------------------------------------
# node rules (called by the handlers)
# --------------------------------------------------------------------------------------------
def reference(converter, node, qual: str, entry):
    """Apply MS180/MS182 to a torch class or function used as a value or a base: the generated
    torch-signature class or function; else the MindSpore name, marked (MS906)."""
    layer = is_layer_class(qual)
    rule = TORCH_CLASS if layer else TORCH_FUNCTION
    if converter.allows(rule.id):
        sigs = signatures(converter)
        name = sigs.layer_class(qual, entry) if layer else sigs.function(qual, entry)
        if name is not None:
            new = cst.Name(name)
            converter.record(node, new, rule.id, "transformed",
                        f"{qual} with torch's signature: its arguments are translated where it is called")
            return new
    new = converter.target(entry.target)
    converter.mark(node, "MS906", f"{qual} referenced without a call: its arguments are not translated "
                             "where it is called")
    return new


def runtime_value(converter, node, qual: str):
    """Apply MS182 to a torch function whose table entry has no MindSpore name (a rule writes each
    call: ``ctx = torch.no_grad``) used as a value: the runtime's function with its signature
    (torch_no_grad), or None when there is none."""
    if is_layer_class(qual) or not converter.allows(TORCH_FUNCTION.id):
        return None
    name = signatures(converter).function(qual)
    if name is None:
        return None
    new = cst.Name(name)
    converter.record(node, new, TORCH_FUNCTION.id, "transformed",
                     f"{qual} with torch's signature: its arguments are translated where it is called")
    return new


def runtime_call(converter, call: cst.Call, entry, qual: str, shown, reason: str):
    """Apply MS181: ``call`` (arguments converted) through the torch-signature class or function,
    or None when there is none."""
    if entry.label == "unsupported" or not converter.allows(TORCH_CALL.id):
        return None
    sigs = signatures(converter)
    name = sigs.layer_class(qual, entry) if is_layer_class(qual) else sigs.function(qual, entry)
    if name is None:
        return None
    new = call.with_changes(func=cst.Name(name))
    converter.record(shown, new, TORCH_CALL.id, "transformed",
                f"{reason}: {name} translates torch's arguments when it is called")
    return new


def container_call(converter, node: cst.Call, walked: cst.Call, qual: str):
    """Apply MS183 to ``nn.Sequential()`` / ``nn.ModuleList(...)`` / ``nn.ModuleDict(...)`` when
    torch's semantics are needed (``walked``: arguments converted), or return None."""
    if qual not in _CONTAINERS and qual != "torch.nn.ModuleDict" or not converter.allows(TORCH_CONTAINER.id):
        return None
    name = signatures(converter).container_call(qual, node)
    if name is None:
        return None
    new = walked.with_changes(func=cst.Name(name))
    converter.record(node, new, TORCH_CONTAINER.id, "transformed",
                "filled after construction or holding None: torch's container semantics")
    return new


def bindable_value(converter, qual: str):
    """The expression converted code binds for torch's ``qual`` used as a plain value (a
    re-exported name): its torch-signature class or function, else its MindSpore name when
    calls need no translation; None when there is none (nothing is recorded then)."""
    entry = converter.facts.tables.get(qual)
    if entry is None or entry.label == "unsupported" or entry.target.startswith("."):
        return None
    if translates(entry) or not entry.target:
        layer = is_layer_class(qual)
        rule = TORCH_CLASS if layer else TORCH_FUNCTION
        if not converter.allows(rule.id):
            return None
        sigs = signatures(converter)
        name = sigs.layer_class(qual, entry) if layer else sigs.function(qual, entry)
        if name is None:
            return None
        converter.record(cst.Name(qual.rsplit(".", 1)[-1]), cst.Name(name), rule.id, "transformed",
                    f"{qual} with torch's signature, bound for the modules that import it from here")
        return cst.Name(name)
    if not converter.allows(entry_id(entry)):
        return None
    new = converter.target(entry.target)
    converter.record(cst.Name(qual.rsplit(".", 1)[-1]), new, entry_id(entry), "exact", entry.note)
    return new
