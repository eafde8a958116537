"""The HTML report's figures: inline SVG, drawn from a result's numbers (no scripts, no fonts,
no network).

- :func:`depth_plot_svg`: each layer call's error along depth (execution order), accumulated
  (the converted model's own run) as a line and local (the layer fed torch's inputs) as dots.
- :func:`gradient_plot_svg`: each parameter's gradient error, in model order.
- :func:`loss_plot_svg`: the two loss curves beside the per-step difference.

Errors are drawn on a log10 scale; a zero error sits at the bottom (1e-12), a non-finite one
at the top. Every figure is an ``<svg role="img">`` with a ``<title>``; every point carries a
``<title>`` naming its layer or tensor and its numbers (shown on hover).
"""
from __future__ import annotations

import html as _html
import math

FLOOR = 1e-12  # where a zero error is drawn on the log scale
COLORS = {"pass": "#2e7d32", "FAIL": "#c62828", "noise": "#ef6c00", "line": "#1565c0",
          "ms": "#ef6c00", "grid": "#e3e3e3"}


def _h(x) -> str:
    return _html.escape(str(x))


def _fmt(v, digits=3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.{digits}g}"


def _log(v) -> float | None:
    if v is None:
        return None
    if not math.isfinite(v):
        return 3.0
    return math.log10(max(v, FLOOR))


class _Frame:
    """A plot area: `n` positions along x, log10 values from `lo` to `hi` along y."""

    def __init__(self, width, height, n, lo, hi, pad=(55, 15, 20, 40)):
        self.width, self.height, self.n = width, height, n
        self.lo, self.hi = lo, hi if hi > lo else lo + 1
        self.pad_l, self.pad_r, self.pad_t, self.pad_b = pad

    def x(self, i: float) -> float:
        return self.pad_l + (self.width - self.pad_l - self.pad_r) * (i / max(self.n - 1, 1))

    def y(self, v: float) -> float:
        return self.pad_t + (self.height - self.pad_t - self.pad_b) * (self.hi - v) / (self.hi - self.lo)

    def open(self, title: str, kind: str) -> list:
        return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" role="img" '
                f'data-figure="{kind}"><title>{_h(title)}</title>']

    def decades(self) -> list:
        out = []
        for e in range(int(self.lo), int(self.hi) + 1):
            y = self.y(e)
            out.append(f'<line x1="{self.pad_l}" x2="{self.width - self.pad_r}" y1="{y:.1f}" '
                       f'y2="{y:.1f}" stroke="{COLORS["grid"]}"/><text x="{self.pad_l - 5}" '
                       f'y="{y + 4:.1f}" font-size="10" text-anchor="end">1e{e}</text>')
        return out

    def threshold(self, value: float, label: str) -> str:
        y = self.y(_log(value))
        return (f'<line x1="{self.pad_l}" x2="{self.width - self.pad_r}" y1="{y:.1f}" '
                f'y2="{y:.1f}" stroke="{COLORS["FAIL"]}" stroke-dasharray="4 3"/>'
                f'<text x="{self.width - self.pad_r}" y="{y - 3:.1f}" font-size="10" '
                f'text-anchor="end" fill="{COLORS["FAIL"]}">{_h(label)}</text>')

    def caption(self, text: str) -> str:
        return (f'<text x="{(self.pad_l + self.width - self.pad_r) / 2:.0f}" '
                f'y="{self.height - 8}" font-size="11" text-anchor="middle">{_h(text)}</text>')


def _legend(x, y, items) -> str:
    """`items`: (label, color, 'line' | 'dot')."""
    out = []
    for i, (label, color, kind) in enumerate(items):
        yy = y + 13 * i
        mark = (f'<line x1="{x}" x2="{x + 16}" y1="{yy - 4}" y2="{yy - 4}" stroke="{color}" '
                f'stroke-width="2"/>' if kind == "line" else
                f'<circle cx="{x + 8}" cy="{yy - 4}" r="3" fill="{color}"/>')
        out.append(f'{mark}<text x="{x + 20}" y="{yy}" font-size="10">{_h(label)}</text>')
    return "<g class='legend'>" + "".join(out) + "</g>"


def _status(stats) -> str:
    if not stats.passed:
        return "FAIL"
    return "noise" if stats.explained else "pass"


