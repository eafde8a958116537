"""Real MindSpore as a third side (`migrate check --ms-python PYTHON`).

The model converted with ``--target mindspore`` runs in a child process of an interpreter that
has MindSpore (:mod:`migrate.check.mindspore_side`, which imports neither torch nor this
project), with the ms_core model's weights (torch's, mapped) and the same inputs, dropout masks
and loss targets. Its outputs, every cell call its forward hooks see and its gradients are
compared with torch's as a third column: torch vs ms_core vs MindSpore. A difference beyond the
tolerance is judged against torch float64 as ms_core's are; what still differs is a finding.
Training steps are not taken on MindSpore.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .compare import as_array, compare, float64_explains
from .rnn import ms_rnn_masks
from .run import flatten, ms_dropout_keep

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_side.py")


class MindSporeError(Exception):
    """The MindSpore side could not start or answer."""


@dataclass
class ThirdRun:
    """What MindSpore computed in one phase (arrays), or why it could not."""

    outputs: list = field(default_factory=list)
    layers: dict = field(default_factory=dict)  # (path, k) -> [arrays]
    grads: dict = field(default_factory=dict)  # ms parameter name or 'input[i]' -> array
    loss: float | None = None
    notes: list = field(default_factory=list)
    error: str | None = None


class MindSporeSide:
    """A child process running the MindSpore conversion; one request per phase.

    Args:
        python: the interpreter with MindSpore.
        root, module, file, expr: the converted (target mindspore) tree, the module in it, its
            file, and the constructor expression (converted).
        imports: import statements run in the module's namespace before `expr` (the names the
            converted expression reads that its module does not bind).
        seed: seeds MindSpore before the model is built.
        timeout: seconds to wait for an answer.
    """

    def __init__(self, python, root, module, file, expr, seed=0, timeout=1800.0, imports=()):
        self.python, self.timeout = python, timeout
        self.spec = {"root": root, "module": module, "file": file, "expr": expr, "seed": seed,
                     "imports": list(imports)}
        self.workdir = tempfile.mkdtemp(prefix="migrate-check-ms-")
        self.proc = None
        self.load_notes: list = []
        self.tree_notes: list = []
        self.phases = 0

    def describe(self) -> str:
        return f"MindSpore via {self.python}"

    def start(self, ms_cell) -> None:
        """Start the child with the ms_core model's current weights.

        Raises:
            MindSporeError: the interpreter is missing, or the model does not import or build.
        """
        with open(os.path.join(self.workdir, "setup.json"), "w", encoding="utf-8") as f:
            json.dump(self.spec, f)
        np.savez(os.path.join(self.workdir, "weights.npz"),
                 **{n: p.asnumpy() for n, p in ms_cell.parameters_and_names()})
        try:
            self.proc = subprocess.Popen([self.python, SCRIPT, self.workdir], text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE)
        except OSError as exc:
            raise MindSporeError(f"--ms-python {self.python}: {exc.strerror}") from None
        answer = self._answer()
        if not answer.get("ok"):
            raise MindSporeError(f"the MindSpore conversion does not build: {answer['error']}")
        if answer["missing"] or answer["unused"]:
            self.load_notes.append(f"MindSpore parameters without a value: "
                                   f"{answer['missing'][:6]}; values without a parameter: "
                                   f"{answer['unused'][:6]}")

    def _answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read() if self.proc.poll() is not None else ""
            tail = err.strip().splitlines()[-1] if err.strip() else "no answer"
            raise MindSporeError(f"the MindSpore side stopped: {tail}")
        return json.loads(line)

    def run_phase(self, mode, inputs, masks, fmasks, ms_cell, gradients, loss, targets,
                  draws=()):
        """Run one phase on MindSpore: a :class:`ThirdRun` (its `error` set if it failed);
        `draws`: torch's random draws (:class:`~migrate.check.randomness.Draw`), given to the
        MindSpore model's own draws in order."""
        self.phases += 1
        d = os.path.join(self.workdir, f"phase{self.phases}")
        os.makedirs(d, exist_ok=True)
        arrays: dict = {}
        layout = [_input_layout(x, arrays) for x in inputs]
        np.savez(os.path.join(d, "inputs.npz"), **arrays)
        np.savez(os.path.join(d, "targets.npz"), **_target_arrays(loss, targets))
        np.savez(os.path.join(d, "masks.npz"), **_mask_arrays(masks, fmasks, ms_cell),
                 **{f"draw/{i}": np.asarray(dr.value) for i, dr in enumerate(draws)})
        with open(os.path.join(d, "request.json"), "w", encoding="utf-8") as f:
            json.dump({"mode": mode, "gradients": bool(gradients), "loss": loss,
                       "inputs": layout}, f)
        try:
            self.proc.stdin.write(json.dumps({"cmd": "phase", "dir": d}) + "\n")
            self.proc.stdin.flush()
            answer = self._answer()
        except (MindSporeError, OSError) as exc:
            return ThirdRun(error=str(exc))
        results = os.path.join(d, "results.npz")
        run = _read_results(results, answer.get("notes", [])) if os.path.isfile(results) \
            else ThirdRun()
        run.error = None if answer.get("ok") else answer["error"]
        return run

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _input_layout(x, arrays: dict):
    """One model argument as JSON for the MindSpore side: an array is saved in `arrays` and
    named ({"array": key}); a tuple or list of them keeps its kind ({"tuple": [...]}, an LSTM's
    (h, c)); a number, string, bool or None is passed as it is ({"value": x})."""
    if isinstance(x, (tuple, list)):
        return {type(x).__name__ if isinstance(x, list) else "tuple":
                [_input_layout(i, arrays) for i in x]}
    if x is None or isinstance(x, (bool, int, float, str)):
        return {"value": x}
    key = f"input_{len(arrays)}"
    arrays[key] = np.asarray(x)
    return {"array": key}


