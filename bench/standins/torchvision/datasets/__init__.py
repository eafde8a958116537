"""torchvision.datasets' MNIST / FashionMNIST / CIFAR10 / CIFAR100 data paths (bench stand-in; see the
package docstring)."""
import os
import pickle

import numpy as np
import torch


def _idx(path):
    data = open(path, "rb").read()
    rank = data[3]
    dims = np.frombuffer(data[4:4 + 4 * rank], ">u4").astype(int)
    return np.frombuffer(data, np.uint8, offset=4 + 4 * rank).reshape(dims)


class MNIST(torch.utils.data.Dataset):
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        folder = os.path.join(os.path.expanduser(str(root)), type(self).__name__, "raw")
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


class FashionMNIST(MNIST):
    pass


class CIFAR10(torch.utils.data.Dataset):
    base_folder = "cifar-10-batches-py"
    train_list = [f"data_batch_{i}" for i in range(1, 6)]
    test_list = ["test_batch"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        folder = os.path.join(os.path.expanduser(str(root)), self.base_folder)
        names = self.train_list if train else self.test_list
        if not all(os.path.isfile(os.path.join(folder, n)) for n in names):
            raise RuntimeError("Dataset not found or corrupted (the bench stand-in downloads nothing).")
        data, targets = [], []
        for n in names:
            with open(os.path.join(folder, n), "rb") as f:
                entry = pickle.load(f, encoding="latin1")
            data.append(entry["data"])
            targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        self.targets = targets
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class CIFAR100(CIFAR10):
    """The python pickles of root/cifar-100-python (train, test), fine labels."""
    base_folder = "cifar-100-python"
    train_list = ["train"]
    test_list = ["test"]
