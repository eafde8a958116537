"""A bench-only stand-in for torchvision's MNIST data path (torchvision does not import beside the
torch installed here). It is this project's own code, written from torchvision's documented
behaviour, and is put on the path of the *original* side of the realworld and recipe script rows
only, so that scripts that read MNIST or CIFAR-10 through torchvision run under torch:

- datasets.MNIST / FashionMNIST(root, train, transform, target_transform, download): the idx
  files of root/<class name>/raw (train-* or t10k-*); items (transform(image), int(label)); the
  image is the (28, 28) uint8 array (torchvision hands a mode-'L' PIL image to the transform);
- datasets.CIFAR10(root, train, ...): the python pickles of root/cifar-10-batches-py, images as
  (32, 32, 3) uint8 arrays (torchvision hands an RGB PIL image);
- transforms.Compose / ToTensor (uint8 (H, W[, C]) -> (C, H, W) float32 / 255) / Normalize
  ((x - mean) / std per channel) / Lambda / Pad (zeros) / RandomCrop / RandomHorizontalFlip
  (torch.rand / torch.randint draws, as torchvision; the identity when `transforms.AUGMENT` is
  False, which bench/recipes.py sets for rows whose two sides cannot draw alike);
- utils.make_grid (torchvision's layout) and utils.save_image: writes the tensor's values with
  numpy (no image file); models: importable, every architecture raises (none is provided);
  `__version__`.

The converted side never sees it (its code imports no torchvision), and the numbers it produces are
the formula the unit tests hold torchvision to (tests/migrate/convert/vision).
"""
from . import datasets, models, transforms, utils  # noqa: F401

__version__ = "0.28.0"
