"""Converted torchvision pipelines on synthetic files in the real formats (MNIST idx, CIFAR-10
python pickles) give torchvision's batches, computed here from the arrays written: ToTensor and
Normalize in NumPy float64 ((x / 255 - mean) / std, channels first), labels int64. Tolerance:
float32 results, rtol 1e-5 / atol 1e-6 (|values| < 3.3, float32 spacing there is 2.4e-7)."""
import numpy as np
import pytest

from migrate import convert_source

from .files import normalized, write_cifar10, write_mnist
from .script import SRC

TOL = dict(rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def converted():
    res = convert_source(SRC)
    assert res.error is None and "# migrate" not in res.code, res.code
    assert convert_source(res.code).code == res.code  # converting again changes nothing
    assert "torchvision" not in res.code.split("def ")[0].split("# --- generated")[0]
    ns = {}
    exec(compile(res.code, "<converted>", "exec"), ns)
    return ns


def _batches(loader):
    return [(x.asnumpy(), y.asnumpy()) for x, y in loader]


def _mnist_images(images):
    return images[:, None]  # (N, 1, 28, 28): torchvision's ToTensor of a mode-'L' image


@pytest.mark.parametrize("use_cuda", [False, True])
def test_mnist_kwargs_loaders_give_torchvision_batches(converted, tmp_path, use_cuda):
    files = write_mnist(tmp_path)
    train, test = converted["loaders"](str(tmp_path), 4, use_cuda)
    for loader, prefix in ((train, "train"), (test, "t10k")):
        images, labels = files[prefix]
        got = _batches(loader)
        n = len(labels)
        assert [len(y) for _, y in got] == [min(4, n - i) for i in range(0, n, 4)]
        x = np.concatenate([b[0] for b in got])
        y = np.concatenate([b[1] for b in got])
        assert x.dtype == np.float32 and y.dtype == np.int64 and x.shape == (len(labels), 1, 28, 28)
        want = normalized(_mnist_images(images), [0.1307], [0.3081])
        if use_cuda:  # shuffle=True from the cuda kwargs: the same rows, in another order
            keys = {r.tobytes(): i for i, r in enumerate(np.round(want.astype(np.float32), 4))}
            idx = [keys[r.tobytes()] for r in np.round(x, 4)]
            assert sorted(idx) == list(range(len(labels)))
            want, labels = want[idx], labels[idx]
        np.testing.assert_allclose(x, want, **TOL)
        np.testing.assert_array_equal(y, labels.astype(np.int64))


def test_mnist_plain_totensor_and_order(converted, tmp_path):
    images, labels = write_mnist(tmp_path)["t10k"]
    got = _batches(converted["plain_loader"](str(tmp_path), False))
    x = np.concatenate([b[0] for b in got])
    np.testing.assert_allclose(x, _mnist_images(images) / 255.0, **TOL)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), labels)
    shuffled = np.concatenate([b[1] for b in _batches(converted["plain_loader"](str(tmp_path), True))])
    np.testing.assert_array_equal(np.sort(shuffled), np.sort(labels))


def test_lambda_gets_a_tensor_and_gives_arrays(converted, tmp_path):
    images, _ = write_mnist(tmp_path)["t10k"]
    x = np.concatenate([b[0] for b in _batches(converted["flat_loader"](str(tmp_path)))])
    assert x.shape == (len(images), 784)
    np.testing.assert_allclose(x, normalized(_mnist_images(images), [0.5], [0.5]).reshape(len(images), -1), **TOL)


@pytest.mark.parametrize("train", [True, False])
def test_cifar10_reads_the_pickle_batches(converted, tmp_path, train):
    data, labels = write_cifar10(tmp_path)["train" if train else "test"]
    got = _batches(converted["cifar_loader"](str(tmp_path), train))
    x = np.concatenate([b[0] for b in got])
    # torchvision: rows are R, G, B planes of 32 x 32 -> CHW after ToTensor
    want = normalized(data.reshape(-1, 3, 32, 32), (0.5, 0.4, 0.3), (0.2, 0.25, 0.3))
    np.testing.assert_allclose(x, want, **TOL)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), labels.astype(np.int64))


