"""Generate the runtime's torch-signature classes and functions from the mapping tables.

``python -m migrate.convert.generate_runtime`` writes ``migrate/runtime/generated.py``: for every
torch layer class and function that the tables translate, a class (``TorchConv2d``) or a function
(``torch_relu``) that takes torch's arguments and translates them when it is called. Each is the
converter's own translation of a call whose arguments are all parameter names (the same table
entry, argument fates and rule, run in :attr:`~migrate.convert.call_edit.CallEdit.runtime` mode),
so the static and the run-time translations cannot disagree. ``--check`` only compares (exit 1
when the committed module is stale); ``tests/migrate/runtime/test_generated.py`` does the same.

Both targets are generated; a definition that differs between ms_core and MindSpore (a rule that
writes another op for one of them) is written once per target under ``if TARGET == ...:`` (the
backend's switch; the copy written into a converted tree keeps only its target's branch). The
module also holds the tables of ``getattr(torch.nn, name)`` / ``getattr(F, name)`` lookups and of
the einops modules imports by name answer, and ``SIGNATURES``: torch's qualified name -> the
generated name, which the converter reads (``migrate/runtime/index.py`` lists, without importing
the framework, which module defines each name of the runtime).
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import libcst as cst

from mappings import load_attributes, load_tables
from migrate.convert.call_edit import CallEdit, _positional_count
from migrate.convert.cst import code_of, parse_expr
from migrate.convert.rules import argument_rule_named
from migrate.convert.torch_names import public_name
from migrate.convert.template import slots
from migrate.convert.torch_signature import _CONTAINERS, is_layer_class, translates

RUNTIME = Path(__file__).resolve().parents[1] / "runtime"
TARGETS = ("ms_core", "mindspore")
# torch callables whose torch-signature function is hand-written (their static rules read facts
# the converter learnt about the file, which run time does not have)
_FUNCTION_TEMPLATES = {"torch.utils.data.DataLoader": "DataLoaderTorch",
                       "torch.utils.data.dataloader.DataLoader": "DataLoaderTorch"}
# which module's name wins when two torch functions of one short name translate differently
_MODULE_RANK = ("torch.nn.functional", "torch", "torch.nn.init", "torch.nn", "torch.linalg", "torch.special",
                "torch.fft")


@dataclass
class Definition:
    """One generated class or function: its name, the torch names it stands for, its source per
    target (None where that target cannot make it) and the runtime names it uses."""

    name: str
    quals: list[str]
    sources: dict[str, str | None] = field(default_factory=dict)
    needs: set[str] = field(default_factory=set)


def candidates(tables) -> list[str]:
    """The torch names whose calls translate their arguments, or that a template writes: each
    gets a generated class or function (the containers and DataLoader have hand-written ones)."""
    out = []
    for qual, entry in sorted(tables.items()):
        if not qual.startswith("torch.") or public_name(qual) != qual or qual in _CONTAINERS \
                or qual in _FUNCTION_TEMPLATES:
            continue
        # (an entry without a target is a template: a value of it needs the function too; a
        # template that calls a lambda in place is written as a call of the function)
        if not entry.target.startswith(".") and entry.label != "unsupported" \
                and (translates(entry) or not entry.target or _hoists(entry.template)):
            out.append(qual)
    return out


def _hoists(template: str | None) -> bool:
    """A template that calls a lambda in place, or may (a slot used twice: its argument is
    evaluated once, in a lambda, when it is not a plain name): a call of the function instead."""
    if template is None:
        return False
    used = slots(template)
    return template.startswith("(lambda") or any(used.count(name) > 1 for name in set(used))


class _Generation:
    """What a rule run in runtime mode asks of the file it converts (``edit.helper(name)``):
    here the runtime's own names, noted as the definition's needs."""

    def __init__(self, converter):
        self.converter = converter
        self.names: set[str] = set()

    def helper(self, name: str) -> str:
        if name not in _hand_written_names():
            raise KeyError(f"a rule asks for {name!r}, which no module of migrate/runtime defines")
        self.names.add(name)
        return name


def _signatures(target: str) -> _Generation:
    from migrate.convert.walker import Converter
    converter = Converter(target, names={"init": "init"})
    sigs = _Generation(converter)
    converter.output.signatures = sigs
    return sigs


def _one_source(sigs: _Generation, qual: str, entry) -> tuple[str | None, set[str]]:
    """(the source of ``qual``'s class or function named ``PLACEHOLDER``, the runtime names it
    uses), or (None, set()) when the target cannot make it."""
    converter = sigs.converter
    sigs.names = set()
    mark = converter.checkpoint()
    build = _class_source if is_layer_class(qual) else _function_source
    source = build(sigs, "PLACEHOLDER", qual, entry)
    converter.rollback_to(mark, keep_markers=False)
    return (None, set()) if source is None else (source, set(sigs.names))


def _natural_name(qual: str) -> str:
    last = qual.rsplit(".", 1)[-1]
    return ("Torch" if last[:1].isupper() else "torch_") + last


def _qualified_name(qual: str) -> str:
    """A name for ``qual`` that says its module (``torch.linalg.cross`` -> ``torch_linalg_cross``)."""
    module, last = qual.rsplit(".", 1)
    parts = [p for p in module.split(".")[1:] if p not in ("nn",)] or ["torch"]
    middle = "_".join(p for p in parts if p != "functional")
    if last[:1].isupper():
        return "Torch" + "".join(p.capitalize() for p in middle.split("_")) + last
    return f"torch_{middle}_{last}"


def _rank(qual: str) -> tuple:
    module = qual.rsplit(".", 1)[0]
    return (_MODULE_RANK.index(module) if module in _MODULE_RANK else len(_MODULE_RANK), qual)


def definitions() -> list[Definition]:
    """Every generated class and function, named, with its source for each target."""
    tables = load_tables()
    quals = candidates(tables)
    per_target = {}
    for target in TARGETS:
        sigs = _signatures(target)
        per_target[target] = {q: _one_source(sigs, q, tables[q]) for q in quals}
    # torch names whose translations are the same (torch.relu and F.relu) share one definition
    groups: dict[tuple, list[str]] = {}
    for qual in sorted(quals, key=_rank):
        key = (_natural_name(qual),) + tuple(_normalised(per_target[t][qual][0], qual) for t in TARGETS)
        if all(k is None for k in key[1:]):
            continue
        groups.setdefault(key, []).append(qual)
    hand_written = _hand_written_names()
    taken: set[str] = set(hand_written)
    out = []
    for key, members in sorted(groups.items(), key=lambda kv: _rank(kv[1][0])):
        name = key[0]
        if name in hand_written:
            continue  # a hand-written class with torch's signature (containers.TorchParameterList)
        if name in taken:
            name = _qualified_name(members[0])
        if name in taken:
            raise ValueError(f"the generated names of {members} collide with the runtime's {name!r}: "
                             "choose another in _qualified_name")
        taken.add(name)
        first = members[0]
        definition = Definition(name, members)
        for target in TARGETS:
            source, needs = per_target[target][first]
            definition.sources[target] = None if source is None else _named(source, name, members)
            definition.needs |= needs
        out.append(definition)
    return sorted(out, key=lambda d: (not d.name[:1].isupper(), d.name.lower()))


def _normalised(source: str | None, qual: str) -> str | None:
    """``source`` without the name ``qual`` in its docstring, to compare translations."""
    return None if source is None else source.replace(f'"""{qual}\'s signature', '"""QUAL\'s signature', 1)


