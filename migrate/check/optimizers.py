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
    """torch's SGD (momentum, dampening 0) or Adam for the trainable `parameters`, as
    :class:`TorchSGD` / :class:`TorchAdam` (torch.optim's single-tensor arithmetic, op for op;
    ``torch.optim`` itself imports torch._dynamo on first use, 5-8 s per command)."""
    tparams = [p for p in parameters if p.requires_grad]
    if s.optimizer == "sgd":
        if notes is not None:
            notes.append(_SGD_NOTE.format(m=s.momentum))
        return TorchSGD(tparams, lr=s.lr, momentum=s.momentum)
    if notes is not None:
        notes.append(_ADAM_NOTE)
    return TorchAdam(tparams, lr=s.lr)


class _TorchOptimizer:
    """The parameters and ``zero_grad`` of torch.optim's optimizers."""

    def __init__(self, params):
        self.params = list(params)

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()


class TorchSGD(_TorchOptimizer):
    """``torch.optim.SGD(params, lr, momentum, dampening=0, nesterov=False, weight_decay=0)``:
    buf = g on the first step, then buf = m*buf + g; p -= lr*buf (parameters without a gradient
    are skipped, as torch skips them)."""

    def __init__(self, params, lr, momentum=0.0):
        super().__init__(params)
        self.lr, self.momentum = lr, momentum
        self.buffers = [None] * len(self.params)

    def step(self):
        import torch
        with torch.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                grad = p.grad
                if self.momentum != 0:
                    if self.buffers[i] is None:
                        self.buffers[i] = torch.clone(grad).detach()
                    else:
                        self.buffers[i].mul_(self.momentum).add_(grad)
                    grad = self.buffers[i]
                p.add_(grad, alpha=-self.lr)


class TorchAdam(_TorchOptimizer):
    """``torch.optim.Adam(params, lr, betas=(0.9, 0.999), eps=1e-8)`` without amsgrad or weight
    decay, in torch's single-tensor order of operations."""

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params)
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.state = [None] * len(self.params)

    def step(self):
        import torch
        with torch.no_grad():
            for i, p in enumerate(self.params):
                if p.grad is None:
                    continue
                if self.state[i] is None:
                    self.state[i] = [0, torch.zeros_like(p), torch.zeros_like(p)]
                st = self.state[i]
                st[0] += 1
                st[1].lerp_(p.grad, 1 - self.beta1)
                st[2].mul_(self.beta2).addcmul_(p.grad, p.grad, value=1 - self.beta2)
                step_size = self.lr / (1 - self.beta1 ** st[0])
                denom = (st[2].sqrt() / (1 - self.beta2 ** st[0]) ** 0.5).add_(self.eps)
                p.addcdiv_(st[1], denom, value=-step_size)


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
