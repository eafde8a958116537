"""migrate.check.ddp's decisions without processes: how two ranks' traces are compared, which
scripts start their own processes, what a failed run's error line is, how the runs' files are
read."""
import json

import numpy as np

from migrate.check.ddp import (DdpResult, DdpSettings, RankTrace, SideRun, _last_error, compare_rank,
                               compare_side, read_traces, uses_spawn)

SETTINGS = DdpSettings(rtol=1e-5, atol=1e-6)


def _trace(losses, state=None, steps=None, notes=()):
    return RankTrace(list(losses), steps if steps is not None else [[[0.0, 0.0]]] * len(losses),
                     list(notes), state or {"fc.weight": np.ones((2, 2), np.float32)})


def test_equal_traces_agree():
    c = compare_rank(0, _trace([1.0, 0.5]), _trace([1.0, 0.5 * (1 + 5e-6)]), SETTINGS)
    assert c.passed and c.losses == 2 and c.loss_err < 1e-5 and c.param_err == 0.0


def test_a_loss_beyond_tolerance_is_named_by_its_step():
    c = compare_rank(1, _trace([1.0, 0.5, 0.25]), _trace([1.0, 0.5, 0.2501]), SETTINGS)
    assert not c.passed and any("loss of step 2" in p for p in c.problems)


def test_a_final_value_beyond_tolerance_is_named():
    t = _trace([1.0], {"bn.moving_mean": np.array([1.0, 2.0], np.float32), "fc.weight": np.ones(2)})
    c = _trace([1.0], {"bn.moving_mean": np.array([1.0, 2.1], np.float32), "fc.weight": np.ones(2)})
    cmp = compare_rank(0, t, c, SETTINGS)
    assert not cmp.passed and cmp.worst_param == "bn.moving_mean"
    assert abs(cmp.param_err - 0.1 / 2.0) < 1e-6  # the difference against torch's values' scale


def test_missing_values_and_a_different_number_of_steps_are_problems():
    t = _trace([1.0, 0.5], {"a": np.zeros(1), "b": np.zeros(1)})
    c = _trace([1.0], {"a": np.zeros(1)})
    problems = " ".join(compare_rank(0, t, c, SETTINGS).problems)
    assert "torch made 2 losses" in problems and "without a converted counterpart: ['b']" in problems


def test_a_rank_without_a_trace_is_a_problem_of_that_rank():
    ref = SideRun("torch", [], 0, "", 1.0, ranks={0: _trace([1.0]), 1: _trace([2.0])})
    run = SideRun("ms_core", [], 0, "", 1.0, ranks={0: _trace([1.0])})
    out = compare_side(ref, run, DdpSettings(nproc=2))
    assert out[0].passed and not out[1].passed and "no trace from ms_core" in out[1].problems[0]


def test_the_verdict_and_exit_code():
    r = DdpResult("s.py", SETTINGS)
    r.runs["torch"] = SideRun("torch", [], 0, "", 1.0)
    r.ranks["ms_core"] = compare_side(SideRun("torch", [], 0, "", 1.0, ranks={0: _trace([1.0])}),
                                      SideRun("ms_core", [], 0, "", 1.0, ranks={0: _trace([1.0])}),
                                      DdpSettings(nproc=1))
    assert (r.passed, r.exit_code) == (True, 0)
    r.runs["ms_core"] = SideRun("ms_core", [], 1, "", 1.0, error="exited with code 1: boom")
    assert (r.passed, r.exit_code) == (False, 2) and "boom" in r.error
    assert json.dumps(r.to_dict())


def test_scripts_that_spawn_their_own_workers_are_recognised():
    assert uses_spawn("import torch.multiprocessing as mp\nmp.spawn(main, args=(2,), nprocs=2)\n")
    assert uses_spawn("torch.multiprocessing.spawn(main, nprocs=n)")
    assert uses_spawn("from torch.multiprocessing import spawn\n")
    assert not uses_spawn("dist.init_process_group('gloo')\nspawned = spawn_count()\n")


def test_the_error_line_of_a_failed_run():
    out = "step 1\n[rank0]: Traceback (most recent call last):\n[rank0]:   File x\n" \
          "[rank0]: ValueError: bad shape\nms_core.launch: worker rank 0 (pid 1) exited with code 1; stopping\n"
    assert _last_error(out).startswith("ms_core.launch: worker rank 0")
    assert _last_error("a\nRuntimeError: no\nmore\n") == "RuntimeError: no"
    assert _last_error("") == "no output"


def test_traces_are_read_back_by_rank(tmp_path):
    for rank in (0, 1):
        (tmp_path / f"rank{rank}.json").write_text(json.dumps({"losses": [rank + 1.0], "steps": [], "notes": []}))
        np.savez(tmp_path / f"rank{rank}.npz", **{"state/fc.weight": np.full(2, rank), "random/0": np.zeros(1)})
    got = read_traces(str(tmp_path))
    assert sorted(got) == [0, 1] and got[1].losses == [2.0] and list(got[1].state) == ["fc.weight"]
    assert read_traces(str(tmp_path / "missing")) == {}
