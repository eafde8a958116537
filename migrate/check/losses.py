"""The scalar losses whose gradients the checker compares: the same function of the outputs on
both sides, with the same fixed targets."""
from __future__ import annotations

import numpy as np

from .compare import as_array
from .run import flatten


def make_losses(loss_fn, seed):
    """(torch loss fn, ms loss fn) of the model outputs, both scalar and with the same targets.

    'mse' (default): mean of (out - T)² over every float output, T a fixed random target (every
    output element gets its own weight in the gradient, so a permuted output is caught);
    'sum': the sum of all outputs; 'cross_entropy': logits (N, C) against fixed random labels;
    a pair (torch_fn, ms_fn) of callables taking the model output. Targets are drawn from the
    first output the torch loss sees (the torch model always runs first).
    """
    if isinstance(loss_fn, (tuple, list)) and len(loss_fn) == 2 and \
            all(callable(f) for f in loss_fn):
        return loss_fn[0], loss_fn[1]
    kind = loss_fn or "mse"
    if kind not in _LOSSES:
        raise ValueError(f"unknown loss {loss_fn!r}: use 'mse', 'sum', 'cross_entropy' or a pair "
                         f"(torch_fn, ms_fn)")
    targets = _Targets(kind, seed)
    t_loss, m_loss = _LOSSES[kind](targets)
    return _Named(t_loss, kind, targets), m_loss


class _Named:
    """A torch loss with its kind and targets visible (the MindSpore side computes the same)."""

    def __init__(self, fn, kind, targets):
        self.fn, self.kind, self.targets = fn, kind, targets

    def __call__(self, out):
        return self.fn(out)


class _Targets:
    """The fixed random targets of one loss, drawn once from the first output torch gives."""

    def __init__(self, kind, seed):
        self.kind, self.seed, self.value, self.drawn = kind, seed, None, False

    def draw(self, out):
        if not self.drawn:
            self.value, self.drawn = self._make([as_array(o) for o in flatten(out)]), True
        return self.value

    def _make(self, outs):
        rng = np.random.default_rng(self.seed + 1000)
        if self.kind == "mse":
            return [rng.standard_normal(o.shape).astype(np.float32) if o.dtype.kind == "f"
                    else None for o in outs]
        logits = outs[0]
        if logits.ndim != 2:
            raise ValueError(f"loss 'cross_entropy' needs (N, C) logits, but the model output "
                             f"has shape {list(logits.shape)}")
        labels = rng.integers(0, logits.shape[1], logits.shape[0])
        return labels, np.eye(logits.shape[1], dtype=np.float32)[labels]


def _mse(targets):
    import torch

    import ms_core
    from ms_core.ops import functional as F

    def t_loss(out):
        total = 0
        for o, t in zip(flatten(out), targets.draw(out)):
            if t is not None:
                d = o - torch.from_numpy(t).to(o.dtype)
                total = total + (d * d).mean()
        return total

    def m_loss(out):
        total = None
        for o, t in zip(flatten(out), targets.value):
            if t is not None:
                d = o - ms_core.Tensor(t.astype(as_array(o).dtype))
                v = F.mean(d * d)
                total = v if total is None else total + v
        return total
    return t_loss, m_loss


def _sum(targets):
    from ms_core.ops import functional as F
    return (lambda out: sum(o.sum() for o in flatten(out) if o.is_floating_point()),
            lambda out: _ms_sum([F.sum(o) for o in flatten(out) if as_array(o).dtype.kind == "f"]))


def _cross_entropy(targets):
    import torch

    import ms_core
    from ms_core.ops import functional as F

    def t_loss(out):
        labels, _ = targets.draw(out)
        return torch.nn.functional.cross_entropy(flatten(out)[0], torch.from_numpy(labels))

    def m_loss(out):
        _, onehot = targets.value
        o = flatten(out)[0]
        lp = F.log_softmax(o, -1)
        picked = F.sum(lp * ms_core.Tensor(onehot.astype(as_array(o).dtype)))
        return -picked / float(onehot.shape[0])
    return t_loss, m_loss


def _ms_sum(items):
    total = items[0]
    for i in items[1:]:
        total = total + i
    return total


_LOSSES = {"mse": _mse, "sum": _sum, "cross_entropy": _cross_entropy}
