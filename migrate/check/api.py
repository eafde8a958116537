"""`migrate check`: run the PyTorch model and its conversion side by side and say where they differ.

Command line (exit 0 pass, 1 mismatch, 2 could not run)::

    migrate check model.py --model "ResNet18(num_classes=10)" --input-shape 2,3,32,32 \
        [--converted out.py] [--mode eval|train|both] [--train-steps 5] [--optimizer sgd|adam] \
        [--rtol 1e-4 --atol 1e-5] [--seed 0] [--float64] [--local auto|all] \
        [--report r.md --report r.json --report r.html]
    migrate weights model.pth -o model.ckpt [--model "model.py:Net()"]    # and back

Library entry point::

    from migrate.check import check
    result = check(torch_net, ms_net, [x], mode="both", train_steps=5)
    result.passed, result.culprit        # True/False, the first layer at fault (or None)
    print(result.to_markdown())          # also .to_json(), .to_html(), .print_table()

What is compared (every tensor with :func:`migrate.check_compare.compare`):

* weights: every torch parameter/buffer mapped onto the converted model (:mod:`migrate.weights`);
  unmapped names on either side fail the check;
* initialization (``init_check=True``, freshly built models): a two-sample Kolmogorov–Smirnov
  test per parameter of torch's vs the converted model's initial values;
* outputs and every layer's output in inference and/or training mode, aligned by module path,
  with each layer's *local* error (the ms layer fed torch's inputs), so the first layer whose own
  error exceeds the tolerance is named with its source line; training-mode Dropout replays
  torch's masks; BatchNorm uses batch statistics;
* gradients of a scalar loss with respect to the float inputs and every parameter, by name;
* after ``train_steps`` optimizer steps on the same batch: every parameter, BatchNorm moving
  statistics and the loss curve. SGD: ``torch.optim.SGD(momentum=m, dampening=0)`` against
  ``nn.Momentum(momentum=m)``; the two agree because torch's first step sets its buffer to the
  gradient, which is MindSpore's ``accum = m*0 + grad``. Adam: torch ``Adam`` against ``nn.Adam``
  (MindSpore adds eps to sqrt(v) before the bias correction of the step size, torch after, so
  MindSpore's eps is torch's eps / sqrt(1 - beta2^t): elements with gradients near eps differ,
  a real difference of the optimizers that the report states; SGD checks the model itself).
"""
from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field

import numpy as np

from . import run as R
from .compare import TensorStats, as_array, compare, ks_2samp
from .weights import TransferReport, as_torch_layout, map_names, transfer

EXIT_PASS, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2
SCHEMA_VERSION = 1


class CheckError(Exception):
    """The check could not run (bad model expression, input shape, unconvertible file...).

    The CLI prints the message and exits with code 2.
    """


