"""`nn.Cell`: sub-cell and Parameter registration, training mode, hooks, custom bprop."""
from collections import OrderedDict

from .. import _engine
from .._checkparam import _subject
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor


class HookHandle:
    """Returned by `register_*_hook`; `remove()` unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.handle_id = HookHandle._next_id
        HookHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.handle_id, None)


class _BackwardHookState:
    __slots__ = ("grad_output", "entry_recorded")

    def __init__(self):
        self.grad_output = None
        self.entry_recorded = False


class _HookExit(_engine.Primitive):
    """Identity on a cell's outputs: captures the gradient w.r.t. them (grad_output)."""

    tuple_douts = True

    def __init__(self, cell, hook_state, n):
        self.cell, self.hook_state, self.n_out = cell, hook_state, n

    def forward(self, ctx, *xs):
        return xs

    def backward(self, ctx, douts):
        self.hook_state.grad_output = tuple(douts)
        if not self.hook_state.entry_recorded:  # no tracked input: the hook still sees grad_output
            self.cell._run_backward_hooks((None,), self.hook_state.grad_output)
        return douts


class _HookEntry(_engine.Primitive):
    """Identity on a cell's Tensor inputs: runs backward hooks with the input gradients."""

    tuple_douts = True

    def __init__(self, cell, hook_state, n):
        self.cell, self.hook_state, self.n_out = cell, hook_state, n

    def forward(self, ctx, *xs):
        return xs

    def backward(self, ctx, douts):
        return self.cell._run_backward_hooks(tuple(douts), self.hook_state.grad_output)


class _CellBprop(_engine.Primitive):
    """A Cell whose `bprop(*inputs, out, dout)` replaces its backward."""

    tuple_douts = True

    def __init__(self, cell, n_out, single):
        self.cell, self.n_out, self.single = cell, n_out, single

    def backward(self, ctx, douts):
        out = ctx.output(0) if self.single else tuple(ctx.output(i) for i in range(self.n_out))
        dout = douts[0] if self.single else tuple(douts)
        grads = self.cell.bprop(*ctx.inputs, out, dout)
        if not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != len(ctx.inputs):
            raise ValueError(f"For '{type(self.cell).__name__}.bprop', the number of returned "
                             f"gradients must equal the number of inputs {len(ctx.inputs)}, but "
                             f"got {len(grads)}.")
        return grads


