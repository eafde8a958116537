"""Zoo runs: many models checked by one command, from a TOML file, in parallel child processes.

A zoo file lists the models; ``[defaults]`` applies to every entry, an entry's own keys win::

    [defaults]
    root = "."                  # the directory holding the packages (relative to this file)
    input_shape = ["2,3,32,32"]
    mode = "both"
    train_steps = 2

    [[model]]
    model = "models.resnet:ResNet18()"     # module:expression under root
    [[model]]
    name = "vgg11"
    path = "models/vgg.py"                 # or a file (relative to root) and an expression
    model = "VGG('VGG11')"
    input_shape = ["2,3,32,32"]
    input_dtype = ["float32"]

Paths may use ``~`` and ``$VARIABLES`` (``root = "$SNAPSHOTS/pytorch-cifar"``). Keys: name,
model, path, root, converted, input_shape, input_dtype, input_range, timeout,
reports (extra report files), and every check setting: mode, train_steps, optimizer, lr,
momentum, loss, rtol, atol, seed, float64, init_check, local.

Each entry runs in its own child process (a crash, an out-of-memory kill or its timeout is that
entry's "could not run"), writes its reports (HTML and JSON under the report directory), and
sends back one :class:`ZooRow` for the summary table.
"""
from __future__ import annotations

import math
import os
import re
import time
from dataclasses import asdict, dataclass, field

from .api import CheckSettings
from .harness import CheckJob, UsageError, run_job
from .result import EXIT_ERROR, CheckError

_SETTINGS = {"mode": "mode", "train_steps": "train_steps", "optimizer": "optimizer", "lr": "lr",
             "momentum": "momentum", "loss": "loss_fn", "rtol": "rtol", "atol": "atol",
             "seed": "seed", "float64": "float64_reference", "init_check": "init_check",
             "local": "local"}
_ENTRY_KEYS = {"name", "model", "path", "root", "converted", "input_shape", "input_dtype",
               "input_range", "timeout", "reports", "ms_python"} | set(_SETTINGS)


@dataclass
class ZooRow:
    """One model's line of the summary table."""

    name: str
    verdict: str  # PASS | MISMATCH | ERROR
    exit_code: int
    worst: str = ""
    culprit: str = ""
    seconds: float = 0.0
    reports: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# --- the zoo file ---------------------------------------------------------------------------------

def load_zoo(path: str, init_check: bool = True, ms_python=None) -> list[CheckJob]:
    """The check jobs of a zoo file.

    Args:
        path: the TOML file.
        init_check: the default of the entries' `init_check`.
        ms_python: the default of the entries' `ms_python` (real MindSpore as a third side).

    Returns:
        One :class:`~migrate.check.harness.CheckJob` per ``[[model]]``, names made unique.

    Raises:
        UsageError: the file does not parse, or an entry is incomplete or has unknown keys (the
            message names the entry).

    Example:
        >>> jobs = load_zoo("models.toml")   # doctest: +SKIP
    """
    import tomllib
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    base = os.path.dirname(os.path.abspath(path))
    defaults = data.get("defaults", {})
    entries = data.get("model", [])
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{path}: no [[model]] entries")
    jobs, seen = [], {}
    for i, entry in enumerate(entries):
        job = _job(base, {**defaults, **entry}, f"{path}: model {i + 1}", init_check)
        job.ms_python = job.ms_python or ms_python
        n = seen[job.name] = seen.get(job.name, 0) + 1
        if n > 1:
            job.name = f"{job.name} #{n}"
        jobs.append(job)
    return jobs


def _job(base, entry, where, init_check) -> CheckJob:
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)} (known: "
                         f"{', '.join(sorted(_ENTRY_KEYS))})")
    if "model" not in entry or "input_shape" not in entry:
        raise UsageError(f"{where}: needs 'model' and 'input_shape'")
    root = os.path.normpath(os.path.join(base, _expand(entry.get("root", "."))))
    path = os.path.join(root, _expand(entry["path"])) if entry.get("path") else None
    options = {_SETTINGS[k]: v for k, v in entry.items() if k in _SETTINGS}
    options.setdefault("init_check", init_check)
    try:
        settings = CheckSettings(**options)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: {exc}") from None
    shapes = entry["input_shape"]
    shapes = [shapes] if isinstance(shapes, str) else list(shapes)
    return CheckJob(str(entry.get("name") or entry["model"]), path, entry["model"], shapes,
                    _as_list(entry.get("input_dtype")), _as_list(entry.get("input_range")),
                    root, entry.get("converted"), settings, _as_list(entry.get("reports")) or [],
                    entry.get("timeout"), entry.get("ms_python"))


def _expand(text: str) -> str:
    """~ and $VARS in paths (a zoo file shared between machines names its roots by variables)."""
    return os.path.expanduser(os.path.expandvars(text))


def _as_list(value):
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


# --- one entry (in the child process) --------------------------------------------------------------

