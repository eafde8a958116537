"""2-D max and average pooling, vectorised over kernel offsets, with adjoint primitives.

Every primitive loops over the kh*kw kernel offsets and touches whole strided slices of the
padded input, so the cost is kh*kw vectorised passes regardless of batch or image size.

    MaxPool2D(x)            -> y      (records, per output, which kernel offset won)
    MaxPoolScatter(dy)      -> dx     (dy sent to the winning positions)
    MaxPoolGather(g)        -> g at the winning positions (adjoint of the scatter)
    AvgPool2D(x)            -> y      (sum of the window / divisor)
    AvgPoolGrad(dy)         -> dx     (adjoint of AvgPool2D; AvgPool2D is its adjoint back)

1-D pooling runs through the same code with H = 1.
"""
import numpy as np

from .._engine import Primitive
from .conv import pad_spatial, unpad_spatial


class PoolConfig:
    """Kernel, stride, dilation, explicit pads (top, bottom, left, right) and output size."""

    __slots__ = ("kernel", "stride", "dilation", "pads", "out_hw")

    def __init__(self, kernel, stride, dilation, pads, out_hw):
        self.kernel = tuple(int(k) for k in kernel)
        self.stride = tuple(int(s) for s in stride)
        self.dilation = tuple(int(d) for d in dilation)
        self.pads = tuple(int(p) for p in pads)
        self.out_hw = tuple(int(o) for o in out_hw)

    def offsets(self):
        """(k, row slice, col slice) of each kernel offset in the padded input."""
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        ho, wo = self.out_hw
        k = 0
        for i in range(kh):
            for j in range(kw):
                yield k, (slice(i * dh, i * dh + sh * (ho - 1) + 1, sh),
                          slice(j * dw, j * dw + sw * (wo - 1) + 1, sw))
                k += 1

    def padded_hw(self, h, w):
        """Padded size, grown where ceil_mode lets the last window run past the bottom pad."""
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        pt, pb, pl, pr = self.pads
        ho, wo = self.out_hw
        return (max(h + pt + pb, (ho - 1) * sh + (kh - 1) * dh + 1),
                max(w + pl + pr, (wo - 1) * sw + (kw - 1) * dw + 1))

    def full_pads(self, h, w):
        hp, wp = self.padded_hw(h, w)
        pt, _, pl, _ = self.pads
        return (pt, hp - h - pt, pl, wp - w - pl)

    def non_overlapping(self):
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        return sh >= (kh - 1) * dh + 1 and sw >= (kw - 1) * dw + 1


def _index_dtype(n):
    return np.uint8 if n < 256 else np.int32


def _max_offsets(xp, cfg, out):
    """Per output, the first kernel offset (row-major) that holds the window's max.

    Built from whole-array compares and uint8 arithmetic (no boolean fancy indexing), one pass
    per offset over output-sized arrays.
    """
    idx = np.zeros(out.shape, dtype=_index_dtype(cfg.kernel[0] * cfg.kernel[1]))
    found = None
    for k, (rs, cs) in cfg.offsets():
        hit = xp[..., rs, cs] == out
        if found is None:
            found = hit
            continue
        new = hit & ~found
        if k:
            idx += new.view(np.uint8) * idx.dtype.type(k) if idx.dtype == np.uint8 else \
                new * idx.dtype.type(k)
        found |= hit
    nan_out = np.isnan(out)
    if nan_out.any():
        # torch updates its running max on every NaN, so a NaN window points at its last NaN
        for k, (rs, cs) in cfg.offsets():
            np.copyto(idx, k, where=nan_out & np.isnan(xp[..., rs, cs]))
    return idx


class MaxPool2D(Primitive):
    """Max over each window; padding is -inf so it never wins (right for negative inputs).

    The gradient goes to the first max of a window in row-major kernel order, as in torch
    (this matters after ReLU, where all-zero windows are common). NaN propagates.
    """

    def __init__(self, cfg):
        self.cfg = cfg

    def forward(self, ctx, x):
        cfg = self.cfg
        h, w = x.shape[-2:]
        xp = pad_spatial(x, cfg.full_pads(h, w), value=-np.inf)
        out = None
        for _, (rs, cs) in cfg.offsets():
            s = xp[..., rs, cs]
            if out is None:
                out = s.copy()
            else:
                np.maximum(out, s, out=out)
        return out

    def argmax(self, x):
        """Offset index (int64) of the first max in each window."""
        cfg = self.cfg
        h, w = x.shape[-2:]
        xp = pad_spatial(x, cfg.full_pads(h, w), value=-np.inf)
        return _max_offsets(xp, cfg, self.forward(None, x)).astype(np.int64)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        cfg = self.cfg
        h, w = x.shape[-2:]
        xp = pad_spatial(x._data, cfg.full_pads(h, w), value=-np.inf)
        idx = _max_offsets(xp, cfg, ctx.out._data)
        return (MaxPoolScatter(cfg, idx, x.shape)(dout),)


