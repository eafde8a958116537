"""What the step-by-step trace hooks share: `migrate check-script` and the benchmarks
(:mod:`migrate.check.script_trace`) and `migrate check-ddp` (:mod:`migrate.check.ddp_hooks`).

It imports only the standard library and NumPy, so `check-ddp` also loads it by path in an
interpreter that lacks this project's dependencies (MindSpore's). A trace object given to these
functions has ``networks`` (networks drawn so far), ``random`` (recorded draws, or the ones to
replay), ``notes``, ``from_script(depth)`` and ``record_loss(value)``.
"""
from __future__ import annotations

import os
import sys

import numpy as np

# torch's random functions the script's own code may call (recorded for the converted side), and
# the ops the converter maps them to (answered with the recorded values)
TORCH_RANDOM = ("randn", "rand", "randint", "randperm", "randn_like", "rand_like", "randint_like",
                "normal", "multinomial", "bernoulli")
MS_RANDOM = ("randn", "rand", "randint", "randperm", "randn_like", "rand_like", "randint_like",
             "standard_normal", "normal", "multinomial", "bernoulli", "uniform")


def called_from(root: str, depth: int) -> bool:
    """Whether the frame `depth` levels above the caller runs code under `root`."""
    f = sys._getframe(depth + 1)
    return os.path.abspath(f.f_code.co_filename).startswith(root)


def initial_values(trace, shapes) -> list[np.ndarray]:
    """The initial values of the trace's next network: one NumPy stream per network (seeded by
    how many were drawn before), U(±1/sqrt(fan_in)) for matrices and kernels, U(±0.1) for
    vectors, float32."""
    rng = np.random.default_rng(1000 + trace.networks)
    trace.networks += 1
    out = []
    for shape in shapes:
        bound = 1.0 / np.sqrt(np.prod(shape[1:])) if len(shape) > 1 else 0.1
        out.append(rng.uniform(-bound, bound, size=shape).astype(np.float32))
    return out


def next_recorded(trace, name: str, shape):
    """The next recorded draw, for a converted op `name` that drew `shape`; None (noted) when
    nothing is left or the shapes differ (the replay then stops: later draws would be shifted)."""
    if not trace.random:
        trace.notes.append(f"{name}: nothing recorded left to replay")
        return None
    rec = trace.random.pop(0)
    if tuple(rec.shape) != tuple(shape):
        trace.notes.append(f"{name}: shape {tuple(shape)}, recorded {tuple(rec.shape)}: replay stopped")
        trace.random.clear()
        return None
    return rec


def record_torch_random(trace, torch) -> None:
    """torch's random functions record what they return to the script's own files."""
    def recorder(fn):
        def wrapped(*args, **kwargs):
            out = fn(*args, **kwargs)
            if trace.from_script():
                trace.random.append(out.detach().cpu().numpy())
            return out
        return wrapped

    for name in TORCH_RANDOM:
        if hasattr(torch, name):
            setattr(torch, name, recorder(getattr(torch, name)))


def replay_random(trace, ops, tensor) -> None:
    """The converted side's random ops (of `ops`, ms_core's or MindSpore's) answer the script's
    own files with the recorded draws, in order, as `tensor`s of the dtype they drew."""
    def replayer(name, fn):
        def wrapped(*args, **kwargs):
            out = fn(*args, **kwargs)
            if not trace.from_script():
                return out
            rec = next_recorded(trace, f"ops.{name}", out.shape)
            return out if rec is None else tensor(rec.astype(out.asnumpy().dtype))
        return wrapped

    for name in MS_RANDOM:
        if hasattr(ops, name):
            setattr(ops, name, replayer(name, getattr(ops, name)))


def record_value_and_grad_losses(trace, ms) -> None:
    """Every call of a function made by `ms.value_and_grad` records its (first) value as a loss."""
    original = ms.value_and_grad

    def value_and_grad(fn, *args, **kwargs):
        inner = original(fn, *args, **kwargs)

        def run(*a, **k):
            value, grads = inner(*a, **k)
            first = value
            while isinstance(first, (tuple, list)):
                first = first[0]
            trace.record_loss(first.asnumpy() if hasattr(first, "asnumpy") else first)
            return value, grads
        return run

    ms.value_and_grad = value_and_grad
