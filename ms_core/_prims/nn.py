"""Normalisation and activation primitives.

Each primitive runs its forward in NumPy and writes its backward with ms_core ops, so the backward
is recorded when an outer transform differentiates it again. Hot primitives (batch norm) keep a
NumPy fast path for the backward used when nothing records (`_recording` is False): the numbers
are the same, only the recording path builds a differentiable graph.
"""
import math

import numpy as np

from .. import _engine
from .._engine import Primitive
from .._registry import ops
from .math import _erf



def _recording(*xs):
    """True when the backward being run is itself differentiated (an outer transform records)."""
    return _engine.recording() and any(_engine.is_tracked(x) for x in xs)


def _wrap(arr):
    return ops.Tensor._wrap(arr)


def _bshape(ndim, axis, size):
    """Shape that broadcasts a per-channel vector of `size` along `axis` of an ndim array."""
    shape = [1] * ndim
    shape[axis] = size
    return tuple(shape)


# --- normalisation ------------------------------------------------------------------------

class BatchNormTrain(Primitive):
    """y = (x - mean) / sqrt(var + eps) * gamma + beta with batch statistics over every axis
    but axis 1 (channels); the biased batch mean and variance are left on the primitive
    (`batch_mean`, `batch_var`) for the caller's moving-statistics update.

    One instance per call (it keeps that call's statistics). The NumPy paths view x as
    (N, C, L) and reduce with einsum, which needs no temporaries.
    """

    def __init__(self, eps):
        self.eps = float(eps)
        self.batch_mean = None
        self.batch_var = None

    def forward(self, ctx, x, gamma, beta):
        n, c = x.shape[0], x.shape[1]
        x3 = x.reshape(n, c, -1)
        count = x3.shape[0] * x3.shape[2]
        mean = np.einsum("ncl->c", x3) / x.dtype.type(count)
        xc = x3 - mean[None, :, None]
        var = np.einsum("ncl,ncl->c", xc, xc) / x.dtype.type(count)
        invstd = (1.0 / np.sqrt(var + self.eps)).astype(x.dtype, copy=False)
        y = xc * (gamma * invstd)[None, :, None]
        y += beta[None, :, None]
        self.batch_mean = mean
        self.batch_var = var
        ctx.xc = xc
        ctx.invstd = invstd
        return y.reshape(x.shape).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x, gamma, beta = ctx.inputs
        nb, c = x.shape[0], x.shape[1]
        axes = tuple(i for i in range(x.ndim) if i != 1)
        count = x.size // c
        if not _recording(dout, x, gamma, beta):
            dt = x._data.dtype
            dy = dout._data.reshape(nb, c, -1)
            xc, invstd = ctx.xc, ctx.invstd
            dbeta = np.einsum("ncl->c", dy)
            dgamma = np.einsum("ncl,ncl->c", dy, xc) * invstd  # sum(dy * xhat)
            a = gamma._data * invstd
            # dx = a / count * (count * dy - dbeta - xhat * dgamma)
            dx = dy * a[None, :, None]
            dx -= xc * (a * invstd * dgamma / dt.type(count))[None, :, None]
            dx -= (a * dbeta / dt.type(count))[None, :, None]
            return (_wrap(dx.reshape(x.shape).astype(dt, copy=False)),
                    _wrap(dgamma.astype(dt, copy=False)), _wrap(dbeta.astype(dt, copy=False)))
        # differentiable path: recompute the statistics from x with ms_core ops
        bs = _bshape(x.ndim, 1, c)
        mean = ops.mean(x, axes, keep_dims=True)
        xc = x - mean
        var = ops.mean(xc * xc, axes, keep_dims=True)
        invstd = ops.rsqrt(var + self.eps)
        xhat = xc * invstd
        dbeta = ops._sum(dout, axes)
        dgamma = ops._sum(dout * xhat, axes)
        g = ops.reshape(gamma, bs)
        dx = g * invstd * (1.0 / count) * (dout * float(count) - ops.reshape(dbeta, bs)
                                            - xhat * ops.reshape(dgamma, bs))
        return dx, dgamma, dbeta


