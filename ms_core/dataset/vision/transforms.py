"""Image transforms on NumPy arrays with MindSpore 2.10's semantics (checked on MindSpore 2.10):

- `ToTensor()`: an (H, W, C) or (H, W) image -> (C, H, W) `output_type` (float32), divided by
  255 whatever the input dtype (torchvision divides uint8 images only).
- `Normalize(mean, std, is_hwc=True)`: (image - mean) / std per channel, in float32; one mean and
  std broadcast over every channel; `is_hwc=False` for (C, H, W) images (after ToTensor).
- `HWC2CHW()`: transpose (H, W, C) -> (C, H, W).
- `Pad(padding, fill_value=0, padding_mode=Border.CONSTANT)`: padding an int (every side), two
  values (left/right, top/bottom) or four (left, top, right, bottom), as torchvision's.
- `RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=...)`: pad, then
  a crop of `size` at a uniformly drawn offset; `RandomHorizontalFlip(prob=0.5)`. Their draws
  come from the dataset seed (`ds.config.set_seed` / `ms.set_seed`).
"""
import enum
import numbers

import numpy as np

from ..._checkparam import check_dataset_type
from ..samplers import _new_rng

__all__ = ["HWC2CHW", "Border", "Normalize", "Pad", "RandomCrop", "RandomHorizontalFlip", "ToTensor"]


class Border(str, enum.Enum):
    """How `Pad` / `RandomCrop` fill the border (mindspore.dataset.vision.Border)."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def _padding(padding, name):
    """(left, top, right, bottom) from an int, two values or four."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        values = (int(padding),) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) in (2, 4):
        values = tuple(int(v) for v in padding)
        values = values * 2 if len(values) == 2 else values
    else:
        raise TypeError(f"{name}: padding should be an int or a sequence of 2 or 4 ints, but got {padding!r}.")
    if any(v < 0 for v in values):
        raise ValueError(f"{name}: padding should be non-negative, but got {padding!r}.")
    return values


def _pad(img, box, fill_value, padding_mode):
    left, top, right, bottom = box
    width = ((top, bottom), (left, right)) + ((0, 0),) * (img.ndim - 2)
    mode = Border(padding_mode).value
    if mode == "constant":
        return np.pad(img, width, mode="constant", constant_values=fill_value)
    return np.pad(img, width, mode=mode)


def _image(img, name, ranks=(2, 3)):
    img = np.asarray(img)
    if img.ndim not in ranks:
        raise RuntimeError(f"{name}: image shape should be <H,W,C> or <H,W>, but got rank "
                           f"{img.ndim}.")
    return img


class ToTensor:
    """Convert an (H, W, C) image in [0, 255] into a (C, H, W) array in [0, 1].

    Args:
        output_type (numpy dtype): the output's dtype. Default numpy.float32.

    Raises:
        RuntimeError: the image is not 2-D or 3-D.

    Example:
        >>> ToTensor()(np.zeros((28, 28, 1), np.uint8)).shape
        (1, 28, 28)
    """

    def __init__(self, output_type=np.float32):
        self.output_type = np.dtype(output_type)

    def __call__(self, img):
        img = _image(img, "ToTensor")
        if img.ndim == 2:
            img = img[:, :, None]
        out = img.transpose(2, 0, 1).astype(self.output_type) / self.output_type.type(255)
        return out.astype(self.output_type)


def _check_mean_std(mean, std):
    check_dataset_type("mean", mean, (list, tuple))
    check_dataset_type("std", std, (list, tuple))
    if len(mean) != len(std):
        raise ValueError("Length of mean and std must be equal.")
    for name, values, low_open in (("mean", mean, False), ("std", std, True)):
        for i, v in enumerate(values):
            check_dataset_type(f"{name}[{i}]", v, (int, float))
            if (v <= 0 if low_open else v < 0) or v > 255:
                interval = "(0, 255]" if low_open else "[0, 255]"
                raise ValueError(f"Input {name}[{i}] is not within the required interval of "
                                 f"{interval}.")


