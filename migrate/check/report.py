"""Reports of a :class:`~migrate.check.result.CheckResult`: rich terminal tables, Markdown, HTML
(JSON is :meth:`CheckResult.to_json`).

What a report shows is built once, as :class:`Sections` (every table's columns, cells and row
statuses, every headline's numbers, formatted): :func:`sections`. Three thin renderers lay the
sections out, each in its own format: :func:`print_terminal`, :func:`markdown`, :func:`html`.
The HTML report is one self-contained file: inline CSS, the tables, and inline SVG figures
(:mod:`migrate.check.figures`): error along depth per mode, gradient error per parameter, the
loss curves. No scripts, no network.
"""
from __future__ import annotations

import html as _html
import math
import os
import tempfile
from dataclasses import dataclass, field

from .figures import depth_plot_svg, gradient_plot_svg, loss_plot_svg

ROW_COLUMNS = ["layer", "type", "shape", "torch mean/std", "ms mean/std", "max abs", "max rel",
               "cosine", "local err", "status"]
STATS_COLUMNS = ["tensor", "shape", "max abs", "max rel", "mean abs", "cosine", "min rtol",
                 "min atol", "status"]
LOCAL_GRAD_COLUMNS = ["layer", "tensor", "max abs", "cosine", "status"]
LOSS_COLUMNS = ["step", "torch loss", "ms loss", "abs diff"]
WEIGHT_COLUMNS = ["torch", "ms", "shape", "action", "note"]
INIT_COLUMNS = ["parameter", "D", "p", "torch mean/std", "ms mean/std", "verdict"]


# --- numbers and cells ----------------------------------------------------------------------------

def _f(v, digits=3) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-3:
        return f"{v:.{digits - 1}e}"
    return f"{v:.{digits}g}"


def _cos(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.6f}"


def verdict(result) -> str:
    """The one-line outcome: PASS, MISMATCH and the first finding, or why it could not run."""
    if result.error:
        return f"could not run: {result.error}"
    if result.passed:
        return "PASS: every comparison is within tolerance"
    return f"MISMATCH: {result.culprit}"


def layer_cells(row, with_noise=False) -> list[str]:
    """The table cells of one layer row (shared by all formats)."""
    o = row.output
    type_ = row.torch_type if row.torch_type == row.ms_type else f"{row.torch_type}→{row.ms_type}"
    local = "raised" if row.status == "error" else \
        ("-" if row.local is None else _f(row.local.max_abs))
    cells = [row.name, type_,
             "×".join(str(s) for s in o.shape) if o is not None else "-",
             f"{_f(o.torch_mean)} / {_f(o.torch_std)}" if o is not None else "-",
             f"{_f(o.ms_mean)} / {_f(o.ms_std)}" if o is not None else "-",
             _f(o.max_abs) if o is not None else "-",
             _f(o.max_rel) if o is not None else "-",
             _cos(o.cosine) if o is not None else "-",
             local, row.status]
    if with_noise:
        cells.insert(-1, _f(row.noise.max_abs) if row.noise is not None else "-")
    return cells


def _stats_cells(name, ms_name, st, noise=None, with_noise=False):
    n = name if ms_name in (None, name) else f"{name} → {ms_name}"
    cells = [n, "×".join(str(s) for s in st.shape) or "scalar", _f(st.max_abs), _f(st.max_rel),
             _f(st.mean_abs), _cos(st.cosine), _f(st.min_rtol), _f(st.min_atol), _word(st)]
    if with_noise:
        cells.insert(-1, _f(noise.max_abs) if noise is not None else "-")
    if st.note:
        cells[-1] += f" ({st.note})"
    return cells


def _word(st) -> str:
    """'pass', 'noise' (beyond the tolerance, explained by float32 rounding) or 'FAIL'."""
    return "FAIL" if not st.passed else ("noise" if st.explained else "pass")


def _with_mindspore(table, stats):
    """Append real MindSpore's columns (``--ms-python``: its max abs error against torch and its
    verdict) to a table whose rows compare torch with ms_core, when any row has MindSpore's."""
    if all(st is None for st in stats):
        return table
    columns = list(table.columns) + ["MindSpore max abs", "MindSpore"]
    rows = [list(cells) + ([_f(st.max_abs), _word(st)] if st is not None else ["-", "-"])
            for cells, st in zip(table.rows, stats)]
    status = ["FAIL" if st is not None and not st.passed and old in ("", "pass") else old
              for old, st in zip(table.status, stats)]
    return Table(columns, rows, status)


