"""Speed of `migrate convert` on real code against libcst's bare parse + print of the same files.

The corpus is the pinned third-party code of bench/realworld.py (its Source table): by default
timm 0.9.16 and monai 1.3.2, unpacked under <cache>/src (realworld.py fetches them); `--sources
all` takes every source found there. `--max-lines` keeps every k-th file (in path order) so that a
run fits a loaded machine; the files keep their package paths, so package-level analysis (star
imports, re-exports) still runs.

Measured in one run, on the same files:

- in this process, one core, CPU time (process time), file by file, the sides interleaved
  and their order rotated, `--repeat` times: the median of each file's times, summed:
    bare:        libcst.parse_module(src).code (the floor for any libcst rewriter);
    bare gc off: the same with the cyclic garbage collector off, as convert_source runs;
    ours:        migrate.convert_source(src);
- the command line, as a user runs it (bytecode cached, as an installed package has it: one
  file through each command first), `--repeat` rounds with the order rotated, medians:
    bare:     a child Python that reads each file, parses and prints it with libcst, writes it;
    --jobs 1: `migrate convert DIR -o OUT --jobs 1 -q` (CPU time of it and its worker process);
    --jobs N: the same with N workers (wall time), against --jobs 1's wall time: the scaling;
    for both, where the CPU went: the parent's serial part (outside its worker pools), the
    parent's work beside the workers, the workers'; and the Amdahl bound of the scaling on N idle
    cores that this split gives (a loaded machine's wall times say little about scaling).

The machine is shared: CPU times are what the work cost (wall time would count the other
users); the load average and the share of a core this process got are printed with the numbers.

Usage: python bench/convert_speed.py [--sources timm,monai|all] [--max-lines 40000] [--repeat 3]
       [--jobs 2] [--skip-cli]
Not part of the test suite.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import libcst as cst  # noqa: E402

import realworld  # noqa: E402
from migrate import convert_source  # noqa: E402

PACONVERT_LINES_PER_S = 26_400  # PaConvert, per core (lossy: drops comments); see bench/README.md

_BARE_CHILD = """
import sys, libcst
src, out = sys.argv[1], sys.argv[2]
for rel in open(sys.argv[3]).read().split("\\n"):
    if rel:
        code = libcst.parse_module(open(f"{src}/{rel}", encoding="utf-8").read()).code
        dest = f"{out}/{rel}"
        __import__("os").makedirs(__import__("os").path.dirname(dest), exist_ok=True)
        open(dest, "w", encoding="utf-8").write(code)
"""

# `migrate convert` as cli.py runs it, in a process that also says where its CPU time went: its
# own (the parent's) outside the worker pools (the serial part: the start, the imports, planning,
# merging the pre-pass, the report), its own while the pools run (handing out tasks, taking the
# results, writing the runtime copies: concurrent with the workers), and the workers'.
_CLI_CHILD = """
import json, resource, sys, time
import migrate.convert.workers as workers
real, inside = workers.run_isolated, [0.0]
def timed(*args, **kwargs):
    t0 = time.process_time()
    try:
        return real(*args, **kwargs)
    finally:
        inside[0] += time.process_time() - t0
workers.run_isolated = timed  # before the converter's modules import it
import cli
code = 1
try:
    code = cli.main(sys.argv[2:])
finally:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    json.dump({"parent": own.ru_utime + own.ru_stime, "during_pools": inside[0],
               "workers": kids.ru_utime + kids.ru_stime}, open(sys.argv[1], "w"))
