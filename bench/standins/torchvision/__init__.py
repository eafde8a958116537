"""A bench-only stand-in for torchvision's MNIST data path (torchvision does not import beside the
torch installed here). It is this project's own code, written from torchvision's documented
behaviour, and is put on the path of the *original* side of the realworld script rows only, so that
pytorch/examples' mnist/main.py runs under torch:

- datasets.MNIST(root, train, transform, target_transform, download): the idx files of
  root/MNIST/raw (train-* or t10k-*); items (transform(image), int(label)); the image is the
  (28, 28) uint8 array (torchvision hands a mode-'L' PIL image to the transform);
- transforms.Compose / ToTensor (uint8 (H, W[, C]) -> (C, H, W) float32 / 255) / Normalize
  ((x - mean) / std per channel).

The converted side never sees it (its code imports no torchvision), and the numbers it produces are
the formula the unit tests hold torchvision to (tests/migrate/convert/vision).
"""
from . import datasets, transforms  # noqa: F401
