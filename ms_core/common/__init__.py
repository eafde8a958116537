"""`ms_core.common`: dtypes, Tensor, Parameter and initializers, as in `mindspore.common`."""
from . import dtype
from .tensor import Tensor
from .parameter import Parameter, ParameterTuple