@dataclass
class LayerRow:
    """One call of one layer in one mode.

    `output` is the accumulated error (ms run vs torch run); `local` the layer's own error (fed
    torch's inputs, sub-layers replayed); `noise` torch float32 vs float64 when asked.
    `status`: pass | drift (accumulated error over tolerance, own error within) | FAIL (own error
    over tolerance) | missing (no ms layer at this path) | error (the ms layer raised).
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

    def to_dict(self) -> dict:
        keys = ("name", "path", "call", "depth", "order", "torch_type", "ms_type", "status",
                "note", "torch_source", "ms_source")
        d = {k: getattr(self, k) for k in keys}
        for k in ("output", "local", "noise"):
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

    def to_dict(self) -> dict:
        return {"name": self.name, "ms_name": self.ms_name, "layer": self.layer,
                "stats": self.stats.to_dict(),
                "noise": self.noise.to_dict() if self.noise is not None else None}


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
    local_grads: list = field(default_factory=list)  # check_run.LocalGrad rows (when grads differ)
    ms_error: str | None = None  # the converted model raised on the inputs (then no outputs)

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
                "local_gradients": [
                    {"layer": r.key[0] or R.ROOT, "call": r.key[1], "passed": r.passed,
                     "error": r.error, "stats": {n: s.to_dict() for n, s in r.stats.items()}}
                    for r in self.local_grads],
                "torch_loss": self.torch_loss, "ms_loss": self.ms_loss, "notes": list(self.notes)}


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


# --- the check ------------------------------------------------------------------------------------

def _layer_of(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else R.ROOT


def _as_inputs(inputs) -> list:
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    out = []
    for x in inputs:
        if R._is_torch(x):
            out.append(x.detach().cpu().numpy())
        elif R._is_ms(x):
            out.append(x.asnumpy())
        elif isinstance(x, np.ndarray):
            out.append(x)
        else:
            out.append(x)  # non-tensor arguments are passed to both models as they are
    return out


def check(torch_module, ms_cell, inputs, *, rtol=1e-4, atol=1e-5, mode="both", train_steps=0,
          optimizer="sgd", lr=0.01, momentum=0.9, loss_fn=None, seed=0, name_map=None,
          float64_reference=False, init_check=False, transfer_weights=True, layers=True,
          gradients=True, ks_alpha=1e-3, local="auto") -> CheckResult:
    """Compare a torch model with its conversion on the same weights and inputs.

    Args:
        torch_module: the reference `torch.nn.Module` (its state is restored afterwards).
        ms_cell: the converted `ms_core.nn.Cell` (receives torch's weights).
        inputs: one input or a list of inputs (NumPy arrays, torch or ms tensors; integer
            arrays for token ids / labels are passed as they are and not differentiated).
        rtol, atol: the tolerance of every comparison, as `np.allclose(ms, torch, rtol, atol)`.
        mode: 'eval', 'train' or 'both'. Gradients are taken in the last mode checked.
        train_steps: optimizer steps to take on both models (0: none).
        optimizer: 'sgd' (momentum `momentum`, dampening 0) or 'adam'.
        lr: learning rate of the training steps.
        loss_fn: None/'mse' (against a fixed random target), 'sum', 'cross_entropy', or a pair
            `(torch_fn, ms_fn)` mapping the model output to a scalar.
        seed: seeds torch, NumPy and ms_core (targets, labels).
        name_map: {torch name: ms name or None} overrides of the weight map.
        float64_reference: also run torch in float64 and report float32's own error (noise floor).
        init_check: before copying weights, KS-test each parameter's initial values (use on
            freshly built models only).
        transfer_weights: copy torch's weights into the ms model first (default True).
        layers: per-layer comparison with local errors (default True).
        local: 'auto' (default) replays a layer on torch's inputs where its output disagrees in
            the full run (that is where a first culprit can be); 'all' replays every layer, so
            every row has its local error.
        gradients: compare gradients (default True).
        ks_alpha: significance level of the KS test.

    Returns:
        A :class:`CheckResult` (`.passed`, `.culprit`, `.exit_code`, reports).

    Raises:
        CheckError: the models cannot run on the inputs (the message says why).

    Example:
        >>> import torch, ms_core
        >>> r = check(torch.nn.Linear(4, 2), ms_core.nn.Dense(4, 2), [np.ones((3, 4), np.float32)])
        >>> r.passed, r.exit_code
        (True, 0)
    """
    import time

    import torch

    import ms_core
    if local not in ("auto", "all"):
        raise ValueError(f"local must be 'auto' or 'all', but got {local!r}")
    if mode not in ("eval", "train", "both"):
        raise ValueError(f"mode must be 'eval', 'train' or 'both', but got {mode!r}")
    if optimizer not in ("sgd", "adam"):
        raise ValueError(f"optimizer must be 'sgd' or 'adam', but got {optimizer!r}")
    settings = dict(rtol=rtol, atol=atol, mode=mode, train_steps=train_steps, optimizer=optimizer,
                    lr=lr, momentum=momentum, loss=loss_fn if isinstance(loss_fn, str) or
                    loss_fn is None else "custom", seed=seed, float64_reference=float64_reference,
                    init_check=init_check, local=local)
    res = CheckResult(settings=settings)
    t0 = time.perf_counter()
    torch.manual_seed(seed)
    np.random.seed(seed)
    ms_core.set_seed(seed)
    inputs = _as_inputs(inputs)
    # Only training steps change parameters; a forward pass changes buffers (BatchNorm).
    torch_state0 = R.snapshot_torch(torch_module, buffers_only=train_steps <= 0)
    torch_training0 = torch_module.training
    torch_sources = {p: R.layer_source(torch_module, p) for p, _ in torch_module.named_modules()}
    ms_sources = {p: R.layer_source(ms_cell, p) for p, _ in ms_cell.cells_and_names()}

    rep = map_names(torch_module, ms_cell, name_map)
    res.transfer = rep
    for line, name in [(p, n) for p, n in zip(rep.problems(), _problem_layers(rep))]:
        res.findings.append(Finding("transfer", name, line, torch_sources.get(_path(name), ""),
                                    ms_sources.get(_path(name), "")))
    if init_check:
        _init_check(res, torch_module, ms_cell, rep, ks_alpha, torch_sources, ms_sources)
    if transfer_weights:
        transfer(torch_module, ms_cell, name_map)
    res.timings["setup"] = time.perf_counter() - t0
    ms_state0 = R.snapshot_ms(ms_cell, buffers_only=train_steps <= 0)
    modes = ["eval", "train"] if mode == "both" else [mode]
    try:
        for i, m in enumerate(modes):
            t1 = time.perf_counter()
            want_grads = gradients and i == len(modes) - 1
            phase = _run_phase(torch_module, ms_cell, inputs, m, rtol, atol, want_grads, layers,
                               loss_fn, seed, rep, float64_reference, torch_sources, ms_sources,
                               local)
            res.phases.append(phase)
            res.timings[m] = time.perf_counter() - t1
        if train_steps > 0 and any(p.ms_error for p in res.phases):
            res.settings["notes"] = ["training steps skipped: the converted model raises"]
        elif train_steps > 0 and not any(p.requires_grad for p in torch_module.parameters()):
            res.settings["notes"] = ["training steps skipped: the model has no trainable "
                                     "parameters"]
        elif train_steps > 0:
            t1 = time.perf_counter()
            res.train = _run_training(torch_module, ms_cell, inputs, rep, train_steps, optimizer,
                                      lr, momentum, loss_fn, seed, rtol, atol, float64_reference)
            res.timings["train_steps"] = time.perf_counter() - t1
    except CheckError:
        raise
    except Exception as exc:
        raise CheckError(_explain(exc)) from exc
    finally:
        R.restore_torch(torch_module, torch_state0)
        torch_module.train(torch_training0)
        R.restore_ms(ms_cell, ms_state0)
    _collect_findings(res, torch_sources, ms_sources, torch_module, ms_cell)
    res.timings["total"] = time.perf_counter() - t0
    return res


def _explain(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


def _path(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _problem_layers(rep):
    out = list(rep.unmapped_torch) + list(rep.unmapped_ms)
    out += [e.torch_name for e in rep.entries if e.action == "shape-mismatch"]
    return [_layer_of(n) for n in out]


def _init_check(res, torch_module, ms_cell, rep, alpha, torch_sources, ms_sources):
    from .weights import ms_parameters, torch_tensors
    tensors = {full: t for full, _, _, t, _ in torch_tensors(torch_module)}
    ms_params = ms_parameters(ms_cell)
    for e in rep.entries:
        if e.ms_name not in ms_params or e.action == "shape-mismatch":
            continue
        t = tensors[e.torch_name]
        if not t.is_floating_point():
            continue
        ks = ks_2samp(t.detach().numpy(), ms_params[e.ms_name].asnumpy(), alpha)
        row = InitRow(e.torch_name, e.ms_name, _layer_of(e.torch_name), ks)
        res.init.append(row)
        if ks.differs:
            p = _path(e.torch_name)
            res.findings.append(Finding(
                "init", row.layer,
                f"'{e.ms_name}' is initialized from a different distribution than torch's "
                f"'{e.torch_name}' ({ks.reason}; KS D={ks.statistic:.3f}; torch mean/std "
                f"{ks.torch_mean:.3g}/{ks.torch_std:.3g}, ms {ks.ms_mean:.3g}/{ks.ms_std:.3g})"
                + _init_hint(ks), torch_sources.get(p, ""), ms_sources.get(p, "")))


def _init_hint(ks) -> str:
    """Name MindSpore's own defaults when the ms values look like them."""
    if ks.n_ms >= 16 and abs(ks.ms_mean) < 0.005 and abs(ks.ms_std - 0.01) < 0.002:
        return ("; the ms values look like MindSpore's default 'normal' (sigma 0.01): the "
                "initializer was not carried over (torch's default is HeUniform(sqrt(5)) for "
                "weights, Uniform(1/sqrt(fan_in)) for biases)")
    if ks.ms_std == 0.0 and ks.torch_std > 0.0:
        return (f"; the ms values are the constant {ks.ms_mean:.3g} (MindSpore's default "
                f"'zeros' for biases?) where torch draws random values")
    return ""


