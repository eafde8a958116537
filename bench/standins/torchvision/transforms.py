"""torchvision.transforms' Compose / ToTensor / Normalize (bench stand-in; see the package docstring)."""
import numpy as np
import torch


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
