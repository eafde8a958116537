"""Reports of a :class:`migrate.check.CheckResult`: rich terminal tables, Markdown, JSON, HTML.

The HTML report is one self-contained file: inline CSS, the tables, and an inline SVG plot of
error against depth (execution order) per mode. No scripts, no network.
"""
from __future__ import annotations

import html as _html
import math
import os
import tempfile

ROW_COLUMNS = ["layer", "type", "shape", "torch mean/std", "ms mean/std", "max abs", "max rel",
               "cosine", "local err", "status"]


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


def _local(row) -> str:
    if row.status == "error":
        return "raised"
    if row.local is None:
        return "-"
    return _f(row.local.max_abs)


def layer_cells(row, with_noise=False) -> list[str]:
    """The table cells of one layer row (shared by all formats)."""
    o = row.output
    type_ = row.torch_type if row.torch_type == row.ms_type else f"{row.torch_type}→{row.ms_type}"
    cells = [row.name, type_,
             "×".join(str(s) for s in o.shape) if o is not None else "-",
             f"{_f(o.torch_mean)} / {_f(o.torch_std)}" if o is not None else "-",
             f"{_f(o.ms_mean)} / {_f(o.ms_std)}" if o is not None else "-",
             _f(o.max_abs) if o is not None else "-",
             _f(o.max_rel) if o is not None else "-",
             _cos(o.cosine) if o is not None else "-",
             _local(row), row.status]
    if with_noise:
        cells.insert(-1, _f(row.noise.max_abs) if row.noise is not None else "-")
    return cells


def _columns(with_noise):
    cols = list(ROW_COLUMNS)
    if with_noise:
        cols.insert(-1, "fp32 noise")
    return cols


def _stats_cells(name, ms_name, st, noise=None, with_noise=False):
    n = name if ms_name in (None, name) else f"{name} → {ms_name}"
    cells = [n, "×".join(str(s) for s in st.shape) or "scalar", _f(st.max_abs), _f(st.max_rel),
             _f(st.mean_abs), _cos(st.cosine), _f(st.min_rtol), _f(st.min_atol),
             "pass" if st.passed else "FAIL"]
    if with_noise:
        cells.insert(-1, _f(noise.max_abs) if noise is not None else "-")
    if st.note:
        cells[-1] += f" ({st.note})"
    return cells


STATS_COLUMNS = ["tensor", "shape", "max abs", "max rel", "mean abs", "cosine", "min rtol",
                 "min atol", "status"]


def _stats_columns(with_noise):
    cols = list(STATS_COLUMNS)
    if with_noise:
        cols.insert(-1, "fp32 noise")
    return cols


def verdict(result) -> str:
    """The one-line outcome: PASS, MISMATCH and the first finding, or why it could not run."""
    if result.error:
        return f"could not run: {result.error}"
    if result.passed:
        return "PASS: every comparison is within tolerance"
    return f"MISMATCH: {result.culprit}"


def _local_grad_rows(phase):
    """(layer, tensor, stats or None) for the local-gradient table."""
    for r in phase.local_grads:
        layer = r.key[0] or "(model)"
        if r.error:
            yield layer, r.error, None
        for name, st in r.stats.items():
            yield layer, name, st


# --- terminal -------------------------------------------------------------------------------------

