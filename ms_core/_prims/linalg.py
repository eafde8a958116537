"""Linear-algebra primitives: einsum, matrix inverse, (log-)determinant, Cholesky, SVD and QR.

Each backward is written with ms_core ops (`ops.<name>`, looked up by name in ms_core._registry
when it runs) and with these primitives themselves, so it is recorded and can be differentiated
again.
"""
import string

import numpy as np

from .._engine import Primitive, apply
from .._registry import ops



# --- einsum -----------------------------------------------------------------------------------

def parse_einsum(equation: str, ndims: list[int]) -> tuple[list[str], str]:
    """The operands' subscripts and the output subscript of ``equation``, ellipses spelled out
    with letters the equation does not use, and the implicit output (the letters used once, in
    alphabetical order, after the ellipsis dimensions) made explicit.

    Raises:
        ValueError: when the equation does not match the operands.
    """
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(ndims):
        raise ValueError(f"For 'einsum', the equation {equation!r} names {len(subs)} operands, "
                         f"but got {len(ndims)}.")
    free = [c for c in string.ascii_letters if c not in eq]
    ell_len = max([n - len(s.replace("...", "")) for s, n in zip(subs, ndims) if "..." in s], default=0)
    ell = "".join(free[:ell_len])
    out_subs = []
    for s, n in zip(subs, ndims):
        if "..." in s:
            k = n - len(s.replace("...", ""))
            s = s.replace("...", ell[ell_len - k:])
        if len(s) != n:
            raise ValueError(f"For 'einsum', the subscript {s!r} does not match an operand of rank {n}.")
        out_subs.append(s)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        letters = "".join(out_subs)
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell))
    return out_subs, out


class Einsum(Primitive):
    """A sum of products over explicit subscripts (``inputs``: one letter string per operand, no
    ellipsis, sizes already equal per letter; ``output``: the result's letters). The gradient
    of each operand is another Einsum of the output gradient with the other operands, so it can
    be differentiated again."""

    def __init__(self, inputs, output):
        self.inputs, self.output = tuple(inputs), output

    def forward(self, ctx, *arrays):
        spec = ",".join(self.inputs) + "->" + self.output
        out = np.einsum(spec, *arrays, optimize=len(arrays) > 2)
        return np.asarray(out).astype(arrays[0].dtype, copy=False)

    def backward(self, ctx, dout):
        return tuple(self._grad(ctx.inputs, k, dout) for k in range(len(self.inputs)))

    def _grad(self, operands, k, dout):
        """d(sum(dout * out)) / d(operand k): Einsum of dout with the other operands into k's
        letters; a letter repeated in k (a diagonal) is a fresh letter tied by an identity
        matrix, and a letter only k has (summed over k alone) is broadcast back."""
        subs, shape = self.inputs[k], operands[k].shape
        size = dict(zip(subs, shape))
        used = set("".join(self.inputs) + self.output)
        fresh = (c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used)
        target, terms, args, seen = "", [self.output], [dout], set()
        for c in subs:
            if c in seen:  # a repeated letter: its own letter, equal to c through eye(n)
                new = next(fresh)
                terms.append(c + new)
                args.append(ops.eye(size[c], size[c], dout.dtype))
                c = new
            seen.add(c)
            target += c
        for j, other in enumerate(self.inputs):
            if j != k:
                terms.append(other)
                args.append(operands[j])
        present = set("".join(terms))
        kept = "".join(c for c in target if c in present)
        g = apply(Einsum(terms, kept), *args)
        if kept != target:  # letters summed over operand k alone: the gradient is constant there
            g = ops.reshape(g, tuple(shape[i] if c in present else 1 for i, c in enumerate(target)))
            g = ops.broadcast_to(g, shape)
        return g


# --- inverse and determinants -----------------------------------------------------------------

def _mT(x):
    return ops.swapaxes(x, -1, -2)


class MatrixInverse(Primitive):
    def forward(self, ctx, a):
        return np.linalg.inv(a).astype(a.dtype, copy=False)

    def backward(self, ctx, dout):
        inv_t = _mT(ctx.out)
        return (ops.neg(ops.matmul(ops.matmul(inv_t, dout), inv_t)),)


class SLogDet(Primitive):
    """(sign, log|det|) of square matrices; the gradient of log|det| is inv(A)^T."""

    n_out = 2
    tuple_douts = True

    def forward(self, ctx, a):
        sign, logabs = np.linalg.slogdet(a)
        return np.asarray(sign, dtype=a.dtype), np.asarray(logabs, dtype=a.dtype)

    def backward(self, ctx, douts):
        g = douts[1]
        inv_t = _mT(apply(MatrixInverse(), ctx.inputs[0]))
        return (ops.expand_dims(ops.expand_dims(g, -1), -1) * inv_t,)


