"""Argument validation for the whole of ms_core, in MindSpore's message style:

    For 'Conv2d', the 'pad_mode' must be one of ['same', 'valid', 'pad'], but got 'full'.

Every check takes `(prim_name, arg_name, value, ...)`, the order the message reads, raises
TypeError for a wrong type and ValueError for a wrong value, and returns the value (converted
where its docstring says so), so a constructor can write `self.eps = check_float(...)`.
`arg_name=None` names a positional input: "For 'Conv2d', the input must be ...".

Three wordings live side by side because tests (and users' expectations) pin them:

- ms_core's own: `the 'eps' must be float, but got str.`, `must be > 0.0, but got 0.0.`;
- MindSpore's Validator wording, kept where a layer was ported with MindSpore's exact messages
  (`check_value_type`, `check_int_relation`);
- mindspore.dataset's wording, which names no operation (`check_dataset_type`,
  `check_dataset_range`).

Names follow `mindspore._checkparam` (check_bool, check_positive_int, check_value_type, ...).
"""
import math
import numbers

from ._axes import broadcast_message  # one wording for every op (x.shape, y.shape)
from .common.tensor import Tensor

_FLOAT_DTYPES = "float16, float32 or float64"


def _subject(prim_name, arg_name):
    """"For 'X', the 'y'" (or "For 'X', the input" for a positional input)."""
    what = "the input" if arg_name is None else f"the '{arg_name}'"
    return f"For '{prim_name}', {what}"


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_bounds(prim_name, arg_name, value, low, high, inc):
    """ValueError `must be >= low` / `> low` / `<= high` / `< high`; NaN is out of every bound."""
    if low is not None and not (value >= low if inc[0] == "[" else value > low):
        rel = ">=" if inc[0] == "[" else ">"
        raise ValueError(f"{_subject(prim_name, arg_name)} must be {rel} {low}, but got {value}.")
    if high is not None and not (value <= high if inc[1] == "]" else value < high):
        rel = "<=" if inc[1] == "]" else "<"
        raise ValueError(f"{_subject(prim_name, arg_name)} must be {rel} {high}, but got {value}.")


# --- Tensors ------------------------------------------------------------------------------------

def check_tensor(prim_name, arg_name, value, allow_none=False):
    """A Tensor (or None when `allow_none`).

    Args:
        prim_name: the operation or class named in the message.
        arg_name: the argument's name, or None for the positional input.
        value: what was passed.
        allow_none: accept None as well.

    Returns:
        `value`.

    Raises:
        TypeError: `value` is not a Tensor.

    Example:
        >>> check_tensor('dropout', 'input', np.ones(2))
        TypeError: For 'dropout', the 'input' must be a Tensor, but got ndarray.
    """
    if isinstance(value, Tensor) or (allow_none and value is None):
        return value
    what = "a Tensor or None" if allow_none else "a Tensor"
    raise TypeError(f"{_subject(prim_name, arg_name)} must be {what}, but got "
                    f"{type(value).__name__}.")


def check_float_dtype(prim_name, arg_name, value):
    """A Tensor of float16, float32 or float64 (TypeError otherwise); returns it."""
    if value._data.dtype.kind != "f":
        what = (f"For '{prim_name}', the input dtype" if arg_name is None else
                f"For '{prim_name}', the dtype of '{arg_name}'")
        raise TypeError(f"{what} must be {_FLOAT_DTYPES}, but got {value.dtype}.")
    return value


def check_rank(prim_name, arg_name, value, ranks, layout=""):
    """A Tensor whose number of dimensions is one of `ranks` (ValueError otherwise).

    `layout` describes the axes in the message: `must be a 4-D Tensor (N, C, H, W), but got ...`.
    """
    if getattr(value, "ndim", None) not in ranks:
        want = " or ".join(f"{n}-D" for n in ranks)
        layout = f" {layout}" if layout else ""
        raise ValueError(f"{_subject(prim_name, arg_name)} must be a {want} Tensor{layout}, but "
                         f"got shape {list(getattr(value, 'shape', ()))}.")
    return value


def check_float_tensor(prim_name, arg_name, value, ranks=None, layout=""):
    """A floating-point Tensor (and, with `ranks`, of one of those ranks); returns it.

    Example:
        >>> check_float_tensor('Conv2D', None, x, (4,), '(N, C, H, W)')
    """
    check_tensor(prim_name, arg_name, value)
    if ranks is not None:
        check_rank(prim_name, arg_name, value, ranks, layout)
    return check_float_dtype(prim_name, arg_name, value)


def check_same_float_dtype(prim_name, arg_names, values):
    """Floating-point Tensors that all have one dtype (TypeError otherwise); returns them."""
    for arg_name, value in zip(arg_names, values):
        check_float_dtype(prim_name, arg_name, value)
    dtypes = [v._data.dtype for v in values]
    if len(set(dtypes)) > 1:
        raise TypeError(f"For '{prim_name}', the dtypes of {list(arg_names)} must be the same, but "
                        f"got {[str(d) for d in dtypes]}.")
    return values