def test_fake_data_has_torchvisions_shapes_and_ranges(converted):
    got = _batches(converted["fake_loader"](10))
    assert [x.shape for x, _ in got] == [(4, 3, 8, 6), (4, 3, 8, 6), (2, 3, 8, 6)]
    x = np.concatenate([b[0] for b in got])
    y = np.concatenate([b[1] for b in got])
    assert x.dtype == np.float32 and 0 <= x.min() and x.max() <= 1 and y.dtype == np.int64
    assert set(y.tolist()) <= set(range(5))


@pytest.mark.parametrize("download, why", [(True, "download=True, but MindSpore cannot download"),
                                           (False, "Dataset not found")])
def test_missing_files_raise_naming_them_and_the_folder(converted, tmp_path, download, why):
    src = SRC_MISSING.format(download=download)
    ns = {}
    exec(compile(convert_source(src).code, "<converted>", "exec"), ns)
    with pytest.raises(RuntimeError, match=why) as info:
        ns["build"](str(tmp_path))
    message = str(info.value)
    assert "train-images-idx3-ubyte" in message and str(tmp_path / "MNIST" / "raw") in message


SRC_MISSING = '''from torchvision import datasets


def build(root):
    return datasets.MNIST(root, train=True, download={download})
'''


SRC_OTHERS = '''import torch
from torchvision import datasets, transforms


def loader(kind, root, train):
    data = getattr(datasets, kind)(root, train=train, transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(data, batch_size=5)
'''


@pytest.mark.parametrize("kind", ["FashionMNIST", "KMNIST"])
def test_other_mnist_like_datasets(tmp_path, kind):
    src = SRC_OTHERS.replace("getattr(datasets, kind)", f"datasets.{kind}")
    res = convert_source(src)
    assert "# migrate" not in res.code, res.code
    ns = {}
    exec(compile(res.code, "<converted>", "exec"), ns)
    images, labels = write_mnist(tmp_path, kind)["train"]
    got = _batches(ns["loader"](kind, str(tmp_path), True))
    np.testing.assert_allclose(np.concatenate([b[0] for b in got]), _mnist_images(images) / 255.0, **TOL)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), labels)


def test_cifar100_reads_the_fine_labels(tmp_path):
    import pickle
    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, (6, 3072), dtype=np.uint8)
    fine, coarse = rng.integers(0, 100, 6).tolist(), rng.integers(0, 20, 6).tolist()
    with open(folder / "test", "wb") as f:
        pickle.dump({"data": data, "fine_labels": fine, "coarse_labels": coarse}, f)
    src = SRC_OTHERS.replace("getattr(datasets, kind)", "datasets.CIFAR100")
    ns = {}
    exec(compile(convert_source(src).code, "<converted>", "exec"), ns)
    got = _batches(ns["loader"]("CIFAR100", str(tmp_path), False))
    np.testing.assert_allclose(np.concatenate([b[0] for b in got]), data.reshape(-1, 3, 32, 32) / 255.0, **TOL)
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), fine)


SRC_SAVE = '''import torch
from torchvision.utils import save_image


def write(x, path, **kwargs):
    save_image(torch.tensor(x), path, **kwargs)
'''