class MatrixDeterminant(Primitive):
    def forward(self, ctx, a):
        return np.asarray(np.linalg.det(a), dtype=a.dtype)

    def backward(self, ctx, dout):
        inv_t = _mT(apply(MatrixInverse(), ctx.inputs[0]))
        return (ops.expand_dims(ops.expand_dims(dout * ctx.out, -1), -1) * inv_t,)


# --- factorisations ---------------------------------------------------------------------------

def _sym(x):
    return (x + _mT(x)) * 0.5


def _phi(x):
    """The lower triangle of x with its diagonal halved."""
    return ops.tril(x) - ops.tril(ops.triu(x)) * 0.5


class Cholesky(Primitive):
    """The lower Cholesky factor L of a symmetric positive-definite A = L L^T."""

    def forward(self, ctx, a):
        return np.linalg.cholesky(a).astype(a.dtype, copy=False)

    def backward(self, ctx, dout):
        # A-bar = L^-T Phi(L^T L-bar) L^-1, symmetrised (Murray, 2016)
        low = ctx.out
        inv = apply(MatrixInverse(), low)
        inner = _phi(ops.matmul(_mT(low), dout))
        return (_sym(ops.matmul(ops.matmul(_mT(inv), inner), inv)),)


class Svd(Primitive):
    """(U, S, Vh) of the SVD A = U diag(S) Vh; ``full_matrices`` completes U and Vh to square
    orthogonal matrices (the extra columns are not unique: they get no gradient)."""

    n_out = 3
    tuple_douts = True

    def __init__(self, full_matrices=False):
        self.full_matrices = bool(full_matrices)

    def forward(self, ctx, a):
        u, s, vh = np.linalg.svd(a, full_matrices=self.full_matrices)
        return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), vh.astype(a.dtype, copy=False)

    def backward(self, ctx, douts):
        # real reduced SVD backward (Townsend, 2016), with the rectangular terms
        gu, gs, gvh = douts
        a = ctx.inputs[0]
        # the outputs are recomputed (recorded) rather than read from ctx: one the caller dropped
        # is gone, and grad of grad needs them as functions of the input
        u, s, vh = apply(Svd(self.full_matrices), a)
        k = s.shape[-1]
        if self.full_matrices:
            u, gu = u[..., :k], gu[..., :k]
            vh, gvh = vh[..., :k, :], gvh[..., :k, :]
        v, gv = _mT(vh), _mT(gvh)
        m, n = a.shape[-2], a.shape[-1]
        eye = ops.eye(k, k, s.dtype)
        s2 = s * s
        f = (1 - eye) / (ops.expand_dims(s2, -2) - ops.expand_dims(s2, -1) + eye)
        s_mat = ops.expand_dims(s, -2) * eye
        s_inv = ops.expand_dims(1 / s, -2) * eye
        ut_gu, vt_gv = ops.matmul(_mT(u), gu), ops.matmul(_mT(v), gv)
        core = ops.matmul(f * (ut_gu - _mT(ut_gu)), s_mat) + ops.expand_dims(gs, -2) * eye \
            + ops.matmul(s_mat, f * (vt_gv - _mT(vt_gv)))
        grad = ops.matmul(ops.matmul(u, core), _mT(v))
        if m > k:
            proj = ops.eye(m, m, a.dtype) - ops.matmul(u, _mT(u))
            grad = grad + ops.matmul(ops.matmul(proj, gu), ops.matmul(s_inv, _mT(v)))
        if n > k:
            proj = ops.eye(n, n, a.dtype) - ops.matmul(v, _mT(v))
            grad = grad + ops.matmul(ops.matmul(u, s_inv), _mT(ops.matmul(proj, gv)))
        return (grad,)


class Qr(Primitive):
    """(Q, R) of the reduced QR decomposition of a matrix with at least as many rows as columns."""

    n_out = 2
    tuple_douts = True

    def forward(self, ctx, a):
        q, r = np.linalg.qr(a, mode="reduced")
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)

    def backward(self, ctx, douts):
        # A-bar = (Q-bar + Q copyltu(M)) R^-T with M = R R-bar^T - Q-bar^T Q (m >= n)
        gq, gr = douts
        q, r = apply(Qr(), ctx.inputs[0])   # recomputed: see Svd.backward
        m = ops.matmul(r, _mT(gr)) - ops.matmul(_mT(gq), q)
        low = ops.tril(m, -1)
        copyltu = low + _mT(low) + ops.tril(ops.triu(m))
        return (ops.matmul(gq + ops.matmul(q, copyltu), _mT(apply(MatrixInverse(), r))),)
