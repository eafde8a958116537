"""Axis checks in MindSpore's words, shared by primitives and functions.

MindSpore 2.10 refuses an axis outside ``[-ndim, ndim)`` (``For 'Softmax', the 'axis' must be in
[-2, 2), but got 2.``); NumPy would wrap it silently (``a % ndim``) or raise its own AxisError.
A 0-d tensor takes the axes of a 1-d one, as in MindSpore.
"""
import numbers


def check_axis(prim_name: str, axis, ndim: int, arg_name: str = "axis") -> int:
    """Return ``axis`` as an index in ``[0, ndim)`` (0 for a 0-d tensor).

    Args:
        prim_name: the operation named in the message (``'ReduceSum'``, ``'Tensor.flatten'``).
        axis: the axis given; an int.
        ndim: the rank of the tensor it indexes.
        arg_name: the argument's name in the message.

    Returns:
        The non-negative axis.

    Raises:
        TypeError: ``axis`` is not an int.
        ValueError: ``axis`` is outside ``[-ndim, ndim)``.

    Example:
        >>> check_axis("Softmax", -1, 3)
        2
    """
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"For '{prim_name}', the '{arg_name}' must be an int, but got "
                        f"{type(axis).__name__}.")
    n = max(ndim, 1)
    if not -n <= axis < n:
        raise ValueError(f"For '{prim_name}', the '{arg_name}' must be in [{-n}, {n}), but got {axis}.")
    return int(axis) % n if ndim else 0


def check_axes(prim_name: str, axes, ndim: int, arg_name: str = "axis") -> tuple:
    """:func:`check_axis` for each of ``axes`` (an int or a sequence), sorted, as a tuple."""
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        axes = (axes,)
    return tuple(sorted(check_axis(prim_name, a, ndim, arg_name) for a in axes))


def broadcast_message(prim_name: str, shapes) -> str:
    """MindSpore's message for shapes that do not broadcast, naming the first axis (from the
    right) where they differ."""
    shapes = [list(s) for s in shapes]
    names = ["x", "y"] if len(shapes) == 2 else [f"input{i + 1}" for i in range(len(shapes))]
    longest = max(len(s) for s in shapes)
    for back in range(1, longest + 1):
        sizes = {s[-back] for s in shapes if len(s) >= back} - {1}
        if len(sizes) > 1:
            at = " or ".join(f"{n}.shape[{len(s) - back}]" for n, s in zip(names, shapes) if len(s) >= back)
            break
    else:  # not reached for shapes that fail to broadcast
        at = "the sizes"
    got = " and ".join(f"{n}.shape = {s}" for n, s in zip(names, shapes))
    return (f"For '{prim_name}', {' and '.join(n + '.shape' for n in names)} need to broadcast. "
            f"The value of {at} must be 1 when they are not the same, but got {got}.")
