"""Training steps on both models: the same optimizer, batch and loss, step by step.

SGD: ``torch.optim.SGD(momentum=m, dampening=0)`` against ``nn.Momentum(momentum=m)``; the two
agree because torch's first step sets its buffer to the gradient, which is MindSpore's
``accum = m*0 + grad``. Adam: torch ``Adam`` against ``nn.Adam`` (MindSpore adds eps to sqrt(v)
before the bias correction of the step size, torch after: a real difference of the optimizers
that the report states; SGD checks the model itself). With the float64 reference, a torch copy
in double precision takes the same steps, to tell float32 drift from a real difference.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from .compare import as_array, compare, within_noise_floor
from .hints import momentum_hints
from .losses import make_losses
from .result import CheckError, NamedStats, TrainResult, layer_of
from .run import MsRecorder, TorchRecorder, one_line, torch_to_ms, worst_stats
from .weights import as_torch_layout, ms_parameters, torch_tensors

_SGD_NOTE = ("torch SGD(momentum={m}, dampening=0) vs ms nn.Momentum(momentum={m}): equal since "
             "torch's first buffer is the gradient and MindSpore's accum starts at 0 (accum = "
             "m*0 + grad)")
_ADAM_NOTE = ("torch Adam vs ms nn.Adam (betas 0.9/0.999, eps 1e-8): MindSpore adds eps to "
              "sqrt(v) before the bias correction, so its eps acts as eps/sqrt(1-beta2^t) in "
              "torch's terms (31.6x at step 1): elements whose gradient is within a few hundred "
              "eps differ by up to ~lr per step. That is a real difference of the two optimizers, "
              "not of the model: use SGD to check the model itself")


def run_training(models, inputs, s) -> TrainResult:
    """`s.train_steps` optimizer steps on both models (training mode, the same batch): the loss
    curves, the first parameter to differ, every parameter and buffer after the last step, and
    the inference outputs after training. The caller restores the models' state.

    Raises:
        CheckError: the converted model fails in a training step.
    """
    twin = _Float64Twin(models.torch_module, s) if s.float64_reference else None
    tr = TrainResult(s.train_steps, s.optimizer, s.lr)
    models.torch_module.train(True)
    models.ms_cell.set_train(True)
    t_loss, m_loss = make_losses(s.loss_fn, s.seed)
    t_opt = _torch_optimizer(models.torch_module.parameters(), s, tr.notes)
    params = _Parameters(models, s)
    weights = params.weights(models.ms_cell)
    ms_step = _MsStep(models.ms_cell, m_loss, weights, _ms_optimizer(s, weights, tr))
    t_in = [_torch_input(x) for x in inputs]
    m_in = [torch_to_ms(x) for x in inputs]
    if twin is not None:
        twin.start(t_in)
    for step in range(s.train_steps):
        lt, rec, noisy = _torch_step(models.torch_module, t_opt, t_loss, t_in, s.seed + step,
                                     find_noise=step == 0 and s.optimizer == "adam")
        if noisy is not None:
            params.noisy = noisy
        if twin is not None and (rec.dropout_masks or rec.functional_masks):
            twin = None
            tr.notes.append("no float64 noise floor for the training steps: the model uses "
                            "dropout")
        if twin is not None:
            twin.step(t_loss)
        lm = ms_step(m_in, rec, step)
        tr.torch_losses.append(float(lt.detach()))
        tr.ms_losses.append(float(as_array(lm)))
        if tr.first_bad_step is None:
            tr.first_bad_param = params.first_difference()
            tr.first_bad_step = step + 1 if tr.first_bad_param is not None else None
    _compare_losses(tr, twin, s)
    momentum_hints(models.torch_module, models.ms_cell, tr)
    _inference_after_training(models, t_in, m_in, tr, s)
    if params.noisy:
        tr.notes.append(f"noise-level gradients (Adam turns their float32 rounding into full "
                        f"±lr steps), compared at atol=2·lr·steps={params.loose_atol:.3g}: "
                        f"{', '.join(sorted(params.noisy))}")
    tr.params = params.final_stats(twin.model if twin is not None else None)
    if twin is not None and all(p.stats.passed for p in tr.params):
        tr.first_bad_step = tr.first_bad_param = None  # the early difference was float32 drift
    return tr


def _torch_input(x):
    import torch
    return torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else x


# --- the two optimizers ---------------------------------------------------------------------------

def _torch_optimizer(parameters, s, notes):
    import torch
    tparams = [p for p in parameters if p.requires_grad]
    if s.optimizer == "sgd":
        if notes is not None:
            notes.append(_SGD_NOTE.format(m=s.momentum))
        return torch.optim.SGD(tparams, lr=s.lr, momentum=s.momentum, dampening=0,
                               nesterov=False, weight_decay=0)
    if notes is not None:
        notes.append(_ADAM_NOTE)
    return torch.optim.Adam(tparams, lr=s.lr, betas=(0.9, 0.999), eps=1e-8)


def _ms_optimizer(s, weights, tr):
    import ms_core
    nn = ms_core.nn
    if s.optimizer == "sgd":
        if hasattr(nn, "Momentum"):
            return nn.Momentum(weights, learning_rate=s.lr, momentum=s.momentum)
        tr.notes.append("ms_core.nn.Momentum not available: MindSpore's formula applied in NumPy")
        return _MomentumRef(weights, s.lr, s.momentum)
    if hasattr(nn, "Adam"):
        return nn.Adam(weights, learning_rate=s.lr, beta1=0.9, beta2=0.999, eps=1e-8)
    tr.notes.append("ms_core.nn.Adam not available: MindSpore's formula applied in NumPy")
    return _AdamRef(weights, s.lr)


class _MomentumRef:
    """MindSpore's ApplyMomentum in NumPy (accum = m*accum + g; p -= lr*accum), used when
    ms_core.nn.Momentum is not available."""

    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.m = params, lr, momentum
        self.accum = [np.zeros_like(p._data) for p in params]

    def __call__(self, grads):
        for p, g, a in zip(self.params, grads, self.accum):
            a *= self.m
            a += as_array(g)
            p._data = (p._data - self.lr * a).astype(p._data.dtype)


class _AdamRef:
    """MindSpore's Adam in NumPy (lr_t = lr*sqrt(1-b2^t)/(1-b1^t); p -= lr_t*m/(sqrt(v)+eps))."""

    def __init__(self, params, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p._data) for p in params]
        self.v = [np.zeros_like(p._data) for p in params]
        self.t = 0

    def __call__(self, grads):
        self.t += 1
        lr_t = self.lr * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            g = as_array(g)
            m[...] = self.b1 * m + (1 - self.b1) * g
            v[...] = self.b2 * v + (1 - self.b2) * g * g
            p._data = (p._data - lr_t * m / (np.sqrt(v) + self.eps)).astype(p._data.dtype)