def _type_name(obj) -> str:
    return type(obj).__name__ if obj is not None else "-"


def _run_phase(torch_module, ms_cell, inputs, mode, rtol, atol, want_grads, layers, loss_fn, seed,
               rep, float64_reference, torch_sources, ms_sources, local_mode="auto") -> PhaseResult:
    import ms_core
    phase = PhaseResult(mode)
    train = mode == "train"
    torch_module.train(train)
    ms_cell.set_train(train)
    torch_state = R.snapshot_torch(torch_module, buffers_only=True)
    ms_state = R.snapshot_ms(ms_cell, buffers_only=True)
    t_loss, m_loss = R.make_losses(loss_fn, seed) if want_grads else (None, None)
    import torch
    torch.manual_seed(seed)
    try:
        t_rec, t_out, t_lossv, t_grads = R.run_torch(torch_module, inputs, t_loss, want_grads,
                                                     capture=layers)
    except Exception as exc:
        raise CheckError(f"the torch model fails in {mode} mode: {_explain(exc)}") from exc
    masks = t_rec.dropout_masks if train else None
    try:
        m_rec, m_out, m_lossv, m_grads = R.run_ms(ms_cell, inputs, m_loss, want_grads,
                                                  capture=layers, masks=masks,
                                                  fmasks=t_rec.functional_masks)
    except Exception as exc:
        if not layers:
            raise CheckError(f"the converted model fails in {mode} mode: {_explain(exc)}") from exc
        # It raises: still a check. Each layer is run on torch's inputs below, and the first
        # that raises or differs is named.
        phase.ms_error = _explain(exc)
        m_rec, m_out, m_lossv, m_grads = getattr(exc, "_check_rec", None), None, None, {}
        want_grads = False
        if m_rec is None:
            m_rec = R.MsRecorder.__new__(R.MsRecorder)
            m_rec.calls = {}
    R.restore_torch(torch_module, torch_state)
    R.restore_ms(ms_cell, ms_state)
    for note in dict.fromkeys(getattr(m_rec, "mask_notes", [])):
        phase.notes.append(f"dropout replay: {note}")
    phase.outputs = R.worst_stats(m_out, t_out, rtol, atol) if phase.ms_error is None else None
    o = phase.outputs
    if o is not None and (o.nan_torch or o.inf_torch or o.nan_ms or o.inf_ms):
        phase.notes.append(f"outputs hold NaN/Inf (torch {o.nan_torch}/{o.inf_torch}, ms "
                           f"{o.nan_ms}/{o.inf_ms}): equal where both sides agree on the "
                           f"position, but check the inputs")
    phase.torch_loss, phase.ms_loss = t_lossv, m_lossv
    # float64 noise floor: the same torch model and inputs in double precision.
    f64 = None
    if float64_reference:
        f64 = _run_float64(torch_module, inputs, t_rec, mode, layers,
                           t_loss if want_grads else None)
        phase.notes.append("noise: torch float32 vs torch float64 on the same inputs")
    if layers:
        acc = {}
        for key in t_rec.order:
            mcall = m_rec.calls.get(key)
            acc[key] = (R.worst_stats(mcall.output, t_rec.calls[key].output, rtol, atol)
                        if mcall is not None else None)
        # 'auto': a layer whose output agrees in the full run needs no replay (its own error
        # cannot exceed the tolerance unless errors cancel); replay where it disagrees.
        only = None if local_mode == "all" else \
            {k for k, st in acc.items() if st is None or not st.passed}
        local = R.local_replay(torch_module, ms_cell, t_rec, rtol, atol, masks, only)
        if only is not None:
            phase.notes.append("local error computed where the accumulated error exceeds the "
                               "tolerance (local='all' / --local all: every layer)")
        R.restore_ms(ms_cell, ms_state)
        ms_cells = dict(ms_cell.cells_and_names())
        torch_mods = dict(torch_module.named_modules())
        for key in t_rec.order:
            call = t_rec.calls[key]
            path, k = key
            mcall = m_rec.calls.get(key)
            name = (path or R.ROOT) + (f"#{k}" if k else "")
            row = LayerRow(name, path, k, 0 if not path else path.count(".") + 1, call.order,
                           _type_name(torch_mods.get(path)), _type_name(ms_cells.get(path)),
                           acc[key], None, torch_source=torch_sources.get(path, ""),
                           ms_source=ms_sources.get(path, ""))
            lr_ = local.get(key)
            if lr_ is not None:
                row.local = lr_.stats
                if lr_.error:
                    row.status, row.note = "error", lr_.error
                elif lr_.input_note:
                    row.status, row.note = "FAIL", lr_.input_note
                elif not lr_.stats.passed:
                    row.status = "FAIL"
            if path not in ms_cells:
                row.status, row.note = "missing", "no ms layer at this path"
            elif mcall is None and row.status == "pass":
                row.note = "the ms layer was not called"
            if row.status == "pass" and row.output is not None and not row.output.passed:
                row.status = "drift"
            if f64 is not None and key in f64.calls:
                row.noise = R.worst_stats(call.output, f64.calls[key].output, rtol, atol)
            phase.layers.append(row)
        extra = [p for p in ms_cells if p and p not in torch_mods]
        if extra:
            phase.notes.append(f"ms layers with no torch layer at the same path (compared only "
                               f"inside their parents): {', '.join(extra[:8])}"
                               + (f" and {len(extra) - 8} more" if len(extra) > 8 else ""))
        if masks is not None and any("Dropout" in r.torch_type for r in phase.layers):
            phase.notes.append("training-mode Dropout: torch's masks replayed in the ms model")
    if want_grads:
        f64_grads = getattr(f64, "grads", {}) if f64 is not None else {}
        pairs = [(f"input[{i}]", f"input[{i}]") for i in range(len(inputs))]
        pairs += [(e.torch_name, e.ms_name) for e in rep.entries
                  if e.ms_name is not None and e.torch_name in t_grads]
        for tn, mn in pairs:
            if tn not in t_grads:
                continue
            if mn not in m_grads:
                st = compare(np.zeros(0), np.zeros(0))
                st.passed, st.note = False, "no gradient on the ms side (requires_grad=False?)"
                st.shape = list(t_grads[tn].shape)
            else:
                st = compare(as_torch_layout(m_grads[mn], t_grads[tn].shape), t_grads[tn],
                             rtol, atol)
            noise = compare(t_grads[tn], f64_grads[tn], rtol, atol) if tn in f64_grads else None
            if noise is not None and not st.passed and mn in m_grads:
                st = _within_noise_floor(st, as_torch_layout(m_grads[mn], t_grads[tn].shape),
                                         f64_grads[tn], noise)
            phase.gradients.append(NamedStats(tn, mn, _layer_of(tn) if not tn.startswith("input")
                                              else "input", st, noise))
        if layers and not all(g.stats.passed for g in phase.gradients) and \
                phase.first_local_failure is None:
            # The forward agrees but the gradients do not: find the layer with a wrong backward.
            phase.local_grads = R.local_grad_replay(torch_module, ms_cell, t_rec, rep.pairs(),
                                                    rtol, atol, seed)
            R.restore_ms(ms_cell, ms_state)
    return phase