def _with_noise(columns, with_noise):
    cols = list(columns)
    if with_noise:
        cols.insert(-1, "fp32 noise")
    return cols


# --- sections: what every format shows, built once ------------------------------------------------

@dataclass
class Table:
    """Column names, rows of cell texts, and each row's status: '' or 'pass' (fine), 'FAIL',
    'error', 'drift', 'missing', or 'first' (the first divergence)."""

    columns: list
    rows: list
    status: list


@dataclass
class Outcome:
    """One comparison's headline numbers, formatted, and its verdict."""

    max_abs: str
    max_rel: str
    cosine: str
    passed: bool
    explained: str = ""
    note: str = ""

    @property
    def word(self) -> str:
        return "FAIL" if not self.passed else ("noise" if self.explained else "pass")


@dataclass
class PhaseSection:
    """One mode: outputs, the layer table, gradients, each layer's own backward, notes."""

    mode: str
    outputs: Outcome | None
    first: object  # the LayerRow of the first divergence, or None
    layers: Table
    sources: list  # per layer row: [ms source, torch source, note]
    gradients: Table | None
    losses: tuple  # (torch loss, ms loss), formatted
    local_grads: Table | None
    notes: list
    phase: object  # the PhaseResult (the HTML plots it)
    mindspore: Outcome | None = None  # real MindSpore's outputs vs torch's (--ms-python)
    mindspore_error: str | None = None  # real MindSpore raised in this mode


@dataclass
class TrainingSection:
    """The training steps: loss curves, inference after training, parameters, notes."""

    title: str
    losses: Table
    eval_outputs: Outcome | None
    params: Table
    notes: list
    train: object  # the TrainResult (the HTML plots it)


@dataclass
class WeightsSection:
    """The weight map: a one-line summary, its problems and notes, every tensor's row."""

    summary: str
    ok: bool
    problems: list
    notes: list
    table: Table


@dataclass
class Sections:
    """Everything a report shows, in the order of the Markdown report."""

    verdict: str
    passed: bool
    error: str | None
    settings: dict
    settings_line: str
    findings: list
    weights: WeightsSection | None = None
    init: Table | None = None
    phases: list = field(default_factory=list)
    training: TrainingSection | None = None


def sections(result) -> Sections:
    """Build the report's sections from a result."""
    s = result.settings
    out = Sections(verdict(result), result.passed, result.error, s,
                   f"rtol={s.get('rtol')}, atol={s.get('atol')}, mode={s.get('mode')}, "
                   f"train_steps={s.get('train_steps')}, optimizer={s.get('optimizer')}, "
                   f"seed={s.get('seed')}", list(result.findings))
    if result.transfer is not None:
        out.weights = _weights_section(result.transfer)
    if result.init:
        out.init = Table(INIT_COLUMNS, [
            [r.name, f"{r.ks.statistic:.3f}", f"{r.ks.pvalue:.2g}",
             f"{_f(r.ks.torch_mean)} / {_f(r.ks.torch_std)}",
             f"{_f(r.ks.ms_mean)} / {_f(r.ks.ms_std)}", "DIFFERS" if r.ks.differs else "same"]
            for r in result.init], ["FAIL" if r.ks.differs else "" for r in result.init])
    out.phases = [_phase_section(p) for p in result.phases]
    if result.train is not None:
        out.training = _training_section(result.train)
    return out


def _row_status(st) -> str:
    return "" if st.passed and not st.explained else _word(st)


def _outcome(st) -> Outcome:
    return Outcome(_f(st.max_abs), _f(st.max_rel), _cos(st.cosine), st.passed, st.explained,
                   st.note if st.explained else "")


def _weights_section(tr) -> WeightsSection:
    n = sum(1 for e in tr.entries if e.ms_name is not None)
    rows = [[e.torch_name, e.ms_name or "-", "×".join(map(str, e.shape)), e.action, e.note]
            for e in tr.entries]
    rows += [["-", n_, "", "unmapped", "received no torch value"] for n_ in tr.unmapped_ms]
    return WeightsSection(f"weights: {n} tensors mapped, {len(tr.unmapped_torch)} torch and "
                          f"{len(tr.unmapped_ms)} ms unmapped", tr.ok, tr.problems(),
                          list(tr.notes), Table(WEIGHT_COLUMNS, rows, [
                              "FAIL" if r[3] in ("unmapped", "shape-mismatch") else ""
                              for r in rows]))


