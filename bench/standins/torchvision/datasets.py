"""torchvision.datasets.MNIST's data path (bench stand-in; see the package docstring)."""
import os

import numpy as np
import torch


def _idx(path):
    data = open(path, "rb").read()
    rank = data[3]
    dims = np.frombuffer(data[4:4 + 4 * rank], ">u4").astype(int)
    return np.frombuffer(data, np.uint8, offset=4 + 4 * rank).reshape(dims)


class MNIST(torch.utils.data.Dataset):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        folder = os.path.join(os.path.expanduser(str(root)), "MNIST", "raw")
        prefix = "train" if train else "t10k"
        images = os.path.join(folder, f"{prefix}-images-idx3-ubyte")
        if not os.path.isfile(images):
            raise RuntimeError("Dataset not found (the bench stand-in downloads nothing).")
        self.data = torch.from_numpy(_idx(images).copy())
        self.targets = torch.from_numpy(_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte")).astype(np.int64))
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index].numpy(), int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
