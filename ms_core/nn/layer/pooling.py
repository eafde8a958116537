"""Pooling layers with MindSpore 2.x signatures: MaxPool1d/2d/3d, AvgPool1d/2d/3d, adaptive
pooling (1-D, 2-D, 3-D), LPPool1d/2d."""
import numpy as np

from ..cell import Cell
from ... import _engine
from ..._checkparam import check_float_tensor
from ..._prims import pool as P
from ...ops import conv3d_ops as C3
from ...ops import conv_ops as CO
from ...ops import functional as F
from ...ops import layer_ops as LO

__all__ = ["MaxPool2d", "AvgPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool2d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d"]


class _PoolNd(Cell):
    cls_name = "Pool"
    n_spatial = 2
    is_max = True

    def __init__(self, kernel_size, stride, pad_mode, padding, dilation=1, return_indices=False,
                 ceil_mode=False, count_include_pad=True, divisor_override=None,
                 data_format="NCHW"):
        super().__init__()
        name, n = self.cls_name, self.n_spatial
        CO.refuse_lists(name, kernel_size=kernel_size, stride=stride)
        self.kernel_size = CO.int_tuple(name, "kernel_size", kernel_size, n)
        self.stride = CO.int_tuple(name, "stride", stride, n)
        self.dilation = CO.int_tuple(name, "dilation", dilation, n)
        self.pad_mode = CO.check_pad_mode(name, pad_mode)
        self.padding = CO.int_tuple(name, "padding", padding, n, minimum=0)
        for arg in ("return_indices", "ceil_mode", "count_include_pad"):
            if not isinstance(locals()[arg], bool):
                raise TypeError(f"For '{name}', the '{arg}' must be bool, but got "
                                f"{type(locals()[arg]).__name__}.")
        if divisor_override is not None and (not CO._is_int(divisor_override) or
                                             divisor_override <= 0):
            raise ValueError(f"For '{name}', the 'divisor_override' must be a positive int or "
                             f"None, but got {divisor_override!r}.")
        if self.pad_mode != "pad":
            extras = [a for a, v, d in (("padding", any(self.padding), False),
                                        ("dilation", self.dilation != (1,) * n, False),
                                        ("return_indices", return_indices, False),
                                        ("ceil_mode", ceil_mode, False),
                                        ("divisor_override", divisor_override is not None, False))
                      if v != d]
            if extras:
                raise ValueError(f"For '{name}', {', '.join(repr(e) for e in extras)} can only be "
                                 f"set when 'pad_mode' is 'pad', but got pad_mode "
                                 f"{self.pad_mode!r}.")
        if data_format not in ("NCHW", "NHWC") or (data_format == "NHWC" and n != 2):
            raise ValueError(f"For '{name}', the 'data_format' must be 'NCHW'"
                             f"{' or NHWC' if n == 2 else ''}, but got {data_format!r}.")
        self.data_format = data_format
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def _pool4(self, x4):
        pads = (self.padding[0], self.padding[0], self.padding[1], self.padding[1])
        cfg = CO.pool_config(self.cls_name, x4.shape[2:], self.kernel_size, self.stride,
                             self.dilation, self.pad_mode, pads, self.ceil_mode)
        if self.is_max:
            return CO.max_pool_core(x4, cfg, self.return_indices)
        return CO.avg_pool_core(x4, cfg, self.pad_mode, self.count_include_pad,
                                self.divisor_override)

    def construct(self, x):
        name = self.cls_name
        if self.n_spatial == 2:
            check_float_tensor(name, None, x, (3, 4), "(N, C, H, W)")
            lead = x.ndim == 3
            x4 = F.expand_dims(x, 0) if lead else x
            if self.data_format == "NHWC":
                x4 = F.transpose(x4, (0, 3, 1, 2))

            def undo(t):
                if self.data_format == "NHWC":
                    t = F.transpose(t, (0, 2, 3, 1))
                return F.squeeze(t, 0) if lead else t
        else:
            check_float_tensor(name, None, x, (2, 3), "(N, C, L)")
            lead = x.ndim == 2
            x4 = F.expand_dims(F.expand_dims(x, 0) if lead else x, 2)

            def undo(t):
                t = F.squeeze(t, 2)
                return F.squeeze(t, 0) if lead else t
        out = self._pool4(x4)
        if isinstance(out, tuple):
            return tuple(undo(o) for o in out)
        return undo(out)

    def extend_repr(self):
        def fmt(v):
            return v[0] if len(v) == 1 else v
        s = (f"kernel_size={fmt(self.kernel_size)}, stride={fmt(self.stride)}, "
             f"pad_mode={self.pad_mode}")
        if self.pad_mode == "pad":
            s += f", padding={fmt(self.padding)}, ceil_mode={self.ceil_mode}"
        return s


