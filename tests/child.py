"""Run part of a test in a child Python process with a time limit.

A test that starts a process group, a worker pool or a server runs that part here: threads and
processes it leaves behind die with the child, and a child that does not finish in time is
killed (with every process it started) and the test fails saying where the child was stuck,
instead of the suite stalling. (torch's ProcessGroupGloo destructor once joined a thread forever
inside the pytest process.)

    from tests.child import run_in_child
    result = run_in_child("tests.mappings.proof:run_program", case, timeout=300)
"""
import os
import pickle
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# The child: read the call from the file named by argv[1], write the outcome to argv[2]. SIGUSR1
# makes it print every thread's stack (the parent asks for that before killing it on timeout).
_BOOT = """
import faulthandler, importlib, os, pickle, signal, sys, traceback
faulthandler.register(signal.SIGUSR1, all_threads=True)
import migrate.runtime  # converted code imports the runtime as migrate_runtime: here, this repository's (as conftest)
sys.modules.setdefault("migrate_runtime", migrate.runtime)
with open(sys.argv[1], "rb") as f:
    target, args, kwargs = pickle.load(f)
module, _, name = target.partition(":")
try:
    outcome = ("ok", getattr(importlib.import_module(module), name)(*args, **kwargs))
except BaseException:
    outcome = ("error", traceback.format_exc())
try:
    data = pickle.dumps(outcome)
except Exception:
    data = pickle.dumps(("error", "the result could not be pickled: " + repr(outcome[1])[:2000]))
with open(sys.argv[2], "wb") as f:
    f.write(data)
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)  # no interpreter teardown: a destructor that blocks (a process group's) cannot stall us
"""

_TAIL = 6000  # characters of the child's output kept in a failure message


class ChildTimeout(AssertionError):
    """The child did not finish in time (it was killed)."""


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"  # what it printed before being killed is not lost in a buffer
    return env


def _kill(proc) -> None:
    """Stop the child's whole process group (it is its own session leader)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _stacks_then_kill(proc) -> tuple:
    """Ask the child for its threads' stacks (SIGUSR1), then kill it; its (stdout, stderr)."""
    try:
        proc.send_signal(signal.SIGUSR1)
        proc.wait(timeout=1)  # faulthandler writes at once; a child that ends here is fine too
    except (subprocess.TimeoutExpired, ProcessLookupError):
        pass
    _kill(proc)
    try:
        return proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # a process outside its group holds the pipes open
        proc.stdout.close()
        proc.stderr.close()
        proc.wait()
        return "", "(no output: a process the child started outside its group holds its pipes)"


def run_in_child(target: str, *args, timeout: float, **kwargs):
    """``module:function(*args, **kwargs)`` in a fresh interpreter (the repository on its path).

    Returns:
        What the function returns (pickled back).

    Raises:
        AssertionError: the function raised (the message is the child's traceback) or the child
            died; ChildTimeout (an AssertionError) when it ran longer than ``timeout`` seconds:
            it and the processes it started are killed and the message shows its stacks.
    """
    with tempfile.TemporaryDirectory(prefix="child-") as tmp:
        call, result = Path(tmp) / "call.pickle", Path(tmp) / "result.pickle"
        call.write_bytes(pickle.dumps((target, args, kwargs)))
        proc = subprocess.Popen([sys.executable, "-c", _BOOT, str(call), str(result)], cwd=REPO,
                                env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            out, err = _stacks_then_kill(proc)
            raise ChildTimeout(f"{target} did not finish within {timeout:g} s in its child process "
                               f"(killed). Its output:\n{_tail(out, err)}") from None
        finally:
            _kill(proc)  # anything the child started and left running
        if not result.exists():
            raise AssertionError(f"{target}: the child process exited with status "
                                 f"{proc.returncode} without a result. Its output:\n{_tail(out, err)}")
        kind, value = pickle.loads(result.read_bytes())
    if kind == "error":
        raise AssertionError(f"{target} raised in its child process:\n{value}\nIts output:\n"
                             f"{_tail(out, err)}")
    return value


def _tail(out: str, err: str) -> str:
    return (out + err)[-_TAIL:] or "(none)"


def cli_main(args: list) -> tuple:
    """``cli.main(args)`` with its output captured: (exit status, stdout, stderr). Run in a child
    by :func:`run_cli`."""
    import contextlib
    import io

    import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def run_cli(args: list, timeout: float = 600) -> tuple:
    """The `migrate` command in a child process with a time limit, for a command that starts a
    worker pool or a server (``convert --jobs 2``, ``check --timeout``, ``check --zoo``):
    (exit status, stdout, stderr)."""
    return run_in_child("tests.child:cli_main", list(args), timeout=timeout)
