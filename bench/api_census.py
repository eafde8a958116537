"""API census: which torch APIs real PyTorch code uses, and how many of those uses the converter maps.

Walks a corpus of published PyTorch code (pinned PyPI packages fetched with ``pip download
--no-deps``, plus GitHub snapshots when present), resolves every torch reference with the
converter's own import-alias resolution, counts call sites per qualified API, gives each API its
status from the mapping tables (mapped / marked / unknown) and writes ``docs/coverage.md``.
Not part of the test suite.

    python bench/api_census.py --cache /tmp/census/cache --reuse /work/cache/dl --reuse /work/cache/src

What is counted (``docs/coverage.md`` repeats this for readers):

- **calls**: ``f(...)`` where ``f`` resolves to a qualified torch/torchvision name through the
  file's imports (``nn.Conv2d(...)`` -> ``torch.nn.Conv2d``);
- **references**: such a name used without a call (``norm_layer=nn.BatchNorm2d``, base classes,
  annotations, dtypes, decorators);
- **tensor and module methods, by name**: ``x.view(...)`` cannot be resolved by alias, so a method
  call whose name is a public method of ``torch.Tensor`` (or of ``torch.nn.Module``) counts as
  ``Tensor.<name>`` (``Module.<name>``), only in files that import torch; see
  :func:`method_api` for the limits that keep false positives down.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import fnmatch
import hashlib
import inspect
import os
import pickle
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# --------------------------------------------------------------------------------------------
# the corpus (data)
# --------------------------------------------------------------------------------------------
# transformers is large (~900k lines, TF and Flax included): only the PyTorch modelling files of
# these architectures are read.
TRANSFORMERS_MODELS = ("bert", "roberta", "gpt2", "gpt_neox", "t5", "bart", "llama", "vit", "swin",
                       "convnext", "clip", "whisper", "wav2vec2")


@dataclasses.dataclass(frozen=True)
class Package:
    """A pinned PyPI package; ``include`` (globs on paths inside the archive) picks a subset."""

    requirement: str
    include: tuple[str, ...] = ()
    subset: str = ""

    @property
    def name(self) -> str:
        return self.requirement.split("==")[0]

    @property
    def version(self) -> str:
        return self.requirement.split("==")[1]


PACKAGES = (
    Package("timm==0.9.16"),
    Package("kornia==0.7.3"),
    Package("geffnet==1.0.2"),
    Package("resnest==0.0.5"),
    Package("pytorch-tcn==1.2.3"),
    Package("pretrainedmodels==0.7.4"),
    Package("efficientnet_pytorch==0.7.1"),
    Package("segmentation_models_pytorch==0.3.3"),
    Package("pytorch_tabnet==4.1.0"),
    Package("vit_pytorch==1.7.0"),
    Package("torchdiffeq==0.2.4"),
    Package("x_transformers==1.27.0"),
    Package("monai==1.3.2"),
    Package("torch_geometric==2.5.3"),
    Package("gpytorch==1.11"),
    Package("torchvision==0.18.1"),
    Package("transformers==4.40.2",
            include=tuple(f"transformers/models/{m}/modeling_{m}.py" for m in TRANSFORMERS_MODELS)
            + ("transformers/activations.py", "transformers/pytorch_utils.py"),
            subset="modeling_*.py of " + ", ".join(TRANSFORMERS_MODELS)
                   + "; activations.py, pytorch_utils.py"),
)
# GitHub snapshots (no PyPI release): read from a --reuse directory holding ``gh_<owner>+<repo>``.
SNAPSHOTS = ("pytorch/examples", "karpathy/nanoGPT", "karpathy/minGPT", "kuangliu/pytorch-cifar")

# --------------------------------------------------------------------------------------------
# converter internals: every import of migrate's code is here
# --------------------------------------------------------------------------------------------
_INTERNALS: dict | None = None


def converter_internals() -> dict:
    """Return the converter's ``torch_bindings`` and ``dotted`` and its rule registry ``RULES``.

    migrate/ is being restructured into migrate/convert/...: try the likely new modules first,
    then the old ones. ``where`` says which module each name came from.
    """
    global _INTERNALS
    if _INTERNALS is not None:
        return _INTERNALS
    import importlib
    wanted = {
        "torch_bindings": ("migrate.convert.imports", "migrate.convert.aliases", "migrate.convert.cst",
                           "migrate.convert.cst_helpers", "migrate.convert.walker", "migrate.convert"),
        "dotted": ("migrate.convert.cst", "migrate.convert.cst_helpers", "migrate.convert.imports",
                   "migrate.convert.aliases", "migrate.convert.walker", "migrate.convert"),
        "RULES": ("migrate.convert.registry", "migrate.convert.rules", "migrate.convert.rule_registry",
                  "migrate.rules"),
    }
    found, where = {}, {}
    for name, modules in wanted.items():
        for mod in modules:
            try:
                value = getattr(importlib.import_module(mod), name)
            except (ImportError, AttributeError):
                continue
            found[name], where[name] = value, mod
            break
        else:
            raise SystemExit(f"api_census: cannot find the converter's {name!r} (tried {', '.join(modules)})")
    # the training pass registers its statement rules (zero_grad, autocast, ...) when imported
    for mod in ("migrate.convert.training", "migrate.training"):
        try:
            importlib.import_module(mod)
            break
        except ImportError:
            continue
    found["where"] = where
    _INTERNALS = found
    return found


# APIs that a named rule converts instead of a table entry: API -> rule name in RULES.
NAMED_RULE_APIS = {
    **dict.fromkeys(("torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled",
                     "torch.autograd.no_grad"), "no_grad"),
    **dict.fromkeys(("torch.autograd.Function", "torch.autograd.function.Function"), "autograd_function"),
    **dict.fromkeys(("torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast",
                     "torch.amp.autocast_mode.autocast"), "autocast"),
    **dict.fromkeys(("torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
                     "torch.nn.utils.clip_grad.clip_grad_norm_"), "clip_grad_norm"),
    **dict.fromkeys(("torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_"),
                    "clip_grad_value"),
    "torch.autograd.grad": "autograd_grad",
    **dict.fromkeys(("torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset",
                     "torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"),
                    "dataset_base"),
    "Tensor.backward": "training_step",
    "Module.zero_grad": "zero_grad",
}
# where a named rule applies only inside a recognised training step (the rest is marked)
_IN_TRAINING_STEP = {"training_step", "zero_grad", "clip_grad_norm", "clip_grad_value"}

# --------------------------------------------------------------------------------------------
# fetching and unpacking
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class CorpusPart:
    """One package or snapshot of the corpus as read."""

    name: str
    version: str
    source: str
    root: Path
    files: list[Path]
    own_root: str = ""  # its own top-level module: references to it are not external API uses


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _find_archive(pkg: Package, dirs: list[Path]) -> Path | None:
    for d in dirs:
        if not d.is_dir():
            continue
        for f in sorted(d.iterdir()):
            if not (f.name.endswith(".whl") or f.name.endswith(".tar.gz")):
                continue
            stem = f.name[:-4] if f.name.endswith(".whl") else f.name[:-7]
            parts = stem.split("-")
            if len(parts) >= 2 and _norm(parts[0]) == _norm(pkg.name) and parts[1] == pkg.version:
                return f
    return None


def _download(pkg: Package, dl: Path) -> Path | None:
    dl.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dl),
                          pkg.requirement], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"  {pkg.requirement}: pip download failed: {run.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return None
    return _find_archive(pkg, [dl])


def _unpack(archive: Path, dest: Path, include: tuple[str, ...]) -> None:
    """Extract the .py files of ``archive`` (those matching ``include`` when given) into ``dest``."""
    def wanted(path: str) -> bool:
        if not path.endswith(".py"):
            return False
        return not include or any(fnmatch.fnmatch(path, g) for g in include)

    tmp = dest.with_name(dest.name + ".part")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if wanted(info.filename) and ".." not in Path(info.filename).parts:
                    z.extract(info, tmp)
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                inner = m.name.split("/", 1)[1] if "/" in m.name else m.name  # drop name-version/
                if m.isfile() and wanted(inner) and ".." not in Path(m.name).parts \
                        and not m.name.startswith("/"):
                    if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
                        t.extract(m, tmp, filter="data")
                    else:
                        t.extract(m, tmp)
    tmp.rename(dest)


def _py_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def ensure_corpus(cache: Path, reuse: list[Path], download: bool = True) -> list[CorpusPart]:
    """Fetch (pip download --no-deps) and unpack every package; find the GitHub snapshots.

    Args:
        cache: writable directory: ``dl/`` for archives, ``src/`` for unpacked sources.
        reuse: read-only directories searched first for archives (by file name) and snapshots
            (``gh_<owner>+<repo>``).
        download: when False, packages with no archive at hand are left out.

    Returns:
        The parts of the corpus that could be had, packages first.

    Example:
        >>> parts = ensure_corpus(Path("/tmp/census"), [])  # doctest: +SKIP
    """
    parts = []
    for pkg in PACKAGES:
        archive = _find_archive(pkg, [cache / "dl", *reuse])
        if archive is None and download:
            print(f"  downloading {pkg.requirement}", file=sys.stderr)
            archive = _download(pkg, cache / "dl")
        if archive is None:
            print(f"  {pkg.requirement}: not available, left out", file=sys.stderr)
            continue
        key = hashlib.sha1("|".join(pkg.include).encode()).hexdigest()[:8] if pkg.include else "all"
        dest = cache / "src" / f"{_norm(pkg.name)}-{pkg.version}-{key}"
        if not dest.is_dir():
            _unpack(archive, dest, pkg.include)
        kind = "wheel" if archive.name.endswith(".whl") else "sdist"
        parts.append(CorpusPart(pkg.name, pkg.version, f"PyPI {kind}" + (f" ({pkg.subset})" if pkg.subset else ""),
                                dest, _py_files(dest), own_root=_norm(pkg.name)))
    for repo in SNAPSHOTS:
        dirname = "gh_" + repo.replace("/", "+")
        found = next((d / dirname for d in [cache / "src", *reuse] if (d / dirname).is_dir()), None)
        if found is None:
            print(f"  snapshot {repo}: no {dirname}/ in the cache or --reuse directories, left out",
                  file=sys.stderr)
            continue
        parts.append(CorpusPart(repo, "snapshot", "GitHub snapshot", found, _py_files(found)))
    return parts


# --------------------------------------------------------------------------------------------
# scanning one file
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class FileScan:
    """What one file uses: calls and references by qualified name, method calls by (name, receiver)."""

    lines: int
    imports_torch: bool = False
    calls: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    refs: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    methods: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    error: str = ""


# fields that hold no code to count: names being defined, keywords, punctuation, whitespace
_SKIP_FIELDS = frozenset({"name", "asname", "keyword", "attr", "lpar", "rpar", "comma", "semicolon",
                          "leading_lines", "lines_after_decorators", "header", "footer",
                          "trailing_whitespace", "equal", "colon", "lbrace", "rbrace", "lbracket",
                          "rbracket", "dot", "star", "operator", "asynchronous", "encoding",
                          "default_indent", "default_newline", "has_trailing_newline", "relative",
                          "first_line", "leading_whitespace", "indent", "posonly_ind"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(t: type) -> tuple[str, ...]:
    names = _FIELDS.get(t)
    if names is None:
        names = _FIELDS[t] = tuple(f.name for f in dataclasses.fields(t)
                                   if f.name not in _SKIP_FIELDS and not f.name.startswith("whitespace"))
    return names


class _Scanner:
    """One pass over a module: import aliases (the converter's resolution), calls, references,
    method calls. Module-level imports (also under if/try/with) apply to the whole file, as in the
    converter; an import inside a function or class applies from there on."""

    def __init__(self, cst, torch_bindings, dotted):
        self.cst, self.torch_bindings, self.dotted = cst, torch_bindings, dotted
        self.aliases: dict[str, str] = {}
        self.local_names: set[str] = set()  # imported modules/classes and classes defined here
        self.scan = FileScan(0)
        c = cst
        self.literal_types = (c.SimpleString, c.ConcatenatedString, c.FormattedString, c.Integer, c.Float,
                              c.Imaginary, c.List, c.Tuple, c.Dict, c.Set, c.ListComp, c.SetComp,
                              c.DictComp, c.GeneratorExp)

    def qual(self, node) -> str | None:
        d = self.dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base

    def bind(self, stmt) -> None:
        for local, qual in self.torch_bindings(stmt):
            if local != "*":
                self.aliases[local] = qual
        if not isinstance(stmt.names, self.cst.ImportStar):
            for a in stmt.names:
                name = a.asname.name if a.asname is not None else a.name
                if isinstance(name, self.cst.Name):
                    self.local_names.add(name.value)
                else:  # import a.b.c binds a
                    self.local_names.add(self.dotted(name).split(".")[0])

    def prepass(self, body, bind: bool = True) -> None:
        """Module-level imports (``bind``) and the names of the classes defined at module level
        and in them."""
        c = self.cst
        for st in body:
            if isinstance(st, c.SimpleStatementLine):
                for small in st.body:
                    if bind and isinstance(small, (c.Import, c.ImportFrom)):
                        self.bind(small)
            elif isinstance(st, c.ClassDef):
                self.local_names.add(st.name.value)
                if isinstance(st.body, c.IndentedBlock):
                    self.prepass(st.body.body, bind=False)  # a class body's imports come in order
            elif isinstance(st, c.FunctionDef):
                continue
            else:
                for name in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(st, name, None)
                    if sub is None:
                        continue
                    for block in (sub if isinstance(sub, (list, tuple)) else [sub]):
                        inner = getattr(block, "body", None)
                        inner = getattr(inner, "body", inner)
                        if isinstance(inner, (list, tuple)):
                            self.prepass(inner, bind)

    def run(self, module) -> FileScan:
        self.prepass(module.body)
        self.visit(module)
        self.scan.imports_torch = bool(self.aliases)
        return self.scan

    def visit(self, node) -> None:
        c = self.cst
        t = type(node)
        if t is c.Import or t is c.ImportFrom:
            self.bind(node)
            return
        if t is c.Call:
            self.visit_call(node)
            return
        if t is c.Name or t is c.Attribute:
            q = self.qual(node)
            if q is not None:
                self.scan.refs[q] += 1
                return
            if t is c.Attribute:
                self.visit(node.value)
            return
        for name in _fields(t):
            value = getattr(node, name)
            if type(value) in (list, tuple):
                for item in value:
                    if isinstance(item, c.CSTNode):
                        self.visit(item)
            elif isinstance(value, c.CSTNode):
                self.visit(value)

    def visit_call(self, node) -> None:
        c = self.cst
        func = node.func
        q = self.qual(func)
        if q is not None:
            self.scan.calls[q] += 1
        elif type(func) is c.Attribute:
            self.method_call(node, func)
            self.visit(func.value)
        else:
            self.visit(func)
        for arg in node.args:
            self.visit(arg.value)

    def method_call(self, node, func) -> None:
        """Record ``recv.name(...)`` by name with the receiver's kind, unless it is plainly not
        a tensor or module method."""
        c = self.cst
        name, recv = func.attr.value, func.value
        if name.startswith("_") or isinstance(recv, self.literal_types):
            return  # private/dunder; str/list/dict/number literals
        if type(recv) is c.Name and recv.value in self.local_names:
            return  # np.split(...), math.floor(...), MyFunction.apply(...): a module's or a class's
        if _plainly_not_tensor_call(name, node, c):
            return
        is_self = type(recv) is c.Name and recv.value == "self" or \
            type(recv) is c.Call and type(recv.func) is c.Name and recv.func.value == "super"
        self.scan.methods[(name, "self" if is_self else "other")] += 1


def _plainly_not_tensor_call(name: str, call, c) -> bool:
    """Method names that str/list/logging share with torch.Tensor, where the arguments tell the two
    apart: ``s.split()`` / ``s.split(",")`` (Tensor.split needs a size), ``lst.sort(key=...)``,
    ``logger.log(level, msg)`` (Tensor.log takes no argument)."""
    args = call.args
    if name == "split":
        return not args or isinstance(args[0].value, (c.SimpleString, c.ConcatenatedString, c.FormattedString))
    if name == "sort":
        return any(a.keyword is not None and a.keyword.value in ("key", "reverse") for a in args)
    if name == "log":
        return bool(args)
    return False


def scan_source(data: bytes) -> FileScan:
    """Scan one file's source.

    Args:
        data: the file's bytes (libcst honours an encoding declaration).

    Returns:
        A :class:`FileScan`; ``error`` is set (and nothing counted) when the file does not parse.

    Example:
        >>> s = scan_source(b"import torch.nn as nn\\nm = nn.Conv2d(3, 8, 3)\\ny = m(x).view(2, -1)\\n")
        >>> s.calls["torch.nn.Conv2d"], s.methods[("view", "other")]
        (1, 1)
    """
    import libcst as cst
    internals = converter_internals()
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    try:
        module = cst.parse_module(data)
    except (cst.ParserSyntaxError, RecursionError, UnicodeDecodeError, SyntaxError) as exc:
        first = str(exc).strip().splitlines()
        return FileScan(lines, error=f"{type(exc).__name__}: {first[0] if first else ''}"[:120])
    scanner = _Scanner(cst, internals["torch_bindings"], internals["dotted"])
    try:
        scan = scanner.run(module)
    except RecursionError:
        return FileScan(lines, error="RecursionError: nested too deeply")
    scan.lines = lines
    return scan


def _scan_path(path: str) -> tuple[str, FileScan]:
    data = Path(path).read_bytes()
    return hashlib.sha1(data).hexdigest(), scan_source(data)


# --------------------------------------------------------------------------------------------
# scanning the corpus, with a cache of results by file content
# --------------------------------------------------------------------------------------------
def _fingerprint() -> str:
    """Changes when this script or the converter's alias resolution changes."""
    internals = converter_internals()
    h = hashlib.sha1(Path(__file__).read_bytes())
    for name in ("torch_bindings", "dotted"):
        try:
            h.update(inspect.getsource(internals[name]).encode())
        except (OSError, TypeError):
            h.update(name.encode())
    return h.hexdigest()[:16]


def scan_corpus(parts: list[CorpusPart], cache: Path, jobs: int) -> dict[Path, FileScan]:
    """Scan every file of every part, reusing results cached by content hash."""
    store = cache / "census"
    store.mkdir(parents=True, exist_ok=True)
    cache_file = store / f"scans-{_fingerprint()}.pickle"
    known: dict[str, FileScan] = {}
    if cache_file.exists():
        with open(cache_file, "rb") as f:
            known = pickle.load(f)
    for old in store.glob("scans-*.pickle"):
        if old != cache_file:
            old.unlink()
    results: dict[Path, FileScan] = {}
    todo = []
    for part in parts:
        for path in part.files:
            digest = hashlib.sha1(path.read_bytes()).hexdigest()
            if digest in known:
                results[path] = known[digest]
            else:
                todo.append(path)
    if todo:
        print(f"  parsing {len(todo)} files ({len(results)} cached) with {jobs} processes", file=sys.stderr)
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                for path, (digest, scan) in zip(todo, pool.map(_scan_path, map(str, todo), chunksize=8)):
                    results[path], known[digest] = scan, scan
        else:
            for path in todo:
                digest, scan = _scan_path(str(path))
                results[path], known[digest] = scan, scan
        with open(cache_file, "wb") as f:
            pickle.dump(known, f)
    return results


# --------------------------------------------------------------------------------------------
# status of an API
# --------------------------------------------------------------------------------------------
_BUILTIN_TYPES = (dict, list, str, set, frozenset, tuple, bytes, bytearray, int, float, complex)


def _public_methods(cls) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n, None))}


