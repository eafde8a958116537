"""The training recipes of tests/fixtures/training/recipes (the minimal reproductions of real
recipes: a timm-style classifier, a language-model loop, a multi-task regressor) convert without
markers and train as torch: every printed number per step (losses, learning rates, validation
losses, accuracies) within rtol 1e-5 (float32; the numbers are printed with 6 to 8 decimals, so
one unit of the last printed digit is allowed too), and a converted run resumed from its own
checkpoint prints what the uninterrupted run prints, exactly."""
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from migrate import convert_source
from migrate.convert.runtime_files import write_runtime
from tests.migrate.convert.helpers import FIXTURE_ROOT, REPO

HERE = FIXTURE_ROOT / "training" / "recipes"
_NUM = re.compile(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?")


def _run(script, cwd, *args) -> str:
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    # converted code imports the runtime as migrate_runtime: this repository's (as tests/child.py)
    boot = ("import runpy, sys, migrate.runtime; sys.modules.setdefault('migrate_runtime', migrate.runtime); "
            "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", boot, str(script), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("recipes")
    shutil.copy(FIXTURE_ROOT / "training" / "np_init.py", out / "np_init.py")
    for name in ("multitask_recipe", "lm_recipe", "classifier_recipe"):
        res = convert_source((HERE / f"{name}.py").read_text())
        assert res.error is None and "# migrate:" not in res.code, res.code
        assert not re.search(r"^\s*(import|from) torch\b", res.code, re.M) and convert_source(res.code).code == res.code
        (out / f"{name}.py").write_text(res.code)
    write_runtime(out, "ms_core")  # (what the converted script imports, as a directory run writes it)
    return out


def _same_numbers(got: str, want: str) -> None:
    gl, wl = got.splitlines(), want.splitlines()
    assert [_NUM.sub("#", ln) for ln in gl] == [_NUM.sub("#", ln) for ln in wl], (got, want)
    for x, y in zip(gl, wl):
        for a, b in zip(_NUM.findall(x), _NUM.findall(y)):
            unit = 10.0 ** -len(b.split(".")[1].split("e")[0])
            assert abs(float(a) - float(b)) <= max(1e-5 * abs(float(b)), unit), (x, y)


def test_multitask_regressor_trains_as_torch(converted, tmp_path):
    """dict outputs, a loss Module, model.apply(init_fn), Nesterov SGD with a per-group lr,
    ReduceLROnPlateau, early stopping, best weights kept by copy.deepcopy(state_dict())."""
    want = _run(HERE / "multitask_recipe.py", HERE)
    got = _run(converted / "multitask_recipe.py", converted)
    assert "early stop at epoch 3" in want
    _same_numbers(got, want)
    losses = [float(v) for v in re.findall(r"step \d+ loss ([\d.]+)", got)]
    assert len(losses) == 20
    np.testing.assert_allclose(losses, [float(v) for v in re.findall(r"step \d+ loss ([\d.]+)", want)], rtol=1e-5)


def test_language_model_loop_trains_and_resumes_as_torch(converted, tmp_path):
    """a DataLoader with a collate_fn that pads with pad_sequence, a causal Transformer with a
    square mask and a padding mask, tied weights, Adam + OneCycleLR per batch; --steps 6 saves a
    checkpoint (model, optimizer and scheduler state) from which --steps 10 --resume continues."""
    original = tmp_path / "original"
    original.mkdir()
    for name in ("lm_recipe.py", "np_init.py"):
        shutil.copy(HERE / name, original / name)
    want = _run(original / "lm_recipe.py", original, "--steps", "10")
    got = _run(converted / "lm_recipe.py", converted, "--steps", "6")
    assert "collate" in (converted / "lm_recipe.py").read_text()
    assert "lambda" not in (converted / "lm_recipe.py").read_text().split("def collate")[1].split("\n\n")[0]
    _same_numbers(got, "\n".join(want.splitlines()[:len(got.splitlines())]) + "\n")
    resumed = _run(converted / "lm_recipe.py", converted, "--steps", "10", "--resume")
    assert resumed.splitlines()[1] == "resumed at step 6"
    tail = [ln for ln in want.splitlines() if re.match(r"step (7|8|9|10) ", ln)]
    assert [ln for ln in resumed.splitlines() if ln.startswith("step ")] == \
        [ln for ln in _run(converted / "lm_recipe.py", converted, "--steps", "10",
                           "--checkpoint", "other.ckpt").splitlines() if re.match(r"step (7|8|9|10) ", ln)]
    _same_numbers("\n".join(ln for ln in resumed.splitlines() if ln.startswith("step ")) + "\n",
                  "\n".join(tail) + "\n")


def test_classifier_with_a_frozen_ema_and_accumulation_trains_and_resumes_as_torch(converted, tmp_path):
    """a model EMA (a deep copy frozen with requires_grad_(False), averaged over parameters() and
    copied over buffers(), BatchNorm statistics among them), gradient accumulation whose step an
    `if (i + 1) % ACCUM != 0: continue` skips, clip_grad_norm_, two AdamW groups, LambdaLR, and a
    checkpoint of model, EMA, optimizer and scheduler from which --steps 10 --resume continues."""
    original = tmp_path / "original"
    original.mkdir()
    for name in ("classifier_recipe.py", "np_init.py"):
        shutil.copy(HERE / name, original / name)
    want = _run(original / "classifier_recipe.py", original, "--steps", "10")
    code = (converted / "classifier_recipe.py").read_text()
    assert "torch_parameters(self.module)" in code and "torch_buffers(self.module)" in code
    assert "accum_grads" in code
    got = _run(converted / "classifier_recipe.py", converted, "--steps", "10")
    _same_numbers(got, want)
    # the EMA moves: its validation loss is not the first model's
    assert re.findall(r"ema val loss ([\d.]+)", got) != re.findall(r" val loss ([\d.]+) ema", got)
    _run(converted / "classifier_recipe.py", converted, "--steps", "6")
    resumed = _run(converted / "classifier_recipe.py", converted, "--steps", "10", "--resume")
    assert resumed.splitlines()[0] == "resumed at step 6 (epoch 1)"
    tail = [ln for ln in want.splitlines() if re.match(r"(step (7|8|9|10) |epoch 2 )", ln)]
    _same_numbers("\n".join(ln for ln in resumed.splitlines() if re.match(r"(step|epoch) ", ln)) + "\n",
                  "\n".join(tail) + "\n")