def print_terminal(result, console=None) -> None:
    """Print the side-by-side tables with rich; the first divergence is highlighted."""
    from rich.console import Console
    from rich.markup import escape as esc
    from rich.table import Table
    if console is None:  # a pipe or a file gets a wide table, not 80 columns of ellipses
        import sys
        console = Console(highlight=False, width=None if sys.stdout.isatty() else 180)
    s = result.settings
    console.print(f"[bold]migrate check[/bold]  rtol={s.get('rtol')} atol={s.get('atol')} "
                  f"mode={s.get('mode')} train_steps={s.get('train_steps')} seed={s.get('seed')}")
    if result.error:
        console.print(f"[bold red]could not run:[/bold red] {esc(result.error)}")
        return
    tr = result.transfer
    if tr is not None:
        n = sum(1 for e in tr.entries if e.ms_name is not None)
        style = "green" if tr.ok else "red"
        console.print(f"[{style}]weights: {n} tensors mapped, {len(tr.unmapped_torch)} torch and "
                      f"{len(tr.unmapped_ms)} ms unmapped[/{style}]")
        for line in tr.problems():
            console.print(f"  [red]{esc(line)}[/red]")
        for note in tr.notes:
            console.print(f"  [dim]{esc(note)}[/dim]")
    if result.init:
        bad = [r for r in result.init if r.ks.differs]
        style = "red" if bad else "green"
        console.print(f"[{style}]initialization (KS test): {len(bad)} of {len(result.init)} "
                      f"parameters differ in distribution[/{style}]")
        if bad:
            t = Table("parameter", "KS D", "p-value", "torch mean/std", "ms mean/std",
                      title="initial values that differ")
            for r in bad:
                k = r.ks
                t.add_row(esc(r.name), f"{k.statistic:.3f}", f"{k.pvalue:.2g}",
                          f"{_f(k.torch_mean)} / {_f(k.torch_std)}",
                          f"{_f(k.ms_mean)} / {_f(k.ms_std)}")
            console.print(t)
    for phase in result.phases:
        noise = any(r.noise is not None for r in phase.layers)
        first = phase.first_local_failure
        t = Table(*_columns(noise), title=f"{phase.mode} mode: outputs per layer "
                  f"(execution order)")
        for row in phase.layers:
            style = None
            if first is not None and row is first:
                style = "bold white on red"
            elif row.status in ("FAIL", "error"):
                style = "red"
            elif row.status == "drift":
                style = "yellow"
            elif row.status == "missing":
                style = "dim"
            cells = layer_cells(row, noise)
            if first is not None and row is first:
                cells[0] = "► " + cells[0]  # visible without colour too
            t.add_row(*[esc(c) for c in cells], style=style)
        if phase.layers:
            console.print(t)
        o = phase.outputs
        if o is not None:
            style = "green" if o.passed else "red"
            console.print(f"[{style}]{phase.mode} outputs: max abs {_f(o.max_abs)}, max rel "
                          f"{_f(o.max_rel)}, cosine {_cos(o.cosine)} -> "
                          f"{'pass' if o.passed else 'FAIL'}[/{style}]")
        if first is not None:
            console.print(f"[bold red]first divergence: {esc(first.name)}[/bold red] "
                          + esc(f"({first.ms_source or '?'}; torch {first.torch_source or '?'})"
                                + (f": {first.note}" if first.note else "")))
        if phase.gradients:
            gn = any(g.noise is not None for g in phase.gradients)
            g = Table(*_stats_columns(gn), title=f"{phase.mode} mode: gradients of the loss "
                      f"(torch {_f(phase.torch_loss, 6)}, ms {_f(phase.ms_loss, 6)})")
            for item in phase.gradients:
                cells = _stats_cells(item.name, item.ms_name, item.stats, item.noise, gn)
                g.add_row(*[esc(c) for c in cells],
                          style=None if item.stats.passed else "red")
            console.print(g)
        if phase.local_grads:
            lg = Table("layer", "tensor", "max abs", "cosine", "status",
                       title=f"{phase.mode} mode: each layer's own backward (torch's inputs)")
            for row, name, st in _local_grad_rows(phase):
                lg.add_row(esc(row), esc(name), _f(st.max_abs) if st else "-",
                           _cos(st.cosine) if st else "-",
                           "pass" if st is not None and st.passed else "FAIL",
                           style=None if st is not None and st.passed else "red")
            console.print(lg)
        for note in phase.notes:
            console.print(f"  [dim]{esc(note)}[/dim]")
    trn = result.train
    if trn is not None:
        t = Table("step", "torch loss", "ms loss", "abs diff",
                  title=f"training: {trn.steps} {trn.optimizer} step(s), lr={trn.lr}")
        for i, (a, b) in enumerate(zip(trn.torch_losses, trn.ms_losses)):
            t.add_row(str(i + 1), f"{a:.7g}", f"{b:.7g}", _f(abs(a - b)))
        console.print(t)
        if trn.eval_outputs is not None:
            e = trn.eval_outputs
            style = "green" if e.passed else "red"
            console.print(f"[{style}]inference outputs after training: max abs {_f(e.max_abs)}, "
                          f"cosine {_cos(e.cosine)} -> {'pass' if e.passed else 'FAIL'}[/{style}]")
        p = Table(*_stats_columns(False), title="parameters and buffers after training")
        for item in trn.params:
            p.add_row(*[esc(c) for c in _stats_cells(item.name, item.ms_name, item.stats)],
                      style=None if item.stats.passed else "red")
        console.print(p)
        for note in trn.notes:
            console.print(f"  [dim]{esc(note)}[/dim]")
    style = "bold green" if result.passed else "bold red"
    console.print(f"[{style}]{esc(verdict(result))}[/{style}]")
    for f in result.findings[1:]:
        console.print(f"  [red]also: {esc(str(f))}[/red]")


