"""migrate.runtime.vision called directly: torchvision's datasets over mindspore.dataset on
synthetic files in the real formats give torchvision's samples (the arrays written, in file
order, int64 labels), save_image_torch writes torchvision's grid, missing files are named."""
import numpy as np
import pytest

from migrate.runtime.vision import CIFAR10Torch, FakeDataTorch, LambdaTorch, MNISTTorch, save_image_torch
from tests.migrate.convert.vision.files import write_cifar10, write_mnist
from tests.migrate.convert.vision.test_vision_pipeline import _pixels, _read_png

ms = pytest.importorskip("ms_core")


def _rows(data):
    return [(image, label) for image, label in data.create_tuple_iterator(output_numpy=True)]


def test_mnist_reads_torchvisions_folder_in_file_order(tmp_path):
    images, labels = write_mnist(tmp_path)["t10k"]
    rows = _rows(MNISTTorch(str(tmp_path), train=False))
    np.testing.assert_array_equal(np.stack([r[0][..., 0] for r in rows]), images)
    assert [int(r[1]) for r in rows] == labels.tolist() and rows[0][1].dtype == np.int64


def test_cifar10_reads_the_pickles_with_a_transform(tmp_path):
    data, labels = write_cifar10(tmp_path)["test"]
    rows = _rows(CIFAR10Torch(str(tmp_path), train=False, transform=LambdaTorch(lambda x: x * 2)))
    want = data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1) * np.uint8(2)  # uint8 wraps, as torch's
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), want)
    assert [int(r[1]) for r in rows] == labels.tolist()


def test_missing_files_are_named_with_their_folder(tmp_path):
    with pytest.raises(RuntimeError, match="For 'MNIST' \\(torch signature\\), download=True, but MindSpore "
                                           "cannot download datasets: put train-images-idx3-ubyte") as info:
        MNISTTorch(str(tmp_path), download=True)
    assert str(tmp_path / "MNIST" / "raw") in str(info.value)


def test_fake_data_has_torchvisions_shapes():
    image, label = _rows(FakeDataTorch(size=3, image_size=(3, 8, 6), num_classes=4))[0]
    assert image.shape == (8, 6, 3) and image.dtype == np.uint8 and 0 <= int(label) < 4


def test_lambda_gets_a_tensor_and_needs_a_callable():
    seen = []
    out = LambdaTorch(lambda t: seen.append(type(t)) or t + 1)(np.zeros(2, np.float32))
    assert seen == [ms.Tensor] and isinstance(out, np.ndarray) and out.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="Argument lambd should be callable object, but got int"):
        LambdaTorch(3)


def test_save_image_writes_torchvisions_grid(tmp_path):
    x = np.random.default_rng(0).uniform(-0.2, 1.2, (2, 1, 3, 4)).astype(np.float32)
    save_image_torch(ms.Tensor(x), str(tmp_path / "g.png"), padding=1)
    grid = np.zeros((3 + 2, 2 * 5 + 1), np.float32)
    grid[1:4, 1:5], grid[1:4, 6:10] = x[0, 0], x[1, 0]
    np.testing.assert_array_equal(_read_png(tmp_path / "g.png"), np.repeat(_pixels(grid)[:, :, None], 3, axis=2))
    with pytest.raises(ValueError, match="only PNG files can be written without PIL, but got 'x.jpg'"):
        save_image_torch(ms.Tensor(x), "x.jpg")
