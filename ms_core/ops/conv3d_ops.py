"""3-D convolution and pooling (`ops.conv3d`, `ops.max_pool3d`, `ops.avg_pool3d`,
`ops.adaptive_avg_pool3d`, `ops.adaptive_max_pool3d`), built from the 2-D primitives and small
0/1 matrices along the depth axis, so that every backward is made of differentiable ops and
grad(grad(...)) works without 3-D primitives of their own.

- convolution: for each kernel depth offset i, the input slices at depths o*s + i*d - front
  (one 0/1 selection matrix (D_out, D) per offset, zero rows where the padding is) are folded
  into the batch and convolved in 2-D with weight[:, :, i]; the results are summed. A transposed
  convolution places each 2-D transposed result at depths d*s + i*d_k - front the same way.
- pooling is separable: a box sum is a product of per-axis 0/1 band matrices; a box maximum is
  read at the indices NumPy finds (first maximum in (d, h, w) order, as torch), with the 2-D
  primitives' take/scatter pair.

Padding order for 3-D: (front, back, top, bottom, left, right), as MindSpore.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _engine
from .._checkparam import check_float_tensor
from .._prims import pool as P
from ..common.tensor import Tensor
from . import conv_ops as CO
from . import functional as F

__all__ = ["conv3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]


def padding6(name, padding):
    """int or (front, back, top, bottom, left, right) -> a 6-tuple of ints >= 0."""
    if CO._is_int(padding):
        pads = (int(padding),) * 6
    elif isinstance(padding, (tuple, list)) and len(padding) == 6 and all(CO._is_int(p) for p in padding):
        pads = tuple(int(p) for p in padding)
    else:
        raise ValueError(f"For '{name}', the 'padding' must be an int or a tuple of 6 ints (front, "
                         f"back, top, bottom, left, right), but got {padding!r}.")
    if min(pads) < 0:
        raise ValueError(f"For '{name}', the 'padding' must be >= 0, but got {padding!r}.")
    return pads


def resolve_pads3(pad_mode, pads, dhw, kernel, stride, dilation):
    """(front, back, top, bottom, left, right) for a pad mode ('pad' takes `pads` as given)."""
    if pad_mode == "same":
        return sum((CO.same_pads(dhw[a], kernel[a], stride[a], dilation[a]) for a in range(3)), ())
    if pad_mode == "valid":
        return (0,) * 6
    return tuple(pads)


def _selection(n_in, n_out, stride, offset):
    """0/1 matrix (n_out, n_in): row o reads input o*stride + offset (a zero row outside)."""
    m = np.zeros((n_out, n_in), dtype=np.float32)
    src = np.arange(n_out) * stride + offset
    ok = (src >= 0) & (src < n_in)
    m[np.arange(n_out)[ok], src[ok]] = 1.0
    return m


def _along_depth(matrix, x):
    """matrix (A, D) applied to the depth axis of x (N, C, D, H, W) -> (N, C, A, H, W)."""
    n, c, d, h, w = x.shape
    m = Tensor._wrap(matrix.astype(x._data.dtype))
    return F.reshape(F.matmul(m, F.reshape(x, (n, c, d, h * w))), (n, c, matrix.shape[0], h, w))


def _check_weight(name, x, weight, transposed, groups):
    if not isinstance(weight, Tensor) or weight.ndim != 5:
        raise ValueError(f"For '{name}', the 'weight' must be a 5-D Tensor, but got "
                         f"{getattr(weight, 'shape', weight)!r}.")
    if weight.dtype != x.dtype:
        raise TypeError(f"For '{name}', the input and the 'weight' must have the same dtype, but "
                        f"got Tensor[{x.dtype}] and Tensor[{weight.dtype}].")
    c = x.shape[1]
    want = weight.shape[0] if transposed else weight.shape[1] * groups
    if c != want:
        raise ValueError(f"For '{name}', the input has {c} channels but the weight expects {want} "
                         f"(weight shape {list(weight.shape)}, groups={groups}).")


def conv3d_core(name, x, weight, bias, stride, pads, dilation, groups):
    """3-D cross-correlation of x (N, C, D, H, W) with weight (O, C/groups, kd, kh, kw); `pads`
    are (front, back, top, bottom, left, right), already resolved."""
    check_float_tensor(name, None, x, (5,), "(N, C, D, H, W)")
    _check_weight(name, x, weight, False, groups)
    n, _, d, _, _ = x.shape
    o, _, kd = weight.shape[:3]
    d_out = (d + pads[0] + pads[1] - (kd - 1) * dilation[0] - 1) // stride[0] + 1
    if d_out < 1:
        raise ValueError(f"For '{name}', the kernel depth (dilated {(kd - 1) * dilation[0] + 1}) is "
                         f"larger than the padded input depth {d + pads[0] + pads[1]}.")
    total = None
    for i in range(kd):
        sel = _selection(d, d_out, stride[0], i * dilation[0] - pads[0])
        xs = F.transpose(_along_depth(sel, x), (0, 2, 1, 3, 4))
        xs = F.reshape(xs, (n * d_out,) + xs.shape[2:])
        part = CO.conv2d_core(name, xs, weight[:, :, i], None, stride[1:], pads[2:], dilation[1:],
                              groups)
        total = part if total is None else total + part
    out = F.transpose(F.reshape(total, (n, d_out) + total.shape[1:]), (0, 2, 1, 3, 4))
    if bias is not None:
        out = out + F.reshape(bias, (1, o, 1, 1, 1))
    return out


def transpose_geometry3(pad_mode, pads, dhw, kernel, stride, dilation, output_padding):
    """(output size, conv-view pads) of a 3-D transposed convolution, per axis as the 2-D one."""
    sizes, conv_pads = [], []
    for a in range(3):
        dk = (kernel[a] - 1) * dilation[a] + 1
        s = stride[a]
        if pad_mode == "same":
            size = dhw[a] * s
            before, after = CO.same_pads(size, kernel[a], s, dilation[a])
        elif pad_mode == "valid":
            size = dhw[a] * s + max(dk - s, 0)
            before, after = 0, 0
        else:
            before, after = pads[2 * a], pads[2 * a + 1]
            size = (dhw[a] - 1) * s + dk - before - after + output_padding[a]
            after -= output_padding[a]
        sizes.append(size)
        conv_pads += [before, after]
    return tuple(sizes), tuple(conv_pads)


def conv_transpose3d_core(name, x, weight, bias, stride, pads, dilation, groups, out_dhw):
    """3-D transposed convolution of x (N, C_in, D, H, W) with weight (C_in, C_out/groups, kd,
    kh, kw) to an (D_out, H_out, W_out) output; `pads` in the convolution's view (see
    transpose_geometry3)."""
    check_float_tensor(name, None, x, (5,), "(N, C, D, H, W)")
    _check_weight(name, x, weight, True, groups)
    n, c, d, h, w = x.shape
    kd = weight.shape[2]
    x2 = F.reshape(F.transpose(x, (0, 2, 1, 3, 4)), (n * d, c, h, w))
    total = None
    for i in range(kd):
        part = CO.conv_transpose_core(name, x2, weight[:, :, i], None, stride[1:], pads[2:],
                                      dilation[1:], groups, out_dhw[1:])
        part = F.transpose(F.reshape(part, (n, d) + part.shape[1:]), (0, 2, 1, 3, 4))
        # input depth d lands at output depth d*stride + i*dilation - front (when inside)
        src = np.arange(d) * stride[0] + i * dilation[0] - pads[0]
        ok = (src >= 0) & (src < out_dhw[0])
        place = np.zeros((out_dhw[0], d), dtype=np.float32)
        place[src[ok], np.arange(d)[ok]] = 1.0
        part = _along_depth(place, part)
        total = part if total is None else total + part
    if bias is not None:
        total = total + F.reshape(bias, (1, -1, 1, 1, 1))
    return total


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """3-D convolution, MindSpore 2.10's `ops.conv3d`: input (N, C_in, D, H, W), weight
    (C_out, C_in/groups, kd, kh, kw); `padding` an int or 3 ints (depth, height, width: each on
    both sides) with pad_mode='pad'. (nn.Conv3d takes 6 values; ops.conv3d refuses them, as
    MindSpore 2.10 does.)

    Example:
        >>> y = ops.conv3d(x, w, pad_mode='pad', padding=1)
    """
    name = "conv3d"
    CO.refuse_lists('Conv3D', stride=stride, dilation=dilation)
    stride = CO.int_tuple(name, "stride", stride, 3)
    dilation = CO.int_tuple(name, "dilation", dilation, 3)
    pad_mode = CO.check_pad_mode(name, pad_mode)
    CO.check_no_padding(name, pad_mode, padding)
    check_float_tensor(name, None, input, (5,), "(N, C, D, H, W)")
    if isinstance(padding, (tuple, list)):
        if len(padding) != 3 or not all(CO._is_int(p) for p in padding):
            raise ValueError(f"For '{name}', 'padding' must be a tuple or list of 3 integers, but got {padding!r}.")
        padding = tuple(int(p) for p in padding for _ in range(2))
    pads = resolve_pads3(pad_mode, padding6(name, padding), input.shape[2:], weight.shape[2:],
                         stride, dilation)
    return conv3d_core(name, input, weight, bias, stride, pads, dilation, int(groups))


# --- pooling --------------------------------------------------------------------------------

def _pool_sizes(name, dhw, kernel, stride, dilation, pads, ceil_mode):
    out = tuple(CO._pool_out(dhw[a], kernel[a], stride[a], dilation[a], pads[2 * a],
                             pads[2 * a + 1], ceil_mode) for a in range(3))
    if min(out) < 1:
        raise ValueError(f"For '{name}', the kernel_size {kernel} is larger than the (padded) "
                         f"input {list(dhw)}; the output would be empty.")
    for a in range(3):
        if max(pads[2 * a], pads[2 * a + 1]) > ((kernel[a] - 1) * dilation[a] + 1) // 2:
            raise ValueError(f"For '{name}', the 'padding' must be at most half of the (dilated) "
                             f"kernel size, but got padding {pads} with kernel_size {kernel}.")
    return out


def _window_argmax(xa, kernel, stride, dilation, pads, out):
    """Flat indices into D*H*W of the first maximum of every window (NaN-free input)."""
    n, c, d, h, w = xa.shape
    need = [(out[a] - 1) * stride[a] + (kernel[a] - 1) * dilation[a] + 1 for a in range(3)]
    after = [max(need[a] - pads[2 * a] - xa.shape[2 + a], 0) for a in range(3)]
    xp = np.pad(xa, ((0, 0), (0, 0), (pads[0], after[0]), (pads[2], after[1]), (pads[4], after[2])),
                constant_values=-np.inf)
    st = xp.strides
    view = as_strided(xp, (n, c) + tuple(out) + tuple(kernel),
                      st[:2] + tuple(st[2 + a] * stride[a] for a in range(3))
                      + tuple(st[2 + a] * dilation[a] for a in range(3)), writeable=False)
    k = view.reshape(view.shape[:5] + (-1,)).argmax(-1)
    kh_kw = kernel[1] * kernel[2]
    coords = []
    for a, offset in enumerate((k // kh_kw, (k // kernel[2]) % kernel[1], k % kernel[2])):
        start = np.arange(out[a]) * stride[a] - pads[2 * a]
        shape = [1, 1, 1, 1, 1]
        shape[2 + a] = out[a]
        coords.append(start.reshape(shape) + offset * dilation[a])
    return ((coords[0] * h + coords[1]) * w + coords[2]).astype(np.int64)


def _take3d(x, idx):
    """x (N, C, D, H, W) at flat D*H*W indices idx (N, C, Do, Ho, Wo); differentiable."""
    n, c, d, h, w = x.shape
    flat_x = F.reshape(x, (n, c, d, h * w))
    o = idx.shape[2:]
    out = _engine.apply(P.TakeFlat(idx.reshape(n, c, o[0], o[1] * o[2])), flat_x)
    return F.reshape(out, (n, c) + tuple(o))


def _as5d(name, x):
    check_float_tensor(name, None, x, (4, 5), "(N, C, D, H, W)")
    return (F.expand_dims(x, 0), True) if x.ndim == 4 else (x, False)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling with -inf padding, MindSpore 2.10's `ops.max_pool3d` (stride defaults to
    kernel_size); with `return_indices` also the flat argmax into D*H*W (int64), as torch.

    Example:
        >>> y = ops.max_pool3d(x, 2)
    """
    name = "max_pool3d"
    CO.refuse_lists('MaxPool3D', kernel_size=kernel_size, stride=stride)
    kernel = CO.int_tuple(name, "kernel_size", kernel_size, 3)
    stride = kernel if stride is None else CO.int_tuple(name, "stride", stride, 3)
    dilation = CO.int_tuple(name, "dilation", dilation, 3)
    pads = padding6(name, padding if not isinstance(padding, (tuple, list)) or len(padding) != 3
                    else tuple(p for p in padding for _ in range(2)))
    x5, squeeze = _as5d(name, x)
    out = _pool_sizes(name, x5.shape[2:], kernel, stride, dilation, pads, ceil_mode)
    idx = _window_argmax(x5._data, kernel, stride, dilation, pads, out)
    y = _take3d(x5, idx)
    ind = Tensor._wrap(idx)
    if squeeze:
        y, ind = F.squeeze(y, 0), F.squeeze(ind, 0)
    return (y, ind) if return_indices else y


