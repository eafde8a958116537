"""What a check found: one record type per part of the report, and the exit codes.

:class:`CheckResult` holds everything; the reports (terminal, Markdown, JSON, HTML) are made from
it alone. Tensors are compared into :class:`~migrate.check.compare.TensorStats`.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from .compare import TensorStats
from .weights import TransferReport

EXIT_PASS, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2
SCHEMA_VERSION = 1


# --- names ----------------------------------------------------------------------------------------

ROOT = "(model)"  # the row name of the whole model (its layer path is "")


def layer_of(name: str) -> str:
    """The layer of a parameter name ('fc.weight' -> 'fc'; 'bias' -> the model)."""
    return name.rsplit(".", 1)[0] if "." in name else ROOT


def layer_path(name: str) -> str:
    """The layer path of a parameter name ('fc.weight' -> 'fc'; 'bias' -> '')."""
    return name.rsplit(".", 1)[0] if "." in name else ""


class CheckError(Exception):
    """The check could not run (bad model expression, input shape, unconvertible file...).

    The CLI prints the message and exits with code 2.
    """


@dataclass
class LayerRow:
    """One call of one layer in one mode.

    `output` is the accumulated error (ms run vs torch run); `local` the layer's own error (fed
    torch's inputs, sub-layers replayed); `noise` torch float32 vs float64 when asked.
    `status`: pass | noise (beyond the tolerance by float32 rounding only: within the float64
    floor) | drift (accumulated error over tolerance, own error within) | FAIL (own error over
    tolerance) | missing (no ms layer at this path) | error (the ms layer raised).
    """

    name: str
    path: str
    call: int
    depth: int
    order: int
    torch_type: str
    ms_type: str
    output: TensorStats | None
    local: TensorStats | None
    noise: TensorStats | None = None
    status: str = "pass"
    note: str = ""
    torch_source: str = ""
    ms_source: str = ""
    mindspore: TensorStats | None = None  # real MindSpore's output vs torch's (--ms-python)
    local_value: object = field(default=None, repr=False, compare=False)  # while judging noise

    def to_dict(self) -> dict:
        keys = ("name", "path", "call", "depth", "order", "torch_type", "ms_type", "status",
                "note", "torch_source", "ms_source")
        d = {k: getattr(self, k) for k in keys}
        for k in ("output", "local", "noise", "mindspore"):
            v = getattr(self, k)
            d[k] = v.to_dict() if v is not None else None
        return d


@dataclass
class NamedStats:
    """A compared tensor with its names on both sides (gradients, parameters after training)."""

    name: str
    ms_name: str
    layer: str
    stats: TensorStats
    noise: TensorStats | None = None
    mindspore: TensorStats | None = None  # real MindSpore vs torch (--ms-python)

    def to_dict(self) -> dict:
        return {"name": self.name, "ms_name": self.ms_name, "layer": self.layer,
                "stats": self.stats.to_dict(),
                "noise": self.noise.to_dict() if self.noise is not None else None,
                "mindspore": self.mindspore.to_dict() if self.mindspore is not None else None}


@dataclass
class LocalGrad:
    """One layer's backward fed torch's recorded inputs and the same cotangent."""

    key: tuple  # (layer path, call index)
    stats: dict  # name ('input[i]' or torch parameter name) -> TensorStats
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and all(s.passed for s in self.stats.values())

    @property
    def layer(self) -> str:
        return self.key[0] or ROOT

    def to_dict(self) -> dict:
        return {"layer": self.layer, "call": self.key[1], "passed": self.passed,
                "error": self.error, "stats": {n: s.to_dict() for n, s in self.stats.items()}}


@dataclass
class PhaseResult:
    """Inference ('eval') or training ('train') mode: outputs, layers, gradients."""

    mode: str
    outputs: TensorStats | None = None
    layers: list = field(default_factory=list)
    gradients: list = field(default_factory=list)
    torch_loss: float | None = None
    ms_loss: float | None = None
    notes: list = field(default_factory=list)
    local_grads: list = field(default_factory=list)  # LocalGrad rows (when grads differ)
    ms_error: str | None = None  # the converted model raised on the inputs (then no outputs)
    mindspore_outputs: TensorStats | None = None  # real MindSpore vs torch (--ms-python)
    mindspore_error: str | None = None  # real MindSpore raised in this phase
    mindspore_failed_at: str | None = None  # the first layer call it did not finish
    random_draws: str = ""  # torch.rand & co. drawn outside dropout (replayed): where
    draw_notes: list = field(default_factory=list)  # draws that could not be replayed: why

    @property
    def local_grad_culprit(self):
        """(layer path, description) of the first layer whose own backward differs, or None."""
        for row in self.local_grads:
            if not row.passed:
                if row.error:
                    return row.key[0], f"its backward raised {row.error}"
                name, st = next((n, s) for n, s in row.stats.items() if not s.passed)
                return row.key[0], (f"gradient w.r.t. {name} max abs {st.max_abs:.3g}, cosine "
                                    f"{st.cosine:.4f}")
        return None

    @property
    def first_local_failure(self):
        fails = [r for r in self.layers if r.status in ("FAIL", "error")]
        return min(fails, key=lambda r: r.order) if fails else None

    @property
    def first_drift(self):
        drift = [r for r in self.layers if r.output is not None and not r.output.passed]
        return min(drift, key=lambda r: r.order) if drift else None

    @property
    def passed(self) -> bool:
        return self.ms_error is None and (self.outputs is None or self.outputs.passed) and \
            self.first_local_failure is None and all(g.stats.passed for g in self.gradients)

    def to_dict(self) -> dict:
        f = self.first_local_failure
        return {"mode": self.mode, "passed": self.passed, "ms_error": self.ms_error,
                "outputs": self.outputs.to_dict() if self.outputs else None,
                "first_divergence": f.name if f else None,
                "layers": [r.to_dict() for r in self.layers],
                "gradients": [g.to_dict() for g in self.gradients],
                "local_gradients": [r.to_dict() for r in self.local_grads],
                "torch_loss": self.torch_loss, "ms_loss": self.ms_loss, "notes": list(self.notes),
                "mindspore_outputs": self.mindspore_outputs.to_dict()
                if self.mindspore_outputs else None,
                "mindspore_error": self.mindspore_error,
                "mindspore_failed_at": self.mindspore_failed_at}


@dataclass
class TrainResult:
    """After `steps` optimizer steps on the same batch, in training mode."""

    steps: int
    optimizer: str
    lr: float
    torch_losses: list = field(default_factory=list)
    ms_losses: list = field(default_factory=list)
    loss_stats: TensorStats | None = None
    params: list = field(default_factory=list)  # NamedStats, parameters and buffers
    first_bad_step: int | None = None  # 1-based step after which a parameter first differs
    first_bad_param: str | None = None
    notes: list = field(default_factory=list)
    eval_outputs: TensorStats | None = None  # inference-mode outputs after the last step
    hints: dict = field(default_factory=dict)  # layer -> a likely cause (BatchNorm momentum)

    @property
    def passed(self) -> bool:
        return (self.loss_stats is None or self.loss_stats.passed) and \
            all(p.stats.passed for p in self.params) and \
            (self.eval_outputs is None or self.eval_outputs.passed)

    def to_dict(self) -> dict:
        return {"steps": self.steps, "optimizer": self.optimizer, "lr": self.lr,
                "passed": self.passed, "torch_losses": self.torch_losses,
                "ms_losses": self.ms_losses,
                "loss_stats": self.loss_stats.to_dict() if self.loss_stats else None,
                "eval_outputs": self.eval_outputs.to_dict() if self.eval_outputs else None,
                "first_bad_step": self.first_bad_step, "first_bad_param": self.first_bad_param,
                "params": [p.to_dict() for p in self.params], "notes": list(self.notes)}


@dataclass
class InitRow:
    """The initialization test of one parameter: torch name, ms name, layer, KS result."""

    name: str
    ms_name: str
    layer: str
    ks: object  # KSResult

    def to_dict(self) -> dict:
        return {"name": self.name, "ms_name": self.ms_name, "layer": self.layer,
                **self.ks.to_dict()}


@dataclass
class Finding:
    """One problem, localised: which check, which layer, where its code is."""

    kind: str  # transfer | init | eval | train | gradient | training-steps | error
    layer: str
    message: str
    torch_source: str = ""
    ms_source: str = ""

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def __str__(self):
        where = f" [{self.ms_source}]" if self.ms_source else ""
        return f"{self.kind}: {self.layer}{where}: {self.message}"


@dataclass
class CheckResult:
    """Everything one check found; the reports are made from it.

    `passed` is True when everything is within tolerance; `culprit` the first finding (transfer,
    then init, then eval, train, gradients, training steps); `exit_code` 0/1/2 as the CLI's.
    """

    settings: dict
    transfer: TransferReport | None = None
    init: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    train: TrainResult | None = None
    findings: list = field(default_factory=list)
    error: str | None = None
    timings: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.error is None and not self.findings

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return EXIT_ERROR
        return EXIT_PASS if self.passed else EXIT_MISMATCH

    @property
    def culprit(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    def phase(self, mode: str) -> PhaseResult | None:
        for p in self.phases:
            if p.mode == mode:
                return p
        return None

    def to_dict(self) -> dict:
        """The JSON report (schema: docs/check_report_schema.md)."""
        return {"schema_version": SCHEMA_VERSION, "passed": self.passed,
                "exit_code": self.exit_code, "error": self.error, "settings": self.settings,
                "culprit": self.culprit.to_dict() if self.culprit else None,
                "findings": [f.to_dict() for f in self.findings],
                "transfer": self.transfer.to_dict() if self.transfer else None,
                "init": [r.to_dict() for r in self.init],
                "phases": [p.to_dict() for p in self.phases],
                "train": self.train.to_dict() if self.train else None,
                "timings": self.timings}

    def to_json(self, indent=1) -> str:
        return json.dumps(_finite(self.to_dict()), indent=indent, allow_nan=False,
                          default=_json_default)

    def to_markdown(self) -> str:
        from .report import markdown
        return markdown(self)

    def to_html(self) -> str:
        from .report import html
        return html(self)

    def print_table(self, console=None) -> None:
        from .report import print_terminal
        print_terminal(self, console)

    def write(self, path: str) -> None:
        """Write the report; the format follows the extension (.md, .json, .html)."""
        from .report import write_report
        write_report(self, path)


def _finite(o):
    """Non-finite floats as the strings 'nan', 'inf', '-inf' (strict JSON has no NaN)."""
    if isinstance(o, float) and not math.isfinite(o):
        return "nan" if math.isnan(o) else ("inf" if o > 0 else "-inf")
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    if isinstance(o, (np.floating, np.integer)):
        return _finite(o.item())
    return o


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        v = o.item()
        return v if not (isinstance(v, float) and not math.isfinite(v)) else str(v)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)