def _bounds(values, atol) -> tuple:
    vals = [v for v in values if v is not None] + [_log(atol)]
    return math.floor(min(vals)), math.ceil(max(vals))


def depth_plot_svg(phase, atol, width=720, height=260) -> str:
    """Each layer call's max abs error along depth: accumulated (line) and local (dots).

    Args:
        phase: a :class:`~migrate.check.result.PhaseResult`.
        atol: the absolute tolerance (drawn as a dashed line).
        width, height: the figure's size in pixels.

    Returns:
        the ``<svg>`` text, or '' when no layer output was compared.

    Example:
        >>> depth_plot_svg(result.phase("eval"), 1e-6)  # doctest: +SKIP
    """
    rows = [r for r in phase.layers if r.output is not None]
    if not rows:
        return ""
    acc = [_log(r.output.max_abs) for r in rows]
    loc = [_log(r.local.max_abs) if r.local is not None else None for r in rows]
    f = _Frame(width, height, len(rows), *_bounds(acc + loc, atol))
    parts = f.open(f"{phase.mode} mode: max abs error per layer along depth", "depth")
    parts += f.decades()
    parts.append(f.threshold(atol, "atol"))
    pts = " ".join(f"{f.x(i):.1f},{f.y(v):.1f}" for i, v in enumerate(acc))
    parts.append(f'<polyline class="accumulated" fill="none" stroke="{COLORS["line"]}" '
                 f'stroke-width="1.5" points="{pts}"/>')
    for i, (r, v) in enumerate(zip(rows, loc)):
        if v is None:
            continue
        color = COLORS["FAIL"] if r.status in ("FAIL", "error") else COLORS["pass"]
        parts.append(f'<circle class="local" cx="{f.x(i):.1f}" cy="{f.y(v):.1f}" r="3" '
                     f'fill="{color}"><title>{_h(r.name)}: local {_fmt(r.local.max_abs)}, '
                     f'accumulated {_fmt(r.output.max_abs)}</title></circle>')
    parts.append(_legend(f.pad_l + 8, f.pad_t + 10, [
        ("accumulated (the converted model's own run)", COLORS["line"], "line"),
        ("local (the layer fed torch's inputs): within tolerance", COLORS["pass"], "dot"),
        ("local: beyond tolerance", COLORS["FAIL"], "dot")]))
    parts.append(f.caption(f"layer calls in execution order ({len(rows)})"))
    return "".join(parts) + "</svg>"


def gradient_plot_svg(phase, atol, width=720, height=240) -> str:
    """Each parameter's gradient max abs error, in model order, coloured by verdict.

    Args:
        phase: a :class:`~migrate.check.result.PhaseResult` with gradients.
        atol: the absolute tolerance (drawn as a dashed line).
        width, height: the figure's size in pixels.

    Returns:
        the ``<svg>`` text, or '' when no gradient was compared.

    Example:
        >>> gradient_plot_svg(result.phase("train"), 1e-6)  # doctest: +SKIP
    """
    grads = [g for g in phase.gradients if g.stats is not None]
    if not grads:
        return ""
    vals = [_log(g.stats.max_abs) for g in grads]
    f = _Frame(width, height, len(grads), *_bounds(vals, atol))
    parts = f.open(f"{phase.mode} mode: gradient max abs error per parameter", "gradients")
    parts += f.decades()
    parts.append(f.threshold(atol, "atol"))
    base = f.y(f.lo)
    for i, (g, v) in enumerate(zip(grads, vals)):
        status = _status(g.stats)
        x, y = f.x(i), f.y(v)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base:.1f}" y2="{y:.1f}" '
                     f'stroke="{COLORS[status]}" stroke-opacity="0.35"/>'
                     f'<circle class="gradient {status}" cx="{x:.1f}" cy="{y:.1f}" r="3" '
                     f'fill="{COLORS[status]}"><title>{_h(g.name)}: max abs '
                     f'{_fmt(g.stats.max_abs)}, cosine {_fmt(g.stats.cosine, 6)}, {status}'
                     f'</title></circle>')
    parts.append(_legend(f.pad_l + 8, f.pad_t + 10, [
        ("within tolerance", COLORS["pass"], "dot"),
        ("float32 noise (explained by a float64 run)", COLORS["noise"], "dot"),
        ("beyond tolerance", COLORS["FAIL"], "dot")]))
    parts.append(f.caption(f"parameters in model order ({len(grads)})"))
    return "".join(parts) + "</svg>"


