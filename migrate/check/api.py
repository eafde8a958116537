"""check(): run the PyTorch model and its conversion side by side and say where they differ.

What is compared (every tensor with :func:`migrate.check.compare.compare`):

* weights: every torch parameter/buffer mapped onto the converted model
  (:mod:`migrate.check.weights`); unmapped names on either side fail the check;
* initialization (``init_check=True``, freshly built models): a two-sample Kolmogorov–Smirnov
  test per parameter of torch's vs the converted model's initial values;
* outputs and every layer's output in inference and/or training mode, aligned by module path,
  with each layer's *local* error (the ms layer fed torch's inputs), so the first layer whose own
  error exceeds the tolerance is named with its source line; training-mode Dropout replays
  torch's masks; BatchNorm uses batch statistics (:mod:`migrate.check.phase`);
* gradients of a scalar loss with respect to the float inputs and every parameter, by name;
* after ``train_steps`` optimizer steps on the same batch: every parameter, BatchNorm moving
  statistics and the loss curve (:mod:`migrate.check.training`).
"""
from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from .compare import ks_2samp
from .findings import collect_findings, init_finding, transfer_findings
from .phase import run_phase
from .result import CheckError, CheckResult, Finding, InitRow, layer_of
from .run import ModelPair, is_ms, is_torch, one_line, restore_ms, restore_torch, snapshot_ms, \
    snapshot_torch
from .training import run_training
from .weights import ms_parameters, torch_tensors, transfer


@dataclass(frozen=True)
class PhasePlan:
    """One phase to run: a mode, and whether the loss's gradients are compared in it."""

    mode: str  # 'eval' | 'train'
    gradients: bool


@dataclass(frozen=True)
class CheckSettings:
    """How to check: tolerances, modes, training steps and what to compare.

    Attributes:
        rtol, atol: the tolerance of every comparison, as `np.allclose(ms, torch, rtol, atol)`.
        mode: 'eval', 'train' or 'both'. Gradients are taken in the last mode checked.
        train_steps: optimizer steps to take on both models (0: none).
        optimizer: 'sgd' (momentum `momentum`, dampening 0) or 'adam'.
        lr, momentum: of the training steps.
        loss_fn: None/'mse' (against a fixed random target), 'sum', 'cross_entropy', or a pair
            `(torch_fn, ms_fn)` mapping the model output to a scalar.
        seed: seeds torch, NumPy and ms_core (targets, labels).
        name_map: {torch name: ms name or None} overrides of the weight map.
        float64_reference: also run torch in float64 and report float32's own error (noise
            floor).
        init_check: before copying weights, KS-test each parameter's initial values (use on
            freshly built models only).
        transfer_weights: copy torch's weights into the ms model first.
        layers: per-layer comparison with local errors.
        gradients: compare gradients.
        ks_alpha: significance level of the KS test.
        local: 'auto' replays a layer on torch's inputs where its output disagrees in the full
            run (that is where a first culprit can be); 'all' replays every layer, so every row
            has its local error.

    Raises:
        ValueError: `mode`, `optimizer` or `local` is not one of its values.

    Example:
        >>> CheckSettings(mode="eval").phases()
        [PhasePlan(mode='eval', gradients=True)]
    """

    rtol: float = 1e-4
    atol: float = 1e-5
    mode: str = "both"
    train_steps: int = 0
    optimizer: str = "sgd"
    lr: float = 0.01
    momentum: float = 0.9
    loss_fn: object = None
    seed: int = 0
    name_map: dict | None = None
    float64_reference: bool = False
    init_check: bool = False
    transfer_weights: bool = True
    layers: bool = True
    gradients: bool = True
    ks_alpha: float = 1e-3
    local: str = "auto"
    mindspore: object = None

    def __post_init__(self):
        if self.local not in ("auto", "all"):
            raise ValueError(f"local must be 'auto' or 'all', but got {self.local!r}")
        if self.mode not in ("eval", "train", "both"):
            raise ValueError(f"mode must be 'eval', 'train' or 'both', but got {self.mode!r}")
        if self.optimizer not in ("sgd", "adam"):
            raise ValueError(f"optimizer must be 'sgd' or 'adam', but got {self.optimizer!r}")

    def phases(self) -> list[PhasePlan]:
        """The phases to run, in order; the gradients are compared in the last one."""
        modes = ["eval", "train"] if self.mode == "both" else [self.mode]
        return [PhasePlan(m, self.gradients and i == len(modes) - 1) for i, m in enumerate(modes)]

    def to_dict(self) -> dict:
        """The settings as the reports show them (a custom loss pair shows as 'custom')."""
        loss = self.loss_fn if isinstance(self.loss_fn, str) or self.loss_fn is None else "custom"
        return dict(rtol=self.rtol, atol=self.atol, mode=self.mode, train_steps=self.train_steps,
                    optimizer=self.optimizer, lr=self.lr, momentum=self.momentum, loss=loss,
                    seed=self.seed, float64_reference=self.float64_reference,
                    init_check=self.init_check, local=self.local,
                    mindspore=self.mindspore.describe() if self.mindspore is not None else None)


