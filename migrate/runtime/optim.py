"""torch.optim optimizers whose update rules MindSpore 2.10 lacks, over the target's ``ops``.

``TorchLBFGS`` is torch.optim.LBFGS without a line search (torch's default): ``step(closure)``
re-evaluates the loss through ``closure``, which the training pass writes to return
``(loss, grads)`` (its ``backward()`` becomes ``ms.value_and_grad`` over ``optimizer.parameters``).
The arithmetic is torch's, in the parameters' dtype, on the target's tensors.

``TorchOptimizer`` is the base of optimizers written as ``torch.optim.Optimizer`` subclasses
(Lion, LARS, AdamW variants, Lookahead, SAM): their ``step()`` is ordinary Python over
``param_groups``, ``state`` and ``p.grad``, and runs as written; the converted training step's
``optimizer(grads)`` hands it the gradients ``value_and_grad`` returned, as ``p.grad``.
"""
import warnings
from collections import defaultdict

import numpy as np

from .backend import TARGET, ms, ops


class TorchLBFGS:
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None): L-BFGS with torch's two-loop
    recursion, step sizes and stopping tests. ``step(closure)``: ``closure()`` returns
    ``(loss, grads)``, the grads aligned with ``parameters``; returns the first loss."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if line_search_fn is not None:
            raise ValueError(f"For 'LBFGS', line_search_fn {line_search_fn!r} is not supported here: "
                             f"only None (a fixed step of lr), torch's default.")
        self.parameters = tuple(p for p in params if p.requires_grad)
        self.lr, self.max_iter = lr, max_iter
        self.max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size = history_size
        self.state = {"func_evals": 0, "n_iter": 0}

    def _evaluate(self, closure):
        out = closure()
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("For 'LBFGS', the closure must return (loss, grads): its backward() "
                            "becomes ms.value_and_grad over the optimizer's parameters.")
        loss, grads = out
        return loss, ops.cat([ops.reshape(g, (-1,)) for g in grads])

    def _add(self, t, d):
        offset = 0
        for p in self.parameters:
            n = p.size
            p.set_data(p + ops.reshape(d[offset:offset + n], p.shape) * t)
            offset += n

    def _direction(self, flat_grad, s):
        """The two-loop recursion over the stored pairs: -H g."""
        q = -flat_grad
        al = [None] * len(s["old_dirs"])
        for i in range(len(s["old_dirs"]) - 1, -1, -1):
            al[i] = (s["old_stps"][i] * q).sum() * s["ro"][i]
            q = q - s["old_dirs"][i] * al[i]
        r = q * s["H_diag"]
        for i in range(len(s["old_dirs"])):
            be_i = (s["old_dirs"][i] * r).sum() * s["ro"][i]
            r = r + s["old_stps"][i] * (al[i] - be_i)
        return r

    def _remember(self, flat_grad, s):
        """Store the newest (y, s) pair when its curvature is positive; the new direction."""
        y = flat_grad - s["prev_flat_grad"]
        step = s["d"] * s["t"]
        ys = (y * step).sum()
        if ys > 1e-10:
            if len(s["old_dirs"]) == self.history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    s[key].pop(0)
            s["old_dirs"].append(y)
            s["old_stps"].append(step)
            s["ro"].append(1.0 / ys)
            s["H_diag"] = ys / (y * y).sum()
        return self._direction(flat_grad, s)

    def step(self, closure):
        s = self.state
        orig_loss, flat_grad = self._evaluate(closure)
        loss = float(orig_loss)
        evals = 1
        s["func_evals"] += 1
        if ops.abs(flat_grad).max() <= self.tolerance_grad:
            return orig_loss
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            s["n_iter"] += 1
            if s["n_iter"] == 1:
                s["d"], s["old_dirs"], s["old_stps"], s["ro"], s["H_diag"] = -flat_grad, [], [], [], 1
            else:
                s["d"] = self._remember(flat_grad, s)
            s["prev_flat_grad"], prev_loss = flat_grad, loss
            if s["n_iter"] == 1:
                s["t"] = min(1.0, 1.0 / float(ops.abs(flat_grad).sum())) * self.lr
            else:
                s["t"] = self.lr
            if (flat_grad * s["d"]).sum() > -self.tolerance_change:
                break
            self._add(s["t"], s["d"])
            done = False
            if n_iter != self.max_iter:
                new_loss, flat_grad = self._evaluate(closure)
                loss = float(new_loss)
                done = bool(ops.abs(flat_grad).max() <= self.tolerance_grad)
                evals += 1
                s["func_evals"] += 1
            if n_iter == self.max_iter or evals >= self.max_eval or done:
                break
            if ops.abs(s["d"] * s["t"]).max() <= self.tolerance_change:
                break
            if abs(loss - prev_loss) < self.tolerance_change:
                break
        return orig_loss


