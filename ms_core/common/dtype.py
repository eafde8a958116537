"""MindSpore dtypes (`ms.float32`, ...) mapped onto NumPy dtypes."""
import numpy as np

__all__ = ["Type", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "bool_", "complex64", "complex128", "bfloat16", "half", "single",
           "double", "float_", "int_", "number_type", "float_type", "int_type", "dtype_to_nptype"]


class Type:
    """A MindSpore dtype: prints as MindSpore does (`Float32`) and knows its NumPy dtype."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)

    def __str__(self):
        return self.name

    def __repr__(self):
        # MindSpore 2.10 prints `mindspore.float32` for repr (in lists, tuples) and `Float32`
        # for str; the same code prints the same on both
        return "mindspore." + _REPR_NAMES.get(self.name, self.name.lower())

    def __eq__(self, other):
        if isinstance(other, Type):
            return self.name == other.name
        return NotImplemented

    def __hash__(self):
        return hash(self.name)

    @property
    def is_floating_point(self):
        return self.np_dtype.kind == "f"


class _NoNumPyType(Type):
    """A MindSpore dtype that NumPy has no counterpart of (``bfloat16``). It exists, compares and
    prints as MindSpore's does, so code that names it (``{'bfloat16': ms.bfloat16}``) runs; making
    a tensor of it raises, since ms_core computes with NumPy and would silently round otherwise."""

    __slots__ = ()

    def __init__(self, name):
        self.name = name

    @property
    def np_dtype(self):
        raise TypeError(f"For '{self.name}', ms_core computes with NumPy, which has no "
                        f"{self.name.lower()} type: compute in ms.float32 or ms.float16 (MindSpore "
                        f"itself supports {self.name.lower()}).")

    @property
    def is_floating_point(self):
        return True


_REPR_NAMES = {"Bool": "bool", "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32",
               "UInt64": "uint64"}

float16 = Type("Float16", np.float16)
float32 = Type("Float32", np.float32)
float64 = Type("Float64", np.float64)
int8 = Type("Int8", np.int8)
int16 = Type("Int16", np.int16)
int32 = Type("Int32", np.int32)
int64 = Type("Int64", np.int64)
uint8 = Type("UInt8", np.uint8)
uint16 = Type("UInt16", np.uint16)
uint32 = Type("UInt32", np.uint32)
uint64 = Type("UInt64", np.uint64)
bool_ = Type("Bool", np.bool_)
complex64 = Type("Complex64", np.complex64)
complex128 = Type("Complex128", np.complex128)
bfloat16 = _NoNumPyType("BFloat16")
half, single, double = float16, float32, float64
float_ = float32
int_ = int64

_BY_NP = {t.np_dtype: t for t in (float16, float32, float64, int8, int16, int32, int64, uint8,
                                   uint16, uint32, uint64, bool_, complex64, complex128)}


def to_np(dtype):
    """Turn a MindSpore Type, NumPy dtype or Python type into a NumPy dtype."""
    if isinstance(dtype, Type):
        return dtype.np_dtype
    if dtype is float:
        return np.dtype(np.float32)
    if dtype is int:
        return np.dtype(np.int64)
    if dtype is bool:
        return np.dtype(np.bool_)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"For 'dtype', the value must be a MindSpore dtype such as ms.float32, "
                        f"but got {dtype!r}.") from None


def dtype_to_nptype(type_):
    """The NumPy scalar type of a MindSpore dtype, as ``mindspore.dtype_to_nptype``.

    Args:
        type_: a MindSpore dtype (``ms.float32``).

    Returns:
        The NumPy type (``numpy.float32``).

    Raises:
        TypeError: when ``type_`` is not a dtype.

    Example:
        >>> np.finfo(dtype_to_nptype(float16)).eps
        0.000977
    """
    return to_np(type_).type


def from_np(np_dtype):
    """The MindSpore Type of a NumPy dtype."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"NumPy dtype {np_dtype} has no MindSpore equivalent.") from None


number_type = (int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64)
float_type = (float16, float32, float64)
int_type = (int8, int16, int32, int64)