class MaxPoolScatter(Primitive):
    """dy routed to the argmax position of its window; zeros elsewhere."""

    def __init__(self, cfg, idx, x_shape):
        self.cfg = cfg
        self.idx = idx
        self.x_shape = tuple(x_shape)

    def forward(self, ctx, dy):
        cfg = self.cfg
        h, w = self.x_shape[-2:]
        pads = cfg.full_pads(h, w)
        hp, wp = cfg.padded_hw(h, w)
        disjoint = cfg.non_overlapping()
        (kh, kw), (sh, sw), (dh, dw) = cfg.kernel, cfg.stride, cfg.dilation
        ho, wo = cfg.out_hw
        # windows that tile the padded input exactly write every element: no zero fill needed
        tiles = (dh, dw) == (1, 1) and (sh, sw) == (kh, kw) and (hp, wp) == (ho * kh, wo * kw)
        alloc = np.empty if tiles else np.zeros
        out = alloc(self.x_shape[:-2] + (hp, wp), dtype=dy.dtype)
        for k, (rs, cs) in cfg.offsets():
            hit = self.idx == k
            dst = out[..., rs, cs]
            if disjoint:
                np.multiply(dy, hit, out=dst)
            else:
                dst += dy * hit
        return unpad_spatial(out, pads, (h, w))

    def backward(self, ctx, g):
        return (MaxPoolGather(self.cfg, self.idx)(g),)


class MaxPoolGather(Primitive):
    """x read at the recorded argmax position of each window."""

    def __init__(self, cfg, idx):
        self.cfg = cfg
        self.idx = idx

    def forward(self, ctx, x):
        cfg = self.cfg
        h, w = x.shape[-2:]
        xp = pad_spatial(x, cfg.full_pads(h, w))
        out = np.zeros(self.idx.shape, dtype=x.dtype)
        for k, (rs, cs) in cfg.offsets():
            out += xp[..., rs, cs] * (self.idx == k)
        return out

    def backward(self, ctx, dout):
        return (MaxPoolScatter(self.cfg, self.idx, ctx.inputs[0].shape)(dout),)


class AvgPool2D(Primitive):
    """Window sums (zero padding) times 1/divisor; `divisor` broadcasts against (Ho, Wo)."""

    def __init__(self, cfg, divisor):
        self.cfg = cfg
        self.divisor = divisor

    def forward(self, ctx, x):
        cfg = self.cfg
        h, w = x.shape[-2:]
        xp = pad_spatial(x, cfg.full_pads(h, w))
        out = None
        for _, (rs, cs) in cfg.offsets():
            s = xp[..., rs, cs]
            if out is None:
                out = s.copy()
            else:
                out += s
        out /= self.divisor
        return out

    def backward(self, ctx, dout):
        return (AvgPoolGrad(self.cfg, self.divisor, ctx.inputs[0].shape)(dout),)


class AvgPoolGrad(Primitive):
    """Adjoint of AvgPool2D: dy/divisor spread over each window."""

    def __init__(self, cfg, divisor, x_shape):
        self.cfg = cfg
        self.divisor = divisor
        self.x_shape = tuple(x_shape)

    def forward(self, ctx, dy):
        cfg = self.cfg
        h, w = self.x_shape[-2:]
        hp, wp = cfg.padded_hw(h, w)
        scaled = (dy / self.divisor).astype(dy.dtype, copy=False)
        out = np.zeros(self.x_shape[:-2] + (hp, wp), dtype=dy.dtype)
        disjoint = cfg.non_overlapping()
        for _, (rs, cs) in cfg.offsets():
            dst = out[..., rs, cs]
            if disjoint:
                dst[...] = scaled
            else:
                dst += scaled
        return unpad_spatial(out, cfg.full_pads(h, w), (h, w))

    def backward(self, ctx, g):
        return (AvgPool2D(self.cfg, self.divisor)(g),)


class TakeFlat(Primitive):
    """x (..., H, W) read at flat spatial indices idx (..., Ho, Wo): adaptive max pooling."""

    def __init__(self, idx):
        self.idx = idx

    def forward(self, ctx, x):
        flat = x.reshape(x.shape[:-2] + (-1,))
        idx = self.idx.reshape(self.idx.shape[:-2] + (-1,))
        return np.take_along_axis(flat, idx, axis=-1).reshape(self.idx.shape)

    def backward(self, ctx, dout):
        return (ScatterFlat(self.idx, ctx.inputs[0].shape)(dout),)


class ScatterFlat(Primitive):
    """Adjoint of TakeFlat: values summed into zeros at flat spatial indices."""

    def __init__(self, idx, x_shape):
        self.idx = idx
        self.x_shape = tuple(x_shape)

    def forward(self, ctx, v):
        lead = int(np.prod(self.x_shape[:-2], dtype=np.int64))
        hw = self.x_shape[-2] * self.x_shape[-1]
        rows = np.arange(lead, dtype=np.int64)[:, None] * hw
        flat_idx = (self.idx.reshape(lead, -1) + rows).ravel()
        out = np.bincount(flat_idx, weights=v.reshape(-1).astype(np.float64), minlength=lead * hw)
        return out.astype(v.dtype).reshape(self.x_shape)

    def backward(self, ctx, g):
        return (TakeFlat(self.idx)(g),)
