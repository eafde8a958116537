"""The metaclass of the torch-signature classes (``TorchConv2d``, ``TorchSequential``, ...).

A torch-signature class is a subclass of a MindSpore class (``TorchConv2d(nn.Conv2d)``) whose
``__init__`` takes torch's arguments. In torch, the class the converted code builds through it
and the class a static translation builds (``nn.Conv2d(...)`` written out) are one class,
``torch.nn.Conv2d``. Converted code may meet both for the same torch class, so the metaclass makes
the pair behave as one class where torch code looks:

- ``isinstance(m, TorchConv2d)`` / ``issubclass`` are true for the MindSpore class's instances
  (``isinstance(m, conv_layer)`` with ``conv_layer = nn.Conv2d`` converted to ``TorchConv2d``,
  ``m`` built statically as ``nn.Conv2d``);
- ``TorchLinear == nn.Dense`` and both hash alike: torch code compares and keys by class
  (``type(m) == nn.Linear``, ``type(m) in (nn.Conv2d, nn.Linear)``, ``{nn.Conv2d: count_conv}``);
- ``__name__`` is torch's (``Conv2d``): code dispatches on it (``norm_layer.__name__.lower()``);
- a list of ints given to it is a tuple: torch takes any sequence of sizes (``pool(kernel_size=[2, 2])``,
  nnU-Net's strides), MindSpore 2.10's layers an int or a tuple only. Only when the class built is
  the torch-signature class itself: a subclass of the user's has its own ``__init__``, which may
  test for a list (geffnet's ``MixedConv2d(nn.ModuleDict)``: ``isinstance(kernel_size, list)``);
- ``inspect.signature`` of the class is its ``__init__``'s, as for any class (the ``__call__``
  here takes anything): code that asks a layer class which keywords it takes (monai's
  ``has_option(norm_type, "num_features")``) gets torch's parameters.

Each generated class exists once (in :mod:`migrate.runtime.generated`), so nothing here compares
copies of a class made in different files.
"""
import inspect

from .backend import nn


class TorchSignature(type(nn.Cell)):
    """Metaclass of the torch-signature classes: one of them and its MindSpore class (its
    ``_torch_base``) pass isinstance/issubclass with either, compare equal and hash alike; its
    ``__name__`` is torch's."""

    def __init__(cls, name, bases, namespace, **kwargs):
        super().__init__(name, bases, namespace, **kwargs)
        if "_torch_base" in namespace and name.startswith("Torch"):
            cls.__name__ = name[len("Torch"):]

    def __call__(cls, *args, **kwargs):
        if "_torch_base" in cls.__dict__:
            args = tuple(_sizes(a) for a in args)
            kwargs = {k: _sizes(v) for k, v in kwargs.items()}
        return super().__call__(*args, **kwargs)

    @property
    def __signature__(cls):
        init = inspect.signature(cls.__init__)
        return init.replace(parameters=list(init.parameters.values())[1:])

    def __instancecheck__(cls, obj):
        base = cls.__dict__.get("_torch_base")
        return isinstance(obj, base) if base is not None else super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub):
        base = cls.__dict__.get("_torch_base")
        return issubclass(sub, base) if base is not None else super().__subclasscheck__(sub)

    def __eq__(cls, other):
        base = cls.__dict__.get("_torch_base")
        if base is not None and other is base:
            return True
        return super().__eq__(other)

    def __hash__(cls):
        base = cls.__dict__.get("_torch_base")
        return hash(base) if base is not None else super().__hash__()


def _sizes(value):
    """A list of ints as a tuple (torch's sequence of sizes, MindSpore's tuple); anything else as it is."""
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    return value
