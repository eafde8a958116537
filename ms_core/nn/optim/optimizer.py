"""`nn.Optimizer`: the base of MindSpore-style optimizers (parameter groups, learning rates,
weight decay, loss scale, global step).

An optimizer is a Cell called with the gradients: `optimizer(grads)` updates its parameters in
place (their values are replaced; nothing is recorded for autodiff) and advances `global_step`.
"""
import numbers

import numpy as np

from ..cell import Cell
from ..learning_rate_schedule import LearningRateSchedule
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")


class _IteratorLearningRate(LearningRateSchedule):
    """A per-step learning-rate list: step i takes element i."""

    def __init__(self, learning_rate, name):
        super().__init__()
        self.learning_rate = Parameter(Tensor._wrap(learning_rate), name=name)

    def construct(self, global_step):
        step = int(np.asarray(global_step._data if isinstance(global_step, Tensor)
                              else global_step).reshape(-1)[0])
        values = self.learning_rate._data
        if step >= values.shape[0]:
            # MindSpore raises too ("For 'Gather', the 'input_indices' should be in the range
            # [0, n)"); say what to do.
            raise RuntimeError(f"For 'Optimizer', the dynamic learning rate has {values.shape[0]} "
                               f"values but the optimizer is at step {step}: give one learning "
                               f"rate per training step (e.g. total_step = epochs * "
                               f"steps_per_epoch).")
        return Tensor._wrap(values[step])


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