def _within_noise_floor(st, ms_value, f64_value, noise):
    """Accept an ms gradient that is no further from torch's float64 result than torch's own
    float32 result is (twice that, for the two roundings' independent errors): on deep,
    ill-conditioned networks float32 alone moves gradients past any fixed tolerance."""
    to_f64 = compare(ms_value, f64_value)
    if to_f64.max_abs <= 2 * noise.max_abs:
        st.passed = True
        st.note = ((st.note + "; ") if st.note else "") + (
            f"within float32 noise: {to_f64.max_abs:.3g} from torch float64, where torch float32 "
            f"is {noise.max_abs:.3g} from it")
    return st


class _F64:
    calls: dict
    grads: dict


def _run_float64(torch_module, inputs, t_rec, mode, layers, t_loss):
    """torch in float64 on the same inputs, replaying the float32 run's dropout masks (module and
    functional), for the noise-floor column."""
    import torch
    import torch.nn.functional as TF
    model = copy.deepcopy(torch_module).double()
    model.train(mode == "train")
    handles, state = [], {"depth": 0, "next": 0}
    train = mode == "train"
    for path, mod in model.named_modules():
        is_drop, keep = R._dropout_keep(mod)
        if not (is_drop and train):
            continue
        counter, saved = [0], {}

        def pre(m, args, saved=saved):
            state["depth"] += 1
            saved["x"] = args[0].clone()  # before an in-place dropout overwrites it

        def post(m, args, out, path=path, counter=counter, keep=keep, saved=saved):
            state["depth"] -= 1
            k = counter[0]
            counter[0] += 1
            mask = t_rec.dropout_masks.get((path, k))
            x = saved.pop("x")
            if mask is None:
                return out
            return x * torch.from_numpy(mask).to(x.dtype) / keep
        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
    saved_fns = {}
    if train or t_rec.functional_masks:  # F.dropout drops in eval mode too
        masks = t_rec.functional_masks
        for name in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
            orig = getattr(TF, name, None)
            if orig is None:
                continue
            saved_fns[name] = orig

            def replay(input, *args, _orig=orig, **kwargs):
                p = kwargs.get("p", args[0] if args else 0.5)
                training = kwargs.get("training", args[1] if len(args) > 1 else True)
                if state["depth"] > 0 or not training or not p or state["next"] >= len(masks):
                    return _orig(input, *args, **kwargs)
                mask = masks[state["next"]]
                state["next"] += 1
                keep = torch.from_numpy(np.ascontiguousarray(mask)).to(input.dtype)
                return input * keep / (1 - p)
            setattr(TF, name, replay)
    x64 = [x.astype(np.float64) if isinstance(x, np.ndarray) and x.dtype.kind == "f" else x
           for x in inputs]
    try:
        rec, _, _, grads = R.run_torch(model, x64, t_loss, t_loss is not None, capture=layers)
    finally:
        for h in handles:
            h.remove()
        for name, fn in saved_fns.items():
            setattr(TF, name, fn)
    r = _F64()
    r.calls, r.grads = rec.calls, grads
    return r


