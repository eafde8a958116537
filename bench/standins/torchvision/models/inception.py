"""torchvision.models.inception's blocks (bench stand-in): subclassable names; building one raises."""
import torch


class _Unavailable(torch.nn.Module):
    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"a block of torchvision.models.inception ({type(self).__name__}) is not in the "
                           "bench's torchvision stand-in")


class InceptionA(_Unavailable):
    pass


class InceptionC(_Unavailable):
    pass


class InceptionE(_Unavailable):
    pass
