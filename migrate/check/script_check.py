"""`migrate check-script`: a training script and its conversion, trained side by side for N steps.

Both scripts run as ``__main__`` in child processes (the converted one where torch cannot be
imported), each in its own copy of its directory, from the same weights and with the same random
numbers, dropout masks and data order (:mod:`migrate.check.script_trace`). After each of the first
N optimizer steps every parameter is kept (by its torch name); then the script is stopped. The
check walks the steps in order and reports the first place where the runs part: the step's loss
(computed before that step's update), or the first parameter, in torch's order, that differs after
the update (max abs / rel error and the worst element). A run that fails is reported with its
error and the line of the script it came from.

Example::

    migrate check-script train.py --steps 5 -- --epochs 1 --batch-size 8
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .result import EXIT_ERROR, EXIT_MISMATCH, EXIT_PASS

_BLOCKED = ("torch", "torchvision", "torchaudio", "torchtext", "functorch")


@dataclass
class SideRun:
    """One script's run: ``ran`` (to the end or stopped after the steps), ``fail`` or ``timeout``."""

    status: str
    error: str = ""
    where: str = ""
    stdout: str = ""
    seconds: float = 0.0


@dataclass
class Parting:
    """Where the runs part: ``what`` is ``loss`` (of step ``step``, before its update),
    ``parameter`` (``name`` after step ``step``'s update), ``missing`` (a parameter one side has)
    or ``steps`` (one run took fewer steps)."""

    step: int
    what: str
    name: str = ""
    torch: float | None = None
    converted: float | None = None
    max_abs: float | None = None
    max_rel: float | None = None
    index: list = field(default_factory=list)
    detail: str = ""


@dataclass
class ScriptCheck:
    """What `check_script` found."""

    script: str
    steps: int
    original: SideRun
    converted: SideRun
    losses: list = field(default_factory=list)      # [(torch, converted)] per step
    parameters: int = 0
    parting: Parting | None = None
    notes: list = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.original.status != "ran" or self.converted.status != "ran":
            return EXIT_ERROR
        return EXIT_MISMATCH if self.parting is not None else EXIT_PASS

    def to_dict(self) -> dict:
        return asdict(self) | {"exit_code": self.exit_code}


def check_script(script, converted_root, args=(), steps=5, rtol=1e-4, atol=1e-6, timeout=600.0,
                 root=None, work=None) -> ScriptCheck:
    """Run ``script`` and its conversion for ``steps`` optimizer steps and compare them.

    Args:
        script: the PyTorch training script (a path).
        converted_root: the converted copy of ``root`` (``migrate convert ROOT -o DIR``).
        args: the script's command-line arguments (both runs get them).
        steps: optimizer steps to compare.
        rtol, atol: the tolerances of a loss and of every parameter element.
        timeout: seconds per run.
        root: the directory the script belongs to (default: its own); copied whole for each run.
        work: where the runs' copies and traces go (default: a temporary directory, removed).

    Returns:
        A :class:`ScriptCheck`; its ``exit_code`` is 0 when the runs agree for every step, 1
        when they part, 2 when a run fails.

    Raises:
        FileNotFoundError: the script or the converted copy is missing.
    """
    script = Path(script).resolve()
    root = Path(root).resolve() if root else script.parent
    converted_root = Path(converted_root).resolve()
    rel = script.relative_to(root)
    if not script.is_file() or not (converted_root / rel).is_file():
        raise FileNotFoundError(f"For 'check-script', {script} or its conversion {converted_root / rel} "
                                f"does not exist.")
    temp = None if work else tempfile.mkdtemp(prefix="migrate-check-script-")
    work = Path(work or temp)
    try:
        runs = {}
        for side, tree in (("original", root), ("converted", converted_root)):
            copy = work / side
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(tree, copy, ignore=shutil.ignore_patterns(".git", "__pycache__"))
            runs[side] = _run(side, copy / rel, copy, work / "trace", list(args), steps, timeout)
        result = ScriptCheck(str(script), steps, runs["original"], runs["converted"])
        if result.exit_code != EXIT_ERROR:
            _compare(result, work / "trace", rtol, atol)
        return result
    finally:
        if temp:
            shutil.rmtree(temp, ignore_errors=True)


def _run(side, script, tree, trace, args, steps, timeout) -> SideRun:
    cmd = [sys.executable, "-m", "migrate.check.script_check", "--child", side, "--script", str(script),
           "--tree", str(tree), "--trace", str(trace), "--steps", str(steps), "--", *args]
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (repo, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run(cmd, cwd=script.parent, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return SideRun("timeout", f"still running after {timeout:.0f} s")
    if proc.returncode == 0:
        return SideRun("ran", stdout=proc.stdout)
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    where = ""
    for m in re.finditer(r'File "([^"]+)", line (\d+)', proc.stderr):
        if m.group(1).startswith(str(tree)):
            where = f"{os.path.relpath(m.group(1), tree)}:{m.group(2)}"
    return SideRun("fail", lines[-1][:300] if lines else f"exit {proc.returncode}", where, proc.stdout)


def _rel(a, b) -> float:
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12))) if np.size(a) else 0.0


