"""`ms_core.nn.utils`: weight normalisation of a cell's parameter, in place, as torch's
`torch.nn.utils.weight_norm` (MindSpore 2.10 has none; converted code gets it on ms_core).

`weight_norm(cell, 'weight', dim=0)` replaces the Parameter `weight` by two Parameters,
`weight_g` (the norm, shaped like the weight with size 1 except along `dim`) and `weight_v`
(the direction), and recomputes `weight = weight_g * weight_v / ||weight_v||` before every call
(a forward pre-hook), the norm taken over all axes but `dim` (all axes when dim is None). The
recomputed weight is built with ms_core ops, so gradients reach `weight_g` and `weight_v` (to any
order). Parameter names follow torch's old API (`conv.weight_g`, `conv.weight_v`); torch's
`parametrizations.weight.original0/1` are the same two tensors.
"""
from .cell import Cell
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..ops import functional as F

__all__ = ["weight_norm", "remove_weight_norm"]


def _norm_except(v, dim):
    """||v|| over every axis but `dim` (None: all axes), keeping the axes (broadcastable)."""
    if dim is None:
        return F.sqrt(F.sum(v * v))
    axes = tuple(a for a in range(v.ndim) if a != dim % v.ndim)
    return F.sqrt(F._sum(v * v, axes, True))


class _WeightNormHook:
    """The pre-hook that recomputes the weight from g and v (also the record remove reads)."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute(self, cell):
        g = getattr(cell, self.name + "_g")
        v = getattr(cell, self.name + "_v")
        return v * (g / _norm_except(v, self.dim))

    def __call__(self, cell, inputs):
        # a plain Tensor attribute: not a Parameter of the cell, a function of weight_g/weight_v
        object.__setattr__(cell, self.name, self.compute(cell))
        return None


def weight_norm(module, name="weight", dim=0):
    """Reparametrise `module.<name>` as g * v / ||v|| (in place), torch's `weight_norm`.

    Args:
        module (Cell): the cell whose Parameter `name` is normalised.
        name (str): the Parameter's attribute name.
        dim (int or None): the axis kept by the norm (0: one norm per output channel); None
            normalises the whole tensor. -1 is the last axis.

    Returns:
        The same cell, with Parameters `<name>_g` and `<name>_v` in place of `<name>`.

    Raises:
        TypeError: `module` is not a Cell, or `module.<name>` is not a Parameter.
        RuntimeError: the parameter is normalised already.

    Example:
        >>> conv = nn.utils.weight_norm(nn.Conv1d(4, 8, 3, has_bias=True))
        >>> sorted(p.name for p in conv.trainable_params())
        ['bias', 'weight_g', 'weight_v']
    """
    if not isinstance(module, Cell):
        raise TypeError(f"For 'weight_norm', the 'module' must be a Cell, but got "
                        f"{type(module).__name__}.")
    hooks = module.__dict__.setdefault("_weight_norm_hooks", {})
    if name in hooks:
        raise RuntimeError(f"For 'weight_norm', the parameter '{name}' is normalised already.")
    weight = getattr(module, name, None)
    if not isinstance(weight, Parameter):
        raise TypeError(f"For 'weight_norm', '{name}' must be a Parameter of the cell, but got "
                        f"{type(weight).__name__}.")
    hook = _WeightNormHook(name, dim)
    data = Tensor._wrap(weight._data.copy())
    full = weight.name or name  # keeps the path prefix of a cell already inside a network
    delattr(module, name)
    setattr(module, name + "_g", Parameter(Tensor._wrap(_norm_except(data, dim)._data.copy()),
                                           name=full + "_g"))
    setattr(module, name + "_v", Parameter(data, name=full + "_v"))
    object.__setattr__(module, name, hook.compute(module))
    hooks[name] = (hook, module.register_forward_pre_hook(hook))
    return module


def remove_weight_norm(module, name="weight"):
    """Undo `weight_norm`: `module.<name>` becomes a Parameter holding g * v / ||v|| again.

    Raises:
        ValueError: `name` is not weight-normalised.
    """
    hooks = module.__dict__.get("_weight_norm_hooks", {})
    if name not in hooks:
        raise ValueError(f"For 'remove_weight_norm', the parameter '{name}' of "
                         f"{type(module).__name__} is not weight-normalised.")
    hook, handle = hooks.pop(name)
    weight = hook.compute(module)
    full = getattr(module, name + "_g").name[:-2]
    handle.remove()
    delattr(module, name + "_g")
    delattr(module, name + "_v")
    object.__delattr__(module, name)
    setattr(module, name, Parameter(Tensor._wrap(weight._data.copy()), name=full))
    return module
