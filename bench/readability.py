"""Readability of converted code: the realworld corpus converted, then read as a reviewer would.

The sources are the ones `bench/realworld.py` lists (staged the same way, converted with the CLI);
each converted file is compared with its input:

- **generated lines in user files** (goal 0): top-level classes and functions the output defines
  and the input does not (`TorchConv2d`, `torch_size`, `TorchMissing`, einops helpers...), with
  the comment lines just above them and the blank lines after; the training rewrite's own
  functions (`forward_fn`) are user code, not generated;
- **output lines / input lines** (goal <= 1.05): of the code itself, imports (import statements,
  `try: import ... except ImportError:` blocks) and generated lines counted apart; a module the
  conversion writes into the output tree (a file the input does not have) is counted apart too;
- **machine-shaped patterns** (goal 0 each), counted with their locations, where the output has
  more of them than the input at the same place (same enclosing function, same text):
  see `PATTERNS`;
- **longest-line growth**: per file, the longest line of the output's own code against the
  input's.

Usage::

    python bench/readability.py --cache /work/cache --dl-dir /work/cache/dl --snapshots /work/cache/src
    python bench/readability.py ... --only timm,monai --json readability.json --locations 5
    python bench/readability.py --work DIR --no-convert     # measure trees already converted in DIR

Only the standard library and this project are used; not part of the test suite.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realworld  # bench/ is not a package: imported from its directory

PATTERNS = {
    "lambda-in-place": "a lambda called where it is written: (lambda s: ...)(x)",
    "constant-condition": "a True/False constant in a condition: a if True else b, c and False, if True:",
    "same-branches": "both branches the same: x if c else x",
    "self-assign": "x = x",
    "tuple-self-assign": "x, y = x, y",
    "copy-chain": "copy_ nested in copy_: a.copy_(a.copy_(a.copy().mul(d)).copy().add(p))",
    "copy-in-place": "one in-place op as a copy_ of a copy(): x.copy_(x.copy().mul(y)) (counted, no goal: "
                     "MindSpore 2.10's ms.grad refuses x.copy_(x * y), mul saved x)",
    "private-name": "a private MindSpore name: ms._no_grad, ops._xxx",
    "set-train-on-loss": "set_train (or torch_train/torch_eval) on a loss",
    "pass-left": "a pass where a statement was removed",
    "device-none": "device = None left where a device was",
    "ms-nn-renamed": "the target's nn (ops, ...) imported as ms_nn because torch's nn stayed under that name",
    "setattr-literal": "setattr(obj, 'name', value) with a literal name",
    "empty-torch-container": "an empty TorchSequential() / TorchModuleList() never filled by name (add_module) "
                             "nor given None: nn.SequentialCell() / nn.CellList() mean the same",
}
TARGET_PACKAGES = ("ms_core", "mindspore")
# functions the training rewrite writes into user code (not run-time help)
TRAINING_NAMES = re.compile(r"(forward_fn|train_step)(_\d+)?$")
LOSS_NAME = re.compile(r"loss|criterion", re.IGNORECASE)
LONG = 120
EMPTY_CONTAINERS = ("TorchSequential", "TorchModuleList")
# what the plain MindSpore containers do not run: a child added by name (SequentialCell's construct
# runs its cell_list, which insert_child_to_cell does not extend on MindSpore 2.10)
FILLED_BY_NAME = ("add_module", "insert_child_to_cell", "register_module")
# methods the conversion renames: a finding keeps its place across the rename
SAME_SCOPE = {"construct": "forward", "bprop": "backward"}


# ---- one file --------------------------------------------------------------------------------

@dataclass
class FileMeasure:
    """What one converted file looks like next to its input."""

    path: str
    lines_in: int = 0
    lines_out: int = 0
    imports_in: int = 0
    imports_out: int = 0
    generated: int = 0
    generated_defs: list = field(default_factory=list)
    longest_in: int = 0
    longest_out: int = 0
    long_in: int = 0
    long_out: int = 0
    longest_import_out: int = 0
    findings: list = field(default_factory=list)  # (pattern, line, text)
    error: str = ""


def generated_lines(tree: ast.Module, lines: list[str], defined_in: set[str]) -> tuple[set[int], list[str]]:
    """(1-based line numbers, names) of the top-level definitions the input does not have."""
    out, names = set(), []
    for st in tree.body:
        if not isinstance(st, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if st.name in defined_in or TRAINING_NAMES.match(st.name):
            continue
        names.append(st.name)
        start = min([st.lineno] + [d.lineno for d in st.decorator_list])
        while start > 1 and lines[start - 2].lstrip().startswith("#"):
            start -= 1  # the block's header comment
        end = st.end_lineno
        while end < len(lines) and not lines[end].strip():
            end += 1  # the blank lines after it
        out.update(range(start, end + 1))
    return out, names


def _catches_import_error(node: ast.Try) -> bool:
    return any(realworld._catches_import_error(h) for h in node.handlers)


def _type_checking_guard(node: ast.If) -> bool:
    """The converter's guard of a torch import that stays: `if TYPE_CHECKING: import ...` with an
    `else:` binding the names to stand-ins (`name = TorchMissing(...)`)."""
    test = node.test
    name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
    return name == "TYPE_CHECKING" and bool(node.body) \
        and all(isinstance(st, (ast.Import, ast.ImportFrom)) for st in node.body)


def import_lines(tree: ast.Module) -> set[int]:
    """Lines of import statements anywhere and of top-level import guards: `try: import ...
    except ImportError:` and `if TYPE_CHECKING: import ... else: name = TorchMissing(...)`."""
    out = set()
    for st in tree.body:
        if isinstance(st, ast.Try) and _catches_import_error(st) \
                or isinstance(st, ast.If) and _type_checking_guard(st):
            out.update(range(st.lineno, st.end_lineno + 1))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(range(node.lineno, node.end_lineno + 1))
    return out


def target_names(tree: ast.Module) -> set[str]:
    """Local names bound to the target package or its modules (ms, ops, nn, mindspore...)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in TARGET_PACKAGES:
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in TARGET_PACKAGES:
            names.update(a.asname or a.name for a in node.names)
    return names


