"""`ms_core.Tensor`: a NumPy array with MindSpore's API, dtype inference and printing."""
import re
import weakref

import numpy as np

from . import dtype as mstype
from .._engine import _NO_CTX, apply, recording
from .._registry import ops
from .tensor_methods import TensorMethods



def _infer_array(data, dtype):
    """Convert input data to an array with MindSpore's dtype inference."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    elif isinstance(data, bool):
        arr = np.asarray(data, dtype=np.bool_)
    elif isinstance(data, int):
        arr = np.asarray(data, dtype=np.int64)
    elif isinstance(data, float):
        arr = np.asarray(data, dtype=np.float32)
    elif isinstance(data, complex):
        arr = np.asarray(data, dtype=np.complex128)  # MindSpore: a Python complex is Complex128
    elif isinstance(data, (list, tuple)):
        items = [x.asnumpy() if isinstance(x, Tensor) else x for x in data]
        try:
            arr = np.asarray(items)
        except ValueError:
            arr = np.empty(0, dtype=object)  # ragged: reported below
        if arr.dtype == np.float64 and not any(isinstance(x, np.ndarray) and x.dtype == np.float64
                                                for x in items):
            arr = arr.astype(np.float32)  # Python floats infer Float32, as in MindSpore
        elif arr.dtype.kind == "i":
            arr = arr.astype(np.int64)
        if arr.dtype == object:
            raise TypeError("For 'Tensor', the input_data must be a number, bool, nested list or "
                            "tuple of numbers, or numpy.ndarray, but got a ragged or mixed sequence.")
    else:
        raise TypeError("For 'Tensor', the input_data must be a Tensor, numpy.ndarray, number, bool, "
                        f"complex, list or tuple, but got {type(data).__name__}.")
    if dtype is not None:
        target = np.dtype(mstype.to_np(dtype))
        if arr.dtype.kind == "c" and target.kind not in "cb":
            arr = arr.real  # MindSpore keeps the real part (NumPy would warn)
        arr = arr.astype(target, copy=False)
    return arr


def _fmt_scalar(v):
    if isinstance(v, (np.floating, float)):
        return f"{float(v):g}"
    if isinstance(v, (np.bool_, bool)):
        return "True" if v else "False"
    return str(v)


_CPU = ("cpu", "CPU")


def _to(t, device=None, dtype=None, non_blocking=False, copy=False):
    """Tensor.to's overloads: a dtype passed first is the dtype (`to(ms.float16)`)."""
    if device is not None and not isinstance(device, str):
        device, dtype = None, device if dtype is None else dtype
    if device is not None and device not in _CPU:
        if device in ("Ascend", "npu", "GPU", "gpu"):
            raise RuntimeError(f"For 'to', the device {device!r} is not available: ms_core runs "
                               "on the CPU.")
        raise ValueError(f"Failed to convert the value {device!r} of input 'device' of 'to' to "
                         "enum.")
    if dtype is None:
        return t.copy() if copy else t
    return ops.cast(t, dtype)


def _bitwise_or_logical(bitwise, logical, a, b):
    """``a & b`` / ``|`` / ``^``: bitwise when both operands are integers (MindSpore's BitwiseAnd...), logical
    otherwise (bool tensors, where the two agree)."""
    kinds = [v._data.dtype.kind if isinstance(v, Tensor) else np.asarray(v).dtype.kind for v in (a, b)]
    return bitwise(a, b) if all(k in "iu" for k in kinds) else logical(a, b)


