"""torchvision's datasets and the transforms MindSpore spells differently, over ``mindspore.dataset``.

Each function has torchvision's signature: arguments pass through as written, also ``**kwargs``,
and are translated when the dataset is built. They build ordinary MindSpore pipelines of
``image`` and ``label`` columns, which the DataLoader translation batches (and shuffles) like any
MindSpore dataset.

What they settle (checked on MindSpore 2.10):

- torchvision keeps MNIST's idx files in ``root/MNIST/raw`` (``FashionMNIST``, ``KMNIST`` alike);
  ``MnistDataset`` reads them from the folder it is given: the helper passes that folder.
- MindSpore downloads no dataset: ``download=True`` checks that the files are there and raises a
  RuntimeError naming them and the folder when they are not (torchvision skips the download when
  they are there, so that case means the same).
- MnistDataset shuffles by default and gives uint32 labels: the helper reads in file order (the
  DataLoader decides the order, as in torch) and casts labels to int64 (torch's int).
- torchvision's CIFAR10/100 read the python-pickle batches (``cifar-10-batches-py``), MindSpore's
  Cifar10Dataset the binary ones: the helper reads the pickles itself into a NumpySlicesDataset
  of (32, 32, 3) uint8 images, torchvision's samples in torchvision's order.
- ``transforms.Lambda`` gets the torch tensor ToTensor made: in a MindSpore pipeline the value is a
  NumPy array, so the function gets a Tensor and its Tensor result goes back to NumPy.
"""
import os
import pickle
import struct
import zlib

import numpy

from .backend import ms


# the class names torchvision gives the datasets' `classes` (CIFAR's come from their meta files)
_CLASSES = {
    "MNIST": ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
              "8 - eight", "9 - nine"],
    "FashionMNIST": ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
                     "Ankle boot"],
    "KMNIST": ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"],
}


def _vision_data(data, transform, target_transform, name=None, classes=None):
    """A torchvision dataset's per-sample transforms on an ms.dataset pipeline of (image, label)
    rows: `transform` on the image; the label as int64 (torch's int), then `target_transform`.
    The untransformed rows and the transforms stay with the pipeline (`torch_vision_source`)
    for :class:`TorchVisionSamples`."""
    raw = data
    if transform is not None:
        data = data.map(transform, input_columns="image")
    data = data.map(ms.dataset.transforms.TypeCast(ms.int64), input_columns="label")
    if target_transform is not None:
        data = data.map(target_transform, input_columns="label")
    data.torch_vision_source = (raw, transform, target_transform, name, classes)
    return data


def _vision_files(name, folder, files, download):
    """Raise unless every one of `files` is in `folder` (MindSpore downloads no dataset)."""
    missing = [f for f in files if not os.path.isfile(os.path.join(folder, f))]
    if missing:
        why = ("download=True, but MindSpore cannot download datasets" if download else
               "Dataset not found")
        raise RuntimeError(f"For '{name}' (torch signature), {why}: put {', '.join(missing)} "
                           f"(unpacked) in {folder}, where torchvision keeps them.")