class Optimizer(Cell):
    """Base class for updating parameters (MindSpore's `nn.Optimizer`).

    Args:
        learning_rate: float/int (fixed, >= 0), a 0-d Tensor (fixed), a 1-D Tensor, list or tuple
            (dynamic: step i takes element i), or a `LearningRateSchedule` (called with the
            global step).
        parameters: a list of Parameters, or a list of group dicts with keys 'params' (required),
            'lr', 'weight_decay', 'grad_centralization', plus an optional {'order_params': params}
            entry that fixes the order of the optimizer's parameters.
        weight_decay: float/int >= 0 (or a Cell called with the global step: dynamic decay).
        loss_scale: float > 0; gradients are divided by it before the update and the weight decay
            is multiplied by it (so decay acts on the unscaled gradient).

    Weight decay (L2, added to the gradient: g + wd * w): without groups it skips parameters
    whose names contain 'beta' or 'gamma' (BatchNorm/LayerNorm shifts and scales); with groups,
    every parameter of a group with weight_decay > 0 is decayed. torch decays every parameter of a
    param group; migrated code that relied on that for norm layers changes meaning here.

    `get_lr()` returns the learning rate of the current step (a Tensor, or a tuple of Tensors, one
    per parameter, when groups set their own 'lr'); each optimizer call advances `global_step` by
    one after the update (as MindSpore 2.10 does, for fixed learning rates too). A dynamic
    list that runs out raises RuntimeError, as MindSpore's does.

    State (moments, global_step, learning_rate) lives in Parameters registered on the optimizer,
    named as MindSpore names them ('moment1.fc.weight', ...), so checkpoints of a
    TrainOneStepCell resume training exactly.

    Example:
        >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        >>> loss, grads = ms.value_and_grad(loss_fn, None, opt.parameters)(x, y)
        >>> opt(grads)
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        parameters = self._parameters_base_check(parameters, "parameters")
        if not (all(isinstance(p, Parameter) for p in parameters)
                or all(isinstance(p, dict) for p in parameters)):
            raise TypeError(f"For '{name}', all elements of the argument 'parameters' must be "
                            f"'Parameter' or 'dict', but got "
                            f"{sorted({type(p).__name__ for p in parameters})}.")
        if isinstance(loss_scale, bool) or not _is_number(loss_scale):
            raise TypeError(f"For '{name}', the 'loss_scale' must be float, but got "
                            f"{type(loss_scale).__name__}.")
        if not loss_scale > 0:
            raise ValueError(f"For '{name}', the 'loss_scale' must be > 0, but got {loss_scale}.")
        self.loss_scale = float(loss_scale)
        # MindSpore registers global_step first; its state Parameters keep requires_grad=True
        self.global_step = Parameter(Tensor._wrap(np.zeros((1,), np.int32)), name="global_step")
        self.dynamic_weight_decay = isinstance(weight_decay, Cell)
        weight_decay = self._preprocess_weight_decay(weight_decay)
        self.dynamic_lr = False
        self.is_group = isinstance(parameters[0], dict)
        self.is_group_lr = False
        self.is_group_params_ordered = False
        learning_rate = self._preprocess_single_lr(learning_rate)

        if self.is_group:
            params, lrs, wds, gcs = self._init_group_params(parameters, learning_rate, weight_decay)
        else:
            params = list(parameters)
            self._check_unique(params)
            lrs = [None] * len(params)
            wds = [weight_decay] * len(params)
            gcs = [False] * len(params)

        if self.is_group_lr:
            self.group_lr = lrs
            self.learning_rate = tuple(lrs)
            for i, lr in enumerate(dict.fromkeys(lrs)):  # register each distinct lr object once
                setattr(self, f"_group_lr_{i}", lr)
        else:
            self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")
        self.parameters = ParameterTuple(params)
        self._raw_weight_decay = tuple(wds)
        if self.is_group:
            self.weight_decay = tuple(w if isinstance(w, Cell) else w * self.loss_scale for w in wds)
            self.decay_flags = tuple(isinstance(w, Cell) or w > 0 for w in wds)
        else:
            wd = weight_decay if self.dynamic_weight_decay else weight_decay * self.loss_scale
            self.weight_decay = wd
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
        self.exec_weight_decay = any(
            f and (isinstance(w, Cell) or w > 0) for f, w in zip(self.decay_flags, wds))
        self.grad_centralization_flags = tuple(gcs)
        self.reciprocal_scale = 1.0 / self.loss_scale
        self.need_scale = self.loss_scale != 1.0

    # --- MindSpore properties without effect on a single CPU process ----------------------------
    @property
    def unique(self):
        """Whether sparse gradients are de-duplicated (kept for API compatibility; dense here)."""
        return self.__dict__.get("_unique", True)

    @unique.setter
    def unique(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Optimizer', the property 'unique' must be bool, but got "
                            f"{type(value).__name__}.")
        self.__dict__["_unique"] = value

    @property
    def target(self):
        """Where the update runs: always 'CPU' (NumPy) here."""
        return "CPU"

    @target.setter
    def target(self, value):
        if value not in ("CPU", "Ascend", "GPU"):
            raise ValueError(f"For 'Optimizer', the property 'target' must be one of ['CPU', "
                             f"'Ascend', 'GPU'], but got {value!r}.")

    # --- argument processing --------------------------------------------------------------
    def _parameters_base_check(self, parameters, what):
        name = type(self).__name__
        if parameters is None:
            raise ValueError(f"For '{name}', the '{what}' can not be None.")
        if isinstance(parameters, (Parameter, Tensor, str, bytes)) or not hasattr(parameters, "__iter__"):
            raise TypeError(f"For '{name}', the '{what}' must be an iterable (a list of Parameters "
                            f"or of group dicts), but got {type(parameters).__name__}. Pass "
                            f"net.trainable_params().")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For '{name}', the '{what}' must not be empty.")
        return parameters

    def _check_unique(self, params):
        seen = set()
        for p in params:
            if id(p) in seen:
                raise RuntimeError(f"For '{type(self).__name__}', the parameter '{p.name}' appears "
                                   f"more than once; each parameter can be given only once.")
            seen.add(id(p))

    def _preprocess_weight_decay(self, weight_decay):
        name = type(self).__name__
        if isinstance(weight_decay, Cell):
            return weight_decay
        if isinstance(weight_decay, bool) or not _is_number(weight_decay):
            raise TypeError(f"For '{name}', the 'weight_decay' must be float, int or Cell, but got "
                            f"{type(weight_decay).__name__}.")
        if weight_decay < 0:
            raise ValueError(f"For '{name}', the 'weight_decay' must be >= 0, but got {weight_decay}.")
        return float(weight_decay)

    def _preprocess_single_lr(self, learning_rate):
        """float -> float; 0-d Tensor -> float; list/1-D Tensor -> float32 array; schedule -> itself."""
        name = type(self).__name__
        if _is_number(learning_rate):
            if learning_rate < 0:
                raise ValueError(f"For '{name}', the 'learning_rate' must be >= 0, but got "
                                 f"{learning_rate}.")
            return float(learning_rate)
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            return float(learning_rate.asnumpy())
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, (Tensor, list, tuple, np.ndarray)):
            arr = learning_rate.asnumpy() if isinstance(learning_rate, Tensor) else np.asarray(
                [float(v.asnumpy()) if isinstance(v, Tensor) else v for v in learning_rate]
                if isinstance(learning_rate, (list, tuple)) else learning_rate)
            if arr.ndim != 1 or arr.dtype.kind not in "iuf" or arr.size == 0:
                raise ValueError(f"For '{name}', a dynamic 'learning_rate' must be a non-empty 1-D "
                                 f"list or Tensor of numbers, but got shape {list(arr.shape)} and "
                                 f"dtype {arr.dtype}.")
            self.dynamic_lr = True
            return arr.astype(np.float32)
        raise TypeError(f"For '{name}', the 'learning_rate' must be int, float, Tensor, list, tuple "
                        f"or LearningRateSchedule, but got {type(learning_rate).__name__}.")

    def _build_single_lr(self, learning_rate, name):
        """A Parameter for a fixed lr (so `set_data` changes it), a schedule Cell otherwise."""
        if isinstance(learning_rate, float):
            return Parameter(Tensor._wrap(np.asarray(learning_rate, np.float32)), name=name)
        if isinstance(learning_rate, np.ndarray):
            return _IteratorLearningRate(learning_rate, name)
        return learning_rate

    def _init_group_params(self, groups, learning_rate, weight_decay):
        name = type(self).__name__
        ordered = None
        for g in groups:
            bad = [k for k in g if k not in _GROUP_KEYS]
            if bad:
                raise KeyError(f"For '{name}', the key(s) {bad} cannot be recognized in group params; "
                               f"the keys are {list(_GROUP_KEYS)}.")
            if "order_params" in g:
                if len(g) > 1:
                    raise ValueError(f"For '{name}', the order params dict in group parameters "
                                     f"should only include the 'order_params' key.")
                ordered = list(self._parameters_base_check(g["order_params"], "order_params"))
                self.is_group_params_ordered = True
            elif "params" not in g:
                raise KeyError(f"For '{name}', every group dict needs a 'params' key.")
            elif "lr" in g:
                self.is_group_lr = True
        default_lr = self._build_single_lr(learning_rate, "learning_rate") if self.is_group_lr else None
        params, lrs, wds, gcs = [], [], [], []
        for i, g in enumerate(groups):
            if "order_params" in g:
                continue
            members = self._parameters_base_check(g["params"], "group 'params'")
            for p in members:
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{name}', the group 'params' must be Parameters, but got "
                                    f"{type(p).__name__}.")
            lr = default_lr
            if "lr" in g:
                lr = self._build_single_lr(self._preprocess_single_lr(g["lr"]), f"learning_rate_group_{i}")
            wd = self._preprocess_weight_decay(g["weight_decay"]) if "weight_decay" in g else weight_decay
            gc = g.get("grad_centralization", False)
            if not isinstance(gc, bool):
                raise TypeError(f"For '{name}', the 'grad_centralization' must be bool, but got "
                                f"{type(gc).__name__}.")
            params += members
            lrs += [lr] * len(members)
            wds += [wd] * len(members)
            gcs += [gc] * len(members)
        self._check_unique(params)
        if self._has_array_lrs(lrs):
            lengths = {lr.learning_rate.shape[0] for lr in lrs if isinstance(lr, _IteratorLearningRate)}
            if len(lengths) > 1:
                raise ValueError(f"For '{name}', the list/Tensor dynamic learning rates of the "
                                 f"groups must have the same length, but got {sorted(lengths)}.")
        if ordered is not None:
            index = {id(p): k for k, p in enumerate(params)}
            if len(ordered) != len(params) or any(id(p) not in index for p in ordered):
                raise ValueError(f"For '{name}', the 'order_params' must contain exactly the "
                                 f"parameters of all groups ({len(params)}), but got {len(ordered)} "
                                 f"that do not match.")
            perm = [index[id(p)] for p in ordered]
            params, lrs = [params[k] for k in perm], [lrs[k] for k in perm]
            wds, gcs = [wds[k] for k in perm], [gcs[k] for k in perm]
        return params, lrs, wds, gcs

    @staticmethod
    def _has_array_lrs(lrs):
        return any(isinstance(lr, _IteratorLearningRate) for lr in lrs)

    # --- what subclasses call ------------------------------------------------------------------
    def _check_gradients(self, gradients):
        name = type(self).__name__
        if isinstance(gradients, Tensor) or not isinstance(gradients, (tuple, list)):
            raise TypeError(f"For '{name}', the gradients must be a tuple of Tensors (one per "
                            f"parameter), but got {type(gradients).__name__}.")
        if len(gradients) != len(self.parameters):
            raise ValueError(f"For '{name}', the number of gradients must equal the number of "
                             f"parameters {len(self.parameters)}, but got {len(gradients)}. Take the "
                             f"gradients with weights=optimizer.parameters.")
        for p, g in zip(self.parameters, gradients):
            if not isinstance(g, Tensor):
                raise TypeError(f"For '{name}', the gradient of '{p.name}' must be a Tensor, but got "
                                f"{type(g).__name__}.")
            if g.shape != p.shape:
                raise ValueError(f"For '{name}', the gradient of '{p.name}' must have the "
                                 f"parameter's shape {list(p.shape)}, but got {list(g.shape)}.")
        return tuple(gradients)

    def flatten_gradients(self, gradients):
        return gradients

    def get_weight_decay(self):
        """The weight decay of the current step (a float, or a tuple per parameter with groups)."""
        def value(w):
            if isinstance(w, Cell):
                return float(np.asarray(w(self.global_step)._data).reshape(-1)[0]) * self.loss_scale
            return w
        if self.is_group:
            return tuple(value(w) for w in self.weight_decay)
        return value(self.weight_decay)

    def decay_weight(self, gradients):
        """g + wd * w for the parameters whose decay flag is set (L2 weight decay)."""
        if not self.exec_weight_decay:
            return gradients
        wd = self.get_weight_decay()
        wds = wd if self.is_group else (wd,) * len(self.parameters)
        out = []
        for p, g, flag, w in zip(self.parameters, gradients, self.decay_flags, wds):
            out.append(Tensor._wrap(g._data + w * p._data) if flag and w > 0 else g)
        return tuple(out)

    def gradients_centralization(self, gradients):
        """g - mean(g over every axis but the first), for groups with grad_centralization=True.

        As MindSpore's optimizer decides: only gradients with 2 or more dimensions whose
        shape[1] is a multiple of 16 are centralised (conv weights with 16k input channels);
        others pass unchanged. (MindSpore 2.10's CPU build has no Centralization kernel and fails.)
        """
        if not any(self.grad_centralization_flags):
            return gradients
        out = []
        for g, flag in zip(gradients, self.grad_centralization_flags):
            if flag and g.ndim > 1 and g.shape[1] % 16 == 0:
                axes = tuple(range(1, g.ndim))
                g = Tensor._wrap(g._data - g._data.mean(axis=axes, keepdims=True))
            out.append(g)
        return tuple(out)

    def scale_grad(self, gradients):
        """Divide by `loss_scale` (undo a fixed loss scale)."""
        if not self.need_scale:
            return gradients
        return tuple(Tensor._wrap(g._data * g._data.dtype.type(self.reciprocal_scale))
                     for g in gradients)

    def _lr_tensor(self, lr):
        if isinstance(lr, Parameter):
            return Tensor._wrap(lr._data.copy())
        out = lr(self.global_step)
        if not isinstance(out, Tensor):
            out = Tensor(float(out), dtype=None)
        return Tensor._wrap(np.asarray(out._data, np.float32).reshape(()))

    def get_lr(self):
        """The learning rate of the current step (`global_step` is not changed by this call).

        Returns:
            A float32 scalar Tensor, or a tuple of them (one per parameter) when groups have
            their own 'lr'.
        """
        if self.is_group_lr:
            cache = {}
            for x in self.group_lr:
                if id(x) not in cache:
                    cache[id(x)] = self._lr_tensor(x)
            lr = tuple(cache[id(x)] for x in self.group_lr)
        else:
            lr = self._lr_tensor(self.learning_rate)
        return lr

    def __call__(self, *args, **kwargs):
        out = super().__call__(*args, **kwargs)
        # One update done: advance the step (MindSpore 2.10 counts in the optimizer call, not in
        # get_lr, so subclasses written MindSpore's way get this for free).
        self.global_step._data = self.global_step._data + 1
        return out

    def get_lr_parameter(self, param):
        """The learning rate object (Parameter or schedule) of `param` or of each in a list."""
        name = type(self).__name__
        params = [param] if isinstance(param, Parameter) else param
        if not isinstance(params, list):
            raise TypeError(f"For 'get_lr_parameter', the 'param' must be a Parameter or a list, but "
                            f"got {type(param).__name__}.")
        ids = [id(p) for p in self.parameters]
        out = []
        for p in params:
            if id(p) not in ids:
                raise ValueError(f"For '{name}.get_lr_parameter', the parameter {p.name} is not in "
                                 f"the optimizer.")
            lr = self.group_lr[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            out.append(lr.learning_rate if isinstance(lr, _IteratorLearningRate) else lr)
        return out if isinstance(param, list) else out[0]

    def _lrs_per_param(self, lr):
        """Python floats, one per parameter, from what get_lr returned."""
        if isinstance(lr, tuple):
            return [float(t._data) for t in lr]
        return [float(lr._data)] * len(self.parameters)

    def _clone_state(self, prefix, init="zeros"):
        """Optimizer state shaped like the parameters, named '<prefix>.<param name>'."""
        out = []
        for p in self.parameters:
            if init == "zeros":
                data = np.zeros(p.shape, p._data.dtype)
            elif init == "ones":
                data = np.ones(p.shape, p._data.dtype)
            else:
                data = np.full(p.shape, init, p._data.dtype)
            out.append(Parameter(Tensor._wrap(data), name=f"{prefix}.{p.name}"))
        return ParameterTuple(out)

    def _prepare(self, gradients, decay=True, scale=True):
        """The shared pre-processing: check, L2 decay, centralization, unscale; then the per-param
        learning rates of this step."""
        grads = self._check_gradients(gradients)
        grads = self.flatten_gradients(grads)
        if decay:
            grads = self.decay_weight(grads)
        grads = self.gradients_centralization(grads)
        if scale:
            grads = self.scale_grad(grads)
        return grads, self._lrs_per_param(self.get_lr())

    def construct(self, *gradients):
        raise NotImplementedError(f"For '{type(self).__name__}', define construct(self, gradients).")

    def extend_repr(self):
        return f"params={len(self.parameters)}, dynamic_lr={self.dynamic_lr}"


def _true():
    return Tensor._wrap(np.asarray(True))
