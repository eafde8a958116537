"""Array functions of MindSpore 2.x's ``ops`` that the torch.* mappings need: type checks,
element counts, index and shape helpers. Each has MindSpore's name and signature; the
differentiable ones are built from primitives (``ms_core/_prims``) or from other ops.
"""
import numpy as np

from .._engine import apply
from .._prims import array as A
from ..common import dtype as mstype
from ..common.tensor import Tensor
from . import functional as F

__all__ = ["is_tensor", "is_floating_point", "is_complex", "numel", "tensor_scatter_elements", "scatter",
           "nonzero", "argwhere", "roll", "fliplr", "flipud", "rot90", "meshgrid", "tensor_split", "hsplit",
           "vsplit", "dsplit", "movedim", "moveaxis", "swapdims", "t", "atleast_1d", "atleast_2d",
           "atleast_3d", "hstack", "vstack", "row_stack", "dstack", "column_stack", "ravel", "diag",
           "diag_embed", "diagonal", "diagflat", "trace", "tril_indices", "triu_indices", "block_diag",
           "cartesian_prod", "combinations", "kron", "cross"]


def is_tensor(obj):
    """True when ``obj`` is a Tensor (a Parameter is one).

    Example:
        >>> ops.is_tensor(ms.Tensor([1.0])), ops.is_tensor([1.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def _check_tensor(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{name}', the 'input' must be a Tensor, but got {type(input).__name__}.")


def is_floating_point(input):
    """True when ``input``'s dtype is a floating-point type (float16/32/64)."""
    _check_tensor("is_floating_point", input)
    return input._data.dtype.kind == "f"


def is_complex(input):
    """True when ``input``'s dtype is a complex type."""
    _check_tensor("is_complex", input)
    return input._data.dtype.kind == "c"


def numel(input):
    """The number of elements of ``input`` (a Python int)."""
    _check_tensor("numel", input)
    return int(np.prod(input.shape, dtype=np.int64))


# --- scatter and gather along an axis ---------------------------------------------------------

def _axis_grid(index, axis):
    """The advanced index that addresses, for each element of ``index``, its position with the
    ``axis`` coordinate replaced by the element's value (np.put_along_axis's index)."""
    grid = list(np.indices(index.shape, sparse=True))
    grid[axis] = index
    return tuple(grid)


def _scatter_args(name, input, axis, index, src):
    x = F._as_tensor(input)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim != x.ndim:
        raise ValueError(f"For '{name}', the 'index' must have the input's rank {x.ndim}, but got {idx.ndim}.")
    axis = axis % x.ndim
    idx = np.where(idx < 0, idx + x.shape[axis], idx).astype(np.int64)
    if not isinstance(src, Tensor):
        src = F.full(idx.shape, src, dtype=x.dtype)
    elif src.shape != idx.shape:
        src = F.getitem(src, tuple(slice(0, n) for n in idx.shape))
    return x, _axis_grid(idx, axis), F.cast(src, x.dtype)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """``input_x`` with ``updates`` written (reduction 'none') or added ('add') at ``indices``
    along ``axis``: torch's scatter / scatter_add. Differentiable in input_x and updates."""
    if reduction not in ("none", "add"):
        raise ValueError(f"For 'tensor_scatter_elements', the 'reduction' must be 'none' or 'add', "
                         f"but got {reduction!r}.")
    x, grid, src = _scatter_args("tensor_scatter_elements", input_x, axis, indices, updates)
    if reduction == "add":
        return x + apply(A.ScatterIntoZeros(grid, x.shape), src)
    return F.setitem(x, grid, src)


def scatter(input, axis, index, src):
    """``input`` with ``src`` written at ``index`` along ``axis`` (torch.scatter)."""
    return tensor_scatter_elements(input, index, src, axis)


# --- index and shape helpers ------------------------------------------------------------------

def nonzero(input, *, as_tuple=False):
    """The indices of the nonzero elements: an (N, ndim) Int64 Tensor, or one 1-D Tensor per axis."""
    data = F._as_tensor(input)._data
    found = np.nonzero(data) if data.ndim else np.nonzero(data.reshape(1))
    if as_tuple:
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in found)
    return Tensor._wrap(np.stack(found, axis=-1).astype(np.int64).reshape(-1, max(data.ndim, 1)))


def argwhere(input):
    """The indices of the nonzero elements as an (N, ndim) Int64 Tensor."""
    return nonzero(input)


