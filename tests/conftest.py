import faulthandler
import os
import sys
import threading
import time

import pytest

# Test modules import the shared helpers (optest) by module name. Appended, not prepended:
# tests/ms_core must never shadow the real ms_core package.
_here = os.path.dirname(__file__)
if _here not in sys.path:
    sys.path.append(_here)

# ---- the suite never hangs ----------------------------------------------------------------------
# Each test (setup, call and teardown) has a time limit. Past it, the run stops with exit status
# 1 after printing the test's id and every thread's stack on the terminal. The watchdog is a
# Python thread: it names the test, and it runs whenever the stuck thread waits with the GIL
# released (a join, a lock, a pipe, a sleep). faulthandler's watchdog, a C thread that needs no
# GIL, stops the run (stacks only) if the stuck thread holds the GIL. Parts of tests that start a
# process group, a worker pool or a server run in a child process with a shorter limit of their
# own (tests/child.py), so this one is a last resort. A test whose own child processes may
# rightly run longer (their time limits add up past it) says so: @pytest.mark.time_limit(seconds).
TIME_LIMIT = float(os.environ.get("MIGRATE_TEST_TIME_LIMIT", "900"))  # seconds per test


class _Watchdog:
    """One daemon thread that stops the run when the current test passes its deadline."""

    def __init__(self, fd):
        self.fd = fd
        self.wake = threading.Condition()
        self.test = self.deadline = None
        threading.Thread(target=self._watch, name="test-time-limit", daemon=True).start()

    def arm(self, test, limit):
        with self.wake:
            self.test, self.limit, self.deadline = test, limit, time.monotonic() + limit
            self.wake.notify()
        # faulthandler's own watchdog, a minute later (or the limit again, if shorter)
        faulthandler.dump_traceback_later(limit + min(60.0, limit), exit=True, file=self.fd)

    def disarm(self):
        faulthandler.cancel_dump_traceback_later()
        with self.wake:
            self.test = self.deadline = None
            self.wake.notify()

    def _watch(self):
        with self.wake:
            while self.deadline is None or time.monotonic() < self.deadline:
                self.wake.wait(None if self.deadline is None else self.deadline - time.monotonic())
            os.write(self.fd, f"\n\n{self.test} ran over its time limit of {self.limit:g} s "
                              f"(MIGRATE_TEST_TIME_LIMIT or @pytest.mark.time_limit): stopping the run. "
                              f"Its threads:\n".encode())
            faulthandler.dump_traceback(file=self.fd, all_threads=True)
            os._exit(1)


_WATCHDOG = pytest.StashKey()


def pytest_configure(config):
    config.addinivalue_line("markers", "time_limit(seconds): this test's time limit, when its own "
                                       "child processes may rightly run past MIGRATE_TEST_TIME_LIMIT")
    # a copy of fd 2 taken now, while it is the terminal: pytest captures fd 2 during a test
    config.stash[_WATCHDOG] = _Watchdog(os.dup(2))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    watchdog = item.config.stash[_WATCHDOG]
    marker = item.get_closest_marker("time_limit")
    watchdog.arm(item.nodeid, float(marker.args[0]) if marker else TIME_LIMIT)
    try:
        yield
    finally:
        watchdog.disarm()

# Converted code imports the runtime's names by the name a converted tree gives its copy
# (`from migrate_runtime import TorchConv2d`): in the tests it is this repository's runtime, on
# ms_core (tests of a written copy write one: migrate.convert.runtime_files.write_runtime).
import migrate.runtime  # noqa: E402

sys.modules.setdefault("migrate_runtime", migrate.runtime)