class Cell:
    """The base class of all networks, as `mindspore.nn.Cell`.

    Sub-cells and Parameters assigned as attributes are registered; Parameters are named by
    attribute path (`fc.weight`). Cells start in inference mode (`training=False`).

    Example:
        >>> class Net(nn.Cell):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Dense(3, 1)
        ...     def construct(self, x):
        ...         return self.fc(x)
    """

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["training"] = False
        d["_auto_prefix"] = auto_prefix
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_cell_name"] = ""

    def _check_init(self, name):
        if "_params" not in self.__dict__:
            raise AttributeError(f"For '{type(self).__name__}', call super().__init__() before "
                                 f"assigning '{name}'.")

    # --- registration ---------------------------------------------------------------------
    def __getattr__(self, name):
        """Return the sub-cell, Parameter or attribute ``name``.

        Python calls this only when the normal lookup fails; MindSpore 2.10's Cell defines it
        (as torch's Module does), so an explicit ``cell.__getattr__('layer_1')`` answers too."""
        d = self.__dict__
        for store in ("_params", "_cells"):
            if name in d.get(store, ()):
                return d[store][name]
        if name in d:
            return d[name]
        raise AttributeError(f"The '{type(self).__name__}' object has no attribute '{name}'.")

    def __setattr__(self, name, value):
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_init(name)
            d["_cells"].pop(name, None)
            if value._name is None:
                value.name = name
            d["_params"][name] = value
        elif isinstance(value, Cell):
            self._check_init(name)
            d["_params"].pop(name, None)
            if self.__dict__.get("_auto_prefix", True):
                value.update_parameters_name(name + ".")
            value.__dict__["_cell_name"] = name
            d["_cells"][name] = value
        elif isinstance(value, ParameterTuple):
            # members are registered under their own names, as MindSpore 2.10 does (an
            # optimizer's `moments.fc.weight`, not `moments.0`)
            self._check_init(name)
            for i, p in enumerate(value):
                if p._name is None:
                    p.name = f"{name}.{i}"
                d["_params"][p.name] = p
        elif "_params" in d:
            if name in d["_params"] and value is None:
                d["_params"][name] = None
            else:
                d["_params"].pop(name, None)
                d["_cells"].pop(name, None)
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self._params.pop(name, None)
        self._cells.pop(name, None)
        object.__delattr__(self, name)

    def update_parameters_name(self, prefix="", recurse=True):
        """Name every parameter `prefix + attribute path` (what attaching this cell to a parent
        does). As in MindSpore 2.10, the path wins over the Parameter's own name: a stand-alone
        PReLU's 'a' becomes 'prelu.w' inside a network."""
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    def insert_child_to_cell(self, child_name, child_cell):
        """Register `child_cell` under `child_name` (like torch's add_module)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"For 'insert_child_to_cell', the 'child_name' must be a non-empty str "
                           f"without '.', but got {child_name!r}.")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"For 'insert_child_to_cell', the 'child_cell' must be a Cell, but got "
                            f"{type(child_cell).__name__}.")
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', the 'param' must be a Parameter, but got "
                            f"{type(param).__name__}.")
        setattr(self, param_name, param)

    # --- traversal --------------------------------------------------------------------------
    def name_cells(self):
        """The direct sub-cells as an OrderedDict name -> cell."""
        return OrderedDict((k, v) for k, v in self._cells.items() if v is not None)

    def cells(self):
        return self.name_cells().values()

    def cells_and_names(self, cells=None, name_prefix=""):
        """Yield (name, cell) for this cell and every sub-cell, depth first, each once."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None:
                continue
            prefix = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, prefix)

    def parameters_and_names(self, name_prefix="", expand=True):
        """Yield (attribute path, Parameter) for every parameter, each once."""
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for prefix, cell in cells:
            for name, p in cell._params.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{prefix}.{name}" if prefix else name), p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        """The Parameters with requires_grad=True, in registration order."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """OrderedDict of parameter name -> Parameter."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def parameters_broadcast_dict(self, recurse=True):
        return self.parameters_dict(recurse)

    def apply(self, fn):
        """Call fn on every sub-cell (each sub-cell's own sub-cells first) and then on self, as
        MindSpore 2.10 and torch do; returns self."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def get_sub_cell(self, target):
        """The sub-cell at the dotted path `target` ('' is self), as torch's get_submodule.

        Raises:
            AttributeError: when a step of the path is missing or is not a Cell.
        """
        cell = self
        for item in target.split(".") if target else ():
            if not hasattr(cell, item):
                raise AttributeError(f"{type(cell).__name__} has no attribute `{item}`")
            cell = getattr(cell, item)
            if not isinstance(cell, Cell):
                raise AttributeError(f"`{item}` is not an nn.Cell")
        return cell

    # --- modes ------------------------------------------------------------------------------
    def set_train(self, mode=True):
        """Set training mode on this cell and every sub-cell; returns self."""
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        return self

    @property
    def phase(self):
        return "train" if self.training else "predict"

    def set_grad(self, requires_grad=True):
        return self

    def to_float(self, dst_type):
        self.__dict__["_float_dtype"] = dst_type
        return self

    def set_inputs(self, *inputs):
        return self

    # --- hooks ------------------------------------------------------------------------------
    # (a name MindSpore's Cell does not use: a user subclass may define `_register` itself)
    def _ms_core_add_hook(self, hooks, fn, kind):
        if not callable(fn):
            raise TypeError(f"For 'register_{kind}', the 'hook_fn' must be a function, but got "
                            f"{type(fn).__name__}.")
        handle = HookHandle(hooks)
        hooks[handle.handle_id] = fn
        return handle

    def register_forward_pre_hook(self, hook_fn):
        """hook_fn(cell, inputs) runs before construct; a returned value replaces the inputs."""
        return self._ms_core_add_hook(self._forward_pre_hooks, hook_fn, "forward_pre_hook")

    def register_forward_hook(self, hook_fn):
        """hook_fn(cell, inputs, outputs) runs after construct; a returned value replaces outputs."""
        return self._ms_core_add_hook(self._forward_hooks, hook_fn, "forward_hook")

    def register_backward_hook(self, hook_fn):
        """hook_fn(cell, grad_input, grad_output) runs in backward; a returned tuple replaces
        the gradients w.r.t. the cell's inputs."""
        return self._ms_core_add_hook(self._backward_hooks, hook_fn, "backward_hook")

    def _run_backward_hooks(self, grad_input, grad_output):
        for hook in list(self._backward_hooks.values()):
            result = hook(self, grad_input, grad_output)
            if result is not None:
                result = (result,) if isinstance(result, Tensor) else result
                if not isinstance(result, tuple) or len(result) != len(grad_input) or not all(
                        isinstance(g, Tensor) for g in result):
                    raise TypeError(f"For '{type(self).__name__}' backward hook, the hook must "
                                    f"return None or a tuple of {len(grad_input)} Tensor(s) "
                                    f"(one per input), but got {_describe(result)}.")
                grad_input = result
        return grad_input

    # --- calling ----------------------------------------------------------------------------
    def construct(self, *inputs, **kwargs):
        raise NotImplementedError(f"For '{type(self).__name__}', define construct(self, ...).")

    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                if isinstance(result, Tensor):
                    result = (result,)
                if not isinstance(result, tuple):
                    raise TypeError(f"For '{type(self).__name__}' forward pre-hook, the hook must "
                                    f"return None, a Tensor or a tuple of inputs, but got "
                                    f"{_describe(result)}.")
                args = result
        hooked = bool(self._backward_hooks) and _engine.recording()
        if hooked:
            hook_state = _BackwardHookState()
            args = self._wrap_inputs(args, hook_state)
        if hasattr(self, "bprop") and _engine.recording():
            out = self._call_with_bprop(args, kwargs)
        else:
            out = self.construct(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        if hooked:
            # after the forward hooks, as torch and MindSpore 2.10 do: grad_output is the
            # gradient w.r.t. what the caller receives
            out = self._wrap_outputs(out, hook_state)
        return out

    def _wrap_inputs(self, args, hook_state):
        pos = [i for i, a in enumerate(args) if _engine.is_tracked(a)]
        if not pos:
            return args
        hook_state.entry_recorded = True
        wrapped = _engine.record(_HookEntry(self, hook_state, len(pos)), [args[i] for i in pos],
                                 [args[i]._data for i in pos])
        args = list(args)
        for i, t in zip(pos, wrapped):
            args[i] = t
        return tuple(args)

    def _wrap_outputs(self, out, hook_state):
        single = isinstance(out, Tensor)
        outs = (out,) if single else tuple(out)
        if not all(isinstance(o, Tensor) for o in outs) or not any(_engine.is_tracked(o) for o in outs):
            return out
        wrapped = _engine.record(_HookExit(self, hook_state, len(outs)), outs, [o._data for o in outs])
        return wrapped[0] if single else tuple(wrapped)

    def _call_with_bprop(self, args, kwargs):
        if not any(_engine.is_tracked(a) for a in args):
            return self.construct(*args, **kwargs)
        _engine.state.depth -= 1  # construct is a black box: its own ops are not recorded
        try:
            out = self.construct(*args, **kwargs)
        finally:
            _engine.state.depth += 1
        single = isinstance(out, Tensor)
        outs = (out,) if single else tuple(out)
        wrapped = _engine.record(_CellBprop(self, len(outs), single), args, [o._data for o in outs])
        return wrapped[0] if single else tuple(wrapped)

    # --- printing ---------------------------------------------------------------------------
    def extend_repr(self):
        return ""

    def __repr__(self):
        # MindSpore 2.x format (checked on 2.10): `Name(extra)`, children indented inside
        extra = self.extend_repr()
        children = [(k, v) for k, v in self._cells.items() if v is not None]
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = [extra] if extra else []
        lines += [f"({key}): {value!r}" for key, value in children]
        body = "\n".join(lines).replace("\n", "\n  ")
        return f"{type(self).__name__}(\n  {body}\n)"


def check_cell(prim_name, arg_name, value):
    """An nn.Cell (TypeError otherwise); returns it. (The validator of the layer that defines
    Cell: ms_core._checkparam sits below nn and cannot import it.)"""
    if not isinstance(value, Cell):
        raise TypeError(f"{_subject(prim_name, arg_name)} must be a Cell, but got "
                        f"{type(value).__name__}.")
    return value


def _describe(value):
    if isinstance(value, tuple):
        return "tuple(" + ", ".join(type(v).__name__ for v in value) + ")"
    return type(value).__name__