class MaxPool2d(_PoolNd):
    """2-D max pooling, `mindspore.nn.MaxPool2d`.

    MindSpore vs PyTorch: `pad_mode` 'valid' (default) / 'same' (TF-style, extra padding on the
    bottom/right) / 'pad' (then `padding`, `dilation`, `ceil_mode`, `return_indices` work as in
    torch; they must stay at their defaults in the other modes). The default `stride` is 1, not
    `kernel_size`. Padding is -inf, so negative inputs are pooled correctly.
    Example: 3x3 arange, kernel 2, stride 2, 'same' -> [[4, 5], [7, 8]] (torch with padding
    gives [[0, 2], [6, 8]] because it pads top/left).
    """

    cls_name = "MaxPool2d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices,
                         ceil_mode, data_format=data_format)


class AvgPool2d(_PoolNd):
    """2-D average pooling, `mindspore.nn.AvgPool2d`.

    'same' divides each window by the number of real (unpadded) elements (3x3 arange, kernel 2,
    stride 2 -> [[2, 3.5], [6.5, 8]]); 'pad' follows torch (`count_include_pad`, `ceil_mode`,
    `divisor_override`). The default `stride` is 1.
    """

    cls_name = "AvgPool2d"
    is_max = False

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, 1, False, ceil_mode,
                         count_include_pad, divisor_override, data_format)


class MaxPool1d(_PoolNd):
    """1-D max pooling over (N, C, L), `mindspore.nn.MaxPool1d`; pad modes as MaxPool2d."""

    cls_name = "MaxPool1d"
    n_spatial = 1

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices,
                         ceil_mode)

    def _pool4(self, x4):
        cfg = CO.pool_config(self.cls_name, x4.shape[2:], (1,) + self.kernel_size,
                             (1,) + self.stride, (1,) + self.dilation, self.pad_mode,
                             (0, 0, self.padding[0], self.padding[0]), self.ceil_mode)
        return CO.max_pool_core(x4, cfg, self.return_indices)


class AvgPool1d(_PoolNd):
    """1-D average pooling over (N, C, L), `mindspore.nn.AvgPool1d`; pad modes as AvgPool2d."""

    cls_name = "AvgPool1d"
    n_spatial = 1
    is_max = False

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode, padding, 1, False, ceil_mode,
                         count_include_pad)

    def _pool4(self, x4):
        cfg = CO.pool_config(self.cls_name, x4.shape[2:], (1,) + self.kernel_size,
                             (1,) + self.stride, (1, 1), self.pad_mode,
                             (0, 0, self.padding[0], self.padding[0]), self.ceil_mode)
        return CO.avg_pool_core(x4, cfg, self.pad_mode, self.count_include_pad)


