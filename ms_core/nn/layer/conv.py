"""Conv1d/2d/3d and their transposes with MindSpore 2.x signatures, defaults and attributes
(`padding` kept as given; Conv1d's `kernel_size`, `stride`, `dilation` as (1, k) and `padding`
as (0, 0, p, p), as MindSpore 2.10 stores them)."""
import math

from ..cell import Cell
from ..._checkparam import check_bool, check_positive_int, check_rank, check_value_type
from ...common import dtype as mstype
from ...common import initializer as init_mod
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...ops import conv3d_ops as C3
from ...ops import conv_ops as CO
from ...ops import functional as F

__all__ = ["Conv2d", "Conv1d", "Conv2dTranspose", "Conv1dTranspose", "Conv3d", "Conv3dTranspose"]


def _init_param(cls_name, spec, shape, dtype, fan_in, is_bias, name):
    """Parameter from an init spec; None means MindSpore >= 2.3's defaults (HeUniform(sqrt 5)
    for weights, U(+-1/sqrt(fan_in)) for biases), the same as PyTorch's."""
    if spec is None:
        if is_bias:
            spec = init_mod.Uniform(1.0 / math.sqrt(fan_in))
        else:
            spec = init_mod.HeUniform(negative_slope=math.sqrt(5))
    return Parameter(initializer(spec, shape, dtype).init_data(), name=name)


class _ConvNd(Cell):
    """Shared argument handling for the convolution layers."""

    cls_name = "Conv"
    n_spatial = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                 dilation, group, has_bias, weight_init, bias_init, data_format="NCHW",
                 dtype=mstype.float32, output_padding=0):
        super().__init__()
        name = self.cls_name
        n = self.n_spatial
        CO.refuse_lists(name, kernel_size=kernel_size, stride=stride, dilation=dilation, padding=padding)
        self.in_channels = check_positive_int(name, "in_channels", in_channels)
        self.out_channels = check_positive_int(name, "out_channels", out_channels)
        self.kernel_size = CO.int_tuple(name, "kernel_size", kernel_size, n)
        self.stride = CO.int_tuple(name, "stride", stride, n)
        self.dilation = CO.int_tuple(name, "dilation", dilation, n)
        self.pad_mode = CO.check_pad_mode(name, pad_mode)
        CO.check_no_padding(name, self.pad_mode, padding)
        self._padding_arg = padding
        # `padding` as MindSpore keeps it (as given); `_pads` what construct uses
        self.padding = padding
        if n == 3:
            self._pads = C3.padding6(name, padding)
        elif n == 2:
            self._pads = CO.padding4(name, padding, allow_pair=False)
        else:
            self._pads = CO.pad1d(name, "pad", padding, 0, 0, 0, 0)
        self.group = check_positive_int(name, "group", group)
        if self.in_channels % self.group:
            raise ValueError(f"For '{name}', the 'in_channels' must be divisible by 'group', but "
                             f"got 'in_channels': {in_channels} and 'group': {group}.")
        if self.out_channels % self.group:
            raise ValueError(f"For '{name}', the 'out_channels' must be divisible by 'group', but "
                             f"got 'out_channels': {out_channels} and 'group': {group}.")
        self.has_bias = check_bool(name, "has_bias", has_bias)
        formats = ("NCDHW",) if n == 3 else ("NCHW", "NHWC") if n == 2 else ("NCHW",)
        if data_format not in formats:
            raise ValueError(f"For '{name}', the 'data_format' must be one of {list(formats)}, "
                             f"but got {data_format!r}.")
        self.data_format = data_format
        self._output_padding = CO.int_tuple(name, "output_padding", output_padding, n, minimum=0)
        self.weight_init, self.bias_init = weight_init, bias_init
        if self.transposed:
            wshape = (self.in_channels, self.out_channels // self.group) + self.kernel_size
            fan_in = self.out_channels // self.group * math.prod(self.kernel_size)
        else:
            wshape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
            fan_in = self.in_channels // self.group * math.prod(self.kernel_size)
        if data_format == "NHWC":
            wshape = (wshape[0],) + wshape[2:] + (wshape[1],)
        if n == 1:
            # MindSpore 2.10 stores 1-D kernels with a unit height axis: (out, in/group, 1, k)
            # (checked on the real package); checkpoints then load on both
            wshape = wshape[:2] + (1,) + wshape[2:]
        self.weight = _init_param(name, weight_init, wshape, dtype, fan_in, False, "weight")
        self.bias = None
        if has_bias:
            self.bias = _init_param(name, bias_init, (self.out_channels,), dtype, fan_in, True,
                                    "bias")

    def _check_x(self, x, rank, what):
        name = self.cls_name
        check_rank(name, None, x, (rank,), what)
        c = x.shape[-1] if self.data_format == "NHWC" else x.shape[1]
        if c != self.in_channels:
            raise ValueError(f"For '{name}', the input channels must equal in_channels="
                             f"{self.in_channels}, but got input shape {list(x.shape)}.")

    def extend_repr(self):
        def fmt(v):
            return v if not isinstance(v, tuple) or len(v) != 1 else v[0]
        s = (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
             f"kernel_size={fmt(self.kernel_size)}, stride={fmt(self.stride)}, "
             f"pad_mode={self.pad_mode}, padding={self._padding_arg}, "
             f"dilation={fmt(self.dilation)}, group={self.group}, has_bias={self.has_bias}, "
             f"weight_init={self.weight_init}, bias_init={self.bias_init}")
        if self.n_spatial >= 2:
            s += f", format={self.data_format}"
        return s


class Conv2d(_ConvNd):
    """2-D convolution layer, `mindspore.nn.Conv2d`.

    out = cross_correlation(x, weight) + bias, x (N, C_in, H, W), weight
    (C_out, C_in/group, kH, kW).

    Differences from `torch.nn.Conv2d`:
    - `pad_mode='same'` by default, and 'same' is TF-style: the odd extra padding goes on the
      bottom/right (PyTorch's padding='same' puts it top/left, and only allows stride 1).
      `pad_mode='pad'` with `padding` int or (top, bottom, left, right) pads explicitly;
      `padding` must be 0 in the other modes.
    - `has_bias=False` by default; `group=` instead of `groups=`.
    - Initialisation (MindSpore 2.0): weight 'normal' = N(0, 0.01^2), bias zeros. Passing
      `weight_init=None` / `bias_init=None` gives MindSpore >= 2.3's (and PyTorch's) uniform init.
    - `data_format='NHWC'` takes NHWC input and an (C_out, kH, kW, C_in/group) weight.
    """

    cls_name = "Conv2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", data_format="NCHW", dtype=mstype.float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype)

    def construct(self, x):
        self._check_x(x, 4, "(N, C, H, W)" if self.data_format == "NCHW" else "(N, H, W, C)")
        w = self.weight
        if self.data_format == "NHWC":
            x = F.transpose(x, (0, 3, 1, 2))
            w = F.transpose(w, (0, 3, 1, 2))
        pads = CO.resolve_pads(self.pad_mode, self._pads, x.shape[2:], self.kernel_size,
                               self.stride, self.dilation)
        out = CO.conv2d_core(self.cls_name, x, w, self.bias, self.stride, pads, self.dilation,
                             self.group)
        return F.transpose(out, (0, 2, 3, 1)) if self.data_format == "NHWC" else out