def _run_training(torch_module, ms_cell, inputs, rep, steps, optimizer, lr, momentum, loss_fn,
                  seed, rtol, atol, float64_reference=False) -> TrainResult:
    import torch
    # float64 noise floor: the same steps in double precision (models without dropout, whose
    # masks this replay does not carry), to tell float32 drift from a real difference
    t64 = copy.deepcopy(torch_module).double() if float64_reference else None

    import ms_core
    from .weights import ms_parameters, torch_tensors
    tr = TrainResult(steps, optimizer, lr)
    torch_module.train(True)
    ms_cell.set_train(True)
    t_loss, m_loss = R.make_losses(loss_fn, seed)
    tparams = [p for p in torch_module.parameters() if p.requires_grad]
    if optimizer == "sgd":
        t_opt = torch.optim.SGD(tparams, lr=lr, momentum=momentum, dampening=0, nesterov=False,
                                weight_decay=0)
        tr.notes.append(f"torch SGD(momentum={momentum}, dampening=0) vs ms nn.Momentum("
                        f"momentum={momentum}): equal since torch's first buffer is the gradient "
                        f"and MindSpore's accum starts at 0 (accum = m*0 + grad)")
    else:
        t_opt = torch.optim.Adam(tparams, lr=lr, betas=(0.9, 0.999), eps=1e-8)
        tr.notes.append("torch Adam vs ms nn.Adam (betas 0.9/0.999, eps 1e-8): MindSpore adds "
                        "eps to sqrt(v) before the bias correction, so its eps acts as "
                        "eps/sqrt(1-beta2^t) in torch's terms (31.6x at step 1): elements whose "
                        "gradient is within a few hundred eps differ by up to ~lr per step. That "
                        "is a real difference of the two optimizers, not of the model: use SGD "
                        "to check the model itself")
    names = [n for n, p in ms_cell.parameters_and_names() if p.requires_grad]
    params = ms_parameters(ms_cell)
    weights = [params[n] for n in names]
    m_opt = _ms_optimizer(optimizer, weights, lr, momentum, tr)
    tensors = {full: t for full, _, _, t, _ in torch_tensors(torch_module)}
    pairs = [(e.torch_name, e.ms_name) for e in rep.entries
             if e.ms_name in params and e.action != "shape-mismatch"]
    t_in = [torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else x for x in inputs]
    m_in = [R.torch_to_ms(x) for x in inputs]

    def fn(*xs):
        out = ms_cell(*xs)
        return m_loss(out)

    vg = ms_core.value_and_grad(fn, None, weights) if weights else None
    if t64 is not None:
        t64.train(True)
        p64 = [p for p in t64.parameters() if p.requires_grad]
        t64_opt = torch.optim.SGD(p64, lr=lr, momentum=momentum, dampening=0) \
            if optimizer == "sgd" else torch.optim.Adam(p64, lr=lr, betas=(0.9, 0.999), eps=1e-8)
        t64_in = [x.double() if torch.is_tensor(x) and x.is_floating_point() else x for x in t_in]
        losses64 = []
    noisy = set()
    loose_atol = 2.0 * lr * steps
    for s in range(steps):
        torch.manual_seed(seed + s)
        rec = R.TorchRecorder(torch_module, capture=False)
        try:
            t_opt.zero_grad(set_to_none=True)
            out = torch_module(*t_in)
            lt = t_loss(out)
            lt.backward()
            if s == 0 and optimizer == "adam":
                noisy = _noise_level_params(torch_module)
            t_opt.step()
        finally:
            rec.remove()
        if t64 is not None and (rec.dropout_masks or rec.functional_masks):
            t64 = None
            tr.notes.append("no float64 noise floor for the training steps: the model uses "
                            "dropout")
        if t64 is not None:
            t64_opt.zero_grad(set_to_none=True)
            l64 = t_loss(t64(*t64_in))
            l64.backward()
            t64_opt.step()
            losses64.append(float(l64.detach()))
        mrec = R.MsRecorder(ms_cell, capture=False, masks=rec.dropout_masks,
                            fmasks=rec.functional_masks)
        try:
            if vg is not None:
                lm, grads = vg(*m_in)
                m_opt(grads)
            else:
                lm = fn(*m_in)
        except Exception as exc:
            raise CheckError(f"the converted model fails in training step {s + 1}: "
                             f"{_explain(exc)}") from exc
        finally:
            mrec.remove()
        tr.torch_losses.append(float(lt.detach()))
        tr.ms_losses.append(float(as_array(lm)))
        if tr.first_bad_step is None:
            for tn, mn in pairs:
                st = compare(as_torch_layout(params[mn].asnumpy(), tensors[tn].shape),
                             tensors[tn].detach().numpy(), rtol,
                             loose_atol if tn in noisy else atol)
                if not st.passed:
                    tr.first_bad_step, tr.first_bad_param = s + 1, tn
                    break
    tr.loss_stats = compare(np.array(tr.ms_losses), np.array(tr.torch_losses), rtol, atol)
    if t64 is not None and not tr.loss_stats.passed:
        tr.loss_stats = _within_noise_floor(
            tr.loss_stats, np.array(tr.ms_losses), np.array(losses64),
            compare(np.array(tr.torch_losses), np.array(losses64)))
    _momentum_hints(torch_module, ms_cell, tr)
    # Inference after training: where moving statistics (BatchNorm momentum) reach the outputs.
    torch_module.train(False)
    ms_cell.set_train(False)
    rec = R.TorchRecorder(torch_module, capture=False)  # F.dropout still drops in eval mode
    try:
        with torch.no_grad():
            t_out = torch_module(*t_in)
    finally:
        rec.remove()
    mrec = R.MsRecorder(ms_cell, capture=False, masks=None, fmasks=rec.functional_masks)
    try:
        tr.eval_outputs = R.worst_stats(ms_cell(*m_in), t_out, rtol, atol)
    except Exception as exc:
        tr.notes.append(f"inference after training failed on the ms side: {_explain(exc)}")
    finally:
        mrec.remove()
    if noisy:
        tr.notes.append(f"noise-level gradients (Adam turns their float32 rounding into full "
                        f"±lr steps), compared at atol=2·lr·steps={loose_atol:.3g}: "
                        f"{', '.join(sorted(noisy))}")
    tensors64 = {full: t for full, _, _, t, _ in torch_tensors(t64)} if t64 is not None else {}
    for tn, mn in pairs:
        ms_value = as_torch_layout(params[mn].asnumpy(), tensors[tn].shape)
        st = compare(ms_value, tensors[tn].detach().numpy(), rtol,
                     loose_atol if tn in noisy else atol)
        noise = None
        if tn in tensors64:
            v64 = tensors64[tn].detach().numpy()
            noise = compare(tensors[tn].detach().numpy(), v64, rtol, atol)
            if not st.passed:
                st = _within_noise_floor(st, ms_value, v64, noise)
        tr.params.append(NamedStats(tn, mn, _layer_of(tn), st, noise))
    if t64 is not None and all(p.stats.passed for p in tr.params):
        tr.first_bad_step = tr.first_bad_param = None  # the early difference was float32 drift
    return tr


