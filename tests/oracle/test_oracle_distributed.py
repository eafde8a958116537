"""Oracle for data parallelism: the run-time helpers of migrate.runtime.distributed (DDP's
broadcasts of parameters and buffers, SyncBatchNorm over all-reduces) on real MindSpore 2.10
under msrun with 2 processes give what they give on ms_core: torch's BatchNorm of the whole
batch, rank 0's parameters and buffers. msrun runs from the oracle interpreter's bin directory,
in its own session, stopped whole on timeout."""
import os

import pytest

from tests.migrate.runtime.test_distributed import ROOT, check_two_ranks, run_two_processes

from .test_oracle import ORACLE

pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]


def msrun(python, port, log_dir):
    """msrun's command for 2 local workers (the interpreter's own msrun, so workers use it)."""
    return [os.path.join(os.path.dirname(python), "msrun"), "--worker_num=2", "--local_worker_num=2",
            f"--master_port={port}", "--join=True", f"--log_dir={log_dir}"]


def test_runtime_helpers_on_mindspore_under_msrun(tmp_path):
    from ms_core.launch import free_port
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "migrate_runtime").symlink_to(ROOT / "migrate" / "runtime")  # as a converted tree has it
    bin_dir = os.path.dirname(ORACLE)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), GLOG_v="3",
               MIGRATE_RUNTIME_TARGET="mindspore", MIGRATE_RUNTIME_PACKAGE="migrate_runtime",
               PYTHONPATH=str(pkg))
    got = run_two_processes(tmp_path, launcher=msrun(ORACLE, free_port(), tmp_path / "logs"),
                            env=env, pythonpath=str(pkg))
    check_two_ranks(got)


@pytest.mark.parametrize("script,args,steps", [
    # one shuffled epoch of 30 steps per rank (20 compared), then the metric's all_reduce
    ("ddp_mlp.py", ("--epochs", "1", "--batch-size", "1"), 20),
    ("ddp_cnn_bn.py", ("--epochs", "4"), 20),        # in order: 6 steps an epoch, the eval's broadcasts
    ("ddp_cnn_bn.py", ("--epochs", "4", "--sync-bn"), 20),
])
def test_converted_ddp_scripts_under_msrun_agree_with_torch_ddp(tmp_path, script, args, steps):
    """The --target mindspore conversion under msrun (2 processes) gives every rank torch DDP's
    losses and final values, 20 steps (MindSpore reads one epoch's order from a Python sampler:
    a shuffled script runs one epoch)."""
    from cli import _converter
    from migrate.check.ddp import DdpSettings, check_ddp
    settings = DdpSettings(nproc=2, max_steps=steps, args=args, ms_python=ORACLE, timeout=900)
    result = check_ddp(str(ROOT / "tests" / "fixtures" / "distributed" / script), settings, _converter(),
                       _converter("mindspore"), work=str(tmp_path))
    assert not result.error, result.error
    for c in result.ranks["mindspore"] + result.ranks["ms_core"]:
        assert c.passed and c.losses == steps, c.problems