def _check_ints_1d(name, **args):
    """MindSpore 2.10's 1-D convolutions take ints only (a tuple raises TypeError)."""
    for arg, value in args.items():
        check_value_type(name, arg, value, (int,))


def _as_1d_attrs(cell):
    """kernel_size, stride, dilation as (1, k) and padding as (0, 0, p, p): MindSpore 2.10 runs
    1-D convolutions as 2-D ones and keeps those attributes."""
    (k,), (s,), (d,) = cell.kernel_size, cell.stride, cell.dilation
    cell.kernel_size, cell.stride, cell.dilation = (1, k), (1, s), (1, d)
    cell.padding = (0, 0) + tuple(cell._pads)


class Conv1d(_ConvNd):
    """1-D convolution layer, `mindspore.nn.Conv1d`: x (N, C_in, L), weight
    (C_out, C_in/group, 1, kernel_size) as MindSpore 2.10 stores it (torch's is
    (C_out, C_in/group, kernel_size): weight transfer adds the unit axis). Same pad modes and
    defaults as Conv2d ('same' by default, extra on the right; 'pad' with an int).
    `kernel_size`, `stride`, `padding` and `dilation` must be ints; the cell keeps them as
    (1, k), (1, s), (0, 0, p, p) and (1, d), as MindSpore does.
    """

    cls_name = "Conv1d"
    n_spatial = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", dtype=mstype.float32):
        _check_ints_1d(self.cls_name, kernel_size=kernel_size, stride=stride, padding=padding,
                       dilation=dilation)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype)
        _as_1d_attrs(self)

    def construct(self, x):
        self._check_x(x, 3, "(N, C, L)")
        (_, k), (_, s), (_, d) = self.kernel_size, self.stride, self.dilation
        pads = CO.pad1d(self.cls_name, self.pad_mode, self._pads, x.shape[2], k, s, d)
        out = CO.conv2d_core(self.cls_name, F.expand_dims(x, 2), self.weight,
                             self.bias, (1, s), (0, 0) + tuple(pads), (1, d), self.group)
        return F.squeeze(out, 2)