# --- one step on each side ------------------------------------------------------------------------

def _torch_step(module, opt, loss_fn, t_in, seed, find_noise=False):
    """One torch optimizer step with its dropout masks recorded: (loss, recorder, the
    parameters whose gradient is noise-level when `find_noise`, else None)."""
    import torch
    torch.manual_seed(seed)
    noisy = None
    with TorchRecorder(module, capture=False) as rec:
        opt.zero_grad(set_to_none=True)
        lt = loss_fn(module(*t_in))
        lt.backward()
        if find_noise:
            noisy = _noise_level_params(module)
        opt.step()
    return lt, rec, noisy


def _noise_level_params(model) -> set:
    """Parameters whose gradient is float32 rounding noise next to the largest one (e.g. a conv
    bias feeding BatchNorm, whose exact gradient is 0)."""
    grads = {n: float(p.grad.abs().max()) for n, p in model.named_parameters()
             if p.grad is not None and p.grad.numel()}
    top = max(grads.values(), default=0.0)
    return {n for n, g in grads.items() if g <= 1e-5 * top}


class _MsStep:
    """One ms_core optimizer step (value_and_grad of the loss, then the optimizer), replaying the
    torch step's dropout masks."""

    def __init__(self, cell, loss, weights, optimizer):
        import ms_core
        self.cell, self.loss, self.optimizer = cell, loss, optimizer
        self.grad_fn = ms_core.value_and_grad(self.forward, None, weights) if weights else None

    def forward(self, *xs):
        return self.loss(self.cell(*xs))

    def __call__(self, m_in, torch_rec, step):
        with MsRecorder(self.cell, capture=False, masks=torch_rec.dropout_masks,
                        fmasks=torch_rec.functional_masks):
            try:
                if self.grad_fn is None:
                    return self.forward(*m_in)
                lm, grads = self.grad_fn(*m_in)
                self.optimizer(grads)
                return lm
            except Exception as exc:
                raise CheckError(f"the converted model fails in training step {step + 1}: "
                                 f"{one_line(exc)}") from exc


