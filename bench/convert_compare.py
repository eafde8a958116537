"""Byte-for-byte comparison of two converters' output on the realworld corpus.

A change meant to be invisible (speed, internal structure) must leave every converted file, and
every report, as it was. This converts the sources of bench/realworld.py (staged as it stages
them: excludes, blanked and cut-down files) with the converter of a given checkout, for both
targets, the way realworld.py runs it (`migrate convert SRC -o OUT -j N --target T --report R`,
and the sources that use others converted together with them), into one directory; then compares
two such directories.

    python bench/convert_compare.py produce OUT [--repo CHECKOUT] [--jobs 2] [--only a,b] [--targets ms_core]
    python bench/convert_compare.py compare OUT_BEFORE OUT_AFTER

`--repo` is the checkout whose cli.py and migrate/ convert (default: this one), e.g. a
`git archive` of the commit before a change. Only archives already in the cache are used
(nothing is downloaded). `compare` exits 1 when any file differs or exists on one side only.
Not part of the test suite.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import realworld  # noqa: E402

TARGETS = ("ms_core", "mindspore")


def local_root(src: realworld.Source, cache: Path) -> Path | None:
    """The unpacked directory of ``src`` when its archive or snapshot is in ``cache`` (else None)."""
    if src.spec.startswith("github:"):
        return realworld.source_root(src, cache, [], cache / "src")
    if not any(realworld._matches_spec(p.name, src.spec) for p in (cache / "dl").iterdir()):
        return None
    return realworld.fetch_pypi(src.spec, cache, [])


def convert(repo: Path, dirs: list[Path], out: Path, target: str, jobs: int, report: Path) -> int:
    """`migrate convert` of ``repo`` (its cli.py, its migrate/ first on the path); the exit code."""
    cmd = [sys.executable, str(repo / "cli.py"), "convert", *map(str, dirs), "-o", str(out), "-j", str(jobs), "-q",
           "--target", target, "--report", str(report)]
    proc = subprocess.run(cmd, cwd=repo, env=dict(os.environ, PYTHONPATH=str(repo)), capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        print(f"  {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-1500:]}")
    return proc.returncode


def produce(out: Path, repo: Path, jobs: int, only: set | None, cache: Path, targets=TARGETS) -> None:
    staged = {}
    for src in realworld.SOURCES:
        if only and src.name not in only and not any(src.name in realworld._uses(n) for n in only):
            continue
        root = local_root(src, cache)
        if root is None:
            print(f"  {src.name}: not in {cache}, left out")
            continue
        realworld.stage(src, root, out / "staged" / src.name)
        staged[src.name] = out / "staged" / src.name / src.tree if src.tree else out / "staged" / src.name
    t0 = time.perf_counter()
    for target in targets:
        codes = []
        for name, tree in staged.items():
            if only and name not in only:
                continue
            report = out / target / "reports" / f"{name}.json"
            report.parent.mkdir(parents=True, exist_ok=True)
            codes.append(f"{target} {name} {convert(repo, [tree], out / target / 'out' / name, target, jobs, report)}")
            uses = realworld._uses(name)
            if uses and all(u in staged for u in uses):
                report = out / target / "reports" / f"{name}.together.json"
                code = convert(repo, [tree, *(staged[u] for u in uses)], out / target / "together" / name,
                               target, jobs, report)
                codes.append(f"{target} {name} together {code}")
        (out / target / "exit_codes.txt").write_text("\n".join(codes) + "\n")
    lines = sum(p.read_bytes().count(b"\n") for tree in staged.values() for p in tree.rglob("*.py"))
    print(f"{len(staged)} sources, {lines} lines, {', '.join(targets)}: {time.perf_counter() - t0:.0f} s (-j {jobs})")


def compare(a: Path, b: Path) -> int:
    """Print what differs between two `produce` directories; the number of differences."""
    diffs = []

    def walk(cmp: filecmp.dircmp, rel: str) -> None:
        diffs.extend(f"only in {a.name}: {rel}{n}" for n in cmp.left_only)
        diffs.extend(f"only in {b.name}: {rel}{n}" for n in cmp.right_only)
        _, mismatch, errors = filecmp.cmpfiles(cmp.left, cmp.right, cmp.common_files, shallow=False)
        diffs.extend(f"differs: {rel}{n}" for n in mismatch + errors)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{rel}{name}/")

    total = 0
    for part in TARGETS:
        if not (a / part).is_dir() or not (b / part).is_dir():
            if (a / part).is_dir() or (b / part).is_dir():
                diffs.append(f"only in {a.name if (a / part).is_dir() else b.name}: {part}/")
            continue
        walk(filecmp.dircmp(a / part, b / part, ignore=[]), f"{part}/")
        total += sum(1 for p in (a / part).rglob("*") if p.is_file())
    for line in diffs[:50]:
        print(" ", line)
    print(f"{total} files compared ({a} against {b}): {len(diffs)} differ or exist on one side only")
    return len(diffs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("produce", help="convert the corpus into OUT")
    p.add_argument("out")
    p.add_argument("--repo", default=str(ROOT), help="checkout whose converter runs (default: this one)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", default="", help="source names, comma-separated (default: all in the cache)")
    p.add_argument("--cache", default=os.environ.get("MS_MIGRATE_BENCH_CACHE", "/work/cache"))
    p.add_argument("--targets", default=",".join(TARGETS), help="comma-separated (default: both)")
    c = sub.add_parser("compare", help="compare two OUT directories")
    c.add_argument("before")
    c.add_argument("after")
    args = ap.parse_args(argv)
    if args.cmd == "compare":
        return 1 if compare(Path(args.before), Path(args.after)) else 0
    produce(Path(args.out), Path(args.repo).resolve(), args.jobs, set(filter(None, args.only.split(","))) or None,
            Path(args.cache), tuple(args.targets.split(",")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
