"""The suite never hangs: a stuck test stops the run within its time limit and says where
(tests/conftest.py), and a stuck child process fails its test (tests/child.py)."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.child import ChildTimeout, run_in_child

REPO = Path(__file__).resolve().parents[1]

_STUCK = '''
import ctypes
import time

import pytest


def test_quick():
    assert True


def test_sleeps():
    time.sleep(600)


def test_holds_the_gil():
    ctypes.PyDLL(None).sleep(600)  # a PyDLL call keeps the GIL


@pytest.mark.time_limit(30)
def test_slow_with_a_limit_of_its_own():
    time.sleep(5)
'''


def _pytest_run(tmp_path, select, limit=3):
    """A child pytest run of _STUCK's tests named by `select`, with the suite's conftest and a
    time limit of `limit` seconds; (exit status, output, seconds it took)."""
    (tmp_path / "test_stuck.py").write_text(_STUCK)
    env = dict(os.environ, MIGRATE_TEST_TIME_LIMIT=str(limit),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                           "-p", "tests.conftest", "test_stuck.py", "-k", select],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start


def test_a_stuck_test_stops_the_run_naming_it_and_its_stack(tmp_path):
    code, out, seconds = _pytest_run(tmp_path, "quick or sleeps")
    assert code == 1, out
    assert "test_stuck.py::test_quick PASSED" in out
    assert "test_stuck.py::test_sleeps ran over its time limit of 3 s" in out and "stopping the run" in out
    assert 'test_stuck.py", line 13 in test_sleeps' in out  # where it was stuck
    assert seconds < 120, seconds  # the limit (3 s) plus a busy machine's start-up, not 600 s


def test_a_test_may_have_a_longer_limit_of_its_own(tmp_path):
    code, out, _ = _pytest_run(tmp_path, "quick or own")
    assert code == 0 and "2 passed" in out, out


def test_a_test_stuck_holding_the_gil_is_stopped_by_faulthandler(tmp_path):
    code, out, seconds = _pytest_run(tmp_path, "holds_the_gil")
    assert code == 1, out
    assert "Timeout (0:00:06)!" in out  # the limit and the backstop (3 s each here)
    assert 'test_stuck.py", line 17 in test_holds_the_gil' in out
    assert seconds < 120, seconds


def add(a, b):
    return a + b


def fail():
    raise ValueError("the reason")


def sleep_forever():
    print("started", flush=True)
    time.sleep(600)


def start_a_process_and_sleep():
    print(f"grandchild {subprocess.Popen(['sleep', '600']).pid}", flush=True)
    time.sleep(600)


def _running(pid) -> bool:
    """Whether process `pid` still runs (a zombie no one reaped does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_child_returns_its_result_and_reports_its_error():
    assert run_in_child("tests.test_no_hangs:add", 2, b=3, timeout=120) == 5
    with pytest.raises(AssertionError, match="(?s)raised in its child process.*ValueError: the reason"):
        run_in_child("tests.test_no_hangs:fail", timeout=120)


def test_a_stuck_child_is_killed_at_its_limit_and_shows_where():
    start = time.monotonic()
    with pytest.raises(ChildTimeout) as err:
        run_in_child("tests.test_no_hangs:sleep_forever", timeout=15)
    assert time.monotonic() - start < 60
    message = str(err.value)
    assert "did not finish within 15 s in its child process (killed)" in message
    assert "started" in message and "in sleep_forever" in message  # its output and its stack


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states in /proc")
def test_what_a_stuck_child_started_dies_with_it():
    with pytest.raises(ChildTimeout) as err:
        run_in_child("tests.test_no_hangs:start_a_process_and_sleep", timeout=15)
    pid = int(str(err.value).split("grandchild ")[1].split()[0])
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(pid)