def _compare(result: ScriptCheck, trace: Path, rtol: float, atol: float) -> None:
    """Walk the steps in the order they ran: the losses computed before step k's update, then the
    parameters after it; the first difference is the parting."""
    t = json.loads((trace / "original" / "trace.json").read_text())
    c = json.loads((trace / "converted" / "trace.json").read_text())
    result.notes += c.get("notes", [])
    ts, cs = _steps(trace / "original"), _steps(trace / "converted")
    result.losses = list(zip(t["losses"], c["losses"]))
    result.parameters = len(ts[0]) if ts else 0
    n = min(len(ts), len(cs))
    for k in range(n + 1):
        part = _loss_parting(t, c, k, rtol, atol)
        if part is None and k < n:
            part = _param_parting(ts[k], cs[k], k, rtol, atol)
        if part is not None:
            result.parting = part
            return
    if len(ts) != len(cs):
        result.parting = Parting(n + 1, "steps", detail=f"torch took {len(ts)} optimizer steps, the conversion "
                                                        f"{len(cs)}")


def _losses_before(trace: dict, k: int) -> list:
    steps = trace.get("loss_steps") or [0] * len(trace["losses"])
    return [v for v, s in zip(trace["losses"], steps) if s == k]


def _loss_parting(t, c, k, rtol, atol) -> Parting | None:
    """The losses computed after k optimizer steps (before step k + 1's update)."""
    a, b = _losses_before(t, k), _losses_before(c, k)
    for i, (x, y) in enumerate(zip(a, b)):
        if abs(y - x) > atol + rtol * abs(x):
            return Parting(k + 1, "loss", f"loss {i + 1} of the step" if len(a) > 1 else "", torch=x, converted=y,
                           max_abs=abs(y - x), max_rel=abs(y - x) / max(abs(x), 1e-12))
    if len(a) != len(b):
        return Parting(k + 1, "loss", detail=f"torch computed {len(a)} losses before this step's update, the "
                                             f"conversion {len(b)}")
    return None


def _steps(side: Path) -> list[dict]:
    path = side / "steps.npz"
    if not path.is_file():
        return []
    out: list[dict] = []
    with np.load(path) as z:
        for key in z.files:
            k, name = key.split(":", 1)
            while len(out) <= int(k):
                out.append({})
            out[int(k)][name] = z[key]
    return out


def _param_parting(a: dict, b: dict, k, rtol, atol) -> Parting | None:
    for name, want in a.items():
        got = b.get(name)
        if got is None:
            return Parting(k + 1, "missing", name, detail="the conversion's optimizer has no such parameter")
        if got.shape != want.shape:
            return Parting(k + 1, "parameter", name, detail=f"shape {list(got.shape)} vs torch {list(want.shape)}")
        bad = np.abs(got - want) > atol + rtol * np.abs(want)
        if bad.any():
            i = np.unravel_index(int(np.argmax(np.abs(got - want))), want.shape) if want.ndim else ()
            return Parting(k + 1, "parameter", name, torch=float(want[i]), converted=float(got[i]),
                           max_abs=float(np.max(np.abs(got - want))), max_rel=_rel(got, want),
                           index=[int(v) for v in i])
    extra = sorted(set(b) - set(a))
    if extra:
        return Parting(k + 1, "missing", extra[0], detail="torch's optimizer has no such parameter")
    return None


# ---- the child process -------------------------------------------------------------------------

class _NoTorch:
    """A meta-path finder that makes torch impossible to import (the converted run)."""

    def find_spec(self, name, path=None, target=None):
        """Refuse torch's modules; None (not found here) for every other."""
        if name.split(".")[0] in _BLOCKED:
            raise ImportError(f"import of '{name}' blocked: converted code must not need torch")


def _child(argv) -> int:
    import argparse
    import random
    import runpy
    ap = argparse.ArgumentParser()
    for opt in ("--child", "--script", "--tree", "--trace"):
        ap.add_argument(opt)
    ap.add_argument("--steps", type=int)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    from . import script_trace
    if a.child == "converted":
        sys.meta_path.insert(0, _NoTorch())
    random.seed(0)
    np.random.seed(0)
    side_dir = os.path.join(a.trace, a.child)
    os.makedirs(side_dir, exist_ok=True)
    replay = os.path.join(a.trace, "random.npz") if a.child == "converted" else None
    trace = script_trace.Trace(side_dir, a.tree, replay)
    options = script_trace.Options(keep_set=True, by_name=True, max_steps=a.steps)
    (script_trace.install_torch if a.child == "original" else script_trace.install_ms)(trace, options)
    sys.argv = [a.script, *(a.rest[1:] if a.rest[:1] == ["--"] else a.rest)]
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.script)))
    try:
        runpy.run_path(a.script, run_name="__main__")
    except script_trace.StopTraining:
        pass
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise
    finally:
        trace.save(os.path.join(a.trace, "random.npz") if a.child == "original" else None)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
