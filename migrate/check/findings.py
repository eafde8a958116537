"""Findings: every failure turned into one localised problem (which check, which layer, where its
code is), first culprit first: transfer, init, then per phase, then the training steps."""
from __future__ import annotations

from .hints import init_hint, layer_hint
from .result import ROOT, Finding, layer_of, layer_path


def transfer_findings(models) -> list:
    """One finding per torch module left inside the converted model, then one per tensor the
    weight map could not place (outside those modules)."""
    rep = models.weight_map
    left = torch_leftovers(models.ms_cell)
    out = [Finding("transfer", path, f"the converted model holds a torch module at '{path}' "
                                     f"({kind}): the conversion left the code building it as it "
                                     f"was (see its '# migrate:' markers), so it gets no weights "
                                     f"and cannot run on the converted model's tensors",
                   *models.sources(path))
           for path, kind in left]
    names = list(rep.unmapped_torch) + list(rep.unmapped_ms)
    names += [e.torch_name for e in rep.entries if e.action == "shape-mismatch"]
    # The sources shown are those of the layer's parent (layer_path of the layer name), as
    # before the restructure; the layer's own would be layer_path(name).
    inside = tuple(path + "." for path, _ in left)
    return out + [Finding("transfer", layer, line, *models.sources(layer_path(layer)))
                  for line, layer, name in zip(rep.problems(), map(layer_of, names), names)
                  if not name.startswith(inside)]


def torch_leftovers(ms_cell) -> list:
    """(path, 'torch.nn.GRU') for every torch module held as an attribute of a cell of the
    converted model, outermost only."""
    try:
        import torch
    except ImportError:  # pragma: no cover - the checker runs torch
        return []
    out = []
    for prefix, cell in ms_cell.cells_and_names():
        for name, value in vars(cell).items():
            if isinstance(value, torch.nn.Module):
                kind = type(value)
                out.append((f"{prefix}.{name}" if prefix else name,
                            f"{kind.__module__.split('.modules')[0]}.{kind.__name__}"))
    return out


def init_finding(row, models) -> Finding:
    """An initial distribution that differs from torch's (a KS row that `differs`)."""
    ks = row.ks
    return Finding(
        "init", row.layer,
        f"'{row.ms_name}' is initialized from a different distribution than torch's "
        f"'{row.name}' ({ks.reason}; KS D={ks.statistic:.3f}; torch mean/std "
        f"{ks.torch_mean:.3g}/{ks.torch_std:.3g}, ms {ks.ms_mean:.3g}/{ks.ms_std:.3g})"
        + init_hint(ks), *models.sources(layer_path(row.name)))


def collect_findings(res, models) -> None:
    """Append the findings of the phases and of the training steps to `res.findings`."""
    for phase in res.phases:
        res.findings += _phase_findings(phase, models)
        res.findings += _mindspore_findings(phase, models)
    if res.train is not None and not res.train.passed:
        res.findings.append(_training_finding(res.train, models))


def _phase_findings(phase, models) -> list:
    f = phase.first_local_failure
    hint = layer_hint(models.torch_module, models.ms_cell, f.path) if f is not None else ""
    if phase.ms_error is not None:
        return [_raise_finding(phase, f, hint, models)]
    out = []
    if f is not None:
        out.append(_layer_finding(phase, f, hint))
    elif phase.outputs is not None and not phase.outputs.passed:
        out.append(_drift_finding(phase))
    bad = [g for g in phase.gradients if not g.stats.passed]
    if bad and f is None:
        out.append(_gradient_finding(phase, bad, models))
    if phase.draw_notes:
        for finding in out:
            finding.message += (f"; the torch model draws random numbers outside dropout "
                                f"({phase.random_draws}) that the converted model did not all "
                                f"take the same way ({'; '.join(phase.draw_notes[:2])}), so in "
                                f"{phase.mode} mode the two sides use different ones")
    return out


def _raise_finding(phase, f, hint, models) -> Finding:
    """The converted model raises: name the first layer that fails on torch's inputs."""
    where = f.name if f is not None else ROOT
    detail = (f"; the first layer that fails on torch's inputs is '{f.name}' "
              f"({f.torch_type} -> {f.ms_type}): {f.note or 'its output differs'}"
              + (f"; likely cause: {hint}" if hint else "")
              if f is not None
              else "; every layer runs on torch's inputs, so the failure is in how the "
                   "model connects them")
    sources = (f.torch_source, f.ms_source) if f is not None else models.sources("")
    return Finding(phase.mode, where, f"the converted model raises in {phase.mode} mode: "
                                      f"{phase.ms_error}{detail}", *sources)


def _layer_finding(phase, f, hint) -> Finding:
    """The first layer whose own output (fed torch's inputs) differs."""
    st = f.local
    detail = f.note or (f"own error max abs {st.max_abs:.3g}, max rel {st.max_rel:.3g} "
                        f"(worst at {st.worst_index}: torch {st.worst_torch:.6g}, ms "
                        f"{st.worst_ms:.6g})" if st is not None else "")
    return Finding(phase.mode, f.name,
                   f"first layer whose own output differs in {phase.mode} mode ({f.torch_type} "
                   f"-> {f.ms_type}): {detail}" + (f"; likely cause: {hint}" if hint else ""),
                   f.torch_source, f.ms_source)