class AdaptiveAvgPool2d(Cell):
    """Adaptive average pooling to `output_size` (int, or (h, w) with None keeping an axis),
    PyTorch's bin boundaries; `mindspore.nn.AdaptiveAvgPool2d`."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return CO.adaptive_avg_pool2d(x, self.output_size)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(AdaptiveAvgPool2d):
    """Adaptive max pooling, `mindspore.nn.AdaptiveMaxPool2d(output_size, return_indices=False)`."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def construct(self, x):
        return CO.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Adaptive average pooling of (N, C, L), `mindspore.nn.AdaptiveAvgPool1d` (`output_size` an
    int, as MindSpore 2.10 requires)."""

    def __init__(self, output_size):
        _check_int_size("AdaptiveAvgPool1d", output_size)
        super().__init__(output_size)

    def construct(self, x):
        return CO.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """Adaptive max pooling of (N, C, L), `mindspore.nn.AdaptiveMaxPool1d` (`output_size` an int)."""

    def __init__(self, output_size, return_indices=False):
        _check_int_size("AdaptiveMaxPool1d", output_size)
        super().__init__(output_size, return_indices)

    def construct(self, x):
        return CO.adaptive_max_pool1d(x, self.output_size, self.return_indices)


def _check_int_size(name, output_size):
    if not CO._is_int(output_size):
        raise TypeError(f"For '{name}', the type of 'output_size' should be 'int', but got type "
                        f"'{type(output_size).__name__}'.")


class _Pool3d(Cell):
    """Shared argument handling of MaxPool3d / AvgPool3d (MindSpore 2.10's rules: `padding` an
    int or 3 ints, used with pad_mode='pad'; 'same' pads TF-style per axis)."""

    cls_name = "Pool3d"

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        name = self.cls_name
        CO.refuse_lists(name, kernel_size=kernel_size, stride=stride)
        self.kernel_size = CO.int_tuple(name, "kernel_size", kernel_size, 3)
        self.stride = CO.int_tuple(name, "stride", stride, 3)
        self.pad_mode = CO.check_pad_mode(name, pad_mode)
        if isinstance(padding, (tuple, list)) and len(padding) != 3:
            raise ValueError(f"For {name}, the length of padding must equal to 3, but got "
                             f"{len(padding)}.")
        self.padding = padding
        pads = CO.int_tuple(name, "padding", padding, 3, minimum=0)
        self._pads = tuple(p for p in pads for _ in range(2))
        if self.pad_mode != "pad" and any(pads):
            raise ValueError(f"For '{name}', the 'padding' must be 0 when 'pad_mode' is not "
                             f"'pad', but got {padding!r}.")
        if not isinstance(ceil_mode, bool):
            raise TypeError(f"For '{name}', the 'ceil_mode' must be bool, but got "
                            f"{type(ceil_mode).__name__}.")
        self.ceil_mode = ceil_mode

    def _pads_for(self, x, dilation=(1, 1, 1)):
        if self.pad_mode == "pad":
            return self._pads
        dhw = x.shape[-3:]
        return C3.resolve_pads3(self.pad_mode, None, dhw, self.kernel_size, self.stride, dilation)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool3d(_Pool3d):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W), `mindspore.nn.MaxPool3d`.

    As MaxPool2d: `stride` defaults to 1 (torch: kernel_size), 'valid' by default, 'same'
    TF-style, 'pad' with an int or (d, h, w) padding of -inf; `dilation`, `return_indices` (flat
    indices into D*H*W) and `ceil_mode` need pad_mode='pad'.
    """

    cls_name = "MaxPool3d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = CO.int_tuple(self.cls_name, "dilation", dilation, 3)
        self.return_indices = return_indices
        if self.pad_mode != "pad" and (self.dilation != (1, 1, 1) or return_indices):
            raise ValueError(f"For MaxPool3d, the pad_mode must be 'pad' when dilation is not 1 "
                             f"or return_indices is True, but got pad_mode:{self.pad_mode}.")

    def construct(self, x):
        pads = self._pads_for(x, self.dilation)
        return C3.max_pool3d(x, self.kernel_size, self.stride, pads, self.dilation,
                             self.ceil_mode, self.return_indices)