class Normalize(Primitive):
    """xhat = (x - mean) / sqrt(var + eps) with biased statistics over `axes` (LayerNorm,
    GroupNorm, instance norm); the affine part is applied outside with ordinary ops."""

    def __init__(self, axes, eps):
        self.axes = tuple(axes)
        self.eps = float(eps)

    def forward(self, ctx, x):
        mean = np.mean(x, axis=self.axes, keepdims=True)
        xc = x - mean
        var = np.mean(np.square(xc), axis=self.axes, keepdims=True)
        invstd = (1.0 / np.sqrt(var + self.eps)).astype(x.dtype, copy=False)
        xc *= invstd
        ctx.invstd = invstd
        return xc.astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        n = 1
        for a in self.axes:
            n *= x.shape[a]
        if not _recording(dout, x):
            xhat = ctx.out._data
            dy = dout._data
            dx = dy * n
            dx -= np.sum(dy, axis=self.axes, keepdims=True)
            dx -= xhat * np.sum(dy * xhat, axis=self.axes, keepdims=True)
            dx *= ctx.invstd * (1.0 / n)
            return (_wrap(dx.astype(x._data.dtype, copy=False)),)
        mean = ops.mean(x, self.axes, keep_dims=True)
        xc = x - mean
        var = ops.mean(xc * xc, self.axes, keep_dims=True)
        invstd = ops.rsqrt(var + self.eps)
        xhat = xc * invstd
        dx = invstd * (1.0 / n) * (dout * float(n) - ops._sum(dout, self.axes, keep_dims=True)
                                   - xhat * ops._sum(dout * xhat, self.axes, keep_dims=True))
        return (dx,)


# --- activations --------------------------------------------------------------------------

def _mask(cond, like):
    return ops.cast(cond, like.dtype)


class ReLU6(Primitive):
    def forward(self, ctx, x):
        return np.clip(x, 0, 6).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        return (dout * _mask(ops.logical_and(x > 0, x < 6), dout),)


class LeakyReLU(Primitive):
    """x for x > 0, alpha * x otherwise (MindSpore: max(alpha*x, x) for alpha <= 1, min for
    alpha > 1 — the same function)."""

    def __init__(self, alpha):
        self.alpha = float(alpha)

    def forward(self, ctx, x):
        return np.where(x > 0, x, x * x.dtype.type(self.alpha))

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        return (ops.where(x > 0, dout, dout * self.alpha),)


class PReLU(Primitive):
    """x for x > 0, w * x otherwise; w has one value or one per channel (axis 1)."""

    def forward(self, ctx, x, w):
        wb = w.reshape(_bshape(x.ndim, 1, w.size)) if x.ndim >= 2 and w.size > 1 else w.reshape(())
        return np.where(x > 0, x, x * wb).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x, w = ctx.inputs
        per_channel = x.ndim >= 2 and w.size > 1
        wb = ops.reshape(w, _bshape(x.ndim, 1, w.size)) if per_channel else ops.reshape(w, ())
        zeros = ops.zeros_like(dout)
        pos = x > 0
        gx = ops.where(pos, dout, dout * wb)
        gw_full = ops.where(pos, zeros, dout * x)
        if per_channel:
            gw = ops._sum(gw_full, tuple(i for i in range(x.ndim) if i != 1))
        else:
            gw = ops._sum(gw_full)
        return gx, ops.reshape(gw, w.shape)


class ELU(Primitive):
    def __init__(self, alpha):
        self.alpha = float(alpha)

    def forward(self, ctx, x):
        a = x.dtype.type(self.alpha)
        return np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        # for x <= 0, d/dx alpha*(e^x - 1) = out + alpha (written with out so it stays twice
        # differentiable through `ctx.out`)
        return (ops.where(x > 0, dout, dout * (ctx.out + self.alpha)),)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


