"""Fuzz `migrate convert` for N minutes and count what breaks.

Programs come from three sources, in turn:

- torch programs from our grammar over the mapping tables (tests/migrate/torch_programs.py);
- arbitrary Python from hypothesmith's grammar strategy (no torch: must come back byte-identical);
- the same with `import torch` put in front (the libcst path on odd syntax).

Each program goes through `examine` (the same properties as tests/migrate/test_properties.py):
the output parses, converting twice equals converting once, a file without a torch import is
byte-identical, every comment is kept, no exception escapes. Failures are grouped by kind and,
for lost comments, by where the comment was (above a torch import, on a training-loop call,
inside a call's arguments...); the first program of each group is minimised (runs of lines
removed while the same failure remains; a smaller later one replaces it) and saved under --out
as `NN-<kind>.py`, listed with its count in `<out>/summary.txt`.

Usage: PYTHONPATH=$PWD python bench/fuzz.py --minutes 10 [--seed 0] [--out /tmp/migrate-fuzz]
Not part of the test suite.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.migrate.torch_programs import KINDS, comment_place, examine, torch_programs  # noqa: E402


class _TimeUp(Exception):
    pass


def _valid(src: str) -> bool:
    try:
        ast.parse(src)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _signature(src: str, kind: str, detail: str) -> str:
    """What groups failures: the kind, and for lost comments where the comment was."""
    if kind == "lost comment":
        first = detail.split(", ")[0]
        return f"{kind}: {comment_place(src, first)}"
    return f"{kind}: {re.sub(r'[0-9]+', 'N', ' '.join(detail.split()))[:90]}"


def _failures(src: str) -> set:
    out = set()
    for kind, detail in examine(src):
        out.add(_signature(src, kind, detail))
        if kind == "lost comment":  # each lost comment on its own: one program can show several
            out |= {f"{kind}: {comment_place(src, c)}" for c in detail.split(", ")}
    return out


def minimise(src: str, signature: str, budget_s: float = 20.0) -> str:
    """Remove runs of lines while the program stays valid and still fails with ``signature``
    (a greedy one-minimal reduction, cut off after ``budget_s``)."""
    end = time.time() + budget_s
    lines = src.splitlines(keepends=True)
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.time() < end:
        i, shrunk = 0, False
        while i < len(lines) and time.time() < end:
            trial = "".join(lines[:i] + lines[i + chunk:])
            if trial and _valid(trial) and signature in _failures(trial):
                lines, shrunk = lines[:i] + lines[i + chunk:], True
            else:
                i += chunk
        if not shrunk:
            chunk //= 2
    return "".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="/tmp/migrate-fuzz", help="where repros are saved")
    ap.add_argument("--target", default="ms_core", choices=("ms_core", "mindspore"))
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import hypothesmith
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.py"):
        old.unlink()

    sources = st.one_of(
        torch_programs().map(lambda s: ("grammar", s)),
        hypothesmith.from_grammar().map(lambda s: ("hypothesmith", s)),
        hypothesmith.from_grammar().map(lambda s: ("hypothesmith+torch", "import torch\n" + s)),
    )
    counts: Counter = Counter()
    programs: Counter = Counter()
    repros: dict = {}  # signature -> (detail, smallest program showing it)
    per_signature: Counter = Counter()
    end = time.time() + 60 * args.minutes
    started = time.time()

    @settings(max_examples=10 ** 9, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(args.seed)
    @given(sources)
    def fuzz(item):
        if time.time() > end:
            raise _TimeUp
        origin, src = item
        if not _valid(src):
            return
        programs[origin] += 1
        for kind, detail in examine(src, args.target):
            counts[kind] += 1
            signature = _signature(src, kind, detail)
            per_signature[signature] += 1
            if signature not in repros:
                repros[signature] = (detail, minimise(src, signature))
            elif len(src) < len(repros[signature][1]):
                repros[signature] = (detail, src)  # smaller than the minimised one: keep it

    try:
        fuzz()
    except _TimeUp:
        pass
    elapsed = time.time() - started
    lines = [f"{sum(programs.values())} programs in {elapsed / 60:.1f} min "
             f"({', '.join(f'{k}: {v}' for k, v in sorted(programs.items()))}), seed {args.seed}"]
    lines += [f"{kind}: {counts[kind]}" for kind in KINDS]
    lines += [f"distinct failures (kind: where or what), with a minimised repro each in {out}:"]
    for n, (signature, (detail, small)) in enumerate(sorted(repros.items()), 1):
        name = f"{n:02d}-{signature.split(':')[0].replace(' ', '_')}.py"
        (out / name).write_text(f"# {signature}\n# {' '.join(detail.split())[:300]}\n" + small)
        lines.append(f"  {name}: {signature} ({per_signature[signature]}x)")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
