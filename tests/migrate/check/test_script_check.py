"""migrate check-script: a training script and its conversion trained side by side for N steps; the
first step where they part is named with the loss or the parameter (planted faults in the
converted copy: a weight decay, a loss scale, a crash). Each run is a child process with a timeout."""
import json
import shutil
import subprocess
import sys

import pytest

from migrate.check.script_check import check_script
from migrate.convert.project import convert_tree
from tests.migrate.convert.helpers import FIXTURE_ROOT, REPO

TRAINING = FIXTURE_ROOT / "training"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(root with mlp_adamw.py, its conversion)."""
    root = tmp_path_factory.mktemp("orig")
    for name in ("mlp_adamw.py", "np_init.py"):
        shutil.copy(TRAINING / name, root / name)
    out = tmp_path_factory.mktemp("conv") / "out"
    convert_tree(root, out, "ms_core")
    return root, out


def _planted(pair, tmp_path, old, new):
    root, out = pair
    planted = tmp_path / "planted"
    shutil.copytree(out, planted)
    script = planted / "mlp_adamw.py"
    text = script.read_text()
    assert old in text
    script.write_text(text.replace(old, new))
    return root, planted


def test_a_faithful_conversion_agrees_step_by_step(pair):
    root, out = pair
    res = check_script(root / "mlp_adamw.py", out, steps=3, timeout=300)
    assert res.exit_code == 0, (res.original, res.converted, res.parting)
    assert res.parting is None and res.parameters == 6
    assert len(res.losses) == 6   # two micro-batches per step (accumulation)
    assert all(abs(a - b) <= 1e-4 * abs(a) for a, b in res.losses)


def test_a_wrong_weight_decay_parts_at_the_first_step_on_a_parameter(pair, tmp_path):
    root, planted = _planted(pair, tmp_path, "weight_decay=0.05", "weight_decay=0.5")
    res = check_script(root / "mlp_adamw.py", planted, steps=3, timeout=300)
    assert res.exit_code == 1
    part = res.parting
    assert (part.step, part.what, part.name) == (1, "parameter", "fc1.weight")
    assert part.max_abs > 1e-5 and part.torch != part.converted and len(part.index) == 2


def test_a_scaled_loss_parts_at_the_loss_before_any_update(pair, tmp_path):
    root, planted = _planted(pair, tmp_path, "/ ACCUM_STEPS", "/ ACCUM_STEPS * 1.01")
    res = check_script(root / "mlp_adamw.py", planted, steps=3, timeout=300)
    assert res.exit_code == 1
    assert (res.parting.step, res.parting.what) == (1, "loss")
    assert res.parting.max_rel == pytest.approx(0.01, rel=1e-3)


def test_a_run_that_fails_is_exit_2_with_its_line(pair, tmp_path):
    root, planted = _planted(pair, tmp_path, "model = MLP()", "model = MLP(d_in=11)")
    res = check_script(root / "mlp_adamw.py", planted, steps=2, timeout=300)
    assert res.exit_code == 2 and res.original.status == "ran" and res.converted.status == "fail"
    assert res.converted.where.startswith("mlp_adamw.py:")


def test_the_command_line(pair, tmp_path):
    root, planted = _planted(pair, tmp_path, "weight_decay=0.05", "weight_decay=0.5")
    report = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "check-script", str(root / "mlp_adamw.py"),
                           "--converted", str(planted), "--steps", "2", "--json", str(report)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 1, proc.stderr
    assert "part at step 1" in proc.stdout and "parameter fc1.weight" in proc.stdout
    data = json.loads(report.read_text())
    assert data["parting"]["name"] == "fc1.weight" and data["exit_code"] == 1
