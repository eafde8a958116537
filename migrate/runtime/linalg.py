"""torch's LU factorisation and triangular solves, written with the target's ops (differentiable like
any op, the same on ms_core and MindSpore 2.10): ``Tensor.lu()`` / ``torch.linalg.lu_factor``,
``torch.lu_unpack`` and ``torch.linalg.solve_triangular`` (normflows' Glow 1x1 convolutions and LU
linear layers). The pivots are chosen from the values (as LAPACK's getrf: the largest magnitude in
the column), the arithmetic is ops on rows, so gradients flow as torch's do for a fixed pivoting.
Meant for the small matrices of such layers: the loops run over rows, not elements of a batch.
"""
import numpy as np

from .backend import ms, ops


def _batches(A, name, rank=2):
    if not isinstance(A, ms.Tensor) or A.ndim < rank:
        raise ValueError(f"For '{name}', the input must be a Tensor of at least {rank} dimensions, but got "
                         f"{getattr(A, 'shape', type(A).__name__)}.")
    lead = tuple(A.shape[:-2])
    return lead, A.reshape((-1,) + tuple(A.shape[-2:]))


def _lu_one(a, pivot):
    """(LU packed as LAPACK's getrf, pivots 1-based) of one (m, n) matrix (rows pivoted by
    magnitude when ``pivot``)."""
    m, n = a.shape
    k = min(m, n)
    rows = [a[i] for i in range(m)]
    zero = ops.zeros((), a.dtype)
    mult = [[zero] * n for _ in range(m)]  # the multipliers below the diagonal, row by row
    pivots = []
    for j in range(k):
        p = j
        if pivot:
            column = np.abs(np.array([rows[i][j].asnumpy() for i in range(j, m)]))
            p = j + int(np.argmax(column))
        pivots.append(p + 1)
        rows[j], rows[p] = rows[p], rows[j]
        mult[j], mult[p] = mult[p], mult[j]
        if float(rows[j][j].asnumpy()) == 0.0:
            continue  # a zero pivot (singular): the column is left, as getrf does
        for i in range(j + 1, m):
            factor = rows[i][j] / rows[j][j]
            mult[i] = mult[i][:j] + [factor] + mult[i][j + 1:]
            rows[i] = rows[i] - factor * rows[j]
    upper = ms.Tensor(np.triu(np.ones((m, n), np.float32))).astype(a.dtype)
    lower = ops.stack([ops.stack(r) for r in mult]) * (1 - upper)
    return ops.stack(rows) * upper + lower, pivots


def torch_lu_factor(A, pivot=True):
    """torch.linalg.lu_factor(A): (LU, pivots) with A = P L U, L unit lower triangular below LU's
    diagonal, U on and above it, pivots int32 and 1-based (row i swapped with pivots[i] - 1)."""
    lead, flat = _batches(A, "lu_factor")
    if not pivot:  # (torch 2.13 on CPU refuses it too)
        raise RuntimeError("For 'lu_factor', LU without pivoting is not implemented: pass pivot=True.")
    done = [_lu_one(flat[b], True) for b in range(flat.shape[0])]
    lu = ops.stack([d[0] for d in done]).reshape(A.shape)
    pivots = ms.Tensor(np.array([d[1] for d in done], np.int32).reshape(lead + (min(A.shape[-2:]),)))
    return lu, pivots


def torch_lu(A, pivot=True, get_infos=False):
    """Tensor.lu() / torch.lu: :func:`torch_lu_factor`, and with get_infos the int32 infos (the
    first zero diagonal element of U, 1-based; 0 when there is none), as torch gives them."""
    lu, pivots = torch_lu_factor(A, pivot)
    if not get_infos:
        return lu, pivots
    k = min(A.shape[-2:])
    diag = np.diagonal(lu.asnumpy(), axis1=-2, axis2=-1)[..., :k] == 0
    infos = np.where(diag.any(-1), diag.argmax(-1) + 1, 0).astype(np.int32)
    return lu, pivots, ms.Tensor(infos)


def _permutation(pivots, m):
    """The row order P^T applies: where each row of A goes, from LAPACK's successive swaps."""
    order = np.arange(m)
    for i, p in enumerate(pivots):
        order[[i, p - 1]] = order[[p - 1, i]]
    return order


def torch_lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """torch.lu_unpack(LU, pivots): (P, L, U) with A = P @ L @ U; a part not asked for is an empty
    tensor, as torch returns it."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = ops.zeros((0,), LU_data.dtype)
    P = L = U = empty
    if unpack_pivots:
        piv = LU_pivots.asnumpy().reshape(-1, LU_pivots.shape[-1])
        eye = np.eye(m, dtype=np.float32)
        perms = np.stack([eye[:, _permutation(p, m)] for p in piv])  # P[order[i], i] = 1
        P = ms.Tensor(perms.reshape(tuple(LU_data.shape[:-2]) + (m, m))).astype(LU_data.dtype)
    if unpack_data:
        below = ms.Tensor(np.tril(np.ones((m, k), np.float32), -1)).astype(LU_data.dtype)
        L = LU_data[..., :, :k] * below + ms.Tensor(np.eye(m, k, dtype=np.float32)).astype(LU_data.dtype)
        U = LU_data[..., :k, :] * ms.Tensor(np.triu(np.ones((k, n), np.float32))).astype(LU_data.dtype)
    return P, L, U


def torch_linalg_lu(A, pivot=True):
    """torch.linalg.lu(A): (P, L, U) with A = P @ L @ U."""
    return torch_lu_unpack(*torch_lu_factor(A, pivot))


def _last_two_swapped(x):
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return ops.transpose(x, perm)


def torch_solve_triangular(A, B, upper, left=True, unitriangular=False):
    """torch.linalg.solve_triangular(A, B, upper=..., left=True, unitriangular=False): X with
    A @ X = B (left) or X @ A = B, A triangular (only its triangle is read; with unitriangular its
    diagonal is taken as ones), by substitution one row at a time (differentiable in A and B)."""
    if A.ndim < 2 or B.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"For 'solve_triangular', A must be a batch of square matrices and B at least 2-D, but got "
                         f"shapes {tuple(A.shape)} and {tuple(B.shape)}.")
    if not left:  # X A = B  <=>  A^T X^T = B^T, the other triangle
        return _last_two_swapped(torch_solve_triangular(_last_two_swapped(A), _last_two_swapped(B),
                                                        not upper, True, unitriangular))
    n = A.shape[-1]
    if B.shape[-2] != n:
        raise ValueError(f"For 'solve_triangular', B must have {n} rows for a {n}x{n} A, but got shape "
                         f"{tuple(B.shape)}.")
    order = range(n - 1, -1, -1) if upper else range(n)
    solved = {}
    for i in order:
        row = B[..., i:i + 1, :]
        for j, x in solved.items():
            row = row - A[..., i:i + 1, j:j + 1] * x
        solved[i] = row if unitriangular else row / A[..., i:i + 1, i:i + 1]
    return ops.cat([solved[i] for i in range(n)], -2)