def _momentum_hints(torch_module, ms_cell, tr):
    """BatchNorm layers whose ms momentum is not 1 - torch's (the classic missed inversion)."""
    import torch
    cells = dict(ms_cell.cells_and_names())
    for path, mod in torch_module.named_modules():
        if not isinstance(mod, torch.nn.modules.batchnorm._BatchNorm) or mod.momentum is None:
            continue
        # As in MindSpore, the cell's `momentum` attribute holds 1 - the constructor argument.
        attr = getattr(cells.get(path), "momentum", None)
        if not isinstance(attr, (int, float)):
            continue
        m_ms = 1.0 - float(attr)
        if abs((1.0 - mod.momentum) - m_ms) > 1e-6:
            tr.hints[path or R.ROOT] = (
                f"BatchNorm momentum: torch {mod.momentum:g} weighs the new batch, MindSpore's "
                f"weighs the old value, so the ms layer needs momentum={1.0 - mod.momentum:g}, "
                f"but has {m_ms:g}")


def _noise_level_params(model) -> set:
    """Parameters whose gradient is float32 rounding noise next to the largest one (e.g. a conv
    bias feeding BatchNorm, whose exact gradient is 0)."""
    grads = {n: float(p.grad.abs().max()) for n, p in model.named_parameters()
             if p.grad is not None and p.grad.numel()}
    top = max(grads.values(), default=0.0)
    return {n for n, g in grads.items() if g <= 1e-5 * top}


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