class _Float64Twin:
    """A float64 copy of the torch model taking the same steps (the noise floor)."""

    def __init__(self, torch_module, s):
        # copied before the check switches modes: the copy starts as the model was given
        self.model, self.s, self.losses = copy.deepcopy(torch_module).double(), s, []

    def start(self, t_in):
        import torch
        self.model.train(True)
        self.opt = _torch_optimizer(self.model.parameters(), self.s, None)
        self.inputs = [x.double() if torch.is_tensor(x) and x.is_floating_point() else x
                       for x in t_in]

    def step(self, loss_fn):
        self.opt.zero_grad(set_to_none=True)
        loss = loss_fn(self.model(*self.inputs))
        loss.backward()
        self.opt.step()
        self.losses.append(float(loss.detach()))


# --- comparisons ----------------------------------------------------------------------------------

class _Parameters:
    """The trained tensors of both sides, paired by the weight map, and how they compare."""

    def __init__(self, models, s):
        self.torch = {full: t for full, _, _, t, _ in torch_tensors(models.torch_module)}
        self.ms = ms_parameters(models.ms_cell)
        self.pairs = [(e.torch_name, e.ms_name) for e in models.weight_map.entries
                      if e.ms_name in self.ms and e.action != "shape-mismatch"]
        self.rtol, self.atol = s.rtol, s.atol
        self.loose_atol = 2.0 * s.lr * s.train_steps
        self.noisy = set()  # Adam: parameters with noise-level gradients (compared at loose_atol)

    def weights(self, cell) -> list:
        return [self.ms[n] for n, p in cell.parameters_and_names() if p.requires_grad]

    def _values(self, tn, mn):
        return (as_torch_layout(self.ms[mn].asnumpy(), self.torch[tn].shape),
                self.torch[tn].detach().numpy())

    def _atol(self, tn):
        return self.loose_atol if tn in self.noisy else self.atol

    def first_difference(self) -> str | None:
        """The first torch name whose value differs now, or None."""
        for tn, mn in self.pairs:
            if not compare(*self._values(tn, mn), self.rtol, self._atol(tn)).passed:
                return tn
        return None

    def final_stats(self, model64) -> list:
        """NamedStats of every pair, with torch float32's distance to `model64` as noise."""
        tensors64 = {full: t for full, _, _, t, _ in torch_tensors(model64)} \
            if model64 is not None else {}
        out = []
        for tn, mn in self.pairs:
            ms_value, t_value = self._values(tn, mn)
            st = compare(ms_value, t_value, self.rtol, self._atol(tn))
            noise = None
            if tn in tensors64:
                v64 = tensors64[tn].detach().numpy()
                noise = compare(t_value, v64, self.rtol, self.atol)
                if not st.passed:
                    st = within_noise_floor(st, ms_value, v64, noise)
            out.append(NamedStats(tn, mn, layer_of(tn), st, noise))
        return out


def _compare_losses(tr, twin, s) -> None:
    tr.loss_stats = compare(np.array(tr.ms_losses), np.array(tr.torch_losses), s.rtol, s.atol)
    if twin is not None and not tr.loss_stats.passed:
        tr.loss_stats = within_noise_floor(
            tr.loss_stats, np.array(tr.ms_losses), np.array(twin.losses),
            compare(np.array(tr.torch_losses), np.array(twin.losses)))


def _inference_after_training(models, t_in, m_in, tr, s) -> None:
    """Inference after training: where moving statistics (BatchNorm momentum) reach the
    outputs."""
    import torch
    models.torch_module.train(False)
    models.ms_cell.set_train(False)
    with TorchRecorder(models.torch_module, capture=False) as rec:  # F.dropout drops in eval too
        with torch.no_grad():
            t_out = models.torch_module(*t_in)
    with MsRecorder(models.ms_cell, capture=False, masks=None, fmasks=rec.functional_masks):
        try:
            tr.eval_outputs = worst_stats(models.ms_cell(*m_in), t_out, s.rtol, s.atol)
        except Exception as exc:
            tr.notes.append(f"inference after training failed on the ms side: {one_line(exc)}")
