"""Vision datasets read from their files, as `mindspore.dataset`'s (checked on MindSpore 2.10):

- `MnistDataset(dataset_dir, usage)` (and `FashionMnistDataset`, `KMnistDataset`, the same idx
  format): reads `train-images-idx3-ubyte` / `train-labels-idx1-ubyte` (usage 'train') and
  `t10k-...` ('test') from `dataset_dir` itself; 'all' (the default) is test then train.
  Columns `image` (H, W, 1) uint8 and `label` () uint32. Shuffled by default.
- `FakeImageDataset(num_images, image_size, num_classes, base_seed)`: random uint8 images of
  `image_size` (H, W, C) and uint32 labels in [0, num_classes), the same for the same seed.
"""
import os

import numpy as np

from .._checkparam import check_dataset_range, check_dataset_type
from .datasets import GeneratorDataset, _NumpySlices

__all__ = ["MnistDataset", "FashionMnistDataset", "KMnistDataset", "FakeImageDataset"]

_IDX_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
              "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
_IMAGE_MAGIC, _LABEL_MAGIC = 2051, 2049


def read_idx(path, magic, what):
    """The array of one idx file (big-endian header: magic, counts, then uint8 data).

    Raises:
        RuntimeError: the magic number is not `magic`, or the file is shorter than its header says.
    """
    with open(path, "rb") as f:
        data = f.read()
    header = np.frombuffer(data[:4], ">u4")
    if len(data) < 8 or int(header[0]) != magic:
        got = int(header[0]) if header.size else None
        raise RuntimeError(f"Invalid mnist file, the {what} number of {path} should be {magic}, "
                           f"but got {got}")
    rank = magic & 0xFF
    dims = [int(d) for d in np.frombuffer(data[4:4 + 4 * rank], ">u4")]
    body = np.frombuffer(data, np.uint8, offset=4 + 4 * rank)
    if body.size < int(np.prod(dims)):
        raise RuntimeError(f"Invalid mnist file, {path} holds {body.size} bytes of data, but its "
                           f"header gives the shape {dims}.")
    return body[:int(np.prod(dims))].reshape(dims)


def _read_mnist(name, dataset_dir, usage):
    """(images (N, H, W, 1) uint8, labels (N,) uint32) of `usage` in `dataset_dir`."""
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory or "
                         f"permission denied!")
    images, labels = [], []
    for part in (("test", "train") if usage == "all" else (usage,)):
        paths = [os.path.join(dataset_dir, f) for f in _IDX_FILES[part]]
        if not all(os.path.isfile(p) for p in paths):
            if usage == "all":
                continue
            raise RuntimeError(f"Invalid data, {name} API can't read the data file (interface "
                               f"mismatch or no data found). Check mnist file in directory: "
                               f"{dataset_dir}")
        img = read_idx(paths[0], _IMAGE_MAGIC, "image")
        lab = read_idx(paths[1], _LABEL_MAGIC, "label")
        if len(img) != len(lab):
            raise RuntimeError(f"Invalid mnist file, the number of images ({len(img)}) and labels "
                               f"({len(lab)}) in {dataset_dir} differ.")
        images.append(img[..., None])
        labels.append(lab.astype(np.uint32))
    if not images:
        raise RuntimeError(f"Invalid data, {name} API can't read the data file (interface mismatch "
                           f"or no data found). Check mnist file in directory: {dataset_dir}")
    return np.concatenate(images), np.concatenate(labels)


class MnistDataset(GeneratorDataset):
    """The MNIST idx files of `dataset_dir`, as `mindspore.dataset.MnistDataset`.

    Args:
        dataset_dir (str): the folder holding the (unpacked) idx files.
        usage (str): 'train', 'test' or 'all' (default None: 'all').
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as in
            `GeneratorDataset` (shuffle defaults to True).

    Raises:
        ValueError: usage not one of 'train', 'test', 'all'; the folder does not exist.
        RuntimeError: the idx files are missing or malformed.

    Example:
        >>> data = MnistDataset("data/MNIST/raw", usage="train", shuffle=False)
        >>> data.get_col_names()
        ['image', 'label']
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        check_dataset_type("dataset_dir", dataset_dir, (str, os.PathLike))
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError("Input usage is not within the valid set of ['train', 'test', 'all'].")
        source = _NumpySlices(_read_mnist(type(self).__name__, os.fspath(dataset_dir), usage),
                              ["image", "label"])
        super().__init__(source, ["image", "label"], num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)

    def _row(self, i):
        return self.source[i]


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST (the MNIST idx format and file names), as
    `mindspore.dataset.FashionMnistDataset`."""


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST (the MNIST idx format and file names), as `mindspore.dataset.KMnistDataset`."""


class _FakeImages:
    """Random-access fake images: row i is drawn from a generator seeded by (base_seed, i)."""

    def __init__(self, num_images, image_size, num_classes, base_seed):
        self.n, self.size, self.classes, self.seed = num_images, tuple(image_size), num_classes, base_seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng((self.seed, i))
        image = rng.integers(0, 256, self.size, dtype=np.uint8)
        return image, np.array(rng.integers(0, self.classes), np.uint32)


class FakeImageDataset(GeneratorDataset):
    """Random images and labels, as `mindspore.dataset.FakeImageDataset` (other random values
    than MindSpore's: the same shapes, dtypes and ranges; the same values for the same seed).

    Args:
        num_images (int): rows. Default 1000.
        image_size (tuple): (H, W, C). Default (224, 224, 3).
        num_classes (int): labels are in [0, num_classes). Default 10.
        base_seed (int): seed of the values. Default 0.
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as in
            `GeneratorDataset`.

    Example:
        >>> FakeImageDataset(4, (8, 8, 3), 2, shuffle=False).get_col_names()
        ['image', 'label']
    """

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0,
                 num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        check_dataset_type("num_images", num_images, (int,))
        check_dataset_range("num_images", num_images, 1, 2 ** 31 - 1)
        check_dataset_type("image_size", image_size, (list, tuple))
        if len(image_size) != 3 or not all(isinstance(s, int) and s > 0 for s in image_size):
            raise ValueError(f"image_size should be a list or tuple of 3 positive ints, but got "
                             f"{image_size}.")
        check_dataset_type("num_classes", num_classes, (int,))
        check_dataset_range("num_classes", num_classes, 1, 2 ** 31 - 1)
        check_dataset_type("base_seed", base_seed, (int,))
        source = _FakeImages(num_images, image_size, num_classes, base_seed)
        super().__init__(source, ["image", "label"], num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)

    def _row(self, i):
        return self.source[i]