def _ms_optimizer(kind, weights, lr, momentum, tr):
    import ms_core
    nn = ms_core.nn
    if kind == "sgd":
        if hasattr(nn, "Momentum"):
            return nn.Momentum(weights, learning_rate=lr, momentum=momentum)
        tr.notes.append("ms_core.nn.Momentum not available: MindSpore's formula applied in NumPy")
        return _MomentumRef(weights, lr, momentum)
    if hasattr(nn, "Adam"):
        return nn.Adam(weights, learning_rate=lr, beta1=0.9, beta2=0.999, eps=1e-8)
    tr.notes.append("ms_core.nn.Adam not available: MindSpore's formula applied in NumPy")
    return _AdamRef(weights, lr)


def _layer_hint(torch_module, ms_cell, path) -> str:
    """A likely cause for a layer pair whose own outputs differ, from their arguments."""
    import torch
    mod = dict(torch_module.named_modules()).get(path)
    cell = dict(ms_cell.cells_and_names()).get(path)
    if mod is None or cell is None:
        return ""
    if isinstance(mod, torch.nn.modules.dropout._DropoutNd):
        keep = R._ms_dropout_keep(cell)
        if keep is not None and abs(keep - (1.0 - mod.p)) > 1e-9:
            return (f"torch p={mod.p:g} is the probability to DROP; the ms layer keeps with "
                    f"probability {keep:g}, it needs keep_prob={1.0 - mod.p:g} (or p={mod.p:g})")
    pooling = torch.nn.modules.pooling
    if isinstance(mod, (pooling._MaxPoolNd, pooling._AvgPoolNd)):
        pad_mode = getattr(cell, "pad_mode", None)
        pads = mod.padding if isinstance(mod.padding, (tuple, list)) else (mod.padding,)
        if pad_mode == "same":
            return (f"ms pad_mode='same' pads TF-style (the odd extra at the bottom/right"
                    + (", and AvgPool 'same' divides by the real elements only" if
                       isinstance(mod, pooling._AvgPoolNd) else "")
                    + f"); torch pads {tuple(pads)} on both sides: use "
                    + (f"pad_mode='pad', padding={pads[0]}" if any(pads) else "pad_mode='valid'"))
        ms_cip = getattr(cell, "count_include_pad", None)
        if isinstance(mod, pooling._AvgPoolNd) and any(pads) and ms_cip is not None and \
                bool(ms_cip) != bool(mod.count_include_pad):
            return (f"count_include_pad: torch {mod.count_include_pad}, ms {ms_cip} (the "
                    f"border averages divide by a different count)")
    if isinstance(mod, torch.nn.modules.conv._ConvNd):
        pad_mode = getattr(cell, "pad_mode", None)
        stride = tuple(mod.stride)
        if pad_mode == "same" and isinstance(mod.padding, tuple) and any(mod.padding) and \
                any(s > 1 for s in stride):
            return (f"ms pad_mode='same' pads TF-style (the odd extra row/column at the "
                    f"bottom/right) with stride {stride}, torch pads {mod.padding} on both "
                    f"sides: use pad_mode='pad', padding={mod.padding[0]}")
    return ""


