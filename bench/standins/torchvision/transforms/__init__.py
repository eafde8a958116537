"""torchvision.transforms' Compose / ToTensor / Normalize / Lambda / Pad / RandomCrop /
RandomHorizontalFlip (bench stand-in; see the package docstring). Images are (H, W[, C]) uint8
arrays before ToTensor and (C, H, W) tensors after it."""
import numbers

import numpy as np
import torch

AUGMENT = True   # False: RandomCrop / RandomHorizontalFlip are deterministic (see the package docstring)


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    def __call__(self, pic):
        arr = np.asarray(pic)
        arr = arr[:, :, None] if arr.ndim == 2 else arr
        out = torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
        return out.to(torch.float32).div(255) if arr.dtype == np.uint8 else out


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean, self.std = mean, std

    def __call__(self, tensor):
        mean = torch.as_tensor(self.mean, dtype=tensor.dtype).view(-1, 1, 1)
        std = torch.as_tensor(self.std, dtype=tensor.dtype).view(-1, 1, 1)
        return (tensor - mean) / std


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


def _pad(img, padding, fill=0):
    p = (padding,) * 4 if isinstance(padding, numbers.Number) else tuple(padding)
    left, top, right, bottom = p if len(p) == 4 else (p[0], p[1], p[0], p[1])
    if torch.is_tensor(img):
        return torch.nn.functional.pad(img, (left, right, top, bottom), value=fill)
    width = ((top, bottom), (left, right)) + ((0, 0),) * (np.ndim(img) - 2)
    return np.pad(np.asarray(img), width, constant_values=fill)


class Pad:
    def __init__(self, padding, fill=0, padding_mode="constant"):
        self.padding, self.fill = padding, fill

    def __call__(self, img):
        return _pad(img, self.padding, self.fill)


class RandomCrop:
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size = (size, size) if isinstance(size, numbers.Number) else tuple(size)
        self.padding, self.fill = padding, fill

    def __call__(self, img):
        if self.padding is not None:
            img = _pad(img, self.padding, self.fill)
        h, w = (img.shape[-2:] if torch.is_tensor(img) else np.shape(img)[:2])
        th, tw = self.size
        if AUGMENT:
            i = int(torch.randint(0, h - th + 1, size=(1,)))
            j = int(torch.randint(0, w - tw + 1, size=(1,)))
        else:
            i, j = (h - th) // 2, (w - tw) // 2
        return img[..., i:i + th, j:j + tw] if torch.is_tensor(img) else img[i:i + th, j:j + tw]


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if AUGMENT and torch.rand(1) < self.p:
            return img.flip(-1) if torch.is_tensor(img) else np.ascontiguousarray(img[:, ::-1])
        return img


class RandomRotation:
    """The identity when AUGMENT is False (rows whose sides cannot draw alike); no rotation is
    implemented here."""

    def __init__(self, degrees, *args, **kwargs):
        self.degrees = degrees

    def __call__(self, img):
        if AUGMENT:
            raise NotImplementedError("the bench stand-in rotates nothing: run the row with augment=False")
        return img


class Resize:
    """The identity on an image of the requested size (the recipes' images already have it)."""

    def __init__(self, size, *args, **kwargs):
        self.size = size

    def __call__(self, img):
        h, w = (img.shape[-2:] if torch.is_tensor(img) else np.shape(img)[:2])
        want = (self.size, self.size) if isinstance(self.size, numbers.Number) else tuple(self.size)
        if (h, w) != want and not (isinstance(self.size, numbers.Number) and min(h, w) == self.size):
            raise NotImplementedError(f"the bench stand-in resizes nothing: {h}x{w} -> {self.size}")
        return img
