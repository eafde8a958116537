"""Speed of `migrate convert` against libcst's bare parse + code round trip.

Builds a corpus of at least --lines lines of model code from tests/fixtures/convert (each copy in
its own file with renamed classes), then measures on the same files:

- bare:    libcst.parse_module(src).code, one core (the floor for any libcst rewriter);
- ours/1:  migrate.convert_source, one core, interleaved file by file with the bare run (and
           once more without the training-loop pass, to show its share);
- ours/N:  migrate.convert.project.convert_tree with --jobs N (process pool, reading and writing files,
           as `migrate convert DIR -o OUT --jobs N` without --report).
- isolation: convert_tree --jobs 1 (one worker process, so that a crash costs one file) against
           convert_file called in this process over the same files: the cost of the isolation.

Usage: python bench/convert_speed.py [--lines 50000] [--jobs 2]
Not part of the test suite.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402

from migrate import convert_source  # noqa: E402
from migrate.convert import walker  # noqa: E402
from migrate.convert.project import convert_file, convert_tree  # noqa: E402


def build_corpus(dest: Path, min_lines: int) -> list[Path]:
    sources = sorted((ROOT / "tests" / "fixtures" / "convert").glob("*.py"))
    texts = [p.read_text() for p in sources]
    files, total, i = [], 0, 0
    while total < min_lines:
        text = texts[i % len(texts)]
        # rename classes so files are not byte-identical copies
        text = re.sub(r"\bclass (\w+)", lambda m: f"class {m.group(1)}V{i}", text)
        p = dest / f"pkg{i // 50}" / f"model_{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        files.append(p)
        total += text.count("\n")
        i += 1
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="runs per file for the 1-core rows (best kept)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        src_dir = Path(tmp) / "corpus"
        files = build_corpus(src_dir, args.lines)
        texts = [p.read_text() for p in files]
        lines = sum(t.count("\n") for t in texts)
        convert_source(texts[0])  # warm caches (tables, parsed snippets)

        # interleaved per file, best of --repeat per file: load changes on a shared machine hit
        # both sides alike and the minimum is each side's own cost; CPU time of this process
        with_passes = walker.PASSES
        clock = time.process_time
        bare = ours1 = walk_only = 0.0
        for t in texts:
            b = o = w = float("inf")
            for _ in range(args.repeat):
                t0 = clock()
                cst.parse_module(t).code
                t1 = clock()
                convert_source(t)
                t2 = clock()
                walker.PASSES = ()  # the main walk alone (no training-loop pass)
                convert_source(t)
                walker.PASSES = with_passes
                t3 = clock()
                b, o, w = min(b, t1 - t0), min(o, t2 - t1), min(w, t3 - t2)
            bare += b
            ours1 += o
            walk_only += w

        t0 = time.perf_counter()
        reports = convert_tree(src_dir, Path(tmp) / "out", jobs=args.jobs, details=False)
        oursn = time.perf_counter() - t0
        failed = sum(r.error is not None for r in reports)

        # isolation cost: best of --repeat whole runs each, alternating (wall time: the worker's
        # CPU time is not this process's)
        inproc = worker = float("inf")
        for k in range(args.repeat):
            t0 = time.perf_counter()
            for f in files:
                rel = f.relative_to(src_dir)
                convert_file(str(f), str(Path(tmp) / "inproc" / rel), details=False)
            t1 = time.perf_counter()
            convert_tree(src_dir, Path(tmp) / "worker", jobs=1, details=False)
            t2 = time.perf_counter()
            inproc, worker = min(inproc, t1 - t0), min(worker, t2 - t1)

    print(f"corpus: {len(files)} files, {lines} lines ({failed} failed)")
    print(f"1-core rows: CPU time of this process, best of {args.repeat} per file; --jobs row: wall time")
    print(f"libcst parse+code, 1 core : {bare:7.2f} s  {lines / bare:9.0f} lines/s")
    print(f"migrate convert,   1 core : {ours1:7.2f} s  {lines / ours1:9.0f} lines/s"
          f"  ratio to bare {ours1 / bare:.2f}x")
    print(f"  without training pass   : {walk_only:7.2f} s  {lines / walk_only:9.0f} lines/s"
          f"  ratio to bare {walk_only / bare:.2f}x")
    print(f"migrate convert, --jobs {args.jobs} : {oursn:7.2f} s  {lines / oursn:9.0f} lines/s"
          f"  (process pool, file I/O included)")
    print(f"in this process, 1 core : {inproc:7.2f} s  {lines / inproc:9.0f} lines/s  (convert_file loop)")
    print(f"one worker, --jobs 1    : {worker:7.2f} s  {lines / worker:9.0f} lines/s"
          f"  isolation cost {100 * (worker / inproc - 1):+.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
