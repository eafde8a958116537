"""Planted faults in a full-size converted ResNet-50 (224x224) and the healthy conversion: does
`migrate check` still name each culprit where float32 noise is large, and does the healthy
model pass?

    python bench/check_faults.py [--size 224] [--batch 2] [--layers 3,4,6,3] [--threads 1]

The faults and the culprits expected are tests/migrate/check/planted.py (the test suite runs the
same faults on a one-bottleneck-per-stage variant at 64x64: test_faults_resnet50.py). Prints one
line per case: verdict, culprit, seconds.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--layers", default="3,4,6,3")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    import torch
    torch.set_num_threads(a.threads)
    from migrate import convert_source
    from migrate.check import check
    from migrate.check.harness import make_inputs, prepare
    from tests.migrate.check.planted import FAULTS, RESNET50, culprit_problems, plant

    expr = f"ResNet50(layers=({a.layers}))"
    code = convert_source(RESNET50.read_text(), runtime="").code  # (one file: the runtime inlined)
    x = make_inputs([f"{a.batch},3,{a.size},{a.size}"], None, None, 0)
    cases = [(None, {"mode": "both", "train_steps": 2, "init_check": True})]
    cases += [(f, f.options) for f in FAULTS]
    failures = 0
    print(f"{expr} at {a.batch}x3x{a.size}x{a.size}, {a.threads} torch thread(s)")
    with tempfile.TemporaryDirectory() as tmp:
        for fault, options in cases:
            path = os.path.join(tmp, "resnet50_ms.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(code if fault is None else plant(code, fault))
            t, m, _, _ = prepare(str(RESNET50), expr, path)
            t0 = time.perf_counter()
            r = check(t, m, x, **options)
            dt = time.perf_counter() - t0
            name = "healthy" if fault is None else fault.name
            problems = ([str(f) for f in r.findings] if fault is None
                        else culprit_problems(r, fault))
            failures += bool(problems)
            verdict = "PASS" if r.passed else f"MISMATCH: {r.culprit.kind} {r.culprit.layer}"
            print(f"  {name:42s} {verdict:40s} {dt:6.1f}s  {'ok' if not problems else problems}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
