"""Matrix primitives: inverse and determinant of (batches of) square matrices."""
import numpy as np

from .._engine import Primitive

F = None  # ms_core.ops.functional, bound by ms_core._binding.bind()


def _mT(x):
    """The last two axes swapped (matrix transpose of a batch)."""
    return F.swapaxes(x, -1, -2)


class MatrixInverse(Primitive):
    def forward(self, ctx, x):
        return np.linalg.inv(x).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        # d(A^-1) = -A^-1 dA A^-1, so dL/dA = -A^-T dout A^-T
        inv_t = _mT(ctx.out)
        return (F.neg(F.matmul(F.matmul(inv_t, dout), inv_t)),)


class MatrixDeterminant(Primitive):
    def forward(self, ctx, x):
        return np.asarray(np.linalg.det(x)).astype(x.dtype, copy=False)

    def backward(self, ctx, dout):
        # d det(A) / dA = det(A) A^-T (Jacobi's formula)
        scale = F.expand_dims(F.expand_dims(dout * ctx.out, -1), -1)
        return (scale * _mT(MatrixInverse()(ctx.inputs[0])),)


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
                args.append(F.eye(size[c], size[c], dout.dtype))
                c = new
            seen.add(c)
            target += c
        for j, other in enumerate(self.inputs):
            if j != k:
                terms.append(other)
                args.append(operands[j])
        present = set("".join(terms))
        kept = "".join(c for c in target if c in present)
        g = Einsum(terms, kept)(*args)
        if kept != target:  # letters summed over operand k alone: the gradient is constant there
            g = F.reshape(g, tuple(shape[i] if c in present else 1 for i, c in enumerate(target)))
            g = F.broadcast_to(g, shape)
        return g
