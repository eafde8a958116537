"""Complex-number primitives: building a complex tensor from parts or from polar form, reading its
parts back, and the conjugate.

Gradients follow torch's (and MindSpore's) convention for a real loss L of z = x + iy: the
gradient of z is dL/dx + i dL/dy. Each backward is written with ms_core ops (`ops.<name>`,
looked up by name in ms_core._registry when it runs).
"""
import numpy as np

from .._engine import Primitive
from .._registry import ops



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
        return ops.real(dout), ops.imag(dout)


class Real(Primitive):
    def forward(self, ctx, x):
        return np.asarray(np.real(x), order="C")  # ascontiguousarray would make a 0-d part 1-d

    def backward(self, ctx, dout):
        return (ops.Complex()(dout, ops.zeros_like(dout)),)


class Imag(Primitive):
    def forward(self, ctx, x):
        return np.asarray(np.imag(x), order="C")

    def backward(self, ctx, dout):
        return (ops.Complex()(ops.zeros_like(dout), dout),)


class Conj(Primitive):
    def forward(self, ctx, x):
        return np.conj(x)

    def backward(self, ctx, dout):
        return (ops.conj(dout),)


class Polar(Primitive):
    """``abs * (cos(angle) + 1j * sin(angle))``."""

    def forward(self, ctx, r, theta):
        out = np.empty(np.broadcast_shapes(np.shape(r), np.shape(theta)), _complex_dtype(r, theta))
        out.real, out.imag = r * np.cos(theta), r * np.sin(theta)
        return out

    def backward(self, ctx, dout):
        r, theta = ctx.inputs
        gx, gy = ops.real(dout), ops.imag(dout)
        cos, sin = ops.cos(theta), ops.sin(theta)
        return gx * cos + gy * sin, r * (gy * cos - gx * sin)


class ViewAsReal(Primitive):
    """The real and imaginary parts on a new last axis of size 2."""

    def forward(self, ctx, x):
        return np.stack([np.real(x), np.imag(x)], axis=-1)

    def backward(self, ctx, dout):
        return (ops.Complex()(dout[..., 0], dout[..., 1]),)


class FFTN(Primitive):
    """NumPy's ``fftn`` (``ifftn`` when ``inverse``) over ``axes``, the input zero-padded or
    cropped to the signal sizes ``s`` first (None: as it is), scaled by ``norm``; Complex64 for
    Float32 / Complex64 input, Complex128 for 64-bit input.

    Backward: the transform is a scaled DFT matrix A (symmetric), whose adjoint A^H g is the same
    transform of conj(g), conjugated; the padding / cropping to ``s`` is undone, and a real
    input gets the real part (torch's convention for complex gradients)."""

    def __init__(self, axes, s, norm, inverse):
        self.axes, self.norm, self.inverse = tuple(axes), norm, inverse
        self.s = None if s is None else tuple(s)

    def forward(self, ctx, x):
        fn = np.fft.ifftn if self.inverse else np.fft.fftn
        out = fn(x, s=self.s, axes=self.axes, norm=self.norm)
        wide = x.dtype in (np.float64, np.complex128)
        return out.astype(np.complex128 if wide else np.complex64, copy=False)

    def backward(self, ctx, dout):
        x = ctx.inputs[0]
        g = ops.conj(FFTN(self.axes, None, self.norm, self.inverse)(ops.conj(dout)))
        g = _resized(g, x.shape, self.axes)
        return (g if x._data.dtype.kind == "c" else ops.real(g),)


def _resized(g, shape, axes):
    """``g`` cropped or zero-padded back to ``shape`` along ``axes`` (undoing a signal size)."""
    index = [slice(None)] * g.ndim
    pads = [0] * (2 * g.ndim)  # torch order: (left, right) pairs from the last axis backwards
    for axis in axes:
        n, m = shape[axis], g.shape[axis]
        if m > n:
            index[axis] = slice(0, n)
        elif m < n:
            pads[2 * (g.ndim - 1 - axis % g.ndim) + 1] = n - m
    if any(s != slice(None) for s in index):
        g = g[tuple(index)]
    return ops.pad(g, tuple(pads)) if any(pads) else g