class Tensor(TensorMethods):
    """A multi-dimensional array with MindSpore's Tensor API, backed by NumPy.

    Args:
        input_data: number, bool, (nested) list/tuple, numpy.ndarray or Tensor.
        dtype: a MindSpore dtype (`ms.float32`, ...); inferred when None (Python float -> Float32,
            int -> Int64, arrays keep their dtype).
        shape, init: with `input_data=None`, build a Tensor of `shape` from initializer `init`.

    Example:
        >>> Tensor([[1, 2]], ms.float32) * 2
        Tensor(shape=[1, 2], dtype=Float32, value=
        [[ 2.00000000e+00,  4.00000000e+00]])
    """

    __array_priority__ = 100  # numpy scalars on the left defer to Tensor's operators
    _track = False  # Parameters with requires_grad are tracked leaves
    # Views (torch's and MindSpore's share memory with their base): a view keeps its base (never
    # itself a view) and the view primitives that compute it from the base; a base keeps weak
    # references to its live views. Values stay functional (no array is written in place): a write
    # into a view rebinds the base to a copy with the view's elements replaced, then every live
    # view of the base is recomputed from it (see _rebind).
    _base = None
    _steps = ()
    _views = None

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False,
                 const_arg=False):
        self._node = None
        self._index = 0
        if input_data is None:
            if init is None or shape is None:
                raise ValueError("For 'Tensor', when 'input_data' is None, 'init' and 'shape' must "
                                 "both be given.")
            arr = ops.initializer(init, shape, dtype if dtype is not None else mstype.float32).init_data()._data
        else:
            arr = _infer_array(input_data, dtype)
            source = input_data._data if isinstance(input_data, Tensor) else input_data
            if arr is source:
                arr = arr.copy()  # a Tensor owns its values: later edits of the source don't leak in
        self._data = arr

    @classmethod
    def _wrap(cls, arr):
        """Wrap an array without inference or copy (internal fast path)."""
        t = Tensor.__new__(Tensor)
        t._data = arr if isinstance(arr, np.ndarray) else np.asarray(arr)
        t._node = None
        t._index = 0
        return t

    # --- basic properties -------------------------------------------------------------
    @property
    def shape(self):
        return self._data.shape

    @property
    def dtype(self):
        return mstype.from_np(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def size(self):
        return self._data.size

    @property
    def itemsize(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    @property
    def strides(self):
        return self._data.strides

    @property
    def device(self):
        """Where the values live: 'CPU' (MindSpore 2.10's Tensor.device on the CPU backend; torch
        code reads x.device to make tensors beside x, which MindSpore places by set_context)."""
        return "CPU"

    @property
    def T(self):
        return ops.transpose(self, tuple(range(self.ndim))[::-1])

    @property
    def mT(self):
        """The last two axes swapped (MindSpore 2.10's Tensor.mT; torch's too)."""
        return ops.swapaxes(self, -2, -1)

    def asnumpy(self):
        """The values as a numpy.ndarray (a copy is not made; do not mutate it)."""
        return self._data

    def numpy(self):
        return self._data

    def item(self, index=None):
        """The value of a one-element Tensor as a Python number."""
        if index is None and self._data.size != 1:
            raise ValueError(f"For 'Tensor.item', the Tensor must have exactly one element when no "
                             f"index is given, but got shape {list(self.shape)}.")
        return self._data.item() if index is None else self._data.item(index)

    def tolist(self):
        return self._data.tolist()

    def astype(self, dtype, copy=True):
        return ops.cast(self, dtype)

    def float(self):
        return ops.cast(self, mstype.float32)

    def int(self):
        return ops.cast(self, mstype.int32)

    def long(self):
        return ops.cast(self, mstype.int64)

    def bool(self):
        return ops.cast(self, mstype.bool_)

    def half(self):
        return ops.cast(self, mstype.float16)

    def double(self):
        return ops.cast(self, mstype.float64)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def dim(self):
        return self.ndim

    def numel(self):
        return self.size

    def nelement(self):
        return self.size

    def init_data(self):
        return self

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor.")
        return self.shape[0]

    def __bool__(self):
        if self._data.size != 1:
            raise ValueError(f"The truth value of a Tensor with {self._data.size} elements is "
                             "ambiguous; use .any() or .all().")
        return bool(self._data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iu":
            raise TypeError("Only integer Tensors can be used as an index.")
        return int(self.item())

    def __hash__(self):
        return id(self)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    # --- printing ---------------------------------------------------------------------
    def __str__(self):
        return str(self._data)

    def __format__(self, spec):
        # f"{loss:.4f}" on a one-element Tensor formats its value, as it does for NumPy scalars
        if spec and self._data.size == 1:
            return format(self._data.item(), spec)
        return format(str(self), spec)

    def __repr__(self):
        a = self._data
        head = f"Tensor(shape={list(a.shape)}, dtype={self.dtype}, value="
        if a.ndim == 0:
            return f"{head} {_fmt_scalar(a[()])})"
        formatter = {"float_kind": lambda v: f"{v: .8e}"} if a.dtype.kind == "f" else None
        body = np.array2string(a, separator=", ", threshold=1000, edgeitems=3, formatter=formatter,
                               max_line_width=1 << 30)  # MindSpore never wraps a row
        body = body.replace(", ...,", " ...")  # MindSpore elides without the commas
        body = re.sub(r",\n(?:[ ]*\n)+", ",\n", body)  # and has no blank lines between blocks
        # MindSpore 2.x keeps 1-D values on the header line and starts N-D values on a new one
        return f"{head} {body})" if a.ndim == 1 else f"{head}\n{body})"

    # --- operators --------------------------------------------------------------------
    def __add__(self, o): return ops.add(self, o)
    def __radd__(self, o): return ops.add(o, self)
    def __sub__(self, o): return ops.sub(self, o)
    def __rsub__(self, o): return ops.sub(o, self)
    def __mul__(self, o): return ops.mul(self, o)
    def __rmul__(self, o): return ops.mul(o, self)
    def __truediv__(self, o): return ops.div(self, o)
    def __rtruediv__(self, o): return ops.div(o, self)
    def __floordiv__(self, o): return ops.floor_div(self, o)
    def __rfloordiv__(self, o): return ops.floor_div(o, self)
    def __mod__(self, o): return ops.floor_mod(self, o)
    def __rmod__(self, o): return ops.floor_mod(o, self)
    def __pow__(self, o): return ops.pow(self, o)
    def __rpow__(self, o): return ops.pow(o, self)
    def __matmul__(self, o): return ops.matmul(self, o)
    def __rmatmul__(self, o): return ops.matmul(o, self)
    def __neg__(self): return ops.neg(self)
    def __pos__(self): return self
    def __abs__(self): return ops.abs(self)
    def __invert__(self): return ops.logical_not(self)
    # bitwise on integers, as MindSpore's (on bool tensors the same as logical)
    def __and__(self, o): return _bitwise_or_logical(ops.bitwise_and, ops.logical_and, self, o)
    def __rand__(self, o): return _bitwise_or_logical(ops.bitwise_and, ops.logical_and, o, self)
    def __or__(self, o): return _bitwise_or_logical(ops.bitwise_or, ops.logical_or, self, o)
    def __ror__(self, o): return _bitwise_or_logical(ops.bitwise_or, ops.logical_or, o, self)
    def __xor__(self, o): return _bitwise_or_logical(ops.bitwise_xor, ops.logical_xor, self, o)
    def __rxor__(self, o): return _bitwise_or_logical(ops.bitwise_xor, ops.logical_xor, o, self)
    def __eq__(self, o): return ops.equal(self, o)
    def __ne__(self, o): return ops.not_equal(self, o)
    def __lt__(self, o): return ops.less(self, o)
    def __le__(self, o): return ops.less_equal(self, o)
    def __gt__(self, o): return ops.greater(self, o)
    def __ge__(self, o): return ops.greater_equal(self, o)

    def __getitem__(self, index):
        return ops.getitem(self, index)

    def __setitem__(self, index, value):
        # Functional update (as MindSpore does): self becomes the result of a differentiable op.
        # The op's input is an alias holding self's current graph position; passing self would
        # make the node its own input once self is rebound below.
        if self._base is not None:  # only the indexed elements are written (an expanded view repeats some)
            self._write_base(self._flat_index()[ops._index_arg(index)], value, "__setitem__")
            return
        before = Tensor._wrap(self._data)
        before._node, before._index = self._node, self._index
        self._rebind(ops.setitem(before, index, value), "__setitem__")

    # --- views ----------------------------------------------------------------------------
    def _view_of(self, source, prim):
        """Make self (``prim`` applied to ``source``) a view of source's base: in-place writes
        into either reach the other, as in torch and MindSpore."""
        if self is source:
            return self
        base = source._base
        if base is None:
            base, self._steps = source, (prim,)
        else:
            self._steps = source._steps + (prim,)
        self._base = base
        views = base._views
        if views is None:
            base._views = [weakref.ref(self)]
            return self
        views.append(weakref.ref(self))
        n = len(views)
        if n >= 64 and not n & (n - 1):  # at each power of two the dead references are dropped
            views[:] = [r for r in views if r() is not None]
        return self

    def _rebind(self, result, name):
        """self takes ``result``'s values and place in the graph. A view writes them into its base
        (differentiably: the base becomes ops._write_view of its old values, torch's CopySlices);
        then every live view of the base, this one too, is recomputed from the new base."""
        if self._base is not None:
            self._write_base(self._flat_index(), result, name)
            return
        self._data, self._node, self._index = result._data, result._node, result._index
        if self._views is not None:
            live = [(r, r()) for r in self._views]
            live = [(r, view) for r, view in live if view is not None]
            self._views[:] = [r for r, _ in live]
            tracked = recording() and (self._node is not None or self._track)
            for _, view in live:
                if tracked:
                    out = self
                    for prim in view._steps:
                        out = apply(prim, out)
                    view._data, view._node, view._index = out._data, out._node, out._index
                    continue
                arr = self._data  # nothing to record: the view primitives on the array
                for prim in view._steps:
                    arr = prim.forward(_NO_CTX, arr)
                view._data, view._node, view._index = arr, None, 0

    def _write_base(self, positions, value, name):
        """Write ``value`` at the flat ``positions`` of this view's base (then its views are
        recomputed). Positions that repeat (an expanded view) would take one of several values:
        refused, as torch refuses it."""
        if any(getattr(prim, "repeats_elements", False) for prim in self._steps) and \
                np.unique(positions).size != positions.size:
            raise RuntimeError(f"For 'Tensor.{name}', the written elements of this view share memory "
                               "(it was expanded with broadcast_to / expand): the write is ambiguous. "
                               "Write into a copy (Tensor.copy()) or into the Tensor it was expanded from.")
        base = self._base
        base._rebind(ops._write_view(base._alias_for_write(name), value, positions), name)

    def _alias_for_write(self, name):
        """An alias of this base at its current place in the graph, the input of a write through
        one of its views. torch refuses such a write into a leaf that takes gradients; so does
        ms_core while gradients are recorded (MindSpore 2.10 drops the write from the gradient)."""
        if self._node is None and self._track and recording():
            raise RuntimeError(f"For 'Tensor.{name}', a view of a Tensor that gradients are taken with "
                               "respect to (a grad input or a Parameter that requires grad) is written "
                               "in place while a gradient is being recorded; compute a new Tensor "
                               "instead (for example with ops.concat or ops.where).")
        before = Tensor._wrap(self._data)
        before._node, before._index = self._node, self._index
        return before

    def _flat_index(self):
        """The flat positions in the base of this view's elements, in the view's shape."""
        positions = np.arange(self._base._data.size).reshape(self._base._data.shape)
        for prim in self._steps:
            positions = prim.forward(_NO_CTX, positions)
        return positions

    def __getstate__(self):
        # a copy (deepcopy, pickle) is a Tensor of its own: view links are not copied
        state = dict(self.__dict__)
        for name in ("_base", "_steps", "_views"):
            state.pop(name, None)
        return state

    # --- methods ------------------------------------------------------------------------
    def swapaxes(self, axis0, axis1):
        return ops.swapaxes(self, axis0, axis1)

    def expand_dims(self, axis):
        return ops.expand_dims(self, axis)

    def unsqueeze(self, dim):
        return ops.expand_dims(self, dim)

    def ravel(self):
        return ops.reshape(self, (-1,))

    def broadcast_to(self, shape):
        return ops.broadcast_to(self, shape)

    def expand_as(self, other):
        return ops.broadcast_to(self, other.shape)

    def abs(self): return ops.abs(self)
    def exp(self): return ops.exp(self)
    def log(self): return ops.log(self)
    def sqrt(self): return ops.sqrt(self)
    def rsqrt(self): return ops.rsqrt(self)
    def square(self): return ops.square(self)
    def neg(self): return ops.neg(self)
    def sin(self): return ops.sin(self)
    def cos(self): return ops.cos(self)
    def tanh(self): return ops.tanh(self)
    def sigmoid(self): return ops.sigmoid(self)
    def relu(self): return ops.relu(self)
    def floor(self): return ops.floor(self)
    def ceil(self): return ops.ceil(self)
    def sign(self): return ops.sign(self)
    def reciprocal(self): return ops.reciprocal(self)
    def log1p(self): return ops.log1p(self)
    def isnan(self): return ops.isnan(self)
    def isinf(self): return ops.isinf(self)
    def isfinite(self): return ops.isfinite(self)

    def pow(self, exponent):
        return ops.pow(self, exponent)

    def clip(self, min=None, max=None):
        return ops.clip_by_value(self, min, max)

    def clamp(self, min=None, max=None):
        return ops.clip_by_value(self, min, max)

    def matmul(self, other):
        return ops.matmul(self, other)

    def masked_fill(self, mask, value):
        return ops.masked_fill(self, mask, value)

    def fill_diagonal(self, fill_value, wrap=False):
        """The tensor with its main diagonal set to ``fill_value`` (a new tensor, as MindSpore's):
        a matrix's (i, i), with ``wrap`` continuing below a tall matrix's first square every
        ``cols + 1`` elements; a tensor of more dimensions, all of one size, its (i, i, ..., i)."""
        shape = self.shape
        if len(shape) < 2:
            raise ValueError(f"For 'fill_diagonal', the dimension of 'self' must be at least 2, but got {len(shape)}.")
        if len(shape) > 2 and len(set(shape)) != 1:
            raise ValueError(f"For 'fill_diagonal', when the dimension of 'self' is greater than 2, all its "
                             f"dimensions must have the same length, but got {tuple(shape)}.")
        mask = np.zeros(shape, dtype=bool)
        if len(shape) == 2:
            rows, cols = shape
            flat = np.arange(0, rows * cols, cols + 1)
            mask.reshape(-1)[flat if wrap else flat[:min(rows, cols)]] = True
        else:
            mask[(np.arange(shape[0]),) * len(shape)] = True
        value = Tensor(np.asarray(fill_value).astype(self._data.dtype))
        return ops.where(Tensor(mask), value, self)

    def fill(self, value):
        return Tensor._wrap(np.full_like(self._data, value))

    def assign_value(self, value):
        self._data = _infer_array(value, None)
        return self

    @property
    def data(self):
        """The tensor's values as a Tensor (MindSpore 2.10's ``Tensor.data``; not the tensor itself)."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value):
        # MindSpore 2.10: `t.data = v` gives t v's values, shape and dtype
        self._data = np.array(value._data if isinstance(value, Tensor) else _infer_array(value, None))

    def stop_gradient(self):
        return ops.stop_gradient(self)

    def detach(self):
        return ops.stop_gradient(self)

    def contiguous(self):
        """self, or a copy when self is a view whose elements are not in row-major order (as
        torch's: a write into the copy does not reach the base)."""
        return self if self._base is None or self._data.flags.c_contiguous else self.copy()

    def is_contiguous(self):
        return True

    def stride(self, dim=None):
        """The element strides of the tensor's (contiguous, row-major) layout, as MindSpore 2.10's
        Tensor.stride: a list, or one axis' stride."""
        out, step = [], 1
        for n in reversed(self.shape):
            out.append(step)
            step *= max(n, 1)
        out.reverse()
        return out if dim is None else out[dim]

    def asnumpy_of(self):
        return self._data

    def equal(self, other):
        return ops.equal(self, other)

    def t(self):
        if self.ndim > 2:
            raise ValueError(f"For 'Tensor.t', the input must be at most 2-D, but got {self.ndim}-D.")
        return ops.transpose(self, tuple(range(self.ndim))[::-1])

    def index_select(self, axis, index):
        return ops.index_select(self, axis, index)

    def narrow(self, axis, start, length):
        return ops.narrow(self, axis, start, length)

    def topk(self, k, dim=None, largest=True, sorted=True):
        return ops.topk(self, k, dim, largest, sorted)

    def unbind(self, dim=0):
        return ops.unbind(self, dim)

    def masked_select(self, mask):
        return ops.masked_select(self, mask)

    def where(self, condition, y):
        return ops.where(condition, self, y)

    def logical_not(self):
        return ops.logical_not(self)

    def bmm(self, mat2):
        return ops.bmm(self, mat2)

    def reshape_as(self, other):
        return ops.reshape(self, other.shape)

    def view_as(self, other):
        return ops.reshape(self, other.shape)

    def type_as(self, other):
        return ops.cast(self, other.dtype)

    def type(self, dtype=None):
        """The dtype's name ('Float32') without an argument, else a cast (as MindSpore 2.10)."""
        return str(self.dtype) if dtype is None else ops.cast(self, dtype)

    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):
        return ops.norm(self, ord, dim, keepdim, dtype=dtype)

    def tril(self, diagonal=0):
        return ops.tril(self, diagonal)

    def triu(self, diagonal=0):
        return ops.triu(self, diagonal)

    def gather_elements(self, dim, index):
        return ops.gather_elements(self, dim, index)

    def size_of(self, axis):
        return self.shape[axis]


ops.register("Tensor", Tensor)  # for the engine, which wraps every op's result in one
