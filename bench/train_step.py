"""Training-step benchmark: ms_core vs PyTorch on the same thread count, in one run.

    python bench/train_step.py                  # both models, both sides
    python bench/train_step.py --threads 1      # single-threaded BLAS / torch
    python bench/train_step.py --profile cnn    # cProfile of the ms_core CNN step (top 25)

Models:
  cnn       3 x [Conv 3x3 pad 1 -> BatchNorm -> ReLU -> MaxPool 2] (32, 64, 128 channels)
            -> Dense 2048->256 -> ReLU -> Dropout -> Dense 256->10; batch 32 of 3x32x32;
            cross-entropy; SGD with momentum 0.9 (nn.Momentum / torch.optim.SGD).
  resnet18  ResNet-18 with basic blocks, forward + backward (no optimizer update) of a
            cross-entropy loss; batch 8 of 3x64x64.

Timing runs both sides in one child process, interleaved step by step (ms_core step, torch
step, ...), so that load from other processes hits both alike; the reported figure is the
median. Memory runs each side in its own child process (the ms_core one never imports torch):
peak resident set size over two training steps minus the resident size just before the first
(`resource.getrusage` high-water mark vs /proc/self/statm), the same measure on both sides.
All children get OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS = --threads and the
torch side calls torch.set_num_threads(--threads) and set_num_interop_threads(1).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss_bytes():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# --- ms_core side ---------------------------------------------------------------------------

def ms_models():
    import ms_core as ms
    from ms_core import nn, ops

    def conv(cin, cout, k, stride=1, padding=0, bias=False):
        mode = "pad" if padding else "valid"
        return nn.Conv2d(cin, cout, k, stride=stride, pad_mode=mode, padding=padding,
                         has_bias=bias, weight_init="HeNormal" if hasattr(
                             ms.common.initializer, "HeNormal") else "normal")

    class CNN(nn.Cell):
        def __init__(self):
            super().__init__()
            layers, c = [], 3
            for o in (32, 64, 128):
                layers += [conv(c, o, 3, padding=1, bias=True), nn.BatchNorm2d(o), nn.ReLU(),
                           nn.MaxPool2d(2, 2)]
                c = o
            self.features = nn.SequentialCell(layers)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(2048, 256)
            self.relu = nn.ReLU()
            self.dropout = nn.Dropout(p=0.5)
            self.fc2 = nn.Dense(256, 10)

        def construct(self, x):
            x = self.flatten(self.features(x))
            return self.fc2(self.dropout(self.relu(self.fc1(x))))

    class BasicBlock(nn.Cell):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = conv(cin, cout, 3, stride, 1)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = conv(cout, cout, 3, 1, 1)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU()
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.SequentialCell([conv(cin, cout, 1, stride), nn.BatchNorm2d(cout)])

        def construct(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            short = x if self.down is None else self.down(x)
            return self.relu(out + short)

    class ResNet18(nn.Cell):
        def __init__(self, num_classes=10):
            super().__init__()
            self.conv1 = conv(3, 64, 7, 2, 3)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
            blocks, c = [], 64
            for o, s in ((64, 1), (128, 2), (256, 2), (512, 2)):
                blocks += [BasicBlock(c, o, s), BasicBlock(o, o, 1)]
                c = o
            self.layers = nn.SequentialCell(blocks)
            self.avg = nn.AdaptiveAvgPool2d(1)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(512, num_classes)

        def construct(self, x):
            x = self.pool(self.relu(self.bn1(self.conv1(x))))
            return self.fc(self.flatten(self.avg(self.layers(x))))

    return ms, nn, ops, CNN, ResNet18


def build_ms(model):
    """The ms_core training step of `model` and a function turning its loss into a float."""
    import numpy as np
    ms, nn, ops, CNN, ResNet18 = ms_models()
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    if model == "cnn":
        net, shape = CNN(), (32, 3, 32, 32)
    else:
        net, shape = ResNet18(), (8, 3, 64, 64)
    net.set_train(True)
    x = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, shape[0]).astype(np.int32))
    loss_fn = nn.CrossEntropyLoss()
    params = net.trainable_params()

    def forward(xx, yy):
        return loss_fn(net(xx), yy)

    grad_fn = ms.value_and_grad(forward, None, params)
    if model == "cnn":
        opt = nn.Momentum(params, learning_rate=0.01, momentum=0.9)

        def step():
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss
    else:
        def step():
            loss, grads = grad_fn(x, y)
            return loss

    return step, lambda loss: float(loss.asnumpy())


# --- torch side -----------------------------------------------------------------------------

def build_torch(model, threads):
    """The PyTorch training step of `model` and its loss-to-float function."""
    import numpy as np
    import torch
    import torch.nn as tnn
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    torch.manual_seed(0)

    class CNN(tnn.Module):
        def __init__(self):
            super().__init__()
            layers, c = [], 3
            for o in (32, 64, 128):
                layers += [tnn.Conv2d(c, o, 3, padding=1), tnn.BatchNorm2d(o), tnn.ReLU(),
                           tnn.MaxPool2d(2)]
                c = o
            self.features = tnn.Sequential(*layers)
            self.head = tnn.Sequential(tnn.Flatten(), tnn.Linear(2048, 256), tnn.ReLU(),
                                       tnn.Dropout(0.5), tnn.Linear(256, 10))

        def forward(self, x):
            return self.head(self.features(x))

    class BasicBlock(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = tnn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = tnn.BatchNorm2d(cout)
            self.conv2 = tnn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = tnn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride, bias=False),
                                           tnn.BatchNorm2d(cout))

        def forward(self, x):
            out = torch.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return torch.relu(out + (x if self.down is None else self.down(x)))

    class ResNet18(tnn.Module):
        def __init__(self, num_classes=10):
            super().__init__()
            self.stem = tnn.Sequential(tnn.Conv2d(3, 64, 7, 2, 3, bias=False), tnn.BatchNorm2d(64),
                                       tnn.ReLU(), tnn.MaxPool2d(3, 2, 1))
            blocks, c = [], 64
            for o, s in ((64, 1), (128, 2), (256, 2), (512, 2)):
                blocks += [BasicBlock(c, o, s), BasicBlock(o, o, 1)]
                c = o
            self.layers = tnn.Sequential(*blocks)
            self.fc = tnn.Linear(512, num_classes)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.fc(torch.flatten(tnn.functional.adaptive_avg_pool2d(x, 1), 1))

    rng = np.random.default_rng(0)
    if model == "cnn":
        net, shape = CNN(), (32, 3, 32, 32)
    else:
        net, shape = ResNet18(), (8, 3, 64, 64)
    net.train()
    x = torch.tensor(rng.standard_normal(shape).astype(np.float32))
    y = torch.tensor(rng.integers(0, 10, shape[0]).astype(np.int64))
    loss_fn = tnn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def step():
        if model == "cnn":
            opt.zero_grad(set_to_none=True)
        else:
            for p in net.parameters():
                p.grad = None
        loss = loss_fn(net(x), y)
        loss.backward()
        if model == "cnn":
            opt.step()
        return loss

    return step, lambda loss: float(loss.item())


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def time_both(model, steps, warmup, threads):
    """Median step times with the two sides interleaved step by step, so that load from other
    processes on the machine hits both alike."""
    sys.path.insert(0, ROOT)
    sides = {"ms": build_ms(model), "torch": build_torch(model, threads)}
    for _ in range(warmup):
        for step, _ in sides.values():
            step()
    times = {k: [] for k in sides}
    losses = {k: [] for k in sides}
    for _ in range(steps):
        for k, (step, to_float) in sides.items():
            t0 = time.perf_counter()
            loss = step()
            times[k].append(time.perf_counter() - t0)
            losses[k].append(to_float(loss))
    return {k: {"median_s": _median(times[k]), "min_s": min(times[k]),
                "first_loss": losses[k][0], "last_loss": losses[k][-1]} for k in sides}


def memory_one(side, model, threads, steps=2):
    """Peak resident memory of `steps` training steps over the resident size before the first
    one (parameters and inputs already allocated; gradients, optimizer state and activations
    counted)."""
    import gc
    sys.path.insert(0, ROOT)
    step, _ = build_ms(model) if side == "ms" else build_torch(model, threads)
    gc.collect()
    base = _rss_bytes()
    for _ in range(steps):
        step()
    return {"peak_mem_bytes": _peak_rss_bytes() - base}


# --- driver ---------------------------------------------------------------------------------

def child(kind, model, steps, warmup, threads):
    if kind == "time":
        res = time_both(model, steps, warmup, threads)
    else:
        res = memory_one(kind, model, threads)
    print("RESULT " + json.dumps(res))


def spawn(kind, model, steps, warmup, threads):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, model, "--steps",
           str(steps), "--warmup", str(warmup), "--threads", str(threads)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{kind}/{model} failed:\n{proc.stdout}\n{proc.stderr}")


def profile(model, steps):
    import cProfile
    import pstats
    sys.path.insert(0, ROOT)
    pr = cProfile.Profile()
    import ms_core  # noqa: F401  (import cost outside the profile)
    step, _ = build_ms(model)
    step()
    pr.enable()
    for _ in range(steps):
        step()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="BLAS / torch threads for both sides (default: all cores)")
    ap.add_argument("--models", default="cnn,resnet18")
    ap.add_argument("--steps", type=int, default=0, help="timed steps (default 20 cnn, 10 resnet)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--child", nargs=2, metavar=("SIDE", "MODEL"), help=argparse.SUPPRESS)
    ap.add_argument("--profile", metavar="MODEL", help="cProfile the ms_core step of MODEL")
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.steps, args.warmup, args.threads)
        return
    if args.profile:
        profile(args.profile, args.steps or 5)
        return
    targets = {"cnn": 2.0, "resnet18": 2.5}
    print(f"threads: {args.threads} (OMP/OpenBLAS/MKL_NUM_THREADS and torch.set_num_threads); "
          f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'model':<10} {'side':<8} {'median ms':>10} {'min ms':>8} {'peak MB':>8}  loss")
    rows = []
    for model in args.models.split(","):
        steps = args.steps or (20 if model == "cnn" else 10)
        res = spawn("time", model, steps, args.warmup, args.threads)
        for side in ("ms", "torch"):
            res[side].update(spawn(side, model, steps, args.warmup, args.threads))
        for side, name in (("ms", "ms_core"), ("torch", "torch")):
            r = res[side]
            print(f"{model:<10} {name:<8} {r['median_s'] * 1e3:>10.1f} {r['min_s'] * 1e3:>8.1f} "
                  f"{r['peak_mem_bytes'] / 2**20:>8.1f}  {r['first_loss']:.4f} -> "
                  f"{r['last_loss']:.4f}")
        t_ratio = res["ms"]["median_s"] / res["torch"]["median_s"]
        min_ratio = res["ms"]["min_s"] / res["torch"]["min_s"]
        m_ratio = res["ms"]["peak_mem_bytes"] / max(res["torch"]["peak_mem_bytes"], 1)
        rows.append((model, t_ratio, min_ratio, m_ratio))
    print()
    for model, t_ratio, min_ratio, m_ratio in rows:
        target = targets.get(model)
        ok_t = "ok" if target and t_ratio <= target else "OVER"
        ok_m = "ok" if m_ratio <= 2.0 else "OVER"
        print(f"{model}: time ratio ms_core/torch = {t_ratio:.2f}x median, {min_ratio:.2f}x best "
              f"(target <= {target}x, {ok_t}); peak memory ratio = {m_ratio:.2f}x "
              f"(target <= 2x, {ok_m})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
