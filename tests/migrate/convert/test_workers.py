"""migrate.workers.run_isolated: results in task order, and a task that kills its worker or raises
is that task's failure only (the right task is blamed even with tasks queued behind it)."""
import os
import signal

import pytest

from migrate.convert.workers import exit_reason, run_isolated
from tests.child import run_in_child


def tenfold_or_die(x):
    if x == 3:
        os.kill(os.getpid(), signal.SIGSEGV)
    if x == 5:
        raise ValueError("five is bad")
    return 10 * x


def pool_run(jobs):
    """The pool over tasks 0..8 (in a child process: see below): (results, progress calls)."""
    seen = []
    got = run_isolated(tenfold_or_die, list(range(9)), jobs=jobs,
                       on_failure=lambda task, reason: (task, reason),
                       progress=lambda done, total: seen.append((done, total)))
    return got, seen


# The pools run in a child process with a time limit: a pool that never notices a dead worker
# fails its test instead of stalling the suite.
@pytest.mark.parametrize("jobs", [1, 2, 4])
def test_crashes_and_exceptions_cost_only_their_task(jobs):
    got, seen = run_in_child("tests.migrate.convert.test_workers:pool_run", jobs, timeout=300)
    assert got == [0, 10, 20, (3, "the worker process was killed by SIGSEGV"), 40,
                   (5, "ValueError: five is bad"), 60, 70, 80]
    assert seen == [(i, 9) for i in range(1, 10)]


def test_no_tasks_and_exit_reasons():
    assert run_in_child("migrate.convert.workers:run_isolated", abs, [], jobs=2, timeout=300) == []
    assert exit_reason(-9) == "killed by SIGKILL" and exit_reason(3) == "exited with status 3"


# ---- a worker ends when its parent does --------------------------------------------------------
_PARENT = """
import os, sys, time
sys.path.insert(0, {root!r})
from migrate.convert import workers
from migrate.convert.workers import run_isolated

if {mode!r} == "sending, no parent watch":  # only the closed pipe ends can free the worker
    workers._end_with_parent = lambda parent_pid: None

def task(x):
    open(os.path.join({pids!r}, str(os.getpid())), "w").close()
    if {mode!r} == "busy":
        time.sleep(120)  # a long task: only the parent-death watch ends it
    return b"x" * (64 << 20)  # far more than a pipe holds: the send blocks until the parent reads

run_isolated(task, list(range(4)), jobs=2)
"""


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for init to reap it counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states from /proc")
@pytest.mark.parametrize("mode", ["sending", "sending, no parent watch", "busy"])
def test_workers_end_when_the_parent_is_killed(tmp_path, mode):
    import subprocess
    import sys
    import time
    from pathlib import Path
    pids = tmp_path / "pids"
    pids.mkdir()
    script = _PARENT.format(root=str(Path(__file__).parents[3]), pids=str(pids), mode=mode)
    parent = subprocess.Popen([sys.executable, "-c", script])
    workers: list = []
    try:
        deadline = time.time() + 60
        while len(workers) < 2 and time.time() < deadline and parent.poll() is None:
            time.sleep(0.05)
            workers = [int(p.name) for p in pids.iterdir()]
        assert len(workers) == 2, "the workers did not start"
        time.sleep(0.5)  # let them reach the blocking send (or the long sleep)
        parent.kill()  # SIGKILL: nothing in the parent runs any more
        parent.wait(timeout=30)
        deadline = time.time() + 5
        while any(_alive(p) for p in workers) and time.time() < deadline:
            time.sleep(0.05)
        assert [p for p in workers if _alive(p)] == []
    finally:
        if parent.poll() is None:
            parent.kill()
        for p in workers:  # never leave a process behind, whatever the outcome
            if _alive(p):
                os.kill(p, signal.SIGKILL)