def _drift_finding(phase) -> Finding:
    """Outputs differ although no layer does on its own: accumulated error."""
    d = phase.first_drift
    where = d.name if d is not None else ROOT
    return Finding(phase.mode, where,
                   f"outputs differ in {phase.mode} mode (max abs {phase.outputs.max_abs:.3g}) "
                   f"but no single layer exceeds the tolerance on its own: accumulated error, "
                   f"first over tolerance at '{where}'",
                   d.torch_source if d else "", d.ms_source if d else "")


def _gradient_finding(phase, bad, models) -> Finding:
    """Gradients differ while the forward agrees: the layer whose own backward differs, else
    the most downstream parameter whose gradient differs (the nearest to the fault)."""
    lg = phase.local_grad_culprit
    if lg is not None:
        p, what = lg
        return Finding("gradient", p or ROOT,
                       f"first layer whose own backward differs (fed torch's inputs and the same "
                       f"cotangent): {what}; {len(bad)} model gradient(s) out of tolerance, e.g. "
                       f"'{bad[-1].name}' (max abs {bad[-1].stats.max_abs:.3g})",
                       *models.sources(p))
    params = [b for b in bad if not b.name.startswith("input")]
    g = params[-1] if params else bad[0]
    p = layer_path(g.name) if not g.name.startswith("input") else ""
    return Finding("gradient", g.layer,
                   f"gradient of '{g.name}' differs (max abs {g.stats.max_abs:.3g}, cosine "
                   f"{g.stats.cosine:.4f}); {len(bad)} gradient(s) out of tolerance",
                   *models.sources(p))


def _training_finding(tr, models) -> Finding:
    """The first parameter (or buffer) that differs after the training steps."""
    name = tr.first_bad_param or next((p.name for p in tr.params if not p.stats.passed), None)
    if name is None:
        msg = (f"the loss curves differ (max abs {tr.loss_stats.max_abs:.3g}) while every "
               f"parameter agrees")
        layer = ROOT
    else:
        st = next(p.stats for p in tr.params if p.name == name)
        step = f" first after step {tr.first_bad_step}" if tr.first_bad_step else ""
        msg = (f"'{name}' differs after {tr.steps} {tr.optimizer} step(s){step} (max abs "
               f"{st.max_abs:.3g}, max rel {st.max_rel:.3g})")
        layer = layer_of(name)
        if name.rsplit(".", 1)[-1] in ("running_mean", "running_var"):
            msg += "; " + tr.hints.get(layer, "BatchNorm moving statistics: is momentum "
                                              "converted (ms = 1 - torch)?")
    return Finding("training-steps", layer, msg, *models.sources("" if layer == ROOT else layer))


def _mindspore_findings(phase, models) -> list:
    """Real MindSpore (--ms-python) differs from torch: where first (execution order)."""
    if phase.mindspore_error:
        where = phase.mindspore_failed_at or ROOT
        row = next((r for r in phase.layers if r.name == where), None)
        at = f" in '{where}' (the first layer it does not finish)" if row is not None else ""
        sources = (row.torch_source, row.ms_source) if row is not None else models.sources("")
        return [Finding("mindspore", where, f"the MindSpore conversion raises in {phase.mode} "
                                            f"mode{at}: {phase.mindspore_error}", *sources)]
    rows = [r for r in phase.layers if r.mindspore is not None and not r.mindspore.passed]
    outputs = phase.mindspore_outputs
    grads = [g for g in phase.gradients if g.mindspore is not None and not g.mindspore.passed]
    if rows:
        r = min(rows, key=lambda row: row.order)
        st = r.mindspore
        agrees = "ms_core agrees" if r.output is None or r.output.passed else \
            "ms_core differs too"
        return [Finding("mindspore", r.name,
                        f"first layer whose MindSpore output differs from torch's in {phase.mode}"
                        f" mode ({r.torch_type} -> {r.ms_type}; {agrees}): max abs "
                        f"{st.max_abs:.3g}, max rel {st.max_rel:.3g}, cosine {st.cosine:.4f}",
                        r.torch_source, r.ms_source)]
    if outputs is not None and not outputs.passed:
        return [Finding("mindspore", ROOT, f"MindSpore's outputs differ from torch's in "
                                           f"{phase.mode} mode (max abs {outputs.max_abs:.3g})",
                        *models.sources(""))]
    if grads:
        g = ([b for b in grads if not b.name.startswith("input")] or grads)[-1]
        return [Finding("mindspore", g.layer,
                        f"MindSpore's gradient of '{g.name}' differs from torch's (max abs "
                        f"{g.mindspore.max_abs:.3g}, cosine {g.mindspore.cosine:.4f}); "
                        f"{len(grads)} gradient(s) out of tolerance",
                        *models.sources(layer_path(g.name) if g.layer != "input" else ""))]
    return []
