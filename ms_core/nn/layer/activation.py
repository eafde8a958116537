"""Activation cells."""
from ..cell import Cell
from ...ops import functional as F


class ReLU(Cell):
    def construct(self, x):
        return F.relu(x)


class Sigmoid(Cell):
    def construct(self, x):
        return F.sigmoid(x)


class Tanh(Cell):
    def construct(self, x):
        return F.tanh(x)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def construct(self, x):
        return F.log_softmax(x, self.axis)


_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
                "logsoftmax": LogSoftmax}


def get_activation(name, prim_name=None):
    """The activation Cell registered under `name` ('relu', 'gelu', ...)."""
    key = name.lower()
    if key not in _ACTIVATIONS:
        raise KeyError(f"For 'get_activation', the name must be one of {sorted(_ACTIVATIONS)}, "
                       f"but got {name!r}.")
    return _ACTIVATIONS[key]()
