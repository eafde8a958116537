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
