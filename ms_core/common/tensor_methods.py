"""The Tensor methods MindSpore 2.10 has for code written against torch's Tensor API.

MindSpore 2.10's Tensor methods take torch's signatures (``x.sum(dim=1, keepdim=True)``,
``x.transpose(0, 1)`` swaps two axes, ``x.max(1)`` gives (values, indices), ``x.add_(y)``) and
still accept their older MindSpore forms (``x.sum(axis=1, keepdims=True)``, ``x.transpose(1, 0, 2)``
with a full permutation); each method here resolves the two the way MindSpore does (checked on
2.10 CPU, torch 2.13 beside it), so converted code whose receiver the converter cannot type still
means what it meant in torch.

In-place methods (``add_``, ``mul_``, ``copy_``, ``clamp_`` ...) are differentiable here, as in
torch: the tensor takes the result's values and its place in the recorded graph. (MindSpore 2.10's
own in-place arithmetic is not: its gradients ignore the update; see the README.) An in-place
update of a Tensor that gradients are taken with respect to (a grad input, a Parameter that
requires grad) while a transform records raises, as torch does for leaves.

`TensorMethods` is a mixin of :class:`ms_core.Tensor`; it holds no state of its own.
"""
import builtins

import numpy as np

from .. import _engine, _random
from .._axes import check_axes
from .._registry import ops
from . import dtype as mstype


def _bind(name, args, kwargs, params, kwonly=()):
    """Bind a call to one signature: ``params`` are (name, default) pairs taken by position or
    keyword, ``kwonly`` (name, default) pairs by keyword only. Raises TypeError as MindSpore's
    overload resolution does when nothing matches."""
    if len(args) > len(params):
        raise TypeError(f"Failed calling {name} with {len(args)} positional arguments: it takes "
                        f"at most {len(params)}.")
    out = {p: d for p, d in list(params) + list(kwonly)}
    names = [p for p, _ in params]
    out.update(zip(names, args))
    for key, value in kwargs.items():
        if key not in out or key in names[:len(args)]:
            raise TypeError(f"Failed calling {name} with the keyword argument {key!r}.")
        out[key] = value
    return out


def _is_dtype(value):
    return isinstance(value, mstype.Type)


def _axes(value):
    return tuple(value) if isinstance(value, list) else value


