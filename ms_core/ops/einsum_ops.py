"""`ops.einsum`, MindSpore 2.10's signature ``einsum(equation, *operands)`` with torch's
equation rules (ellipsis, implicit output, size-1 broadcasting). MindSpore 2.10 has no CPU
kernel for it (its ops.einsum is GPU-only, mint.einsum Ascend-only); ms_core computes it
everywhere, differentiably (the Einsum primitive's gradient is itself an Einsum).
"""
import string

from .._prims import linalg as L
from ..common.tensor import Tensor
from . import functional as F

__all__ = ["einsum"]


def _error(message):
    return ValueError(f"For 'Einsum', {message}")


def _split(equation, n):
    """(input terms, output term or None) of an equation without spaces; checks the letters."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != n:
        raise _error(f"the number of operands should be equal to the number of terms in the "
                     f"equation {equation!r} ({len(terms)}), but got {n}.")
    for term in terms + ([rhs] if arrow else []):
        rest = term.replace("...", "", 1)
        if "." in rest or not all(c in string.ascii_letters for c in rest):
            raise _error(f"the equation may hold only letters, ',', '->' and one '...' per term, "
                         f"but got {equation!r}.")
    return terms, rhs if arrow else None


def _expand(terms, output, operands, equation):
    """Terms and output with each '...' replaced by letters (right-aligned across operands)."""
    free = [c for c in string.ascii_letters if c not in equation]
    counts = []
    for term, x in zip(terms, operands):
        letters = len(term.replace("...", ""))
        extra = x.ndim - letters
        if extra < 0 or (extra > 0 and "..." not in term):
            raise _error(f"the term {term!r} needs an operand with {letters} dimensions, but got "
                         f"shape {list(x.shape)}.")
        counts.append(extra)
    width = max(counts, default=0)
    dots = "".join(free[:width])
    expanded = [t.replace("...", dots[width - c:]) for t, c in zip(terms, counts)]
    if output is None:  # torch's implicit output: ellipsis, then letters used once, sorted
        once = sorted(c for c in set("".join(terms).replace("...", ""))
                      if "".join(terms).count(c) == 1)
        return expanded, dots + "".join(once)
    if len(set(output.replace("...", ""))) != len(output.replace("...", "")):
        raise _error(f"an output letter may appear once only, but got {output!r}.")
    out = output.replace("...", dots)
    for c in out:
        if c not in "".join(expanded):
            raise _error(f"the output letter {c!r} appears in no input term of {equation!r}.")
    return expanded, out


def _sizes(terms, operands):
    """The size of each letter; size-1 axes broadcast (as in torch)."""
    size = {}
    for term, x in zip(terms, operands):
        for c, n in zip(term, x.shape):
            if c in size and n != size[c] and 1 not in (n, size[c]):
                raise _error(f"the dimension of letter {c!r} should be the same for every operand, "
                             f"but got {size[c]} and {n}.")
            size[c] = max(size.get(c, n), n) if term.count(c) == 1 else n
    for term, x in zip(terms, operands):
        for c, n in zip(term, x.shape):
            if term.count(c) > 1 and n != size[c]:
                raise _error(f"a letter repeated in one term ({term!r}) needs equal dimensions, "
                             f"but got shape {list(x.shape)}.")
    return size


def einsum(equation, *operands):
    """Sum of products of `operands` over the subscripts of `equation` (``'bij,bjk->bik'``).

    Args:
        equation (str): input terms separated by ',', optionally '->' and the output term;
            letters a-z and A-Z, one '...' per term for leading broadcast axes. Without '->'
            the output is torch's: the ellipsis axes, then the letters used once, sorted.
        *operands (Tensor): one per input term, all of one dtype (a single list or tuple of
            Tensors is taken as the operands, as torch takes it).

    Returns:
        Tensor of the output term's shape, in the operands' dtype.

    Raises:
        TypeError: `equation` is not a str, an operand is not a Tensor, or the dtypes differ.
        ValueError: the terms do not match the operands' number or dimensions, or the sizes of
            one letter differ.

    Example:
        >>> ops.einsum('ij,jk->ik', a, b)  # a @ b
    """
    if not isinstance(equation, str):
        raise TypeError(f"For 'Einsum', the 'equation' must be str, but got "
                        f"{type(equation).__name__}.")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for x in operands:
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'Einsum', the operands must be Tensors, but got "
                            f"{type(x).__name__}.")
        if x.dtype != operands[0].dtype:
            raise TypeError(f"For 'Einsum', all operands must have the same dtype, but got "
                            f"{operands[0].dtype} and {x.dtype}.")
    terms, output = _split(equation, len(operands))
    terms, output = _expand(terms, output, operands, equation)
    size = _sizes(terms, operands)
    full = [x if tuple(x.shape) == tuple(size[c] for c in t)
            else F.broadcast_to(x, tuple(size[c] for c in t)) for t, x in zip(terms, operands)]
    return L.Einsum(terms, output)(*full)
