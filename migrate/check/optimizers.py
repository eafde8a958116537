"""The optimizers of the training steps, on both sides, with the formulas the report states.

SGD: ``torch.optim.SGD(momentum=m, dampening=0)`` against ``nn.Momentum(momentum=m)``; the two
agree because torch's first step sets its buffer to the gradient, which is MindSpore's
``accum = m*0 + grad``. Adam: torch ``Adam`` against ``nn.Adam`` (MindSpore adds eps to sqrt(v)
before the bias correction of the step size, torch after: a real difference of the optimizers
that the report states; SGD checks the model itself).
"""
from __future__ import annotations

import math

import numpy as np

from .compare import as_array

_SGD_NOTE = ("torch SGD(momentum={m}, dampening=0) vs ms nn.Momentum(momentum={m}): equal since "
             "torch's first buffer is the gradient and MindSpore's accum starts at 0 (accum = "
             "m*0 + grad)")
_ADAM_NOTE = ("torch Adam vs ms nn.Adam (betas 0.9/0.999, eps 1e-8): MindSpore adds eps to "
              "sqrt(v) before the bias correction, so its eps acts as eps/sqrt(1-beta2^t) in "
              "torch's terms (31.6x at step 1): elements whose gradient is within a few hundred "
              "eps differ by up to ~lr per step. That is a real difference of the two optimizers, "
              "not of the model: use SGD to check the model itself")


# --- the two optimizers ---------------------------------------------------------------------------

def torch_optimizer(parameters, s, notes):
    import torch
    tparams = [p for p in parameters if p.requires_grad]
    if s.optimizer == "sgd":
        if notes is not None:
            notes.append(_SGD_NOTE.format(m=s.momentum))
        return torch.optim.SGD(tparams, lr=s.lr, momentum=s.momentum, dampening=0,
                               nesterov=False, weight_decay=0)
    if notes is not None:
        notes.append(_ADAM_NOTE)
    return torch.optim.Adam(tparams, lr=s.lr, betas=(0.9, 0.999), eps=1e-8)


def ms_optimizer(s, weights, tr):
    import ms_core
    nn = ms_core.nn
    if s.optimizer == "sgd":
        if hasattr(nn, "Momentum"):
            return nn.Momentum(weights, learning_rate=s.lr, momentum=s.momentum)
        tr.notes.append("ms_core.nn.Momentum not available: MindSpore's formula applied in NumPy")
        return _MomentumRef(weights, s.lr, s.momentum)
    if hasattr(nn, "Adam"):
        return nn.Adam(weights, learning_rate=s.lr, beta1=0.9, beta2=0.999, eps=1e-8)
    tr.notes.append("ms_core.nn.Adam not available: MindSpore's formula applied in NumPy")
    return _AdamRef(weights, s.lr)


class _MomentumRef:
    """MindSpore's ApplyMomentum in NumPy (accum = m*accum + g; p -= lr*accum), used when
    ms_core.nn.Momentum is not available."""

    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.m = params, lr, momentum
        self.accum = [np.zeros_like(p._data) for p in params]

    def __call__(self, grads):
        for p, g, a in zip(self.params, grads, self.accum):
            a *= self.m
            a += as_array(g)
            p._data = (p._data - self.lr * a).astype(p._data.dtype)


class _AdamRef:
    """MindSpore's Adam in NumPy (lr_t = lr*sqrt(1-b2^t)/(1-b1^t); p -= lr_t*m/(sqrt(v)+eps))."""

    def __init__(self, params, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p._data) for p in params]
        self.v = [np.zeros_like(p._data) for p in params]
        self.t = 0

    def __call__(self, grads):
        self.t += 1
        lr_t = self.lr * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            g = as_array(g)
            m[...] = self.b1 * m + (1 - self.b1) * g
            v[...] = self.b2 * v + (1 - self.b2) * g * g
            p._data = (p._data - lr_t * m / (np.sqrt(v) + self.eps)).astype(p._data.dtype)
