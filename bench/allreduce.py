"""All-reduce bandwidth of ms_core.communication against torch.distributed, and the CNN's
data-parallel step time from 1 to 2 processes (ms_core, with torch DDP's as the reference).

    python bench/allreduce.py [--nproc 2] [--sizes 256,65536,1048576,8388608] [--repeat 30]
                              [--no-scaling] [--steps 10]

Bandwidth: N processes started by `python -m ms_core.launch`; in each, for every buffer size, one
float32 NumPy buffer is all-reduced in place by `torch.distributed.all_reduce` (on its
`torch.from_numpy` view) and by ms_core's `mint.distributed.all_reduce` (on the ms_core Tensor
holding the same buffer), interleaved round by round over the same gloo group, so load hits both
alike; also ms_core's out-of-place `ops.AllReduce` (a new Tensor per call) against torch's
all-reduce of a clone of the buffer (the same work: a copy, then the collective), and the gradient
reducer over the CNN's gradients (one fused buffer) against torch's all-reduce of the same
gradients flattened into one buffer (as DDP's buckets). Reported: median time, algorithmic
bandwidth (bytes / time) and the median over rounds of torch time / ms_core time (each
round's two calls back to back; 1.0: as fast; target >= 0.9).

Scaling: the CNN of bench/train_step.py (3 x conv-BN-ReLU-pool, Dense, Dropout, Momentum), batch
32 of 3x32x32 per process, one data-parallel step (forward, backward, gradient all-reduce,
update) timed with 1 and with 2 processes, on ms_core and on torch DDP (gloo). Reported: median
step time and the efficiency t(1) / t(2) (1.0: a second process costs nothing; on a machine with
fewer free cores than processes it cannot reach 1).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _median(xs):
    return float(np.median(xs))


def _paired(reference, ours):
    """The median of round-by-round ratios reference / ours (each pair ran back to back, so a
    load spike hits both)."""
    return _median(np.asarray(reference) / np.asarray(ours))


# ---- workers (run by the launcher) -----------------------------------------------------------

def worker_bandwidth(sizes, repeat) -> None:
    import torch
    import torch.distributed as dist

    import ms_core as ms
    ms.communication.init()                     # the gloo group both sides use
    rank = dist.get_rank()
    rows = []
    for n in sizes:
        x = ms.Tensor(np.ones(n, np.float32))
        view = torch.from_numpy(x.asnumpy())    # the same memory
        times = {"torch": [], "ms_core": [], "torch new": [], "ms_core AllReduce": []}
        calls = [("torch", lambda: dist.all_reduce(view)),
                 ("ms_core", lambda: ms.mint.distributed.all_reduce(x)),
                 ("torch new", lambda: dist.all_reduce(view.clone())),  # a new tensor, as AllReduce
                 ("ms_core AllReduce", lambda: ms.ops.AllReduce()(x))]
        for i in range(repeat):
            k = i % len(calls)
            for name, fn in calls[k:] + calls[:k]:  # each goes first in turn
                dist.barrier()
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
            np.multiply(x.asnumpy(), 0.5, out=x.asnumpy())  # keep the values finite
        rows.append({"size": n, **{k: _median(v) for k, v in times.items()},
                     "ratio ms_core": _paired(times["torch"], times["ms_core"]),
                     "ratio ms_core AllReduce": _paired(times["torch new"], times["ms_core AllReduce"])})
    rows.append(_reducer_row(ms, torch, dist, repeat))
    if rank == 0:
        print("RESULT " + json.dumps(rows), flush=True)
    ms.communication.release()


def _reducer_row(ms, torch, dist, repeat) -> dict:
    """The CNN's gradients: ms_core's DistributedGradReducer against one flattened torch buffer."""
    sys.path.insert(0, HERE)
    from train_step import ms_models
    _, nn, _, CNN, _ = ms_models()
    params = CNN().trainable_params()
    grads = tuple(ms.Tensor(np.ones(p.shape, np.float32)) for p in params)
    reducer = nn.DistributedGradReducer(params, mean=True)
    tgrads = [torch.ones(tuple(p.shape)) for p in params]
    times = {"torch": [], "ms_core": []}
    for i in range(repeat):
        if i % 2:
            dist.barrier()
            start = time.perf_counter()
            reducer(grads)
            times["ms_core"].append(time.perf_counter() - start)
        dist.barrier()
        start = time.perf_counter()
        flat = torch.cat([g.reshape(-1) for g in tgrads])
        dist.all_reduce(flat)
        flat.div_(dist.get_world_size())
        [g.copy_(f.view_as(g)) for g, f in zip(tgrads, flat.split([g.numel() for g in tgrads]))]
        times["torch"].append(time.perf_counter() - start)
        if not i % 2:
            dist.barrier()
            start = time.perf_counter()
            reducer(grads)
            times["ms_core"].append(time.perf_counter() - start)
    size = sum(int(np.prod(p.shape)) for p in params)
    return {"size": size, "what": "CNN gradients", **{k: _median(v) for k, v in times.items()},
            "ratio ms_core": _paired(times["torch"], times["ms_core"])}


def worker_cnn_ms(steps) -> None:
    sys.path.insert(0, HERE)
    from train_step import ms_models
    ms, nn, _, CNN, _ = ms_models()
    ms.communication.init()
    ms.set_seed(0)
    rng = np.random.default_rng(ms.communication.get_rank())
    net = CNN()
    net.set_train(True)
    x = ms.Tensor(rng.standard_normal((32, 3, 32, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))
    loss_fn = nn.CrossEntropyLoss()
    params = net.trainable_params()
    opt = nn.Momentum(params, learning_rate=0.01, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, params)
    reducer = nn.DistributedGradReducer(params, mean=True)

    def step():
        loss, grads = grad_fn(x, y)
        opt(reducer(grads))
    _time_steps(step, steps, ms.communication.comm_func.barrier, ms.communication.get_rank())


def worker_cnn_torch(steps) -> None:
    import torch
    import torch.distributed as dist
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    dist.init_process_group("gloo")
    net = _torch_cnn(torch)
    model = torch.nn.parallel.DistributedDataParallel(net)
    g = torch.Generator().manual_seed(dist.get_rank())
    x, y = torch.randn(32, 3, 32, 32, generator=g), torch.randint(0, 10, (32,), generator=g)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    _time_steps(step, steps, dist.barrier, dist.get_rank())
    dist.destroy_process_group()


def _torch_cnn(torch):
    nn = torch.nn
    layers, c = [], 3
    for o in (32, 64, 128):
        layers += [nn.Conv2d(c, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2, 2)]
        c = o
    return nn.Sequential(*layers, nn.Flatten(), nn.Linear(2048, 256), nn.ReLU(), nn.Dropout(0.5),
                         nn.Linear(256, 10))


def _time_steps(step, steps, barrier, rank) -> None:
    for _ in range(2):  # warm-up
        step()
    times = []
    for _ in range(steps):
        barrier()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    if rank == 0:
        print("RESULT " + json.dumps({"step": _median(times)}), flush=True)


# ---- the parent ------------------------------------------------------------------------------

def launch(nproc, *worker_args, timeout=1800):
    """This file as a worker under `python -m ms_core.launch --nproc N`; rank 0's result."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "ms_core.launch", "--nproc", str(nproc), __file__,
                          "--worker", *map(str, worker_args)], capture_output=True, text=True,
                         env=env, timeout=timeout, start_new_session=True)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"the workers failed ({out.returncode}): {out.stderr[-2000:]}")


