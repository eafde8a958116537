"""Geometric image transforms with MindSpore 2.10's semantics (checked on MindSpore 2.10):

- `Inter`: the interpolation modes (mindspore.dataset.vision.Inter).
- `RandomRotation(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)`: an
  (H, W[, C]) image rotated counter-clockwise by an angle drawn uniformly from `degrees` (a
  number d: [-d, d]) about `center` (x, y) in pixel indices (None: the image's centre,
  ((W - 1) / 2, (H - 1) / 2)); pixels from outside the image are `fill_value` (a 3-tuple
  is written into the channels in reverse order, as MindSpore 2.10 does). Nearest
  neighbour as MindSpore's kernel computes it (OpenCV's warpAffine): the inverse map's
  coefficients in fixed point with 10 fractional bits, the source index rounded half up.
  This is torchvision's geometry too (its `center` is MindSpore's plus 0.5: pixel centres at
  i + 0.5); a coordinate exactly halfway between two pixels goes up here, to even in torch.
"""
import enum
import math
import numbers

import numpy as np

from ..._checkparam import check_dataset_type
from ..samplers import _new_rng

__all__ = ["Inter", "RandomRotation"]

_AB_BITS = 10  # OpenCV's fixed-point precision of an affine map's coordinates
_AB_SCALE = 1 << _AB_BITS


class Inter(str, enum.Enum):
    """Interpolation modes (mindspore.dataset.vision.Inter)."""

    NEAREST = "nearest"
    BILINEAR = "bilinear"
    LINEAR = "linear"
    BICUBIC = "bicubic"
    CUBIC = "cubic"
    AREA = "area"
    PILCUBIC = "pilcubic"
    ANTIALIAS = "antialias"


def _degrees(degrees):
    if isinstance(degrees, numbers.Number) and not isinstance(degrees, bool):
        if degrees < 0:
            raise ValueError(f"Input degrees is not within the required interval of [0, 16777216], but got {degrees}.")
        return -float(degrees), float(degrees)
    if isinstance(degrees, (list, tuple)) and len(degrees) == 2 and all(
            isinstance(d, numbers.Number) and not isinstance(d, bool) for d in degrees):
        if degrees[0] > degrees[1]:
            raise ValueError(f"degrees should be in (min,max) format. Got (max,min), but got {list(degrees)}.")
        return float(degrees[0]), float(degrees[1])
    raise TypeError(f"degrees must be either a single value or a list/tuple of 2 values, but got {degrees!r}.")


def _inverse_map(angle, cx, cy):
    """The 2x3 map from output to source pixel indices of a rotation by `angle` degrees about
    (cx, cy): OpenCV's getRotationMatrix2D inverted (invertAffineTransform)."""
    a, b = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    forward = np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])
    det = forward[0, 0] * forward[1, 1] - forward[0, 1] * forward[1, 0]
    inv = np.array([[forward[1, 1], -forward[0, 1]], [-forward[1, 0], forward[0, 0]]]) / det
    shift = -inv @ forward[:, 2]
    return np.concatenate([inv, shift[:, None]], 1)


def _nearest_sources(m, h, w):
    """Source (row, col) of every output pixel, OpenCV's fixed-point nearest rounding."""
    def fixed(v):
        return np.rint(v * _AB_SCALE).astype(np.int64)   # saturate_cast<int>: to nearest
    xs, ys = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)[:, None]
    half = _AB_SCALE // 2
    col = (fixed(m[0, 0] * xs)[None, :] + fixed(m[0, 1] * ys + m[0, 2]) + half) >> _AB_BITS
    row = (fixed(m[1, 0] * xs)[None, :] + fixed(m[1, 1] * ys + m[1, 2]) + half) >> _AB_BITS
    return row, col


class RandomRotation:
    """Rotate an (H, W[, C]) image by a random angle (see the module's docstring).

    Raises:
        TypeError / ValueError: bad degrees, center or fill_value (MindSpore's messages).
        NotImplementedError: `expand=True` or an interpolation other than NEAREST (ms_core computes
            MindSpore's nearest-neighbour rotation only).
    """

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        self.degrees = _degrees(degrees)
        self.resample = Inter(resample)
        check_dataset_type("expand", expand, (bool,))
        if center is not None and not (isinstance(center, (list, tuple)) and len(center) == 2):
            raise TypeError(f"center must be a tuple of 2 values (x, y), but got {center!r}.")
        if isinstance(fill_value, numbers.Integral) and not isinstance(fill_value, bool):
            fill_value = (int(fill_value),) * 3
        if not (isinstance(fill_value, tuple) and len(fill_value) == 3 and all(0 <= v <= 255 for v in fill_value)):
            raise TypeError(f"fill_value should be a single integer or a 3-tuple in [0, 255], but got {fill_value!r}.")
        if self.resample is not Inter.NEAREST or expand:
            raise NotImplementedError(f"RandomRotation: ms_core rotates with Inter.NEAREST and expand=False "
                                      f"only, but got resample={self.resample.name}, expand={expand}.")
        self.expand, self.center, self.fill_value = expand, center, fill_value
        self._generator = None

    def angle(self):
        """This call's angle in degrees (uniform over `degrees`)."""
        if self._generator is None:
            self._generator = _new_rng()
        lo, hi = self.degrees
        return float(self._generator.uniform(lo, hi)) if hi > lo else lo

    def __call__(self, img):
        img = np.asarray(img)
        if img.ndim not in (2, 3):
            raise RuntimeError(f"RandomRotation: image shape should be <H,W,C> or <H,W>, but got rank {img.ndim}.")
        h, w = img.shape[:2]
        cx, cy = ((w - 1) / 2, (h - 1) / 2) if self.center is None else (float(self.center[0]), float(self.center[1]))
        row, col = _nearest_sources(_inverse_map(self.angle(), cx, cy), h, w)
        inside = (row >= 0) & (row < h) & (col >= 0) & (col < w)
        out = img[np.clip(row, 0, h - 1), np.clip(col, 0, w - 1)]
        # MindSpore 2.10 writes a 3-tuple fill_value into the channels in reverse order (OpenCV's
        # BGR): (3, 5, 9) fills channel 0 with 9
        fill = np.asarray(self.fill_value[::-1][:img.shape[2]] if img.ndim == 3 else self.fill_value[0], img.dtype)
        return np.where(inside[..., None] if img.ndim == 3 else inside, out, fill)