def loss_names(tree: ast.Module) -> set[str]:
    """Names (and self attributes) assigned a call of a class named ...Loss."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            callee = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if callee.lower().endswith("loss"):
                out.update(ast.unparse(t) for t in node.targets)
    return out


def _is_bool(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, bool)


def _constant_condition(test) -> bool:
    if _is_bool(test):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _constant_condition(test.operand)
    return isinstance(test, ast.BoolOp) and any(_constant_condition(v) for v in test.values)


def _root_name(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _calls(node, method: str) -> list[ast.Call]:
    """The calls of ``.method(...)`` in ``node``'s subtree."""
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == method]


def torch_bound(tree: ast.Module) -> set[str]:
    """Local names an import of torch binds (``nn`` in ``import torch.nn as nn``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[0] == "torch")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "torch":
            names.update(a.asname or a.name for a in node.names)
    return names


class PatternFinder(ast.NodeVisitor):
    """The machine-shaped patterns of one module: (pattern, scope, key text, line)."""

    def __init__(self, tree: ast.Module, skip: set[int]):
        self.skip, self.scope, self.found = skip, [], []
        self.targets, self.losses, self.torch = target_names(tree), loss_names(tree), torch_bound(tree)
        self.filled_by_name = {ast.unparse(c.func.value) for m in FILLED_BY_NAME for c in _calls(tree, m)}
        # a list given None (`.append(None)`): MindSpore's CellList refuses it, torch's keeps the index
        self.filled_by_name |= {ast.unparse(c.func.value) for m in ("append", "insert") for c in _calls(tree, m)
                                if c.args and _is_none(c.args[-1])}
        self._in_chain = 0

    def add(self, pattern: str, node, text: str | None = None) -> None:
        if node.lineno not in self.skip:
            text = (text or ast.unparse(node)).replace("\n", " ")
            self.found.append((pattern, ".".join(self.scope), text, node.lineno))

    def _scoped(self, node):
        self.scope.append(SAME_SCOPE.get(node.name, node.name))
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Lambda):
            self.add("lambda-in-place", node)
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name == "copy_" and not self._in_chain:
            inner = [c for part in (f.value, *node.args) for c in _calls(part, "copy_")]
            if inner:
                self.add("copy-chain", node)
                self._in_chain += 1
                self.generic_visit(node)
                self._in_chain -= 1
                return
            receiver = ast.dump(f.value)
            if any(ast.dump(c.func.value) == receiver for a in node.args for c in _calls(a, "copy")):
                self.add("copy-in-place", node)
        self._loss_mode(node, name)
        if name == "setattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier():
            self.add("setattr-literal", node)
        self.generic_visit(node)

    def _loss_mode(self, node: ast.Call, name: str) -> None:
        receiver = None
        if name == "set_train" and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
        elif name in ("torch_train", "torch_eval", "_torch_train", "_torch_eval") and node.args:
            receiver = node.args[0]
        if receiver is not None:
            text = ast.unparse(receiver)
            if text in self.losses or LOSS_NAME.search(text.rsplit(".", 1)[-1]):
                self.add("set-train-on-loss", node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        if _constant_condition(node.test):
            self.add("constant-condition", node)
        if ast.dump(node.body) == ast.dump(node.orelse):
            self.add("same-branches", node)
        self.generic_visit(node)

    def _statement_test(self, node) -> None:
        if _constant_condition(node.test):
            keyword = "while" if isinstance(node, ast.While) else "if"
            self.add("constant-condition", node.test, f"{keyword} {ast.unparse(node.test)}:")
        self.generic_visit(node)

    visit_If = visit_While = _statement_test

    def _empty_container(self, target, value) -> None:
        """An empty torch-signature container bound to a name that no add_module fills (and, a
        list, that is given no None)."""
        f = value.func if isinstance(value, ast.Call) else None
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name in EMPTY_CONTAINERS and not value.args and not value.keywords \
                and ast.unparse(target) not in self.filled_by_name:
            self.add("empty-torch-container", value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._empty_container(node.target, node.value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._empty_container(t, node.value)
        if len(node.targets) == 1:
            t, v = node.targets[0], node.value
            if isinstance(t, (ast.Name, ast.Attribute)) and ast.unparse(t) == ast.unparse(v):
                self.add("self-assign", node)
            elif isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and \
                    ast.unparse(t) == ast.unparse(v):
                self.add("tuple-self-assign", node)
            if _is_none(v) and "device" in ast.unparse(t).rsplit(".", 1)[-1].lower():
                self.add("device-none", node)
        self.generic_visit(node)

    def visit_Pass(self, node: ast.Pass) -> None:
        self.add("pass-left", node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _private(node.attr) and _root_name(node.value) in self.targets:
            self.add("private-name", node)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module and node.module.split(".")[0] in TARGET_PACKAGES:
            for a in node.names:
                if _private(a.name) or _private(node.module.rsplit(".", 1)[-1]):
                    self.add("private-name", node)
                if self._renamed_for_torch(a.asname):
                    self.add("ms-nn-renamed", node)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name.split(".")[0] in TARGET_PACKAGES and self._renamed_for_torch(a.asname):
                self.add("ms-nn-renamed", node)

    def _renamed_for_torch(self, asname: str | None) -> bool:
        """``ms_nn``: the target's module under another name because torch's holds the plain one."""
        return bool(asname) and asname.startswith("ms_") and asname[3:] in self.torch


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def introduced(found_in: list, found_out: list) -> list[tuple[str, int, str]]:
    """The output's findings beyond the input's at the same place: (pattern, line, text)."""
    have = Counter((p, scope, text) for p, scope, text, _ in found_in)
    out = []
    for p, scope, text, line in found_out:
        if have[(p, scope, text)] > 0:
            have[(p, scope, text)] -= 1
        else:
            out.append((p, line, text))
    return out


def _longest(lines: list[str], skip: set[int] = frozenset()) -> tuple[int, int]:
    """(longest line, lines over LONG columns), lines in `skip` left out."""
    widths = [len(ln) for i, ln in enumerate(lines, 1) if i not in skip]
    return max(widths, default=0), sum(w > LONG for w in widths)


def measure_file(before: str, after: str, path: str) -> FileMeasure:
    """Measure one converted file against its input."""
    m = FileMeasure(path)
    lines_in, lines_out = before.splitlines(), after.splitlines()
    m.lines_in, m.lines_out = len(lines_in), len(lines_out)
    try:
        tree_in, tree_out = ast.parse(before), ast.parse(after)
    except SyntaxError as exc:
        m.error = f"does not parse: {exc.msg} (line {exc.lineno})"
        return m
    defined_in = {n.name for n in ast.walk(tree_in) if isinstance(n, (ast.ClassDef, ast.FunctionDef,
                                                                       ast.AsyncFunctionDef))}
    gen, m.generated_defs = generated_lines(tree_out, lines_out, defined_in)
    m.generated = len(gen)
    imports_in, imports_out = import_lines(tree_in), import_lines(tree_out) - gen
    m.imports_in, m.imports_out = len(imports_in), len(imports_out)
    m.longest_in, m.long_in = _longest(lines_in, imports_in)
    m.longest_out, m.long_out = _longest(lines_out, gen | imports_out)
    m.longest_import_out = max((len(lines_out[i - 1]) for i in imports_out), default=0)
    found_in, found_out = PatternFinder(tree_in, set()), PatternFinder(tree_out, gen)
    found_in.visit(tree_in)
    found_out.visit(tree_out)
    m.findings = introduced(found_in.found, found_out.found)
    return m


def _read(p: Path) -> str:
    return p.read_text(encoding="utf-8", errors="replace")


def measure_tree(staged: Path, converted: Path) -> tuple[list[FileMeasure], dict[str, int]]:
    """Every input .py file against its output; and {path: lines} of the .py files the output
    tree has and the input has not (a run-time module the conversion wrote)."""
    files, extra = [], {}
    for p in sorted(staged.rglob("*.py")):
        rel = p.relative_to(staged).as_posix()
        out = converted / rel
        if not out.exists():
            files.append(FileMeasure(rel, lines_in=len(_read(p).splitlines()), error="no output"))
            continue
        files.append(measure_file(_read(p), _read(out), rel))
    for p in sorted(converted.rglob("*.py")):
        if not (staged / p.relative_to(converted)).exists():
            extra[p.relative_to(converted).as_posix()] = len(_read(p).splitlines())
    return files, extra


# ---- a source, the corpus --------------------------------------------------------------------

@dataclass
class SourceMeasure:
    """The sums over one source's files."""

    name: str
    files: int = 0
    lines_in: int = 0
    lines_out: int = 0
    imports_in: int = 0
    imports_out: int = 0
    generated: int = 0
    files_generated: int = 0
    largest_block: int = 0
    generated_defs: dict = field(default_factory=dict)
    runtime_modules: dict = field(default_factory=dict)
    grown_longest: int = 0
    max_growth: tuple = (0, "")
    longest_in: int = 0
    longest_out: int = 0
    long_in: int = 0
    long_out: int = 0
    longest_import_out: int = 0
    patterns: dict = field(default_factory=dict)  # pattern -> ["path:line: text", ...]
    errors: list = field(default_factory=list)
    skipped: str = ""

    @property
    def code_in(self) -> int:
        return self.lines_in - self.imports_in

    @property
    def code_out(self) -> int:
        return self.lines_out - self.imports_out - self.generated


