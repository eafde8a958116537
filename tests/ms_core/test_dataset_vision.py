"""ms_core.dataset's vision datasets and transforms, with MindSpore 2.10's semantics (checked on
it; the oracle test tests/oracle/test_oracle_vision.py runs the same pipelines there): idx files
read from the folder given, 'all' = test then train, uint32 labels, shuffled by default;
ToTensor HWC -> CHW / 255; Normalize in float32, channels first with is_hwc=False."""
import numpy as np
import pytest

import ms_core as ms
from ms_core.dataset import vision
from tests.migrate.convert.vision.files import write_idx, write_mnist


def _rows(data):
    return [tuple(c for c in row) for row in data.create_tuple_iterator(output_numpy=True)]


@pytest.fixture
def raw(tmp_path):
    files = write_mnist(tmp_path)
    return tmp_path / "MNIST" / "raw", files


@pytest.mark.parametrize("usage, parts", [("train", ["train"]), ("test", ["t10k"]),
                                          ("all", ["t10k", "train"]), (None, ["t10k", "train"])])
def test_mnist_reads_the_idx_files_of_the_folder(raw, usage, parts):
    folder, files = raw
    rows = _rows(ms.dataset.MnistDataset(str(folder), usage=usage, shuffle=False))
    images = np.concatenate([files[p][0] for p in parts])
    labels = np.concatenate([files[p][1] for p in parts])
    assert len(rows) == len(labels)
    for (img, lab), want_img, want_lab in zip(rows, images, labels):
        assert img.dtype == np.uint8 and img.shape == (28, 28, 1) and lab.dtype == np.uint32
        np.testing.assert_array_equal(img[..., 0], want_img)
        assert lab.shape == () and int(lab) == int(want_lab)


def test_mnist_shuffles_by_default_and_shards(raw):
    folder, files = raw
    ms.dataset.config.set_seed(0)
    labels = [int(lab) for _, lab in _rows(ms.dataset.MnistDataset(str(folder), usage="train"))]
    assert sorted(labels) == sorted(files["train"][1].tolist())
    shard = _rows(ms.dataset.MnistDataset(str(folder), usage="train", shuffle=False, num_shards=2, shard_id=1))
    assert [int(lab) for _, lab in shard] == files["train"][1][1::2].tolist()