class Normalize:
    """Normalize an image per channel: (image - mean) / std, in float32.

    Args:
        mean (list or tuple): one value per channel, or one for all.
        std (list or tuple): as `mean`, each in (0, 255].
        is_hwc (bool): channels last (True, the default) or first (False, after ToTensor).

    Raises:
        TypeError: mean or std is not a list or tuple.
        ValueError: their lengths differ; a std out of (0, 255].

    Example:
        >>> Normalize([0.5], [0.5], is_hwc=False)(np.ones((1, 2, 2), np.float32))[0, 0, 0]
        1.0
    """

    def __init__(self, mean, std, is_hwc=True):
        _check_mean_std(mean, std)
        check_dataset_type("is_hwc", is_hwc, (bool,))
        self.mean, self.std, self.is_hwc = list(mean), list(std), is_hwc

    def __call__(self, img):
        img = _image(img, "Normalize").astype(np.float32)
        channels = img.shape[-1] if self.is_hwc else (img.shape[0] if img.ndim == 3 else 1)
        if len(self.mean) not in (1, channels):
            raise RuntimeError(f"Normalize: number of channels does not match the size of mean and "
                               f"std vectors, got channels: {channels}, size of mean: "
                               f"{len(self.mean)}.")
        shape = (-1,) if self.is_hwc or img.ndim == 2 else (-1, 1, 1)
        mean = np.asarray(self.mean, np.float32).reshape(shape)
        std = np.asarray(self.std, np.float32).reshape(shape)
        return ((img - mean) / std).astype(np.float32)


class HWC2CHW:
    """Transpose an (H, W, C) image to (C, H, W) ((H, W) gains a channel axis first)."""

    def __call__(self, img):
        img = _image(img, "HWC2CHW")
        return img[None] if img.ndim == 2 else img.transpose(2, 0, 1)


class Pad:
    """Pad an (H, W[, C]) image.

    Args:
        padding (int or sequence): every side; (left/right, top/bottom); or (left, top, right, bottom).
        fill_value (int): the value of a constant border. Default 0.
        padding_mode (Border): CONSTANT (default), EDGE, REFLECT or SYMMETRIC.

    Raises:
        TypeError / ValueError: a padding that is not 1, 2 or 4 non-negative ints.

    Example:
        >>> Pad((1, 2))(np.zeros((5, 6, 3), np.uint8)).shape
        (9, 8, 3)
    """

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.box = _padding(padding, "Pad")
        self.fill_value, self.padding_mode = fill_value, Border(padding_mode)

    def __call__(self, img):
        return _pad(_image(img, "Pad"), self.box, self.fill_value, self.padding_mode)


def _rng():
    return _new_rng()


class RandomCrop:
    """Crop an (H, W[, C]) image at a random place, after padding it.

    Args:
        size (int or sequence): the crop's (height, width); an int for a square.
        padding (int or sequence): as `Pad`; None for none.
        pad_if_needed (bool): pad a smaller image up to `size` (both sides by the difference).
        fill_value (int), padding_mode (Border): as `Pad`.

    Raises:
        RuntimeError: the (padded) image is smaller than `size`.
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = (int(size), int(size)) if isinstance(size, numbers.Integral) else tuple(int(v) for v in size)
        self.box = None if padding is None else _padding(padding, "RandomCrop")
        check_dataset_type("pad_if_needed", pad_if_needed, (bool,))
        self.pad_if_needed, self.fill_value, self.padding_mode = pad_if_needed, fill_value, Border(padding_mode)
        self._generator = None

    def offset(self, h, w):
        """The crop's top-left corner in an (h, w) image (uniform)."""
        if self._generator is None:
            self._generator = _rng()
        th, tw = self.size
        return int(self._generator.integers(0, h - th + 1)), int(self._generator.integers(0, w - tw + 1))

    def __call__(self, img):
        img = _image(img, "RandomCrop")
        if self.box is not None:
            img = _pad(img, self.box, self.fill_value, self.padding_mode)
        th, tw = self.size
        if self.pad_if_needed and (img.shape[0] < th or img.shape[1] < tw):
            dh, dw = max(th - img.shape[0], 0), max(tw - img.shape[1], 0)
            img = _pad(img, (dw, dh, dw, dh), self.fill_value, self.padding_mode)
        if img.shape[0] < th or img.shape[1] < tw:
            raise RuntimeError(f"RandomCrop: crop size {list(self.size)} is larger than the image "
                               f"{list(img.shape[:2])}; set padding or pad_if_needed.")
        i, j = self.offset(img.shape[0], img.shape[1])
        return img[i:i + th, j:j + tw]


class RandomHorizontalFlip:
    """Flip an (H, W[, C]) image left-right with probability `prob`.

    Raises:
        ValueError: prob outside [0, 1].
    """

    def __init__(self, prob=0.5):
        check_dataset_type("prob", prob, (int, float))
        if not 0 <= prob <= 1:
            raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
        self.prob = float(prob)
        self._generator = None

    def flips(self):
        """Whether this call flips."""
        if self._generator is None:
            self._generator = _rng()
        return bool(self._generator.random() < self.prob)

    def __call__(self, img):
        img = _image(img, "RandomHorizontalFlip")
        return np.ascontiguousarray(img[:, ::-1]) if self.flips() else img