# --- Markdown -------------------------------------------------------------------------------------

def _md_table(columns, rows) -> str:
    def esc(c):
        return str(c).replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def markdown(result) -> str:
    """The report as Markdown (tables per mode, gradients, training, weights, findings)."""
    s = result.settings
    lines = ["# migrate check report", "",
             f"**{verdict(result)}**", "",
             f"rtol={s.get('rtol')}, atol={s.get('atol')}, mode={s.get('mode')}, "
             f"train_steps={s.get('train_steps')}, optimizer={s.get('optimizer')}, "
             f"seed={s.get('seed')}", ""]
    if s.get("model"):
        lines += [f"Model `{s['model']}` from `{s.get('path')}`, inputs "
                  f"{', '.join(s.get('input_shapes') or [])}.", ""]
    lines += [f"- note: {n}" for n in s.get("notes") or []]
    if s.get("notes"):
        lines.append("")
    if result.findings:
        lines += ["## Findings", ""]
        lines += [f"{i + 1}. **{f.kind}** `{f.layer}`"
                  + (f" (ms `{f.ms_source}`, torch `{f.torch_source}`)" if f.ms_source else "")
                  + f": {f.message}" for i, f in enumerate(result.findings)]
        lines.append("")
    tr = result.transfer
    if tr is not None:
        lines += ["## Weights", ""]
        rows = [[e.torch_name, e.ms_name or "-", "×".join(map(str, e.shape)), e.action, e.note]
                for e in tr.entries]
        rows += [["-", n, "", "unmapped", "received no torch value"] for n in tr.unmapped_ms]
        lines += [_md_table(["torch", "ms", "shape", "action", "note"], rows), ""]
    if result.init:
        lines += ["## Initialization (two-sample Kolmogorov–Smirnov)", ""]
        rows = [[r.name, f"{r.ks.statistic:.3f}", f"{r.ks.pvalue:.2g}",
                 f"{_f(r.ks.torch_mean)} / {_f(r.ks.torch_std)}",
                 f"{_f(r.ks.ms_mean)} / {_f(r.ks.ms_std)}", "DIFFERS" if r.ks.differs else "same"]
                for r in result.init]
        lines += [_md_table(["parameter", "D", "p", "torch mean/std", "ms mean/std", "verdict"],
                            rows), ""]
    for phase in result.phases:
        noise = any(r.noise is not None for r in phase.layers)
        first = phase.first_local_failure
        lines += [f"## {phase.mode} mode", ""]
        if phase.outputs is not None:
            o = phase.outputs
            lines += [f"Outputs: max abs {_f(o.max_abs)}, max rel {_f(o.max_rel)}, cosine "
                      f"{_cos(o.cosine)}: **{'pass' if o.passed else 'FAIL'}**", ""]
        if first is not None:
            lines += [f"**First divergence: `{first.name}`** ({first.ms_source}; torch "
                      f"{first.torch_source})" + (f": {first.note}" if first.note else ""), ""]
        if phase.layers:
            rows = []
            for r in phase.layers:
                cells = layer_cells(r, noise)
                if r is first:
                    cells = [f"**{c}**" for c in cells]
                rows.append(cells)
            lines += [_md_table(_columns(noise), rows), ""]
        if phase.gradients:
            gn = any(g.noise is not None for g in phase.gradients)
            lines += [f"### Gradients (loss: torch {_f(phase.torch_loss, 6)}, ms "
                      f"{_f(phase.ms_loss, 6)})", ""]
            lines += [_md_table(_stats_columns(gn), [_stats_cells(g.name, g.ms_name, g.stats,
                                                                  g.noise, gn)
                                                     for g in phase.gradients]), ""]
        if phase.local_grads:
            lines += ["### Each layer's own backward (fed torch's inputs)", ""]
            lines += [_md_table(["layer", "tensor", "max abs", "cosine", "status"],
                                [[row, name, _f(st.max_abs) if st else "-",
                                  _cos(st.cosine) if st else "-",
                                  "pass" if st is not None and st.passed else "FAIL"]
                                 for row, name, st in _local_grad_rows(phase)]), ""]
        lines += [f"- {n}" for n in phase.notes]
        if phase.notes:
            lines.append("")
    trn = result.train
    if trn is not None:
        lines += [f"## Training: {trn.steps} {trn.optimizer} step(s), lr={trn.lr}", ""]
        lines += [_md_table(["step", "torch loss", "ms loss", "abs diff"],
                            [[str(i + 1), f"{a:.7g}", f"{b:.7g}", _f(abs(a - b))]
                             for i, (a, b) in enumerate(zip(trn.torch_losses, trn.ms_losses))]), ""]
        if trn.eval_outputs is not None:
            e = trn.eval_outputs
            lines += [f"Inference outputs after training: max abs {_f(e.max_abs)}, cosine "
                      f"{_cos(e.cosine)}: **{'pass' if e.passed else 'FAIL'}**", ""]
        lines += [_md_table(_stats_columns(False), [_stats_cells(p.name, p.ms_name, p.stats)
                                                    for p in trn.params]), ""]
        lines += [f"- {n}" for n in trn.notes]
        lines.append("")
    return "\n".join(lines)