_Base = ms.experimental.optim.Optimizer


class TorchOptimizer(_Base):
    """torch.optim.Optimizer's API over the target's experimental Optimizer, for optimizers written
    as its subclasses: ``__init__(params, defaults)``, ``param_groups`` (dicts whose options are
    the group's, ``'lr'`` kept as the target keeps it, so LR schedulers drive it), ``state``
    (a dict per parameter, holding what ``step`` puts there), ``defaults``, ``add_param_group``,
    ``zero_grad``, ``state_dict`` / ``load_state_dict`` in torch's layout, and ``step(closure)``,
    which the subclass defines and which reads each parameter's gradient as ``p.grad``.

    ``optimizer(grads)`` (the converted training step; ``grads`` aligned with
    ``optimizer.parameters``, as ``ms.value_and_grad(fn, None, optimizer.parameters)`` returns
    them) sets ``p.grad`` of every parameter (None where a gradient is None) and calls
    ``self.step()``, whose result it returns.

    Example:
        >>> class SignSGD(TorchOptimizer):
        ...     def __init__(self, params, lr=0.01):
        ...         super().__init__(params, dict(lr=lr))
        ...     def step(self, closure=None):
        ...         for group in self.param_groups:
        ...             for p in group["params"]:
        ...                 if p.grad is not None:
        ...                     p.set_data(p - float(group["lr"]) * ops.sign(p.grad))
    """

    def __init__(self, params, defaults):
        defaults = dict(defaults)
        defaults.setdefault("lr", 0.0)   # torch's groups need no lr; the target's do
        super().__init__(params, defaults)
        self.__dict__["state"] = defaultdict(dict)
        for p in self.parameters:
            if not hasattr(p, "grad"):
                p.grad = None

    def _publish_one(self, p, key, value):
        """The state is the subclass's own (no mirrored Parameters)."""

    def set_grads(self, gradients):
        """Set ``p.grad`` of every parameter from ``gradients`` aligned with
        ``optimizer.parameters`` (what a step method other than ``step()``, SAM's
        ``first_step``, reads)."""
        if isinstance(gradients, ms.Tensor):
            gradients = (gradients,)
        gradients = tuple(gradients)
        if len(gradients) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', the number of gradients must equal the number "
                             f"of parameters {len(self.parameters)} (optimizer.parameters), but got "
                             f"{len(gradients)}. Build the gradient function with "
                             f"ms.value_and_grad(fn, None, optimizer.parameters).")
        for p, g in zip(self.parameters, gradients):
            # torch gives a frozen parameter no gradient, and a step() skips `p.grad is None`
            p.grad = g if p.requires_grad else None

    def construct(self, gradients):
        self.set_grads(gradients)
        return self.step()

    def step(self, closure=None):
        raise NotImplementedError(f"For '{type(self).__name__}', a torch.optim.Optimizer subclass defines "
                                  f"step(closure=None).")

    def zero_grad(self, set_to_none=True):
        for p in self.parameters:
            if set_to_none or getattr(p, "grad", None) is None:
                p.grad = None
            else:
                p.grad = ops.zeros_like(p.grad)

    def state_dict(self):
        """torch's layout: ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index]}]}``
        (parameters by their index in ``self.parameters``; the state's tensors as they are)."""
        index = {id(p): i for i, p in enumerate(self.parameters)}
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if s and id(p) in index}
        groups = []
        for g in self.param_groups:
            entry = {k: _number(v) if k == "lr" else v for k, v in g.items() if k != "params"}
            entry["params"] = [index[id(p)] for p in g["params"]]
            groups.append(entry)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore what ``state_dict()`` returned (or torch's): the group options, and the state
        with arrays as the target's tensors in their parameter's dtype.

        Raises:
            ValueError: the number of groups or of parameters per group differs.
        """
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
                len(a["params"]) != len(b["params"]) for a, b in zip(self.param_groups, groups)):
            raise ValueError(f"For '{type(self).__name__}.load_state_dict', the loaded state dict has "
                             f"another number of parameter groups, or of parameters in a group.")
        for mine, saved in zip(self.param_groups, groups):
            for k, v in saved.items():
                if k == "lr":
                    _write_lr(mine, v)
                elif k != "params":
                    mine[k] = v
        self.__dict__["state"] = defaultdict(dict)
        for i, s in state_dict["state"].items():
            p = self.parameters[int(i)]
            self.state[p] = {k: _state_tensor(v, p) for k, v in s.items()}

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {_number(v) if k == 'lr' else v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join(lines + [")"])


def _number(value):
    """A group's lr as a Python float (the target keeps a Parameter; ms_core beside it the double
    it was set from)."""
    if isinstance(value, ms.Tensor):
        exact = getattr(value, "_exact", None)
        v = float(value.asnumpy())
        return exact if exact is not None and np.float32(exact) == np.float32(v) else v
    return value


def _write_lr(group, value):
    lr = group.get("lr")
    if isinstance(lr, ms.Parameter):
        lr.set_data(ms.Tensor(np.array(float(value), np.float32)))
        if TARGET == "ms_core":
            lr._exact = float(value)
    else:
        group["lr"] = value


def _state_tensor(value, param):
    """A state entry as the subclass's step expects it: tensors in the parameter's dtype (torch's
    load_state_dict casts floating state the same way), other values as they are."""
    if isinstance(value, np.ndarray) or (isinstance(value, ms.Tensor) and not isinstance(value, ms.Parameter)):
        arr = value.asnumpy() if isinstance(value, ms.Tensor) else value
        if np.issubdtype(arr.dtype, np.floating):
            arr = arr.astype(param.asnumpy().dtype)
        return ms.Tensor(arr)
    return value


def torch_optimizer_step(optimizer, closure=None):
    """``optimizer.step()`` inside an optimizer written against torch's API (Lookahead's
    ``self.base_optimizer.step()``): a TorchOptimizer steps itself; a MindSpore optimizer is called
    with the gradients its parameters hold as ``p.grad``."""
    if isinstance(optimizer, TorchOptimizer):
        return optimizer.step(closure)
    loss = closure() if closure is not None else None
    optimizer(tuple(getattr(p, "grad", None) for p in optimizer.parameters))
    return loss


def torch_grad_scaler(scaler, device="cuda", enabled=True):
    """The scaler torch's ``GradScaler(device, ..., enabled=enabled)`` is on this backend: ``scaler``
    (the DynamicLossScaler built from torch's arguments) where torch would scale, else
    ``StaticLossScaler(1.0)``. torch disables a scaler the user did not (``enabled=False``) or
    whose device is 'cuda' on a machine without CUDA, with a warning; the analogue here is a CPU
    backend (ms_core, or MindSpore whose ``device_target`` is 'CPU'): the loss is not scaled and
    ``get_scale()`` reads 1.0, as in torch. On Ascend and GPU a 'cuda' scaler scales."""
    if not enabled:
        return ms.amp.StaticLossScaler(1.0)
    if device == "cuda" and not _accelerator():
        warnings.warn("torch.cuda.amp.GradScaler is enabled, but the backend is CPU (no Ascend or GPU, "
                      "torch's 'CUDA is not available').  Disabling: the loss is not scaled, as torch does.",
                      stacklevel=2)
        return ms.amp.StaticLossScaler(1.0)
    return scaler


def _accelerator() -> bool:
    """True when the backend computes on Ascend or GPU (MindSpore's device_target); ms_core is a CPU."""
    return TARGET == "mindspore" and ms.get_context("device_target") != "CPU"


def torch_scaler_is_enabled(scaler):
    """``GradScaler.is_enabled()`` of a converted scaler: True for the DynamicLossScaler an enabled
    scaler becomes, False for the StaticLossScaler(1.0) of a disabled one."""
    return isinstance(scaler, ms.amp.DynamicLossScaler)


def torch_scaler_state_dict(scaler):
    """``GradScaler.state_dict()`` of a converted scaler, with torch's keys: ``scale``,
    ``growth_factor``, ``backoff_factor``, ``growth_interval`` and ``_growth_tracker`` (the finite
    steps since the scale last changed) of a DynamicLossScaler; ``{}`` for the StaticLossScaler a
    disabled GradScaler becomes, as torch's disabled scaler returns. A checkpoint written by torch
    loads into the converted scaler and the other way round."""
    if not isinstance(scaler, ms.amp.DynamicLossScaler):
        return {}
    factor = float(scaler.scale_factor)
    return {"scale": float(scaler.scale_value.asnumpy()), "growth_factor": factor, "backoff_factor": 1.0 / factor,
            "growth_interval": int(scaler.scale_window), "_growth_tracker": int(scaler.counter.asnumpy())}


def torch_scaler_load_state_dict(scaler, state_dict):
    """``GradScaler.load_state_dict(state_dict)`` into a converted scaler: the scale, its factor,
    interval and counter; a disabled scaler (StaticLossScaler) ignores it, as torch's does.

    Raises:
        RuntimeError: ``state_dict`` is empty (saved from a disabled scaler), as torch raises.
        ValueError: a backoff that is not 1 / growth_factor, or a growth factor that is not a whole
            number: MindSpore's DynamicLossScaler has one integer factor for both.
    """
    if not isinstance(scaler, ms.amp.DynamicLossScaler):
        return
    if not state_dict:
        raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                           "instance of GradScaler.")
    growth, backoff = float(state_dict["growth_factor"]), float(state_dict["backoff_factor"])
    if growth != int(growth) or abs(growth * backoff - 1.0) > 1e-12:
        raise ValueError(f"For 'torch_scaler_load_state_dict', the scaler's 'growth_factor' must be a whole "
                         f"number and 'backoff_factor' its inverse (MindSpore's DynamicLossScaler has one "
                         f"integer scale_factor), but got {growth} and {backoff}.")
    scaler.scale_factor = int(growth)
    scaler.scale_window = int(state_dict["growth_interval"])
    _write_value(scaler, "scale_value", np.float32(state_dict["scale"]))
    _write_value(scaler, "counter", np.int32(state_dict["_growth_tracker"]))


def _write_value(owner, name, value):
    """Set a scaler's state in place where the target keeps it as a Parameter (MindSpore), else
    rebind it (ms_core's scalers rebind it on every adjust)."""
    current = getattr(owner, name)
    if isinstance(current, ms.Parameter):
        current.set_data(ms.Tensor(np.array(value, current.asnumpy().dtype)))
    else:
        setattr(owner, name, ms.Tensor(np.array(value, current.asnumpy().dtype)))


def torch_clip_grad_norm(grads, max_norm, norm_type=2.0):
    """``torch.nn.utils.clip_grad_norm_`` on a grads tuple, by torch's formula, where its result
    (the total norm before clipping) is used: returns ``(clipped grads, total norm)``. The total
    norm is the ``norm_type``-norm of all gradients together (``inf``: the largest magnitude); every
    gradient is multiplied by ``min(max_norm / (total + 1e-6), 1)``, as torch does."""
    grads = tuple(grads)
    p = float(norm_type)
    if not grads:
        return grads, ms.Tensor(np.array(0.0, np.float32))
    if p == float("inf"):
        total = ops.stack([ops.abs(g).max().astype(ms.float32) for g in grads]).max()
    elif p == 2.0:
        total = ops.sqrt(ops.stack([(g.astype(ms.float32) * g.astype(ms.float32)).sum() for g in grads]).sum())
    else:
        parts = ops.stack([ops.pow(ops.abs(g.astype(ms.float32)), p).sum() for g in grads])
        total = ops.pow(parts.sum(), 1.0 / p)
    coef = ops.clamp(float(max_norm) / (total + 1e-6), max=1.0)
    return tuple(g * coef.astype(g.dtype) for g in grads), total
