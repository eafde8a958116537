"""`migrate check-ddp`: a data-parallel training script under torch DDP beside its conversion
under the ms_core launcher (and, with an interpreter that has MindSpore, the `--target
mindspore` conversion under msrun), from the same initial weights, random numbers and data
order; every rank's per-step losses and its final parameters and buffers compared.

    from migrate import convert_source
    from migrate.check.ddp import DdpSettings, check_ddp
    result = check_ddp("train.py", DdpSettings(nproc=2, max_steps=20), convert=convert_source)
    result.passed, result.exit_code

The torch side runs under torchrun (gloo; a script that starts its own processes with
`mp.spawn` runs as it is), with the hooks of :mod:`migrate.check.ddp_torch`; the converted
sides with those of ``ddp_converted.py``; each process loads them at start-up (see
:mod:`migrate.check.ddp_hooks`). Every run is bounded by a timeout and runs in its own session,
stopped whole when the time is up. The checker never imports the converter: the caller hands it
over (``convert(source_text) -> result with .code/.error``), as for `migrate check`.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from .loader import convert_tree, locate

_SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddp_site")
_PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SPAWN = re.compile(r"\b(?:mp|multiprocessing|torch\.multiprocessing)\.(?:spawn|start_processes)\s*\(|"
                    r"^\s*from\s+torch\.multiprocessing\s+import\s+.*\bspawn\b", re.MULTILINE)
EXIT_PASS, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2


@dataclass
class DdpSettings:
    """What to run and how closely the sides must agree.

    Attributes:
        nproc: processes per side.
        max_steps: end each process after this many optimizer steps (None: the whole script).
        rtol, atol: tolerances of losses and final parameters (float32: 1e-5 / 1e-6).
        timeout: seconds each side may take.
        args: the script's command-line arguments.
        ms_python: an interpreter with MindSpore: also run the `--target mindspore` conversion
            under msrun (from that interpreter's bin directory).
    """

    nproc: int = 2
    max_steps: int | None = None
    rtol: float = 1e-5
    atol: float = 1e-6
    timeout: float = 600.0
    args: tuple = ()
    ms_python: str | None = None


@dataclass
class RankTrace:
    """What one rank recorded."""

    losses: list
    steps: list
    notes: list
    state: dict


@dataclass
class SideRun:
    """One side's run: its command's outcome and every rank's trace."""

    side: str
    command: list
    code: int
    output: str
    seconds: float
    ranks: dict = field(default_factory=dict)
    error: str = ""


@dataclass
class RankComparison:
    """One rank of a converted side against the same rank of torch."""

    rank: int
    losses: int                      # steps compared
    loss_err: float | None           # worst relative loss difference
    worst_param: str | None = None
    param_err: float | None = None   # worst relative difference of a final value
    problems: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


@dataclass
class DdpResult:
    """The runs and their comparison, rank by rank."""

    script: str
    settings: DdpSettings
    runs: dict = field(default_factory=dict)          # side -> SideRun
    ranks: dict = field(default_factory=dict)         # converted side -> [RankComparison]
    notes: list = field(default_factory=list)

    @property
    def error(self) -> str:
        return "; ".join(f"{s}: {r.error}" for s, r in self.runs.items() if r.error)

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.ranks) and all(
            c.passed for cs in self.ranks.values() for c in cs)

    @property
    def exit_code(self) -> int:
        return EXIT_ERROR if self.error else EXIT_PASS if self.passed else EXIT_MISMATCH

    def to_dict(self) -> dict:
        return {"script": self.script, "nproc": self.settings.nproc, "passed": self.passed,
                "error": self.error, "notes": self.notes,
                "runs": {s: {"code": r.code, "seconds": round(r.seconds, 2), "command": r.command,
                             "error": r.error, "ranks": sorted(r.ranks)} for s, r in self.runs.items()},
                "ranks": {s: [c.__dict__ | {"passed": c.passed} for c in cs] for s, cs in self.ranks.items()},
                "losses": {s: {str(k): t.losses for k, t in r.ranks.items()} for s, r in self.runs.items()}}


def uses_spawn(text: str) -> bool:
    """Whether a script starts its own worker processes (`mp.spawn`)."""
    return bool(_SPAWN.search(text))


