"""`migrate check-ddp` over the data-parallel scripts: our fixtures (an MLP, a CNN with BatchNorm,
its SyncBatchNorm variant) and pytorch/examples' DDP tutorial series, with 2 and 4 processes, 20
steps each; with --ms-python also the `--target mindspore` conversion under msrun (2 processes).

    python bench/ddp_check.py [--examples DIR] [--nproc 2,4] [--steps 20] [--ms-python PYTHON]
                              [--only mlp,cnn] [--timeout 900]

DIR is a checkout of pytorch/examples (its distributed/ddp-tutorial-series); the tutorial scripts
are written for GPUs (nccl, cuda:N): the torch side runs them on the CPU (see
migrate.check.ddp_torch.cpu_for_cuda_scripts). Prints one row per script and process count: the
worst per-step loss difference and the worst final parameter/buffer difference over every rank
(relative to the values' scale) and the verdict at rtol 1e-5 / atol 1e-6.

MindSpore reads a Python sampler's order once, so its side replays torch's first epoch in every
epoch: compare a shuffled script over one epoch (mlp-1epoch); mlp's later epochs differ there.
The tutorial series trains torch.nn.Linear(20, 1) with F.cross_entropy: one logit, so every loss
is 0 and the parameters never move; those rows say the scripts run and end alike, no more.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "distributed")


def cases(examples: str | None) -> list[tuple[str, str, tuple]]:
    """(name, script, arguments) of every script checked."""
    out = [("mlp", os.path.join(FIXTURES, "ddp_mlp.py"), ("--epochs", "10")),
           # one shuffled epoch of 30 steps: the MindSpore side replays torch's first epoch's order
           ("mlp-1epoch", os.path.join(FIXTURES, "ddp_mlp.py"), ("--epochs", "1", "--batch-size", "1")),
           ("cnn-bn", os.path.join(FIXTURES, "ddp_cnn_bn.py"), ("--epochs", "8")),
           ("cnn-syncbn", os.path.join(FIXTURES, "ddp_cnn_bn.py"), ("--epochs", "8", "--sync-bn"))]
    if examples:
        series = os.path.join(examples, "distributed", "ddp-tutorial-series")
        out += [(f"examples:{name}", os.path.join(series, f"{name}.py"), ("2", "1"))
                for name in ("multigpu", "multigpu_torchrun", "multinode")]
    return out


def main(argv=None) -> int:
    from cli import _converter
    from migrate.check.ddp import DdpSettings, check_ddp
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", default=None)
    p.add_argument("--nproc", default="2,4")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--ms-python", default=None)
    p.add_argument("--only", default=None)
    p.add_argument("--timeout", type=float, default=900.0)
    a = p.parse_args(argv)
    rows = []
    for name, script, args in cases(a.examples):
        if a.only and not any(o in name for o in a.only.split(",")):
            continue
        for n in (int(x) for x in a.nproc.split(",")):
            ms_python = a.ms_python if n == 2 else None
            settings = DdpSettings(nproc=n, max_steps=a.steps, args=args, ms_python=ms_python,
                                   timeout=a.timeout)
            start = time.monotonic()
            r = check_ddp(script, settings, _converter(), _converter("mindspore"))  # (they write the runtime)
            rows += _rows(name, n, r, time.monotonic() - start)
            print(rows[-1] if rows else name, flush=True)
    print(f"\n{'script':<26} {'procs':>5} {'side':<10} {'steps':>5} {'loss diff':>10} {'final diff':>10}  verdict")
    for row in rows:
        print(row)
    return 0


def _rows(name, n, result, seconds) -> list[str]:
    if result.error:
        return [f"{name:<26} {n:>5} {'-':<10} {'-':>5} {'-':>10} {'-':>10}  could not run: {result.error[:160]}"]
    out = []
    for side, comparisons in result.ranks.items():
        losses = [c.loss_err for c in comparisons if c.loss_err is not None]
        finals = [c.param_err for c in comparisons if c.param_err is not None]
        steps = min(c.losses for c in comparisons)
        verdict = "agree" if all(c.passed for c in comparisons) else \
            "differ: " + "; ".join(p for c in comparisons for p in c.problems)[:160]
        out.append(f"{name:<26} {n:>5} {side:<10} {steps:>5} {max(losses, default=0):>10.2e} "
                   f"{max(finals, default=0):>10.2e}  {verdict} ({seconds:.0f} s)")
    return out


if __name__ == "__main__":
    sys.exit(main())
