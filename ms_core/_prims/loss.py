"""Loss primitives: fused log-softmax + cross-entropy.

Every class-index or class-probability cross-entropy (with class weights, ignore_index and label
smoothing) is `loss = -sum_c a_c * log_softmax(logits)_c` for a coefficient tensor `a` built by the
caller, so one primitive serves them all:

    d loss / d logits = dout * (sum_c a_c * softmax(logits) - a)
    d loss / d a      = -dout * log_softmax(logits)
"""
import numpy as np

from .._engine import Primitive
from .._registry import ops
from .nn import _recording, _wrap



def _log_softmax_np(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


class SoftmaxCrossEntropy(Primitive):
    """Per-sample -sum(a * log_softmax(logits, axis), axis) (the class axis is reduced)."""

    def __init__(self, axis):
        self.axis = axis

    def forward(self, ctx, logits, coef):
        logp = _log_softmax_np(logits, self.axis)
        ctx.logp = logp
        out = -np.sum(coef * logp, axis=self.axis)
        return out.astype(logits.dtype, copy=False)

    def backward(self, ctx, dout):
        logits, coef = ctx.inputs
        axis = self.axis
        need_coef = hasattr(coef, "_data")
        if not _recording(dout, logits, coef):
            d = np.expand_dims(dout._data, axis)
            logp = ctx.logp
            a = coef._data
            s = np.sum(a, axis=axis, keepdims=True)
            g = np.exp(logp)
            g *= s
            g -= a
            g *= d
            gc = _wrap((-d * logp).astype(a.dtype, copy=False)) if need_coef else None
            return _wrap(g.astype(logits._data.dtype, copy=False)), gc
        d = ops.expand_dims(dout, axis)
        logp = ops.log_softmax(logits, axis)
        s = ops._sum(coef, axis, keep_dims=True)
        g = d * (ops.exp(logp) * s - coef)
        gc = ops.neg(d * logp) if need_coef else None
        return g, gc
