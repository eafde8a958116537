"""2-D convolution as im2col + one GEMM, and its two adjoints as primitives of their own.

Layout: inputs NCHW, weights (O, C/groups, kh, kw). The three primitives are closed under
differentiation, which is what makes grad(grad(conv)) work without special cases:

    Conv2D(x, w)                    -> y
    Conv2DInputGrad(dy, w)          -> dx   (the transposed convolution)
    Conv2DWeightGrad(x, dy)         -> dw

Each one is bilinear, so the VJP of every operand is one of the three again. 1-D convolutions
run through the same code with H = 1.

`pads` is (top, bottom, left, right) in input coordinates. Negative pads crop instead, which lets
a transposed convolution with `output_padding` reuse Conv2DInputGrad unchanged.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._engine import Primitive


class ConvConfig:
    """Geometry shared by the three primitives: stride, dilation, pads, groups, kernel size."""

    __slots__ = ("stride", "dilation", "pads", "groups", "kernel")

    def __init__(self, kernel, stride, dilation, pads, groups):
        self.kernel = tuple(int(k) for k in kernel)
        self.stride = tuple(int(s) for s in stride)
        self.dilation = tuple(int(d) for d in dilation)
        self.pads = tuple(int(p) for p in pads)
        self.groups = int(groups)

    def out_hw(self, h, w):
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        pt, pb, pl, pr = self.pads
        return ((h + pt + pb - (kh - 1) * dh - 1) // sh + 1,
                (w + pl + pr - (kw - 1) * dw - 1) // sw + 1)


def pad_spatial(x, pads, value=0.0):
    """x padded (or, for negative pads, cropped) on its last two axes; no copy when all are 0."""
    pt, pb, pl, pr = pads
    if pt < 0 or pb < 0 or pl < 0 or pr < 0:
        h, w = x.shape[-2:]
        x = x[..., max(-pt, 0):h - max(-pb, 0), max(-pl, 0):w - max(-pr, 0)]
        pt, pb, pl, pr = max(pt, 0), max(pb, 0), max(pl, 0), max(pr, 0)
    if not (pt or pb or pl or pr):
        return x
    out = np.full(x.shape[:-2] + (x.shape[-2] + pt + pb, x.shape[-1] + pl + pr), value,
                  dtype=x.dtype)
    out[..., pt:pt + x.shape[-2], pl:pl + x.shape[-1]] = x
    return out


def unpad_spatial(xp, pads, hw):
    """The inverse of pad_spatial for a gradient: crop the pads, zero-fill what was cropped."""
    pt, pb, pl, pr = pads
    h, w = hw
    if not (pt or pb or pl or pr):
        return xp
    if pt >= 0 and pb >= 0 and pl >= 0 and pr >= 0:
        # a contiguous copy: strided gradient views make every later elementwise op slower
        return np.ascontiguousarray(xp[..., pt:pt + h, pl:pl + w])
    out = np.zeros(xp.shape[:-2] + (h, w), dtype=xp.dtype)
    # rows/cols of x that survive in xp: x index i <-> xp index i + pt
    r0, c0 = max(-pt, 0), max(-pl, 0)
    r1, c1 = min(h, xp.shape[-2] - pt), min(w, xp.shape[-1] - pl)
    out[..., r0:r1, c0:c1] = xp[..., r0 + pt:r1 + pt, c0 + pl:c1 + pl]
    return out


def _windows(xp, cfg, ho, wo, batch_inner=False):
    """Strided view (N, C, kh, kw, Ho, Wo) of the padded input, or (C, kh, kw, N, Ho, Wo) with
    `batch_inner`: no copy."""
    n, c = xp.shape[:2]
    s_n, s_c, s_h, s_w = xp.strides
    (kh, kw), (sh, sw), (dh, dw) = cfg.kernel, cfg.stride, cfg.dilation
    if batch_inner:
        return as_strided(xp, (c, kh, kw, n, ho, wo),
                          (s_c, s_h * dh, s_w * dw, s_n, s_h * sh, s_w * sw), writeable=False)
    return as_strided(xp, (n, c, kh, kw, ho, wo),
                      (s_n, s_c, s_h * dh, s_w * dw, s_h * sh, s_w * sw), writeable=False)


def _is_pointwise(cfg):
    return cfg.kernel == (1, 1) and cfg.stride == (1, 1) and not any(cfg.pads)


# Two column layouts. "batch-outer" (N, g, K, P) feeds one batched GEMM per call whose output is
# already NCHW; "batch-inner" (g, K, N*P) feeds a single wide GEMM but needs the output
# transposed. Many small per-image GEMMs are slow when the images are small (P = Ho*Wo of a
# late ResNet stage is 4..16), so below this many output pixels the batch goes inside.
_BATCH_INNER_BELOW = 64


def _batch_inner(ho, wo):
    return ho * wo < _BATCH_INNER_BELOW


def im2col(x, cfg, batch_inner=False):
    """Columns of x in the weight's (c, kh, kw) order: (N, g, K, P) or, with `batch_inner`,
    (g, K, N*P); K = C/g*kh*kw, P = Ho*Wo."""
    n, c, h, w = x.shape
    ho, wo = cfg.out_hw(h, w)
    g = cfg.groups
    k = (c // g) * cfg.kernel[0] * cfg.kernel[1]
    if _is_pointwise(cfg) and not batch_inner:
        return x.reshape(n, g, c // g, h * w), ho, wo
    xp = pad_spatial(x, cfg.pads)
    cols = np.ascontiguousarray(_windows(xp, cfg, ho, wo, batch_inner))
    if batch_inner:
        return cols.reshape(g, k, n * ho * wo), ho, wo
    return cols.reshape(n, g, k, ho * wo), ho, wo


def col2im(cols, cfg, x_shape, ho, wo, batch_inner=False):
    """Adjoint of im2col: sum the columns back into an (N, C, H, W) image.

    One strided accumulation per kernel offset (kh*kw adds of whole slices), never np.add.at.
    """
    n, c, h, w = x_shape
    (kh, kw), (sh, sw), (dh, dw) = cfg.kernel, cfg.stride, cfg.dilation
    if _is_pointwise(cfg) and not batch_inner:
        return cols.reshape(n, c, h, w)
    pt, pb, pl, pr = cfg.pads
    hp, wp = h + pt + pb, w + pl + pr
    # the windows may reach past a negatively padded (cropped) edge: size the buffer to them
    hp = max(hp, (ho - 1) * sh + (kh - 1) * dh + 1)
    wp = max(wp, (wo - 1) * sw + (kw - 1) * dw + 1)
    out = np.zeros((n, c, hp, wp), dtype=cols.dtype)
    if batch_inner:
        cols = cols.reshape(c, kh, kw, n, ho, wo)
        view = out.transpose(1, 0, 2, 3)            # (C, N, Hp, Wp), same memory
    else:
        cols = cols.reshape(n, c, kh, kw, ho, wo)
        view = out
    non_overlapping = sh >= (kh - 1) * dh + 1 and sw >= (kw - 1) * dw + 1
    for i in range(kh):
        for j in range(kw):
            dst = view[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh,
                       j * dw:j * dw + sw * (wo - 1) + 1:sw]
            src = cols[:, i, j] if batch_inner else cols[:, :, i, j]
            if non_overlapping:
                dst[...] = src
            else:
                dst += src
    return unpad_spatial(out, cfg.pads, (h, w))


def _to_batch_inner(a, g):
    """(N, O, Ho, Wo) -> (g, O/g, N*P), a copy."""
    n, o, ho, wo = a.shape
    return np.ascontiguousarray(a.reshape(n, g, o // g, ho * wo).transpose(1, 2, 0, 3)).reshape(
        g, o // g, n * ho * wo)


def conv2d_forward(x, w, cfg):
    n = x.shape[0]
    o = w.shape[0]
    g = cfg.groups
    ho, wo = cfg.out_hw(*x.shape[2:])
    wm = w.reshape(g, o // g, -1)
    if _batch_inner(ho, wo):
        cols, _, _ = im2col(x, cfg, batch_inner=True)
        out = np.matmul(wm, cols)                   # (g, O/g, N*P): one wide GEMM per group
        return np.ascontiguousarray(out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3))
    cols, _, _ = im2col(x, cfg)
    if g == 1:
        out = np.matmul(wm[0], cols[:, 0])          # (N, O, Ho*Wo): one batched GEMM, NCHW out
    else:
        out = np.matmul(wm, cols)                   # (N, g, O/g, Ho*Wo)
    return out.reshape(n, o, ho, wo)


def _input_grad_as_conv(dy, w, cfg, x_shape):
    """dx of a stride-1 convolution as a forward convolution of dy with the flipped,
    channel-transposed kernel: one im2col copy + one GEMM instead of GEMM + kh*kw strided adds.
    Pads can come out negative (crop), which pad_spatial handles."""
    g = cfg.groups
    o, cg, kh, kw = w.shape
    og = o // g
    wf = np.ascontiguousarray(
        w.reshape(g, og, cg, kh, kw).transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]).reshape(
        g * cg, og, kh, kw)
    (dh, dw), (pt, _, pl, _) = cfg.dilation, cfg.pads
    ho, wo = dy.shape[2:]
    h, w_ = x_shape[2:]
    top, left = (kh - 1) * dh - pt, (kw - 1) * dw - pl
    bottom, right = h - ho - top + (kh - 1) * dh, w_ - wo - left + (kw - 1) * dw
    return conv2d_forward(dy, wf, ConvConfig((kh, kw), (1, 1), cfg.dilation,
                                             (top, bottom, left, right), g))


def _widen(a, wp):
    """(N, O, Ho, Wo) -> (N, O, Ho*Wp) with zero columns Wo..Wp-1 (rows as long as the padded
    input's), so that each kernel offset of a stride-1 window is ONE contiguous run in the
    flattened padded image."""
    n, o, ho, wo = a.shape
    out = np.zeros((n, o, ho, wp), dtype=a.dtype)
    out[..., :wo] = a
    return out.reshape(n, o, ho * wp)


def _input_grad_stride1(dy, w, cfg, x_shape):
    """dx of a stride-1 convolution: GEMM into columns over widened rows, then kh*kw adds of
    contiguous runs (length Ho*Wp) into the flattened padded image. The zero columns of the
    widened dy make the wrap-around terms vanish."""
    n, o, ho, wo = dy.shape
    _, c, h, w_ = x_shape
    g = cfg.groups
    (kh, kw), (dh, dw) = cfg.kernel, cfg.dilation
    pt, pb, pl, pr = cfg.pads
    hp = max(h + pt + pb, ho + (kh - 1) * dh)
    wp = max(w_ + pl + pr, wo + (kw - 1) * dw)
    length = ho * wp
    wm = w.reshape(g, o // g, -1)
    d = _widen(dy, wp).reshape(n, g, o // g, length)
    cols = np.matmul(wm.transpose(0, 2, 1), d).reshape(n, c, kh, kw, length)
    flat = np.zeros((n, c, hp * wp + (kw - 1) * dw), dtype=dy.dtype)
    for i in range(kh):
        for j in range(kw):
            off = i * dh * wp + j * dw
            flat[:, :, off:off + length] += cols[:, :, i, j]
    out = flat[:, :, :hp * wp].reshape(n, c, hp, wp)
    return unpad_spatial(out, (pt, hp - h - pt, pl, wp - w_ - pl), (h, w_))


def conv2d_input_grad(dy, w, cfg, x_shape):
    n, o, ho, wo = dy.shape
    g = cfg.groups
    if cfg.stride == (1, 1) and not _is_pointwise(cfg) and not _batch_inner(ho, wo):
        # (small outputs take the wide-GEMM path below: flipping a 512x512x3x3 kernel costs
        # more than the image-sized work it saves)
        if o <= x_shape[1]:
            # measured faster when the gradient has no more channels than the input; with
            # many more (a 3-channel stem) its im2col would be the larger one
            return _input_grad_as_conv(dy, w, cfg, x_shape)
        return _input_grad_stride1(dy, w, cfg, x_shape)
    wm = w.reshape(g, o // g, -1)
    if _batch_inner(ho, wo):
        cols = np.matmul(wm.transpose(0, 2, 1), _to_batch_inner(dy, g))   # (g, K, N*P)
        return col2im(cols, cfg, x_shape, ho, wo, batch_inner=True)
    d = dy.reshape(n, g, o // g, ho * wo)
    if g == 1:
        cols = np.matmul(wm[0].T, d[:, 0])          # (N, C*kh*kw, Ho*Wo)
    else:
        cols = np.matmul(wm.transpose(0, 2, 1), d)  # (N, g, C/g*kh*kw, Ho*Wo)
    return col2im(cols, cfg, x_shape, ho, wo)


def conv2d_weight_grad(x, dy, cfg, w_shape):
    g = cfg.groups
    # columns with the batch inside, (g, K, N*P), so that one GEMM contracts over batch and
    # pixels at once: (g, O/g, N*P) @ (g, N*P, K); the transposed operand is a free view
    cols, _, _ = im2col(x, cfg, batch_inner=True)
    return np.matmul(_to_batch_inner(dy, g), cols.transpose(0, 2, 1)).reshape(w_shape)


class Conv2D(Primitive):
    """Cross-correlation of x (N, C, H, W) with w (O, C/groups, kh, kw) under `cfg`."""

    def __init__(self, cfg):
        self.cfg = cfg

    def forward(self, ctx, x, w):
        return conv2d_forward(x, w, self.cfg)

    def backward(self, ctx, dout):
        x, w = ctx.inputs
        needs = ctx.needs or (True, True)
        gx = Conv2DInputGrad(self.cfg, x.shape)(dout, w) if needs[0] else None
        gw = Conv2DWeightGrad(self.cfg, w.shape)(x, dout) if needs[1] else None
        return gx, gw


class Conv2DInputGrad(Primitive):
    """dx of Conv2D given dy and w; also the forward of a transposed convolution."""

    def __init__(self, cfg, x_shape):
        self.cfg = cfg
        self.x_shape = tuple(x_shape)

    def forward(self, ctx, dy, w):
        return conv2d_input_grad(dy, w, self.cfg, self.x_shape)

    def backward(self, ctx, g):
        dy, w = ctx.inputs
        needs = ctx.needs or (True, True)
        g_dy = Conv2D(self.cfg)(g, w) if needs[0] else None
        g_w = Conv2DWeightGrad(self.cfg, w.shape)(g, dy) if needs[1] else None
        return g_dy, g_w


class Conv2DWeightGrad(Primitive):
    """dw of Conv2D given x and dy."""

    def __init__(self, cfg, w_shape):
        self.cfg = cfg
        self.w_shape = tuple(w_shape)

    def forward(self, ctx, x, dy):
        return conv2d_weight_grad(x, dy, self.cfg, self.w_shape)

    def backward(self, ctx, g):
        x, dy = ctx.inputs
        needs = ctx.needs or (True, True)
        g_x = Conv2DInputGrad(self.cfg, x.shape)(dy, g) if needs[0] else None
        g_dy = Conv2D(self.cfg)(x, g) if needs[1] else None
        return g_x, g_dy


class Unfold(Primitive):
    """Sliding local blocks (N, C*kh*kw, L) of x (N, C, H, W): torch's unfold / ops.unfold."""

    def __init__(self, cfg):
        self.cfg = cfg

    def forward(self, ctx, x):
        cols, _, _ = im2col(x, self.cfg)
        return np.ascontiguousarray(cols.reshape(x.shape[0], -1, cols.shape[-1]))

    def backward(self, ctx, dout):
        return (Fold(self.cfg, ctx.inputs[0].shape)(dout),)


class Fold(Primitive):
    """Sum of sliding local blocks back into an image: the adjoint of Unfold (ops.fold)."""

    def __init__(self, cfg, x_shape):
        self.cfg = cfg
        self.x_shape = tuple(x_shape)

    def forward(self, ctx, cols):
        ho, wo = self.cfg.out_hw(*self.x_shape[2:])
        return col2im(cols, self.cfg, self.x_shape, ho, wo)

    def backward(self, ctx, g):
        return (Unfold(self.cfg)(g),)
