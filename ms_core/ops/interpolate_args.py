"""The arguments of `ops.interpolate` as MindSpore 2.10 checks them, in its order and messages.

MindSpore takes `size` as Python ints and `scale_factor` as Python floats (an int scale, a bool or a
NumPy float32 is a TypeError); a scale factor on 3-D and 4-D input only with
`recompute_scale_factor=True` (the output size floor(in * s) then defines the sampling), except in
mode 'area'; `align_corners` only in the linear modes; each mode on the ranks it names.
"""
import math

from .._checkparam import check_bool
from ..common.tensor import Tensor

NAME = "interpolate"

# mode -> {input rank: the options MindSpore 2.10 takes there besides size}
SUPPORTED = {
    "nearest": {3: (), 4: (), 5: ("scale_factor",)},
    "linear": {3: ("align_corners",)},
    "bilinear": {4: ("align_corners",)},
    "bicubic": {4: ("align_corners",)},
    "area": {3: ("scale_factor",), 4: ("scale_factor",), 5: ("scale_factor",)},
    "nearest-exact": {3: (), 4: ()},
    "trilinear": {5: ("align_corners", "scale_factor")},
}


def _positive(arg, value, kind):
    """A positive `kind` (int or float, bool excluded), with MindSpore's messages."""
    subject = f"For '{NAME}', the '{arg}'"
    if not isinstance(value, kind):
        raise TypeError(f"{subject} must be {kind.__name__}, but got '{type(value).__name__}'")
    if math.isinf(value) or math.isnan(value):
        raise ValueError(f"{subject} must be a legal value, but got '{value}'.")
    if isinstance(value, bool) or not value > 0:
        message = (f"{subject} must be {kind.__name__} and must > 0, but got '{value}' with type "
                   f"'{type(value).__name__}'.")
        raise (TypeError if isinstance(value, bool) else ValueError)(message)
    return value


def _per_axis(arg, value, kind, spatial):
    """One value per spatial axis: a sequence checked element by element, or one value repeated."""
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _positive(f"{arg}[{i}]", v, kind)
        if len(value) != spatial:
            raise ValueError(f"For '{NAME}', 'input' and '{arg}' must have the same spatial "
                             f"dimensions, but got 'input' is {spatial}D, '{arg}' is "
                             f"{len(value)}D")
        return tuple(value)
    return (_positive(arg, value, kind),) * spatial


def check(input, size, scale_factor, mode, align_corners, recompute_scale_factor):
    """Check the arguments as MindSpore 2.10 does.

    Returns:
        (sizes, factors, align_corners): the output size per spatial axis, the scale factors the
        sampling uses (None when the sizes define it: `size` given, or recomputed) and a bool.

    Raises:
        TypeError, ValueError: with MindSpore's messages, in its order.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{NAME}', 'input' must be a tensor, but got {type(input)}")
    rank = input.ndim
    if size is not None and scale_factor is not None:
        raise ValueError(f"For '{NAME}', 'size' and 'scale_factor' cannot be set simultaneously")
    if size is None and scale_factor is None:
        raise ValueError(f"For '{NAME}', 'size' and 'scale_factor' cannot be both empty")
    sizes = None if size is None else _per_axis("size", size, int, rank - 2)
    factors = None if scale_factor is None else _per_axis("scale_factor", scale_factor, float,
                                                          rank - 2)
    if isinstance(mode, list) or mode not in SUPPORTED:
        raise ValueError(f"For '{NAME}', 'mode' must be in '{list(SUPPORTED)}', but got {mode}")
    if rank not in SUPPORTED[mode]:
        raise ValueError(f"For '{NAME}', {mode} only support '{list(SUPPORTED[mode])}'D, but got "
                         f"{rank}D")
    if mode == "area" and sizes is None:
        recompute_scale_factor = True  # area pools to an output size
    if recompute_scale_factor:
        check_bool(NAME, "recompute_scale_factor", recompute_scale_factor)
        if sizes is not None:
            raise ValueError(f"For '{NAME}', it is incorrect to set 'recompute_scale_factor' to "
                             f"True after specifying an explicit 'size'.")
        sizes = tuple(int(math.floor(n * f)) for n, f in zip(input.shape[2:], factors))
        factors = None
    elif factors is not None and "scale_factor" not in SUPPORTED[mode][rank]:
        raise ValueError(f"For '{NAME}', 'scale_factor' option cannot currently be set with the "
                         f"mode = {mode} and dim = {rank}D.")
    else:
        sizes = sizes or tuple(int(math.floor(n * f)) for n, f in zip(input.shape[2:], factors))
    if align_corners is not None:
        check_bool(NAME, "align_corners", align_corners)
        if "align_corners" not in SUPPORTED[mode][rank]:
            raise ValueError(f"For '{NAME}', 'align_corners' option cannot currently be set with "
                             f"the mode = {mode}, and dim = {rank}D")
    if min(sizes) < 1:
        raise ValueError(f"For '{NAME}', the 'scale_factor' {scale_factor!r} gives an empty output "
                         f"for input size {list(input.shape[2:])}.")
    return sizes, factors, bool(align_corners)