def check_same_shape(prim_name, a_name, a, b_name, b):
    """`b` has the shape of `a` (ValueError otherwise)."""
    if a.shape != b.shape:
        raise ValueError(f"For '{prim_name}', the '{b_name}' shape {list(b.shape)} must equal the "
                         f"'{a_name}' shape {list(a.shape)}.")
    return b


def check_axis(prim_name, arg_name, value, ndim, extra=0):
    """An int axis of a tensor of rank `ndim` (`extra` more positions for ops that insert an axis,
    e.g. 1 for expand_dims and stack), returned in [0, ndim + extra); negative values count from
    the end. A 0-d tensor accepts 0 and -1, as MindSpore and torch do.

    Example:
        >>> check_axis('softmax', 'axis', -1, 3)
        2
    """
    if not _is_int(value):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be an int, but got "
                        f"{type(value).__name__}.")
    n = max(ndim + extra, 1)
    if not -n <= value < n:
        raise ValueError(f"{_subject(prim_name, arg_name)} must be in [{-n}, {n}), but got {value}.")
    return int(value) % n


def check_broadcast(prim_name, a_shape, b_shape):
    """ValueError in MindSpore's words when two shapes do not broadcast (NumPy's message names
    neither the operation nor the axis); returns the broadcast shape.

    Example:
        >>> check_broadcast('Add', (2, 3), (3,))
        (2, 3)
    """
    a, b = tuple(a_shape), tuple(b_shape)
    for k in range(1, min(len(a), len(b)) + 1):
        if a[-k] != b[-k] and a[-k] != 1 and b[-k] != 1:
            raise ValueError(broadcast_message(prim_name, (a, b)))
    longer = a if len(a) >= len(b) else b
    short = b if longer is a else a
    pad = (1,) * (len(longer) - len(short)) + short
    return tuple(x if y == 1 else y for x, y in zip(longer, pad))


# --- other types --------------------------------------------------------------------------------

def check_bool(prim_name, arg_name, value):
    """A bool (TypeError otherwise, 0 and 1 included); returns it.

    Example:
        >>> check_bool('Dense', 'has_bias', 1)
        TypeError: For 'Dense', the 'has_bias' must be bool, but got int.
    """
    if not isinstance(value, bool):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be bool, but got "
                        f"{type(value).__name__}.")
    return value


def check_is_str(prim_name, arg_name, value):
    """A str (TypeError otherwise); returns it."""
    if not isinstance(value, str):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be a str, but got "
                        f"{type(value).__name__}.")
    return value


def check_string(prim_name, arg_name, value, valid_values):
    """One of `valid_values` (ValueError otherwise); returns it.

    Example:
        >>> check_string('mse_loss', 'reduction', 'avg', ['none', 'mean', 'sum'])
        ValueError: For 'mse_loss', the 'reduction' must be one of ['none', 'mean', 'sum'], but
        got 'avg'.
    """
    if value not in valid_values:
        raise ValueError(f"{_subject(prim_name, arg_name)} must be one of {list(valid_values)}, "
                         f"but got {value!r}.")
    return value


def check_value_type(prim_name, arg_name, value, valid_types):
    """An instance of one of `valid_types` (bool only if listed), in MindSpore's wording:

        For 'LSTM', the type of 'has_bias' should be 'bool', but got type 'int'.
        For 'Dropout', the type of 'p' should be one of '['float', 'int']', but got type 'str'.
    """
    valid_types = tuple(valid_types)
    if (isinstance(value, bool) and bool not in valid_types) or not isinstance(value, valid_types):
        names = [t.__name__ for t in valid_types]
        want = f"'{names[0]}'" if len(names) == 1 else f"one of '{names}'"
        raise TypeError(f"For '{prim_name}', the type of '{arg_name}' should be {want}, but got "
                        f"type '{type(value).__name__}'.")
    return value


# --- numbers ------------------------------------------------------------------------------------

def check_int(prim_name, arg_name, value, low=None, high=None, inc="[]"):
    """An int (NumPy ints included, bools not) within the optional bounds, returned as int.

    `inc` says which bounds are included: '[' or '(' for `low`, ']' or ')' for `high`.

    Raises:
        TypeError: `must be int, but got float.`
        ValueError: `must be >= 1, but got 0.` (or `>`, `<=`, `<` for exclusive / upper bounds).

    Example:
        >>> check_int('StepLR', 'step_size', 0, 1)
        ValueError: For 'StepLR', the 'step_size' must be >= 1, but got 0.
    """
    if not _is_int(value):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be int, but got "
                        f"{type(value).__name__}.")
    _check_bounds(prim_name, arg_name, value, low, high, inc)
    return int(value)


def check_positive_int(prim_name, arg_name, value):
    """An int > 0, returned as int; anything else is a ValueError.

    Example:
        >>> check_positive_int('Dense', 'in_channels', 0)
        ValueError: For 'Dense', the 'in_channels' must be a positive int, but got 0.
    """
    if not _is_int(value) or value <= 0:
        raise ValueError(f"{_subject(prim_name, arg_name)} must be a positive int, but got "
                         f"{value!r}.")
    return int(value)


