"""Linear-algebra functions of MindSpore 2.x's ``ops`` that the torch.* / torch.linalg.*
mappings need (einsum, inverse, determinants, factorisations, norms, products with a bias). Each
has MindSpore's name and signature; the primitives are in ``ms_core/_prims/linalg.py``.
"""
import numpy as np

from .._engine import apply
from .._prims import linalg as L
from ..common import dtype as mstype
from . import functional as F

__all__ = ["einsum", "inverse", "det", "logdet", "slogdet", "cholesky", "cholesky_solve", "matrix_solve",
           "svd", "qr", "pinv", "matrix_power", "vector_norm", "matrix_norm", "inner", "vecdot", "mv",
           "addmm", "addmv", "addbmm", "baddbmm", "addr", "ger", "tensor_dot", "norm"]


def _float(x):
    x = F._as_tensor(x)
    return x if x._data.dtype.kind == "f" else F.cast(x, mstype.float32)


def einsum(equation, *operands):
    """Sums of products over the subscripts of ``equation`` (``'bij,bjk->bik'``, ellipses and
    implicit outputs as NumPy); differentiable in every operand.

    Example:
        >>> ops.einsum("ij,jk->ik", a, b)   # a @ b
    """
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    ts = [F._as_tensor(t) for t in operands]
    subs, out = L.parse_einsum(equation, [t.ndim for t in ts])
    kinds = {t._data.dtype for t in ts}
    if len(kinds) > 1:
        common = np.result_type(*kinds)
        ts = [F.cast(t, mstype.from_np(common)) for t in ts]
    return apply(L.Einsum(subs, out), *ts)


def inverse(input):
    """The inverse of square matrices (the last two axes)."""
    return apply(L.MatrixInverse(), _float(input))


def det(input):
    """The determinant of square matrices."""
    return apply(L.MatrixDeterminant(), _float(input))


def slogdet(input):
    """(sign, log|det|) of square matrices; differentiable in log|det|."""
    return apply(L.SLogDet(), _float(input))


def logdet(input):
    """log(det) of square matrices: NaN where the determinant is negative."""
    sign, logabs = slogdet(input)
    return F.where(sign < 0, F.full_like(logabs, np.nan), F.where(sign == 0, F.full_like(logabs, -np.inf), logabs))


def cholesky(input_x, upper=False):
    """The Cholesky factor of symmetric positive-definite matrices: lower L (A = L L^T), or
    upper U = L^T when ``upper``."""
    low = apply(L.Cholesky(), _float(input_x))
    return F.swapaxes(low, -1, -2) if upper else low


def cholesky_solve(input, input2, upper=False):
    """Solve A X = B for X given B (``input``) and the Cholesky factor of A (``input2``)."""
    factor = input2 if not upper else F.swapaxes(input2, -1, -2)
    inv = inverse(factor)
    return F.matmul(F.swapaxes(inv, -1, -2), F.matmul(inv, input))


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix @ X = rhs (the adjoint of matrix when ``adjoint``)."""
    a = F.swapaxes(matrix, -1, -2) if adjoint else matrix
    return F.matmul(inverse(a), rhs)


def svd(input, full_matrices=False, compute_uv=True):
    """(s, u, v) with input = u @ diag(s) @ v^T (MindSpore's order: v, not v^T); s alone when
    ``compute_uv`` is False. Differentiable."""
    u, s, vh = apply(L.Svd(full_matrices), _float(input))
    if not compute_uv:
        return s
    return s, u, F.swapaxes(vh, -1, -2)


def qr(input, mode="reduced"):
    """(Q, R) of the QR decomposition ('reduced', or 'r' for (empty Q, R)) of matrices with at
    least as many rows as columns; differentiable."""
    if mode not in ("reduced", "r"):
        raise ValueError(f"For 'qr', the 'mode' must be 'reduced' or 'r', but got {mode!r}.")
    x = _float(input)
    if x.shape[-2] < x.shape[-1]:
        raise ValueError(f"For 'qr', the gradient needs at least as many rows as columns, but got shape "
                         f"{list(x.shape)}.")
    q, r = apply(L.Qr(), x)
    return (F.zeros((0,), x.dtype), r) if mode == "r" else (q, r)


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse, through the SVD; singular values below
    max(atol, rtol * largest) count as zero (rtol defaults to eps * max(m, n) when both are None)."""
    x = _float(x)
    s, u, v = svd(x)
    largest = F.amax(s, -1, True)
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(x._data.dtype).eps) * max(x.shape[-2:])
    cutoff = F.maximum(largest * rtol, F.full_like(largest, 0.0 if atol is None else float(atol)))
    keep = s > cutoff
    s_inv = F.where(keep, 1 / F.where(keep, s, F.ones_like(s)), F.zeros_like(s))
    return F.matmul(v * F.expand_dims(s_inv, -2), F.swapaxes(u, -1, -2))