def _phase_section(phase) -> PhaseSection:
    noise = any(r.noise is not None for r in phase.layers)
    first = phase.first_local_failure
    layers = Table(_with_noise(ROW_COLUMNS, noise), [layer_cells(r, noise) for r in phase.layers],
                   ["first" if r is first else r.status for r in phase.layers])
    layers = _with_mindspore(layers, [r.mindspore for r in phase.layers])
    gradients = None
    if phase.gradients:
        gn = any(g.noise is not None for g in phase.gradients)
        gradients = Table(_with_noise(STATS_COLUMNS, gn),
                          [_stats_cells(g.name, g.ms_name, g.stats, g.noise, gn)
                           for g in phase.gradients],
                          [_row_status(g.stats) for g in phase.gradients])
        gradients = _with_mindspore(gradients, [g.mindspore for g in phase.gradients])
    local_grads = None
    if phase.local_grads:
        rows = []
        for r in phase.local_grads:
            if r.error:
                rows.append((r.layer, r.error, None))
            rows += [(r.layer, name, st) for name, st in r.stats.items()]
        local_grads = Table(LOCAL_GRAD_COLUMNS, [
            [layer, name, _f(st.max_abs) if st else "-", _cos(st.cosine) if st else "-",
             "pass" if st is not None and st.passed else "FAIL"] for layer, name, st in rows],
            ["" if st is not None and st.passed else "FAIL" for _, _, st in rows])
    return PhaseSection(phase.mode, _outcome(phase.outputs) if phase.outputs is not None else None,
                        first, layers, [[r.ms_source, r.torch_source, r.note]
                                        for r in phase.layers],
                        gradients, (_f(phase.torch_loss, 6), _f(phase.ms_loss, 6)), local_grads,
                        list(phase.notes), phase,
                        _outcome(phase.mindspore_outputs) if phase.mindspore_outputs is not None else None,
                        phase.mindspore_error)


def _training_section(trn) -> TrainingSection:
    losses = [[str(i + 1), f"{a:.7g}", f"{b:.7g}", _f(abs(a - b))]
              for i, (a, b) in enumerate(zip(trn.torch_losses, trn.ms_losses))]
    return TrainingSection(
        f"{trn.steps} {trn.optimizer} step(s), lr={trn.lr}",
        Table(LOSS_COLUMNS, losses, [""] * len(losses)),
        _outcome(trn.eval_outputs) if trn.eval_outputs is not None else None,
        Table(STATS_COLUMNS, [_stats_cells(p.name, p.ms_name, p.stats) for p in trn.params],
              [_row_status(p.stats) for p in trn.params]),
        list(trn.notes), trn)


# --- terminal -------------------------------------------------------------------------------------

_TERMINAL_STYLE = {"first": "bold white on red", "FAIL": "red", "error": "red", "drift": "yellow",
                   "missing": "dim", "noise": "cyan"}


def print_terminal(result, console=None) -> None:
    """Print the side-by-side tables with rich; the first divergence is highlighted."""
    from rich.console import Console
    from rich.markup import escape as esc
    if console is None:  # a pipe or a file gets a wide table, not 80 columns of ellipses
        import sys
        console = Console(highlight=False, width=None if sys.stdout.isatty() else 180)
    rep = sections(result)
    s = rep.settings
    console.print(f"[bold]migrate check[/bold]  rtol={s.get('rtol')} atol={s.get('atol')} "
                  f"mode={s.get('mode')} train_steps={s.get('train_steps')} seed={s.get('seed')}")
    if rep.error:
        console.print(f"[bold red]could not run:[/bold red] {esc(rep.error)}")
        return
    if rep.weights is not None:
        _terminal_weights(console, rep.weights, esc)
    if rep.init is not None:
        _terminal_init(console, rep.init, esc)
    for ph in rep.phases:
        _terminal_phase(console, ph, esc)
    if rep.training is not None:
        _terminal_training(console, rep.training, esc)
    style = "bold green" if rep.passed else "bold red"
    console.print(f"[{style}]{esc(rep.verdict)}[/{style}]")
    for f in rep.findings[1:]:
        console.print(f"  [red]also: {esc(str(f))}[/red]")


def _rich_table(table, title, rows=None):
    """A rich Table of `table` (its `rows`, or these), each row styled by its status."""
    from rich.markup import escape as esc
    from rich.table import Table as RichTable
    t = RichTable(*table.columns, title=title)
    for cells, status in zip(rows if rows is not None else table.rows, table.status):
        t.add_row(*[esc(c) for c in cells], style=_TERMINAL_STYLE.get(status))
    return t


