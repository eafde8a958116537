"""Convolution, pooling and interpolation: functional ops (MindSpore 2.x names) and the primitive
classes `ops.Conv2D`, `ops.Conv2DTranspose`, `ops.MaxPool`, `ops.AvgPool`, `ops.AdaptiveAvgPool2D`.

Padding semantics (the part that silently differs from PyTorch):
- 'same' is TensorFlow's: total = max((ceil(in/s) - 1)*s + (k-1)*d + 1 - in, 0) per axis,
  total//2 on the top/left and the odd extra on the bottom/right (PyTorch puts it top/left).
- 'valid' pads nothing and drops the pixels no full window reaches.
- 'pad' pads explicitly: an int, (top, bottom, left, right), or for the functional ops also (h, w).
Max pooling pads with -inf; 'same' average pooling divides by the count of real elements.
"""
import numbers

import numpy as np

from .. import _engine
from .._checkparam import check_float_tensor
from .._prims import conv as C
from .._prims import pool as P
from ..common.tensor import Tensor
from . import functional as F
from . import interpolate_args

__all__ = ["conv2d", "conv1d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "max_pool1d",
           "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle",
           "unfold", "fold",
           "Conv2D", "Conv2DTranspose", "Conv2DBackpropInput", "MaxPool", "AvgPool",
           "AdaptiveAvgPool2D", "AdaptiveMaxPool2D"]

PAD_MODES = ("same", "valid", "pad")


# --- argument checks (MindSpore's message template) -----------------------------------------

def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


def int_tuple(name, arg, value, n=2, minimum=1, allow_lead=False):
    """An int or a tuple of n ints (>= minimum) as a tuple of n ints.

    `allow_lead` also accepts MindSpore primitives' 4-tuples (1, 1, h, w).
    """
    if _is_int(value):
        value = (int(value),) * n
    elif isinstance(value, (tuple, list)) and all(_is_int(v) for v in value):
        value = tuple(int(v) for v in value)
        if allow_lead and len(value) == n + 2 and value[:2] == (1, 1):
            value = value[2:]
    else:
        raise TypeError(f"For '{name}', the '{arg}' must be an int or a tuple of {n} ints, but got "
                        f"{value!r}.")
    if len(value) != n or any(v < minimum for v in value):
        raise ValueError(f"For '{name}', the '{arg}' must be an int or a tuple of {n} ints, each "
                         f">= {minimum}, but got {value!r}.")
    return value


def refuse_lists(name, **args):
    """MindSpore 2.10's convolution and pooling layers take an int or a tuple for their sizes and
    refuse a list (torch takes either): the same TypeError here."""
    for arg, value in args.items():
        if isinstance(value, list):
            raise TypeError(f"For '{name}', the type of '{arg}' should be one of '['int', 'tuple']', but got "
                            f"type 'list'.")


def check_pad_mode(name, pad_mode, allowed=PAD_MODES):
    """The pad mode, lower-cased; MindSpore accepts 'SAME'/'same' alike and nothing else."""
    if not isinstance(pad_mode, str) or pad_mode.lower() not in allowed:
        raise ValueError(f"For '{name}', the 'pad_mode' must be one of {list(allowed)}, but got "
                         f"{pad_mode!r}.")
    return pad_mode.lower()


def padding4(name, padding, allow_pair=True):
    """int, (h, w) or (top, bottom, left, right) -> (top, bottom, left, right), all >= 0."""
    if _is_int(padding):
        pads = (int(padding),) * 4
    elif isinstance(padding, (tuple, list)) and all(_is_int(p) for p in padding) and (
            len(padding) == 4 or (allow_pair and len(padding) == 2)):
        pads = tuple(int(p) for p in padding)
        if len(pads) == 2:
            pads = (pads[0], pads[0], pads[1], pads[1])
    else:
        forms = "an int, a tuple of 2 ints or a tuple of 4 ints" if allow_pair else \
            "an int or a tuple of 4 ints (top, bottom, left, right)"
        raise TypeError(f"For '{name}', the 'padding' must be {forms}, but got {padding!r}.")
    if any(p < 0 for p in pads):
        raise ValueError(f"For '{name}', the 'padding' must be >= 0, but got {padding!r}.")
    return pads


def check_no_padding(name, pad_mode, padding):
    if pad_mode != "pad" and padding not in (0, (0, 0), (0, 0, 0, 0), [0, 0], [0, 0, 0, 0]):
        raise ValueError(f"For '{name}', the 'padding' must be 0 when 'pad_mode' is not 'pad', "
                         f"but got 'padding': {padding!r} and 'pad_mode': {pad_mode!r}.")


