"""Indexing and shape ops behind Tensor methods that torch code calls: roll, diff, movedim,
diagonal, trace, tensor_split, scatter and friends, median, unique, bincount. Signatures are
MindSpore 2.10's. The differentiable ones are compositions of getitem / setitem / gather /
transpose (whose primitives have backwards), so gradients, and gradients of gradients, flow.
"""
import builtins

import numpy as np

from .. import _registry
from .._prims import array as A
from .._engine import apply
from ..common.tensor import Tensor
from . import functional as F

__all__ = ["roll", "diff", "movedim", "moveaxis", "diagonal", "trace", "tensor_split", "scatter",
           "tensor_scatter_elements", "index_fill", "index_add", "median", "unique", "bincount",
           "nonzero", "argwhere", "take_along_dim", "index_put", "scatter_nd"]


def _axis(name, axis, ndim):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{name}', the 'dim' must be an int, but got {type(axis).__name__}.")
    if not -builtins.max(ndim, 1) <= axis < builtins.max(ndim, 1):
        raise ValueError(f"For '{name}', the 'dim' must be in [{-builtins.max(ndim, 1)}, "
                         f"{builtins.max(ndim, 1)}), but got {axis}.")
    return int(axis) % builtins.max(ndim, 1)


def _index_array(name, index):
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"For '{name}', the 'index' must be an integer Tensor, but got {idx.dtype}.")
    return idx.astype(np.int64)


