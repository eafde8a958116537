"""Padding layers: ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
Pad (MindSpore's nn.Pad, which lives in mindspore/nn/layer/basic.py).

Padding tuples follow torch / MindSpore's `ops.pad` order: (left, right) pairs starting from the
LAST axis, e.g. ConstantPad2d((left, right, top, bottom), value). `nn.Pad` is the exception:
`paddings` is a tuple of (before, after) pairs for every axis, starting from the FIRST axis.

Non-constant modes are index gathers (`F.gather` along each padded axis), so their gradient is the
scatter-add of the gather: a source element copied into the padding receives the sum of the
gradients of all its copies, as in torch. They run `ops.functional._pad_by_index`, which
`ops.pad` uses for mode='reflect' / 'replicate' / 'circular' too.
"""
from ..cell import Cell
from ..._checkparam import check_tensor
from ...ops import functional as F

__all__ = ["ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "Pad"]


def _expand(name, padding, nd):
    """An int becomes (p,) * 2nd; a tuple is checked (even length, ints)."""
    if isinstance(padding, bool):
        raise TypeError(f"For '{name}', the type of parameter 'padding' must be in [int, tuple], "
                        f"but got {type(padding)}")
    if isinstance(padding, int):
        return (padding,) * (2 * nd)
    if not isinstance(padding, tuple):  # a list too, as MindSpore 2.10 refuses it
        raise TypeError(f"For '{name}', the type of parameter 'padding' must be in [int, tuple], "
                        f"but got {type(padding)}")
    if len(padding) % 2 != 0:
        raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must be "
                         f"a multiple of 2, but got {len(padding)}")
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in padding):
        raise TypeError(f"For '{name}', every element in 'padding' must be integer, but got "
                        f"{padding}.")
    if len(padding) > 2 * nd:
        raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must "
                         f"be no more than {2 * nd}, but got {len(padding)}")
    return padding


class _ConstantPadNd(Cell):
    _nd = 1

    def __init__(self, padding, value):
        super().__init__()
        name = type(self).__name__
        self.padding = _expand(name, padding, self._nd)
        if name == "ConstantPad1d" and len(self.padding) != 2:
            raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type "
                             f"must equal to 2.but got {len(self.padding)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{name}', the type of parameter 'value' must be in [int, float], "
                            f"but got {type(value)}")
        self.value = value

    def construct(self, x):
        check_tensor(type(self).__name__, None, x)
        if len(self.padding) // 2 > x.ndim:
            raise ValueError(f"For '{type(self).__name__}', the padding {self.padding} pads more "
                             f"dimensions than the input has ({x.ndim}).")
        return F.pad(x, self.padding, mode="constant", value=self.value)

    def extend_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last axis with `value`: padding int or (left, right)."""
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two axes with `value`: padding int or (left, right, top, bottom)."""
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three axes with `value`: padding int or (left, right, top, bottom, front, back)."""
    _nd = 3


class ZeroPad2d(ConstantPad2d):
    """ConstantPad2d with value 0 (MindSpore: `ZeroPad2d(padding)`)."""

    def __init__(self, padding):
        super().__init__(padding, 0)

    def extend_repr(self):
        return f"padding={self.padding}"


class _IndexPadNd(Cell):
    _nd = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, bool) or not isinstance(padding, (int, tuple)):
            raise TypeError(f"For '{name}' the input 'padding' must be an integer or tuple, "
                            f"but got {type(padding).__name__}")
        self.padding = _expand(name, padding, self._nd)
        if not all(p >= 0 for p in self.padding):
            raise ValueError(f"For '{name}' every element in 'padding' must be >= 0. "
                             f"but got {self.padding}. ")

    def construct(self, x):
        name = type(self).__name__
        if self._mode == "reflect":
            # MindSpore's MirrorPad pads the last axes of an input of any rank
            check_tensor(name, None, x)
            if len(self.padding) // 2 > x.ndim:
                raise ValueError(f"For padding with length {len(self.padding)}, the dimension "
                                 f"of the tensor should be at least {len(self.padding) // 2}, "
                                 f"but got {x.ndim}")
        else:
            check_tensor(name, None, x)
            if x.ndim not in (self._nd + 1, self._nd + 2):
                raise ValueError(f"For '{name}', the in_shape must have {self._nd + 1} or "
                                 f"{self._nd + 2} dims, but got {x.ndim}.")
        return F._pad_by_index(x, self.padding, self._mode, name)

    def extend_repr(self):
        return f"padding={self.padding}"


class ReflectionPad1d(_IndexPadNd):
    """Reflect (without repeating the edge) the last axis: padding int or (left, right), each <
    the axis size. Documented for 2D/3D input; MindSpore (and ms_core) accept any rank."""
    _nd, _mode = 1, "reflect"


class ReflectionPad2d(_IndexPadNd):
    """Reflection padding of the last two axes of a 3D/4D input: (left, right, top, bottom)."""
    _nd, _mode = 2, "reflect"


class ReflectionPad3d(_IndexPadNd):
    """Reflection padding of the last three axes of a 4D/5D input."""
    _nd, _mode = 3, "reflect"


class ReplicationPad1d(_IndexPadNd):
    """Repeat the edge values of the last axis of a 2D/3D input: padding int or (left, right)."""
    _nd, _mode = 1, "replicate"


class ReplicationPad2d(_IndexPadNd):
    """Edge replication of the last two axes of a 3D/4D input: (left, right, top, bottom)."""
    _nd, _mode = 2, "replicate"


class ReplicationPad3d(_IndexPadNd):
    """Edge replication of the last three axes of a 4D/5D input."""
    _nd, _mode = 3, "replicate"


class Pad(Cell):
    """MindSpore's `nn.Pad(paddings, mode='CONSTANT')`: `paddings` is a tuple of (before, after)
    pairs, one per axis FROM THE FIRST AXIS (unlike ops.pad / torch's F.pad, which start from the
    last); mode 'CONSTANT' (zeros), 'REFLECT' (edge not repeated) or 'SYMMETRIC' (edge repeated).
    At most 4 pairs, as MindSpore. The input must have len(paddings) axes."""

    _MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in self._MODES:
            raise ValueError(f"For 'Pad', the 'mode' should be in {list(self._MODES)}, but got "
                             f"{mode!r}.")
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got "
                            f"{type(paddings).__name__}.")
        for item in paddings:
            if len(item) != 2:
                raise ValueError(f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got "
                                 f"{paddings}.")
        if len(paddings) > 4:
            raise ValueError(f"For 'Pad', only 'paddings' up to 4 dims is supported, but got "
                             f"{len(paddings)}.")
        self.mode = mode
        self.paddings = paddings

    def construct(self, x):
        check_tensor("Pad", None, x)
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', the length of 'paddings' must equal the rank of the "
                             f"input {x.ndim}, but got {len(self.paddings)}.")
        flat = []
        for before, after in reversed(self.paddings):
            flat += [int(before), int(after)]
        if self.mode == "CONSTANT":
            return F.pad(x, flat, mode="constant", value=0)
        return F._pad_by_index(x, flat, self.mode.lower(), "Pad")

    def extend_repr(self):
        return f"paddings={self.paddings}, mode={self.mode}"