def _target_arrays(loss, targets) -> dict:
    if targets is None:
        return {}
    if loss == "cross_entropy":
        return {"onehot": targets[1]}
    return {f"t{i}": t for i, t in enumerate(targets) if t is not None}


def _mask_arrays(masks, fmasks, ms_cell) -> dict:
    out = {}
    masks = dict(masks or {})
    masks.update(ms_rnn_masks(masks, ms_cell, lambda c: ms_dropout_keep(c) is not None))
    for key, mask in masks.items():
        if len(key) == 2:
            out[f"module/{key[0]}#{key[1]}"] = np.asarray(mask)
    for i, mask in enumerate(fmasks or []):
        out[f"functional/{i}"] = np.asarray(mask)
    return out


def _read_results(path, notes) -> ThirdRun:
    run = ThirdRun(notes=list(notes))
    data = np.load(path)
    layers: dict = {}
    for key in data.files:
        if key.startswith("out/"):
            run.outputs.append((int(key[4:]), data[key]))
        elif key.startswith("layer/"):
            name, _, i = key[6:].rpartition("/")
            path_, _, k = name.rpartition("#")
            layers.setdefault((path_, int(k)), []).append((int(i), data[key]))
        elif key.startswith("grad/"):
            run.grads[key[5:]] = data[key]
        elif key == "loss":
            run.loss = float(data[key])
    run.outputs = [v for _, v in sorted(run.outputs)]
    run.layers = {k: [v for _, v in sorted(items)] for k, items in layers.items()}
    return run


# --- comparing the third column -------------------------------------------------------------------

def compare_third(phase, third, t_run, models, s, run64=None) -> None:
    """Fill the phase's MindSpore column: outputs, each layer row, each gradient (vs torch),
    accepting what float32 rounding explains when a float64 run `run64` is given."""
    from .weights import as_torch_layout
    phase.mindspore_error = third.error
    phase.notes += [f"MindSpore: {n}" for n in dict.fromkeys(third.notes)]
    t_out = [as_array(o) for o in flatten(t_run.output)]
    if third.error is None and len(t_out) == len(third.outputs):
        phase.mindspore_outputs = _worst(third.outputs, t_out, s)
        if run64 is not None:
            float64_explains(phase.mindspore_outputs, third.outputs, t_out,
                             [as_array(o) for o in flatten(run64.output)])
    for row in phase.layers:
        values = third.layers.get((row.path, row.call))
        t_call = t_run.recorder.calls.get((row.path, row.call))
        if values is None or t_call is None:
            if third.error and phase.mindspore_failed_at is None and t_call is not None and \
                    not t_call.children:
                phase.mindspore_failed_at = row.name  # the first leaf MindSpore did not finish
            continue
        tv = [as_array(o) for o in flatten(t_call.output)]
        if len(tv) != len(values):
            continue
        row.mindspore = _worst(values, tv, s)
        c64 = run64.calls.get((row.path, row.call)) if run64 is not None else None
        if c64 is not None:
            float64_explains(row.mindspore, values, tv, [as_array(o) for o in
                                                           flatten(c64.output)])
    for g in phase.gradients:
        value = third.grads.get(g.ms_name if not g.name.startswith("input") else g.name)
        if value is None or g.name not in t_run.grads:
            continue
        tg = t_run.grads[g.name]
        g.mindspore = compare(as_torch_layout(value, tg.shape), tg, s.rtol, s.atol)
        if run64 is not None and g.name in run64.grads:
            float64_explains(g.mindspore, as_torch_layout(value, tg.shape), tg,
                             run64.grads[g.name])


def _worst(values, torch_values, s):
    stats = [compare(v, t, s.rtol, s.atol) for v, t in zip(values, torch_values)]
    return max(stats, key=lambda st: (not st.passed, st.max_abs if np.isfinite(st.max_abs)
                                      else 1e300))


def third_needs_reference(phase) -> bool:
    """Whether some MindSpore number of the phase is beyond its tolerance."""
    if phase.mindspore_outputs is not None and not phase.mindspore_outputs.passed:
        return True
    if any(r.mindspore is not None and not r.mindspore.passed for r in phase.layers):
        return True
    return any(g.mindspore is not None and not g.mindspore.passed for g in phase.gradients)