def roll(input, shifts, dims=None):
    """Elements shifted by `shifts` along `dims` (the flattened tensor when dims is None), the
    ones pushed off an end coming back at the other, as torch.roll.

    Args:
        input: a Tensor.
        shifts: an int or a tuple of ints, one per dim.
        dims: an int, a tuple of ints, or None.

    Returns:
        A Tensor of the input's shape.

    Example:
        >>> ops.roll(Tensor([1, 2, 3]), 1)  # [3, 1, 2]
    """
    x = F._as_tensor(input)
    if dims is None:
        return F.reshape(roll(F.reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have the same length, but got "
                         f"{len(shifts)} and {len(dims)}.")
    for s, d in zip(shifts, dims):
        d = _axis("roll", d, x.ndim)
        n = x.shape[d]
        if n:
            x = F.gather(x, (np.arange(n) - int(s)) % n, d)
    return x


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis` (out[i] = x[i + 1] - x[i], applied n times),
    after joining `prepend` / `append` to x along that axis."""
    x = F._as_tensor(x)
    axis = _axis("diff", axis, x.ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = F.concat(tuple(F.broadcast_to(F._as_tensor(p), x.shape[:axis] + (1,) + x.shape[axis + 1:])
                           if F._as_tensor(p).ndim == 0 else F._as_tensor(p) for p in parts), axis)
    lead = (slice(None),) * axis
    for _ in range(n):
        x = F.getitem(x, lead + (slice(1, None),)) - F.getitem(x, lead + (slice(None, -1),))
    return x


def movedim(x, source, destination):
    """The axes `source` moved to positions `destination` (ints or tuples), the others in order."""
    x = F._as_tensor(x)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"For 'movedim', 'source' and 'destination' must have the same length, "
                         f"but got {len(src)} and {len(dst)}.")
    src = [_axis("movedim", s, x.ndim) for s in src]
    dst = [_axis("movedim", d, x.ndim) for d in dst]
    rest = iter(a for a in range(x.ndim) if a not in src)
    placed = dict(zip(dst, src))
    perm = tuple(placed[i] if i in placed else next(rest) for i in range(x.ndim))
    return F.transpose(x, perm)


moveaxis = movedim


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the matrices spanned by `dim1` and `dim2` (offset > 0: above the main
    diagonal), as the last axis of the result, as torch.diagonal."""
    x = F._as_tensor(input)
    d1, d2 = _axis("diagonal", dim1, x.ndim), _axis("diagonal", dim2, x.ndim)
    if d1 == d2:
        raise ValueError(f"For 'diagonal', 'dim1' and 'dim2' must differ, but both are {d1}.")
    moved = movedim(x, (d1, d2), (-2, -1))
    rows, cols = moved.shape[-2:]
    start_r, start_c = (0, offset) if offset >= 0 else (-offset, 0)
    length = builtins.max(0, builtins.min(rows - start_r, cols - start_c))
    i = np.arange(length)
    return F._view_getitem(moved, (Ellipsis, i + start_r, i + start_c))


def trace(input):
    """The sum of the main diagonal of a 2-D Tensor."""
    x = F._as_tensor(input)
    if x.ndim != 2:
        raise ValueError(f"For 'trace', the input must be 2-D, but got {x.ndim}-D.")
    return F.sum(diagonal(x))


def tensor_split(input, indices_or_sections, axis=0):
    """Split into `indices_or_sections` parts as equal as possible (an int: the first
    n % sections parts get one more element) or at the given indices (a list or tuple)."""
    x = F._as_tensor(input)
    axis = _axis("tensor_split", axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise ValueError(f"For 'tensor_split', the number of sections must be positive, "
                             f"but got {k}.")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        bounds = np.cumsum([0] + sizes).tolist()
    else:
        bounds = [0] + [builtins.min(builtins.max(int(i), 0), n) for i in indices_or_sections] + [n]
    lead = (slice(None),) * axis
    return tuple(F.getitem(x, lead + (slice(a, builtins.max(a, b)),)) for a, b in zip(bounds, bounds[1:]))


def _along(index, axis):
    """A full index that picks element index[i...] along `axis` at every position of index."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[axis] = index
    return tuple(grid)


def _src_part(name, src, shape):
    """src cut to the index's shape (torch uses src[:index.shape]); a number stays a number."""
    if not isinstance(src, Tensor):
        return src
    if src.ndim != len(shape) or any(s < i for s, i in zip(src.shape, shape)):
        raise ValueError(f"For '{name}', 'src' must be at least as large as 'index' in every "
                         f"dimension, but got shapes {list(src.shape)} and {list(shape)}.")
    return F.getitem(src, tuple(slice(0, i) for i in shape))


def scatter(input, axis, index, src):
    """A copy of input with input[index[i][j]][j] = src[i][j] along `axis` (torch.scatter; src
    may be a number). Where an index repeats, the last write wins."""
    x = F._as_tensor(input)
    axis = _axis("scatter", axis, x.ndim)
    idx = _index_array("scatter", index)
    return F.setitem(x, _along(idx, axis), _src_part("scatter", src, idx.shape))


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """scatter along `axis`, replacing (reduction 'none') or adding (reduction 'add'); added
    duplicates accumulate."""
    if reduction == "none":
        return scatter(input_x, axis, indices, updates)
    if reduction != "add":
        raise ValueError(f"For 'tensor_scatter_elements', the 'reduction' must be 'none' or 'add', "
                         f"but got {reduction!r}.")
    x = F._as_tensor(input_x)
    axis = _axis("tensor_scatter_elements", axis, x.ndim)
    idx = _index_array("tensor_scatter_elements", indices)
    part = _src_part("tensor_scatter_elements", F._as_tensor(updates), idx.shape)
    return x + apply(A.ScatterIntoZeros(_along(idx, axis), x.shape), F.cast(part, x.dtype))


def index_fill(x, axis, index, value):
    """x with the slices at `index` along `axis` set to `value` (a number or a 0-d Tensor)."""
    x = F._as_tensor(x)
    axis = _axis("index_fill", axis, x.ndim)
    idx = _index_array("index_fill", index).reshape(-1)
    return F.setitem(x, (slice(None),) * axis + (idx,), value)


def index_add(x, axis, index, source, alpha=1):
    """x with alpha * source[i] added to the slice index[i] along `axis` (repeats accumulate)."""
    x = F._as_tensor(x)
    axis = _axis("index_add", axis, x.ndim)
    idx = _index_array("index_add", index).reshape(-1)
    src = F._as_tensor(source) * alpha if alpha != 1 else F._as_tensor(source)
    return x + apply(A.ScatterIntoZeros((slice(None),) * axis + (idx,), x.shape), F.cast(src, x.dtype))


def scatter_nd(indices, updates, shape):
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (repeated indices
    accumulate, as MindSpore 2.10's ScatterNd does); differentiable in ``updates``.

    Args:
        indices: an integer Tensor of shape (..., K), K <= len(shape): each row indexes the
            first K axes.
        updates: a Tensor of shape indices.shape[:-1] + shape[K:].
        shape: a tuple of ints, the result's shape.

    Raises:
        ValueError: K larger than len(shape), or updates of another shape.

    Example:
        >>> ops.scatter_nd(Tensor([[0, 1], [0, 1]]), Tensor([1.0, 2.0]), (2, 2))  # [[0, 3], [0, 0]]
    """
    idx = _index_array("scatter_nd", indices)
    shape = tuple(int(n) for n in shape)
    u = F._as_tensor(updates)
    k = idx.shape[-1] if idx.ndim else 0
    if idx.ndim == 0 or k > len(shape):
        raise ValueError(f"For 'scatter_nd', the last axis of 'indices' must be at most the rank of "
                         f"'shape' ({len(shape)}), but got indices of shape {list(idx.shape)}.")
    want = tuple(idx.shape[:-1]) + shape[k:]
    if tuple(u.shape) != want:
        raise ValueError(f"For 'scatter_nd', 'updates' must have shape {list(want)}, but got "
                         f"{list(u.shape)}.")
    return apply(A.ScatterIntoZeros(tuple(idx[..., j] for j in range(k)), shape), u)


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``input[indices]`` (added there, repeats accumulating,
    when ``accumulate``); differentiable in input and values. As MindSpore 2.10's
    Tensor.index_put: ``indices`` is a tuple of integer or bool Tensors, ``values`` 1-D (or one
    element), broadcast to the indexed elements.

    Raises:
        ValueError: ``values`` is not 1-D.

    Example:
        >>> index_put(ops.zeros((2, 2)), (Tensor([0, 0]), Tensor([1, 1])), Tensor([1.0, 2.0]), True)
        [[0, 3], [0, 0]]
    """
    x, v = F._as_tensor(input), F._as_tensor(values)
    if v.ndim != 1:
        raise ValueError(f"For 'IndexPut', the rank of 'values' must be 1, but got {v.ndim}.")
    index = tuple(i._data if isinstance(i, Tensor) else np.asarray(i) for i in indices)
    v = F.cast(F.broadcast_to(v, F.getitem(x, index).shape), x.dtype)
    if accumulate:
        return x + apply(A.ScatterIntoZeros(index, x.shape), v)
    return F.setitem(x, index, v)


def take_along_dim(input, indices, dim=None):
    """input's elements at `indices` along `dim` (the flattened input when dim is None)."""
    x = F._as_tensor(input)
    idx = _index_array("take_along_dim", indices)
    if dim is None:
        return F.getitem(F.reshape(x, (-1,)), idx.reshape(-1))
    axis = _axis("take_along_dim", dim, x.ndim)
    shape = np.broadcast_shapes(tuple(s if i != axis else 1 for i, s in enumerate(x.shape)),
                                tuple(s if i != axis else 1 for i, s in enumerate(idx.shape)))
    x = F.broadcast_to(x, tuple(s if i != axis else x.shape[axis] for i, s in enumerate(shape)))
    idx = np.broadcast_to(idx, tuple(s if i != axis else idx.shape[axis] for i, s in enumerate(shape)))
    return F.getitem(x, _along(idx, axis))


def median(input, axis=-1, keepdims=False):
    """(the lower median along `axis`, its index), as MindSpore's and torch's median(dim)."""
    x = F._as_tensor(input)
    axis = _axis("median", axis, x.ndim)
    n = x.shape[axis]
    order = np.argsort(x._data, axis=axis, kind="stable")
    pick = np.take(order, [(n - 1) // 2], axis=axis)
    values = F.getitem(x, _along(pick, axis))
    indices = Tensor._wrap(pick)
    if not keepdims:
        values, indices = F.squeeze(values, axis), Tensor._wrap(np.squeeze(pick, axis))
    return values, indices


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), and optionally the inverse indices and the counts; with
    `dim`, the distinct slices along it. Not differentiable."""
    a = F._as_tensor(input)._data
    values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
    out = [Tensor._wrap(values)]
    if return_inverse:
        out.append(Tensor._wrap(inverse.reshape(a.shape if dim is None else -1).astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(input, weights=None, minlength=0):
    """Counts of each non-negative int value (weighted sums with `weights`), as Float32 whatever
    the weights (MindSpore 2.10's dtype; torch counts in Int64)."""
    a = _index_array("bincount", input)
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise ValueError("For 'bincount', the input must be a 1-D Tensor of non-negative ints.")
    w = None if weights is None else F._as_tensor(weights)._data
    return Tensor._wrap(np.bincount(a, w, minlength).astype(np.float32))


def nonzero(input, *, as_tuple=False):
    """Indices of the non-zero elements: an (n, ndim) Int64 Tensor, or one 1-D Tensor per axis."""
    where = np.nonzero(F._as_tensor(input)._data)
    if as_tuple:
        return tuple(Tensor._wrap(w.astype(np.int64)) for w in where)
    return Tensor._wrap(np.stack(where, axis=-1).astype(np.int64))


def argwhere(input):
    return nonzero(input)


_registry.ops.register_module(globals())  # Tensor methods and backward rules call these by name
