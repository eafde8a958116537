"""One phase of a check: both models in one mode (inference or training) on the same inputs.

Compared: the outputs; every layer call (the accumulated error, and the local error of the layers
replayed on torch's inputs); the gradients of the loss; and, when only the backward differs, each
layer's own backward. With the float64 reference, torch's own float32 error beside each.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .compare import compare
from .losses import make_losses
from .noise import drift_note, explain_phase, phase_needs_reference
from .reference import run_reference
from .replay import local_grad_replay, local_replay
from .result import ROOT, CheckError, LayerRow, NamedStats, PhaseResult, layer_of
from .run import (MsRecorder, Run, one_line, restore_ms, restore_torch, run_ms, run_torch,
                  snapshot_ms, snapshot_torch, worst_stats)
from .third_side import compare_third, third_needs_reference
from .weights import as_torch_layout


def run_phase(models, inputs, plan, s) -> PhaseResult:
    """Run both models in `plan.mode` (gradients when `plan.gradients`) and compare them.

    Args:
        models: the :class:`~migrate.check.run.ModelPair`; their buffers are restored after.
        inputs: NumPy arrays (and other arguments) fed to both models.
        plan: the :class:`~migrate.check.api.PhasePlan`.
        s: the :class:`~migrate.check.api.CheckSettings`.

    Returns:
        A :class:`PhaseResult`. A converted model that raises is a result (`ms_error`), not an
        error, as long as layers are compared (its layers are then run on torch's inputs).

    Raises:
        CheckError: the torch model fails, or the converted one does and `s.layers` is off.
    """
    phase = PhaseResult(plan.mode)
    train = plan.mode == "train"
    models.torch_module.train(train)
    models.ms_cell.set_train(train)
    torch_state = snapshot_torch(models.torch_module, buffers_only=True)
    ms_state = snapshot_ms(models.ms_cell, buffers_only=True)
    t_loss, m_loss = make_losses(s.loss_fn, s.seed) if plan.gradients else (None, None)
    t_run = _run_torch_side(models, inputs, plan, t_loss, s)
    phase.random_draws = t_run.recorder.random.summary()
    masks = t_run.recorder.dropout_masks if train else None
    m_run = _run_ms_side(models, inputs, plan, m_loss, masks, t_run.recorder, s, phase)
    restore_torch(models.torch_module, torch_state)
    restore_ms(models.ms_cell, ms_state)
    _compare_outputs(phase, t_run, m_run, s)
    grads = plan.gradients and phase.ms_error is None
    if s.layers:
        _compare_layers(phase, models, t_run.recorder, m_run, masks, s)
        restore_ms(models.ms_cell, ms_state)
    if grads:
        _compare_gradients(phase, models, len(inputs), t_run.grads, m_run.grads, s)
    run64 = None
    if s.float64_reference or phase_needs_reference(phase):
        # float64 gradients only when some are judged against them: torch's float64 backward
        # is its slowest part (no oneDNN kernels in float64), twice its whole float32 run
        grads64 = grads and (s.float64_reference or s.mindspore is not None
                             or not all(g.stats.passed for g in phase.gradients))
        run64 = _explained(phase, models, inputs, t_run, m_run, plan.mode, s,
                           t_loss if grads64 else None)
    elif drift_note(phase):
        phase.notes.append(drift_note(phase))
    if s.mindspore is not None:
        _third_side(phase, models, inputs, plan, s, t_run, masks, t_loss if grads else None,
                    run64)
    if grads and s.layers and not all(g.stats.passed for g in phase.gradients) and \
            phase.first_local_failure is None:
        # The forward agrees but the gradients do not: find the layer with a wrong backward.
        phase.local_grads = local_grad_replay(models.torch_module, models.ms_cell,
                                              t_run.recorder, models.weight_map.pairs(),
                                              s.rtol, s.atol, s.seed)
        restore_ms(models.ms_cell, ms_state)
    return phase


def _explained(phase, models, inputs, t_run, m_run, mode, s, t_loss):
    """:func:`explain_phase`, or None with a note when torch's model cannot run in float64
    (CLIP's LayerNorm casts its input to float32 by name: "mixed dtype" in float64); the float32
    verdicts stand then."""
    try:
        return explain_phase(phase, models, inputs, t_run, m_run, mode, s, t_loss)
    except Exception as exc:  # the torch model's own code fails in float64, not the check
        phase.notes.append(f"no float64 reference: the torch model does not run in float64 "
                           f"({one_line(exc)}); the float32 comparison stands")
        return None


def _third_side(phase, models, inputs, plan, s, t_run, masks, t_loss, run64) -> None:
    """Real MindSpore on the same inputs, masks and loss: the phase's third column."""
    kind = getattr(t_loss, "kind", None)
    third = s.mindspore.run_phase(plan.mode, inputs, masks, t_run.recorder.functional_masks,
                                  models.ms_cell, kind is not None,
                                  kind, t_loss.targets.value if kind is not None else None,
                                  t_run.recorder.random.valued)
    compare_third(phase, third, t_run, models, s)
    if third_needs_reference(phase):
        if run64 is None:
            run64 = run_reference(models.torch_module, inputs, t_run.recorder, plan.mode,
                                  t_loss, capture=s.layers)
        compare_third(phase, third, t_run, models, s, run64)


def _run_torch_side(models, inputs, plan, t_loss, s) -> Run:
    import torch
    torch.manual_seed(s.seed)
    try:
        return run_torch(models.torch_module, inputs, t_loss, plan.gradients, capture=s.layers)
    except Exception as exc:
        raise CheckError(f"the torch model fails in {plan.mode} mode: {one_line(exc)}") from exc


def _run_ms_side(models, inputs, plan, m_loss, masks, t_rec, s, phase) -> Run:
    """The converted model's run, given torch's dropout masks and random draws; if it raises,
    what it recorded until then (and the error in `phase.ms_error`): each layer is then run on
    torch's inputs, and the first that raises or differs is named."""
    recorder = None
    try:
        recorder = MsRecorder(models.ms_cell, capture=s.layers, masks=masks,
                              fmasks=t_rec.functional_masks, draws=t_rec.random.valued)
        return run_ms(models.ms_cell, recorder, inputs, m_loss, plan.gradients)
    except Exception as exc:
        if not s.layers:
            raise CheckError(f"the converted model fails in {plan.mode} mode: "
                             f"{one_line(exc)}") from exc
        phase.ms_error = one_line(exc)
        return Run(recorder)


def _compare_outputs(phase, t_run, m_run, s) -> None:
    notes = m_run.recorder.mask_notes if m_run.recorder is not None else []
    for note in dict.fromkeys(notes):
        phase.notes.append(f"dropout replay: {note}")
    if phase.random_draws:
        phase.draw_notes = list(dict.fromkeys(m_run.recorder.draw_notes)) \
            if m_run.recorder is not None else []
        phase.notes.append(f"the torch forward draws random numbers outside dropout layers "
                           f"({phase.random_draws}): the converted model was given the same "
                           f"numbers" + ("" if not phase.draw_notes else
                                         " except: " + "; ".join(phase.draw_notes[:3])))
    if phase.ms_error is None:
        phase.outputs = o = worst_stats(m_run.output, t_run.output, s.rtol, s.atol)
        if o.nan_torch or o.inf_torch or o.nan_ms or o.inf_ms:
            phase.notes.append(f"outputs hold NaN/Inf (torch {o.nan_torch}/{o.inf_torch}, ms "
                               f"{o.nan_ms}/{o.inf_ms}): equal where both sides agree on the "
                               f"position, but check the inputs")
    phase.torch_loss, phase.ms_loss = t_run.loss, m_run.loss


# --- layers ---------------------------------------------------------------------------------------

def _compare_layers(phase, models, t_rec, m_run, masks, s) -> None:
    """One row per torch layer call: accumulated error, local error where replayed, status."""
    m_calls = m_run.calls
    seen: dict = {}  # a container's output is its last layer's: the same two objects
    acc = {key: (_output_stats(m_calls[key].output, t_rec.calls[key].output, s, seen)
                 if key in m_calls else None) for key in t_rec.order}
    # 'auto': a layer whose output agrees in the full run needs no replay (its own error
    # cannot exceed the tolerance unless errors cancel); replay where it disagrees.
    only = None if s.local == "all" else \
        {k for k, st in acc.items() if st is None or not st.passed}
    local = local_replay(models.torch_module, models.ms_cell, t_rec, s.rtol, s.atol, masks, only)
    if only is not None:
        phase.notes.append("local error computed where the accumulated error exceeds the "
                           "tolerance (local='all' / --local all: every layer)")
    ms_cells = dict(models.ms_cell.cells_and_names())
    torch_mods = dict(models.torch_module.named_modules())
    for key in t_rec.order:
        phase.layers.append(_layer_row(key, t_rec.calls[key], acc[key], local.get(key), models,
                                       torch_mods, ms_cells, key in m_calls))
    extra = [p for p in ms_cells if p and p not in torch_mods]
    if extra:
        phase.notes.append(f"ms layers with no torch layer at the same path (compared only "
                           f"inside their parents): {', '.join(extra[:8])}"
                           + (f" and {len(extra) - 8} more" if len(extra) > 8 else ""))
    if masks is not None and any("Dropout" in r.torch_type for r in phase.layers):
        phase.notes.append("training-mode Dropout: torch's masks replayed in the ms model")
    for path in dict.fromkeys(k[0] for k in (masks or {}) if len(k) == 4):
        phase.notes.append(f"dropout between the layers of '{path}' replayed: torch ran it layer "
                           f"by layer (its kernel hides the masks)")


def _output_stats(ms_out, torch_out, s, seen):
    """worst_stats of one layer call's outputs; computed once per pair of recorded objects (the
    recordings are not changed after the run), each row getting its own copy."""
    key = (id(ms_out), id(torch_out))
    if key not in seen:
        seen[key] = worst_stats(ms_out, torch_out, s.rtol, s.atol)
    return replace(seen[key])


def _layer_row(key, call, acc, local, models, torch_mods, ms_cells, called) -> LayerRow:
    path, k = key
    row = LayerRow((path or ROOT) + (f"#{k}" if k else ""), path, k,
                   0 if not path else path.count(".") + 1, call.order,
                   _type_name(torch_mods.get(path)), _type_name(ms_cells.get(path)), acc, None,
                   torch_source=models.torch_sources.get(path, ""),
                   ms_source=models.ms_sources.get(path, ""))
    if local is not None:
        row.local, row.local_value = local.stats, local.value
        if local.error:
            row.status, row.note = "error", local.error
        elif local.input_note:
            row.status, row.note = "FAIL", local.input_note
        elif not local.stats.passed:
            row.status = "FAIL"
    if path not in ms_cells:
        row.status, row.note = "missing", "no ms layer at this path"
    elif not called and row.status == "pass":
        row.note = "the ms layer was not called"
    if row.status == "pass" and row.output is not None and not row.output.passed:
        row.status = "drift"
    return row


def _type_name(obj) -> str:
    return type(obj).__name__ if obj is not None else "-"


# --- gradients ------------------------------------------------------------------------------------

def _compare_gradients(phase, models, n_inputs, t_grads, m_grads, s) -> None:
    """The loss's gradients w.r.t. every float input and every mapped parameter, by name."""
    pairs = [(f"input[{i}]", f"input[{i}]") for i in range(n_inputs)]
    pairs += [(e.torch_name, e.ms_name) for e in models.weight_map.entries
              if e.ms_name is not None and e.torch_name in t_grads]
    for tn, mn in pairs:
        if tn not in t_grads:
            continue
        if mn not in m_grads:
            st = compare(np.zeros(0), np.zeros(0))
            st.passed, st.note = False, "no gradient on the ms side (requires_grad=False?)"
            st.shape = list(t_grads[tn].shape)
        else:
            st = compare(as_torch_layout(m_grads[mn], t_grads[tn].shape), t_grads[tn], s.rtol,
                         s.atol)
        phase.gradients.append(NamedStats(tn, mn, layer_of(tn) if not tn.startswith("input")
                                          else "input", st))