@dataclasses.dataclass
class MethodNames:
    """The method names counted as ``Tensor.<name>`` / ``Module.<name>``."""

    tensor: set[str]
    module: set[str]
    ambiguous: set[str]  # shared with a builtin type's method (dict.values, list.index, ...)
    excluded: set[str]  # ambiguous and unmapped: not counted


def method_names(tables: dict) -> MethodNames:
    """Public methods of ``torch.Tensor`` / ``torch.nn.Module`` plus the tables' ``Tensor.*`` /
    ``Module.*`` names; names that builtin types also have are dropped unless mapped."""
    import torch
    tensor = _public_methods(torch.Tensor) | {k[7:] for k in tables if k.startswith("Tensor.")}
    module = _public_methods(torch.nn.Module) | {k[7:] for k in tables if k.startswith("Module.")}
    builtin = set().union(*(_public_methods(t) for t in _BUILTIN_TYPES))
    ambiguous = (tensor | module) & builtin
    excluded = {n for n in ambiguous if f"Tensor.{n}" not in tables and f"Module.{n}" not in tables}
    return MethodNames(tensor - excluded, module - excluded, ambiguous, excluded)


def method_api(name: str, receiver: str, names: MethodNames) -> str | None:
    """The API a method call counts as, or None.

    ``self.name(...)`` / ``super().name(...)`` count only as ``Module.<name>`` (on self, a
    tensor-method name is a sub-module or the class's own method: ``self.norm(x)``); any other
    receiver counts as ``Tensor.<name>`` first (``model.to(device)`` counts as ``Tensor.to``:
    names both classes have go to Tensor), else ``Module.<name>``.
    """
    if receiver == "self":
        return f"Module.{name}" if name in names.module else None
    if name in names.tensor:
        return f"Tensor.{name}"
    if name in names.module:
        return f"Module.{name}"
    return None