def _band(n, out, kernel, stride, before):
    """0/1 matrix (out, n): row j sums the inputs a box window j covers (padding contributes 0)."""
    m = np.zeros((out, n), dtype=np.float32)
    for j in range(out):
        lo = j * stride - before
        m[j, max(lo, 0):max(min(lo + kernel, n), 0)] = 1.0
    return m


def _divisor(n, out, kernel, stride, before, after, count_include_pad):
    """PyTorch's per-axis window sizes: up to the padded end, or real elements only."""
    start = np.arange(out) * stride - before
    end = np.minimum(start + kernel, n + after)
    if count_include_pad:
        return (end - start).astype(np.float64)
    return (np.minimum(end, n) - np.maximum(start, 0)).astype(np.float64)


def _box_sum(x, mats):
    """Separable box sum of x (N, C, D, H, W) with per-axis matrices (Do, D), (Ho, H), (Wo, W)."""
    dt = x._data.dtype
    mh, mw = (Tensor._wrap(m.astype(dt)) for m in mats[1:])
    y = F.matmul(mh, F.matmul(x, F.transpose(mw, (1, 0))))
    return _along_depth(mats[0], y)


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """3-D average pooling with zero padding and PyTorch's divisor rules, MindSpore 2.10's
    `ops.avg_pool3d` (`divisor_override` 0 means none).

    Example:
        >>> y = ops.avg_pool3d(x, 2, 2)
    """
    name = "avg_pool3d"
    CO.refuse_lists('AvgPool3D', kernel_size=kernel_size, stride=stride)
    kernel = CO.int_tuple(name, "kernel_size", kernel_size, 3)
    stride = CO.int_tuple(name, "stride", stride, 3)
    pads = padding6(name, padding)  # MindSpore 2.10 refuses torch's (d, h, w) form
    x5, squeeze = _as5d(name, input_x)
    dhw = x5.shape[2:]
    out = _pool_sizes(name, dhw, kernel, stride, (1, 1, 1), pads, ceil_mode)
    mats = [_band(dhw[a], out[a], kernel[a], stride[a], pads[2 * a]) for a in range(3)]
    sums = _box_sum(x5, mats)
    if divisor_override:
        div = np.float64(divisor_override)
    else:
        per = [_divisor(dhw[a], out[a], kernel[a], stride[a], pads[2 * a], pads[2 * a + 1],
                        count_include_pad) for a in range(3)]
        div = per[0][:, None, None] * per[1][None, :, None] * per[2][None, None, :]
    y = sums / Tensor._wrap(np.asarray(div, dtype=x5._data.dtype))
    return F.squeeze(y, 0) if squeeze else y


