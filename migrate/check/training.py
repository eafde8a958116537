"""Training steps on both models: the same optimizer, batch and loss, step by step.

Every parameter and buffer is compared after the last step, with the loss curves and the
inference outputs after training; the first step after which a parameter differs is named.
Differences beyond the tolerance are then judged by :mod:`migrate.check.drift` (a float64 torch
run taking the same steps; a torch run started from the converted model's first gradients).
The optimizers are :mod:`migrate.check.optimizers`.
"""
from __future__ import annotations

import numpy as np

from .compare import as_array, compare
from .drift import TrainingTrace, explain_training
from .hints import momentum_hints
from .losses import make_losses
from .optimizers import ms_optimizer, torch_optimizer
from .result import CheckError, NamedStats, TrainResult, layer_of
from .run import (MsRecorder, TorchRecorder, numpy_to_torch, one_line, snapshot_torch, torch_to_ms,
                  worst_stats)
from .weights import as_torch_layout, ms_parameters, torch_tensors


def run_training(models, inputs, s, gradients_agree=False) -> TrainResult:
    """`s.train_steps` optimizer steps on both models (training mode, the same batch): the loss
    curves, the first parameter to differ, every parameter and buffer after the last step, and
    the inference outputs after training. The caller restores the models' state.

    Args:
        models: the :class:`~migrate.check.run.ModelPair`.
        inputs: the batch (the check's inputs).
        s: the settings.
        gradients_agree: the training-mode gradients were compared and agree (or their
            difference is explained): then a difference that grows from the first step's
            gradients can be judged against a torch run started from them.

    Raises:
        CheckError: the converted model fails in a training step.
    """
    tr = TrainResult(s.train_steps, s.optimizer, s.lr)
    trace = TrainingTrace(snapshot_torch(models.torch_module))
    models.torch_module.train(True)
    models.ms_cell.set_train(True)
    t_loss, m_loss = make_losses(s.loss_fn, s.seed)
    t_opt = torch_optimizer(models.torch_module.parameters(), s, tr.notes)
    params = _Parameters(models, s)
    names, weights = params.weights(models.ms_cell)
    ms_step = _MsStep(models.ms_cell, m_loss, names, weights, ms_optimizer(s, weights, tr))
    t_in = [_torch_input(x) for x in inputs]
    m_in = [torch_to_ms(x) for x in inputs]
    for step in range(s.train_steps):
        lt, rec, noisy = _torch_step(models.torch_module, t_opt, t_loss, t_in, s.seed + step,
                                     find_noise=step == 0 and s.optimizer == "adam")
        if noisy is not None:
            params.noisy = noisy
        trace.masks.append((rec.dropout_masks, rec.functional_masks, rec.random.valued))
        lm = ms_step(m_in, rec, step)
        tr.torch_losses.append(float(lt.detach()))
        tr.ms_losses.append(float(as_array(lm)))
        if tr.first_bad_step is None:
            tr.first_bad_param = params.first_difference()
            tr.first_bad_step = step + 1 if tr.first_bad_param is not None else None
    tr.loss_stats = compare(np.array(tr.ms_losses), np.array(tr.torch_losses), s.rtol, s.atol)
    momentum_hints(models.torch_module, models.ms_cell, tr)
    _inference_after_training(models, t_in, m_in, tr, s, trace)
    if params.noisy:
        tr.notes.append(f"noise-level gradients (Adam turns their float32 rounding into full "
                        f"±lr steps), compared at atol=2·lr·steps={params.loose_atol:.3g}: "
                        f"{', '.join(sorted(params.noisy))}")
    tr.params = params.final_stats()
    if s.float64_reference or not tr.passed:
        trace.first_grads = params.torch_named(ms_step.first_grads) if gradients_agree else None
        explain_training(tr, models, trace, params, t_in, t_loss, s)
    return tr


def _torch_input(x):
    return numpy_to_torch(x)


# --- one step on each side ------------------------------------------------------------------------

def _torch_step(module, opt, loss_fn, t_in, seed, find_noise=False):
    """One torch optimizer step with its dropout masks and random draws recorded: (loss,
    recorder, the parameters whose gradient is noise-level when `find_noise`, else None)."""
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
    torch step's dropout masks and random draws."""

    def __init__(self, cell, loss, names, weights, optimizer):
        import ms_core
        self.cell, self.loss, self.optimizer = cell, loss, optimizer
        self.grad_fn = ms_core.value_and_grad(self.forward, None, weights) if weights else None
        self.names = names
        self.first_grads = None  # {ms parameter name: the first step's gradient}

    def forward(self, *xs):
        return self.loss(self.cell(*xs))

    def __call__(self, m_in, torch_rec, step):
        with MsRecorder(self.cell, capture=False, masks=torch_rec.dropout_masks,
                        fmasks=torch_rec.functional_masks, draws=torch_rec.random.valued):
            try:
                if self.grad_fn is None:
                    return self.forward(*m_in)
                lm, grads = self.grad_fn(*m_in)
                if self.first_grads is None:
                    self.first_grads = {n: as_array(g).copy() for n, g in zip(self.names, grads)}
                self.optimizer(grads)
                return lm
            except Exception as exc:
                raise CheckError(f"the converted model fails in training step {step + 1}: "
                                 f"{one_line(exc)}") from exc


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
        """(names, Parameters) the ms optimizer trains."""
        names = [n for n, p in cell.parameters_and_names() if p.requires_grad]
        return names, [self.ms[n] for n in names]

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

    def values(self, tn, mn):
        """(ms value in torch's layout, torch value) of one pair, as arrays."""
        return self._values(tn, mn)

    def torch_named(self, ms_grads) -> dict | None:
        """{torch name: array in torch's layout} of {ms name: gradient}."""
        if ms_grads is None:
            return None
        by_ms = {mn: tn for tn, mn in self.pairs}
        return {by_ms[mn]: as_torch_layout(g, self.torch[by_ms[mn]].shape)
                for mn, g in ms_grads.items() if mn in by_ms}

    def final_stats(self) -> list:
        """NamedStats of every pair at the tolerance."""
        out = []
        for tn, mn in self.pairs:
            ms_value, t_value = self._values(tn, mn)
            out.append(NamedStats(tn, mn, layer_of(tn),
                                  compare(ms_value, t_value, self.rtol, self._atol(tn))))
        return out


def _inference_after_training(models, t_in, m_in, tr, s, trace) -> None:
    """Inference after training: where moving statistics (BatchNorm momentum) reach the
    outputs. The two outputs are kept on `trace` for the drift explanation."""
    import torch
    models.torch_module.train(False)
    models.ms_cell.set_train(False)
    with TorchRecorder(models.torch_module, capture=False) as rec:  # F.dropout drops in eval too
        with torch.no_grad():
            t_out = models.torch_module(*t_in)
    trace.eval_masks = rec.functional_masks
    trace.eval_draws = rec.random.valued
    with MsRecorder(models.ms_cell, capture=False, masks=None, fmasks=rec.functional_masks,
                    draws=rec.random.valued):
        try:
            m_out = models.ms_cell(*m_in)
            tr.eval_outputs = worst_stats(m_out, t_out, s.rtol, s.atol)
            trace.eval_values = (m_out, t_out)
        except Exception as exc:
            tr.notes.append(f"inference after training failed on the ms side: {one_line(exc)}")
