"""Run one function over many tasks in worker processes, so that no task can take the run down.

A task that kills its worker (a segfault in a native parser, the OOM killer) or raises is reported
through ``on_failure`` as that task's failure; a new worker takes over and the run goes on. The
parent hands out one task at a time and so always knows which task a dead worker held (a
``ProcessPoolExecutor`` only says that the pool broke, not which task broke it).

Workers are forked where the platform allows it: the parent has already imported the converter,
so a worker costs a few milliseconds instead of a fresh interpreter's imports.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import sys
from collections import deque
from multiprocessing.connection import wait


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else None)


class _Raised:
    """What a worker sends back when the function raised instead of returning."""

    def __init__(self, message: str):
        self.message = message


def _worker(conn, fn) -> None:
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
        conn.send((index, out))


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


def run_isolated(fn, tasks: list, jobs: int = 1, on_failure=None, progress=None) -> list:
    """Return ``[fn(t) for t in tasks]``, each call made in a worker process.

    Args:
        fn: a module-level function of one argument (picklable where workers are spawned).
        tasks: the arguments, picklable.
        jobs: worker processes (at least 1).
        on_failure: ``on_failure(task, reason) -> result`` for a task whose worker died or whose
            call raised; ``reason`` is one line (``"the worker process was killed by SIGSEGV"``).
            Without it such a task's result is None.
        progress: optional ``progress(done, total)``, called in this process after each task.

    Returns:
        The results, in the order of ``tasks``.

    Example:
        >>> run_isolated(abs, [-1, 2, -3], jobs=2)
        [1, 2, 3]
    """
    ctx = _context()
    total = len(tasks)
    results: list = [None] * total
    todo = deque(range(total))
    active: dict = {}  # parent end of the pipe -> [process, index of the task it holds]
    done = 0
    for stream in (sys.stdout, sys.stderr):  # a forked child must not flush our buffers again
        try:
            stream.flush()
        except (OSError, ValueError):
            pass

    def start():
        parent_end, child_end = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child_end, fn), daemon=True, name="migrate-worker")
        proc.start()
        child_end.close()
        active[parent_end] = [proc, None]
        feed(parent_end)

    def feed(conn):
        if not todo:
            retire(conn, graceful=True)
            return
        index = todo.popleft()
        active[conn][1] = index
        try:
            conn.send((index, tasks[index]))
        except (OSError, ValueError):  # the worker died between tasks: it held none
            todo.appendleft(index)
            active[conn][1] = None
            retire(conn, graceful=False)
            start()

    def retire(conn, graceful):
        proc, _ = active.pop(conn)
        if graceful:
            try:
                conn.send(None)
            except (OSError, ValueError):
                pass
        conn.close()
        proc.join()

    def fail(index, reason):
        return on_failure(tasks[index], reason) if on_failure is not None else None

    try:
        for _ in range(max(1, min(jobs, total))):
            if todo:
                start()
        while active:
            for conn in wait(list(active)):
                proc, index = active[conn]
                try:
                    got, out = conn.recv()
                except (EOFError, OSError):
                    proc.join()
                    active.pop(conn)
                    conn.close()
                    results[index] = fail(index, f"the worker process was {exit_reason(proc.exitcode)}")
                    if todo:
                        start()
                else:
                    results[got] = fail(got, out.message) if isinstance(out, _Raised) else out
                    active[conn][1] = None
                    feed(conn)
                done += 1
                if progress:
                    progress(done, total)
    finally:
        for conn, (proc, _) in list(active.items()):
            proc.terminate()
            proc.join()
            conn.close()
    return results