def summarize(name: str, files: list[FileMeasure], extra: dict[str, int]) -> SourceMeasure:
    """Add up one source's file measures."""
    s = SourceMeasure(name, files=len(files), runtime_modules=extra)
    for m in files:
        for k in ("lines_in", "lines_out", "imports_in", "imports_out", "generated", "long_in", "long_out"):
            setattr(s, k, getattr(s, k) + getattr(m, k))
        if m.error:
            s.errors.append(f"{m.path}: {m.error}")
        s.files_generated += m.generated > 0
        s.largest_block = max(s.largest_block, m.generated)
        for d in m.generated_defs:
            s.generated_defs[d] = s.generated_defs.get(d, 0) + 1
        s.longest_in, s.longest_out = max(s.longest_in, m.longest_in), max(s.longest_out, m.longest_out)
        s.longest_import_out = max(s.longest_import_out, m.longest_import_out)
        growth = m.longest_out - m.longest_in
        s.grown_longest += growth > 0
        if growth > s.max_growth[0]:
            s.max_growth = (growth, f"{name}/{m.path}")
        for pattern, line, text in m.findings:
            s.patterns.setdefault(pattern, []).append(f"{name}/{m.path}:{line}: {text[:160]}")
    return s


def convert_source(src: realworld.Source, args, work: Path) -> tuple[Path, Path] | str:
    """Stage and convert one source: (staged dir, converted dir), or why it was skipped."""
    staged, converted = work / "src" / src.name, work / "out" / src.name
    if args.no_convert:
        return (staged, converted) if staged.is_dir() and converted.is_dir() else f"nothing in {work}"
    snapshots = Path(args.snapshots) if args.snapshots else None
    root = realworld.source_root(src, Path(args.cache), args.dl_dir, snapshots)
    if root is None:
        return f"snapshot of {src.spec} not found under --snapshots"
    realworld.stage(src, root, staged)
    _, code, err = realworld.run_cli_convert(staged, converted, args.jobs, None, target=args.target)
    if code not in (0, 1):
        return f"migrate convert exited {code}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    return staged, converted


