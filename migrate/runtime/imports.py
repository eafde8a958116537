"""Imports by name of the packages the conversion replaces (einops): ``importlib.import_module``
and ``__import__`` that answer einops' modules with module objects holding the runtime's einops
code, so converted code that imports einops by a name in a string (``optional_import("einops")``)
needs neither einops nor torch.
"""
import importlib
import types

from .backend import TARGET

# module name -> module object, made on first use (parents first, each child an attribute of its parent)
_MADE = {}


def torch_replaced_modules():
    """einops' modules as module objects holding the runtime's einops code (what
    :data:`migrate.runtime.generated.REPLACED_MODULES` lists, from the einops mapping tables)."""
    if not _MADE:
        from .generated import REPLACED_MODULES
        for name, values in sorted(REPLACED_MODULES.items()):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix not in _MADE:
                    _MADE[prefix] = types.ModuleType(prefix, "made by the migrate runtime in place of " + prefix)
                    if i > 1:
                        setattr(_MADE[".".join(parts[:i - 1])], parts[i - 1], _MADE[prefix])
            vars(_MADE[name]).update(values)
    return _MADE


def torch_import_module(name, package=None):
    """importlib.import_module(name, package), except that einops' modules are answered by the
    runtime's (:func:`torch_replaced_modules`)."""
    found = torch_replaced_modules().get(name)
    return found if found is not None else importlib.import_module(name, package)


def torch_import(name, globals=None, locals=None, fromlist=(), level=0):
    """__import__(name, ...), except that einops' modules are answered by the runtime's
    (:func:`torch_replaced_modules`): the top package, or the module itself when fromlist is given."""
    modules = torch_replaced_modules()
    if level == 0 and name in modules:
        return modules[name] if fromlist else modules[name.split(".", 1)[0]]
    return __import__(name, globals, locals, fromlist, level)


def torch_nn_getattr(name):
    """``getattr(torch.nn, name)`` for a name only run time knows (``getattr(nn, rnn_type)``): the
    class that takes torch's arguments (its torch-signature class, or MindSpore's own when its
    arguments need no translation); AttributeError for a name the mapping tables do not map."""
    from .generated import TORCH_NN
    return _looked_up("torch.nn", TORCH_NN, name)


def torch_functional_getattr(name):
    """``getattr(torch.nn.functional, name)`` for a name only run time knows: the function that
    takes torch's arguments; AttributeError for a name the mapping tables do not map."""
    from .generated import TORCH_FUNCTIONAL
    return _looked_up("torch.nn.functional", TORCH_FUNCTIONAL, name)


def torch_getattr(name):
    """``getattr(torch, name)`` for a name only run time knows (``getattr(torch, window)(n)``,
    ``getattr(torch, dtype_name)``): the function that takes torch's arguments, or the dtype;
    AttributeError for a name the mapping tables do not map."""
    from .generated import TORCH_TOP
    return _looked_up("torch", TORCH_TOP, name)


def _looked_up(module, table, name):
    found = table.get(name)
    if found is None:
        held = "" if name not in table else f" for {TARGET} ({TARGET} has no class or function of that name)"
        raise AttributeError(f"For 'getattr({module}, name)', {name!r} has no MindSpore translation{held} in "
                             f"the migration's tables (it maps {len(table)} names of {module}).")
    return found