# --- HTML -----------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f0f0f0} td:first-child,td:nth-child(2){text-align:left;font-family:monospace}
tr.FAIL td,tr.error td{background:#fde2e2} tr.drift td{background:#fff6d5}
tr.first td{background:#e53935;color:#fff;font-weight:bold} tr.missing td{color:#999}
.pass{color:#2e7d32} .fail{color:#c62828} .note{color:#666;font-size:12px}
svg{background:#fafafa;border:1px solid #ddd}
"""


def _h(x) -> str:
    return _html.escape(str(x))


def _html_table(columns, rows, classes=None) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_h(c)}</th>" for c in columns) + "</tr>"]
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{_h(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def error_plot_svg(phase, atol, width=720, height=260) -> str:
    """An inline SVG: log10 max abs error per layer (execution order) — accumulated and local."""
    rows = [r for r in phase.layers if r.output is not None]
    if not rows:
        return ""
    pad_l, pad_r, pad_t, pad_b = 55, 15, 20, 40

    def lg(v):
        if v is None or not math.isfinite(v):
            return 3.0
        return math.log10(max(v, 1e-12))

    acc = [lg(r.output.max_abs) for r in rows]
    loc = [lg(r.local.max_abs) if r.local is not None else None for r in rows]
    vals = acc + [v for v in loc if v is not None] + [lg(atol)]
    lo, hi = math.floor(min(vals)), math.ceil(max(vals))
    if hi == lo:
        hi = lo + 1
    n = len(rows)

    def x(i):
        return pad_l + (width - pad_l - pad_r) * (i / max(n - 1, 1))

    def y(v):
        return pad_t + (height - pad_t - pad_b) * (hi - v) / (hi - lo)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img">',
             f'<title>{_h(phase.mode)} mode: max abs error per layer</title>']
    for e in range(lo, hi + 1):
        parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y(e):.1f}" y2="{y(e):.1f}" '
                     f'stroke="#e3e3e3"/><text x="{pad_l - 5}" y="{y(e) + 4:.1f}" font-size="10" '
                     f'text-anchor="end">1e{e}</text>')
    ya = y(lg(atol))
    parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{ya:.1f}" y2="{ya:.1f}" '
                 f'stroke="#c62828" stroke-dasharray="4 3"/><text x="{width - pad_r}" '
                 f'y="{ya - 3:.1f}" font-size="10" text-anchor="end" fill="#c62828">atol</text>')
    pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(acc))
    parts.append(f'<polyline fill="none" stroke="#1565c0" stroke-width="1.5" points="{pts}"/>')
    for i, (r, v) in enumerate(zip(rows, loc)):
        if v is not None:
            color = "#c62828" if r.status in ("FAIL", "error") else "#2e7d32"
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{color}">'
                         f'<title>{_h(r.name)}: local {_f(r.local.max_abs)}, accumulated '
                         f'{_f(r.output.max_abs)}</title></circle>')
    parts.append(f'<text x="{(pad_l + width - pad_r) / 2:.0f}" y="{height - 8}" font-size="11" '
                 f'text-anchor="middle">layer (execution order, {n} calls) — line: accumulated '
                 f'error, dots: local error</text>')
    parts.append("</svg>")
    return "".join(parts)


def loss_plot_svg(trn, width=420, height=200) -> str:
    """An inline SVG of the two loss curves over the training steps."""
    tl, ml = trn.torch_losses, trn.ms_losses
    vals = [v for v in tl + ml if math.isfinite(v)]
    if len(tl) < 2 or not vals:
        return ""
    pad_l, pad_r, pad_t, pad_b = 55, 15, 15, 30
    lo, hi = min(vals), max(vals)
    if hi == lo:
        hi = lo + 1.0

    def x(i):
        return pad_l + (width - pad_l - pad_r) * i / (len(tl) - 1)

    def y(v):
        v = v if math.isfinite(v) else hi
        return pad_t + (height - pad_t - pad_b) * (hi - v) / (hi - lo)

    def line(series, color, dash=""):
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(series))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        return f'<polyline fill="none" stroke="{color}" stroke-width="2"{extra} points="{pts}"/>'

    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>loss per step</title>',
        f'<text x="{pad_l - 5}" y="{y(hi) + 4:.1f}" font-size="10" text-anchor="end">'
        f'{_h(_f(hi, 4))}</text>',
        f'<text x="{pad_l - 5}" y="{y(lo) + 4:.1f}" font-size="10" text-anchor="end">'
        f'{_h(_f(lo, 4))}</text>',
        line(tl, "#1565c0"), line(ml, "#ef6c00", "5 4"),
        f'<text x="{(pad_l + width - pad_r) / 2:.0f}" y="{height - 8}" font-size="11" '
        f'text-anchor="middle">step 1..{len(tl)} — solid: torch, dashed: ms</text></svg>'])


def html(result) -> str:
    """One self-contained HTML page: verdict, findings, tables and error-vs-depth plots."""
    s = result.settings
    ok = result.passed
    body = [f"<h1>migrate check report</h1>",
            f'<p class="{"pass" if ok else "fail"}"><b>{_h(verdict(result))}</b></p>',
            f"<p class='note'>rtol={_h(s.get('rtol'))}, atol={_h(s.get('atol'))}, "
            f"mode={_h(s.get('mode'))}, train_steps={_h(s.get('train_steps'))}, "
            f"optimizer={_h(s.get('optimizer'))}, seed={_h(s.get('seed'))}</p>"]
    if result.findings:
        body.append("<h2>Findings</h2><ol>")
        for f in result.findings:
            src = f" <span class='note'>(ms {_h(f.ms_source)}, torch {_h(f.torch_source)})</span>" \
                if f.ms_source else ""
            body.append(f"<li><b>{_h(f.kind)}</b> <code>{_h(f.layer)}</code>{src}: "
                        f"{_h(f.message)}</li>")
        body.append("</ol>")
    for phase in result.phases:
        noise = any(r.noise is not None for r in phase.layers)
        first = phase.first_local_failure
        body.append(f"<h2>{_h(phase.mode)} mode</h2>")
        if phase.outputs is not None:
            o = phase.outputs
            body.append(f"<p>Outputs: max abs {_h(_f(o.max_abs))}, max rel {_h(_f(o.max_rel))}, "
                        f"cosine {_h(_cos(o.cosine))}: <b class='{'pass' if o.passed else 'fail'}'>"
                        f"{'pass' if o.passed else 'FAIL'}</b></p>")
        body.append(error_plot_svg(phase, s.get("atol", 1e-5)))
        if phase.layers:
            classes = ["first" if r is first else r.status for r in phase.layers]
            body.append(_html_table(_columns(noise) + ["ms source", "torch source", "note"],
                                    [layer_cells(r, noise) + [r.ms_source, r.torch_source, r.note]
                                     for r in phase.layers], classes))
        if phase.gradients:
            gn = any(g.noise is not None for g in phase.gradients)
            body.append(f"<h3>Gradients (loss: torch {_h(_f(phase.torch_loss, 6))}, ms "
                        f"{_h(_f(phase.ms_loss, 6))})</h3>")
            body.append(_html_table(_stats_columns(gn), [_stats_cells(g.name, g.ms_name, g.stats,
                                                                      g.noise, gn)
                                                         for g in phase.gradients],
                                    ["" if g.stats.passed else "FAIL" for g in phase.gradients]))
        if phase.local_grads:
            rows = list(_local_grad_rows(phase))
            body.append("<h3>Each layer's own backward (fed torch's inputs)</h3>")
            body.append(_html_table(["layer", "tensor", "max abs", "cosine", "status"],
                                    [[r, n, _f(st.max_abs) if st else "-",
                                      _cos(st.cosine) if st else "-",
                                      "pass" if st is not None and st.passed else "FAIL"]
                                     for r, n, st in rows],
                                    ["" if st is not None and st.passed else "FAIL"
                                     for _, _, st in rows]))
        body += [f"<p class='note'>{_h(n)}</p>" for n in phase.notes]
    trn = result.train
    if trn is not None:
        body.append(f"<h2>Training: {trn.steps} {_h(trn.optimizer)} step(s), lr={_h(trn.lr)}</h2>")
        body.append(loss_plot_svg(trn))
        body.append(_html_table(["step", "torch loss", "ms loss", "abs diff"],
                                [[str(i + 1), f"{a:.7g}", f"{b:.7g}", _f(abs(a - b))]
                                 for i, (a, b) in enumerate(zip(trn.torch_losses, trn.ms_losses))]))
        if trn.eval_outputs is not None:
            e = trn.eval_outputs
            body.append(f"<p>Inference outputs after training: max abs {_h(_f(e.max_abs))}, "
                        f"cosine {_h(_cos(e.cosine))}: <b class='{'pass' if e.passed else 'fail'}'>"
                        f"{'pass' if e.passed else 'FAIL'}</b></p>")
        body.append(_html_table(_stats_columns(False), [_stats_cells(p.name, p.ms_name, p.stats)
                                                        for p in trn.params],
                                ["" if p.stats.passed else "FAIL" for p in trn.params]))
        body += [f"<p class='note'>{_h(n)}</p>" for n in trn.notes]
    tr = result.transfer
    if tr is not None:
        body.append("<h2>Weights</h2>")
        rows = [[e.torch_name, e.ms_name or "-", "×".join(map(str, e.shape)), e.action, e.note]
                for e in tr.entries]
        rows += [["-", n, "", "unmapped", "received no torch value"] for n in tr.unmapped_ms]
        body.append(_html_table(["torch", "ms", "shape", "action", "note"], rows,
                                ["FAIL" if r[3] in ("unmapped", "shape-mismatch") else ""
                                 for r in rows]))
    if result.init:
        body.append("<h2>Initialization (two-sample Kolmogorov–Smirnov)</h2>")
        body.append(_html_table(["parameter", "D", "p", "torch mean/std", "ms mean/std", "verdict"],
                                [[r.name, f"{r.ks.statistic:.3f}", f"{r.ks.pvalue:.2g}",
                                  f"{_f(r.ks.torch_mean)} / {_f(r.ks.torch_std)}",
                                  f"{_f(r.ks.ms_mean)} / {_f(r.ks.ms_std)}",
                                  "DIFFERS" if r.ks.differs else "same"] for r in result.init],
                                ["FAIL" if r.ks.differs else "" for r in result.init]))
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<title>migrate check report</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


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
