"""torchvision.models (bench stand-in; see the package docstring): importable, and a class of
torchvision's Inception can be subclassed at import (as FID code does); no architecture is
provided, so building one raises."""
from . import inception  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def unavailable(*args, **kwargs):
        raise RuntimeError(f"torchvision.models.{name} is not in the bench's torchvision stand-in")
    return unavailable