def roll(input, shifts, dims=None):
    """Elements shifted by ``shifts`` along ``dims`` (of the flattened input when None), wrapping
    around; differentiable."""
    x = F._as_tensor(input)
    if dims is None:
        return F.reshape(roll(F.reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have the same length, but got "
                         f"{len(shifts)} and {len(dims)}.")
    for shift, dim in zip(shifts, dims):
        n = x.shape[dim]
        x = F.gather(x, (np.arange(n) - int(shift)) % max(n, 1), dim % x.ndim)
    return x


def fliplr(input):
    """Reverse the second axis."""
    return F.flip(input, (1,))


def flipud(input):
    """Reverse the first axis."""
    return F.flip(input, (0,))


def rot90(input, k, dims):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first axis to the second)."""
    x = F._as_tensor(input)
    d0, d1 = dims[0] % x.ndim, dims[1] % x.ndim
    k = k % 4
    perm = list(range(x.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 1:
        return F.transpose(F.flip(x, (d1,)), tuple(perm))
    if k == 2:
        return F.flip(x, (d0, d1))
    if k == 3:
        return F.flip(F.transpose(x, tuple(perm)), (d1,))
    return x


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids of 1-D Tensors ('xy': the first two outputs' axes swapped, as NumPy)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', the 'indexing' must be 'xy' or 'ij', but got {indexing!r}.")
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    sizes = [int(t.shape[0]) if t.ndim else 1 for t in inputs]
    if indexing == "xy" and len(inputs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    outs = []
    for i, t in enumerate(inputs):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(inputs) > 1 else i
        shape = [1] * len(inputs)
        shape[axis] = sizes[axis]
        outs.append(F.broadcast_to(F.reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(outs)


def tensor_split(input, indices_or_sections, axis=0):
    """Split into ``indices_or_sections`` nearly equal parts, or at the given indices."""
    x = F._as_tensor(input)
    axis = axis % x.ndim
    n = x.shape[axis]
    if isinstance(indices_or_sections, int):
        q, r = divmod(n, indices_or_sections)
        sizes = [q + 1] * r + [q] * (indices_or_sections - r)
        cuts = np.cumsum([0] + sizes)
    else:
        cuts = [0] + [min(max(int(i), 0), n) for i in indices_or_sections] + [n]
    return tuple(F.getitem(x, (slice(None),) * axis + (slice(a, max(a, b)),)) for a, b in zip(cuts[:-1], cuts[1:]))


def hsplit(input, indices_or_sections):
    x = F._as_tensor(input)
    return tensor_split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(input, indices_or_sections):
    return tensor_split(input, indices_or_sections, 0)


def dsplit(input, indices_or_sections):
    return tensor_split(input, indices_or_sections, 2)


def movedim(x, source, destination):
    """``x`` with the axes ``source`` moved to ``destination`` (ints or sequences)."""
    x = F._as_tensor(x)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src, dst = [s % x.ndim for s in src], [d % x.ndim for d in dst]
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"For 'movedim', 'source' and 'destination' must be distinct axes of the "
                         f"same length, but got {source} and {destination}.")
    perm = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return F.transpose(x, tuple(perm))


moveaxis = movedim
swapdims = F.swapaxes


def t(input):
    """The transpose of a matrix (a vector is returned as it is)."""
    x = F._as_tensor(input)
    return x if x.ndim < 2 else F.swapaxes(x, 0, 1)


def atleast_1d(inputs):
    return _atleast(inputs, 1)


def atleast_2d(inputs):
    return _atleast(inputs, 2)


def atleast_3d(inputs):
    return _atleast(inputs, 3)


def _atleast(inputs, n):
    if isinstance(inputs, (tuple, list)):
        return tuple(_atleast(i, n) for i in inputs)
    x = F._as_tensor(inputs)
    if x.ndim >= n:
        return x
    if n == 3 and x.ndim == 2:
        return F.reshape(x, x.shape + (1,))
    if n == 3 and x.ndim == 1:
        return F.reshape(x, (1,) + x.shape + (1,))
    return F.reshape(x, (1,) * (n - x.ndim) + x.shape)


def hstack(tensors):
    ts = atleast_1d(tuple(tensors))
    return F.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs):
    return F.concat(atleast_2d(tuple(inputs)), 0)


row_stack = vstack


def dstack(tensors):
    return F.concat(atleast_3d(tuple(tensors)), 2)


def column_stack(tensors):
    ts = [F.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in (F._as_tensor(t) for t in tensors)]
    return F.concat(ts, 1)


def ravel(input):
    return F.reshape(input, (-1,))


def diag(input):
    """A diagonal matrix from a 1-D Tensor (MindSpore 2.10: an input of rank k gives rank 2k)."""
    x = F._as_tensor(input)
    n = x.size
    out = F.reshape(diag_embed(F.reshape(x, (-1,))), (n, n))
    return F.reshape(out, x.shape + x.shape) if x.ndim != 1 else out


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose ``offset`` diagonal (in the plane of dim1, dim2 of the output) is the last
    axis of ``input``; differentiable."""
    x = F._as_tensor(input)
    n = x.shape[-1] + abs(offset)
    rows = np.arange(x.shape[-1]) + max(-offset, 0)
    cols = np.arange(x.shape[-1]) + max(offset, 0)
    out = apply(A.ScatterIntoZeros((Ellipsis, rows, cols), x.shape[:-1] + (n, n)), x)
    nd = out.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    if (d1, d2) == (nd - 2, nd - 1):
        return out
    return movedim(out, (nd - 2, nd - 1), (d1, d2))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The ``offset`` diagonal of the planes (dim1, dim2), as the last axis; differentiable."""
    x = F._as_tensor(input)
    x = movedim(x, (dim1 % x.ndim, dim2 % x.ndim), (x.ndim - 2, x.ndim - 1))
    n, m = x.shape[-2], x.shape[-1]
    length = max(min(n - max(-offset, 0), m - max(offset, 0)), 0)
    rows = np.arange(length) + max(-offset, 0)
    cols = np.arange(length) + max(offset, 0)
    return F._view_getitem(x, (Ellipsis, rows, cols))


def diagflat(input, offset=0):
    """A 2-D matrix with the flattened input on its ``offset`` diagonal."""
    return diag_embed(F.reshape(input, (-1,)), offset)


def trace(input):
    """The sum of the main diagonal of a matrix."""
    return F.sum(diagonal(input))


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    return Tensor._wrap(np.stack(np.tril_indices(row, offset, col)).astype(mstype.to_np(dtype)))


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    return Tensor._wrap(np.stack(np.triu_indices(row, offset, col)).astype(mstype.to_np(dtype)))


def block_diag(*inputs):
    """The block-diagonal matrix of the given matrices (scalars and vectors as 1-row blocks)."""
    blocks = [F._as_tensor(b) for b in inputs]
    blocks = [F.reshape(b, (1, -1)) if b.ndim < 2 else b for b in blocks]
    width = int(np.sum([b.shape[1] for b in blocks]))
    rows, col = [], 0
    for b in blocks:
        rows.append(F.pad(b, (col, width - col - b.shape[1])))
        col += b.shape[1]
    return F.concat(rows, 0)


def cartesian_prod(*inputs):
    """All combinations of the elements of 1-D Tensors, as rows."""
    grids = meshgrid(*inputs, indexing="ij")
    if len(grids) == 1:
        return F.reshape(grids[0], (-1,))
    return F.stack([F.reshape(g, (-1,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of the elements of a 1-D Tensor, as rows."""
    import itertools
    x = F._as_tensor(input)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.asarray(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return F.getitem(x, index)


def kron(input, other):
    """The Kronecker product (ranks aligned from the right)."""
    a, b = F._as_tensor(input), F._as_tensor(other)
    nd = max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = F.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    a_shape = sum(((s, 1) for s in a.shape), ())
    b_shape = sum(((1, s) for s in b.shape), ())
    out = F.reshape(a, a_shape) * F.reshape(b, b_shape)
    return F.reshape(out, tuple(p * q for p, q in zip(a.shape, b.shape)))


def cross(input, other, dim=None):
    """The 3-D cross product along ``dim`` (the first axis of size 3 when None)."""
    a, b = F._as_tensor(input), F._as_tensor(other)
    if dim is None:
        dim = next((i for i, s in enumerate(a.shape) if s == 3), None)
        if dim is None:
            raise ValueError("For 'cross', no dimension of the input has size 3.")
    dim = dim % a.ndim

    def part(t, i):
        return F.getitem(t, (slice(None),) * dim + (slice(i, i + 1),))

    a0, a1, a2 = (part(a, i) for i in range(3))
    b0, b1, b2 = (part(b, i) for i in range(3))
    return F.concat((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), dim)