def check_int_relation(prim_name, arg_name, value, rel, bound):
    """An int with `value rel bound` (rel one of '>', '>=', '<', '<=', '=='), in MindSpore's
    wording; ValueError otherwise, a wrong type included:

        For 'LSTM', the 'hidden_size' must be int and must > 0, but got '0' with type 'int'.
    """
    holds = {">": value > bound, ">=": value >= bound, "<": value < bound, "<=": value <= bound,
             "==": value == bound}[rel] if _is_int(value) else False
    if not holds:
        raise ValueError(f"{_subject(prim_name, arg_name)} must be int and must {rel} {bound}, but "
                         f"got '{value}' with type '{type(value).__name__}'.")
    return int(value)


def check_float(prim_name, arg_name, value, low=None, high=None, inc="[]", allow_int=True):
    """A float (an int too unless `allow_int` is False) within the bounds (`inc` as for
    `check_int`), returned as float.

    Raises:
        TypeError: `must be float, but got str.`
        ValueError: `must be > 0.0, but got 0.0.` (the bound as given, the value as float).

    Example:
        >>> check_float('Adam', 'eps', 0.0, 0.0, inc="(]")
        ValueError: For 'Adam', the 'eps' must be > 0.0, but got 0.0.
    """
    if not (_is_real(value) if allow_int else isinstance(value, float)):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be float, but got "
                        f"{type(value).__name__}.")
    value = float(value)
    _check_bounds(prim_name, arg_name, value, low, high, inc)
    return value


def check_number(prim_name, arg_name, value, low=None, high=None, inc="[]", finite=False):
    """An int or float (NumPy scalars included) within the bounds (`inc` as for `check_int`),
    returned as given.

    Raises:
        TypeError: `must be a float or int, but got str.`
        ValueError: `must be finite, but got inf.` (with `finite`), `must be >= 0, but got -1.`

    Example:
        >>> check_number('Normal', 'sigma', -1.0, 0)
        ValueError: For 'Normal', the 'sigma' must be >= 0, but got -1.0.
    """
    if not _is_real(value):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be a float or int, but got "
                        f"{type(value).__name__}.")
    if finite and not math.isfinite(value):
        raise ValueError(f"{_subject(prim_name, arg_name)} must be finite, but got {value}.")
    _check_bounds(prim_name, arg_name, value, low, high, inc)
    return value


def check_non_negative_float(prim_name, arg_name, value):
    """An int or float >= 0 (NaN rejected), returned as float.

    Example:
        >>> check_non_negative_float('SGD', 'lr', -0.1)
        ValueError: For 'SGD', the 'lr' must be a non-negative number, but got -0.1.
    """
    check_number(prim_name, arg_name, value)
    if not value >= 0:
        raise ValueError(f"{_subject(prim_name, arg_name)} must be a non-negative number, but got "
                         f"{value}.")
    return float(value)


def check_number_range(prim_name, arg_name, value, low, high, inc="[]", phrase="in range"):
    """An int or float in the interval `low`..`high`, returned as float.

    Args:
        inc: which ends are included: '[]', '[)', '(]' or '()'.
        phrase: the words before the interval. Three are in use and pinned by tests: ops say
            "in range", the norm and dropout layers "a number in range", the experimental
            optimizers "in".

    Raises:
        TypeError: `must be a float or int, but got str.`
        ValueError: `must be in range [0.0, 1.0], but got 1.5.` (NaN included).

    Example:
        >>> check_number_range('BatchNorm2d', 'momentum', 1.5, 0, 1, phrase='a number in range')
        ValueError: For 'BatchNorm2d', the 'momentum' must be a number in range [0, 1], but got 1.5.
    """
    check_number(prim_name, arg_name, value)
    above = value >= low if inc[0] == "[" else value > low
    below = value <= high if inc[1] == "]" else value < high
    if not (above and below):
        raise ValueError(f"{_subject(prim_name, arg_name)} must be {phrase} "
                         f"{inc[0]}{low}, {high}{inc[1]}, but got {value}.")
    return float(value)


# --- mindspore.dataset's wording (no operation name) --------------------------------------------

def check_dataset_type(arg_name, value, valid_types):
    """An instance of `valid_types` (bool only if listed), in mindspore.dataset's wording:

        Argument batch_size with value 2.0 is not of type [<class 'int'>], but got <class 'float'>.
    """
    valid_types = tuple(valid_types)
    if (isinstance(value, bool) and bool not in valid_types and int in valid_types) or \
            not isinstance(value, valid_types):
        shown = '""' if isinstance(value, str) and not value else value  # as MindSpore prints it
        raise TypeError(f"Argument {arg_name} with value {shown} is not of type "
                        f"{list(valid_types)}, but got {type(value)}.")
    return value


def check_dataset_range(arg_name, value, low, high):
    """low <= value <= high, in mindspore.dataset's wording:

        Input batch_size is not within the required interval of [1, 2147483647].
    """
    if not low <= value <= high:
        raise ValueError(f"Input {arg_name} is not within the required interval of "
                         f"[{low}, {high}].")
    return value