@dataclasses.dataclass(frozen=True)
class Status:
    """mapped | marked | unknown, with the label or rule and a one-line note."""

    status: str
    how: str
    note: str


def api_status(api: str, tables: dict, rules: dict, as_value: bool = False) -> Status:
    """Classify one API the way the converter treats it.

    Args:
        api: ``torch.nn.Conv2d``, ``Tensor.view``, ``Module.eval``.
        tables: :func:`mappings.load_tables`.
        rules: the converter's rule registry (name -> rule with ``id`` and ``doc``).
        as_value: the API is referenced without a call (a table entry applies only when it
            names a target the converter can write in its place).

    Returns:
        A :class:`Status`: mapped (a table entry or a named rule converts it), marked (an entry
        labelled unsupported, or a rule the converter lacks) or unknown (no entry).

    Example:
        >>> api_status("torch.nn.Linear", load_tables(), RULES).status  # doctest: +SKIP
        'mapped'
    """
    rule_name = NAMED_RULE_APIS.get(api)
    if rule_name is not None and rule_name in rules:
        r = rules[rule_name]
        where = " (in a training step the converter recognises; marked elsewhere)" \
            if rule_name in _IN_TRAINING_STEP else ""
        return Status("mapped", f"rule {r.id}", r.doc + where)
    entry = tables.get(api)
    if entry is not None:
        if entry.label == "unsupported":
            return Status("marked", f"{entry.id} unsupported", entry.note or "no MindSpore equivalent")
        if entry.rule and entry.rule not in rules:
            return Status("marked", "MS901", f"rule {entry.rule!r} is not available")
        if as_value and (not entry.target or entry.target.startswith(".")):
            return Status("unknown", "MS901", "used as a value: only calls are rewritten")
        return Status("mapped", f"{entry.table}: {entry.label}", entry.note)
    if api.startswith("torchvision"):
        return Status("unknown", "MS901", "torchvision: no table entries; every use is marked")
    if api.startswith(("Tensor.", "Module.")):
        name = api.split(".", 1)[1]
        if api.startswith("Tensor.") and name.endswith("_"):
            return Status("unknown", "MS905", "in-place method: marked where the receiver is known to be a tensor")
        return Status("unknown", "-", "no entry: left as written")
    return Status("unknown", "MS901", "no entry: marked")