def _size3(name, output_size, dhw):
    if CO._is_int(output_size) or output_size is None:
        output_size = (output_size,) * 3
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 3:
        raise ValueError(f"For '{name}', the 'output_size' must be an int or a tuple of 3 ints "
                         f"(None keeps that axis), but got {output_size!r}.")
    out = tuple(dhw[a] if output_size[a] is None else output_size[a] for a in range(3))
    if not all(CO._is_int(o) and o >= 1 for o in out):
        raise ValueError(f"For '{name}', the 'output_size' must be positive, but got "
                         f"{output_size!r}.")
    return tuple(int(o) for o in out)


def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of (N, C, D, H, W) to `output_size` with PyTorch's bins.

    Example:
        >>> y = ops.adaptive_avg_pool3d(x, (1, 2, 2))
    """
    name = "adaptive_avg_pool3d"
    CO.refuse_lists('AdaptiveAvgPool3D', output_size=output_size)
    x5, squeeze = _as5d(name, input)
    dhw = x5.shape[2:]
    out = _size3(name, output_size, dhw)
    mats = [CO._avg_matrix(dhw[a], out[a], np.float64)._data for a in range(3)]
    y = _box_sum(x5, mats)
    return F.squeeze(y, 0) if squeeze else y


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, D, H, W) with PyTorch's bins; (output, flat argmax) with
    `return_indices`."""
    name = "adaptive_max_pool3d"
    x5, squeeze = _as5d(name, input)
    xa = x5._data
    dhw = x5.shape[2:]
    out = _size3(name, output_size, dhw)
    bins = [CO._bins(dhw[a], out[a]) for a in range(3)]
    idx = np.empty(xa.shape[:2] + out, dtype=np.int64)
    for i in range(out[0]):  # a loop over output cells only: adaptive outputs are small
        for j in range(out[1]):
            for k in range(out[2]):
                lo = [bins[a][0][(i, j, k)[a]] for a in range(3)]
                hi = [bins[a][1][(i, j, k)[a]] for a in range(3)]
                win = xa[:, :, lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
                flat = win.reshape(win.shape[:2] + (-1,)).argmax(-1)
                size = [hi[a] - lo[a] for a in range(3)]
                dd, rest = flat // (size[1] * size[2]), flat % (size[1] * size[2])
                idx[:, :, i, j, k] = ((lo[0] + dd) * dhw[1] + lo[1] + rest // size[2]) * dhw[2] \
                    + lo[2] + rest % size[2]
    y, ind = _take3d(x5, idx), Tensor._wrap(idx)
    if squeeze:
        y, ind = F.squeeze(y, 0), F.squeeze(ind, 0)
    return (y, ind) if return_indices else y
