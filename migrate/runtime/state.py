"""A torch module's parameters and buffers, by meaning, on a Cell.

MindSpore keeps everything a layer holds as Parameters: a BatchNorm's running statistics and a
registered buffer are Parameters with ``requires_grad=False``, as is a parameter the script froze.
torch tells them apart: ``parameters()`` lists every parameter, frozen ones too, and no buffer;
``buffers()`` lists the buffers. ``trainable_params()`` / ``untrainable_params()`` split by
``requires_grad`` instead, so an EMA copy frozen with ``requires_grad_(False)`` would have no
parameters and its statistics would pair with the wrong tensors. These functions answer torch's
question on a Cell: a buffer is a torch buffer name of the layer's class (the layer tables'
``buffers``, renamed as MindSpore names them: ``running_var`` is ``moving_variance``) or a name
registered by :func:`torch_register_buffer`; a norm layer's constant gamma/beta (``affine=False``,
which torch has no parameter for) is neither; every other Parameter is a parameter.
"""
from .backend import ms
from .state_names import TORCH_BUFFERS, TORCH_RENAMES

_FRAMEWORK = ms.__name__


def _table(cell, tables):
    """The entry of `tables` for the first framework class along the cell's MRO (a user class named
    like a layer is not that layer)."""
    for klass in type(cell).__mro__:
        if klass.__name__ in tables and klass.__module__.startswith(_FRAMEWORK + "."):
            return tables[klass.__name__]
    return None


def _buffer_locals(cell) -> set:
    """The cell's own Parameters (by local name) that are torch buffers."""
    out = set(cell.__dict__.get("_torch_buffers", ()))
    names = _table(cell, TORCH_BUFFERS)
    if names:
        renames = _table(cell, TORCH_RENAMES) or {}
        for name in names:
            local = renames.get(name, name)
            if local is not None and "." not in local:  # (BatchNorm3d's child holds its own)
                out.add(local)
    return out


def _constant_locals(cell) -> set:
    """A norm layer's gamma/beta when it was built without affine parameters (torch has none)."""
    if _table(cell, TORCH_BUFFERS) is not None and getattr(cell, "affine", True) is False:
        return {"gamma", "beta"}
    return set()


def _cells(cell, prefix, recurse):
    return cell.cells_and_names(name_prefix=prefix) if recurse else [(prefix, cell)]


def torch_named_parameters(cell, prefix="", recurse=True, remove_duplicate=True):
    """``module.named_parameters()`` on a Cell: (path, Parameter) for every parameter, frozen ones
    too, buffers left out; each Parameter once (a tied weight under its first path)."""
    seen = set()
    for path, c in _cells(cell, prefix, recurse):
        skip = _buffer_locals(c) | _constant_locals(c)
        for local, p in c._params.items():
            if p is None or local in skip or (remove_duplicate and id(p) in seen):
                continue
            seen.add(id(p))
            yield (f"{path}.{local}" if path else local), p


def torch_parameters(cell, recurse=True):
    """``module.parameters()`` on a Cell: every parameter, frozen ones too; no buffer."""
    for _, p in torch_named_parameters(cell, recurse=recurse):
        yield p


def torch_named_buffers(cell, prefix="", recurse=True, remove_duplicate=True):
    """``module.named_buffers()`` on a Cell: (path, Parameter) for every torch buffer (a norm
    layer's running statistics, what was registered as a buffer)."""
    seen = set()
    for path, c in _cells(cell, prefix, recurse):
        own = _buffer_locals(c)
        for local, p in c._params.items():
            if p is None or local not in own or (remove_duplicate and id(p) in seen):
                continue
            seen.add(id(p))
            yield (f"{path}.{local}" if path else local), p


def torch_buffers(cell, recurse=True):
    """``module.buffers()`` on a Cell: the torch buffers, in registration order."""
    for _, p in torch_named_buffers(cell, recurse=recurse):
        yield p


def torch_register_buffer(cell, name, tensor, persistent=True):
    """``module.register_buffer(name, tensor)`` on a Cell: a Parameter that does not require grad
    (None stays None, as torch keeps the name), remembered as a buffer."""
    value = None if tensor is None else ms.Parameter(tensor, name=name, requires_grad=False)
    setattr(cell, name, value)
    cell.__dict__.setdefault("_torch_buffers", set()).add(name)


def torch_requires_grad(cell, requires_grad=True):
    """``module.requires_grad_(flag)`` on a Cell: every parameter's flag set, frozen or not; the
    buffers (Parameters that never require grad) left as they are, so ``requires_grad_(True)``
    makes no running statistic trainable. Returns the cell, as torch does."""
    for p in torch_parameters(cell):
        p.requires_grad = bool(requires_grad)
    return cell
