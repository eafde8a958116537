"""torchvision.transforms.functional (bench stand-in): crop and hflip on (H, W[, C]) arrays or
(..., H, W) tensors."""
import torch


def crop(img, top, left, height, width):
    if torch.is_tensor(img):
        return img[..., top:top + height, left:left + width]
    return img[top:top + height, left:left + width]


def hflip(img):
    return img.flip(-1) if torch.is_tensor(img) else img[:, ::-1].copy()