def _terminal_weights(console, w, esc):
    style = "green" if w.ok else "red"
    console.print(f"[{style}]{w.summary}[/{style}]")
    for line in w.problems:
        console.print(f"  [red]{esc(line)}[/red]")
    for note in w.notes:
        console.print(f"  [dim]{esc(note)}[/dim]")


def _terminal_init(console, init, esc):
    bad = [row[:-1] for row, status in zip(init.rows, init.status) if status == "FAIL"]
    style = "red" if bad else "green"
    console.print(f"[{style}]initialization (KS test): {len(bad)} of {len(init.rows)} "
                  f"parameters differ in distribution[/{style}]")
    if bad:
        columns = ["parameter", "KS D", "p-value", "torch mean/std", "ms mean/std"]
        console.print(_rich_table(Table(columns, bad, [""] * len(bad)),
                                  "initial values that differ"))


def _terminal_phase(console, ph, esc):
    if ph.layers.rows:
        rows = [["► " + cells[0]] + cells[1:] if status == "first" else cells  # seen without colour
                for cells, status in zip(ph.layers.rows, ph.layers.status)]
        console.print(_rich_table(ph.layers, f"{ph.mode} mode: outputs per layer "
                                             f"(execution order)", rows=rows))
    o = ph.outputs
    if o is not None:
        style = "green" if o.passed else "red"
        console.print(f"[{style}]{ph.mode} outputs: max abs {o.max_abs}, max rel {o.max_rel}, "
                      f"cosine {o.cosine} -> {o.word}[/{style}]"
                      + (f" [dim]({esc(o.note)})[/dim]" if o.note else ""))
    for line, ok in _mindspore_lines(ph):
        style = "green" if ok else "red"
        console.print(f"[{style}]{esc(line)}[/{style}]")
    first = ph.first
    if first is not None:
        console.print(f"[bold red]first divergence: {esc(first.name)}[/bold red] "
                      + esc(f"({first.ms_source or '?'}; torch {first.torch_source or '?'})"
                            + (f": {first.note}" if first.note else "")))
    if ph.gradients is not None:
        console.print(_rich_table(ph.gradients, f"{ph.mode} mode: gradients of the loss "
                                                f"(torch {ph.losses[0]}, ms {ph.losses[1]})"))
    if ph.local_grads is not None:
        console.print(_rich_table(ph.local_grads, f"{ph.mode} mode: each layer's own backward "
                                                  f"(torch's inputs)"))
    for note in ph.notes:
        console.print(f"  [dim]{esc(note)}[/dim]")


def _terminal_training(console, trn, esc):
    console.print(_rich_table(trn.losses, f"training: {trn.title}"))
    e = trn.eval_outputs
    if e is not None:
        style = "green" if e.passed else "red"
        console.print(f"[{style}]inference outputs after training: max abs {e.max_abs}, "
                      f"cosine {e.cosine} -> {e.word}[/{style}]")
    console.print(_rich_table(trn.params, "parameters and buffers after training"))
    for note in trn.notes:
        console.print(f"  [dim]{esc(note)}[/dim]")


# --- Markdown -------------------------------------------------------------------------------------

def _md_table(columns, rows) -> str:
    def esc(c):
        return str(c).replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _md_notes(notes, prefix="- ") -> list:
    return [f"{prefix}{n}" for n in notes] + ([""] if notes else [])


def markdown(result) -> str:
    """The report as Markdown (tables per mode, gradients, training, weights, findings)."""
    rep = sections(result)
    s = rep.settings
    lines = ["# migrate check report", "", f"**{rep.verdict}**", "", rep.settings_line, ""]
    if s.get("model"):
        lines += [f"Model `{s['model']}` from `{s.get('path')}`, inputs "
                  f"{', '.join(s.get('input_shapes') or [])}.", ""]
    lines += _md_notes(s.get("notes") or [], "- note: ")
    if rep.findings:
        lines += ["## Findings", ""]
        lines += [f"{i + 1}. **{f.kind}** `{f.layer}`"
                  + (f" (ms `{f.ms_source}`, torch `{f.torch_source}`)" if f.ms_source else "")
                  + f": {f.message}" for i, f in enumerate(rep.findings)]
        lines.append("")
    if rep.weights is not None:
        lines += ["## Weights", "", _md_table(rep.weights.table.columns, rep.weights.table.rows),
                  ""]
    if rep.init is not None:
        lines += ["## Initialization (two-sample Kolmogorov–Smirnov)", "",
                  _md_table(rep.init.columns, rep.init.rows), ""]
    for ph in rep.phases:
        lines += _md_phase(ph)
    if rep.training is not None:
        lines += _md_training(rep.training)
    return "\n".join(lines)


