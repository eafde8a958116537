"""Telling float32 rounding from a conversion fault, for one phase.

A difference beyond the tolerance is a mismatch only when float32 rounding does not explain it.
When a quantity the verdict depends on fails its tolerance (or with ``--float64``), torch runs
again in float64 on the same inputs and dropout masks, and each failing quantity is judged by
:func:`~migrate.check.compare.float64_explains`: the converted model passes when it is no further
from float64 than NOISE_FACTOR times torch float32's own distance.

Gradients have one more cause that float64 cannot see: a kink (ReLU, max, abs) at a value within
rounding of its threshold. The two float32 runs then take different branches at that element,
and the difference flows back through every layer upstream (on ResNet-18 one flipped ReLU out of
a million moves the stem's weight gradient by 1e-4, 200 times torch's own float32 error). So a
gradient that still fails is compared with torch's own backward evaluated on the converted
model's forward values (every layer's output replaced by the converted model's, torch's graph
kept): if they agree, the converted model's backward is right and the difference comes from the
forward's rounding, which the forward comparisons have already judged.
"""
from __future__ import annotations

from .compare import NOISE_FACTOR, compare, float64_explains
from .reference import local_float64, run_reference
from .run import worst_stats
from .weights import as_torch_layout


def phase_needs_reference(phase) -> bool:
    """Whether a quantity the verdict depends on is beyond its tolerance: the outputs, a layer's
    own (local) error, a gradient. A layer whose accumulated error alone exceeds it ('drift',
    its own error within) decides nothing while those agree: no float64 run for it (see
    :func:`drift_note`); when one runs, the drifting layers are judged against it too."""
    if phase.outputs is not None and not phase.outputs.passed:
        return True
    if any(r.status == "FAIL" for r in phase.layers):
        return True
    return any(not g.stats.passed for g in phase.gradients)


def drift_note(phase) -> str:
    """The phase's note on layers left at 'drift' without a float64 run ('' when none)."""
    drift = [r.name for r in phase.layers if r.status == "drift"]
    if not drift:
        return ""
    return (f"accumulated error: {len(drift)} layer output(s) exceed the tolerance while each "
            f"layer's own error is within it and the outputs agree (float32 rounding adding up "
            f"along the depth, first at '{drift[0]}'); --float64 sets torch float64 beside them")


def explain_phase(phase, models, inputs, t_run, m_run, mode, s, t_loss):
    """Run torch in float64 and accept the phase's failing quantities that float32 rounding
    explains (noise columns everywhere with ``s.float64_reference``); then gradients that torch's
    backward reproduces on the converted model's forward values.

    Args:
        phase: the :class:`~migrate.check.result.PhaseResult` being built (updated).
        models: the :class:`~migrate.check.run.ModelPair`.
        inputs: the phase's inputs.
        t_run, m_run: the float32 torch run and the converted model's run.
        mode: 'eval' or 'train'.
        s: the settings.
        t_loss: the torch loss when gradients are compared, else None.

    Returns:
        The float64 run (for the MindSpore column).
    """
    t_rec = t_run.recorder
    run64 = run_reference(models.torch_module, inputs, t_rec, mode, t_loss,
                          capture=_layers_to_record(phase, s))
    phase.notes.append(f"float64 reference: torch ran again in float64 (same inputs and dropout "
                       f"masks); a difference counts as float32 noise when the converted model "
                       f"is within {NOISE_FACTOR:g}x of torch float32's own distance to it")
    if phase.outputs is not None and m_run.output is not None:
        float64_explains(phase.outputs, m_run.output, t_run.output, run64.output)
    _explain_layers(phase, models.torch_module, t_rec, m_run, run64, s)
    _explain_gradients(phase, models, t_run, m_run, run64, s)
    if t_loss is not None and any(not g.stats.passed for g in phase.gradients) and \
            _forward_agrees(phase):
        _explain_by_forward(phase, models, inputs, t_rec, m_run, mode, s, t_loss)
    return run64


def _layers_to_record(phase, s):
    """The layers whose float64 output is needed: every one for a noise column everywhere
    (``--float64``) or MindSpore's column; else only those whose accumulated output is beyond
    its tolerance (recording them all costs a float64 copy of every activation)."""
    if not s.layers:
        return False
    if s.float64_reference or s.mindspore is not None:
        return True
    return {r.path for r in phase.layers if r.output is not None and not r.output.passed}


