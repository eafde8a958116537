"""`migrate convert` over a million lines of torch code nobody here converted: does it ever break?

Pinned pure-Python PyPI packages (training frameworks, audio, detection, probabilistic programming,
graphs, metrics, NLP, generative models...) are fetched with `pip download --no-deps pkg==ver`
(or taken from `--dl-dir`), their Python files staged under `<cache>/corpus/<name>/`, and each
package tree converted through the CLI, for each target:

    migrate convert TREE -o OUT -j 2 --target T --report r.json     (first pass, timed)
    migrate convert OUT -o AGAIN -j 2 --target T                      (second pass)

Per package and in total: **files**, **lines** (of the staged .py files); **failed**: files the
converter reported as failed (an exception or output it refused; the file was copied unchanged);
**invalid**: outputs CPython cannot compile; **not idempotent**: outputs the second pass changes;
**lost comments**: files of which a comment (text after '#', the converter's `# migrate:` markers
aside) is missing from the output; **non-torch changed**: files that use neither torch nor einops
(no import of torch/torchvision/torchaudio/functorch/einops, no name `torch`, no name imported
from a module of the package that binds it from torch, no class deriving from a module class of
another of its files) whose output is not byte-identical to the input; **lines/s**: lines / wall
time of the first pass (CLI start and worker pool included). A package whose CLI run dies, or runs
past `--timeout`, counts all its files as failed.

Usage:
    python bench/corpus.py --cache /work/cache --dl-dir /work/cache/dl [-j 2] [--only a,b]
                           [--target ms_core|mindspore|both] [--json out.json] [--details N]
Not part of the test suite; run it with `nice` on a shared machine (~1.2 M lines, 2 targets).
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import tokenize
import zipfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from migrate.convert.package_classes import package_module_bases

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Package:
    spec: str        # pkg==version, as `pip download` takes it
    trees: tuple     # the directories of the archive to convert (their .py files)
    area: str
    exclude: str = ""  # a regular expression: paths it matches (from the start) are left out


PACKAGES = [
    Package("pytorch-lightning==2.4.0", ("pytorch_lightning",), "training framework"),
    Package("accelerate==0.34.2", ("accelerate",), "training framework"),
    Package("pytorch-ignite==0.5.1", ("ignite",), "training framework"),
    Package("torch-optimizer==0.3.0", ("torch_optimizer",), "optimizers"),
    Package("torchaudio==2.4.0", ("torchaudio",), "audio (the Python part of the wheel)"),
    Package("speechbrain==1.0.1", ("speechbrain",), "audio"),
    Package("asteroid==0.7.0", ("asteroid",), "audio"),
    Package("torch-audiomentations==0.11.1", ("torch_audiomentations",), "audio"),
    Package("ultralytics==8.2.90", ("ultralytics",), "detection"),
    Package("effdet==0.4.1", ("effdet",), "detection"),
    Package("mmdet==3.3.0", ("mmdet",), "detection", r"mmdet/\.mim/"),  # .mim: config files
    Package("mmengine==0.10.4", ("mmengine",), "training framework (detection)"),
    Package("pyro-ppl==1.9.1", ("pyro",), "probabilistic programming"),
    Package("gpytorch==1.13", ("gpytorch",), "probabilistic programming"),
    Package("botorch==0.11.3", ("botorch",), "probabilistic programming"),
    Package("torchdiffeq==0.2.4", ("torchdiffeq",), "scientific"),
    Package("torchsde==0.2.6", ("torchsde",), "scientific"),
    Package("torch-geometric==2.5.3", ("torch_geometric",), "graphs"),
    Package("torchmetrics==1.4.1", ("torchmetrics",), "metrics"),
    Package("pytorch-metric-learning==2.6.0", ("pytorch_metric_learning",), "metric learning"),
    Package("captum==0.7.0", ("captum",), "interpretability"),
    Package("transformers==4.44.2", ("transformers",), "NLP (all but models/: 7 of its 256 model folders)",
            r"transformers/models/(?!(auto|bert|gpt2|llama|t5|vit|whisper|clip)/)[^/]+/"),
    Package("peft==0.12.0", ("peft",), "NLP"),
    Package("sentence-transformers==3.0.1", ("sentence_transformers",), "NLP"),
    Package("trl==0.10.1", ("trl",), "NLP"),
    Package("allennlp==2.10.1", ("allennlp",), "NLP"),
    Package("fairseq==0.12.2", ("fairseq",), "NLP (sdist; without its examples/)", r"fairseq/examples/"),
    Package("flair==0.14.0", ("flair",), "NLP"),
    Package("stanza==1.8.2", ("stanza",), "NLP"),
    Package("diffusers==0.30.2", ("diffusers",), "generative (without pipelines/)", r"diffusers/pipelines/"),
    Package("denoising-diffusion-pytorch==2.0.17", ("denoising_diffusion_pytorch",), "generative"),
    Package("stable-baselines3==2.3.2", ("stable_baselines3",), "reinforcement learning"),
    Package("lightly==1.5.12", ("lightly",), "self-supervised learning (without its REST client)",
            r"lightly/openapi_generated/"),
    Package("pytorch-forecasting==1.1.1", ("pytorch_forecasting",), "time series"),
]

TORCH_MODULES = ("torch", "torchvision", "torchaudio", "functorch", "einops")
MEASURES = ("failed", "invalid", "not_idempotent", "lost_comments", "non_torch_changed")


# ---- fetching and staging ---------------------------------------------------------------------

def _norm(text: str) -> str:
    return re.sub(r"[-_.]+", "_", text).lower()


def find_archive(spec: str, dirs: list[Path]) -> Path | None:
    name, version = spec.split("==")
    want = f"{_norm(name)}_{_norm(version)}"
    for d in dirs:
        if d.is_dir():
            for p in sorted(d.iterdir()):
                stem = re.sub(r"(\.tar\.gz|\.whl|\.zip)$", "", p.name)
                if _norm(stem) == want or _norm(stem).startswith(want + "_"):
                    return p
    return None


def fetch(spec: str, dl_dirs: list[Path]) -> Path:
    """The archive of `spec`: from a --dl-dir, else `pip download --no-deps` into the first."""
    found = find_archive(spec, dl_dirs)
    if found is None:
        dl_dirs[0].mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(dl_dirs[0]), spec],
                       check=True)
        found = find_archive(spec, dl_dirs)
        if found is None:
            raise RuntimeError(f"pip download {spec} left no archive in {dl_dirs[0]}")
    return found


def _archive_members(archive: Path):
    """(path inside the package, bytes) of every .py file; an sdist's top directory is dropped."""
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith(".py"):
                    yield name, z.read(name)
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                if m.isfile() and m.name.endswith(".py"):
                    yield m.name.split("/", 1)[1] if "/" in m.name else m.name, t.extractfile(m).read()