def run(args) -> list[SourceMeasure]:
    work = Path(args.work)
    only = set(args.only.split(",")) if args.only else None
    results = []
    for src in realworld.SOURCES:
        if only is not None and src.name not in only:
            continue
        t0 = time.perf_counter()
        where = convert_source(src, args, work)
        if isinstance(where, str):
            results.append(SourceMeasure(src.name, skipped=where))
            print(f"[{src.name}] skipped: {where}", flush=True)
            continue
        files, extra = measure_tree(*where)
        results.append(summarize(src.name, files, extra))
        print(f"[{src.name}] {len(files)} files ({time.perf_counter() - t0:.1f} s)", flush=True)
    return results


def total(results: list[SourceMeasure]) -> SourceMeasure:
    """The corpus as one source."""
    t = SourceMeasure("total")
    for r in results:
        for k in ("files", "lines_in", "lines_out", "imports_in", "imports_out", "generated", "files_generated",
                  "grown_longest", "long_in", "long_out"):
            setattr(t, k, getattr(t, k) + getattr(r, k))
        t.largest_block = max(t.largest_block, r.largest_block)
        t.longest_in, t.longest_out = max(t.longest_in, r.longest_in), max(t.longest_out, r.longest_out)
        t.longest_import_out = max(t.longest_import_out, r.longest_import_out)
        t.max_growth = max(t.max_growth, r.max_growth)
        for d, n in r.generated_defs.items():
            t.generated_defs[d] = t.generated_defs.get(d, 0) + n
        for k, v in r.runtime_modules.items():
            t.runtime_modules[f"{r.name}/{k}"] = v
        for p, locs in r.patterns.items():
            t.patterns.setdefault(p, []).extend(locs)
        t.errors += r.errors
    return t


