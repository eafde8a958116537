"""torchvision.utils.make_grid / save_image (bench stand-in; see the package docstring)."""
import math

import numpy as np
import torch


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0,
              **kwargs):
    """torchvision's layout: images (B, C, H, W) in rows of `nrow`, `padding` pixels of
    `pad_value` around each; one channel repeated to three; `normalize` maps value_range (or
    the tensor's min/max) to [0, 1]."""
    if isinstance(tensor, (list, tuple)):
        tensor = torch.stack(list(tensor))
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        tensor = tensor.unsqueeze(0) if tensor.size(0) in (1, 3) else tensor.unsqueeze(1)
    if tensor.size(1) == 1:
        tensor = torch.cat((tensor, tensor, tensor), 1)
    if normalize:
        tensor = tensor.clone()
        lo, hi = value_range if value_range is not None else (float(tensor.min()), float(tensor.max()))
        tensor = tensor.clamp(min=lo, max=hi).sub(lo).div(max(hi - lo, 1e-5))
    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    n = tensor.size(0)
    xmaps = min(nrow, n)
    ymaps = int(math.ceil(float(n) / xmaps))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    grid = tensor.new_full((tensor.size(1), height * ymaps + padding, width * xmaps + padding), pad_value)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= n:
                break
            grid[:, y * height + padding:(y + 1) * height, x * width + padding:(x + 1) * width] = tensor[k]
            k += 1
    return grid


def save_image(tensor, fp, *args, **kwargs):
    """Write the tensor's values (a bench has no PIL to encode an image)."""
    with open(fp, "wb") as f:
        np.save(f, tensor.detach().cpu().numpy())