def _mindspore_lines(ph) -> list:
    """The headline of real MindSpore's side of a mode: (text, passed) lines, none without it."""
    if ph.mindspore_error is not None:
        return [(f"{ph.mode} outputs on MindSpore: the --target mindspore conversion raises: "
                 f"{ph.mindspore_error}", False)]
    m = ph.mindspore
    if m is None:
        return []
    return [(f"{ph.mode} outputs on MindSpore: max abs {m.max_abs}, max rel {m.max_rel}, "
             f"cosine {m.cosine} -> {m.word}" + (f" ({m.note})" if m.note else ""), m.passed)]


def _md_phase(ph) -> list:
    lines = [f"## {ph.mode} mode", ""]
    o = ph.outputs
    if o is not None:
        lines += [f"Outputs: max abs {o.max_abs}, max rel {o.max_rel}, cosine {o.cosine}: "
                  f"**{o.word}**" + (f" ({o.note})" if o.note else ""), ""]
    for line, _ in _mindspore_lines(ph):
        lines += [line, ""]
    first = ph.first
    if first is not None:
        lines += [f"**First divergence: `{first.name}`** ({first.ms_source}; torch "
                  f"{first.torch_source})" + (f": {first.note}" if first.note else ""), ""]
    if ph.layers.rows:
        rows = [[f"**{c}**" for c in cells] if status == "first" else cells
                for cells, status in zip(ph.layers.rows, ph.layers.status)]
        lines += [_md_table(ph.layers.columns, rows), ""]
    if ph.gradients is not None:
        lines += [f"### Gradients (loss: torch {ph.losses[0]}, ms {ph.losses[1]})", "",
                  _md_table(ph.gradients.columns, ph.gradients.rows), ""]
    if ph.local_grads is not None:
        lines += ["### Each layer's own backward (fed torch's inputs)", "",
                  _md_table(ph.local_grads.columns, ph.local_grads.rows), ""]
    return lines + _md_notes(ph.notes)


def _md_training(trn) -> list:
    lines = [f"## Training: {trn.title}", "", _md_table(trn.losses.columns, trn.losses.rows), ""]
    e = trn.eval_outputs
    if e is not None:
        lines += [f"Inference outputs after training: max abs {e.max_abs}, cosine {e.cosine}: "
                  f"**{e.word}**", ""]
    lines += [_md_table(trn.params.columns, trn.params.rows), ""]
    return lines + [f"- {n}" for n in trn.notes] + [""]


