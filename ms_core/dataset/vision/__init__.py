"""`ms_core.dataset.vision`: image transforms for `dataset.map`, as `mindspore.dataset.vision`
(the ones a converted torchvision pipeline needs).

    import ms_core.dataset as ds
    data = ds.MnistDataset(folder, usage="train", shuffle=False)
    data = data.map([ds.vision.ToTensor(), ds.vision.Normalize([0.1307], [0.3081], is_hwc=False)],
                    input_columns="image")
"""
from .geometry import Inter, RandomRotation
from .transforms import (
    HWC2CHW,
    Border,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    ToTensor,
)

__all__ = ["HWC2CHW", "Border", "Inter", "Normalize", "Pad", "RandomCrop", "RandomHorizontalFlip", "RandomRotation",
           "ToTensor"]