# ---- output ----------------------------------------------------------------------------------

def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def source_row(r: SourceMeasure) -> list:
    if r.skipped:
        return [r.name, "skipped: " + r.skipped] + [""] * 9
    return [r.name, r.files, r.lines_in, r.lines_out, f"{r.imports_in} -> {r.imports_out}",
            f"{r.generated} ({r.files_generated} files)", sum(r.runtime_modules.values()),
            _ratio(r.code_out, r.code_in), _ratio(r.lines_out, r.lines_in),
            sum(len(v) for v in r.patterns.values()),
            f"{r.grown_longest}; {r.longest_in} -> {r.longest_out}"]


HEADERS = ["source", "files", "lines in", "lines out", "import lines in -> out", "generated lines in user files",
           "runtime module lines", "code out / in", "all out / in", "patterns",
           "longest line grew (files); max in -> out"]


def render(results: list[SourceMeasure], locations: int = 1) -> str:
    t = total(results)
    rows = [source_row(r) for r in results] + [["**total**", *source_row(t)[1:]]]
    out = [realworld._table(HEADERS, rows)]
    defs = sorted(t.generated_defs.items(), key=lambda kv: -kv[1])
    out.append(f"generated in user files: {t.generated} lines in {t.files_generated} of {t.files} files "
               f"({100 * t.generated / max(t.lines_out, 1):.1f} % of the output), {len(defs)} distinct definitions "
               f"pasted {sum(n for _, n in defs)} times, largest block {t.largest_block} lines"
               + (f"; most pasted: {', '.join(f'{d} x{n}' for d, n in defs[:8])}" if defs else ""))
    out.append(f"longest line of code (imports and generated lines apart): grew in {t.grown_longest} files; by "
               f"{t.max_growth[0]} columns at most ({t.max_growth[1] or '-'}); lines over {LONG} columns: "
               f"{t.long_in} in, {t.long_out} out; longest import or import-guard line out: {t.longest_import_out}")
    prow = []
    for p, what in PATTERNS.items():
        locs = t.patterns.get(p, [])
        files = len({loc.split(":", 1)[0] for loc in locs})
        prow.append([p, len(locs), files, what, "<br>".join(x.replace("|", "\\|") for x in locs[:locations]) or "-"])
    out.append(realworld._table(["pattern", "count", "files", "what", "first location" if locations == 1
                                 else f"first {locations} locations"], prow))
    if t.errors:
        out.append("files not measured: " + "; ".join(t.errors[:10]))
    return "\n\n".join(out)