sys.exit(code)
"""


def corpus_trees(names: str, cache: Path) -> list[tuple[str, Path]]:
    """(name, unpacked tree) of the realworld sources named (comma-separated, or "all") that are
    in the cache; nothing is downloaded."""
    wanted = None if names == "all" else set(names.split(","))
    found = []
    for src in realworld.SOURCES:
        if wanted is not None and src.name not in wanted:
            continue
        if src.spec.startswith("github:"):
            owner, repo = src.spec[len("github:"):].split("/")
            root = cache / "src" / f"gh_{owner}+{repo}"
        else:
            stems = [d for d in (cache / "src").iterdir()
                     if d.is_dir() and realworld._matches_spec(d.name + ".whl", src.spec)]
            root = sorted(stems)[0] if stems else None
        if root is None or not root.is_dir():
            print(f"  (not in {cache}/src: {src.name} {src.spec})")
            continue
        found.append((src.name, root / src.tree if src.tree else root))
    if wanted is not None and not found:
        raise SystemExit(f"none of {sorted(wanted)} found under {cache}/src:"
                         " run bench/realworld.py once to fetch them")
    return found


def stage_corpus(trees: list[tuple[str, Path]], dest: Path, max_lines: int) -> list[Path]:
    """Copy the .py files of ``trees`` under ``dest/<name>/`` (every k-th file when they hold
    more than ``max_lines`` lines); the copies, in path order."""
    files = [(name, tree, p) for name, tree in trees for p in sorted(tree.rglob("*.py"))
             if not any(part.startswith(".") for part in p.relative_to(tree).parts)]
    sizes = [p.read_bytes().count(b"\n") for _, _, p in files]
    step = max(1, round(sum(sizes) / max_lines)) if max_lines else 1
    out = []
    for name, tree, p in files[::step]:
        target = dest / name / p.relative_to(tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
        out.append(target)
    return out


def in_process(texts: list[str], repeat: int) -> tuple[float, float, float]:
    """(bare, bare with the cyclic garbage collector off, ours) CPU seconds: per file the median
    of ``repeat`` interleaved runs (the order rotated), summed. convert_source turns the collector
    off while it converts: the second bare column is libcst's round trip treated the same way."""
    clock = time.process_time
    sides = (lambda t: cst.parse_module(t).code, _collector_off(lambda t: cst.parse_module(t).code), convert_source)
    totals = [0.0, 0.0, 0.0]
    for text in texts:
        times = [[], [], []]
        for k in range(repeat):
            for side in range(k % 3, k % 3 + 3):
                side %= 3
                t0 = clock()
                sides[side](text)
                times[side].append(clock() - t0)
        for side in range(3):
            totals[side] += statistics.median(times[side])
    return tuple(totals)


def _collector_off(fn):
    def run(text):
        gc.disable()
        try:
            return fn(text)
        finally:
            gc.enable()
    return run


def child_env(tmp: Path) -> dict:
    """The children's environment: this checkout first on the path, and bytecode cached (in
    ``tmp``) as an installed package has it; a shell that sets PYTHONDONTWRITEBYTECODE would
    otherwise have every run compile the converter's ~100 modules (0.3 s) but not libcst's,
    whose bytecode the install wrote."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_child(cmd: list[str], env: dict) -> tuple[float, float]:
    """(CPU seconds of the child and its waited-for workers, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):  # 1: some file failed to convert (reported, not fatal)
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def command_line(corpus: Path, files: list[Path], tmp: Path, jobs: int, repeat: int) -> dict:
    """Medians over ``repeat`` rounds (order rotated each round) of the three commands."""
    listing = tmp / "files.txt"
    listing.write_text("\n".join(p.relative_to(corpus).as_posix() for p in files))
    cli = [sys.executable, str(ROOT / "cli.py"), "convert", str(corpus), "-q"]

    def split_cli(n: int) -> list[str]:
        return [sys.executable, "-c", _CLI_CHILD, str(tmp / f"split{n}.json"), "convert", str(corpus), "-q",
                "-o", str(tmp / f"j{n}"), "--jobs", str(n)]
    commands = {
        "bare": [sys.executable, "-c", _BARE_CHILD, str(corpus), str(tmp / "bare"), str(listing)],
        "jobs1": split_cli(1),
        f"jobs{jobs}": split_cli(jobs),
    }
    env = child_env(tmp)
    warm = tmp / "warm"  # one file through every command first: the bytecode is written then
    shutil.copytree(files[0].parent, warm / "in", ignore=lambda d, names: [n for n in names if n != files[0].name])
    (tmp / "warm.txt").write_text(files[0].name)
    for cmd in (commands["bare"][:3] + [str(warm / "in"), str(warm / "bare"), str(tmp / "warm.txt")],
                [*cli[:3], str(warm / "in"), "-q", "-o", str(warm / "cli"), "--jobs", "1"]):
        run_child(cmd, env)
    runs = {k: [] for k in commands}
    order = list(commands)
    splits = {k: [] for k in commands}
    for r in range(repeat):
        for k in order[r % 3:] + order[:r % 3]:
            shutil.rmtree(tmp / k, ignore_errors=True)
            runs[k].append(run_child(commands[k], env))
            if k != "bare":
                splits[k].append(json.loads((tmp / f"split{k[4:]}.json").read_text()))
    out = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in runs.items()}
    out["split"] = {k: {part: statistics.median(s[part] for s in v) for part in v[0]} for k, v in splits.items() if v}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.environ.get("MS_MIGRATE_BENCH_CACHE", "/work/cache"),
                    help="bench/realworld.py's cache (its src/ holds the unpacked sources)")
    ap.add_argument("--sources", default="timm,monai", help="realworld source names, comma-separated, or 'all'")
    ap.add_argument("--max-lines", type=int, default=40_000,
                    help="keep every k-th file to about this many lines (0: all)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--skip-cli", action="store_true", help="only the in-process rows")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        trees = corpus_trees(args.sources, Path(args.cache))
        files = stage_corpus(trees, tmp / "corpus", args.max_lines)
        texts = [p.read_text(encoding="utf-8") for p in files]
        lines = sum(t.count("\n") for t in texts)
        print(f"corpus: {', '.join(n for n, _ in trees)}: {len(files)} files, {lines} lines")
        convert_source(texts[0])  # warm the caches (tables, parsed snippets)
        bare, bare_off, ours = in_process(texts, args.repeat)
        share = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        cli = None if args.skip_cli else command_line(tmp / "corpus", files, tmp, args.jobs, args.repeat)
    load1 = os.getloadavg()
    report(lines, (bare, bare_off, ours), cli, args, (load0, load1, share))
    return 0