class AvgPool3d(_Pool3d):
    """3-D average pooling, `mindspore.nn.AvgPool3d`: pad modes as MaxPool3d; in 'same' and
    'pad' modes the padding counts in the divisor unless `count_include_pad=False` (checked on
    MindSpore 2.10: 'same' divides by the whole kernel volume); `divisor_override` as torch."""

    cls_name = "AvgPool3d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def construct(self, x):
        return C3.avg_pool3d(x, self.kernel_size, self.stride, self._pads_for(x), self.ceil_mode,
                             self.count_include_pad, self.divisor_override or 0)


class AdaptiveAvgPool3d(Cell):
    """Adaptive average pooling of (N, C, D, H, W) to `output_size` (int or 3 values, None keeps
    an axis) with torch's bins, `mindspore.nn.AdaptiveAvgPool3d`."""

    def __init__(self, output_size):
        super().__init__()
        CO.refuse_lists("AdaptiveAvgPool3d", output_size=output_size)
        self.output_size = output_size

    def construct(self, input):
        return C3.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(Cell):
    """Adaptive max pooling of (N, C, D, H, W), `mindspore.nn.AdaptiveMaxPool3d(output_size,
    return_indices=False)`."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        CO.refuse_lists("AdaptiveMaxPool3d", output_size=output_size)
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):
        return C3.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool1d(Cell):
    """Power-average pooling of (N, C, L): (sum x^p over each window)^(1/p),
    `mindspore.nn.LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)` (the stride
    defaults to the kernel size, as torch)."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = ceil_mode

    def construct(self, x):
        return LO.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """Power-average pooling of (N, C, H, W), `mindspore.nn.LPPool2d`."""

    def construct(self, x):
        return LO.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Cell):
    """Shared part of MaxUnpool1d/2d/3d: the values scattered at torch's flat argmax indices
    into zeros of the unpooled size (a differentiable scatter; its adjoint is the take)."""

    n_spatial = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name, n = type(self).__name__, self.n_spatial
        self.kernel_size = CO.int_tuple(name, "kernel_size", kernel_size, n)
        self.stride = self.kernel_size if stride is None else CO.int_tuple(name, "stride", stride, n)
        self.padding = CO.int_tuple(name, "padding", padding, n, minimum=0)

    def _out_size(self, x, output_size):
        n = self.n_spatial
        if output_size is None:
            return tuple((x.shape[-n + a] - 1) * self.stride[a] - 2 * self.padding[a] +
                         self.kernel_size[a] for a in range(n))
        size = tuple(int(v) for v in output_size)
        return size[-n:]

    def construct(self, x, indices, output_size=None):
        name, n = type(self).__name__, self.n_spatial
        check_float_tensor(name, "x", x, (n + 1, n + 2))
        if tuple(indices.shape) != tuple(x.shape):
            raise ValueError(f"For '{name}', the 'indices' must have the shape of 'x' "
                             f"{list(x.shape)}, but got {list(indices.shape)}.")
        out = self._out_size(x, output_size)
        lead = tuple(x.shape[:-n])
        total = int(np.prod(out))
        idx = indices._data.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= total):
            raise ValueError(f"For '{name}', the 'indices' must be in [0, {total}) for the output "
                             f"size {list(out)}, but got values up to {int(idx.max())}.")
        flat_idx = idx.reshape(lead + (1, -1))
        values = F.reshape(x, lead + (1, -1))
        y = _engine.apply(P.ScatterFlat(flat_idx, lead + (1, total)), values)
        return F.reshape(y, lead + out)


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d with indices, `mindspore.nn.MaxUnpool1d(kernel_size, stride=None,
    padding=0)`; `construct(x, indices, output_size=None)`."""

    n_spatial = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d with indices (flat into H*W, as torch), `mindspore.nn.MaxUnpool2d`."""

    n_spatial = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d with indices (flat into D*H*W), `mindspore.nn.MaxUnpool3d`."""

    n_spatial = 3