def to_json(results: list[SourceMeasure], args) -> dict:
    def one(r: SourceMeasure) -> dict:
        d = {k: getattr(r, k) for k in SourceMeasure.__dataclass_fields__}
        d.update(code_in=r.code_in, code_out=r.code_out, code_ratio=round(r.code_out / r.code_in, 4) if r.code_in
                 else None, pattern_counts={p: len(r.patterns.get(p, [])) for p in PATTERNS})
        return d
    return {"date": str(datetime.date.today()), "target": args.target, "patterns": PATTERNS,
            "total": one(total(results)), "sources": [one(r) for r in results]}


def main(argv=None) -> int:
    default_cache = os.environ.get("MS_MIGRATE_BENCH_CACHE", str(Path.home() / ".cache" / "ms-migrate-bench"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=default_cache, help="download/unpack cache (as bench/realworld.py)")
    ap.add_argument("--dl-dir", action="append",
                    default=[d for d in os.environ.get("MS_MIGRATE_BENCH_DL", "").split(os.pathsep) if d],
                    help="a directory of already downloaded archives (repeatable)")
    ap.add_argument("--snapshots", default=os.environ.get("MS_MIGRATE_BENCH_SNAPSHOTS"),
                    help="directory with GitHub snapshots unpacked as gh_<owner>+<repo>/")
    ap.add_argument("--work", help="staged and converted trees (default <cache>/readability)")
    ap.add_argument("--no-convert", action="store_true", help="measure the trees already in --work")
    ap.add_argument("--only", help="comma-separated source names (bench/realworld.py's)")
    ap.add_argument("--target", choices=("ms_core", "mindspore"), default="ms_core")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="converter processes")
    ap.add_argument("--locations", type=int, default=1, help="locations shown per pattern")
    ap.add_argument("--json", help="write the measures (every location) as JSON")
    args = ap.parse_args(argv)
    args.work = args.work or str(Path(args.cache) / "readability")
    t0 = time.perf_counter()
    results = run(args)
    print()
    print(render(results, args.locations))
    print(f"\n{datetime.date.today()}  target {args.target}  total {time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(to_json(results, args), indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