def check_ddp(script: str, settings: DdpSettings, convert, convert_mindspore=None,
              work: str | None = None) -> DdpResult:
    """Run `script` under torch DDP and its conversion(s) under their launchers; compare.

    Args:
        script: the torch training script.
        settings: see :class:`DdpSettings`.
        convert: the converter to ms_core (``convert(text)``, as for `migrate check`).
        convert_mindspore: the converter to MindSpore (needed with `settings.ms_python`).
        work: a directory for the runs (kept); None: a temporary one, removed afterwards.

    Returns:
        A :class:`DdpResult`.
    """
    result = DdpResult(os.path.abspath(script), settings)
    keep = work is not None
    work = work or tempfile.mkdtemp(prefix="migrate-ddp-")
    try:
        src = locate(script)
        rel = os.path.relpath(src.file, src.root)
        result.runs["torch"] = run_side("torch", src.file, src.root, settings, work)
        sides = [("ms_core", convert)]
        if settings.ms_python:
            sides.append(("mindspore", convert_mindspore))
        for side, conv in sides:
            tree = convert_tree(src, conv, target=side)
            if tree.failed:
                result.notes.append(f"{side}: files that did not convert: {tree.failed}")
            result.runs[side] = run_side(side, os.path.join(tree.root, rel), tree.root, settings, work)
            result.ranks[side] = compare_side(result.runs["torch"], result.runs[side], settings)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return result


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def side_command(side: str, script: str, settings: DdpSettings, logs: str) -> tuple[list, dict]:
    """The command that runs one side, and what it adds to the environment."""
    n, args, port = str(settings.nproc), list(settings.args), str(_free_port())
    if side == "torch":
        with open(script, encoding="utf-8") as f:
            if uses_spawn(f.read()):
                return [sys.executable, script, *args], {}
        return [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", n, "--master-addr",
                "127.0.0.1", "--master-port", port, script, *args], {}
    if side == "ms_core":
        return [sys.executable, "-m", "ms_core.launch", "--nproc", n, "--master-port", port, script, *args], {}
    bin_dir = os.path.dirname(os.path.abspath(settings.ms_python))
    return ([os.path.join(bin_dir, "msrun"), f"--worker_num={n}", f"--local_worker_num={n}",
             f"--master_port={port}", "--join=True", f"--log_dir={logs}", script, *args],
            {"PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")})


def _environment(side: str, root: str, settings: DdpSettings, work: str, extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "RANK_ID")}
    paths = [_SITE, _PROJECT, root, env.get("PYTHONPATH", "")]
    env.update(PYTHONPATH=os.pathsep.join(p for p in paths if p), MIGRATE_DDP_TRACE=work,
               MIGRATE_DDP_SIDE=side, MIGRATE_DDP_ROOT=root, MIGRATE_DDP_NPROC=str(settings.nproc),
               PYTHONUNBUFFERED="1")
    if settings.max_steps:
        env["MIGRATE_DDP_MAX_STEPS"] = str(settings.max_steps)
    env.update(extra)
    return env


def run_bounded(command, env, cwd, timeout) -> tuple[int | None, str]:
    """Run `command` in its own session; (return code, output), None when the time ran out
    (then the whole session, launcher and workers, is killed)."""
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out


def run_side(side: str, script: str, root: str, settings: DdpSettings, work: str) -> SideRun:
    """Run one side in its own empty directory (scripts write checkpoints where they run)."""
    cwd = os.path.join(work, f"run-{side}")
    os.makedirs(cwd, exist_ok=True)
    command, extra = side_command(side, script, settings, os.path.join(cwd, "logs"))
    env = _environment(side, root, settings, work, extra)
    start = time.monotonic()
    code, out = run_bounded(command, env, cwd, settings.timeout)
    run = SideRun(side, command, -1 if code is None else code, out, time.monotonic() - start)
    if side == "mindspore":
        run.output += _msrun_logs(os.path.join(cwd, "logs"))
    with open(os.path.join(cwd, "output.log"), "w", encoding="utf-8") as f:
        f.write(run.output)
    if code is None:
        run.error = f"did not finish in {settings.timeout:g} s"
    elif code != 0:
        run.error = f"exited with code {code}: {_last_error(run.output)}"
    run.ranks = read_traces(os.path.join(work, side))
    if not run.error and len(run.ranks) != settings.nproc:
        run.error = f"{len(run.ranks)} of {settings.nproc} ranks recorded a training step"
    return run


