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