def _explain_layers(phase, torch_module, t_rec, m_run, run64, s) -> None:
    for row in phase.layers:
        key = (row.path, row.call)
        t_out = t_rec.calls[key].output
        c64 = run64.calls.get(key)
        if c64 is not None:
            if s.float64_reference:
                row.noise = worst_stats(t_out, c64.output, s.rtol, s.atol)
            m_call = m_run.calls.get(key)
            if row.output is not None and not row.output.passed and m_call is not None:
                float64_explains(row.output, m_call.output, t_out, c64.output)
        if row.status == "FAIL" and row.local is not None and not row.note and \
                row.local_value is not None:
            # the layer alone in float64 on the recorded inputs: its own rounding
            local64 = local_float64(torch_module, key, t_rec)
            if local64 is not None:
                float64_explains(row.local, row.local_value, t_out, local64)
        row.local_value = None
        _restatus(row)


def _restatus(row) -> None:
    """A row whose failures float32 noise explains is 'noise' (a pass)."""
    if row.status == "FAIL" and not row.note and row.local is not None and row.local.passed:
        row.status = "noise"
    if row.status in ("pass", "noise") and row.output is not None and not row.output.passed:
        row.status = "drift"
    if row.status == "drift" and row.output is not None and row.output.passed:
        row.status = "noise"
    if row.status == "pass" and any(st is not None and st.explained
                                    for st in (row.output, row.local)):
        row.status = "noise"


def _explain_gradients(phase, models, t_run, m_run, run64, s) -> None:
    for g in phase.gradients:
        g64 = run64.grads.get(g.name)
        if g64 is None:
            continue
        t32 = t_run.grads[g.name]
        if s.float64_reference:
            g.noise = compare(t32, g64, s.rtol, s.atol)
        if not g.stats.passed and g.ms_name in m_run.grads:
            float64_explains(g.stats, as_torch_layout(m_run.grads[g.ms_name], t32.shape), t32,
                             g64)


def _forward_agrees(phase) -> bool:
    """Outputs and every layer's own error within tolerance (or explained)."""
    if phase.ms_error is not None or (phase.outputs is not None and not phase.outputs.passed):
        return False
    return not any(r.status in ("FAIL", "error", "missing") for r in phase.layers)


def _explain_by_forward(phase, models, inputs, t_rec, m_run, mode, s, t_loss) -> None:
    """Gradients that torch's own backward reproduces on the converted model's forward values."""
    import torch
    at_ms = run_reference(models.torch_module, inputs, t_rec, mode, t_loss,
                          dtype=torch.float32, capture=False, ms_calls=m_run.calls)
    at_ms64 = None
    explained = []
    for g in phase.gradients:
        if g.stats.passed or g.ms_name not in m_run.grads or g.name not in at_ms.grads:
            continue
        ref = at_ms.grads[g.name]
        ms_value = as_torch_layout(m_run.grads[g.ms_name], ref.shape)
        st = compare(ms_value, ref, s.rtol, s.atol)
        if not st.passed:
            if at_ms64 is None:
                at_ms64 = run_reference(models.torch_module, inputs, t_rec, mode, t_loss,
                                        capture=False, ms_calls=m_run.calls)
            float64_explains(st, ms_value, ref, at_ms64.grads[g.name])
        if st.passed:
            g.stats.passed, g.stats.explained = True, "forward"
            g.stats.note = ((g.stats.note + "; ") if g.stats.note else "") + (
                f"forward float32 rounding: torch's backward on ms_core's forward values gives "
                f"ms_core's gradient (max abs {st.max_abs:.3g})")
            explained.append(g.name)
    if explained:
        phase.notes.append(
            f"{len(explained)} gradient(s) differ beyond the tolerance only through float32 "
            f"rounding in the forward (e.g. a ReLU or max at a value within rounding of its "
            f"threshold takes the other branch): torch's own backward, run on the converted "
            f"model's forward values, reproduces them: {', '.join(explained[:6])}"
            + (f" and {len(explained) - 6} more" if len(explained) > 6 else ""))