def report(lines, in_proc, cli, args, machine) -> None:
    bare, bare_off, ours = in_proc
    load0, load1, share = machine
    print(f"machine: {os.cpu_count()} cores, load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end;"
          f" this process got {share:.0%} of a core in the in-process part")
    print(f"in this process, one core, CPU time, median of {args.repeat} interleaved runs per file:")
    print(f"  libcst parse+print    : {bare:8.2f} s  {lines / bare:8.0f} lines/s")
    print(f"  the same, gc off      : {bare_off:8.2f} s  {lines / bare_off:8.0f} lines/s")
    print(f"  convert_source        : {ours:8.2f} s  {lines / ours:8.0f} lines/s"
          f"  {ours / bare:.2f}x the bare round trip ({ours / bare_off:.2f}x it with the collector off,"
          " as convert_source runs)")
    if cli is None:
        return
    jn = f"jobs{args.jobs}"
    (bc, bw), (c1, w1), (cn, wn) = cli["bare"], cli["jobs1"], cli[jn]
    print(f"command line, median of {args.repeat} rounds (child CPU time with its workers; wall time):")
    print(f"  libcst parse+print    : {bc:8.2f} s CPU {bw:8.2f} s wall  {lines / bc:8.0f} lines/s per core")
    print(f"  migrate convert -j 1  : {c1:8.2f} s CPU {w1:8.2f} s wall  {lines / c1:8.0f} lines/s per core"
          f"  {c1 / bc:.2f}x the bare round trip (CPU)")
    print(f"  migrate convert -j {args.jobs}  : {cn:8.2f} s CPU {wn:8.2f} s wall  scaling {w1 / wn:.2f}x"
          f" (wall -j 1 / wall -j {args.jobs})")
    for key, n in (("jobs1", 1), (jn, args.jobs)):
        split = cli["split"][key]
        serial = split["parent"] - split["during_pools"]
        parallel = split["workers"] + split["during_pools"]
        print(f"  -j {n} CPU split: parent {serial:.2f} s serial (start, imports, plan, pre-pass tables, report)"
              f" + {split['during_pools']:.2f} s beside the workers, workers {split['workers']:.2f} s:"
              f" serial {serial / (serial + parallel):.1%}, Amdahl bound on {args.jobs} idle cores"
              f" {(serial + parallel) / (serial + parallel / args.jobs):.2f}x")
    print(f"  PaConvert (lossy), per core: {PACONVERT_LINES_PER_S} lines/s;"
          f" ours -j 1: {lines / c1 / PACONVERT_LINES_PER_S:.2f}x of it")


if __name__ == "__main__":
    sys.exit(main())
