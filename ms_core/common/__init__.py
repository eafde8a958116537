"""`ms_core.common`: dtypes, Tensor, Parameter and initializers, as in `mindspore.common`."""
from . import dtype  # noqa: F401
from .tensor import Tensor  # noqa: F401
from .parameter import Parameter, ParameterTuple  # noqa: F401