def _sizes(args, name):
    """`f(2, 3)` or `f((2, 3))` / `f([2, 3])`: the sizes as a tuple."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for a in args:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"For 'Tensor.{name}', every size must be an int, but got "
                            f"{type(a).__name__}.")
    return tuple(int(a) for a in args)


class TensorMethods:
    """MindSpore 2.10 Tensor methods with torch's signatures (see the module docstring)."""

    # --- in-place machinery ---------------------------------------------------------------
    def _before(self, name):
        """An alias of self at its current place in the graph (the in-place op's input)."""
        if _engine.recording() and self._node is None and self._track:
            raise RuntimeError(f"For 'Tensor.{name}', an in-place operation on a Tensor that "
                               "gradients are taken with respect to (a grad input or a Parameter "
                               "that requires grad) is not supported while a gradient is being "
                               "recorded; compute a new Tensor instead.")
        before = type(self)._wrap(self._data)
        before._node, before._index = self._node, self._index
        return before

    def _become(self, name, result):
        """self takes `result`'s values (cast to self's dtype, broadcast to its shape) and its
        place in the graph; returns self."""
        result = ops._as_tensor(result)
        if result.shape != self.shape:
            try:
                np.broadcast_shapes(result.shape, self.shape)
            except ValueError:
                raise ValueError(f"For 'Tensor.{name}', the result of shape {list(result.shape)} "
                                 f"cannot be written into a Tensor of shape {list(self.shape)}.") from None
            if np.broadcast_shapes(result.shape, self.shape) != self.shape:
                raise ValueError(f"For 'Tensor.{name}', the result of shape {list(result.shape)} "
                                 f"cannot be written into a Tensor of shape {list(self.shape)}.")
            result = ops.broadcast_to(result, self.shape)
        result = ops.cast(result, self.dtype)
        if _engine.recording() and _engine.is_tracked(result):
            result = ops.identity(result)  # a node of its own: self never aliases an input leaf
        self._rebind(result, name)
        return self

    def _apply_(self, name, fn, *args):
        return self._become(name, fn(self._before(name), *args))

    def to(self, *args, **kwargs):
        """``to(dtype=None, non_blocking=False, copy=False)``, ``to(device=None, dtype=None,
        non_blocking=False, copy=False)`` or ``to(other, non_blocking=False, copy=False)``, as in
        MindSpore 2.10: the Tensor cast to ``dtype`` (or ``other``'s dtype). ms_core computes on
        the CPU: ``device`` may be None or ``'cpu'``; ``non_blocking`` changes nothing.

        Raises:
            ValueError: for a device other than the CPU.
            TypeError: for arguments that match none of the three forms.

        Example:
            >>> Tensor([1, 2]).to("cpu", ms.float32).dtype
            Float32
        """
        if args and isinstance(args[0], str) or "device" in kwargs:
            bound = _bind("to", args, kwargs, [("device", None), ("dtype", None),
                                               ("non_blocking", False), ("copy", False)])
        elif args and isinstance(args[0], TensorMethods) or "other" in kwargs:
            bound = _bind("to", args, kwargs, [("other", None), ("non_blocking", False), ("copy", False)])
            bound["dtype"] = bound.pop("other").dtype
        else:
            bound = _bind("to", args, kwargs, [("dtype", None), ("non_blocking", False), ("copy", False)])
        device, dtype = bound.get("device"), bound["dtype"]
        if device is not None and device != "cpu":
            raise ValueError(f"For 'Tensor.to', the 'device' must be None or 'cpu' (ms_core computes "
                             f"on the CPU), but got {device!r}.")
        if dtype is not None and not _is_dtype(dtype):
            raise TypeError(f"For 'Tensor.to', the 'dtype' must be a MindSpore dtype such as "
                            f"ms.float32, but got {dtype!r}.")
        out = self if dtype is None else ops.cast(self, dtype)
        return ops.identity(out) if bound["copy"] and out is self else out

    def copy(self):
        """A new Tensor with the same values; differentiable (torch's clone)."""
        out = ops.identity(self)
        if out._data is self._data:
            out._data = self._data.copy()  # running statistics are updated in place: never alias
        return out

    # --- in-place arithmetic (MindSpore 2.10 has each of these) ----------------------------
    def add_(self, other, *, alpha=1):
        """self += alpha * other, in place; returns self."""
        return self._apply_("add_", lambda x: ops.add(x, other if alpha == 1 else ops.mul(other, alpha)))

    def sub_(self, other, *, alpha=1):
        return self._apply_("sub_", lambda x: ops.sub(x, other if alpha == 1 else ops.mul(other, alpha)))

    def mul_(self, other):
        return self._apply_("mul_", lambda x: ops.mul(x, other))

    def div_(self, other, *, rounding_mode=None):
        return self._apply_("div_", lambda x: ops.div(x, other, rounding_mode=rounding_mode))

    def remainder_(self, other):
        return self._apply_("remainder_", lambda x: ops.floor_mod(x, other))

    def floor_divide_(self, other):
        return self._apply_("floor_divide_", lambda x: ops.floor_div(x, other))

    def clamp_(self, min=None, max=None):
        return self._apply_("clamp_", lambda x: ops.clip_by_value(x, min, max))

    def masked_fill_(self, mask, value):
        return self._apply_("masked_fill_", lambda x: ops.masked_fill(x, mask, value))

    def sigmoid_(self):
        return self._apply_("sigmoid_", ops.sigmoid)

    def tanh_(self):
        return self._apply_("tanh_", ops.tanh)

    def exp_(self):
        return self._apply_("exp_", ops.exp)

    def log_(self):
        return self._apply_("log_", ops.log)

    def floor_(self):
        return self._apply_("floor_", ops.floor)

    def sign_(self):
        return self._apply_("sign_", ops.sign)

    def zero_(self):
        return self._become("zero_", ops.zeros_like(self))

    def fill_(self, value):
        """Every element set to `value` (a number or a 0-d Tensor, which gradients reach)."""
        return self._become("fill_", ops.broadcast_to(ops.cast(ops._as_tensor(value), self.dtype), self.shape))

    def copy_(self, src, non_blocking=False):
        """self's values replaced by src's (broadcast to self's shape, cast to its dtype);
        gradients flow to src."""
        return self._become("copy_", ops._as_tensor(src))

    def scatter_(self, dim, index, src):
        return self._apply_("scatter_", lambda x: ops.scatter(x, dim, index, src))

    def scatter_add_(self, dim, index, src):
        return self._apply_("scatter_add_", lambda x: ops.tensor_scatter_elements(
            x, index, src, dim, "add"))

    def index_fill_(self, dim, index, value):
        return self._apply_("index_fill_", lambda x: ops.index_fill(x, dim, index, value))

    def index_add_(self, dim, index, source, *, alpha=1):
        return self._apply_("index_add_", lambda x: ops.index_add(x, dim, index, source, alpha))

    def index_put(self, indices, values, accumulate=False):
        """A copy with ``values`` put (or added) at ``self[indices]`` (see ops.index_put)."""
        return ops.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate=False):
        return self._apply_("index_put_", lambda x: ops.index_put(x, indices, values, accumulate))

    # --- in-place random fills (no gradient: the values are new constants) ----------------
    def _fill_random(self, values):
        self._rebind(type(self)._wrap(np.asarray(values).astype(self._data.dtype)), "random fill")
        return self

    def uniform_(self, from_=0, to=1, *, generator=None):
        """Values drawn uniformly from [from_, to)."""
        return self._fill_random(_random.generator().uniform(from_, to, self.shape))

    def normal_(self, mean=0, std=1, *, generator=None):
        return self._fill_random(_random.generator().normal(mean, std, self.shape))

    def bernoulli_(self, p=0.5, *, generator=None):
        """1 with probability p (a number or a Tensor broadcast to self's shape), else 0."""
        prob = p._data if hasattr(p, "_data") else p
        return self._fill_random(_random.generator().random(self.shape) < prob)

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers drawn uniformly from [from_, to - 1] ([0, from_ - 1] when to is None)."""
        low, high = (0, from_) if to is None else (from_, to)
        return self._fill_random(_random.generator().integers(low, high, self.shape))

    def exponential_(self, lambd=1, *, generator=None):
        return self._fill_random(_random.generator().exponential(1.0 / lambd, self.shape))

    def requires_grad_(self, requires_grad=True):
        """Mark a Parameter as (not) taking gradients. As in MindSpore 2.10 the result is None:
        ms.grad takes its positions and weights explicitly, so a plain Tensor has no flag."""
        if hasattr(type(self), "requires_grad"):
            self.requires_grad = requires_grad
        return None

    # --- reductions: torch's form, or MindSpore's older one --------------------------------
    def sum(self, *args, **kwargs):
        """sum(dim=None, keepdim=False, *, dtype=None); older: sum(axis=None, dtype=None,
        keepdims=False, initial=None)."""
        if {"axis", "keepdims", "initial"} & set(kwargs) or len(args) > 1 and _is_dtype(args[1]):
            a = _bind("sum", args, kwargs, [("axis", None), ("dtype", None), ("keepdims", False),
                                            ("initial", None)])
            out = ops.sum(self, _axes(a["axis"]), a["keepdims"])
            if a["initial"] is not None:
                out = out + a["initial"]
            dtype = a["dtype"]
        else:
            a = _bind("sum", args, kwargs, [("dim", None), ("keepdim", False)], [("dtype", None)])
            out, dtype = ops.sum(self, _axes(a["dim"]), a["keepdim"]), a["dtype"]
        return out if dtype is None else ops.cast(out, dtype)

    def mean(self, *args, **kwargs):
        """mean(dim=None, keepdim=False, *, dtype=None); older: mean(axis=None, keep_dims=False)."""
        if {"axis", "keep_dims"} & set(kwargs):
            a = _bind("mean", args, kwargs, [("axis", None), ("keep_dims", False)])
            return ops.mean(self, _axes(a["axis"]), a["keep_dims"])
        a = _bind("mean", args, kwargs, [("dim", None), ("keepdim", False)], [("dtype", None)])
        x = self if a["dtype"] is None else ops.cast(self, a["dtype"])
        return ops.mean(x, _axes(a["dim"]), a["keepdim"])

    def prod(self, *args, **kwargs):
        """prod(dim=None, keepdim=False, dtype=None); older: prod(axis=None, keep_dims=False, dtype=None)."""
        if {"axis", "keep_dims"} & set(kwargs):
            a = _bind("prod", args, kwargs, [("axis", None), ("keep_dims", False), ("dtype", None)])
            dim, keep = a["axis"], a["keep_dims"]
        else:
            a = _bind("prod", args, kwargs, [("dim", None), ("keepdim", False), ("dtype", None)])
            dim, keep = a["dim"], a["keepdim"]
        x = self if a["dtype"] is None else ops.cast(self, a["dtype"])
        return ops.prod(x, _axes(dim), keep)

    def _logical_reduce(self, name, fn, args, kwargs):
        if {"axis", "keep_dims"} & set(kwargs):
            a = _bind(name, args, kwargs, [("axis", None), ("keep_dims", False)])
            dim, keep = a["axis"], a["keep_dims"]
        else:
            a = _bind(name, args, kwargs, [("dim", None), ("keepdim", False)])
            dim, keep = a["dim"], a["keepdim"]
        if dim is not None:
            dim = check_axes(f"Tensor.{name}", _axes(dim), self.ndim)
        return type(self)._wrap(np.asarray(fn(self._data, axis=dim, keepdims=keep)))

    def all(self, *args, **kwargs):
        """all(dim=None, keepdim=False); older: all(axis=None, keep_dims=False)."""
        return self._logical_reduce("all", np.all, args, kwargs)

    def any(self, *args, **kwargs):
        """any(dim=None, keepdim=False); older: any(axis=None, keep_dims=False)."""
        return self._logical_reduce("any", np.any, args, kwargs)

    def _arg_extreme(self, name, fn, args, kwargs):
        if {"axis", "keepdims"} & set(kwargs):
            a = _bind(name, args, kwargs, [("axis", None), ("keepdims", False)])
            return fn(self, a["axis"], a["keepdims"])
        a = _bind(name, args, kwargs, [("dim", None), ("keepdim", False)])
        return fn(self, a["dim"], a["keepdim"])

    def argmax(self, *args, **kwargs):
        """argmax(dim=None, keepdim=False) or argmax(axis=None, keepdims=False): Int64 indices."""
        return self._arg_extreme("argmax", ops.argmax, args, kwargs)

    def argmin(self, *args, **kwargs):
        """argmin(dim=None, keepdim=False) or argmin(axis=None, keepdims=False): Int32 indices
        (as MindSpore 2.10; torch gives Int64)."""
        return self._arg_extreme("argmin", ops.argmin, args, kwargs)

    def max(self, *args, **kwargs):
        """max() -> the largest value; max(dim, keepdim=False) -> (values, Int64 indices), as
        torch; older: max(axis=None, keepdims=False, *, initial=None, where=None,
        return_indices=False) -> the values."""
        return self._extreme("max", ops.amax, ops.max, args, kwargs)

    def min(self, *args, **kwargs):
        """min() / min(dim, keepdim=False) -> (values, indices) / min(axis=..., keepdims=...)."""
        return self._extreme("min", ops.amin, ops.min, args, kwargs)

    def _extreme(self, name, values_fn, pair_fn, args, kwargs):
        if args and hasattr(args[0], "_data"):
            raise TypeError(f"Failed calling {name} with a Tensor argument: the elementwise "
                            f"{name}imum of two Tensors is ops.{name}imum(x, y).")
        if {"axis", "keepdims", "initial", "where", "return_indices"} & set(kwargs):
            a = _bind(name, args, kwargs, [("axis", None), ("keepdims", False)],
                      [("initial", None), ("where", None), ("return_indices", False)])
            if a["return_indices"]:
                return pair_fn(self, a["axis"], a["keepdims"])
            return values_fn(self, _axes(a["axis"]), a["keepdims"])
        a = _bind(name, args, kwargs, [("dim", None), ("keepdim", False)])
        if a["dim"] is None:
            if a["keepdim"]:
                raise TypeError(f"Failed calling {name} with keepdim but no dim.")
            return values_fn(self)
        return pair_fn(self, a["dim"], a["keepdim"])

    def _moments(self, name, fn, args, kwargs):
        """std/var: std(dim=None, *, correction=0, keepdim=False) or std(axis=None, ddof=0,
        keepdims=False). Both default to the biased (divide by n) estimate, as MindSpore 2.10
        does; torch's default is the unbiased one (correction=1)."""
        if {"axis", "ddof", "keepdims"} & set(kwargs) or len(args) > 1:
            a = _bind(name, args, kwargs, [("axis", None), ("ddof", 0), ("keepdims", False)])
            axis, ddof, keep = a["axis"], a["ddof"], a["keepdims"]
        else:
            a = _bind(name, args, kwargs, [("dim", None)], [("correction", 0), ("keepdim", False)])
            axis, ddof, keep = a["dim"], a["correction"], a["keepdim"]
        if isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer)):
            raise TypeError(f"Failed calling {name}: the 'ddof' / 'correction' must be an int, but "
                            f"got {type(ddof).__name__}.")
        return fn(self, _axes(axis), int(ddof), keep)

    def std(self, *args, **kwargs):
        return self._moments("std", ops.std, args, kwargs)

    def var(self, *args, **kwargs):
        return self._moments("var", ops.var, args, kwargs)

    def cumsum(self, *args, **kwargs):
        """cumsum(dim, *, dtype=None); older: cumsum(axis=None, dtype=None) (None: flattened)."""
        a = _bind("cumsum", args, kwargs, [("axis", None), ("dtype", None)]) if "dim" not in kwargs \
            else _bind("cumsum", args, kwargs, [], [("dim", None), ("dtype", None)])
        axis = a.get("dim", a.get("axis"))
        x = self if axis is not None else ops.reshape(self, (-1,))
        return ops.cumsum(x, 0 if axis is None else axis, a["dtype"])

    def logsumexp(self, dim, keepdim=False):
        return ops.logsumexp(self, _axes(dim), keepdim)

    def median(self, *args, **kwargs):
        """(values, indices) of the lower median along dim/axis (default the last axis)."""
        names = [("dim", -1), ("keepdim", False)] if {"dim", "keepdim"} & set(kwargs) else \
            [("axis", -1), ("keepdims", False)]
        a = _bind("median", args, kwargs, names)
        values = list(a.values())
        return ops.median(self, values[0], values[1])

    def amax(self, axis=None, keepdims=False, *, initial=None, where=None):
        return ops.amax(self, _axes(axis), keepdims)

    def amin(self, axis=None, keepdims=False, *, initial=None, where=None):
        return ops.amin(self, _axes(axis), keepdims)

    # --- sorting ----------------------------------------------------------------------------
    def sort(self, *args, **kwargs):
        """sort(dim=-1, descending=False, stable=False); older: sort(axis=-1, descending=False).
        Returns (values, Int32 indices); the sort is stable."""
        a = _bind("sort", args, kwargs, [("axis" if "axis" in kwargs else "dim", -1),
                                         ("descending", False), ("stable", False)])
        return ops.sort(self, a.get("dim", a.get("axis")), a["descending"])

    def argsort(self, *args, **kwargs):
        """argsort(axis=-1, descending=False) (also dim=, stable=): Int32 indices."""
        a = _bind("argsort", args, kwargs, [("axis" if "axis" in kwargs else "dim", -1),
                                            ("descending", False), ("stable", False)])
        return ops.argsort(self, a.get("dim", a.get("axis")), a["descending"])

    # --- shape --------------------------------------------------------------------------------
    def reshape(self, *shape):
        return ops.reshape(self, _sizes(shape, "reshape"))

    def view(self, *shape):
        """view(*shape) as reshape, or view(dtype): the same bytes read as `dtype`."""
        if len(shape) == 1 and _is_dtype(shape[0]):
            return type(self)._wrap(self._data.view(mstype.to_np(shape[0])))
        return self.reshape(*shape)

    def transpose(self, *axes):
        """transpose(dim0, dim1) swaps two axes, as torch's (and MindSpore 2.10's); a full
        permutation (transpose(1, 0, 2), transpose((1, 0, 2))) or none (all axes reversed) is
        MindSpore's older form."""
        if len(axes) == 2 and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                                  for a in axes):
            return ops.swapaxes(self, _check_axis("transpose", axes[0], self.ndim),
                              _check_axis("transpose", axes[1], self.ndim))
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(range(self.ndim))[::-1]
        return ops.transpose(self, tuple(axes))

    def permute(self, *dims, **kwargs):
        if "dims" in kwargs:
            dims = (kwargs.pop("dims"),)
        if kwargs:
            raise TypeError(f"Failed calling permute with {sorted(kwargs)}.")
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        return ops.transpose(self, dims)

    def swapdims(self, dim0, dim1):
        return ops.swapaxes(self, dim0, dim1)

    def movedim(self, source, destination):
        return ops.movedim(self, source, destination)

    moveaxis = movedim

    def flatten(self, *args, **kwargs):
        """flatten(start_dim=0, end_dim=-1); older: flatten(order='C', *, start_dim=0, end_dim=-1)."""
        if args and isinstance(args[0], str) or "order" in kwargs:
            a = _bind("flatten", args, kwargs, [("order", "C")], [("start_dim", 0), ("end_dim", -1)])
            if a["order"] not in ("C", "F"):
                raise ValueError(f"For 'flatten', the 'order' must be 'C' or 'F', but got {a['order']!r}.")
            x = self if a["order"] == "C" else ops.transpose(self, tuple(range(self.ndim))[::-1])
            return ops.flatten(x, start_dim=a["start_dim"], end_dim=a["end_dim"])
        a = _bind("flatten", args, kwargs, [("start_dim", 0), ("end_dim", -1)])
        return ops.flatten(self, start_dim=a["start_dim"], end_dim=a["end_dim"])

    def squeeze(self, *axis, **kwargs):
        """squeeze(), squeeze(dim) or squeeze(dims) (older: squeeze(axis=...)): the given size-1
        axes removed; an axis of another size is left as it is (torch's meaning, which MindSpore
        2.10's method has). As there, the axis is passed by position (no dim= keyword)."""
        if kwargs:
            axis = (_bind("squeeze", (), kwargs, [("axis", None)])["axis"],)
        if len(axis) > 1:
            raise TypeError(f"Failed calling squeeze with {len(axis)} positional axes: pass a tuple.")
        if len(axis) == 1:
            axis = axis[0]
        if axis is None or axis == ():
            return ops.squeeze(self)
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        axes = tuple(_check_axis("squeeze", a, self.ndim) for a in axes)
        ones = tuple(a for a in axes if self.shape[a] == 1)
        return ops.squeeze(self, ones) if ones else self

    def expand(self, *size):
        """expand(*size) / expand(size): broadcast to `size`, -1 keeping an axis."""
        return ops.broadcast_to(self, _sizes(size, "expand"))

    def tile(self, *dims):
        return ops.tile(self, _sizes(dims, "tile"))

    def repeat(self, *repeats):
        """torch's repeat: the tensor tiled `repeats` times along each axis (numpy's tile)."""
        reps = _sizes(repeats, "repeat")
        if len(reps) < self.ndim:
            raise ValueError(f"For 'Tensor.repeat', the number of repeats ({len(reps)}) must be at "
                             f"least the number of dimensions ({self.ndim}).")
        return ops.tile(self, reps)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        """Each element repeated `repeats` times (an int, or a Tensor/list with one count per
        element along `dim`); the flattened tensor when dim is None."""
        x = ops.reshape(self, (-1,)) if dim is None else self
        axis = 0 if dim is None else _check_axis("repeat_interleave", dim, self.ndim)
        if isinstance(repeats, (int, np.integer)):
            return ops.repeat_interleave(x, int(repeats), axis)
        counts = np.asarray(repeats._data if hasattr(repeats, "_data") else repeats).astype(np.int64)
        if counts.ndim == 0:
            return ops.repeat_interleave(x, int(counts), axis)
        return ops.gather(x, np.repeat(np.arange(x.shape[axis]), counts), axis)

    def split(self, *args, **kwargs):
        """split(split_size, dim=0) (an int: chunks of that size; a list: those sizes); older:
        split(split_size_or_sections, axis=0)."""
        key = "axis" if "axis" in kwargs else "dim"
        first = "split_size_or_sections" if "split_size_or_sections" in kwargs else "split_size"
        a = _bind("split", args, kwargs, [(first, None), (key, 0)])
        return ops.split(self, a[first], a[key])

    def chunk(self, chunks, dim=0, **kwargs):
        if "axis" in kwargs:
            dim = kwargs.pop("axis")
        if kwargs:
            raise TypeError(f"Failed calling chunk with {sorted(kwargs)}.")
        return ops.chunk(self, chunks, dim)

    def tensor_split(self, indices_or_sections, axis=0):
        return ops.tensor_split(self, indices_or_sections, axis)

    def select(self, dim, index):
        """The slice at `index` along `dim` (that axis removed)."""
        axis = _check_axis("select", dim, self.ndim)
        return ops.getitem(self, (slice(None),) * axis + (index,))

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return ops.diagonal(self, offset, axis1, axis2)

    def diff(self, n=1, axis=-1, prepend=None, append=None):
        return ops.diff(self, n, axis, prepend, append)

    def roll(self, shifts, dims=None):
        return ops.roll(self, shifts, dims)

    def flip(self, dims):
        """The axes `dims` (a tuple or list) reversed."""
        if not isinstance(dims, (tuple, list)):
            raise TypeError(f"For 'Tensor.flip', the 'dims' must be a tuple or list of ints, but "
                            f"got {type(dims).__name__}.")
        return ops.flip(self, tuple(_check_axis("flip", d, self.ndim) for d in dims))

    def gather(self, *args, **kwargs):
        """gather(dim, index): torch's gather along dim (MindSpore 2.10's form); older:
        gather(input_indices, axis, batch_dims=0), a take along axis."""
        if {"input_indices", "axis", "batch_dims"} & set(kwargs) or \
                args and hasattr(args[0], "_data") or args and isinstance(args[0], (list, np.ndarray)):
            a = _bind("gather", args, kwargs, [("input_indices", None), ("axis", None),
                                               ("batch_dims", 0)])
            return ops.gather(self, a["input_indices"], a["axis"], a["batch_dims"])
        a = _bind("gather", args, kwargs, [("dim", None), ("index", None)])
        return ops.gather_elements(self, a["dim"], a["index"])

    def take_along_dim(self, indices, dim=None):
        return ops.take_along_dim(self, indices, dim)

    def scatter(self, dim, index, src):
        return ops.scatter(self, dim, index, src)

    def scatter_add(self, dim, index, src):
        return ops.tensor_scatter_elements(self, index, src, dim, "add")

    def index_fill(self, axis, index, value):
        return ops.index_fill(self, axis, index, value)

    def nonzero(self, *, as_tuple=False):
        return ops.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return ops.nonzero(self)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return ops.unique(self, sorted, return_inverse, return_counts, dim)

    def bincount(self, weights=None, minlength=0):
        return ops.bincount(self, weights, minlength)

    # --- creation from a tensor --------------------------------------------------------------
    def new_zeros(self, size, dtype=None):
        return ops.zeros(_sizes((size,), "new_zeros"), dtype or self.dtype)

    def new_ones(self, size, dtype=None):
        return ops.ones(_sizes((size,), "new_ones"), dtype or self.dtype)

    def new_empty(self, size, *, dtype=None, device=None):
        """A Tensor of `size` (zeros here: torch leaves the memory uninitialised)."""
        return ops.zeros(_sizes((size,), "new_empty"), dtype or self.dtype)

    def new_full(self, size, fill_value, *, dtype=None):
        return ops.full(_sizes((size,), "new_full"), fill_value, dtype=dtype or self.dtype)

    # --- elementwise --------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return ops.add(self, other if alpha == 1 else ops.mul(other, alpha))

    def sub(self, other, *, alpha=1):
        return ops.sub(self, other if alpha == 1 else ops.mul(other, alpha))

    subtract = sub

    def mul(self, other):
        return ops.mul(self, other)

    multiply = mul

    def div(self, other, *, rounding_mode=None):
        return ops.div(self, other, rounding_mode=rounding_mode)

    divide = div
    true_divide = div

    def remainder(self, other):
        return ops.floor_mod(self, other)

    def floor_divide(self, other):
        return ops.floor_div(self, other)

    def maximum(self, other):
        return ops.maximum(self, other)

    def minimum(self, other):
        return ops.minimum(self, other)

    def mm(self, mat2):
        """The matrix product of two 2-D Tensors."""
        if self.ndim != 2 or getattr(mat2, "ndim", 0) != 2:
            raise ValueError(f"For 'mm', both inputs must be 2-D, but got {self.ndim}-D and "
                             f"{getattr(mat2, 'ndim', 0)}-D.")
        return ops.matmul(self, mat2)

    def outer(self, vec2):
        return ops.outer(self, vec2)

    def inverse(self):
        return ops.inverse(self)

    def det(self):
        return ops.det(self)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        """The sum of the (offset) diagonal of the matrices spanned by axis1 and axis2."""
        out = ops.sum(ops.diagonal(self, offset, axis1, axis2), -1)
        return out if dtype is None else ops.cast(out, dtype)

    def lerp(self, end, weight):
        return ops.lerp(self, end, weight)

    def addcmul(self, tensor1, tensor2, value=1):
        return ops.addcmul(self, tensor1, tensor2, value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return ops.addcdiv(self, tensor1, tensor2, value)

    def round(self, decimals=0):
        if decimals:
            scale = 10.0 ** decimals
            return type(self)._wrap(np.round(self._data * scale) / scale).astype(self.dtype)
        return ops.round(self)

    def trunc(self):
        return ops.trunc(self)

    def frac(self):
        return ops.frac(self)

    def log2(self):
        return ops.log2(self)

    def log10(self):
        return ops.log10(self)

    def tan(self):
        return ops.tan(self)

    def expm1(self):
        return ops.expm1(self)

    def erf(self):
        return ops.erf(self)

    def absolute(self):
        return ops.abs(self)

    def real(self):
        """The real part: a method, as MindSpore 2.10's Tensor.real (torch's is an attribute)."""
        return ops.real(self)

    def imag(self):
        """The imaginary part: a method, as MindSpore 2.10's Tensor.imag."""
        return ops.imag(self)

    def conj(self):
        return ops.conj(self)

    def negative(self):
        return ops.neg(self)

    def sgn(self):
        return ops.sign(self)

    def nan_to_num(self, nan=None, posinf=None, neginf=None):
        return ops.nan_to_num(self, nan, posinf, neginf)

    def softmax(self, axis=-1, dtype=None):
        """softmax along `axis` (MindSpore's name; torch's keyword is dim)."""
        x = self if dtype is None else ops.cast(self, dtype)
        return ops.softmax(x, axis)

    def logical_and(self, other):
        return ops.logical_and(self, other)

    def sum_to_size(self, *size):
        """The sum of self down to ``size``, a shape self broadcasts from (torch's and MindSpore
        2.10's sum_to_size): leading axes and axes of size 1 in ``size`` are summed.

        Raises:
            ValueError: self's shape does not broadcast from ``size``.
        """
        size = _sizes(size, "sum_to_size")
        lead = self.ndim - len(size)
        if lead < 0 or any(s not in (1, n) for s, n in zip(size, self.shape[lead:])):
            raise ValueError(f"For 'Tensor.sum_to_size', the size {list(size)} must be one the "
                             f"shape {list(self.shape)} broadcasts from.")
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1)
        return ops.reshape(ops.sum(self, axes, True) if axes else self, size)

    def atan2(self, other):
        """The angle of (other, self) elementwise (torch's and MindSpore 2.10's Tensor.atan2)."""
        return ops.atan2(self, other)

    def cross(self, other, dim=None):
        """The cross product along ``dim`` (default: the first axis of size 3)."""
        return ops.cross(self, other, dim)

    def logical_or(self, other):
        return ops.logical_or(self, other)

    def logical_xor(self, other):
        return ops.logical_xor(self, other)

    def eq(self, other):
        return ops.equal(self, other)

    def ne(self, other):
        return ops.not_equal(self, other)

    not_equal = ne

    def lt(self, other):
        return ops.less(self, other)

    less = lt

    def le(self, other):
        return ops.less_equal(self, other)

    less_equal = le

    def gt(self, other):
        return ops.greater(self, other)

    greater = gt

    def ge(self, other):
        return ops.greater_equal(self, other)

    greater_equal = ge

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return ops.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return ops.allclose(self, other, rtol, atol, equal_nan)

    # --- dtype and facts -----------------------------------------------------------------------
    def byte(self):
        return ops.cast(self, mstype.uint8)

    def short(self):
        return ops.cast(self, mstype.int16)

    def ndimension(self):
        return self.ndim

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_signed(self):
        return self._data.dtype.kind in "fic"


def _check_axis(name, axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For 'Tensor.{name}', every axis must be an int, but got {type(axis).__name__}.")
    n = builtins.max(ndim, 1)
    if not -n <= axis < n:
        raise ValueError(f"For 'Tensor.{name}', the axis must be in [{-n}, {n}), but got {axis}.")
    return int(axis) % n