class GELU(Primitive):
    """x * Phi(x) (approximate='none'), or the tanh approximation (approximate='tanh')."""

    def __init__(self, approximate):
        self.approximate = approximate

    def forward(self, ctx, x):
        t = x.dtype.type
        if self.approximate == "tanh":
            inner = t(_SQRT_2_OVER_PI) * (x + t(_GELU_C) * x * x * x)
            return (t(0.5) * x * (t(1.0) + np.tanh(inner))).astype(x.dtype, copy=False)
        return (t(0.5) * x * (t(1.0) + _erf(x * t(1.0 / math.sqrt(2.0))))).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        if self.approximate == "tanh":
            x2 = x * x
            th = ops.tanh((x + x2 * x * _GELU_C) * _SQRT_2_OVER_PI)
            d = (th + 1.0) * 0.5 + x * 0.5 * (1.0 - th * th) * _SQRT_2_OVER_PI * (x2 * (3 * _GELU_C) + 1.0)
        else:
            cdf = (ops.erf(x * (1.0 / math.sqrt(2.0))) + 1.0) * 0.5
            pdf = ops.exp(x * x * -0.5) * (1.0 / math.sqrt(2.0 * math.pi))
            d = cdf + x * pdf
        return (dout * d,)


def _sigmoid_np(x):
    out = np.empty_like(x)
    pos = x >= 0
    np.divide(1, 1 + np.exp(-x, where=pos, out=np.zeros_like(x)), out=out, where=pos)
    ex = np.exp(x, where=~pos, out=np.zeros_like(x))
    np.divide(ex, 1 + ex, out=out, where=~pos)
    return out


class SiLU(Primitive):
    def forward(self, ctx, x):
        return x * _sigmoid_np(x)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        s = ops.sigmoid(x)
        return (dout * s * (x * (1.0 - s) + 1.0),)


class HSwish(Primitive):
    """x * relu6(x + 3) / 6; gradient as torch's hardswish (0 below -3, x/3 + 1/2 up to 3, 1)."""

    def forward(self, ctx, x):
        t = x.dtype.type
        return (x * np.clip(x + t(3), 0, 6) / t(6)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        zeros = ops.zeros_like(dout)
        mid = dout * (x * (1.0 / 3.0) + 0.5)
        return (ops.where(x < -3, zeros, ops.where(x <= 3, mid, dout)),)


class HSigmoid(Primitive):
    """relu6(x + 3) / 6."""

    def forward(self, ctx, x):
        t = x.dtype.type
        return (np.clip(x + t(3), 0, 6) / t(6)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        return (dout * _mask(ops.logical_and(x > -3, x < 3), dout) * (1.0 / 6.0),)


class Softplus(Primitive):
    """log(1 + exp(beta * x)) / beta, linear where beta * x > threshold (as torch)."""

    def __init__(self, beta=1.0, threshold=20.0):
        self.beta = float(beta)
        self.threshold = float(threshold)

    def forward(self, ctx, x):
        t = x.dtype.type
        bx = x * t(self.beta)
        soft = (np.maximum(bx, 0) + np.log1p(np.exp(-np.abs(bx)))) / t(self.beta)
        return np.where(bx > self.threshold, x, soft).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        bx = x * self.beta
        return (ops.where(bx > self.threshold, dout, dout * ops.sigmoid(bx)),)


class Mish(Primitive):
    """x * tanh(softplus(x))."""

    def forward(self, ctx, x):
        sp = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))
        return (x * np.tanh(sp)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        sp = ops.relu(x) + ops.log1p(ops.exp(ops.neg(ops.abs(x))))
        th = ops.tanh(sp)
        return (dout * (th + x * (1.0 - th * th) * ops.sigmoid(x)),)


class Hardtanh(Primitive):
    def __init__(self, min_val, max_val):
        self.min_val, self.max_val = float(min_val), float(max_val)

    def forward(self, ctx, x):
        return np.clip(x, self.min_val, self.max_val).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        return (dout * _mask(ops.logical_and(x > self.min_val, x < self.max_val), dout),)


class SeLU(Primitive):
    ALPHA = 1.6732632423543772848170429916717
    SCALE = 1.0507009873554804934193349852946

    def forward(self, ctx, x):
        t = x.dtype.type
        neg = t(self.ALPHA) * np.expm1(np.minimum(x, 0))
        return (t(self.SCALE) * np.where(x > 0, x, neg)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        # for x <= 0: d/dx scale*alpha*(e^x - 1) = out + scale*alpha
        return (ops.where(x > 0, dout * self.SCALE, dout * (ctx.out + self.SCALE * self.ALPHA)),)
