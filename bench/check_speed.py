"""Speed of `migrate check` on ResNet-18 (batch 2 of 3x64x64) against the cost of running the two
models' forward and backward once each.

    python bench/check_speed.py [--batch 2] [--size 64] [--repeat 3] [--profile]

The issue's bound: check (eval + train + gradients) <= 3x (torch fwd+bwd + ms fwd+bwd),
including torch's float64 reference run when the check triggers it (something beyond the
tolerance), in every paired run: each check is divided by the mean of the forward+backward runs
just before and after it (printed with their median and max; the ratio of the best times too).
`--float64` times the check with that run forced in both modes as well.
"""
import argparse
import gc
import os
import sys
import time

# --threads N must reach BLAS before NumPy is imported (one thread is the stable measure on a
# shared machine: oversubscribed thread pools spin and make every timing noisy).
for _i, _a in enumerate(sys.argv):
    if _a == "--threads" and _i + 1 < len(sys.argv):
        for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[_v] = sys.argv[_i + 1]

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def _models():
    from migrate import convert_source
    from migrate.check.harness import prepare
    path = os.path.join(HERE, "..", "tests", "fixtures", "check", "resnet.py")
    t, m, _, _ = prepare(path, "ResNet18()", convert=lambda text: convert_source(text, runtime=""))  # inlined
    return t, m


def reference(t, m, x):
    """One forward+backward of each model (train mode, same scalar loss as the check)."""
    import torch

    import ms_core
    t.train()
    m.set_train(True)
    t0 = time.perf_counter()
    xt = torch.from_numpy(x).requires_grad_(True)
    out = t(xt)
    (out * out).mean().backward()
    t1 = time.perf_counter()
    params = m.trainable_params()
    vg = ms_core.value_and_grad(lambda a: _ms_loss(m(a)), 0, params)
    vg(ms_core.Tensor(x))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def _timed_reference(t, m, x):
    """((torch seconds, ms_core seconds), CPU seconds) of one :func:`reference`."""
    gc.collect()
    c0 = time.process_time()
    pair = reference(t, m, x)
    return pair, time.process_time() - c0


def _float64_modes(result) -> str:
    return ", ".join(p.mode for p in result.phases
                     if any(n.startswith("float64 reference") for n in p.notes))


def _ms_loss(o):
    return (o * o).mean()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--threads", type=int, default=0, help="threads for torch and BLAS (0: all)")
    ap.add_argument("--local", choices=("auto", "all"), default="auto")
    ap.add_argument("--float64", action="store_true",
                    help="also time the check with the float64 reference forced (--float64)")
    a = ap.parse_args(argv)
    import torch
    torch.set_num_threads(a.threads or max(1, os.cpu_count() or 1))
    from migrate.check import check
    from migrate.check.weights import transfer
    t, m = _models()
    transfer(t, m)
    x = np.random.default_rng(0).standard_normal((a.batch, 3, a.size, a.size)).astype(np.float32)
    reference(t, m, x)  # warm-up
    check(t, m, [x], mode="both", local=a.local)
    if a.profile:
        import cProfile
        import pstats
        cProfile.runctx("check(t, m, [x], mode='both', local=a.local)", globals(), locals(),
                        "/tmp/check.prof")
        pstats.Stats("/tmp/check.prof").sort_stats("tottime").print_stats(25)
    # Interleaved and paired: each check's reference is the mean of the forward+backward runs
    # just before and just after it, so that load from other processes hits both sides alike.
    # A full garbage collection before each measurement: a collection left over from one side
    # (0.1 s on this process's 200k objects) must not fall into the other.
    refs, times, ratios, cpu_ratios = [], [], [], []
    for _ in range(a.repeat):
        before, c_before = _timed_reference(t, m, x)
        gc.collect()
        c1 = time.process_time()
        t0 = time.perf_counter()
        r = check(t, m, [x], mode="both", local=a.local)
        c = time.perf_counter() - t0
        c2 = time.process_time()
        after, c_after = _timed_reference(t, m, x)
        refs += [before, after]
        times.append(c)
        ratios.append(c / ((sum(before) + sum(after)) / 2))
        cpu_ratios.append((c2 - c1) / ((c_before + c_after) / 2))  # less sensitive to load
    rt = min(r_[0] for r_ in refs)
    rm = min(r_[1] for r_ in refs)
    ref = rt + rm
    best = min(times)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"ResNet-18, batch {a.batch} of 3x{a.size}x{a.size} ({a.repeat} interleaved runs, "
          f"{torch.get_num_threads()} thread(s), load average {load:.1f} on {os.cpu_count()} "
          f"cores):")
    print(f"  torch fwd+bwd {rt:.3f}s, ms_core fwd+bwd {rm:.3f}s, reference {ref:.3f}s (best)")
    print(f"  check (eval + train + gradients, per-layer comparison, local={a.local}): "
          f"{best:.3f}s (best)")
    print(f"  ratio of bests {best / ref:.2f}x; paired ratios "
          f"{', '.join(f'{q:.2f}' for q in ratios)}: median {np.median(ratios):.2f}, max "
          f"{max(ratios):.2f} (bound 3x); passed={r.passed}")
    print(f"  CPU-time ratios {', '.join(f'{q:.2f}' for q in cpu_ratios)}: median "
          f"{np.median(cpu_ratios):.2f}, max {max(cpu_ratios):.2f}")
    print("  last check's phases: " + ", ".join(f"{k} {v:.3f}s" for k, v in r.timings.items()))
    print(f"  float64 reference run by the default check: {_float64_modes(r) or 'none'}")
    if a.float64:
        forced = []
        for _ in range(a.repeat):
            before, _ = _timed_reference(t, m, x)
            gc.collect()
            t0 = time.perf_counter()
            check(t, m, [x], mode="both", local=a.local, float64_reference=True)
            c = time.perf_counter() - t0
            after, _ = _timed_reference(t, m, x)
            forced.append(c / ((sum(before) + sum(after)) / 2))
        print(f"  check --float64 (float64 reference in both modes, with gradients): paired "
              f"ratios {', '.join(f'{q:.2f}' for q in forced)}")
    t0 = time.perf_counter()
    from migrate.check.harness import prepare  # noqa: F401
    t2, m2 = _models()
    r2 = check(t2, m2, [x], mode="eval", layers=False, gradients=False, init_check=True)
    print(f"  init KS check + eval outputs on fresh models: {time.perf_counter() - t0:.3f}s "
          f"(incl. building both models), init rows {len(r2.init)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
