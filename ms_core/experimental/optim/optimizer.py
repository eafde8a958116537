"""`ms_core.experimental.optim.Optimizer`: the base of the PyTorch-semantics optimizers.

MindSpore 2.x ships `mindspore.experimental.optim`, optimizers with torch.optim's update rules
and `param_groups`, used as `optimizer(grads)` instead of `loss.backward(); optimizer.step()`.
"""
from collections import defaultdict

import numpy as np

from ..._checkparam import check_non_negative_float
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor
from ...nn.cell import Cell

__all__ = ["Optimizer"]


def _is_number(x):
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _lr_value(lr):
    """A group's learning rate as a Python float (a Parameter, Tensor or number).

    The lr Parameter stores float32, as MindSpore's does; the double it was set from is kept
    beside it (`_exact`) and used while the Parameter still holds that value, so schedules and
    float64 parameters follow torch's double-precision arithmetic exactly. If the Parameter was
    changed by other means (set_data), its own value is used.
    """
    value = float(lr)
    exact = getattr(lr, "_exact", None)
    if exact is not None and np.float32(exact) == np.float32(value):
        return exact
    return value


class Optimizer(Cell):
    """Base class of the PyTorch-semantics optimizers (`mindspore.experimental.optim.Optimizer`).

    Subclasses keep torch.optim's update rules exactly; what differs from PyTorch is the calling
    convention: gradients come from `ms.value_and_grad(fn, None, optimizer.parameters)` and the
    update is `optimizer(grads)`, with `grads` a tuple aligned with `optimizer.parameters` (the
    parameters of every group, in group order). Parameters are updated in place; a `None`
    gradient, or a parameter with `requires_grad=False`, leaves the parameter (and its state)
    untouched, like a torch parameter whose `.grad` is None.

    `param_groups` is a list of dicts ('params', 'lr', 'weight_decay' and the optimizer's other
    options) that may be edited between steps, as in PyTorch; lr schedulers do exactly that.
    As in MindSpore, each group's 'lr' is a float32 scalar `Parameter` (named
    'learning_rate_group_<i>'); the updates use the double it was set from (kept beside it), so
    float64 training matches torch exactly. Assigning a plain float to `group['lr']` (the torch
    idiom) is accepted too.

    State: `optimizer.state[param]` holds torch's per-parameter entries (same keys: 'step',
    'exp_avg', 'momentum_buffer', ...) as NumPy arrays; `state_dict()` / `load_state_dict()` use
    torch's layout (a torch.optim state_dict loads too). As in MindSpore, the optimizer's own
    Parameters (the lrs and the state, named '<key>.<param name>') are what
    `save_checkpoint(optimizer)` writes and `load_param_into_net(optimizer, ...)` restores.

    Args:
        params: an iterable of Parameters (a list, `net.trainable_params()`, a generator), or of
            dicts that define parameter groups (`{'params': [...], 'lr': 0.1}`).
        defaults: the default value of each option, for groups that do not set it.

    Raises:
        TypeError: `params` is not iterable, or holds something other than Parameters / dicts.
        ValueError: `params` is empty or a parameter appears in two groups.
    """

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        d = self.__dict__  # plain attributes: the optimizer must not re-register (rename) params
        d["defaults"] = dict(defaults)
        d["state"] = defaultdict(dict)
        d["param_groups"] = []
        d["parameters"] = ParameterTuple(())
        d["group_start_id"] = [0]
        # checkpointable state: every state entry is mirrored in a Parameter named
        # '<key>.<param name>' (MindSpore's experimental optimizers keep their state as Parameters,
        # so save_checkpoint(optimizer) / load_param_into_net(optimizer, ...) work)
        d["_state_params"] = {}  # id(param) -> {key: Parameter}
        d["_published"] = {}  # id(param) -> {key: the array last written into that Parameter}
        d["_step_counts"] = {}  # id(param) -> steps taken (torch's SGD keeps no 'step' itself)
        groups = self._parameters_base_check(params, "params")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    @property
    def cls_name(self):
        return type(self).__name__

    # --- construction ---------------------------------------------------------------------
    def _parameters_base_check(self, params, arg_name):
        if params is None:
            raise ValueError(f"For '{self.cls_name}', the argument '{arg_name}' can not be None.")
        if isinstance(params, (Tensor, dict)):
            # a single Parameter or dict is an easy slip; torch refuses it as well
            raise TypeError(f"For '{self.cls_name}', the argument '{arg_name}' must be an iterable "
                            f"of Parameters or of dicts, but got a single {type(params).__name__}. "
                            f"Wrap it in a list.")
        if isinstance(params, (set, frozenset)):
            raise TypeError(f"For '{self.cls_name}', parameters must be given in an ordered "
                            f"collection (a list), not a set: a set's order changes between runs.")
        try:
            items = list(params)
        except TypeError:
            raise TypeError(f"For '{self.cls_name}', the argument '{arg_name}' must be iterable, "
                            f"but got {type(params).__name__}.") from None
        if not items:
            raise ValueError(f"For '{self.cls_name}', the argument '{arg_name}' must not be empty.")
        return items

    def add_param_group(self, *args):
        """Add a parameter group: `add_param_group(param_group)` (PyTorch) or
        `add_param_group(group_id, param_group)` (MindSpore).

        Options missing from the group take the optimizer's defaults.

        Raises:
            TypeError: the group is not a dict, or holds something other than Parameters.
            ValueError: a parameter is already in another group.
        """
        if len(args) == 2:
            _, param_group = args
        elif len(args) == 1:
            param_group = args[0]
        else:
            raise TypeError(f"For '{self.cls_name}.add_param_group', expected (param_group) or "
                            f"(group_id, param_group), but got {len(args)} arguments.")
        if not isinstance(param_group, dict):
            raise TypeError(f"For '{self.cls_name}', a param group must be a dict, but got "
                            f"{type(param_group).__name__}.")
        if "params" not in param_group:
            raise ValueError(f"For '{self.cls_name}', a param group must have the key 'params'.")
        params = param_group["params"]
        if isinstance(params, Parameter):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(f"For '{self.cls_name}', parameters must be given in an ordered "
                            f"collection (a list), not a set: a set's order changes between runs.")
        else:
            params = list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{self.cls_name}', every element of 'params' must be a "
                                f"Parameter, but element {i} is {type(p).__name__}. Pass "
                                f"net.trainable_params().")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError(f"For '{self.cls_name}', some parameters appear in more than one "
                             f"parameter group.")
        param_group["params"] = params
        for name, default in self.defaults.items():
            if default is _REQUIRED and name not in param_group:
                raise ValueError(f"For '{self.cls_name}', the parameter group did not specify a "
                                 f"value of required optimization parameter '{name}'.")
            param_group.setdefault(name, default)
        index = len(self.param_groups)
        param_group["lr"] = self._build_lr(param_group["lr"], f"learning_rate_group_{index}")
        self._params[param_group["lr"].name] = param_group["lr"]  # a Cell's own Parameter
        if "weight_decay" in param_group:
            param_group["weight_decay"] = check_non_negative_float(self.cls_name, "weight_decay",
                                                              param_group["weight_decay"])
        self.param_groups.append(param_group)
        d = self.__dict__
        d["parameters"] = ParameterTuple(tuple(self.parameters) + tuple(params))
        self.group_start_id.append(self.group_start_id[-1] + len(params))
        for p in params:  # zero placeholders, so a fresh optimizer can load a checkpoint
            for key in ("step",) + tuple(self._state_keys(param_group)):
                if key == "step":
                    value = np.array(0, np.int64)
                elif key in _SCALAR_STATE:
                    value = np.array(0.0, np.float64)
                else:
                    value = np.zeros_like(p._data)
                self._publish_one(p, key, value)

    def _build_lr(self, lr, name):
        if isinstance(lr, Tensor):
            if lr.ndim != 0 and lr.size != 1:
                raise ValueError(f"For '{self.cls_name}', if 'lr' is a Tensor, it must be a scalar, "
                                 f"but got shape {list(lr.shape)}.")
            lr = float(lr.asnumpy().reshape(()))
        value = check_non_negative_float(self.cls_name, "lr", lr)
        param = Parameter(Tensor(np.array(value, dtype=np.float32)), name=name, requires_grad=False)
        param._exact = value
        return param

    # --- the step ---------------------------------------------------------------------------
    def _grad_arrays(self, gradients):
        """The gradients as arrays in the parameters' dtypes (None kept), checked for alignment."""
        if isinstance(gradients, (Tensor, np.ndarray)):
            gradients = (gradients,)
        try:
            grads = list(gradients)
        except TypeError:
            raise TypeError(f"For '{self.cls_name}', the gradients must be a tuple of Tensors "
                            f"aligned with optimizer.parameters, but got "
                            f"{type(gradients).__name__}.") from None
        if len(grads) != len(self.parameters):
            raise ValueError(f"For '{self.cls_name}', the number of gradients must equal the number "
                             f"of parameters {len(self.parameters)} (optimizer.parameters), but got "
                             f"{len(grads)}. Build the gradient function with "
                             f"ms.value_and_grad(fn, None, optimizer.parameters).")
        out = []
        for i, (p, g) in enumerate(zip(self.parameters, grads)):
            if g is None:
                out.append(None)
                continue
            arr = g.asnumpy() if isinstance(g, Tensor) else np.asarray(g)
            if arr.shape != p.shape:
                raise ValueError(f"For '{self.cls_name}', gradient {i} must have the shape of "
                                 f"parameter '{p.name}' {list(p.shape)}, but got {list(arr.shape)}.")
            out.append(arr.astype(p._data.dtype, copy=False))
        return out

    def construct(self, gradients):
        """Apply one update with `gradients` (a tuple aligned with `self.parameters`)."""
        grads = self._grad_arrays(gradients)
        k = 0
        for group in self.param_groups:
            lr = _lr_value(group["lr"])
            for p in group["params"]:
                g = grads[k]
                k += 1
                if g is None or not p.requires_grad:
                    # torch never gives a frozen (requires_grad=False) parameter a gradient, so
                    # its optimizer leaves it alone; value_and_grad over an explicit weight list
                    # would differentiate it anyway
                    continue
                self._adopt_loaded(p)
                new = self._update(p._data, g, self.state[p], group, lr)
                # a fresh array, not an in-place write: arrays handed out earlier (asnumpy(),
                # recorded graphs) keep the values they had
                p._data = np.asarray(new, dtype=p._data.dtype)
                self._step_counts[id(p)] = self._step_counts.get(id(p), 0) + 1
                self._publish(p)
        return True

    def _update(self, param, grad, state, group, lr):
        """Return the new value of one parameter (arrays in, array out); state is mutated."""
        raise NotImplementedError

    _has_step_state = True  # whether state['step'] exists (torch's SGD has none)

    def _state_keys(self, group):
        """The state entries (besides 'step') a parameter of `group` gets, for the placeholders."""
        return ()

    # --- state as Parameters (checkpoints) --------------------------------------------------
    def _publish_one(self, p, key, value):
        holders = self._state_params.setdefault(id(p), {})
        holder = holders.get(key)
        if holder is None:
            name = f"{key}.{p.name}"
            if name in self._params:  # unnamed or same-named parameters: keep names unique
                name = f"{key}.{p.name}_{sum(1 for k in self._params if k.startswith(name))}"
            holder = Parameter(Tensor._wrap(value), name=name, requires_grad=False)
            holders[key] = holder
            # registered like a Cell attribute, so a Cell holding the optimizer (a train-step
            # Cell) checkpoints the state with the network, as in MindSpore
            self._params[holder.name] = holder
        holder._data = value
        self._published.setdefault(id(p), {})[key] = value

    def _publish(self, p):
        """Mirror p's state into its state Parameters (the arrays themselves, no copies)."""
        state = self.state.get(p, {})
        self._publish_one(p, "step", np.array(state.get("step", self._step_counts.get(id(p), 0)),
                                              np.int64))
        for key, value in state.items():
            if key == "step":
                continue
            if isinstance(value, np.ndarray):
                self._publish_one(p, key, value)
            elif isinstance(value, (int, float)):
                self._publish_one(p, key, np.array(value, np.float64))

    def _adopt_loaded(self, p):
        """Take state values written into the state Parameters from outside (load_param_into_net)
        since the last step; a loaded step of 0 means a checkpoint taken before any step."""
        published = self._published[id(p)]
        loaded = {key: holder._data for key, holder in self._state_params[id(p)].items()
                  if holder._data is not published[key]}
        if not loaded:
            return
        step = int(np.asarray(loaded.get("step", published["step"])).item())
        published.update(loaded)
        if step == 0:
            return
        state = self.state[p]
        for key, value in loaded.items():
            if key == "step":
                if self._has_step_state:
                    state["step"] = step
            else:
                state[key] = _state_value(key, value, p._data.dtype)
        self._step_counts[id(p)] = step

    # --- state ------------------------------------------------------------------------------
    def state_dict(self):
        """The optimizer state as in torch: {'state': {index: {...}}, 'param_groups': [...]},
        parameters replaced by their index in `self.parameters`."""
        index = {id(p): i for i, p in enumerate(self.parameters)}
        state = {}
        for p, s in self.state.items():
            if s:
                state[index[id(p)]] = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                       for k, v in s.items()}
        groups = []
        for g in self.param_groups:
            entry = {k: v for k, v in g.items() if k != "params"}
            entry["lr"] = _lr_value(g["lr"])
            entry["params"] = [index[id(p)] for p in g["params"]]
            groups.append(entry)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore what `state_dict()` returned (same group structure required).

        Raises:
            ValueError: the number of groups or of parameters per group differs.
        """
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError(f"For '{self.cls_name}.load_state_dict', the state has {len(groups)} "
                             f"parameter groups but the optimizer has {len(self.param_groups)}.")
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError(f"For '{self.cls_name}.load_state_dict', a parameter group has "
                                 f"{len(saved['params'])} parameters in the state but "
                                 f"{len(mine['params'])} in the optimizer.")
        params = self.parameters
        for mine, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k == "params":
                    continue
                if k == "lr":
                    _set_lr(mine, v)
                else:
                    mine[k] = v
        self.state.clear()
        for i, s in state_dict["state"].items():
            p = params[int(i)]
            self.state[p] = {k: _state_value(k, v, p._data.dtype) for k, v in s.items()}
            if "step" in self.state[p]:
                self._step_counts[id(p)] = self.state[p]["step"]
            self._publish(p)

    def __repr__(self):
        lines = [f"{self.cls_name} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key == "params":
                    continue
                value = group[key]
                if isinstance(value, Tensor):
                    value = str(np.float32(value.asnumpy()))  # prints 0.1, not 0.10000000149
                lines.append(f"    {key}: {value}")
        lines.append(")")
        return "\n".join(lines)


def _state_value(key, value, dtype):
    """A saved state entry as this optimizer keeps it: arrays in the parameter's dtype, scalars as
    Python numbers. Accepts NumPy arrays, ms_core Tensors and torch tensors, so a
    `torch.optim` state_dict can be loaded to continue a run."""
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    elif hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach().cpu().numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        if np.ndim(value) == 0 and key in _SCALAR_STATE:
            value = value.item()
        else:
            return np.array(value, dtype=dtype)
    if key == "step":
        return int(value)
    return value


_SCALAR_STATE = ("step", "mu_product", "eta", "mu")


def _set_lr(group, value):
    """Write a learning rate into a group, keeping its Parameter (schedulers hold no copies)."""
    value = float(value)
    lr = group.get("lr")
    if isinstance(lr, Parameter):
        lr.set_data(Tensor(np.array(value, dtype=np.float32)))
        lr._exact = value
    else:
        group["lr"] = value


class _Required:
    """Marks an option that has no default (SGD's lr)."""

    def __repr__(self):
        return "<required parameter>"


_REQUIRED = _Required()