def _named(source: str, name: str, quals: list[str]) -> str:
    """The placeholder named ``name``; the docstring names every torch name it stands for."""
    source = source.replace("PLACEHOLDER", name, 1)
    if len(quals) > 1:
        also = ", ".join(quals[1:])
        source = source.replace(f"{quals[0]}'s signature", f"{quals[0]}'s (and {also}'s) signature", 1)
    return source


@lru_cache(maxsize=1)
def _stands_for(target: str, entry) -> str:
    """The class a torch-signature class over ``target`` passes isinstance as: the entry's MindSpore
    class when ``target`` is a hand-written runtime subclass of it (EmbeddingTorch of nn.Embedding:
    a plain nn.Embedding is a torch Embedding too), else ``target`` itself."""
    module = _hand_written_names().get(target)
    if module is None or not entry.target.startswith("nn.") or entry.target == "nn.Cell":
        return target
    tree = ast.parse((RUNTIME / f"{module}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == target \
                and any(ast.unparse(b) == entry.target for b in node.bases):
            return entry.target
    return target


def _hand_written_names() -> dict[str, str]:
    """Every public class and function the hand-written runtime modules define -> its module."""
    out = {}
    for path in sorted(RUNTIME.glob("*.py")):
        if path.stem in ("__init__", "generated", "index", "backend"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                out[node.name] = path.stem
    return out


# --------------------------------------------------------------------------------------------
# the sources: the converter's own translation of each call, on parameter names
# --------------------------------------------------------------------------------------------
def _runtime_edit(sigs: _Generation, entry) -> CallEdit | None:
    """Translate ``entry``'s call with every argument a parameter name (run-time mode)."""
    rule = argument_rule_named(entry.rule)
    params = entry.params or ()
    if entry.rule and (rule is None or not rule.runtime) or any(p.star for p in params):
        return None
    n_pos = _positional_count(entry)
    args = [p.name if i < n_pos else f"{p.name}={p.name}" for i, p in enumerate(params)]
    edit = CallEdit(sigs.converter, parse_expr(f"f({', '.join(args)})"), entry)
    edit.runtime = True
    if entry.target:
        edit.func = sigs.converter.target(entry.target)
    edit.bind()
    edit.apply_fates()
    if rule is not None and not edit.problems:
        rule.apply(edit)
    if edit.problems:
        return None
    _optional_keywords(edit)
    return edit


def _optional_keywords(edit: CallEdit) -> None:
    """Keyword arguments whose torch default is None and that pass through unchanged are passed
    only when given: the MindSpore class has its own default, which None may not be."""
    optional = []
    for item in list(edit.out):
        key, value, positional = item[0], item[1], item[2]
        param = edit.entry.param(code_of(value)) if isinstance(value, cst.Name) else None
        fate = edit.entry.args.get(param.name) if param is not None else None
        if positional or param is None or param.default != "None" or fate is not None and (
                fate.expr or fate.explicit):
            continue
        optional.append((key, param.name))
        edit.out.remove(item)
    if optional:
        pairs = ", ".join(f"({k!r}, {v})" for k, v in optional)
        edit.prelude.append(f"kwargs_ = {{k: v for k, v in ({pairs},) if v is not None}}")
        edit.out.append(["**", parse_expr("kwargs_"), False, None])


def _call_args(edit: CallEdit) -> list[str]:
    out = []
    for key, value, positional, _ in edit.out:
        text = code_of(value)
        out.append(f"**{text}" if key == "**" else text if positional else f"{key}={text}")
    return out


def _signature(entry) -> list[str]:
    return [p.name if p.default is None else f"{p.name}={p.default}" for p in entry.params]


def _wrap(first: str, args: list[str], indent: str, close: str = ")", hang: int = 4) -> list[str]:
    """``first + args + close`` as lines of about 100 characters at most (breaks between args)."""
    line, lines = indent + first, []
    for i, part in enumerate(args):
        part += ", " if i < len(args) - 1 else ""
        if len(line) + len(part) > 100 and line.strip() != first.strip():
            lines.append(line.rstrip())
            line = indent + " " * hang
        line += part
    lines.append(line + close)
    return lines


def _class_source(sigs: _Generation, name: str, qual: str, entry) -> str | None:
    """``class TorchX(nn.X)`` with torch's ``__init__``, torch's attribute names, or None."""
    edit = _runtime_edit(sigs, entry)
    if edit is None or edit.result is not None:
        return None
    meta = sigs.helper("TorchSignature")
    target = code_of(edit.func)
    lines = [f"class {name}({target}, metaclass={meta}):",
             f'    """{qual}\'s signature over {target}: torch\'s arguments are translated when it '
             'is built."""', "", f"    _torch_base = {_stands_for(target, entry)}", "",
             *_wrap("def __init__(", ["self", *_signature(entry)], "    ", "):", hang=8),
             *(_indent(stmt, 8) for stmt in edit.prelude),
             *_wrap("super().__init__(", _call_args(edit), "        ")]
    if edit.finish is not None:
        lines.append(f"        {edit.finish}(self)")
    lines += [_indent(stmt, 8) for stmt in edit.after_init]
    attrs = load_attributes().get(qual)
    if attrs is not None:
        for torch_name, expr in attrs.keep.items():
            lines.append(f"        self.{torch_name} = {_with_helpers(sigs, expr)}")
        for torch_name, expr in attrs.shadow.items():
            lines.append(f"        self.torch_{torch_name} = {_with_helpers(sigs, expr)}")
        init_end = len(lines)
        if attrs.rename:
            lines.append("")
        for torch_name, ms_name in attrs.rename.items():
            owner, _, last = f"self.{ms_name}".rpartition(".")  # a child's: self.bn2d, gamma
            lines.append(f"    {torch_name} = property(lambda self: self.{ms_name}, "
                         f"lambda self, value: setattr({owner}, {last!r}, value))")
        lines[init_end:init_end] = _counter_lines(sigs, attrs.counter)
    for member in edit.members:
        lines += ["", _indent(member, 4)]
    return "\n".join(lines) + "\n"


def _counter_lines(sigs: _Generation, counters: dict) -> list[str]:
    """The torch step counters of a torch-signature class (``torch_num_batches_tracked``): an
    int64 Tensor 0 when the constructor argument keeps it (else None), advanced by one in each
    training call before the MindSpore layer runs, as torch's forward does."""
    if not counters:
        return []
    tensor, int64 = sigs.converter.tname("ms.Tensor"), sigs.converter.tname("ms.int64")
    lines = [f"        self.torch_{name} = {tensor}(0, {int64}) if {cond} else None"
             for name, cond in counters.items()]
    lines += ["", "    def construct(self, *args, **kwargs):"]
    for name in counters:
        lines += [f"        if self.training and self.torch_{name} is not None:",
                  f"            self.torch_{name} = self.torch_{name} + 1  # torch's step counter"]
    return lines + ["        return super().construct(*args, **kwargs)"]


def _function_source(sigs: _Generation, name: str, qual: str, entry) -> str | None:
    """``def torch_f(<torch's parameters>)`` calling the translation, or None."""
    edit = _runtime_edit(sigs, entry)
    if edit is None:
        return None
    call = code_of(edit.build())
    lines = [*_wrap(f"def {name}(", _signature(entry), "", "):", hang=8),
             f'    """{qual}\'s signature over its MindSpore translation."""',
             *(_indent(stmt, 4) for stmt in edit.prelude)]
    if entry.params and entry.params[0].name == "tensor" and edit.result is not None:
        lines += [f"    {call}", "    return tensor"]  # nn.init.*_: fills and returns the tensor
    else:
        lines.append(f"    return {call}")
    return "\n".join(lines) + "\n"


def _with_helpers(sigs: _Generation, expr: str) -> str:
    for name in re.findall(r"[A-Za-z_]\w*(?=\()", expr):
        if name in _hand_written_names():
            sigs.helper(name)
    return expr


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


# --------------------------------------------------------------------------------------------
# the module text
# --------------------------------------------------------------------------------------------
_HEADER = '''"""Generated by ``python -m migrate.convert.generate_runtime`` from the mapping tables: do not edit.

The torch-signature classes and functions of every torch layer class and function that the
tables translate: ``TorchConv2d(in_channels, out_channels, kernel_size, padding=p, ...)`` builds
MindSpore's ``nn.Conv2d`` with torch's arguments translated when it is built; ``torch_relu``
takes torch's arguments. Converted code uses them where static translation cannot settle a call
(a layer class passed as a value, ``**kwargs``, ``padding=p``). Each body is the converter's own
translation of the call with every argument a parameter name, so both paths agree.

``TORCH_NN`` / ``TORCH_FUNCTIONAL`` / ``TORCH_TOP``: what ``getattr(torch.nn, name)`` /
``getattr(F, name)`` / ``getattr(torch, name)`` give for a name only run time knows (see
:func:`migrate.runtime.imports.torch_nn_getattr`);
``REPLACED_MODULES``: einops' modules as imports by name find them.
"""
'''


def _import_block(text: str, names: dict[str, str]) -> str:
    """The imports of the generated module: ``math`` and the runtime's names it reads."""
    by_module: dict[str, set[str]] = {}
    for name, module in names.items():
        if re.search(rf"(?<![\w.]){re.escape(name)}\b", text):
            by_module.setdefault(module, set()).add(name)
    lines = ["import math", ""] if re.search(r"(?<![\w.])math\.", text) else []
    for module in sorted(by_module):
        ordered = sorted(by_module[module], key=_isort_key)
        line = f"from .{module} import {', '.join(ordered)}"
        if len(line) > 88:
            body = "".join(f"    {n},\n" for n in ordered)
            line = f"from .{module} import (\n{body})"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _isort_key(name: str) -> tuple:
    """isort's order by type: CONSTANTS, Classes, functions."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


def _definition_text(definition: Definition) -> str:
    ms_core, mindspore = definition.sources["ms_core"], definition.sources["mindspore"]
    if ms_core == mindspore:
        return ms_core.rstrip() + "\n"
    branches = []
    for target, source in (("mindspore", mindspore), ("ms_core", ms_core)):
        if source is not None:
            branches.append((target, _indented(source.rstrip())))
    if len(branches) == 1:
        return f'if TARGET == "{branches[0][0]}":\n{branches[0][1]}\n'
    return f'if TARGET == "mindspore":\n{branches[0][1]}\nelse:\n{branches[1][1]}\n'


def _indented(text: str) -> str:
    return "\n".join(("    " + line) if line.strip() else "" for line in text.splitlines())


def _table_text(name: str, comment: str, values: dict[str, str]) -> str:
    body = "".join(f"    {k!r}: {v},\n" for k, v in sorted(values.items()))
    return f"# {comment}\n{name} = {{\n{body}}}\n"


def lookup_tables(defs: list[Definition]) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, str]]]:
    """(TORCH_NN, TORCH_FUNCTIONAL, REPLACED_MODULES) as name -> source text of the value."""
    tables = load_tables()
    named = signature_names(defs)
    from migrate.convert.walker import Converter
    converter = Converter("ms_core", names={"init": "init"})
    nn_values, functional_values, torch_values, replaced = {}, {}, {}, {}
    for qual, entry in sorted(tables.items()):
        if qual.split(".", 1)[0] == "einops" and entry.label != "unsupported" and entry.target:
            module, name = qual.rsplit(".", 1)
            replaced.setdefault(module, {})[name] = entry.target
            continue
        module, _, short = qual.rpartition(".")
        if module not in ("torch", "torch.nn", "torch.nn.functional") or not entry.target \
                or entry.target.startswith(".") or entry.label == "unsupported":
            continue
        if module == "torch":
            value = _torch_value(converter, named, qual, entry)
            if value is not None:
                torch_values[short] = value
            continue
        if is_layer_class(qual) != (module == "torch.nn"):
            continue
        value = named.get(qual)
        if value is None and not translates(entry):
            # the target's own name, read when the module is imported: None where the target
            # lacks it (MindSpore 2.10 has no nn.Softplus), which the lookup reports
            owner, _, attr = converter.tname(entry.target).rpartition(".")
            value = f"getattr({owner}, {attr!r}, None)" if owner else attr
        if value is not None:
            (nn_values if module == "torch.nn" else functional_values)[short] = value
    return nn_values, functional_values, torch_values, replaced


def _torch_value(converter, named, qual, entry) -> str | None:
    """What ``getattr(torch, name)`` gives for ``qual`` (a function or a dtype of torch's top
    module): its torch-signature function, or the target's own name when the arguments need no
    translation (an exact entry, no template) and the target is one name of ``ms`` / ``ops`` (a
    method or an expression is not a value the lookup can give)."""
    if qual in named:
        return named[qual]
    if translates(entry) or entry.rule or entry.template or entry.label != "exact" \
            or not re.fullmatch(r"(ms|ops)\.\w+", entry.target):
        return None
    owner, _, attr = converter.tname(entry.target).rpartition(".")
    return f"getattr({owner}, {attr!r}, None)"


def signature_names(defs: list[Definition]) -> dict[str, str]:
    """torch's qualified name -> the runtime's class or function with its signature."""
    out = {qual: d.name for d in defs for qual in d.quals}
    out.update({qual: name for qual, name in (*_CONTAINERS.items(), *_FUNCTION_TEMPLATES.items())})
    out["torch.nn.ModuleDict"] = "TorchModuleDict"  # (plain nn.CellDict unless a value may be a container)
    out.update(_hand_written_signatures())
    return dict(sorted(out.items()))


def _hand_written_signatures() -> dict[str, str]:
    """torch names whose torch-signature class is hand-written (its natural name is defined by a
    runtime module: torch.nn.ParameterList -> containers.TorchParameterList)."""
    hand = _hand_written_names()
    return {qual: _natural_name(qual) for qual in candidates(load_tables()) if _natural_name(qual) in hand}


def generated_module(defs: list[Definition] | None = None) -> str:
    """The text of ``migrate/runtime/generated.py``."""
    defs = definitions() if defs is None else defs
    body = "\n\n".join(_definition_text(d) for d in defs)
    nn_values, functional_values, torch_values, replaced = lookup_tables(defs)
    tables = [
        _table_text("TORCH_NN", "getattr(torch.nn, name) for a name only run time knows", nn_values),
        _table_text("TORCH_FUNCTIONAL", "getattr(torch.nn.functional, name) for a name only run time knows",
                    functional_values),
        _table_text("TORCH_TOP", "getattr(torch, name) for a name only run time knows (functions, dtypes)",
                    torch_values),
        "# einops' modules, as imports by name find them (migrate.runtime.imports)\nREPLACED_MODULES = {\n"
        + "".join(f"    {module!r}: {{\n" + "".join(f"        {k!r}: {v},\n" for k, v in sorted(names.items()))
                  + "    },\n" for module, names in sorted(replaced.items())) + "}\n",
    ]
    text = body + "\n\n" + "\n\n".join(tables)
    names = {**_hand_written_names(), "TARGET": "backend", "init": "backend", "ms": "backend", "nn": "backend",
             "ops": "backend"}
    return _HEADER + _import_block(text, names) + "\n\n" + text


def index_module(defs: list[Definition] | None = None) -> str:
    """The text of ``migrate/runtime/index.py``: where each runtime name is defined, and the
    torch-signature name of each torch name (read by the converter, which imports no framework)."""
    defs = definitions() if defs is None else defs
    exports = {**_hand_written_names(), **{d.name: "generated" for d in defs}}
    lines = ['"""Generated by ``python -m migrate.convert.generate_runtime``: do not edit.',
             "",
             "``EXPORTS``: each public name of the runtime -> the module that defines it (the package's",
             "lazy attributes and the converter read it); ``SIGNATURES``: torch's qualified name -> the",
             "runtime's class or function that takes torch's arguments; ``TARGET_ONLY``: the generated",
             'names one target has and the other lacks -> that target."""', "",
             "EXPORTS = {", *(f"    {k!r}: {v!r}," for k, v in sorted(exports.items())), "}", "",
             "SIGNATURES = {", *(f"    {k!r}: {v!r}," for k, v in signature_names(defs).items()), "}", "",
             "TARGET_ONLY = {",
             *(f"    {d.name!r}: {t!r}," for d in defs for t in TARGETS
               if d.sources[t] is not None and any(d.sources[o] is None for o in TARGETS if o != t)),
             "}", ""]
    return "\n".join(lines)


def outputs() -> dict[Path, str]:
    """Each generated file's path and text."""
    defs = definitions()
    return {RUNTIME / "generated.py": generated_module(defs), RUNTIME / "index.py": index_module(defs)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m migrate.convert.generate_runtime",
                                     description="Generate migrate/runtime/generated.py and index.py from "
                                                 "the mapping tables.")
    parser.add_argument("--check", action="store_true",
                        help="only compare with the committed files; exit 1 when they differ")
    args = parser.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