# --- HTML -----------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f0f0f0} td:first-child,td:nth-child(2){text-align:left;font-family:monospace}
tr.FAIL td,tr.error td{background:#fde2e2} tr.drift td{background:#fff6d5}
tr.first td{background:#e53935;color:#fff;font-weight:bold} tr.missing td{color:#999}
tr.noise td{background:#e8f4fd}
.pass{color:#2e7d32} .fail{color:#c62828} .note{color:#666;font-size:12px}
svg{background:#fafafa;border:1px solid #ddd} figure{margin:1em 0} figcaption{max-width:760px}
"""


def _h(x) -> str:
    return _html.escape(str(x))


def _html_table(table, columns=None, rows=None, classes=None) -> str:
    columns = columns or table.columns
    rows = rows if rows is not None else table.rows
    classes = classes if classes is not None else table.status
    out = ["<table><tr>" + "".join(f"<th>{_h(c)}</th>" for c in columns) + "</tr>"]
    for r, status in zip(rows, classes):
        cls = f' class="{status}"' if status else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{_h(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _html_outcome(label, o, with_rel=True) -> str:
    rel = f", max rel {_h(o.max_rel)}" if with_rel else ""
    note = f" <span class='note'>({_h(o.note)})</span>" if o.note else ""
    return (f"<p>{label}: max abs {_h(o.max_abs)}{rel}, cosine {_h(o.cosine)}: "
            f"<b class='{'pass' if o.passed else 'fail'}'>{o.word}</b>{note}</p>")


def html(result) -> str:
    """One self-contained HTML page: verdict, findings, tables and error-vs-depth plots."""
    rep = sections(result)
    body = ["<h1>migrate check report</h1>",
            f'<p class="{"pass" if rep.passed else "fail"}"><b>{_h(rep.verdict)}</b></p>',
            f"<p class='note'>{_h(rep.settings_line)}</p>"]
    if rep.findings:
        body.append("<h2>Findings</h2><ol>")
        for f in rep.findings:
            src = f" <span class='note'>(ms {_h(f.ms_source)}, torch {_h(f.torch_source)})</span>" \
                if f.ms_source else ""
            body.append(f"<li><b>{_h(f.kind)}</b> <code>{_h(f.layer)}</code>{src}: "
                        f"{_h(f.message)}</li>")
        body.append("</ol>")
    for ph in rep.phases:
        body += _html_phase(ph, rep.settings.get("atol", 1e-5))
    if rep.training is not None:
        body += _html_training(rep.training)
    if rep.weights is not None:
        body += ["<h2>Weights</h2>", _html_table(rep.weights.table)]
    if rep.init is not None:
        body += ["<h2>Initialization (two-sample Kolmogorov–Smirnov)</h2>",
                 _html_table(rep.init)]
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<title>migrate check report</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _html_phase(ph, atol) -> list:
    body = [f"<h2>{_h(ph.mode)} mode</h2>"]
    if ph.outputs is not None:
        body.append(_html_outcome("Outputs", ph.outputs))
    if ph.mindspore is not None:
        body.append(_html_outcome("Outputs on MindSpore", ph.mindspore))
    if ph.mindspore_error is not None:
        body.append(f"<p class=\"fail\">The --target mindspore conversion raises: {_h(ph.mindspore_error)}</p>")
    body.append(_figure(depth_plot_svg(ph.phase, atol), f"depth-{ph.mode}",
                        "Error along depth: the line is each layer call's accumulated error (the "
                        "converted model run on its own), the dots its local error (the layer fed "
                        "torch's inputs, computed where the accumulated error exceeds the "
                        "tolerance, or everywhere with --local all). A dot high on the line is "
                        "the layer that adds the error; a low dot under a high line is error "
                        "carried from earlier layers."))
    if ph.layers.rows:
        body.append(_html_table(ph.layers, ph.layers.columns + ["ms source", "torch source", "note"],
                                [cells + extra for cells, extra in zip(ph.layers.rows, ph.sources)]))
    if ph.gradients is not None:
        body.append(f"<h3>Gradients (loss: torch {_h(ph.losses[0])}, ms {_h(ph.losses[1])})</h3>")
        body.append(_figure(gradient_plot_svg(ph.phase, atol), f"gradients-{ph.mode}",
                            "Gradient error per parameter, in model order: green within the "
                            "tolerance, orange float32 noise (no farther from torch than torch "
                            "float32 is from a float64 run), red a mismatch."))
        body.append(_html_table(ph.gradients))
    if ph.local_grads is not None:
        body.append("<h3>Each layer's own backward (fed torch's inputs)</h3>")
        body.append(_html_table(ph.local_grads))
    return body + [f"<p class='note'>{_h(n)}</p>" for n in ph.notes]


def _figure(svg: str, ident: str, caption: str) -> str:
    if not svg:
        return ""
    return (f"<figure id='{_h(ident)}'>{svg}<figcaption class='note'>{_h(caption)}"
            f"</figcaption></figure>")


def _html_training(trn) -> list:
    body = [f"<h2>Training: {_h(trn.title)}</h2>",
            _figure(loss_plot_svg(trn.train), "losses",
                    "Loss per training step: torch (solid) and the converted model (dashed) "
                    "on the left, their absolute difference on a log scale on the right."),
            _html_table(trn.losses)]
    if trn.eval_outputs is not None:
        body.append(_html_outcome("Inference outputs after training", trn.eval_outputs,
                                  with_rel=False))
    body.append(_html_table(trn.params))
    return body + [f"<p class='note'>{_h(n)}</p>" for n in trn.notes]


# --- files ----------------------------------------------------------------------------------------

def render(result, path: str) -> str:
    """The report text for `path`'s extension (.md, .json, .html/.htm)."""
    ext = os.path.splitext(path)[1].lower()
    if ext in (".md", ".markdown"):
        return markdown(result)
    if ext == ".json":
        return result.to_json()
    if ext in (".html", ".htm"):
        return html(result)
    raise ValueError(f"unknown report format '{ext}': use .md, .json or .html")


def write_report(result, path: str) -> None:
    """Render fully, then write atomically: a failure never leaves a half-written report."""
    text = render(result, path)
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".report-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