def loss_plot_svg(trn, width=760, height=210) -> str:
    """The training losses: both curves (left) beside |ms - torch| per step (right).

    Args:
        trn: a :class:`~migrate.check.result.TrainResult`.
        width, height: the whole figure's size in pixels.

    Returns:
        the ``<svg>`` text, or '' with fewer than two steps.

    Example:
        >>> loss_plot_svg(result.train)  # doctest: +SKIP
    """
    tl, ml = list(trn.torch_losses), list(trn.ms_losses)
    vals = [v for v in tl + ml if math.isfinite(v)]
    if len(tl) < 2 or len(ml) != len(tl) or not vals:
        return ""
    half = width // 2
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" data-figure="losses">'
             f'<title>training loss per step: torch and ms, and their difference</title>']
    parts += _loss_curves(tl, ml, min(vals), max(vals), half, height)
    diffs = [abs(a - b) if math.isfinite(a) and math.isfinite(b) else math.inf
             for a, b in zip(tl, ml)]
    parts.append(f'<g transform="translate({half},0)">')
    parts += _loss_differences(diffs, width - half, height)
    parts.append("</g></svg>")
    return "".join(parts)


def _loss_curves(tl, ml, lo, hi, width, height) -> list:
    f = _Frame(width, height, len(tl), lo, hi if hi > lo else lo + 1.0, pad=(60, 10, 15, 30))

    def line(series, color, cls, dash=""):
        pts = " ".join(f"{f.x(i):.1f},{f.y(v if math.isfinite(v) else f.hi):.1f}"
                       for i, v in enumerate(series))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        return (f'<polyline class="{cls}" fill="none" stroke="{color}" stroke-width="2"{extra} '
                f'points="{pts}"/>')

    out = [f'<text x="{f.pad_l - 5}" y="{f.y(f.hi) + 4:.1f}" font-size="10" text-anchor="end">'
           f'{_h(_fmt(f.hi, 5))}</text>',
           f'<text x="{f.pad_l - 5}" y="{f.y(f.lo) + 4:.1f}" font-size="10" text-anchor="end">'
           f'{_h(_fmt(f.lo, 5))}</text>',
           line(tl, COLORS["line"], "torch-loss"), line(ml, COLORS["ms"], "ms-loss", "5 4")]
    for i, (a, b) in enumerate(zip(tl, ml)):
        out.append(f'<circle cx="{f.x(i):.1f}" cy="{f.y(a if math.isfinite(a) else f.hi):.1f}" '
                   f'r="2.5" fill="{COLORS["line"]}"><title>step {i + 1}: torch {a:.7g}, ms '
                   f'{b:.7g}</title></circle>')
    out.append(_legend(f.width - 110, f.pad_t + 10, [("torch", COLORS["line"], "line"),
                                                     ("ms (dashed)", COLORS["ms"], "line")]))
    out.append(f.caption(f"loss, steps 1..{len(tl)}"))
    return out


def _loss_differences(diffs, width, height) -> list:
    vals = [_log(d) for d in diffs]
    f = _Frame(width, height, len(diffs), math.floor(min(vals)), math.ceil(max(vals)),
               pad=(50, 10, 15, 30))
    out = f.decades()
    pts = " ".join(f"{f.x(i):.1f},{f.y(v):.1f}" for i, v in enumerate(vals))
    out.append(f'<polyline class="loss-difference" fill="none" stroke="{COLORS["FAIL"]}" '
               f'stroke-width="1.5" points="{pts}"/>')
    for i, (d, v) in enumerate(zip(diffs, vals)):
        out.append(f'<circle cx="{f.x(i):.1f}" cy="{f.y(v):.1f}" r="2.5" fill="{COLORS["FAIL"]}">'
                   f'<title>step {i + 1}: |ms - torch| = {_fmt(d)}</title></circle>')
    out.append(f.caption("|ms loss - torch loss| per step"))
    return out
