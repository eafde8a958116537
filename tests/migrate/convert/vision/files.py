"""Synthetic dataset files in the formats torchvision reads, written with NumPy: MNIST's idx files
(root/MNIST/raw) and CIFAR-10's python-pickle batches (root/cifar-10-batches-py). The arrays
written are returned, so that tests compute torchvision's results from them."""
import pickle
from pathlib import Path

import numpy as np

SIZES = {"train": 10, "t10k": 7}


def write_idx(path: Path, array: np.ndarray) -> None:
    """One idx file: magic (0x0800 | rank for uint8), the dimensions big-endian, the bytes."""
    header = np.array([0x0800 | array.ndim, *array.shape], ">u4")
    path.write_bytes(header.tobytes() + np.ascontiguousarray(array, np.uint8).tobytes())


def write_mnist(root: Path, name: str = "MNIST", seed: int = 0) -> dict:
    """train (10) and t10k (7) images and labels in root/<name>/raw: {prefix: (images, labels)}."""
    raw = Path(root) / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    out = {}
    for prefix, n in SIZES.items():
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        write_idx(raw / f"{prefix}-images-idx3-ubyte", images)
        write_idx(raw / f"{prefix}-labels-idx1-ubyte", labels)
        out[prefix] = (images, labels)
    return out


def write_cifar10(root: Path, per_batch: int = 3, seed: int = 0) -> dict:
    """Five training batches and a test batch of `per_batch` rows each, pickled as CIFAR-10's
    python version holds them (`data`: rows of 3072 bytes, R then G then B planes; `labels`):
    {"train": (data, labels), "test": (data, labels)}."""
    folder = Path(root) / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    parts = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        data = rng.integers(0, 256, (per_batch, 3072), dtype=np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, per_batch)]
        with open(folder / name, "wb") as f:
            pickle.dump({"batch_label": name, "data": data, "labels": labels}, f)
        parts[name] = (data, labels)
    train = [parts[f"data_batch_{i}"] for i in range(1, 6)]
    return {"train": (np.vstack([d for d, _ in train]), np.array(sum((lab for _, lab in train), []))),
            "test": (parts["test_batch"][0], np.array(parts["test_batch"][1]))}


def normalized(images_chw: np.ndarray, mean, std) -> np.ndarray:
    """torchvision's ToTensor then Normalize, in float64: (x / 255 - mean) / std per channel."""
    x = images_chw.astype(np.float64) / 255.0
    shape = (1, -1, 1, 1)
    return (x - np.asarray(mean, np.float64).reshape(shape)) / np.asarray(std, np.float64).reshape(shape)