def matrix_power(input, n):
    """The ``n``-th power of square matrices (the inverse's for negative n, the identity for 0)."""
    x = _float(input)
    if n < 0:
        x, n = inverse(x), -n
    out = F.broadcast_to(F.eye(x.shape[-1], x.shape[-1], x.dtype), x.shape)
    base = x
    while n:
        if n & 1:
            out = F.matmul(out, base)
        n >>= 1
        if n:
            base = F.matmul(base, base)
    return out


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):
    """The vector ``ord``-norm over ``axis`` (all elements when None): 2, 1, inf, -inf, 0 or any p."""
    x = _float(x) if dtype is None else F.cast(x, dtype)
    if axis is None:
        out = vector_norm(F.reshape(x, (-1,)), ord, 0, False)
        return F.reshape(out, (1,) * x.ndim) if keepdims else out
    if ord == 0:
        return F.sum(F.cast(x != 0, x.dtype), axis, keepdims)
    if ord in (float("inf"), float("-inf")):
        return (F.amax if ord > 0 else F.amin)(F.abs(x), axis, keepdims)
    if ord == 2:
        return F.sqrt(F.sum(F.square(x), axis, keepdims))
    if ord == 1:
        return F.sum(F.abs(x), axis, keepdims)
    return F.pow(F.sum(F.pow(F.abs(x), float(ord)), axis, keepdims), 1.0 / ord)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):
    """The matrix norm over the two ``axis``: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    x = _float(A) if dtype is None else F.cast(A, dtype)
    d0, d1 = (a % x.ndim for a in axis)
    if ord == "fro":
        out = F.sqrt(F.sum(F.square(x), (d0, d1), True))
    elif ord in ("nuc", 2, -2):
        moved = _to_last_two(x, d0, d1)
        s = svd(moved, compute_uv=False)
        red = F.sum(s, -1) if ord == "nuc" else (F.amax(s, -1) if ord == 2 else F.amin(s, -1))
        out = _restore(red, x, d0, d1)
    elif ord in (1, -1, float("inf"), float("-inf")):
        over, keep = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = F.sum(F.abs(x), over, True)
        out = (F.amax if ord > 0 else F.amin)(sums, keep, True)
    else:
        raise ValueError(f"For 'matrix_norm', the 'ord' must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, "
                         f"but got {ord!r}.")
    return out if keepdims else F.squeeze(out, tuple(sorted((d0, d1))))


def _to_last_two(x, d0, d1):
    rest = [i for i in range(x.ndim) if i not in (d0, d1)]
    return F.transpose(x, tuple(rest) + (d0, d1))


def _restore(reduced, x, d0, d1):
    """A reduction over the last two axes of _to_last_two(x) with x's axes d0, d1 kept as size 1."""
    shape = list(x.shape)
    shape[d0] = shape[d1] = 1
    return F.reshape(reduced, tuple(shape))


def inner(input, other):
    """Sums of products over the last axes (a scalar for two vectors)."""
    a, b = F._as_tensor(input), F._as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim == b.ndim == 1:
        return F.sum(a * b)
    return tensor_dot(a, b, ([-1], [-1]))


def vecdot(x, y, *, axis=-1):
    """Sums of products of x and y along ``axis`` (broadcast)."""
    return F.sum(F._as_tensor(x) * y, axis)


def mv(mat, vec):
    """Matrix-vector product."""
    return F.matmul(mat, vec)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    return _scaled(input, beta) + _scaled(F.matmul(mat1, mat2), alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    return _scaled(input, beta) + _scaled(F.matmul(mat, vec), alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum over the batch of batch1 @ batch2."""
    return _scaled(input, beta) + _scaled(F.sum(F.matmul(batch1, batch2), 0), alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _scaled(input, beta) + _scaled(F.matmul(batch1, batch2), alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled(x, beta) + _scaled(F.outer(vec1, vec2), alpha)


def ger(input, vec2):
    """The outer product of two vectors."""
    return F.outer(input, vec2)


def _scaled(t, factor):
    t = F._as_tensor(t)
    if isinstance(factor, (int, float)) and factor == 1:
        return t
    if isinstance(factor, (int, float)) and factor == 0:
        return F.zeros_like(t)  # torch ignores the input (NaN included) when beta is 0
    return t * factor


def tensor_dot(x1, x2, axes):
    """Sums of products over ``axes``: an int n (the last n of x1 with the first n of x2) or two
    sequences of axes."""
    a, b = F._as_tensor(x1), F._as_tensor(x2)
    if isinstance(axes, int):
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        ax_a, ax_b = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                      [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(a.ndim)]
    sb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b):
        sb[j % b.ndim] = sa[i % a.ndim]
    out = [c for k, c in enumerate(sa) if k not in {i % a.ndim for i in ax_a}] + \
          [c for k, c in enumerate(sb) if k not in {j % b.ndim for j in ax_b}]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector or matrix norms, as MindSpore 2.x's ``ops.norm`` (torch.linalg.norm's rules): with
    ``ord`` None the 2-norm of the flattened input (``dim`` None), of vectors (an int ``dim``) or
    the Frobenius norm (a pair); otherwise a vector norm for a 1-D input or an int ``dim`` and a
    matrix norm for a 2-D input or a pair."""
    x = _float(A) if dtype is None else F.cast(A, dtype)
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    matrix = isinstance(dim, (list, tuple)) or (dim is None and ord is not None and x.ndim == 2) \
        or ord in ("fro", "nuc")
    if matrix and dim is None and x.ndim != 2:
        raise ValueError(f"For 'norm', the 'ord' must be a number for an input of rank {x.ndim} with no 'dim' "
                         f"(a matrix norm needs a 2-D input or a pair of dims), but got {ord!r}.")
    if matrix:
        axes = tuple(dim) if dim is not None else (-2, -1)
        return matrix_norm(x, "fro" if ord is None else ord, axes, keepdim)
    if dim is None and ord is not None and x.ndim != 1:
        raise ValueError(f"For 'norm', an 'ord' with no 'dim' needs a 1-D or 2-D input, but got rank {x.ndim}.")
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim)