def report_stem(name: str) -> str:
    """A file name for a model's reports."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:80] or "model"


def run_entry(job: CheckJob, converters, report_dir) -> ZooRow:
    """Check one zoo entry, write its reports, return its summary row (errors included)."""
    t0 = time.perf_counter()
    reports = list(job.reports)
    if report_dir:
        stem = os.path.join(report_dir, report_stem(job.name))
        reports += [stem + ".html", stem + ".json"]
    try:
        convert, cache, convert_mindspore = converters
        result, notes = run_job(job, convert, cache, convert_mindspore)
    except (UsageError, CheckError) as exc:
        return ZooRow(job.name, "ERROR", EXIT_ERROR, culprit=str(exc),
                      seconds=time.perf_counter() - t0)
    for path in reports:
        result.write(path)
    return ZooRow(job.name, "PASS" if result.passed else "MISMATCH", result.exit_code,
                  worst_quantity(result), str(result.culprit) if result.culprit else "",
                  time.perf_counter() - t0, reports, list(notes))


def worst_quantity(result) -> str:
    """The compared quantity nearest to (or furthest beyond) its tolerance, in words."""
    best = None
    for label, st, beyond in _quantities(result):
        if st is None or st.numel == 0:
            continue
        tol = st.atol + st.rtol * abs(st.worst_torch)
        ratio = st.max_abs / tol if tol > 0 else (math.inf if st.max_abs > 0 else 0.0)
        if not math.isfinite(ratio):
            ratio = 1e300
        key = (not st.passed, ratio)
        if best is None or key > best[0]:
            best = (key, label, st, beyond)
    if best is None:
        return "-"
    _, label, st, beyond = best
    word = beyond if not st.passed else (f"noise: {st.explained}" if st.explained else "pass")
    return f"{label}: max abs {st.max_abs:.2g} ({word})"


def _quantities(result):
    """(label, stats, the word for stats beyond the tolerance) of every compared quantity: a
    layer whose accumulated output alone is beyond it (its own error within) is 'drift'."""
    for ph in result.phases:
        yield f"{ph.mode} outputs", ph.outputs, "FAIL"
        for row in ph.layers:
            yield f"{ph.mode} {row.name}", row.output, \
                "drift" if row.status == "drift" else "FAIL"
            yield f"{ph.mode} {row.name} (own)", row.local, "FAIL"
        for g in ph.gradients:
            yield f"{ph.mode} grad {g.name}", g.stats, "FAIL"
    tr = result.train
    if tr is not None:
        yield "training loss", tr.loss_stats, "FAIL"
        yield "inference after training", tr.eval_outputs, "FAIL"
        for p in tr.params:
            yield f"after training {p.name}", p.stats, "FAIL"


# --- running many ---------------------------------------------------------------------------------

def run_zoo(jobs, converters, report_dir, n_jobs=1, timeout=None, threads=1,
            on_start=None, on_done=None) -> list[ZooRow]:
    """Check every job in child processes, `n_jobs` at a time.

    Args:
        jobs: the :class:`CheckJob` list.
        converters: (converter, conversion cache, converter to MindSpore) (see the harness).
        report_dir: where each model's HTML and JSON reports go (None: only the jobs' own).
        n_jobs: how many checks run at once.
        timeout: seconds per check unless the entry sets its own (None: no limit).
        threads: torch threads per child.
        on_start, on_done: callbacks `on_start(job)`, `on_done(job, row)` (progress display).

    Returns:
        The rows in the order of `jobs`.
    """
    from .isolate import ChildFailed, start
    if report_dir:
        os.makedirs(report_dir, exist_ok=True)
    pending, running, rows = list(enumerate(jobs)), {}, {}
    while pending or running:
        while pending and len(running) < max(1, n_jobs):
            i, job = pending.pop(0)
            limit = job.timeout if job.timeout is not None else timeout
            running[i] = (start(run_entry, (job, converters, report_dir), timeout=limit,
                                threads=threads), time.perf_counter())
            if on_start:
                on_start(job)
        for i, (child, t0) in list(running.items()):
            if child.done() or child.expired():
                try:
                    row = _finish(child, jobs[i], t0, ChildFailed)
                finally:
                    del running[i]
                rows[i] = row
                if on_done:
                    on_done(jobs[i], row)
        if running:
            time.sleep(0.05)
    return [rows[i] for i in range(len(jobs))]


def _finish(child, job, t0, failed_type) -> ZooRow:
    if not child.done():
        child.kill()
        return ZooRow(job.name, "ERROR", EXIT_ERROR,
                      culprit=f"the check did not finish within {child.timeout:g} s (timeout)",
                      seconds=time.perf_counter() - t0)
    try:
        return child.result()
    except failed_type as exc:
        return ZooRow(job.name, "ERROR", EXIT_ERROR, culprit=str(exc),
                      seconds=time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 (an error of the checker itself: that entry's error)
        return ZooRow(job.name, "ERROR", EXIT_ERROR, culprit=f"{type(exc).__name__}: {exc}",
                      seconds=time.perf_counter() - t0)


def exit_code(rows) -> int:
    """The command's exit code: the worst entry's (2 could not run > 1 mismatch > 0 pass)."""
    return max((r.exit_code for r in rows), default=0)


def summary_index(rows, path) -> None:
    """A summary JSON beside the per-model reports."""
    import json
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"exit_code": exit_code(rows), "models": [r.to_dict() for r in rows]}, f,
                  indent=1)
