"""Complex-number ops with MindSpore 2.10's names: ``ops.polar``, ``ops.view_as_real``,
``ops.real``, ``ops.imag``, ``ops.conj`` and the primitive class ``ops.Complex``
(MindSpore 2.10 has no ``ops.view_as_complex``: ``ops.Complex()(x[..., 0], x[..., 1])`` is it)."""
from .. import _registry
from .._engine import apply
from .._prims import complex as C
from .functional import _as_tensor, identity, zeros_like

__all__ = ["Complex", "polar", "view_as_real", "real", "imag", "conj"]


class Complex:
    """The primitive class ``ops.Complex()``: ``Complex()(real, imag)`` is ``real + 1j * imag``.

    Example:
        >>> ops.Complex()(Tensor([1.0]), Tensor([2.0]))  # [1.+2.j], Complex64
    """

    def __call__(self, real, imag):
        re, im = _as_tensor(real), _as_tensor(imag)
        if re.dtype != im.dtype or re._data.dtype.kind != "f":
            raise TypeError(f"For 'Complex', 'real' and 'imag' must be float tensors of one dtype, "
                            f"but got {re.dtype} and {im.dtype}.")
        return apply(C.Complex(), re, im)


def polar(abs, angle):  # noqa: A002 (MindSpore's parameter name)
    """``abs * (cos(angle) + 1j * sin(angle))``, Complex64 for Float32 inputs (torch.polar).

    Example:
        >>> ops.polar(Tensor([2.0]), Tensor([0.0]))  # [2.+0.j]
    """
    r, theta = _as_tensor(abs), _as_tensor(angle)
    if r.dtype != theta.dtype or r._data.dtype.kind != "f":
        raise TypeError(f"For 'polar', 'abs' and 'angle' must be float tensors of one dtype, "
                        f"but got {r.dtype} and {theta.dtype}.")
    return apply(C.Polar(), r, theta)


def view_as_real(input):  # noqa: A002
    """A complex tensor's real and imaginary parts on a new last axis of size 2.

    Raises:
        TypeError: ``input`` is not complex.
    """
    x = _as_tensor(input)
    if x._data.dtype.kind != "c":
        raise TypeError(f"For 'view_as_real', the input must be a complex tensor, but got {x.dtype}.")
    return apply(C.ViewAsReal(), x)


def real(input):  # noqa: A002
    """The real part (a real input is returned as it is)."""
    x = _as_tensor(input)
    return apply(C.Real(), x) if x._data.dtype.kind == "c" else x


def imag(input):  # noqa: A002
    """The imaginary part (zeros for a real input)."""
    x = _as_tensor(input)
    if x._data.dtype.kind == "c":
        return apply(C.Imag(), x)
    return zeros_like(x)


def conj(input):  # noqa: A002
    """The complex conjugate; a real input is returned as it is (differentiably: the identity).

    Example:
        >>> ops.conj(Tensor([1.0, -2.0]))  # [1.0, -2.0]
    """
    x = _as_tensor(input)
    return apply(C.Conj(), x) if x._data.dtype.kind == "c" else identity(x)


_registry.ops.register_module(globals())  # Tensor methods and backward rules call these by name