def same_pads(size, k, s, d):
    """TF-style 'same' padding (before, after) of one axis: the odd extra goes after."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def resolve_pads(pad_mode, pads, hw, kernel, stride, dilation):
    """(top, bottom, left, right) for a pad mode ('pad' takes `pads` as given)."""
    if pad_mode == "same":
        return same_pads(hw[0], kernel[0], stride[0], dilation[0]) + \
            same_pads(hw[1], kernel[1], stride[1], dilation[1])
    if pad_mode == "valid":
        return (0, 0, 0, 0)
    return tuple(pads)


# --- convolution ----------------------------------------------------------------------------

def conv2d_core(name, x, weight, bias, stride, pads, dilation, groups):
    """Run Conv2D after the shape checks every caller shares; `pads` already resolved."""
    check_float_tensor(name, None, x, (4,), "(N, C, H, W)")
    if not isinstance(weight, Tensor) or weight.ndim != 4:
        raise ValueError(f"For '{name}', the 'weight' must be a 4-D Tensor (C_out, C_in/groups, "
                         f"kH, kW), but got {getattr(weight, 'shape', weight)!r}.")
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    if c % groups or o % groups:
        raise ValueError(f"For '{name}', the input channels ({c}) and output channels ({o}) must "
                         f"be divisible by 'groups' ({groups}).")
    if cg * groups != c:
        raise ValueError(f"For '{name}', the input has {c} channels but the weight expects "
                         f"{cg * groups} (weight shape {list(weight.shape)}, groups={groups}).")
    cfg = C.ConvConfig((kh, kw), stride, dilation, pads, groups)
    ho, wo = cfg.out_hw(h, w)
    if ho < 1 or wo < 1:
        raise ValueError(f"For '{name}', the kernel (dilated size {(kh - 1) * dilation[0] + 1}x"
                         f"{(kw - 1) * dilation[1] + 1}) is larger than the padded input "
                         f"{h + pads[0] + pads[1]}x{w + pads[2] + pads[3]}.")
    if weight.dtype != x.dtype:
        # MindSpore and torch refuse mixed dtypes (a float16 input to a float32 layer)
        raise TypeError(f"For '{name}', the input and the 'weight' must have the same dtype, but "
                        f"got Tensor[{x.dtype}] and Tensor[{weight.dtype}].")
    out = _engine.apply(C.Conv2D(cfg), x, weight)
    if bias is not None:
        out = out + F.reshape(bias, (1, o, 1, 1))
    return out


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D cross-correlation, `mindspore.ops.conv2d`.

    Args:
        input: Tensor (N, C_in, H, W).
        weight: Tensor (C_out, C_in/groups, kH, kW).
        bias: Tensor (C_out,) or None.
        stride, dilation: int or (h, w).
        pad_mode: 'valid' (default), 'same' (TF-style, extra on bottom/right) or 'pad'.
        padding: with 'pad': int, (h, w) or (top, bottom, left, right).
        groups: number of channel groups.

    Returns:
        Tensor (N, C_out, H_out, W_out).

    Raises:
        ValueError: bad pad mode, padding without 'pad', channels not divisible by groups.

    Example:
        >>> y = ops.conv2d(x, w, pad_mode="pad", padding=1)
    """
    name = "conv2d"
    refuse_lists("Conv2D", stride=stride, dilation=dilation)
    pad_mode = check_pad_mode(name, pad_mode)
    stride = int_tuple(name, "stride", stride)
    dilation = int_tuple(name, "dilation", dilation)
    if not _is_int(groups) or groups < 1:
        raise ValueError(f"For '{name}', the 'groups' must be a positive int, but got {groups!r}.")
    check_no_padding(name, pad_mode, padding)
    pads = padding4(name, padding)
    check_float_tensor(name, None, input, (4,), "(N, C, H, W)")
    kernel = tuple(weight.shape[2:]) if isinstance(weight, Tensor) and weight.ndim == 4 else (1, 1)
    pads = resolve_pads(pad_mode, pads, input.shape[2:], kernel, stride, dilation)
    return conv2d_core(name, input, weight, bias, stride, pads, dilation, int(groups))


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """1-D cross-correlation, `mindspore.ops.conv1d`: input (N, C_in, L), weight
    (C_out, C_in/groups, k); runs as a 2-D convolution with H = 1.

    Example:
        >>> y = ops.conv1d(x, w, pad_mode="same")
    """
    name = "conv1d"
    pad_mode = check_pad_mode(name, pad_mode)
    (stride,) = int_tuple(name, "stride", stride, 1)
    (dilation,) = int_tuple(name, "dilation", dilation, 1)
    check_no_padding(name, pad_mode, padding)
    check_float_tensor(name, None, input, (3,), "(N, C, L)")
    if not isinstance(weight, Tensor) or weight.ndim != 3:
        raise ValueError(f"For '{name}', the 'weight' must be a 3-D Tensor (C_out, C_in/groups, "
                         f"kernel_size), but got {getattr(weight, 'shape', weight)!r}.")
    pads = pad1d(name, pad_mode, padding, input.shape[2], weight.shape[2], stride, dilation)
    out = conv2d_core(name, F.expand_dims(input, 2), F.expand_dims(weight, 2), bias, (1, stride),
                      (0, 0) + pads, (1, dilation), int(groups))
    return F.squeeze(out, 2)