class Conv2dTranspose(_ConvNd):
    """2-D transposed convolution, `mindspore.nn.Conv2dTranspose` (the input-gradient of Conv2d).

    weight (C_in, C_out/group, kH, kW) as in PyTorch. Output size per pad mode:
    'same': H_in * stride; 'valid': H_in * stride + max(dilation*(k-1) + 1 - stride, 0);
    'pad': (H_in - 1) * stride - (top + bottom) + dilation*(k-1) + 1 + output_padding
    (PyTorch's formula; `padding` int or (top, bottom, left, right)). 'same' crops TF-style,
    the extra on the bottom/right. `padding` and `output_padding` are kept as given.
    """

    cls_name = "Conv2dTranspose"
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init="normal", bias_init="zeros", dtype=mstype.float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype,
                         output_padding)
        self.output_padding = output_padding
        if self.pad_mode != "pad" and any(self._output_padding):
            raise ValueError(f"For '{self.cls_name}', the 'output_padding' must be 0 when "
                             f"'pad_mode' is not 'pad', but got {output_padding!r}.")

    def construct(self, x):
        self._check_x(x, 4, "(N, C, H, W)")
        out_hw, pads = CO.transpose_geometry(self.pad_mode, self._pads, x.shape[2:],
                                             self.kernel_size, self.stride, self.dilation,
                                             self._output_padding)
        return CO.conv_transpose_core(self.cls_name, x, self.weight, self.bias, self.stride, pads,
                                      self.dilation, self.group, out_hw)


class Conv1dTranspose(_ConvNd):
    """1-D transposed convolution, `mindspore.nn.Conv1dTranspose`: weight
    (C_in, C_out/group, 1, kernel_size) as MindSpore 2.10 stores it; output sizes as
    Conv2dTranspose along L. Int arguments only; attributes kept as (1, k) ... like Conv1d."""

    cls_name = "Conv1dTranspose"
    n_spatial = 1
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", dtype=mstype.float32):
        _check_ints_1d(self.cls_name, kernel_size=kernel_size, stride=stride, padding=padding,
                       dilation=dilation)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", dtype)
        _as_1d_attrs(self)

    def construct(self, x):
        self._check_x(x, 3, "(N, C, L)")
        out_hw, pads = CO.transpose_geometry(self.pad_mode, (0, 0) + tuple(self._pads),
                                             (1, x.shape[2]), self.kernel_size, self.stride,
                                             self.dilation, (0, 0))
        out = CO.conv_transpose_core(self.cls_name, F.expand_dims(x, 2), self.weight, self.bias,
                                     self.stride, pads, self.dilation, self.group, out_hw)
        return F.squeeze(out, 2)


class Conv3d(_ConvNd):
    """3-D convolution layer, `mindspore.nn.Conv3d`: x (N, C_in, D, H, W), weight
    (C_out, C_in/group, kD, kH, kW) as in torch. Pad modes as Conv2d ('same' by default, TF-style
    per axis); 'pad' takes an int or (front, back, top, bottom, left, right). As in MindSpore
    2.10, `weight_init=None` / `bias_init=None` (the defaults) give HeUniform(sqrt 5) and
    U(+-1/sqrt(fan_in)), torch's own initialisation.

    Example:
        >>> conv = nn.Conv3d(2, 4, 3, pad_mode='pad', padding=1, has_bias=True)
    """

    cls_name = "Conv3d"
    n_spatial = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCDHW", dtype=mstype.float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype)

    def construct(self, x):
        self._check_x(x, 5, "(N, C, D, H, W)")
        pads = C3.resolve_pads3(self.pad_mode, self._pads, x.shape[2:], self.kernel_size,
                                self.stride, self.dilation)
        return C3.conv3d_core(self.cls_name, x, self.weight, self.bias, self.stride, pads,
                              self.dilation, self.group)


class Conv3dTranspose(_ConvNd):
    """3-D transposed convolution, `mindspore.nn.Conv3dTranspose`: weight
    (C_in, C_out/group, kD, kH, kW) as in torch; output sizes per axis as Conv2dTranspose, with
    `padding` int or (front, back, top, bottom, left, right) and `output_padding` an int or 3
    ints ('pad' mode only). MindSpore 2.10 refuses a depth dilation other than 1; so does this.
    """

    cls_name = "Conv3dTranspose"
    n_spatial = 3
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, dtype,
                         output_padding)
        if self.dilation[0] != 1:
            raise ValueError(f"For 'Conv3DTranspose', the depth of parameter 'dilation' must be 1, "
                             f"but got {self.dilation[0]}.")
        self.output_padding = self._output_padding
        if self.pad_mode != "pad" and any(self._output_padding):
            raise ValueError(f"For '{self.cls_name}', the 'output_padding' must be 0 when "
                             f"'pad_mode' is not 'pad', but got {output_padding!r}.")

    def construct(self, x):
        self._check_x(x, 5, "(N, C, D, H, W)")
        out_dhw, pads = C3.transpose_geometry3(self.pad_mode, self._pads, x.shape[2:],
                                               self.kernel_size, self.stride, self.dilation,
                                               self._output_padding)
        return C3.conv_transpose3d_core(self.cls_name, x, self.weight, self.bias, self.stride,
                                        pads, self.dilation, self.group, out_dhw)
