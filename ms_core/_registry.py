"""The registry through which ms_core's lower layers reach what loads after them.

ms_core's layers import only downwards: engine -> Tensor -> primitives -> ops -> nn
(tests/ms_core/test_layering.py states the order). Three things below ops still need ops at
run time: a Tensor's operators and methods (`a + b`, `t.sum()`) are ops; every primitive's backward
is written with ops, so that a backward pass is itself recorded and can be differentiated again;
and the engine wraps every result in a Tensor. As MindSpore's `tensor_operator_registry`, they
look those up here by name when they are called, and the modules that define them register
themselves when they load:

    ops.functional, ops.complex_func, ops.array_ops, ops.math_ops   every op they define
    common.tensor                                                     Tensor
    common.initializer                                                initializer

`import ms_core` loads all of them before anything can compute, so a lookup never misses in use.
"""
import inspect

__all__ = ["OpRegistry", "ops"]


class OpRegistry:
    """Ops (and the Tensor class) by name: `ops.add(x, y)` looks `add` up when it is called.

    A registered name is a plain attribute of the instance, so a lookup costs what a module
    attribute does. A name is registered once: registering another object under it raises, so
    what a lookup finds never depends on the order modules loaded in.
    """

    def register(self, name, obj):
        """Make `obj` what `ops.<name>` finds; returns `obj`."""
        if hasattr(OpRegistry, name):
            raise ValueError(f"For 'OpRegistry.register', the name {name!r} is the registry's own "
                             f"attribute; register the op under another name.")
        taken = self.__dict__.get(name)
        if taken is not None and taken is not obj:
            raise ValueError(f"For 'OpRegistry.register', {name!r} is already registered (by "
                             f"{getattr(taken, '__module__', '?')}); an op name has one owner.")
        self.__dict__[name] = obj
        return obj

    def register_module(self, namespace):
        """Register every function and class defined in the module whose `globals()` these are
        (not the names it imports), under its own name."""
        module = namespace["__name__"]
        for name, obj in list(namespace.items()):
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module:
                self.register(name, obj)

    def get(self, name):
        """The object registered under `name` (the same as `ops.<name>`)."""
        return getattr(self, name)

    def __getattr__(self, name):  # only reached when `name` is not registered
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"ms_core has no op {name!r} registered: ops register themselves when "
                             f"ms_core.ops loads (import ms_core, not one of its submodules alone).")


ops = OpRegistry()