def _mnist_like(make, name, root, train, transform, target_transform, download):
    """A torchvision MNIST-style dataset over `make` (ms.dataset.MnistDataset, ...): the idx files
    of root/<name>/raw, in file order."""
    folder = os.path.join(os.path.expanduser(os.fspath(root)), name, "raw")
    prefix = "train" if train else "t10k"
    _vision_files(name, folder, [f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"],
                        download)
    data = make(folder, usage="train" if train else "test", shuffle=False)
    return _vision_data(data, transform, target_transform, name, _CLASSES[name])


def _cifar_like(name, base, files, root, transform, target_transform, download):
    """A torchvision CIFAR dataset: the python-pickle batches `files` of root/`base`, read as
    torchvision reads them, in a NumpySlicesDataset of (32, 32, 3) uint8 images and int64 labels."""
    folder = os.path.join(os.path.expanduser(os.fspath(root)), base)
    _vision_files(name, folder, files, download)
    images, labels = [], []
    for file in files:
        with open(os.path.join(folder, file), "rb") as f:
            entry = pickle.load(f, encoding="latin1")
        images.append(entry["data"])
        labels.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
    images = numpy.vstack(images).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    data = ms.dataset.NumpySlicesDataset((numpy.ascontiguousarray(images),
                                          numpy.asarray(labels, numpy.int64)),
                                         column_names=["image", "label"], shuffle=False)
    return _vision_data(data, transform, target_transform, name, _cifar_classes(folder, name))


def _cifar_classes(folder, name):
    """CIFAR's class names from its meta file (None when the file is not there)."""
    meta, key = ("batches.meta", "label_names") if name == "CIFAR10" else ("meta", "fine_label_names")
    path = os.path.join(folder, meta)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return list(pickle.load(f, encoding="latin1")[key])


def MNISTTorch(root, train=True, transform=None, target_transform=None, download=False):
    """torchvision.datasets.MNIST over ms.dataset.MnistDataset: the idx files torchvision keeps in
    root/MNIST/raw; (28, 28, 1) uint8 images through `transform`, int64 labels."""
    return _mnist_like(ms.dataset.MnistDataset, "MNIST", root, train, transform,
                             target_transform, download)


def FashionMNISTTorch(root, train=True, transform=None, target_transform=None, download=False):
    """torchvision.datasets.FashionMNIST over ms.dataset.FashionMnistDataset: the idx files torchvision keeps in
    root/FashionMNIST/raw; (28, 28, 1) uint8 images through `transform`, int64 labels."""
    return _mnist_like(ms.dataset.FashionMnistDataset, "FashionMNIST", root, train, transform,
                             target_transform, download)


def KMNISTTorch(root, train=True, transform=None, target_transform=None, download=False):
    """torchvision.datasets.KMNIST over ms.dataset.KMnistDataset: the idx files torchvision keeps in
    root/KMNIST/raw; (28, 28, 1) uint8 images through `transform`, int64 labels."""
    return _mnist_like(ms.dataset.KMnistDataset, "KMNIST", root, train, transform,
                             target_transform, download)


def CIFAR10Torch(root, train=True, transform=None, target_transform=None, download=False):
    """torchvision.datasets.CIFAR10 over ms.dataset: the python-pickle batches of
    root/cifar-10-batches-py (MindSpore's Cifar10Dataset reads the binary version)."""
    files = [f"data_batch_{i}" for i in range(1, 6)] if train else ["test_batch"]
    return _cifar_like("CIFAR10", "cifar-10-batches-py", files, root, transform,
                             target_transform, download)


def CIFAR100Torch(root, train=True, transform=None, target_transform=None, download=False):
    """torchvision.datasets.CIFAR100 over ms.dataset: the python-pickle files of
    root/cifar-100-python, fine labels (MindSpore's Cifar100Dataset reads the binary version)."""
    return _cifar_like("CIFAR100", "cifar-100-python", ["train" if train else "test"], root,
                             transform, target_transform, download)


def FakeDataTorch(size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                  target_transform=None, random_offset=0):
    """torchvision.datasets.FakeData over ms.dataset.FakeImageDataset: `size` random uint8 images
    of torch's (C, H, W) `image_size` (MindSpore's is (H, W, C)) and labels in [0, num_classes);
    other random values than torch's."""
    channels, height, width = image_size
    data = ms.dataset.FakeImageDataset(num_images=size, image_size=(height, width, channels),
                                       num_classes=num_classes, base_seed=random_offset,
                                       shuffle=False)
    return _vision_data(data, transform, target_transform)


def torch_channel_values(values):
    """A torchvision transform's per-channel numbers (``Normalize``'s mean and std) as the list of
    floats MindSpore's transforms take: torchvision also takes a Tensor (statistics computed
    from the data), an array, or one number."""
    if isinstance(values, ms.Tensor):
        values = values.asnumpy()
    return [float(v) for v in numpy.asarray(values, dtype=numpy.float64).reshape(-1)]


class TorchVisionSamples:
    """A torchvision dataset read as torchvision's object: ``ds[i]`` (the sample through the
    dataset's transforms, applied when it is read, as torchvision does: the image a Tensor where
    the transform gives an array, a NumPy image without a transform where torchvision gives a PIL
    image), ``len(ds)``, ``ds.data`` and ``ds.targets`` (the untransformed images and labels as
    torchvision keeps them: Tensors for MNIST-style datasets, an array and a list for CIFAR),
    ``ds.classes``. A DataLoader over it batches these samples (a Python dataset: random
    transforms drawn afresh each epoch).

    Args:
        dataset: what a dataset function of this module returns (``FashionMNISTTorch(...)``).
    """

    def __init__(self, dataset):
        source = getattr(dataset, "torch_vision_source", None)
        if source is None:
            raise TypeError(f"For 'TorchVisionSamples', the dataset must be built by a torchvision dataset "
                            f"function of the runtime (MNISTTorch, CIFAR10Torch, ...), but got "
                            f"{type(dataset).__name__}.")
        self._raw, self.transform, self.target_transform, self._name, classes = source
        if classes is not None:
            self.classes = list(classes)
        self._rows = None

    def _arrays(self):
        """(images, labels) as read, untransformed: uint8 images, int64 labels."""
        if self._rows is None:
            images, labels = [], []
            for image, label in self._raw.create_tuple_iterator(output_numpy=True, num_epochs=1):
                images.append(image)
                labels.append(int(label))
            self._rows = (numpy.stack(images), numpy.asarray(labels, dtype=numpy.int64))
        return self._rows

    def __len__(self):
        return len(self._arrays()[1])

    def __getitem__(self, index):
        images, labels = self._arrays()
        image, label = images[index], int(labels[index])
        if self.transform is not None:
            image = self.transform(image)
            if isinstance(image, numpy.ndarray):
                image = ms.Tensor(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    @property
    def data(self):
        images = self._arrays()[0]
        if self._name in _CLASSES:  # MNIST-style: a (N, 28, 28) uint8 Tensor
            return ms.Tensor(images.reshape(images.shape[:3]))
        return images               # CIFAR: a (N, 32, 32, 3) uint8 array

    @property
    def targets(self):
        labels = self._arrays()[1]
        return ms.Tensor(labels) if self._name in _CLASSES else labels.tolist()


class LambdaTorch:
    """torchvision.transforms.Lambda in an ms.dataset pipeline: `lambd` gets a Tensor (torch's
    gets the tensor ToTensor made, MindSpore passes NumPy arrays) and a Tensor result goes back
    to NumPy."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable object, but got "
                            f"{type(lambd).__name__}")
        self.lambd = lambd

    def __call__(self, x):
        out = self.lambd(x if isinstance(x, ms.Tensor) else ms.Tensor(x))
        return out.asnumpy() if isinstance(out, ms.Tensor) else out


def _grid(tensor, nrow, padding, normalize, value_range, scale_each, pad_value):
    """torchvision's make_grid as an array: (B, C, H, W) images in rows of ``nrow`` with ``padding``
    pixels of ``pad_value`` between and around them, one channel shown as three, ``normalize`` to
    [0, 1] by value_range or the min and max (per image with ``scale_each``); one image alone is
    returned without padding."""
    images = [t.asnumpy() if hasattr(t, "asnumpy") else numpy.asarray(t) for t in
              (tensor if isinstance(tensor, (list, tuple)) else [tensor])]
    x = numpy.stack(images) if len(images) > 1 else images[0]
    x = x.astype(numpy.float32)
    x = x[None] if x.ndim == 2 else x
    x = x[None] if x.ndim == 3 else x
    if x.shape[1] == 1:
        x = numpy.concatenate([x, x, x], 1)
    if normalize:
        def norm(t):
            low, high = (t.min(), t.max()) if value_range is None else value_range
            t = numpy.clip(t, low, high)
            return (t - numpy.float32(low)) / numpy.float32(max(high - low, 1e-5))
        x = numpy.stack([norm(t) for t in x]) if scale_each else norm(x)
    if x.shape[0] == 1:
        return x[0]
    cols = min(nrow, x.shape[0])
    rows = -(-x.shape[0] // cols)
    h, w = x.shape[2] + padding, x.shape[3] + padding
    grid = numpy.full((x.shape[1], h * rows + padding, w * cols + padding), pad_value, numpy.float32)
    for k, img in enumerate(x):
        top, left = (k // cols) * h + padding, (k % cols) * w + padding
        grid[:, top:top + h - padding, left:left + w - padding] = img
    return grid


def make_grid_torch(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """torchvision.utils.make_grid: the images of a (B, C, H, W) tensor (or a list of (C, H, W)
    ones) laid out in rows of ``nrow`` as torchvision lays them out (see ``save_image_torch``),
    as a (3 or C, H', W') float32 tensor (a picture to log: no gradient flows through it).

    Example:
        >>> make_grid_torch(ms.ops.zeros((4, 1, 2, 2)), nrow=2).shape
        (3, 10, 10)
    """
    return ms.Tensor(_grid(tensor, nrow, padding, normalize, value_range, scale_each, pad_value))


def save_image_torch(tensor, fp, format=None, nrow=8, padding=2, normalize=False, value_range=None,
                     scale_each=False, pad_value=0.0):
    """torchvision.utils.save_image as PNG: torchvision's make_grid of (B, C, H, W) images (one
    channel shown as three; `normalize` to [0, 1] by value_range or the min and max), then
    uint8(clamp(x * 255 + 0.5, 0, 255)) per pixel, written losslessly without PIL."""
    name = fp if isinstance(fp, str) else getattr(fp, "name", "")
    if (format or name.rsplit(".", 1)[-1]).lower() != "png":
        raise ValueError(f"For 'save_image' (torch signature), only PNG files can be written "
                         f"without PIL, but got {format or name!r}.")
    grid = _grid(tensor, nrow, padding, normalize, value_range, scale_each, pad_value)
    pixels = numpy.clip(grid * numpy.float32(255) + numpy.float32(0.5), 0, 255).astype(numpy.uint8)
    pixels = numpy.ascontiguousarray(pixels.transpose(1, 2, 0))
    height, width, channels = pixels.shape
    raw = b"".join(b"\x00" + row.tobytes() for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8,
                                                              {1: 0, 3: 2, 4: 6}[channels], 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    if isinstance(fp, str):
        with open(fp, "wb") as f:
            f.write(png)
    else:
        fp.write(png)


# PIL's resampling filters by torchvision's InterpolationMode names: (support, weight function)
def _triangle(x):
    x = numpy.abs(x)
    return numpy.where(x < 1.0, 1.0 - x, 0.0)


def _cubic(x, a=-0.5):
    x = numpy.abs(x)
    return numpy.where(x < 1.0, ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0,
                       numpy.where(x < 2.0, (((x - 5.0) * x + 8.0) * x - 4.0) * a, 0.0))


_FILTERS = {"bilinear": (1.0, _triangle), "bicubic": (2.0, _cubic)}
_PRECISION_BITS = 32 - 8 - 2   # PIL's fixed-point weights of 8-bit images


def _resize_weights(in_size, out_size, mode):
    """PIL's antialiased resampling along one axis: for each output index, the first source
    index and the normalised weights of the sources it reads (the filter stretched by the
    downscaling factor)."""
    support, kernel = _FILTERS[mode]
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support *= filterscale
    rows = []
    for i in range(out_size):
        center = (i + 0.5) * scale
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        w = kernel((numpy.arange(lo, hi) - center + 0.5) / filterscale)
        total = w.sum()
        rows.append((lo, w / total if total != 0.0 else w))
    return rows


def _resample_axis(img, out_size, mode, axis):
    """One axis of PIL's resampling of an (H, W, C) image: uint8 in PIL's fixed point (weights
    with 22 fractional bits, rounded half up, clipped to 0..255), floats in float64."""
    img = numpy.moveaxis(img, axis, 0)
    out = numpy.empty((out_size,) + img.shape[1:], img.dtype)
    for i, (lo, w) in enumerate(_resize_weights(img.shape[0], out_size, mode)):
        src = img[lo:lo + len(w)]
        if img.dtype == numpy.uint8:
            k = numpy.where(w >= 0, numpy.floor(0.5 + w * (1 << _PRECISION_BITS)),
                            numpy.ceil(-0.5 + w * (1 << _PRECISION_BITS))).astype(numpy.int64)
            acc = (1 << (_PRECISION_BITS - 1)) + numpy.tensordot(k, src.astype(numpy.int64), 1)
            out[i] = numpy.clip(acc >> _PRECISION_BITS, 0, 255)
        else:
            out[i] = numpy.tensordot(w, src.astype(numpy.float64), 1)
    return numpy.moveaxis(out, 0, axis)


def _resized_size(h, w, size, max_size):
    """torchvision's output (height, width): an int or 1-sequence is the smaller edge (the
    longer one scaled and truncated; capped at max_size), a pair is (height, width)."""
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return int(size[0]), int(size[1])
    short_new = int(size[0] if isinstance(size, (list, tuple)) else size)
    short, long = (w, h) if w <= h else (h, w)
    long_new = int(short_new * long / short)
    if max_size is not None:
        if max_size <= short_new:
            raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size for "
                             f"the smaller edge size = {size}")
        if long_new > max_size:
            short_new, long_new = int(max_size * short_new / long_new), max_size
    return (long_new, short_new) if w <= h else (short_new, long_new)


class ResizeTorch:
    """torchvision.transforms.Resize(size, interpolation=BILINEAR, max_size=None, antialias=True)
    on the (H, W[, C]) image of a MindSpore pipeline (where torchvision resizes a PIL image,
    before ToTensor): torchvision's output size; an image already that size unchanged; otherwise
    PIL's resampling, antialiased for bilinear and bicubic (as PIL always is), nearest reading the
    source pixel under each output pixel's centre. uint8 images in PIL's integer arithmetic.
    (MindSpore's vision.Resize interpolates OpenCV's way, without antialiasing: other pixels.)

    Raises:
        ValueError: a size that is not an int or a sequence of 1 or 2 ints; an interpolation
            other than nearest, bilinear, bicubic; an image that is not 2-D or 3-D.
    """

    def __init__(self, size, interpolation=None, max_size=None, antialias=True):
        if not (isinstance(size, int) or isinstance(size, (list, tuple)) and len(size) in (1, 2)):
            raise ValueError(f"Size must be an int or a 1 or 2 element tuple/list, not {size!r}.")
        if isinstance(interpolation, int) and not isinstance(interpolation, bool):
            interpolation = {0: "nearest", 2: "bilinear", 3: "bicubic"}.get(interpolation, interpolation)  # PIL's
        mode = "bilinear" if interpolation is None else str(getattr(interpolation, "name", interpolation)).lower()
        mode = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
        if mode not in ("nearest", "bilinear", "bicubic"):
            raise ValueError(f"For 'Resize' (torch signature), the interpolation must be NEAREST, BILINEAR or "
                             f"BICUBIC, but got {interpolation!r}.")
        self.size, self.mode, self.max_size, self.antialias = size, mode, max_size, antialias

    def __call__(self, img):
        img = numpy.asarray(img)
        if img.ndim not in (2, 3):
            raise ValueError(f"For 'Resize' (torch signature), the image must be (H, W) or (H, W, C), "
                             f"but got shape {img.shape}.")
        h, w = img.shape[:2]
        oh, ow = _resized_size(h, w, self.size, self.max_size)
        if (oh, ow) == (h, w):
            return img
        flat = img[..., None] if img.ndim == 2 else img
        if self.mode == "nearest":
            rows = numpy.floor((numpy.arange(oh) + 0.5) * h / oh).astype(numpy.int64)
            cols = numpy.floor((numpy.arange(ow) + 0.5) * w / ow).astype(numpy.int64)
            out = flat[numpy.minimum(rows, h - 1)][:, numpy.minimum(cols, w - 1)]
        else:
            out = _resample_axis(flat, ow, self.mode, 1) if ow != w else flat
            out = _resample_axis(out, oh, self.mode, 0) if oh != h else out
            if out.dtype != img.dtype:
                out = out.astype(img.dtype)
        return out[..., 0] if img.ndim == 2 else out