def test_mnist_errors(raw, tmp_path):
    folder, _ = raw
    with pytest.raises(ValueError, match="Input usage is not within the valid set"):
        ms.dataset.MnistDataset(str(folder), usage="valid")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ms.dataset.MnistDataset(str(tmp_path / "nowhere"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RuntimeError, match="can't read the data file"):
        ms.dataset.MnistDataset(str(empty), usage="train")
    bad = tmp_path / "bad"
    bad.mkdir()
    write_idx(bad / "train-labels-idx1-ubyte", np.zeros(3, np.uint8))
    (bad / "train-images-idx3-ubyte").write_bytes(np.array([1234, 3, 28, 28], ">u4").tobytes())
    with pytest.raises(RuntimeError, match="should be 2051, but got 1234"):
        ms.dataset.MnistDataset(str(bad), usage="train")


def test_to_tensor_and_normalize_match_the_float64_formula():
    img = np.random.default_rng(0).integers(0, 256, (5, 4, 3), dtype=np.uint8)
    t = vision.ToTensor()(img)
    assert t.dtype == np.float32 and t.shape == (3, 5, 4)
    want = img.transpose(2, 0, 1).astype(np.float64) / 255
    np.testing.assert_allclose(t, want, rtol=1e-5, atol=1e-6)
    mean, std = [0.1, 0.2, 0.3], [0.5, 0.25, 0.2]
    n = vision.Normalize(mean, std, is_hwc=False)(t)
    assert n.dtype == np.float32
    np.testing.assert_allclose(n, (want - np.reshape(mean, (3, 1, 1))) / np.reshape(std, (3, 1, 1)),
                               rtol=1e-5, atol=1e-6)
    hwc = vision.Normalize(mean, std)(img)  # channels last: the default
    np.testing.assert_allclose(hwc, (img - np.array(mean)) / np.array(std), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(vision.Normalize([0.5], [0.5], is_hwc=False)(t), (want - 0.5) / 0.5,
                               rtol=1e-5, atol=1e-6)  # one value for every channel
    assert vision.ToTensor()(img[..., 0]).shape == (1, 5, 4)
    np.testing.assert_array_equal(vision.HWC2CHW()(img), img.transpose(2, 0, 1))


@pytest.mark.parametrize("args, error, message", [
    ((0.5, 0.5), TypeError, "Argument mean with value 0.5 is not of type"),
    (([0.5], [0.0]), ValueError, r"Input std\[0\] is not within the required interval of \(0, 255\]"),
    (([0.5, 0.5], [2.0]), ValueError, "Length of mean and std must be equal"),
])
def test_normalize_checks_its_arguments_as_mindspore(args, error, message):
    with pytest.raises(error, match=message):
        vision.Normalize(*args, is_hwc=False)


def test_fake_images_are_deterministic_per_seed():
    def rows(seed):
        return _rows(ms.dataset.FakeImageDataset(6, (4, 5, 3), 3, base_seed=seed, shuffle=False))
    a, b, c = rows(0), rows(0), rows(1)
    assert all(img.shape == (4, 5, 3) and img.dtype == np.uint8 and lab.dtype == np.uint32
               and 0 <= int(lab) < 3 for img, lab in a)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


# --- Pad / RandomCrop / RandomHorizontalFlip (outputs printed by MindSpore 2.10's
# mindspore.dataset.vision on the same (5, 6, 3) arange image) ---------------------------------
def _img():
    return np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)


def test_pad_as_mindspore_left_top_right_bottom():
    v = ms.dataset.vision
    got = v.Pad((1, 2, 3, 4), fill_value=7)(_img())[:, :, 0]
    want = np.full((11, 10), 7, np.uint8)
    want[2:7, 1:7] = np.arange(0, 88, 3).reshape(5, 6)
    np.testing.assert_array_equal(got, want)
    assert v.Pad((1, 2))(_img()).shape == (9, 8, 3) and v.Pad(2)(_img()).shape == (9, 10, 3)
    assert v.Pad(1)(_img()[:, :, 0]).shape == (7, 8)
    edge = v.Pad(1, padding_mode=v.Border.EDGE)(_img())
    np.testing.assert_array_equal(edge[0, 1:-1], _img()[0])
    with pytest.raises(TypeError, match="padding should be an int or a sequence of 2 or 4"):
        v.Pad((1, 2, 3))


def test_random_crop_takes_a_window_of_the_padded_image_at_every_offset():
    v = ms.dataset.vision
    ms.dataset.config.set_seed(3)
    crop = v.RandomCrop((5, 6), padding=(1, 2))
    padded = v.Pad((1, 2))(_img())
    seen = set()
    for _ in range(200):
        out = crop(_img())
        hits = [(i, j) for i in range(5) for j in range(3) if np.array_equal(padded[i:i + 5, j:j + 6], out)]
        assert hits, "the crop is not a window of the padded image"
        seen.update(hits)
    assert seen == {(i, j) for i in range(5) for j in range(3)}   # every offset drawn
    assert v.RandomCrop(8, pad_if_needed=True)(_img()).shape == (8, 8, 3)
    with pytest.raises(RuntimeError, match="larger than the image"):
        v.RandomCrop(8)(_img())


def test_random_horizontal_flip_flips_with_its_probability():
    v = ms.dataset.vision
    np.testing.assert_array_equal(v.RandomHorizontalFlip(1.0)(_img())[0, :, 0], [15, 12, 9, 6, 3, 0])
    np.testing.assert_array_equal(v.RandomHorizontalFlip(0.0)(_img()), _img())
    ms.dataset.config.set_seed(1)
    flip = v.RandomHorizontalFlip(0.3)
    rate = np.mean([not np.array_equal(flip(_img()), _img()) for _ in range(2000)])
    assert abs(rate - 0.3) < 0.04       # binomial: 4 standard deviations
    with pytest.raises(ValueError, match=r"interval of \[0.0, 1.0\]"):
        v.RandomHorizontalFlip(1.5)