def bandwidth_table(nproc, sizes, repeat) -> None:
    rows = launch(nproc, "bandwidth", ",".join(map(str, sizes)), repeat)
    print(f"all-reduce, {nproc} processes (gloo), float32, median of {repeat}; ratio = median over "
          f"rounds of torch time / ms_core time (1.0: as fast)")
    print(f"{'elements':>12} {'what':<22} {'torch ms':>9} {'ms_core ms':>10} {'torch GB/s':>10} "
          f"{'ms_core GB/s':>12} {'ratio':>6}")
    for r in rows:
        variants = [("mint all_reduce", "torch", "ms_core")]
        if "ms_core AllReduce" in r:  # out of place: against torch's all_reduce of a clone
            variants.append(("ops.AllReduce", "torch new", "ms_core AllReduce"))
        if "what" in r:
            variants = [(r["what"] + " reducer", "torch", "ms_core")]
        for what, ref, key in variants:
            nbytes, t = 4 * r["size"], r[key]
            print(f"{r['size']:>12} {what:<22} {r[ref] * 1e3:>9.3f} {t * 1e3:>10.3f} "
                  f"{nbytes / r[ref] / 1e9:>10.3f} {nbytes / t / 1e9:>12.3f} {r['ratio ' + key]:>6.2f}")


def scaling_table(steps) -> None:
    print(f"\nCNN data-parallel step (batch 32 per process), median of {steps}; efficiency = t(1) / t(2)")
    for side in ("ms_core", "torch"):
        t1 = launch(1, f"cnn-{side}", steps)["step"]
        t2 = launch(2, f"cnn-{side}", steps)["step"]
        print(f"{side:<8} 1 process {t1 * 1e3:8.1f} ms   2 processes {t2 * 1e3:8.1f} ms   "
              f"efficiency {t1 / t2:.2f}   throughput x{2 * t1 / t2:.2f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--sizes", default="256,65536,1048576,8388608")
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--no-scaling", action="store_true")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        kind, *rest = a.worker
        if kind == "bandwidth":
            worker_bandwidth([int(s) for s in rest[0].split(",")], int(rest[1]))
        elif kind == "cnn-ms_core":
            worker_cnn_ms(int(rest[0]))
        else:
            worker_cnn_torch(int(rest[0]))
        return 0
    bandwidth_table(a.nproc, [int(float(s)) for s in a.sizes.split(",")], a.repeat)
    if not a.no_scaling:
        scaling_table(a.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