# --------------------------------------------------------------------------------------------
# aggregation and report
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class PartStats:
    files: int = 0
    lines: int = 0
    torch_files: int = 0
    torch_lines: int = 0
    errors: int = 0


@dataclasses.dataclass
class Census:
    """Everything the report shows."""

    parts: list[tuple[CorpusPart, PartStats]]
    calls: collections.Counter
    refs: collections.Counter
    kind: dict[str, str]  # api -> "resolved" | "tensor method" | "module method"
    status: dict[str, Status]
    ref_status: dict[str, Status]
    entries: int
    tables: dict
    names: MethodNames
    ambiguous_calls: collections.Counter
    seconds: float = 0.0
    errors: list[str] = dataclasses.field(default_factory=list)


def build_census(parts: list[CorpusPart], scans: dict[Path, FileScan]) -> Census:
    """Add up the scans, classify every API."""
    from mappings import load_tables
    tables = load_tables()
    rules = converter_internals()["RULES"]
    names = method_names(tables)
    calls, refs, kind = collections.Counter(), collections.Counter(), {}
    ambiguous_calls = collections.Counter()
    out_parts, errors = [], []
    for part in parts:
        st = PartStats()
        for path in part.files:
            s = scans[path]
            st.files += 1
            st.lines += s.lines
            if s.error:
                st.errors += 1
                errors.append(f"{part.name}/{path.relative_to(part.root)}: {s.error}")
                continue
            if not s.imports_torch:
                continue
            st.torch_files += 1
            st.torch_lines += s.lines
            for counter, target in ((s.calls, calls), (s.refs, refs)):
                for q, n in counter.items():
                    if part.own_root and q.split(".")[0] == part.own_root:
                        continue  # torchvision's references to itself
                    target[q] += n
                    kind[q] = "resolved"
            for (name, recv), n in s.methods.items():
                api = method_api(name, recv, names)
                if api is None:
                    continue
                calls[api] += n
                kind[api] = "tensor method" if api.startswith("Tensor.") else "module method"
                if name in names.ambiguous:
                    ambiguous_calls[api] += n
        out_parts.append((part, st))
    apis = set(calls) | set(refs)
    status = {a: api_status(a, tables, rules) for a in apis}
    ref_status = {a: api_status(a, tables, rules, as_value=True) for a in refs}
    return Census(out_parts, calls, refs, kind, status, ref_status, len(tables), tables, names,
                  ambiguous_calls, errors=errors)


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f} %" if b else "-"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def shares(c: Census, kinds: tuple[str, ...] | None = None) -> dict[str, int]:
    """Call sites by status, for the APIs of the given kinds (all when None)."""
    out = collections.Counter()
    for api, n in c.calls.items():
        if kinds is None or c.kind[api] in kinds:
            out[c.status[api].status] += n
    return out


