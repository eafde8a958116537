"""Checks in a child process: a time limit (`--timeout`), parallel zoo jobs, and a crash or an
out-of-memory kill turned into "could not run" (exit 2) instead of a dead command.

The children come from a fork server that has imported NumPy, torch and ms_core once, so a child
starts in milliseconds. The work is a picklable call (module-level function and arguments); its
return value or its error message comes back through a pipe.
"""
from __future__ import annotations

import multiprocessing
import signal
import time
from dataclasses import dataclass

_PRELOAD = ["numpy", "torch", "ms_core", "migrate.check.harness"]
_CONTEXT = None


class ChildFailed(Exception):
    """The child did not return: it timed out, crashed or was killed (the message says which)."""


def _context():
    global _CONTEXT
    if _CONTEXT is None:
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() \
            else "spawn"
        _CONTEXT = multiprocessing.get_context(method)
        if method == "forkserver":
            _CONTEXT.set_forkserver_preload(_PRELOAD)
    return _CONTEXT


def _child(conn, fn, args, kwargs, threads):
    if threads:
        import torch
        torch.set_num_threads(threads)
    try:
        conn.send(("ok", fn(*args, **kwargs)))
    except BaseException as exc:  # noqa: BLE001 (everything goes back to the parent)
        conn.send(("error", exc if _picklable(exc) else RuntimeError(_describe(exc))))
    finally:
        conn.close()


def _picklable(exc) -> bool:
    import pickle
    try:
        pickle.dumps(exc)
        return True
    except Exception:  # noqa: BLE001
        return False


def _describe(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


@dataclass
class Job:
    """One call running in a child process."""

    process: object
    conn: object
    started: float
    timeout: float | None

    def done(self) -> bool:
        return self.conn.poll() or not self.process.is_alive()

    def expired(self) -> bool:
        return self.timeout is not None and time.monotonic() - self.started > self.timeout

    def result(self):
        """The call's return value; its exception re-raised; ChildFailed if the child died."""
        message = None
        if self.conn.poll():
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                message = None
        self.process.join()
        self.conn.close()
        if message is None:
            raise ChildFailed(_death(self.process.exitcode))
        kind, value = message
        if kind == "error":
            raise value
        return value

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


def _death(code) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        return f"the check process was killed by {name}{hint}"
    return f"the check process exited with code {code} without a result"


def start(fn, args=(), kwargs=None, timeout=None, threads=1) -> Job:
    """Start `fn(*args, **kwargs)` in a child process (torch on `threads` threads)."""
    ctx = _context()
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(child, fn, tuple(args), dict(kwargs or {}),
                                                threads), daemon=True)
    process.start()
    child.close()
    return Job(process, parent, time.monotonic(), timeout)


def run(fn, args=(), kwargs=None, timeout=None, threads=1):
    """`fn(*args, **kwargs)` in a child process, waiting at most `timeout` seconds.

    Returns:
        What `fn` returns.

    Raises:
        ChildFailed: the time ran out (the child is killed), or the child crashed.
        Whatever `fn` raised.

    Example:
        >>> run(os.getpid) != os.getpid()   # doctest: +SKIP
        True
    """
    job = start(fn, args, kwargs, timeout, threads)
    while not job.done():
        if job.expired():
            job.kill()
            raise ChildFailed(f"the check did not finish within {timeout:g} s (--timeout)")
        job.conn.poll(0.2)
    return job.result()