def pad1d(name, pad_mode, padding, length, k, s, d):
    """(left, right) padding of a 1-D op."""
    if pad_mode == "same":
        return same_pads(length, k, s, d)
    if pad_mode == "valid":
        return (0, 0)
    if _is_int(padding):
        p = (int(padding),) * 2
    elif isinstance(padding, (tuple, list)) and len(padding) in (1, 2) and all(
            _is_int(v) for v in padding):
        p = tuple(int(v) for v in padding) * (2 // len(padding))
    else:
        raise TypeError(f"For '{name}', the 'padding' must be an int or a tuple of 1 or 2 ints, "
                        f"but got {padding!r}.")
    if min(p) < 0:
        raise ValueError(f"For '{name}', the 'padding' must be >= 0, but got {padding!r}.")
    return p


def conv_transpose_core(name, x, weight, bias, stride, pads, dilation, groups, out_hw):
    """Transposed convolution as the input-gradient of Conv2D with `pads` on an `out_hw` image.

    `pads` may have a negative bottom/right (output_padding), which crops in the conv view.
    """
    check_float_tensor(name, None, x, (4,), "(N, C, H, W)")
    if not isinstance(weight, Tensor) or weight.ndim != 4:
        raise ValueError(f"For '{name}', the 'weight' must be a 4-D Tensor (C_in, C_out/groups, "
                         f"kH, kW), but got {getattr(weight, 'shape', weight)!r}.")
    n, c, h, w = x.shape
    ci, cog, kh, kw = weight.shape
    if c != ci:
        raise ValueError(f"For '{name}', the input has {c} channels but the weight expects {ci} "
                         f"(weight shape {list(weight.shape)}).")
    if ci % groups:
        raise ValueError(f"For '{name}', the input channels ({ci}) must be divisible by 'groups' "
                         f"({groups}).")
    cfg = C.ConvConfig((kh, kw), stride, dilation, pads, groups)
    if out_hw[0] < 1 or out_hw[1] < 1 or cfg.out_hw(*out_hw) != (h, w):
        raise ValueError(f"For '{name}', the output size {list(out_hw)} is not consistent with the "
                         f"input size {[h, w]} under stride {stride}, padding and dilation "
                         f"{dilation}.")
    if weight.dtype != x.dtype:
        raise TypeError(f"For '{name}', the input and the 'weight' must have the same dtype, but "
                        f"got Tensor[{x.dtype}] and Tensor[{weight.dtype}].")
    out = _engine.apply(C.Conv2DInputGrad(cfg, (n, cog * groups) + tuple(out_hw)), x, weight)
    if bias is not None:
        out = out + F.reshape(bias, (1, cog * groups, 1, 1))
    return out


def transpose_geometry(pad_mode, pads, in_hw, kernel, stride, dilation, output_padding):
    """(output size, conv pads) of a transposed convolution under MindSpore's rules."""
    out_hw, conv_pads = [], []
    for a in range(2):
        dk = (kernel[a] - 1) * dilation[a] + 1
        s = stride[a]
        if pad_mode == "same":
            size = in_hw[a] * s
            before, after = same_pads(size, kernel[a], s, dilation[a])
        elif pad_mode == "valid":
            size = in_hw[a] * s + max(dk - s, 0)
            before, after = 0, 0
        else:
            before, after = pads[2 * a], pads[2 * a + 1]
            size = (in_hw[a] - 1) * s + dk - before - after + output_padding[a]
            after -= output_padding[a]
        out_hw.append(size)
        conv_pads += [before, after]
    return tuple(out_hw), tuple(conv_pads)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-D transposed convolution (`ops.conv_transpose2d`, PyTorch-style arguments): input
    (N, C_in, H, W), weight (C_in, C_out/groups, kH, kW); padding int or (h, w).

    Example:
        >>> y = ops.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    """
    name = "conv_transpose2d"
    stride = int_tuple(name, "stride", stride)
    dilation = int_tuple(name, "dilation", dilation)
    output_padding = int_tuple(name, "output_padding", output_padding, minimum=0)
    pads = padding4(name, padding)
    check_float_tensor(name, None, input, (4,), "(N, C, H, W)")
    for a in range(2):
        if output_padding[a] >= max(stride[a], dilation[a]):
            raise ValueError(f"For '{name}', the 'output_padding' must be smaller than 'stride' or "
                             f"'dilation', but got {output_padding} with stride {stride}.")
    out_hw, conv_pads = transpose_geometry("pad", pads, input.shape[2:], weight.shape[2:], stride,
                                           dilation, output_padding)
    return conv_transpose_core(name, input, weight, bias, stride, conv_pads, dilation, int(groups),
                               out_hw)


# --- pooling --------------------------------------------------------------------------------

def _pool_out(size, k, s, d, p_before, p_after, ceil_mode):
    """PyTorch's output length for explicit padding, incl. ceil_mode's last-window rule."""
    span = size + p_before + p_after - (k - 1) * d - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p_before:
        out -= 1  # the last window would start inside the right padding only
    return out


def pool_config(name, x_hw, kernel, stride, dilation, pad_mode, pads, ceil_mode):
    """PoolConfig for a pad mode; `pads` (top, bottom, left, right) is used by 'pad' only."""
    if pad_mode == "same":
        pads = resolve_pads("same", None, x_hw, kernel, stride, dilation)
        out = tuple(-(-x_hw[a] // stride[a]) for a in range(2))
    else:
        if pad_mode == "valid":
            pads = (0, 0, 0, 0)
        else:
            for a in range(2):
                half = ((kernel[a] - 1) * dilation[a] + 1) // 2
                if max(pads[2 * a], pads[2 * a + 1]) > half:
                    raise ValueError(f"For '{name}', the 'padding' must be at most half of the "
                                     f"(dilated) kernel size, but got padding {pads} with "
                                     f"kernel_size {kernel}.")
        out = tuple(_pool_out(x_hw[a], kernel[a], stride[a], dilation[a], pads[2 * a],
                              pads[2 * a + 1], ceil_mode) for a in range(2))
    if out[0] < 1 or out[1] < 1:
        raise ValueError(f"For '{name}', the kernel_size {kernel} is larger than the (padded) input "
                         f"{list(x_hw)}; the output would be empty.")
    return P.PoolConfig(kernel, stride, dilation, pads, out)


def _avg_divisor(cfg, x_hw, pad_mode, count_include_pad, divisor_override):
    """Per-output divisor (Ho, Wo) as float32, following PyTorch's rules for explicit padding
    and MindSpore's 'same' rule (real elements only)."""
    if divisor_override:
        return np.float32(divisor_override)
    axes = []
    for a in range(2):
        k, s, size = cfg.kernel[a], cfg.stride[a], x_hw[a]
        before, after = cfg.pads[2 * a], cfg.pads[2 * a + 1]
        start = np.arange(cfg.out_hw[a]) * s - before
        end = np.minimum(start + k, size + after)
        pool = end - start
        real = np.minimum(end, size) - np.maximum(start, 0)
        include = count_include_pad and pad_mode == "pad"
        axes.append(pool if include else real)
    div = np.outer(axes[0], axes[1]).astype(np.float32)
    if np.all(div == div.flat[0]):
        return np.float32(div.flat[0])
    return div


def _as4d(name, x, what="(N, C, H, W)"):
    check_float_tensor(name, None, x, (3, 4), what)
    if x.ndim == 3:
        return F.expand_dims(x, 0), True
    return x, False


def max_pool_core(x, cfg, return_indices=False):
    """MaxPool2D on a 4-D Tensor; optionally with PyTorch-style flat indices into H*W."""
    prim = P.MaxPool2D(cfg)
    out = _engine.apply(prim, x)
    if not return_indices:
        return out
    k_idx = prim.argmax(x._data)
    kw = cfg.kernel[1]
    ho, wo = cfg.out_hw
    row = (np.arange(ho) * cfg.stride[0] - cfg.pads[0])[:, None] + (k_idx // kw) * cfg.dilation[0]
    col = (np.arange(wo) * cfg.stride[1] - cfg.pads[2])[None, :] + (k_idx % kw) * cfg.dilation[1]
    return out, Tensor._wrap((row * x.shape[-1] + col).astype(np.int64))


def avg_pool_core(x, cfg, pad_mode, count_include_pad=True, divisor_override=None):
    div = _avg_divisor(cfg, x.shape[2:], pad_mode, count_include_pad, divisor_override)
    if isinstance(div, np.ndarray):
        div = div.astype(x._data.dtype)
    else:
        div = x._data.dtype.type(div)
    return _engine.apply(P.AvgPool2D(cfg, div), x)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """2-D max pooling with explicit padding (PyTorch-style arguments), `ops.max_pool2d`.

    Padding is -inf; `stride` defaults to `kernel_size`. Returns (output, argmax) with
    `return_indices`, argmax as flat indices into H*W (int64).

    Example:
        >>> y = ops.max_pool2d(x, 3, 2, padding=1)
    """
    name = "max_pool2d"
    refuse_lists('MaxPool2d', kernel_size=kernel_size, stride=stride)
    kernel = int_tuple(name, "kernel_size", kernel_size)
    stride = kernel if stride is None else int_tuple(name, "stride", stride)
    dilation = int_tuple(name, "dilation", dilation)
    pads = padding4(name, padding)
    x4, squeeze = _as4d(name, x)
    cfg = pool_config(name, x4.shape[2:], kernel, stride, dilation, "pad", pads, ceil_mode)
    out = max_pool_core(x4, cfg, return_indices)
    if squeeze:
        out = tuple(F.squeeze(o, 0) for o in out) if return_indices else F.squeeze(out, 0)
    return out


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """2-D average pooling with explicit zero padding, `ops.avg_pool2d` (PyTorch's divisor rules;
    `divisor_override` 0 means none, and None is refused, as in MindSpore 2.10).

    Example:
        >>> y = ops.avg_pool2d(x, 2, 2)
    """
    name = "avg_pool2d"
    refuse_lists('avg_pool2d', kernel_size=kernel_size, stride=stride)
    kernel = int_tuple(name, "kernel_size", kernel_size)
    stride = int_tuple(name, "stride", stride)
    pads = padding4(name, padding, allow_pair=False)  # MindSpore 2.10 refuses torch's (h, w) form
    if not _is_int(divisor_override):
        raise TypeError(f"For '{name}', the 'divisor_override' must be int, but got "
                        f"'{type(divisor_override).__name__}'.")
    if divisor_override < 0:
        raise ValueError(f"For '{name}', the 'divisor_override' must be >= 0, but got {divisor_override}.")
    x4, squeeze = _as4d(name, input_x)
    cfg = pool_config(name, x4.shape[2:], kernel, stride, (1, 1), "pad", pads, ceil_mode)
    out = avg_pool_core(x4, cfg, "pad", count_include_pad, divisor_override)
    return F.squeeze(out, 0) if squeeze else out


def _to_2d_1d(name, x):
    """(N, C, L) or (C, L) -> (N, C, 1, L) and how to undo it."""
    check_float_tensor(name, None, x, (2, 3), "(N, C, L)")
    lead = x.ndim == 2
    x4 = F.expand_dims(F.expand_dims(x, 0) if lead else x, 2)
    return x4, lead


def _from_2d_1d(out, lead):
    out = F.squeeze(out, 2)
    return F.squeeze(out, 0) if lead else out


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """1-D max pooling with explicit padding (PyTorch-style arguments)."""
    name = "max_pool1d"
    (k,) = int_tuple(name, "kernel_size", kernel_size, 1)
    (s,) = (k,) if stride is None else int_tuple(name, "stride", stride, 1)
    (d,) = int_tuple(name, "dilation", dilation, 1)
    (p,) = int_tuple(name, "padding", padding, 1, minimum=0)
    x4, lead = _to_2d_1d(name, x)
    cfg = pool_config(name, x4.shape[2:], (1, k), (1, s), (1, d), "pad", (0, 0, p, p), ceil_mode)
    out = max_pool_core(x4, cfg, return_indices)
    if return_indices:
        return _from_2d_1d(out[0], lead), _from_2d_1d(out[1], lead)
    return _from_2d_1d(out, lead)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling with explicit zero padding (PyTorch's divisor rules)."""
    name = "avg_pool1d"
    refuse_lists('avg_pool1d', kernel_size=kernel_size, stride=stride)
    (k,) = int_tuple(name, "kernel_size", kernel_size, 1)
    (s,) = int_tuple(name, "stride", stride, 1)
    (p,) = int_tuple(name, "padding", padding, 1, minimum=0)
    x4, lead = _to_2d_1d(name, input_x)
    cfg = pool_config(name, x4.shape[2:], (1, k), (1, s), (1, 1), "pad", (0, 0, p, p), ceil_mode)
    return _from_2d_1d(avg_pool_core(x4, cfg, "pad", count_include_pad), lead)


# --- adaptive pooling -----------------------------------------------------------------------

def _adaptive_size(name, output_size, hw):
    if _is_int(output_size) or output_size is None:
        output_size = (output_size, output_size)
    if not isinstance(output_size, (tuple, list)) or len(output_size) != 2:
        raise TypeError(f"For '{name}', the 'output_size' must be an int or a tuple of 2 ints "
                        f"(None keeps that axis), but got {output_size!r}.")
    out = tuple(hw[a] if output_size[a] is None else output_size[a] for a in range(2))
    if not all(_is_int(o) and o >= 1 for o in out):
        raise ValueError(f"For '{name}', the 'output_size' must be positive, but got "
                         f"{output_size!r}.")
    return tuple(int(o) for o in out)


def _bins(size, out):
    """PyTorch's adaptive windows: [floor(i*size/out), ceil((i+1)*size/out))."""
    i = np.arange(out)
    return (i * size) // out, -(-((i + 1) * size) // out)


def _avg_matrix(size, out, dtype):
    start, end = _bins(size, out)
    m = np.zeros((out, size), dtype=np.float64)
    for i in range(out):
        m[i, start[i]:end[i]] = 1.0 / (end[i] - start[i])
    return Tensor._wrap(m.astype(dtype))


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling to `output_size` (int or (h, w); None keeps an axis).

    Even bins run as a plain average pool; uneven ones as two small matmuls with PyTorch's bin
    boundaries, so both are exactly differentiable to any order.
    """
    name = "adaptive_avg_pool2d"
    refuse_lists("AdaptiveAvgPool2D", output_size=output_size)
    x4, squeeze = _as4d(name, input)
    h, w = x4.shape[2:]
    ho, wo = _adaptive_size(name, output_size, (h, w))
    if h % ho == 0 and w % wo == 0:
        k = (h // ho, w // wo)
        if k == (1, 1):
            out = x4
        elif (ho, wo) == (1, 1):
            out = F.mean(x4, (2, 3), keep_dims=True)
        else:
            cfg = P.PoolConfig(k, k, (1, 1), (0, 0, 0, 0), (ho, wo))
            out = avg_pool_core(x4, cfg, "valid")
    else:
        dt = x4._data.dtype
        out = F.matmul(_avg_matrix(h, ho, dt), F.matmul(x4, F.transpose(_avg_matrix(w, wo, dt),
                                                                         (1, 0))))
    return F.squeeze(out, 0) if squeeze else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling with PyTorch's bins; returns (output, flat argmax) with
    `return_indices`."""
    name = "adaptive_max_pool2d"
    x4, squeeze = _as4d(name, input)
    h, w = x4.shape[2:]
    ho, wo = _adaptive_size(name, output_size, (h, w))
    if h % ho == 0 and w % wo == 0 and not return_indices:
        k = (h // ho, w // wo)
        out = max_pool_core(x4, P.PoolConfig(k, k, (1, 1), (0, 0, 0, 0), (ho, wo)))
        return F.squeeze(out, 0) if squeeze else out
    xa = x4._data
    rs, re = _bins(h, ho)
    cs, ce = _bins(w, wo)
    idx = np.empty(xa.shape[:2] + (ho, wo), dtype=np.int64)
    for i in range(ho):  # loops over output cells only: adaptive outputs are small
        for j in range(wo):
            win = xa[:, :, rs[i]:re[i], cs[j]:ce[j]]
            flat = win.reshape(win.shape[:2] + (-1,)).argmax(-1)
            ww = ce[j] - cs[j]
            idx[:, :, i, j] = (rs[i] + flat // ww) * w + cs[j] + flat % ww
    out = _engine.apply(P.TakeFlat(idx), x4)
    ind = Tensor._wrap(idx)
    if squeeze:
        out, ind = F.squeeze(out, 0), F.squeeze(ind, 0)
    return (out, ind) if return_indices else out


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of (N, C, L) to `output_size`."""
    refuse_lists("adaptive_avg_pool1d", output_size=output_size)
    x4, lead = _to_2d_1d("adaptive_avg_pool1d", input)
    return _from_2d_1d(adaptive_avg_pool2d(x4, (1, output_size)), lead)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, L) to `output_size`."""
    x4, lead = _to_2d_1d("adaptive_max_pool1d", input)
    out = adaptive_max_pool2d(x4, (1, output_size), return_indices)
    if return_indices:
        return _from_2d_1d(out[0], lead), _from_2d_1d(out[1], lead)
    return _from_2d_1d(out, lead)


# --- interpolation --------------------------------------------------------------------------



def _linear_matrix(size, out, scale, align_corners, dtype):
    """(out, size) matrix of 1-D linear interpolation with PyTorch's source coordinates."""
    i = np.arange(out, dtype=np.float64)
    if align_corners:
        src = i * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:
        src = np.maximum((i + 0.5) * scale - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), size - 1)
    i1 = np.minimum(i0 + 1, size - 1)
    lam = src - i0
    m = np.zeros((out, size), dtype=np.float64)
    np.add.at(m, (np.arange(out), i0), 1.0 - lam)
    np.add.at(m, (np.arange(out), i1), lam)
    return Tensor._wrap(m.astype(dtype))


def _nearest_index(size, out, scale, exact):
    i = np.arange(out, dtype=np.float64)
    src = np.floor((i + 0.5) * scale) if exact else np.floor(i * scale)
    return np.minimum(src.astype(np.int64), size - 1)


def _nearest_axes(x, sizes, scales, exact):
    """Nearest-neighbour resampling of every axis from 2 on."""
    out = x
    for axis, (size, scale) in enumerate(zip(sizes, scales), 2):
        n = x.shape[axis]
        idx = _nearest_index(n, size, scale, exact)
        if idx.shape[0] == n and np.all(idx == np.arange(n)):
            continue
        r = idx.shape[0] // n
        if r * n == idx.shape[0] and np.all(idx == np.arange(idx.shape[0]) // r):
            # integer upscaling: np.repeat, whose gradient is a reshape + sum (no add.at)
            out = F.repeat_interleave(out, r, axis)
        else:
            out = F.gather(out, Tensor._wrap(idx), axis)
    return out


def _area_matrix(size, out, dtype):
    """(out, size) matrix of adaptive average pooling's bins along one axis (PyTorch's bins)."""
    m = np.zeros((out, size), dtype=np.float64)
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return Tensor._wrap(m.astype(dtype))


def _separable(x, matrices):
    """Apply one (out, in) matrix along each axis from 2 on: one matmul per axis (the last by its
    matrix's transpose, the others over the axes after them flattened)."""
    out = x
    for axis in range(x.ndim - 1, 1, -1):
        m = matrices[axis - 2]
        if axis == x.ndim - 1:
            out = F.matmul(out, F.transpose(m, (1, 0)))
        else:
            rest = out.shape[axis + 1:]
            flat = F.reshape(out, out.shape[:axis + 1] + (-1,))
            out = F.reshape(F.matmul(m, flat), out.shape[:axis] + (m.shape[0],) + rest)
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resize the spatial axes of (N, C, L), (N, C, H, W) or (N, C, D, H, W),
    `mindspore.ops.interpolate`, with MindSpore 2.10's argument rules (interpolate_args): `size`
    ints, `scale_factor` floats, on 3-D and 4-D input only with `recompute_scale_factor=True`
    (except 'area').

    Modes 'nearest', 'nearest-exact' (3-D, 4-D), 'linear' (3-D input), 'bilinear' (4-D),
    'trilinear' (5-D), 'area' (adaptive average). Source coordinates follow PyTorch: with a scale
    factor not recomputed (5-D) the ratio is 1/scale_factor, else in/out. `align_corners` only
    applies to the linear modes (default False).

    Example:
        >>> y = ops.interpolate(x, scale_factor=2.0, mode="bilinear", recompute_scale_factor=True)
    """
    sizes, factors, corners = interpolate_args.check(input, size, scale_factor, mode,
                                                     align_corners, recompute_scale_factor)
    if mode == "bicubic":
        raise NotImplementedError("For 'interpolate', mode 'bicubic' is not implemented in ms_core "
                                  "(MindSpore's ResizeBicubic samples otherwise than torch's "
                                  "bicubic); use 'bilinear' or a size-preserving alternative.")
    shape = input.shape[2:]
    scales = tuple(n / o for n, o in zip(shape, sizes)) if factors is None else \
        tuple(1.0 / f for f in factors)
    dt = input._data.dtype
    if mode == "area" and input.ndim == 5:  # adaptive average pooling, one axis at a time
        return _separable(input, [_area_matrix(n, o, dt) for n, o in zip(shape, sizes)])
    if mode == "area":
        x = input if input.ndim == 4 else F.expand_dims(input, 2)
        out = adaptive_avg_pool2d(x, sizes if input.ndim == 4 else (1,) + tuple(sizes))
        return out if input.ndim == 4 else F.squeeze(out, 2)
    if mode in ("nearest", "nearest-exact"):
        return _nearest_axes(input, sizes, scales, mode == "nearest-exact")
    return _separable(input, [_linear_matrix(n, o, s, corners, dt)
                              for n, o, s in zip(shape, sizes, scales)])


upsample = interpolate


def pixel_shuffle(input, upscale_factor):
    """(..., C*r*r, H, W) -> (..., C, H*r, W*r), `ops.pixel_shuffle` (same layout as torch).

    Example:
        >>> y = ops.pixel_shuffle(x, 2)
    """
    name = "pixel_shuffle"
    r = upscale_factor
    if not _is_int(r) or r < 1:
        raise ValueError(f"For '{name}', the 'upscale_factor' must be a positive int, but got "
                         f"{r!r}.")
    if not isinstance(input, Tensor) or input.ndim < 3 or input.shape[-3] % (r * r):
        raise ValueError(f"For '{name}', the input must be at least 3-D with the channel axis "
                         f"(-3) divisible by upscale_factor**2 = {r * r}, but got shape "
                         f"{list(getattr(input, 'shape', ()))}.")
    *lead, c, h, w = input.shape
    lead = tuple(lead)
    x = F.reshape(input, lead + (c // (r * r), r, r, h, w))
    k = len(lead)
    x = F.transpose(x, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return F.reshape(x, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(..., C, H*r, W*r) -> (..., C*r*r, H, W), the inverse of pixel_shuffle."""
    name = "pixel_unshuffle"
    r = downscale_factor
    if not _is_int(r) or r < 1:
        raise ValueError(f"For '{name}', the 'downscale_factor' must be a positive int, but got "
                         f"{r!r}.")
    if not isinstance(input, Tensor) or input.ndim < 3 or input.shape[-1] % r or \
            input.shape[-2] % r:
        raise ValueError(f"For '{name}', the input must be at least 3-D with H and W divisible "
                         f"by downscale_factor = {r}, but got shape "
                         f"{list(getattr(input, 'shape', ()))}.")
    *lead, c, h, w = input.shape
    lead = tuple(lead)
    x = F.reshape(input, lead + (c, h // r, r, w // r, r))
    k = len(lead)
    x = F.transpose(x, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return F.reshape(x, lead + (c * r * r, h // r, w // r))


# --- unfold / fold ---------------------------------------------------------------------------

def _block_config(name, kernel_size, dilation, padding, stride):
    kernel = int_tuple(name, "kernel_size", kernel_size)
    dilation = int_tuple(name, "dilation", dilation)
    stride = int_tuple(name, "stride", stride)
    ph, pw = int_tuple(name, "padding", padding, minimum=0)
    return C.ConvConfig(kernel, stride, dilation, (ph, ph, pw, pw), 1)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding local blocks, `ops.unfold` (as torch's F.unfold): (N, C, H, W) ->
    (N, C*kh*kw, L), channel-major block order; `padding` is symmetric (int or (h, w)).

    Example:
        >>> cols = ops.unfold(x, kernel_size=3, padding=1)
    """
    name = "unfold"
    check_float_tensor(name, None, input, (4,), "(N, C, H, W)")
    cfg = _block_config(name, kernel_size, dilation, padding, stride)
    ho, wo = cfg.out_hw(*input.shape[2:])
    if ho < 1 or wo < 1:
        raise ValueError(f"For '{name}', the kernel does not fit in the padded input "
                         f"{list(input.shape[2:])}.")
    return _engine.apply(C.Unfold(cfg), input)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding local blocks (N, C*kh*kw, L) into (N, C, H, W), `ops.fold` (the adjoint of
    unfold; overlapping entries add up). `output_size` is (H, W) (or a 2-element Tensor).

    Example:
        >>> x = ops.fold(cols, (8, 8), kernel_size=3, padding=1)
    """
    name = "fold"
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    out_hw = int_tuple(name, "output_size", output_size)
    cfg = _block_config(name, kernel_size, dilation, padding, stride)
    if not isinstance(input, Tensor) or input.ndim != 3:
        raise ValueError(f"For '{name}', the input must be a 3-D Tensor (N, C*kh*kw, L), but got "
                         f"{list(getattr(input, 'shape', ()))}.")
    n, ck, length = input.shape
    kk = cfg.kernel[0] * cfg.kernel[1]
    ho, wo = cfg.out_hw(*out_hw)
    if ck % kk or length != ho * wo:
        raise ValueError(f"For '{name}', the input shape {list(input.shape)} does not match "
                         f"kernel_size {cfg.kernel} and output_size {out_hw}: expected "
                         f"(N, C*{kk}, {ho * wo}).")
    return _engine.apply(C.Fold(cfg, (n, ck // kk) + out_hw), input)


# --- primitive classes ----------------------------------------------------------------------

class _Prim:
    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class Conv2D(_Prim):
    """`ops.Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCHW')(x, weight)`; `pad` is an int or
    (top, bottom, left, right) and needs pad_mode='pad'."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        name = "Conv2D"
        if not _is_int(out_channel) or out_channel < 1:
            raise ValueError(f"For '{name}', the 'out_channel' must be a positive int, but got "
                             f"{out_channel!r}.")
        self.out_channel = int(out_channel)
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size)
        self.mode = mode
        self.pad_mode = check_pad_mode(name, pad_mode)
        check_no_padding(name, self.pad_mode, pad)
        self.pad = padding4(name, pad, allow_pair=False)
        self.stride = int_tuple(name, "stride", stride, allow_lead=True)
        self.dilation = int_tuple(name, "dilation", dilation, allow_lead=True)
        if not _is_int(group) or group < 1:
            raise ValueError(f"For '{name}', the 'group' must be a positive int, but got {group!r}.")
        self.group = int(group)
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format 'NCHW' is supported, but got "
                             f"{data_format!r}.")
        self.data_format = data_format

    def __call__(self, x, weight):
        name = "Conv2D"
        check_float_tensor(name, None, x, (4,), "(N, C, H, W)")
        if tuple(weight.shape[2:]) != self.kernel_size or weight.shape[0] != self.out_channel:
            raise ValueError(f"For '{name}', the 'weight' shape {list(weight.shape)} does not match "
                             f"out_channel={self.out_channel} and kernel_size={self.kernel_size}.")
        pads = resolve_pads(self.pad_mode, self.pad, x.shape[2:], self.kernel_size, self.stride,
                            self.dilation)
        return conv2d_core(name, x, weight, None, self.stride, pads, self.dilation, self.group)


class Conv2DBackpropInput(_Prim):
    """`ops.Conv2DBackpropInput(out_channel, kernel_size, pad_mode='valid', pad=0, ...)(dout,
    weight, input_size)`: the gradient of Conv2D with respect to an input of `input_size`."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        name = type(self).__name__
        self.out_channel = out_channel
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size)
        self.pad_mode = check_pad_mode(name, pad_mode)
        self.pad = padding4(name, pad if pad_list is None else pad_list, allow_pair=False)
        self.stride = int_tuple(name, "stride", stride, allow_lead=True)
        self.dilation = int_tuple(name, "dilation", dilation, allow_lead=True)
        self.group = int(group)

    def __call__(self, dout, weight, input_size):
        input_size = tuple(int(s) for s in input_size)
        pads = resolve_pads(self.pad_mode, self.pad, input_size[2:], self.kernel_size, self.stride,
                            self.dilation)
        return conv_transpose_core(type(self).__name__, dout, weight, None, self.stride, pads,
                                   self.dilation, self.group, input_size[2:])


Conv2DTranspose = type("Conv2DTranspose", (Conv2DBackpropInput,),
                       {"__doc__": "`ops.Conv2DTranspose`: the same operator as "
                                   "Conv2DBackpropInput."})


class _PoolPrim(_Prim):
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        name = type(self).__name__
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, allow_lead=True)
        self.strides = int_tuple(name, "strides", strides, allow_lead=True)
        self.pad_mode = check_pad_mode(name, pad_mode, ("same", "valid"))
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{name}', the 'data_format' must be 'NCHW' or 'NHWC', but got "
                             f"{data_format!r}.")
        self.data_format = data_format

    def _run(self, x, fn):
        name = type(self).__name__
        check_float_tensor(name, None, x, (4,), "(N, C, H, W)")
        nhwc = self.data_format == "NHWC"
        if nhwc:
            x = F.transpose(x, (0, 3, 1, 2))
        cfg = pool_config(name, x.shape[2:], self.kernel_size, self.strides, (1, 1), self.pad_mode,
                          None, False)
        out = fn(x, cfg)
        return F.transpose(out, (0, 2, 3, 1)) if nhwc else out


class MaxPool(_PoolPrim):
    """`ops.MaxPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x)`.

    'same' pads TF-style with -inf (extra on bottom/right): 3x3 arange, k2 s2 -> [[4,5],[7,8]].
    pad_mode is validated (case-insensitive); MindSpore 2.x rejects misspellings like 'vaild'.
    """

    def __call__(self, x):
        return self._run(x, lambda x4, cfg: max_pool_core(x4, cfg))


class AvgPool(_PoolPrim):
    """`ops.AvgPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x)`; 'same'
    divides each window by its number of real (unpadded) elements."""

    def __call__(self, x):
        return self._run(x, lambda x4, cfg: avg_pool_core(x4, cfg, self.pad_mode))


class AdaptiveAvgPool2D(_Prim):
    """`ops.AdaptiveAvgPool2D(output_size)(x)`."""

    def __init__(self, output_size):
        self.output_size = output_size

    def __call__(self, x):
        return adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2D(_Prim):
    """`ops.AdaptiveMaxPool2D(output_size)(x)` -> (output, argmax)."""

    def __init__(self, output_size):
        self.output_size = output_size

    def __call__(self, x):
        return adaptive_max_pool2d(x, self.output_size, True)
