"""`ms_core.Parameter` and `ParameterTuple`."""
import numpy as np

from . import dtype as mstype
from .initializer import Initializer, initializer
from .tensor import Tensor, _infer_array


class Parameter(Tensor):
    """A trainable Tensor with a name, as `mindspore.Parameter`.

    Args:
        default_input: Tensor, numpy array, number, or an Initializer (its values are drawn).
        name: the parameter's name; a Cell renames unnamed parameters to their attribute path.
        requires_grad: whether gradients are taken with respect to it.

    Example:
        >>> w = Parameter(Tensor(np.ones((2, 3)), ms.float32), name="w")
    """

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        if isinstance(default_input, Initializer):
            default_input = default_input.init_data()
        super().__init__(default_input)
        if isinstance(default_input, Tensor):
            self._data = default_input._data.copy()
        self._name = name
        self._user_named = name is not None
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel

    @property
    def requires_grad(self):
        return self._track

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Parameter', the 'requires_grad' must be bool, but got "
                            f"{type(value).__name__}.")
        self._track = value

    @property
    def name(self):
        return self._name if self._name is not None else "Parameter"

    @name.setter
    def name(self, value):
        if not isinstance(value, str):
            raise TypeError(f"For 'Parameter', the 'name' must be str, but got {type(value).__name__}.")
        self._name = value

    @property
    def data(self):
        return self

    @data.setter
    def data(self, value):
        # MindSpore 2.10: `p.data = t` gives the parameter t's values, shape and dtype
        self.set_data(value, slice_shape=True)

    @property
    def value(self):
        return Tensor._wrap(self._data)

    def set_data(self, data, slice_shape=False):
        """Replace the values (a Tensor, array or number); the shape must match unless `slice_shape`.

        Raises:
            ValueError: the new shape differs from the parameter's.
        """
        if isinstance(data, Initializer):
            data = data.init_data()
        arr = _infer_array(data, None)
        if arr.shape != self._data.shape and not slice_shape:
            if arr.size == 1 and self._data.size == 1:
                arr = arr.reshape(self._data.shape)
            else:
                raise ValueError(f"For 'Parameter.set_data', the shape of the new data must equal the "
                                 f"parameter '{self.name}' shape {list(self._data.shape)}, but got "
                                 f"{list(arr.shape)}.")
        if arr.dtype != self._data.dtype and not slice_shape:
            arr = arr.astype(self._data.dtype)
        if isinstance(data, Tensor) and arr is data._data or arr is data:
            arr = arr.copy()  # never alias another tensor's or the caller's buffer
        self._data = arr
        return self

    def set_dtype(self, dtype):
        """Convert the values to `dtype` in place (a MindSpore Type); returns the new dtype, as
        MindSpore 2.10 does.

        Raises:
            TypeError: `dtype` is not a MindSpore type.
        """
        if not isinstance(dtype, mstype.Type):
            raise TypeError(f"For 'Parameter.set_dtype', the 'dtype' must be a mindspore type, but got "
                            f"{type(dtype).__name__}.")
        self._data = self._data.astype(dtype.np_dtype)
        return self.dtype

    def assign_value(self, value):
        return self.set_data(value)

    def clone(self, init="same"):
        """A copy of this Parameter (values copied, same name prefixed by nothing)."""
        p = Parameter(Tensor._wrap(self._data.copy()), name=self._name, requires_grad=self.requires_grad)
        if init != "same":
            p.set_data(initializer(init, self.shape, self.dtype))
        return p

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    def __reduce__(self):
        return (_rebuild_parameter, (self._data, self._name, self.requires_grad))


def _rebuild_parameter(data, name, requires_grad):
    return Parameter(Tensor._wrap(np.array(data)), name=name, requires_grad=requires_grad)


class ParameterTuple(tuple):
    """A tuple of Parameters (what `trainable_params()` can be wrapped in)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'ParameterTuple', every element must be a Parameter, but got "
                                f"{type(p).__name__}.")
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