def _read_png(path):
    """The pixels of an 8-bit PNG written with filter 0 on every row (what save_image_torch writes)."""
    import struct
    import zlib
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
        header = struct.unpack(">IIBBBBB", body) if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + n
    width, height, depth, color = header[:4]
    channels = {0: 1, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * channels)
    assert depth == 8 and (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


def _pixels(x):
    """torchvision's save_image pixels of a float32 grid: uint8(clamp(x * 255 + 0.5, 0, 255))."""
    return np.clip(x * np.float32(255) + np.float32(0.5), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("kwargs", [{}, {"nrow": 2, "padding": 1, "pad_value": 1.0}, {"normalize": True}])
def test_save_image_writes_torchvisions_grid(tmp_path, kwargs):
    ns = {}
    exec(compile(convert_source(SRC_SAVE).code, "<converted>", "exec"), ns)
    x = np.random.default_rng(0).uniform(-0.2, 1.2, (5, 1, 3, 4)).astype(np.float32)
    path = tmp_path / "grid.png"
    ns["write"](x, str(path), **kwargs)
    got = _read_png(path)
    nrow, pad, fill = kwargs.get("nrow", 8), kwargs.get("padding", 2), kwargs.get("pad_value", 0.0)
    if kwargs.get("normalize"):
        x = (x - x.min()) / np.float32(x.max() - x.min())
    cols, rows = min(nrow, 5), -(-5 // min(nrow, 5))
    grid = np.full((rows * (3 + pad) + pad, cols * (4 + pad) + pad), fill, np.float32)
    for k in range(5):
        top, left = (k // cols) * (3 + pad) + pad, (k % cols) * (4 + pad) + pad
        grid[top:top + 3, left:left + 4] = x[k, 0]
    want = np.repeat(_pixels(grid)[:, :, None], 3, axis=2)  # one channel is shown as three
    np.testing.assert_array_equal(got, want)


def test_save_image_refuses_formats_it_cannot_write(tmp_path):
    ns = {}
    exec(compile(convert_source(SRC_SAVE).code, "<converted>", "exec"), ns)
    with pytest.raises(ValueError, match="only PNG files can be written without PIL"):
        ns["write"](np.zeros((1, 3, 2, 2), np.float32), str(tmp_path / "x.jpg"))


SRC_AUGMENT = '''import torch
import torchvision
import torchvision.transforms as transforms


def loader(root):
    transform = transforms.Compose([transforms.Pad(2, fill=9), transforms.RandomHorizontalFlip(),
                                    transforms.RandomCrop(32, padding=4), transforms.ToTensor()])
    data = torchvision.datasets.CIFAR10(root, train=True, transform=transform)
    return torch.utils.data.DataLoader(data, batch_size=5)
'''


def test_cifar_augmentations_give_windows_of_torchvisions_padded_images(tmp_path):
    """Pad(2, fill=9), RandomHorizontalFlip, RandomCrop(32, padding=4) on the (H, W, C) image, as
    torchvision (its formula in NumPy): every image is a 32 x 32 window of the image padded by 2
    (value 9) then by 4 (zeros), mirrored or not; the draws are MindSpore's, so the test holds
    the property for every image and sees both flips and several offsets."""
    res = convert_source(SRC_AUGMENT)
    assert "# migrate" not in res.code, res.code
    ns = {}
    exec(compile(res.code, "<converted>", "exec"), ns)
    data, _ = write_cifar10(tmp_path, per_batch=8)["train"]
    images = data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)       # (H, W, C), as torchvision reads them
    got = np.concatenate([b[0] for b in _batches(ns["loader"](str(tmp_path)))])
    flips, offsets = set(), set()
    for img, out in zip(images, got):
        padded = np.pad(np.pad(img, ((2, 2), (2, 2), (0, 0)), constant_values=9), ((4, 4), (4, 4), (0, 0)))
        found = [(flip, i, j) for flip in (False, True) for i in range(13) for j in range(13)
                 if np.array_equal((padded[:, ::-1] if flip else padded)[i:i + 32, j:j + 32].transpose(2, 0, 1)
                                   / np.float32(255), out)]
        assert found, "an image that is no window of the padded image"
        flips.update(f for f, _, _ in found)
        offsets.update((i, j) for _, i, j in found)
    assert flips == {False, True} and len(offsets) > 5