def check(torch_module, ms_cell, inputs, settings: CheckSettings | None = None,
          **options) -> CheckResult:
    """Compare a torch model with its conversion on the same weights and inputs.

    Args:
        torch_module: the reference `torch.nn.Module` (its state is restored afterwards).
        ms_cell: the converted `ms_core.nn.Cell` (receives torch's weights).
        inputs: one input or a list of inputs (NumPy arrays, torch or ms tensors; integer
            arrays for token ids / labels are passed as they are and not differentiated).
        settings: a :class:`CheckSettings` (default: its defaults).
        options: any :class:`CheckSettings` field by keyword (`mode='eval'`, `train_steps=5`,
            `rtol=1e-3`, ...), replacing the one in `settings`.

    Returns:
        A :class:`~migrate.check.result.CheckResult` (`.passed`, `.culprit`, `.exit_code`,
        reports).

    Raises:
        CheckError: the models cannot run on the inputs (the message says why).
        ValueError: a setting is not one of its values.

    Example:
        >>> import torch, ms_core
        >>> r = check(torch.nn.Linear(4, 2), ms_core.nn.Dense(4, 2), [np.ones((3, 4), np.float32)])
        >>> r.passed, r.exit_code
        (True, 0)
    """
    s = replace(settings, **options) if settings is not None else CheckSettings(**options)
    with _earlier_objects_frozen():
        return _check(torch_module, ms_cell, inputs, s)


@contextmanager
def _earlier_objects_frozen():
    """The cyclic garbage collector leaves the objects that existed before the check alone (the
    models, torch's and libcst's modules, the caller's data) until it returns: one full
    collection over them cost 0.3 s on ResNet-18, as long as a whole check. What the check
    allocates is collected as usual, and once more at the end (a collection of only its own
    objects: a few milliseconds). Nothing is frozen if the caller froze objects itself."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.collect()
        gc.unfreeze()


def _check(torch_module, ms_cell, inputs, s) -> CheckResult:
    """check() with its settings built."""
    import torch

    import ms_core
    res = CheckResult(settings=s.to_dict())
    t0 = time.perf_counter()
    torch.manual_seed(s.seed)
    np.random.seed(s.seed)
    ms_core.set_seed(s.seed)
    inputs = _as_inputs(inputs)
    # Only training steps change parameters; a forward pass changes buffers (BatchNorm).
    torch_state0 = snapshot_torch(torch_module, buffers_only=s.train_steps <= 0)
    torch_training0 = torch_module.training
    models = ModelPair.of(torch_module, ms_cell, s.name_map)
    res.transfer = models.weight_map
    res.findings += transfer_findings(models)
    if s.init_check:
        _check_init(res, models, s.ks_alpha)
    if s.transfer_weights:
        transfer(torch_module, ms_cell, s.name_map, report=models.weight_map)
    s = _start_mindspore(res, s, ms_cell)
    res.timings["setup"] = time.perf_counter() - t0
    ms_state0 = snapshot_ms(ms_cell, buffers_only=s.train_steps <= 0)
    try:
        _run(res, models, inputs, s)
    except CheckError:
        raise
    except Exception as exc:
        raise CheckError(one_line(exc)) from exc
    finally:
        restore_torch(torch_module, torch_state0)
        torch_module.train(torch_training0)
        restore_ms(ms_cell, ms_state0)
    collect_findings(res, models)
    res.timings["total"] = time.perf_counter() - t0
    return res


def _start_mindspore(res, s, ms_cell):
    """Start the MindSpore side with the ms model's weights; if it cannot build the model, that
    is a finding and the check goes on without it."""
    if s.mindspore is None:
        return s
    from .third_side import MindSporeError
    try:
        s.mindspore.start(ms_cell)
    except MindSporeError as exc:
        res.findings.append(Finding("mindspore", "(model)", str(exc)))
        return replace(s, mindspore=None)
    res.settings.setdefault("notes", []).extend(s.mindspore.load_notes)
    return s


def _run(res, models, inputs, s) -> None:
    """The phases, then the training steps (unless there is nothing to train)."""
    for plan in s.phases():
        t1 = time.perf_counter()
        res.phases.append(run_phase(models, inputs, plan, s))
        res.timings[plan.mode] = time.perf_counter() - t1
    if s.train_steps <= 0:
        return
    if any(p.ms_error for p in res.phases):
        res.settings["notes"] = ["training steps skipped: the converted model raises"]
    elif not any(p.requires_grad for p in models.torch_module.parameters()):
        res.settings["notes"] = ["training steps skipped: the model has no trainable parameters"]
    else:
        t1 = time.perf_counter()
        last = res.phases[-1] if res.phases else None
        agree = last is not None and last.mode == "train" and bool(last.gradients) and \
            all(g.stats.passed for g in last.gradients)
        res.train = run_training(models, inputs, s, gradients_agree=agree)
        res.timings["train_steps"] = time.perf_counter() - t1


def _as_inputs(inputs) -> list:
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    out = []
    for x in inputs:
        if is_torch(x):
            out.append(x.detach().cpu().numpy())
        elif is_ms(x):
            out.append(x.asnumpy())
        else:
            out.append(x)  # arrays, and non-tensor arguments passed to both models as they are
    return out


def _check_init(res, models, alpha) -> None:
    """KS-test each floating-point parameter's initial values, torch's against the ms side's.

    ``alpha`` is the chance of one false alarm over the whole model: each of the n tests runs at
    alpha / n (Bonferroni). A DenseNet-121 has ~360 parameters; at 1e-3 each, one of them would
    'differ' in about a third of the checks by chance alone (found on pytorchcv's zoo)."""
    tensors = {full: t for full, _, _, t, _ in torch_tensors(models.torch_module)}
    ms_params = ms_parameters(models.ms_cell)
    tested = [e for e in models.weight_map.entries
              if e.ms_name in ms_params and e.action != "shape-mismatch"
              and tensors[e.torch_name].is_floating_point()]
    each = alpha / max(1, len(tested))
    for e in tested:
        t = tensors[e.torch_name]
        ks = ks_2samp(t.detach().numpy(), ms_params[e.ms_name].asnumpy(), each)
        row = InitRow(e.torch_name, e.ms_name, layer_of(e.torch_name), ks)
        res.init.append(row)
        if ks.differs:
            res.findings.append(init_finding(row, models))