def unmapped_count(c: Census, api: str) -> int:
    """Occurrences of ``api`` the converter does not map (calls and uses as a value apart)."""
    n = c.calls[api] if c.status[api].status != "mapped" else 0
    if c.refs[api] and c.ref_status[api].status != "mapped":
        n += c.refs[api]
    return n


def unmapped_order(c: Census) -> list[str]:
    """The APIs with unmapped occurrences, most first."""
    apis = [a for a in set(c.calls) | set(c.refs) if unmapped_count(c, a)]
    return sorted(apis, key=lambda a: (-unmapped_count(c, a), a))


def render(c: Census, top: int, todo: int, command: str) -> str:
    """The text of docs/coverage.md."""
    import torch
    total_calls = sum(c.calls.values())
    all_shares = shares(c)
    ref_total = sum(c.refs.values())
    ref_mapped = sum(n for a, n in c.refs.items() if c.ref_status[a].status == "mapped")
    lines_total = sum(st.lines for _, st in c.parts)
    files_total = sum(st.files for _, st in c.parts)
    torch_lines = sum(st.torch_lines for _, st in c.parts)
    torch_files = sum(st.torch_files for _, st in c.parts)
    internals = converter_internals()
    rows = [
        "# API coverage of real PyTorch code",
        "",
        f"Generated by `{command}` (torch {torch.__version__}); do not edit by hand. "
        "Issue 12's targets: ≥ 95 % of call sites mapped, ≥ 1,000 mapping entries.",
        "",
        "## Headline",
        "",
        f"- **{_pct(all_shares['mapped'], total_calls)} of {total_calls:,} call sites mapped** "
        f"({all_shares['mapped']:,} mapped, {all_shares['marked']:,} marked, {all_shares['unknown']:,} unknown), "
        f"over {len(c.calls):,} distinct APIs called.",
        f"- **{c.entries:,} mapping entries** (torch names in `mappings/*.toml`, aliases included), "
        f"plus {len(set(NAMED_RULE_APIS.values()))} named rules that convert "
        f"{sum(1 for a in NAMED_RULE_APIS if a not in c.tables)} more APIs.",
        f"- Corpus: {lines_total:,} lines in {files_total:,} Python files from {len(c.parts)} packages; "
        f"{torch_lines:,} lines in the {torch_files:,} files that import torch are counted.",
        "",
        "| call sites of | sites | mapped | marked | unknown | distinct APIs |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, kinds in (("torch names resolved through imports", ("resolved",)),
                         ("Tensor methods (by name)", ("tensor method",)),
                         ("Module methods (by name)", ("module method",)),
                         ("all", None)):
        s = shares(c, kinds)
        n = sum(s.values())
        distinct = sum(1 for a in c.calls if kinds is None or c.kind[a] in kinds)
        rows.append(f"| {label} | {n:,} | {s['mapped']:,} ({_pct(s['mapped'], n)}) | {s['marked']:,} | "
                    f"{s['unknown']:,} | {distinct:,} |")
    rows += [
        "",
        f"References without a call (layer classes passed as values, base classes, annotations, dtypes, "
        f"decorators): {ref_total:,}, of which {ref_mapped:,} ({_pct(ref_mapped, ref_total)}) have an entry "
        f"the converter writes in their place; {len(c.refs):,} distinct names. They are not in the "
        "headline share.",
        "",
        "## How it counts",
        "",
        "- Every `.py` file of the corpus is parsed with libcst. Import aliases are resolved with the "
        f"converter's own `{internals['where']['torch_bindings']}.torch_bindings` and "
        f"`{internals['where']['dotted']}.dotted`: `import torch.nn as nn`, `from torch import nn`, "
        "`import torch.nn.functional as F`, `from torch.nn import Conv2d` all give qualified names "
        "(`torch.nn.Conv2d`). Module-level imports (also under `if`/`try`) hold for the whole file, an "
        "import inside a function from there on, as in the converter. torch and torchvision are resolved "
        "(the converter's roots); torchvision's references to itself are not counted.",
        "- A **call site** is `f(...)` with `f` resolving to a torch name; a **reference** is such a name "
        "used without a call. Only the whole dotted chain counts (`torch.nn.functional.relu`, "
        "not also `torch.nn`). A name the converter would not resolve (re-exports such as "
        "`kornia.core.Tensor`, `from .layers import ...`) is not counted.",
        "- **Tensor methods cannot be resolved by alias; they are counted by name.** A method call "
        "`recv.name(...)` counts as `Tensor.<name>` when `name` is a public method of `torch.Tensor` "
        "(`dir(torch.Tensor)`) or a `Tensor.*` table entry, and as `Module.<name>` for `torch.nn.Module`'s "
        "methods and `Module.*` entries. To limit false positives: only in files that import torch; "
        "not on literals (`', '.join`), not on imported names or classes defined in the file "
        "(`np.split`, `math.floor`, `MyFunction.apply`), not private or dunder names; on `self` / "
        "`super()` only Module methods count (`self.norm(x)` calls a sub-module); names shared with "
        "builtin types' methods are dropped unless mapped "
        f"(dropped: {', '.join(sorted(c.names.excluded)) or 'none'}; kept because mapped: "
        f"{', '.join(sorted(c.names.ambiguous - c.names.excluded)) or 'none'}, with `s.split()` / "
        "`s.split(',')`, `lst.sort(key=...)` and `logger.log(level, msg)` told apart by their "
        "arguments). Names both classes have (`to`, `cuda`, `float`, `type`, ...) count as Tensor "
        "methods unless called on `self`. NumPy arrays in torch files share many names (`reshape`, "
        "`sum`, `transpose`) and are counted too: these counts are an upper bound. Tensor attributes "
        "(`x.shape`, `x.data`, `x.device`) are not counted.",
        "- **Status**: *mapped* = a mapping-table entry (through `mappings.load_tables()`) or a named "
        "rule converts it (labels exact / transformed / approximate; a Tensor-method entry applies "
        "where the converter can tell the receiver is a tensor, see the entry's `receiver`); *marked* "
        "= an entry labelled unsupported, with its reason; *unknown* = no entry: a resolved torch name "
        "is kept and marked `MS901`, an unknown method is left as written (in-place ones marked "
        "`MS905` where the receiver is known to be a tensor).",
    ]
    amb = sum(c.ambiguous_calls.values())
    if amb:
        rows.append(f"- Call sites counted under a name shared with a builtin type's method: {amb:,} ("
                    + ", ".join(f"`{a}` {n:,}" for a, n in c.ambiguous_calls.most_common()) + ").")
    rows += ["", "## Corpus", "",
             "| package | version | source | files | lines | files importing torch | their lines | parse errors |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for part, st in c.parts:
        rows.append(f"| {part.name} | {part.version} | {_cell(part.source)} | {st.files:,} | {st.lines:,} | "
                    f"{st.torch_files:,} | {st.torch_lines:,} | {st.errors} |")
    rows.append(f"| **total** | | | {files_total:,} | {lines_total:,} | {torch_files:,} | {torch_lines:,} | "
                f"{sum(st.errors for _, st in c.parts)} |")
    if c.errors:
        rows += ["", "Files that do not parse (Python 2 code and the like) are left out: "
                 + "; ".join(f"`{e}`" for e in c.errors[:10]) + (" ..." if len(c.errors) > 10 else "")]

    def table(apis: list[str]) -> list[str]:
        out = ["| # | API | calls | refs | status | how | note |", "| ---: | --- | ---: | ---: | --- | --- | --- |"]
        for i, a in enumerate(apis, 1):
            s = c.status[a]
            note = s.note
            rs = c.ref_status.get(a)
            if rs is not None and rs.status != s.status:
                value = f"as a value: {rs.status} ({rs.note})"
                note = f"{note}; {value}" if note else value
            out.append(f"| {i} | `{a}` | {c.calls[a]:,} | {c.refs[a]:,} | {s.status} | {_cell(s.how)} | "
                       f"{_cell(note)} |")
        return out

    order = sorted(set(c.calls) | set(c.refs), key=lambda a: (-(c.calls[a] + c.refs[a]), a))
    rows += ["", f"## Top {top} APIs by occurrence", "",
             "Ranked by calls + references. *how*: the table and label, the rule ID, or the marker the "
             "converter writes.", ""]
    rows += table(order[:top])
    todo_order = unmapped_order(c)
    rows += ["", f"## To do (issue 12): the top {todo} unknown or marked APIs", "",
             "Ranked by the occurrences the converter does not map: the call sites when calls are not "
             "mapped, plus the references when uses as a value are not (`torch.device` in annotations "
             f"is marked though its calls are mapped). {len(todo_order):,} APIs have such occurrences; "
             f"these {min(todo, len(todo_order))} cover "
             f"{sum(unmapped_count(c, a) for a in todo_order[:todo]):,} of their "
             f"{sum(unmapped_count(c, a) for a in todo_order):,}.", ""]
    rows += table(todo_order[:todo])
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path,
                   default=Path(os.environ.get("MIGRATE_CENSUS_CACHE", Path.home() / ".cache" / "ms-migrate-census")),
                   help="writable cache: downloads, unpacked sources, parse results "
                        "(default: $MIGRATE_CENSUS_CACHE or ~/.cache/ms-migrate-census)")
    p.add_argument("--reuse", type=Path, action="append", default=[],
                   help="read-only directory searched first for archives and gh_<owner>+<repo> snapshots")
    p.add_argument("--no-download", action="store_true", help="use only archives already at hand")
    p.add_argument("--out", type=Path, default=REPO / "docs" / "coverage.md")
    p.add_argument("--top", type=int, default=300)
    p.add_argument("--todo", type=int, default=100)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--print-todo", type=int, default=0, metavar="N",
                   help="also print the top N unmapped APIs with their counts")
    args = p.parse_args(argv)
    start = time.perf_counter()
    internals = converter_internals()
    print("converter internals: " + ", ".join(f"{k} from {v}" for k, v in internals["where"].items()),
          file=sys.stderr)
    parts = ensure_corpus(args.cache, args.reuse, download=not args.no_download)
    scans = scan_corpus(parts, args.cache, args.jobs)
    census = build_census(parts, scans)
    command = "python bench/api_census.py --cache DIR"
    text = render(census, args.top, args.todo, command)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    s = shares(census)
    total = sum(s.values())
    print(f"{sum(st.lines for _, st in census.parts):,} lines, {total:,} call sites, "
          f"{_pct(s['mapped'], total)} mapped, {census.entries} entries; wrote {args.out} "
          f"in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    if args.print_todo:
        for a in unmapped_order(census)[:args.print_todo]:
            print(f"{unmapped_count(census, a):7,}  {a}  [calls {census.calls[a]:,}: {census.status[a].status}; "
                  f"refs {census.refs[a]:,}: {census.ref_status[a].status if a in census.ref_status else '-'}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
