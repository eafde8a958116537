"""Run one function over many tasks in worker processes, so that no task can take the run down.

A task that kills its worker (a segfault in a native parser, the OOM killer) or raises is reported
through ``on_failure`` as that task's failure; a new worker takes over and the run goes on. The
parent hands each worker its tasks itself, in order, and so always knows which task a dead worker
was running (a ``ProcessPoolExecutor`` only says that the pool broke, not which task broke it).

Workers are forked where the platform allows it: the parent has already imported the converter,
so a worker costs a few milliseconds instead of a fresh interpreter's imports.

A worker ends when its parent does (a CI time limit, `timeout`, the OOM killer): it closes the
parent's ends of the pipes it inherited by forking (its own, and those of the workers started
before it), so a dead parent is a closed peer to it, and it asks the kernel for SIGKILL when its
parent dies (Linux), or else watches its parent's pid, so that one busy in a long task ends too.
"""
from __future__ import annotations

import ctypes
import gc
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from multiprocessing.connection import wait

PREFETCH = 2  # tasks queued at each worker
PARENT_POLL_S = 1.0  # how often a worker without PR_SET_PDEATHSIG checks that its parent lives
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else None)


class _Raised:
    """What a worker sends back when the function raised instead of returning."""

    def __init__(self, message: str):
        self.message = message


def _end_with_parent(parent_pid: int) -> None:
    """Make this process end when the process ``parent_pid`` does."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent_pid:  # the parent died before the request took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    if hasattr(os, "getppid") and os.name == "posix":
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True,
                         name="migrate-parent-watch").start()


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def _worker(conn, fn, parent_pid: int, inherited=()) -> None:
    # the parent's ends of the pipes, inherited by forking: while this process holds its own
    # pipe's other end, the parent's death would never show as a closed peer
    for other in inherited:
        other.close()
    _end_with_parent(parent_pid)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        index, task = msg
        try:
            out = fn(task)
        except BaseException as exc:  # reported as this task's failure, the worker lives on
            out = _Raised(f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
        try:
            conn.send((index, out))
        except (OSError, ValueError):  # the parent is gone: nobody wants the result
            return


def exit_reason(exitcode: int | None) -> str:
    """Describe how a worker process ended, e.g. ``killed by SIGSEGV``."""
    if exitcode is None:
        return "stopped"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


def run_isolated(fn, tasks: list, jobs: int = 1, on_failure=None, progress=None, on_result=None) -> list:
    """Return ``[fn(t) for t in tasks]``, each call made in a worker process.

    Args:
        fn: a module-level function of one argument (picklable where workers are spawned).
        tasks: the arguments, picklable.
        jobs: worker processes (at least 1).
        on_failure: ``on_failure(task, reason) -> result`` for a task whose worker died or whose
            call raised; ``reason`` is one line (``"the worker process was killed by SIGSEGV"``).
            Without it such a task's result is None.
        progress: optional ``progress(done, total)``, called in this process after each task.
        on_result: optional ``on_result(task, result)``, called in this process as each result
            arrives (in the order the tasks end), while the workers go on with the others.

    Returns:
        The results, in the order of ``tasks``.

    Example:
        >>> run_isolated(abs, [-1, 2, -3], jobs=2)
        [1, 2, 3]
    """
    for stream in (sys.stdout, sys.stderr):  # a forked child must not flush our buffers again
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    run = _IsolatedRun(fn, tasks, on_failure, progress, on_result)
    try:
        for _ in range(max(1, min(jobs, len(tasks)))):
            if run.todo:
                run.start()
        while run.active:
            for conn in wait(list(run.active)):
                run.collect(conn)
    finally:
        run.stop()
    return run.results


class _IsolatedRun:
    """The state of one :func:`run_isolated` call: tasks to do, workers and what each holds."""

    def __init__(self, fn, tasks: list, on_failure, progress, on_result=None):
        self.fn, self.tasks, self.on_failure, self.progress = fn, tasks, on_failure, progress
        self.on_result = on_result
        self.ctx = _context()
        self.results: list = [None] * len(tasks)
        self.todo = deque(range(len(tasks)))
        self.active: dict = {}  # parent end of the pipe -> (process, deque of the task indices it holds)
        self.done = 0

    def start(self) -> None:
        """Start one worker and queue its first tasks."""
        # objects inherited by a forked worker stay shared: its garbage collector would otherwise
        # touch (and so copy) every page of this process's heap
        gc.freeze()
        parent_end, child_end = self.ctx.Pipe()
        # a forked worker inherits every parent end open here; a spawned one inherits none
        inherited = (parent_end, *self.active) if self.ctx.get_start_method() == "fork" else ()
        proc = self.ctx.Process(target=_worker, args=(child_end, self.fn, os.getpid(), inherited),
                                daemon=True, name="migrate-worker")
        proc.start()
        child_end.close()
        self.active[parent_end] = (proc, deque())
        self.feed(parent_end)

    def feed(self, conn) -> None:
        """Keep PREFETCH tasks queued at the worker, so it never waits for us between tasks; it
        works through them in order, so the oldest one is always the one it is running."""
        _, held = self.active[conn]
        while self.todo and len(held) < PREFETCH:
            index = self.todo.popleft()
            try:
                conn.send((index, self.tasks[index]))
            except (OSError, ValueError):  # the worker died: what it held goes back, unblamed
                self.todo.appendleft(index)
                break
            held.append(index)
        if not held:
            self.retire(conn)

    def retire(self, conn) -> None:
        """Tell an idle worker to stop and wait for it."""
        proc, _ = self.active.pop(conn)
        try:
            conn.send(None)
        except (OSError, ValueError):
            pass
        conn.close()
        proc.join()

    def collect(self, conn) -> None:
        """Take one result from a worker, or learn that it died and blame the task it was running."""
        proc, held = self.active[conn]
        try:
            got, out = conn.recv()
        except (EOFError, OSError):
            proc.join()
            self.active.pop(conn)
            conn.close()
            if not held:
                return
            culprit = held.popleft()
            self.todo.extendleft(reversed(held))  # queued behind it, never started
            self._finish(culprit, self._failed(culprit, f"the worker process was {exit_reason(proc.exitcode)}"))
            if self.todo:
                self.start()
            return
        held.remove(got)
        self._finish(got, self._failed(got, out.message) if isinstance(out, _Raised) else out)
        self.feed(conn)

    def _failed(self, index: int, reason: str):
        return self.on_failure(self.tasks[index], reason) if self.on_failure else None

    def _finish(self, index: int, result) -> None:
        self.results[index] = result
        self.done += 1
        if self.on_result:
            self.on_result(self.tasks[index], result)
        if self.progress:
            self.progress(self.done, len(self.tasks))

    def stop(self) -> None:
        """Terminate what still runs (after an error in this process) and unfreeze the heap."""
        for conn, (proc, _) in list(self.active.items()):
            proc.terminate()
            proc.join()
            conn.close()
        gc.unfreeze()