def _collect_findings(res, torch_sources, ms_sources, torch_module=None, ms_cell=None):
    """Turn failures into findings, first culprit first, each naming its layer and source."""
    for phase in res.phases:
        f = phase.first_local_failure
        hint = _layer_hint(torch_module, ms_cell, f.path) if f is not None and \
            torch_module is not None else ""
        if phase.ms_error is not None:
            where = f.name if f is not None else R.ROOT
            detail = (f"; the first layer that fails on torch's inputs is '{f.name}' "
                      f"({f.torch_type} -> {f.ms_type}): {f.note or 'its output differs'}"
                      + (f"; likely cause: {hint}" if hint else "")
                      if f is not None
                      else "; every layer runs on torch's inputs, so the failure is in how the "
                           "model connects them")
            res.findings.append(Finding(phase.mode, where,
                                        f"the converted model raises in {phase.mode} mode: "
                                        f"{phase.ms_error}{detail}",
                                        f.torch_source if f else torch_sources.get("", ""),
                                        f.ms_source if f else ms_sources.get("", "")))
            continue
        if f is not None:
            st = f.local
            detail = f.note or (f"own error max abs {st.max_abs:.3g}, max rel {st.max_rel:.3g} "
                                f"(worst at {st.worst_index}: torch {st.worst_torch:.6g}, ms "
                                f"{st.worst_ms:.6g})" if st is not None else "")
            res.findings.append(Finding(phase.mode, f.name,
                                        f"first layer whose own output differs in {phase.mode} "
                                        f"mode ({f.torch_type} -> {f.ms_type}): {detail}"
                                        + (f"; likely cause: {hint}" if hint else ""),
                                        f.torch_source, f.ms_source))
        elif phase.outputs is not None and not phase.outputs.passed:
            d = phase.first_drift
            where = d.name if d is not None else R.ROOT
            res.findings.append(Finding(phase.mode, where,
                                        f"outputs differ in {phase.mode} mode (max abs "
                                        f"{phase.outputs.max_abs:.3g}) but no single layer exceeds "
                                        f"the tolerance on its own: accumulated error, first over "
                                        f"tolerance at '{where}'",
                                        d.torch_source if d else "", d.ms_source if d else ""))
        bad = [g for g in phase.gradients if not g.stats.passed]
        if bad and f is None:
            lg = phase.local_grad_culprit
            if lg is not None:
                p, what = lg
                where = p or R.ROOT
                res.findings.append(Finding(
                    "gradient", where,
                    f"first layer whose own backward differs (fed torch's inputs and the same "
                    f"cotangent): {what}; {len(bad)} model gradient(s) out of tolerance, e.g. "
                    f"'{bad[-1].name}' (max abs {bad[-1].stats.max_abs:.3g})",
                    torch_sources.get(p, ""), ms_sources.get(p, "")))
            else:
                # the most downstream parameter whose gradient differs is the nearest to the fault
                params = [b for b in bad if not b.name.startswith("input")]
                g = params[-1] if params else bad[0]
                p = _path(g.name) if not g.name.startswith("input") else ""
                res.findings.append(Finding("gradient", g.layer,
                                            f"gradient of '{g.name}' differs (max abs "
                                            f"{g.stats.max_abs:.3g}, cosine {g.stats.cosine:.4f});"
                                            f" {len(bad)} gradient(s) out of tolerance",
                                            torch_sources.get(p, ""), ms_sources.get(p, "")))
    tr = res.train
    if tr is not None and not tr.passed:
        name = tr.first_bad_param or next((p.name for p in tr.params if not p.stats.passed), None)
        if name is None:
            msg = (f"the loss curves differ (max abs {tr.loss_stats.max_abs:.3g}) while every "
                   f"parameter agrees")
            layer = R.ROOT
        else:
            st = next(p.stats for p in tr.params if p.name == name)
            step = f" first after step {tr.first_bad_step}" if tr.first_bad_step else ""
            msg = (f"'{name}' differs after {tr.steps} {tr.optimizer} step(s){step} (max abs "
                   f"{st.max_abs:.3g}, max rel {st.max_rel:.3g})")
            layer = _layer_of(name)
            if name.rsplit(".", 1)[-1] in ("running_mean", "running_var"):
                msg += "; " + tr.hints.get(layer, "BatchNorm moving statistics: is momentum "
                                                  "converted (ms = 1 - torch)?")
        p = "" if layer == R.ROOT else layer
        res.findings.append(Finding("training-steps", layer, msg, torch_sources.get(p, ""),
                                    ms_sources.get(p, "")))
