"""`ms_core.nn`: Cell, layers, losses, optimizers."""
from .cell import Cell, HookHandle  # noqa: F401
from .layer.basic import Dense, Flatten, Identity  # noqa: F401
from .layer.activation import ReLU, Sigmoid, Tanh, Softmax, LogSoftmax, get_activation  # noqa: F401
from .loss.loss import LossBase, MSELoss, L1Loss, BCEWithLogitsLoss  # noqa: F401