def stage(pkg: Package, archive: Path, dest: Path) -> list[Path]:
    """Write the package's .py files under `dest` (once: a finished staging is reused)."""
    done = dest / ".staged"
    if not done.exists():
        shutil.rmtree(dest, ignore_errors=True)
        for name, data in _archive_members(archive):
            if name.split("/")[0] in pkg.trees and not (pkg.exclude and re.match(pkg.exclude, name)):
                target = dest / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        done.write_text(archive.name + "\n")
    return sorted(p for p in dest.rglob("*.py"))


# ---- measuring one file -----------------------------------------------------------------------

def comments(code: str) -> Counter:
    """The comments of ``code`` (text after '#', stripped), the converter's markers aside."""
    found = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT and not tok.string.startswith("# migrate:"):
                found[tok.string[1:].strip()] += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _module_name(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _mentions_torch(node: ast.AST, derived: set) -> bool:
    return any(isinstance(n, ast.Name) and (n.id in TORCH_MODULES or n.id in derived) for n in ast.walk(node))


def torch_free_files(staged: Path, files: list[Path]) -> set[Path]:
    """The files that use neither torch nor einops: no import of them, no name `torch`, and no
    name imported from a module of the package that binds it from torch (``from .utils import
    TORCH_VERSION`` where utils says ``TORCH_VERSION = torch.__version__``), followed through
    re-exports until nothing changes."""
    trees, modules = {}, {}
    for p in files:
        try:
            trees[p] = ast.parse(p.read_bytes())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        modules[_module_name(p.relative_to(staged))] = p
    derived: dict[Path, set] = {p: set() for p in trees}
    changed = True
    while changed:
        changed = False
        for p, tree in trees.items():
            package = _module_name(p.relative_to(staged)) if p.name == "__init__.py" else \
                _module_name(p.relative_to(staged)).rpartition(".")[0]
            for node in ast.walk(tree):
                new = set()
                if isinstance(node, ast.Import):
                    new = {(a.asname or a.name).split(".")[0] for a in node.names
                           if a.name.split(".")[0] in TORCH_MODULES}
                elif isinstance(node, ast.ImportFrom):
                    module = node.module or ""
                    if node.level:
                        base = package.split(".")[: len(package.split(".")) - node.level + 1]
                        module = ".".join([*base, module] if module else base)
                    source = modules.get(module)
                    new = {a.asname or a.name for a in node.names
                           if module.split(".")[0] in TORCH_MODULES and not node.level
                           or (source is not None and (a.name in derived[source] or a.name == "*"))}
                    if "*" in new and source is not None:
                        new = (new - {"*"}) | derived[source]
                elif isinstance(node, ast.Assign) and _mentions_torch(node.value, derived[p]):
                    new = {t.id for t in node.targets if isinstance(t, ast.Name)}
                if not new <= derived[p]:
                    derived[p] |= new
                    changed = True
    # a class deriving from a module class of another file (gpytorch's kernels: Kernel -> Module
    # -> torch.nn.Module) is torch code the converter converts (forward -> construct)
    module_classes = {Path(f).resolve() for f in package_module_bases(staged, list(trees))}
    return {p for p, tree in trees.items() if not derived[p] and not _mentions_torch(tree, set())
            and p.resolve() not in module_classes}


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def examine_file(job: tuple) -> dict:
    """The measures of one file: {measure: detail} for each property it breaks."""
    rel, src_path, out_path, again_path, torch_free = job
    src, out, again = _read(Path(src_path)), _read(Path(out_path)), _read(Path(again_path))
    found = {}
    if src is None:
        return found  # not UTF-8: the converter's refusal is the right answer, not measured here
    if out is None:
        return {"invalid": "no output"}
    try:
        compile(out, rel, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        found["invalid"] = f"{type(exc).__name__}: {exc}"
    if again != out:
        found["not_idempotent"] = _first_difference(out, again)
    lost = comments(src) - comments(out)
    if lost:
        found["lost_comments"] = ", ".join(sorted(lost))[:300]
    if out != src and torch_free:
        found["non_torch_changed"] = _first_difference(src, out)
    return found


def _first_difference(a: str, b: str | None) -> str:
    if b is None:
        return "no second output"
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {i}: {x.strip()[:120]!r} -> {y.strip()[:120]!r}"
    return f"{len(la)} lines -> {len(lb)} lines"


# ---- one package, one target ------------------------------------------------------------------

@dataclass
class Result:
    name: str
    target: str
    files: int = 0
    lines: int = 0
    seconds: float = 0.0
    exit_code: int = 0
    details: dict = field(default_factory=lambda: {m: {} for m in MEASURES})

    def count(self, measure: str) -> int:
        return len(self.details[measure])


def cli_convert(src: Path, out: Path, target: str, jobs: int, timeout: float,
                report: Path | None = None) -> tuple[float, int, str]:
    """`migrate convert src -o out`: (wall seconds, exit code or -1 on timeout, stderr tail)."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, str(ROOT / "cli.py"), "convert", str(src), "-o", str(out), "-j", str(jobs), "-q",
           "--target", target]
    if report is not None:
        cmd += ["--report", str(report)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True, timeout=timeout)
        return time.perf_counter() - t0, proc.returncode, proc.stderr[-3000:]
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, -1, f"timed out after {timeout:.0f} s"


def failed_files(report: Path) -> dict:
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        return {}
    return {f["path"]: f["error"] for f in data.get("files", []) if f.get("error")}


def measure(pkg: Package, staged: Path, files: list[Path], target: str, work: Path, args, pool) -> Result:
    name = pkg.spec.split("==")[0]
    res = Result(name, target, files=len(files))
    res.lines = sum(p.read_bytes().count(b"\n") for p in files)
    out, again, report = work / target / "out" / name, work / target / "again" / name, work / target / f"{name}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    res.seconds, res.exit_code, err = cli_convert(staged, out, target, args.jobs, args.timeout, report)
    if res.exit_code not in (0, 1) or not report.exists():  # the run itself died: every file failed
        res.details["failed"] = {str(p.relative_to(staged)): f"CLI exit {res.exit_code}: {err.strip()[-300:]}"
                                 for p in files}
        return res
    res.details["failed"] = failed_files(report)
    cli_convert(out, again, target, args.jobs, args.timeout)
    free = torch_free_files(staged, files)
    jobs = [(str(p.relative_to(staged)), str(p), str(out / p.relative_to(staged)), str(again / p.relative_to(staged)),
             p in free) for p in files]
    for (rel, *_), found in zip(jobs, pool.map(examine_file, jobs, chunksize=16)):
        for m, detail in found.items():
            res.details[m][rel] = detail
    return res


# ---- the table --------------------------------------------------------------------------------

def table(results: list[Result], target: str) -> str:
    rows = [r for r in results if r.target == target]
    head = ("package", "files", "lines", "failed", "invalid", "not idempotent", "lost comments",
            "non-torch changed", "lines/s")
    lines = [f"**--target {target}**", "", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([r.name, str(r.files), f"{r.lines:,}", *(str(r.count(m)) for m in MEASURES),
                                        f"{r.lines / max(r.seconds, 1e-9):,.0f}"]) + " |")
    files, total_lines, seconds = sum(r.files for r in rows), sum(r.lines for r in rows), sum(r.seconds for r in rows)
    lines.append("| " + " | ".join(["**total**", f"{files:,}", f"{total_lines:,}",
                                    *(str(sum(r.count(m) for r in rows)) for m in MEASURES),
                                    f"{total_lines / max(seconds, 1e-9):,.0f}"]) + " |")
    return "\n".join(lines)


def details(results: list[Result], limit: int) -> str:
    out = []
    for r in results:
        for m in MEASURES:
            for rel, detail in list(r.details[m].items())[:limit]:
                out.append(f"[{r.target}] {m}: {r.name}/{rel}: {' '.join(str(detail).split())[:400]}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("MS_MIGRATE_BENCH_CACHE",
                                                                      Path.home() / ".cache" / "ms-migrate-bench")))
    ap.add_argument("--dl-dir", type=Path, action="append", default=[],
                    help="directories holding the archives (searched first; default <cache>/dl)")
    ap.add_argument("--work", type=Path, help="where converted trees and reports go (default <cache>/corpus_work)")
    ap.add_argument("--only", default="", help="comma-separated package names, converted in that order")
    ap.add_argument("--target", default="both", choices=("ms_core", "mindspore", "both"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per CLI run")
    ap.add_argument("--json", type=Path, help="write every result and detail here")
    ap.add_argument("--details", type=int, default=20, help="files listed per package and measure")
    args = ap.parse_args(argv)
    dl_dirs = [*args.dl_dir, args.cache / "dl"]
    work = args.work or args.cache / "corpus_work"
    only = [n for n in args.only.split(",") if n]
    by_name = {pkg.spec.split("==")[0]: pkg for pkg in PACKAGES}
    unknown = [n for n in only if n not in by_name]
    if unknown:
        ap.error(f"unknown package(s) {', '.join(unknown)}: choose from {', '.join(by_name)}")
    targets = ("ms_core", "mindspore") if args.target == "both" else (args.target,)
    results = []
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        for pkg in [by_name[n] for n in only] or PACKAGES:  # in the order given
            name = pkg.spec.split("==")[0]
            staged = args.cache / "corpus" / name
            files = stage(pkg, fetch(pkg.spec, dl_dirs), staged)
            for target in targets:
                r = measure(pkg, staged, files, target, work, args, pool)
                results.append(r)
                print(f"{pkg.spec:38} {target:9} {r.files:5} files {r.lines:8,} lines "
                      + " ".join(f"{m}={r.count(m)}" for m in MEASURES)
                      + f" {r.lines / max(r.seconds, 1e-9):,.0f} lines/s", flush=True)
    print()
    for target in targets:
        print(table(results, target) + "\n")
    print(details(results, args.details))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
