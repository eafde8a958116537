"""`python -m ms_core.launch`: start a data-parallel script as N processes per machine, as msrun
does for MindSpore and torchrun for torch.

    python -m ms_core.launch --nproc 4 train.py --epochs 2
    # two machines, 4 processes each (run on both; node 0's address is the master's):
    python -m ms_core.launch --nproc 4 --nnodes 2 --node-rank 0 --master-addr 10.0.0.1 --master-port 29500 train.py
    python -m ms_core.launch --nproc 4 --nnodes 2 --node-rank 1 --master-addr 10.0.0.1 --master-port 29500 train.py

| ms_core.launch   | msrun                    | torchrun            |
| ---------------- | ------------------------ | ------------------- |
| --nproc N        | --local_worker_num=N     | --nproc-per-node N  |
| --nnodes M       | --worker_num=N*M         | --nnodes M          |
| --node-rank R    | --node_rank=R            | --node-rank R       |
| --master-addr A  | --master_addr=A          | --master-addr A     |
| --master-port P  | --master_port=P          | --master-port P     |
| --log-dir D      | --log_dir=D              | --log-dir D         |

Each worker gets torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
GROUP_RANK, MASTER_ADDR, MASTER_PORT), which `ms.communication.init()` reads, and msrun's
RANK_ID, RANK_SIZE and DEVICE_ID, which MindSpore scripts read; OMP_NUM_THREADS=1 unless set (as
torchrun), so N workers do not fight over the cores. Global rank = node_rank * nproc + local rank.

When a worker fails (a non-zero exit or a signal), the launcher says which in one line on
stderr, stops the other workers (SIGTERM, then SIGKILL after a grace period) and exits non-zero;
SIGINT/SIGTERM to the launcher stop every worker the same way. On one machine without
--master-port a free port is chosen.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time

POLL_SECONDS = 0.02
GRACE_SECONDS = 5.0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ms_core.launch",
                                description="Run a data-parallel script as N processes per machine.")
    p.add_argument("--nproc", type=int, required=True, help="processes on this machine")
    p.add_argument("--nnodes", type=int, default=1, help="machines (default 1)")
    p.add_argument("--node-rank", type=int, default=0, help="this machine's index in [0, nnodes)")
    p.add_argument("--master-addr", default="127.0.0.1", help="address of node 0 (default 127.0.0.1)")
    p.add_argument("--master-port", type=int, default=None,
                   help="a free port on node 0 (required with --nnodes > 1)")
    p.add_argument("--log-dir", default=None, help="write each worker's output to DIR/worker_RANK.log")
    p.add_argument("script", help="the Python script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def _check(p, a) -> None:
    """One clear message for each argument out of range (argparse's exit code 2)."""
    if a.nproc < 1:
        p.error(f"--nproc must be at least 1, but got {a.nproc}")
    if a.nnodes < 1:
        p.error(f"--nnodes must be at least 1, but got {a.nnodes}")
    if not 0 <= a.node_rank < a.nnodes:
        p.error(f"--node-rank must be in [0, {a.nnodes}), but got {a.node_rank}")
    if a.master_port is None and a.nnodes > 1:
        p.error("--master-port is required with --nnodes > 1 (the same free port of node 0 on every machine)")
    if a.master_port is not None and not 0 < a.master_port < 65536:
        p.error(f"--master-port must be in [1, 65535], but got {a.master_port}")
    if not os.path.isfile(a.script):
        p.error(f"the script {a.script!r} does not exist")


def free_port(addr: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on now (the OS picks it)."""
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((addr, 0))
        return s.getsockname()[1]


def worker_env(base, a, local_rank: int, port: int) -> dict:
    """The environment of local worker `local_rank`."""
    rank = a.node_rank * a.nproc + local_rank
    env = dict(base)
    env.update(RANK=str(rank), WORLD_SIZE=str(a.nproc * a.nnodes), LOCAL_RANK=str(local_rank),
               LOCAL_WORLD_SIZE=str(a.nproc), GROUP_RANK=str(a.node_rank), MASTER_ADDR=a.master_addr,
               MASTER_PORT=str(port), RANK_ID=str(rank), RANK_SIZE=str(a.nproc * a.nnodes),
               DEVICE_ID=str(local_rank))
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _die_with_parent() -> None:
    """In the forked worker: be killed when the launcher dies, however it dies (Linux's
    PR_SET_PDEATHSIG; elsewhere the launcher's own stop() is the only guard)."""
    if sys.platform.startswith("linux"):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Workers:
    """The worker processes of this machine, each in its own session (so stopping one stops
    whatever it started)."""

    def __init__(self, a, port: int):
        self.procs, self.logs = [], []
        for local in range(a.nproc):
            out = None
            if a.log_dir:
                os.makedirs(a.log_dir, exist_ok=True)
                out = open(os.path.join(a.log_dir, f"worker_{a.node_rank * a.nproc + local}.log"), "w")
                self.logs.append(out)
            self.procs.append(subprocess.Popen(
                [sys.executable, a.script, *a.args], env=worker_env(os.environ, a, local, port),
                stdout=out, stderr=subprocess.STDOUT if out else None, start_new_session=True,
                preexec_fn=_die_with_parent))
        self.first_rank = a.node_rank * a.nproc

    def failed(self):
        """(global rank, pid, return code) of a worker that failed, or None. When several are
        seen failed at once, one killed by a signal is named first: the others usually failed
        because a peer vanished from their collectives."""
        bad = [(self.first_rank + i, p.pid, p.returncode) for i, p in enumerate(self.procs)
               if p.poll() not in (None, 0)]
        return min(bad, key=lambda b: (b[2] >= 0, b[0])) if bad else None

    def running(self) -> bool:
        return any(p.poll() is None for p in self.procs)

    def stop(self, grace: float = GRACE_SECONDS) -> None:
        """SIGTERM every live worker's session, SIGKILL what is left after `grace` seconds."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, grace)):
            for p in self.procs:
                if p.poll() is None:
                    try:
                        os.killpg(p.pid, sig)
                    except ProcessLookupError:
                        pass
            deadline = time.monotonic() + wait
            while self.running() and time.monotonic() < deadline:
                time.sleep(POLL_SECONDS)
            if not self.running():
                break
        for f in self.logs:
            f.close()


def describe(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def exit_code(code: int) -> int:
    """The launcher's exit status for a worker's return code (128 + signal, as a shell)."""
    return code if code > 0 else 128 - code


def run(a) -> int:
    """Start the workers and watch them; the launcher's exit status."""
    port = a.master_port if a.master_port is not None else free_port(a.master_addr)
    workers = Workers(a, port)
    stopping = []

    def on_signal(signum, frame):
        stopping.append(signum)
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while workers.running():
            bad = workers.failed()
            if bad is not None or stopping:
                break
            time.sleep(POLL_SECONDS)
        bad = workers.failed()
        if stopping:
            print(f"ms_core.launch: received {signal.Signals(stopping[0]).name}; stopping "
                  f"{len(workers.procs)} workers", file=sys.stderr, flush=True)
            workers.stop()
            return 128 + stopping[0]
        if bad is not None:
            rank, pid, code = bad
            others = sum(p.poll() is None for p in workers.procs)
            print(f"ms_core.launch: worker rank {rank} (pid {pid}) {describe(code)}; stopping "
                  f"{others} other running worker{'s' * (others != 1)}", file=sys.stderr, flush=True)
            workers.stop()
            return exit_code(code)
        return 0
    finally:
        workers.stop(grace=0.0)
        for s, h in old.items():
            signal.signal(s, h)


def main(argv=None) -> int:
    p = _parser()
    a = p.parse_args(argv)
    _check(p, a)
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
