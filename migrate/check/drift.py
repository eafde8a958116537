"""Judging differences after the training steps: float32 rounding grown over the steps, or a
fault.

A healthy conversion can end the steps beyond the tolerance for two reasons float32 explains:

1. rounding in every step, amplified by the steps. Judged against torch in float64 taking the
   same steps (same batch, same dropout masks): the converted model passes when it is within
   NOISE_FACTOR of torch float32's own distance to that run.
2. the first step's gradients differ by float32 rounding in the forward (a ReLU at a value within
   rounding of 0, see :mod:`migrate.check.noise`), and the steps amplify it. Judged, only when
   the training-mode gradients were found to agree, against a torch float32 run whose first step
   takes the converted model's first gradients: the converted model passes when it is within
   NOISE_FACTOR of that run's distance to torch.

A fault is orders of magnitude beyond both: a BatchNorm momentum that is not inverted moves the
moving statistics by a share of the batch statistics in the first step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .compare import compare, drift_explains, float64_explains
from .optimizers import torch_optimizer
from .randomness import TorchDrawReplay, explicit_attention_dropout
from .reference import float_copy, functional_masks, module_masks
from .run import numpy_to_torch
from .weights import torch_tensors


@dataclass
class TrainingTrace:
    """What the torch steps used, to take them again: the start state, each step's dropout
    masks, the functional masks of the inference after training, the two inference outputs,
    and the converted model's first gradients in torch's names and layouts."""

    state0: dict
    masks: list = field(default_factory=list)  # per step: (module, functional masks, draws)
    eval_masks: list = field(default_factory=list)
    eval_draws: list = field(default_factory=list)
    eval_values: tuple | None = None  # (ms output, torch output) after training
    first_grads: dict | None = None


@dataclass
class Replay:
    """A torch run retracing the steps: its losses, every tensor after the last step (torch
    names, float64 arrays) and its inference output."""

    losses: list
    tensors: dict
    eval_output: object


def replay(torch_module, trace, t_in, t_loss, s, dtype, first_grads=None) -> Replay:
    """Take the training steps again on a copy of the torch model in `dtype`, from the start
    state, with each step's recorded dropout masks (the first step's gradients replaced by
    `first_grads` where given)."""
    import torch
    model = float_copy(torch_module, dtype)
    current = dict(model.named_parameters())
    current.update(dict(model.named_buffers()))
    with torch.no_grad():
        for name, value in trace.state0.items():
            if name in current:
                current[name].copy_(value)
    model.train(True)
    opt = torch_optimizer(model.parameters(), s, None)
    inputs = [numpy_to_torch(x, dtype) for x in t_in]
    losses = []
    for i, (dmasks, fmasks, draws) in enumerate(trace.masks):
        torch.manual_seed(s.seed + i)
        depth = {"depth": 0, "next": 0}
        with module_masks(model, dmasks, depth), functional_masks(fmasks, depth), \
                TorchDrawReplay(draws), explicit_attention_dropout():
            opt.zero_grad(set_to_none=True)
            loss = t_loss(model(*inputs))
            loss.backward()
        if i == 0 and first_grads:
            for name, p in model.named_parameters():
                if name in first_grads and p.grad is not None:
                    p.grad.copy_(torch.from_numpy(np.ascontiguousarray(first_grads[name])))
        opt.step()
        losses.append(float(loss.detach()))
    model.train(False)
    with functional_masks(trace.eval_masks, {"depth": 0, "next": 0}), \
            TorchDrawReplay(trace.eval_draws), explicit_attention_dropout(), torch.no_grad():
        out = model(*inputs)
    tensors = {full: t.detach().double().numpy() for full, _, _, t, _ in torch_tensors(model)}
    return Replay(losses, tensors, out)


def explain_training(tr, models, trace, params, t_in, t_loss, s) -> None:
    """Accept the training differences that float32 rounding explains (see the module
    docstring); with ``s.float64_reference`` every parameter gets its float64 noise column.

    Args:
        tr: the :class:`~migrate.check.result.TrainResult` (updated).
        models: the model pair (the torch model is copied, not changed).
        trace: the :class:`TrainingTrace` of the steps.
        params: the trained tensors of both sides (`values(torch name, ms name)`).
        t_in, t_loss: the torch inputs and loss of the steps.
        s: the settings.
    """
    import torch
    twin = replay(models.torch_module, trace, t_in, t_loss, s, torch.float64)
    tr.notes.append("float64 reference: torch in float64 took the same steps with the same "
                    "dropout masks")
    _judge(tr, params, trace, twin, s, float64_explains, noise_column=s.float64_reference)
    if not tr.passed and trace.first_grads is not None:
        shadow = replay(models.torch_module, trace, t_in, t_loss, s, torch.float32,
                        trace.first_grads)
        tr.notes.append("drift reference: a torch float32 run whose first step took the "
                        "converted model's first gradients (they agree with torch's up to "
                        "float32 rounding in the forward)")
        _judge(tr, params, trace, shadow, s, _drift)
    failing = [p.name for p in tr.params if not p.stats.passed]
    if tr.first_bad_param not in failing:  # the early difference was float32 drift
        tr.first_bad_step = None
        tr.first_bad_param = failing[0] if failing else None


def _drift(st, ms_value, torch_value, shadow_value):
    return drift_explains(st, ms_value, torch_value, shadow_value)


def _judge(tr, params, trace, ref, s, explains, noise_column=False) -> None:
    """Apply `explains(stats, ms, torch, reference)` to every failing quantity."""
    for p in tr.params:
        value = ref.tensors.get(p.name)
        if value is None:
            continue
        ms_value, t_value = params.values(p.name, p.ms_name)
        if noise_column:
            p.noise = compare(t_value, value, s.rtol, s.atol)
        if not p.stats.passed:
            explains(p.stats, ms_value, t_value, value)
    if tr.loss_stats is not None and not tr.loss_stats.passed:
        explains(tr.loss_stats, np.array(tr.ms_losses), np.array(tr.torch_losses),
                 np.array(ref.losses))
    if tr.eval_outputs is not None and not tr.eval_outputs.passed and trace.eval_values:
        m_out, t_out = trace.eval_values
        explains(tr.eval_outputs, m_out, t_out, ref.eval_output)
