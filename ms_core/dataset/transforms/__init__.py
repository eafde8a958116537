"""`ms_core.dataset.transforms`: general data transforms for `dataset.map`, as
`mindspore.dataset.transforms` (the ones a converted training script needs)."""
import numpy as np

from ...common import dtype as mstype

__all__ = ["TypeCast", "Compose", "OneHot", "Fill", "Concatenate", "PadEnd"]


def _np_dtype(data_type):
    try:
        return mstype.to_np(data_type) if not isinstance(data_type, np.dtype) else data_type
    except Exception:
        raise TypeError(f"Argument data_type with value {data_type!r} is not of type "
                        f"[<class 'mindspore._c_expression.typing.Type'>, <class 'numpy.dtype'>], "
                        f"but got {type(data_type)}.") from None


class TypeCast:
    """Cast a column to `data_type` (a MindSpore dtype such as `ms.int32`, or a NumPy dtype).

    Example:
        >>> dataset = dataset.map(TypeCast(ms.int32), input_columns="label")
    """

    def __init__(self, data_type):
        self.data_type = data_type
        self._np = _np_dtype(data_type)

    def __call__(self, x):
        return np.asarray(x).astype(self._np)


class Compose:
    """Apply `transforms` in order (each output feeds the next).

    Raises:
        ValueError: an empty list. TypeError: a transform is not callable.
    """

    def __init__(self, transforms):
        if not isinstance(transforms, list) or not transforms:
            raise ValueError("transforms should be a non-empty list of callables.")
        for t in transforms:
            if not callable(t):
                raise TypeError(f"transforms[{transforms.index(t)}] is not callable.")
        self.transforms = transforms

    def __call__(self, *args):
        for t in self.transforms:
            out = t(*args)
            args = tuple(out) if isinstance(out, tuple) else (out,)
        return args[0] if len(args) == 1 else args


class OneHot:
    """One-hot encode integer labels into `num_classes` columns (optionally smoothed).

    Args:
        num_classes (int): number of classes.
        smoothing_rate (float): label smoothing in [0, 1]. Default 0.
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"Input num_classes is not within the required interval of "
                             f"[1, 2147483647], got {num_classes!r}.")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError("Input smoothing_rate is not within the required interval of [0.0, 1.0].")
        self.num_classes, self.smoothing_rate = num_classes, smoothing_rate

    def __call__(self, label):
        label = np.asarray(label)
        dtype = label.dtype if self.smoothing_rate == 0 else np.float32
        out = np.eye(self.num_classes, dtype=dtype)[label]
        if self.smoothing_rate:
            out = out * (1 - self.smoothing_rate) + self.smoothing_rate / self.num_classes
        return out


class Fill:
    """Replace every element with `fill_value` (keeping shape and dtype)."""

    def __init__(self, fill_value):
        self.fill_value = fill_value

    def __call__(self, x):
        x = np.asarray(x)
        return np.full_like(x, self.fill_value)


class Concatenate:
    """Concatenate a 1-D column with optional `prepend` / `append` arrays along `axis`."""

    def __init__(self, axis=0, prepend=None, append=None):
        self.axis, self.prepend, self.append = axis, prepend, append

    def __call__(self, x):
        parts = [p for p in (self.prepend, np.asarray(x), self.append) if p is not None]
        return np.concatenate(parts, axis=self.axis)


class PadEnd:
    """Pad a column at its end up to `pad_shape` with `pad_value`."""

    def __init__(self, pad_shape, pad_value=None):
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def __call__(self, x):
        x = np.asarray(x)
        widths = [(0, max(0, t - s)) for s, t in zip(x.shape, self.pad_shape)]
        out = np.pad(x, widths, constant_values=0 if self.pad_value is None else self.pad_value)
        return out[tuple(slice(0, t) for t in self.pad_shape)]
