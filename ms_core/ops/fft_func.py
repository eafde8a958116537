"""Discrete Fourier transforms with MindSpore 2.10's names and signatures (torch.fft's):
``ops.fft`` / ``ifft`` (one axis), ``fft2`` / ``ifft2`` (two), ``fftn`` / ``ifftn`` (any),
``rfft`` (the non-negative frequencies of a real signal's fft) and its inverse ``irfft``. Differentiable (see
``_prims.complex.FFTN``)."""
from .._engine import apply
from .._prims import complex as C
from .complex_func import conj, real
from .functional import _as_tensor, cat, flip, narrow, pad

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft"]

_NORMS = (None, "backward", "forward", "ortho")


def _transform(name, x, s, dim, norm, inverse):
    x = _as_tensor(x)
    if norm not in _NORMS:
        raise ValueError(f"For '{name}', the 'norm' must be one of ['backward', 'forward', 'ortho'], "
                         f"but got {norm!r}.")
    if x._data.dtype.kind not in "fc":
        raise TypeError(f"For '{name}', the input must be a float or complex tensor, but got {x.dtype}.")
    if dim is None:
        dim = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    dim = tuple(d % x.ndim for d in ((dim,) if isinstance(dim, int) else dim))
    if s is not None and len(s) != len(dim):
        raise ValueError(f"For '{name}', 's' and 'dim' must have the same length, but got "
                         f"{len(s)} and {len(dim)}.")
    if s is not None:
        s = tuple(x.shape[d] if n == -1 else int(n) for n, d in zip(s, dim))
    return apply(C.FFTN(dim, s, None if norm == "backward" else norm, inverse), x)


def fft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The 1-D discrete Fourier transform along ``dim`` (``n``: the signal length, zero-padded
    or cropped). Example: ``ops.fft(Tensor([1.0, 0.0]))`` is ``[1.+0.j, 1.+0.j]``."""
    return _transform("fft", input, None if n is None else (n,), (dim,), norm, False)


def ifft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The inverse of ``fft`` along ``dim``."""
    return _transform("ifft", input, None if n is None else (n,), (dim,), norm, True)


def fft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-D discrete Fourier transform over ``dim`` (the last two axes)."""
    return _transform("fft2", input, s, dim, norm, False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The inverse of ``fft2``."""
    return _transform("ifft2", input, s, dim, norm, True)


def fftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The N-D discrete Fourier transform over ``dim`` (every axis, or the last ``len(s)``)."""
    return _transform("fftn", input, s, dim, norm, False)


def ifftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The inverse of ``fftn``."""
    return _transform("ifftn", input, s, dim, norm, True)


def rfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The fft of a real signal along ``dim``, its ``n // 2 + 1`` non-negative frequencies."""
    x = _as_tensor(input)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For 'rfft', the input must be a real float tensor, but got {x.dtype}.")
    out = _transform("rfft", x, None if n is None else (n,), (dim,), norm, False)
    axis = dim % x.ndim
    return narrow(out, axis, 0, out.shape[axis] // 2 + 1)


def irfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The inverse of ``rfft`` along ``dim``: the real signal of length ``n`` (default
    ``2 * (m - 1)``, ``m`` the frequencies given) whose rfft the input is. The frequencies are
    cropped or zero-padded to ``n // 2 + 1``, the negative ones are the conjugates of the positive
    ones, and the imaginary parts of the zero and (even ``n``) the last frequency do not count.
    Example: ``ops.irfft(ops.rfft(x), x.shape[-1])`` is ``x``."""
    x = _as_tensor(input)
    if x._data.dtype.kind not in "fc":
        raise TypeError(f"For 'irfft', the input must be a float or complex tensor, but got {x.dtype}.")
    axis = dim % x.ndim
    m = x.shape[axis]
    n = 2 * (m - 1) if n is None else int(n)
    if n < 1:
        raise ValueError(f"For 'irfft', the output length 'n' must be positive, but got {n} "
                         f"(from {m} frequencies along dim {dim}).")
    half = n // 2 + 1
    if m > half:
        x = narrow(x, axis, 0, half)
    elif m < half:
        pads = [0] * (2 * x.ndim)  # (left, right) pairs from the last axis backwards
        pads[2 * (x.ndim - 1 - axis) + 1] = half - m
        x = pad(x, tuple(pads))
    if n > half:  # frequency n - k is the conjugate of frequency k
        x = cat((x, conj(flip(narrow(x, axis, 1, n - half), (axis,)))), axis)
    return real(_transform("irfft", x, None, (axis,), norm, True))
