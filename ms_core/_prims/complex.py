"""Complex-number primitives: building a complex tensor from parts or from polar form, reading its
parts back, and the conjugate.

Gradients follow torch's (and MindSpore's) convention for a real loss L of z = x + iy: the
gradient of z is dL/dx + i dL/dy. Each backward is written with ms_core ops (``F``).
"""
import numpy as np

from .._engine import Primitive

F = None  # ms_core.ops.functional, bound by ms_core._binding.bind()


def _complex_dtype(*arrays):
    """complex64 for float32/float16 parts, complex128 for float64 ones."""
    wide = any(np.asarray(a).dtype == np.float64 for a in arrays)
    return np.complex128 if wide else np.complex64


class Complex(Primitive):
    """``real + 1j * imag`` (MindSpore's ``ops.Complex``)."""

    def forward(self, ctx, real, imag):
        out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)), _complex_dtype(real, imag))
        out.real, out.imag = real, imag
        return out

    def backward(self, ctx, dout):
        return F.real(dout), F.imag(dout)


class Real(Primitive):
    def forward(self, ctx, x):
        return np.ascontiguousarray(np.real(x))

    def backward(self, ctx, dout):
        return (F.Complex()(dout, F.zeros_like(dout)),)


class Imag(Primitive):
    def forward(self, ctx, x):
        return np.ascontiguousarray(np.imag(x))

    def backward(self, ctx, dout):
        return (F.Complex()(F.zeros_like(dout), dout),)


class Conj(Primitive):
    def forward(self, ctx, x):
        return np.conj(x)

    def backward(self, ctx, dout):
        return (F.conj(dout),)


class Polar(Primitive):
    """``abs * (cos(angle) + 1j * sin(angle))``."""

    def forward(self, ctx, r, theta):
        out = np.empty(np.broadcast_shapes(np.shape(r), np.shape(theta)), _complex_dtype(r, theta))
        out.real, out.imag = r * np.cos(theta), r * np.sin(theta)
        return out

    def backward(self, ctx, dout):
        r, theta = ctx.inputs
        gx, gy = F.real(dout), F.imag(dout)
        cos, sin = F.cos(theta), F.sin(theta)
        return gx * cos + gy * sin, r * (gy * cos - gx * sin)


class ViewAsReal(Primitive):
    """The real and imaginary parts on a new last axis of size 2."""

    def forward(self, ctx, x):
        return np.stack([np.real(x), np.imag(x)], axis=-1)

    def backward(self, ctx, dout):
        return (F.Complex()(dout[..., 0], dout[..., 1]),)
