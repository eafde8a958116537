"""`ms_core.experimental`: MindSpore's experimental APIs (PyTorch-semantics optimizers and lr
schedulers in `experimental.optim`)."""
from . import optim  # noqa: F401