def _msrun_logs(directory: str) -> str:
    out = []
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else ():
        if name.startswith("worker_"):
            with open(os.path.join(directory, name), errors="replace") as f:
                out.append(f"--- {name}\n" + f.read())
    return "\n".join(out)


def _last_error(output: str) -> str:
    """The last line that looks like an error (or the last line) of a run's output."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^(\[rank\d+\]: )?\w*(Error|Exception)\b|^ms_core\.launch:", ln):
            return ln[:300]
    return lines[-1][:300] if lines else "no output"


def read_traces(directory: str) -> dict:
    """rank -> RankTrace from one side's files."""
    out = {}
    if not os.path.isdir(directory):
        return out
    for name in os.listdir(directory):
        m = re.fullmatch(r"rank(\d+)\.json", name)
        if not m:
            continue
        with open(os.path.join(directory, name)) as f:
            data = json.load(f)
        state = {}
        npz = os.path.join(directory, f"rank{m.group(1)}.npz")
        if os.path.isfile(npz):
            with np.load(npz) as z:
                state = {k[len("state/"):]: z[k] for k in z.files if k.startswith("state/")}
        out[int(m.group(1))] = RankTrace(data["losses"], data["steps"], data["notes"], state)
    return out


def _rel(a, b) -> float:
    """max |a - b| / max |b| (the size of the difference against the values' scale)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-30))


def _close(a, b, settings) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= settings.atol + settings.rtol * np.abs(b)))


def compare_side(ref: SideRun, run: SideRun, settings: DdpSettings) -> list:
    """Every rank of `run` against the same rank of the torch run `ref`."""
    out = []
    for rank in range(settings.nproc):
        t, c = ref.ranks.get(rank), run.ranks.get(rank)
        if t is None or c is None:
            out.append(RankComparison(rank, 0, None, problems=[
                f"rank {rank}: no trace from {'torch' if t is None else run.side}"]))
            continue
        out.append(compare_rank(rank, t, c, settings))
    return out


def compare_rank(rank: int, t: RankTrace, c: RankTrace, settings: DdpSettings) -> RankComparison:
    """Losses step by step and the final values of one rank."""
    n = min(len(t.losses), len(c.losses))
    cmp = RankComparison(rank, n, _rel(c.losses[:n], t.losses[:n]) if n else None)
    if len(t.losses) != len(c.losses) or len(t.steps) != len(c.steps):
        cmp.problems.append(f"torch made {len(t.losses)} losses / {len(t.steps)} steps, the "
                            f"conversion {len(c.losses)} / {len(c.steps)}")
    if n == 0:
        cmp.problems.append("no loss to compare")
    elif not _close(c.losses[:n], t.losses[:n], settings):
        bad = next(i for i in range(n) if not _close(c.losses[i], t.losses[i], settings))
        cmp.problems.append(f"loss of step {bad}: torch {t.losses[bad]:.8g}, converted {c.losses[bad]:.8g}")
    _compare_state(cmp, t.state, c.state, settings)
    cmp.problems += [f"note: {x}" for x in c.notes if "replay stopped" in x or "nothing recorded" in x]
    return cmp


def _compare_state(cmp: RankComparison, t: dict, c: dict, settings: DdpSettings) -> None:
    missing = sorted(set(t) - set(c))
    if missing:
        cmp.problems.append(f"final values without a converted counterpart: {missing[:6]}")
    worst, worst_name = 0.0, None
    for name in sorted(set(t) & set(c)):
        a, b = np.asarray(c[name]), np.asarray(t[name])
        if a.size == b.size:
            a = a.reshape(b.shape)
        if not _close(a, b, settings):
            err = _rel(a, b) if a.shape == b.shape else float("inf")
            if err >= worst:
                worst, worst_name = err, name
    if worst_name is not None:
        cmp.worst_param, cmp.param_err = worst_name, worst
        cmp.problems.append(f"final '{worst_name}' differs (worst relative difference {worst:.3g})")
    elif t and c:
        common = sorted(set(t) & set(c))
        errs = [(_rel(np.asarray(c[k]).reshape(np.shape(t[k])), t[k]), k) for k in common]
        if errs:
            cmp.param_err, cmp.worst_param = max(errs)
