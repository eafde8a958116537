"""Image transforms on NumPy arrays with MindSpore 2.10's semantics (checked on MindSpore 2.10):

- `ToTensor()`: an (H, W, C) or (H, W) image -> (C, H, W) `output_type` (float32), divided by
  255 whatever the input dtype (torchvision divides uint8 images only).
- `Normalize(mean, std, is_hwc=True)`: (image - mean) / std per channel, in float32; one mean and
  std broadcast over every channel; `is_hwc=False` for (C, H, W) images (after ToTensor).
- `HWC2CHW()`: transpose (H, W, C) -> (C, H, W).
"""
import numpy as np

from ..._checkparam import check_dataset_type

__all__ = ["ToTensor", "Normalize", "HWC2CHW"]


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
