"""migrate check-ddp end to end on our DDP MLP (2 processes, a few steps): torch DDP under
torchrun beside the conversion under ms_core's launcher, rank by rank (the CLI's converter: it
writes the runtime beside the converted script). Every run is a child
session with a timeout (check_ddp's run_bounded, which stops the whole session). The 4-process,
20-step and MindSpore runs: bench/ddp_check.py and tests/oracle/test_oracle_distributed.py."""
import os
import sys
from pathlib import Path

import pytest

from cli import _converter
from migrate import convert_source
from migrate.check.ddp import DdpSettings, check_ddp, run_bounded
from migrate.convert.runtime_files import write_runtime

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "distributed"


def test_the_mlp_agrees_rank_by_rank_with_torch_ddp(tmp_path):
    settings = DdpSettings(nproc=2, max_steps=6, args=("--epochs", "2"), timeout=600)
    result = check_ddp(str(FIXTURES / "ddp_mlp.py"), settings, _converter(), work=str(tmp_path))
    assert not result.error, result.error + result.runs["ms_core"].output[-3000:]
    comparisons = result.ranks["ms_core"]
    assert [c.rank for c in comparisons] == [0, 1]
    for c in comparisons:
        assert c.passed and c.losses == 6, c.problems
        assert c.loss_err < 1e-5 and c.param_err < 1e-5
    # each rank read its own shard: the two ranks' first losses differ
    losses = {r: t.losses for r, t in result.runs["torch"].ranks.items()}
    assert losses[0][0] != losses[1][0]
    assert result.exit_code == 0


def test_the_sync_batchnorm_cnn_agrees_rank_by_rank_with_torch_ddp(tmp_path):
    """convert_sync_batchnorm and DDP's buffer broadcasts converted: every rank's losses and
    final parameters and BatchNorm statistics are torch's (4 steps; 20 steps and 4 processes:
    bench/ddp_check.py)."""
    settings = DdpSettings(nproc=2, max_steps=4, args=("--epochs", "1", "--sync-bn"), timeout=600)
    result = check_ddp(str(FIXTURES / "ddp_cnn_bn.py"), settings, _converter(), work=str(tmp_path))
    assert not result.error, result.error + result.runs["ms_core"].output[-3000:]
    for c in result.ranks["ms_core"]:
        assert c.passed and c.losses == 4, c.problems
        assert c.loss_err < 1e-5 and c.param_err < 1e-5


def test_one_launched_process_is_the_single_process_run(tmp_path):
    """The converted script under `python -m ms_core.launch --nproc 1` prints what it prints when
    run as it is (a group of one either way)."""
    converted = tmp_path / "mlp_ms.py"
    converted.write_text(convert_source((FIXTURES / "ddp_mlp.py").read_text()).code)
    write_runtime(tmp_path, "ms_core")  # (the import the converted script makes: a directory run writes it)
    env = {k: v for k, v in os.environ.items() if k not in ("WORLD_SIZE", "RANK", "MASTER_ADDR", "MASTER_PORT")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    runs = []
    for launcher in ([], ["-m", "ms_core.launch", "--nproc", "1"]):
        code, out = run_bounded([sys.executable, *launcher, str(converted), "--epochs", "2"], env,
                                str(tmp_path), 300)
        assert code == 0, out
        runs.append([ln for ln in out.splitlines() if ln.startswith("epoch")])
    assert len(runs[0]) == 2 and runs[0] == runs[1]
