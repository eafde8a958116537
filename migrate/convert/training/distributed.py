"""Statement rewrites of the training pass for data-parallel scripts: how the processes start and
find each other.

torch's script starts its processes itself (``mp.spawn``) or is started by torchrun, and tells
``init_process_group`` the rendezvous (``init_method``, ``store``, ``MASTER_ADDR`` /
``MASTER_PORT`` in the environment), its rank and the group size. A MindSpore script is started
by msrun (or ``python -m ms_core.launch`` on ms_core), which gives every worker all of that:
``communication.init()`` takes no argument. So:

- ``init_process_group(...)`` -> ``ms.communication.init()`` + the data-parallel context, with a
  comment saying how to launch the script (msrun's flags for torchrun's, and ms_core's launcher);
- ``mp.spawn(fn, args=(a, b), nprocs=n)`` -> ``ms.communication.init()`` and
  ``fn(ms.communication.get_local_rank(), a, b)``: each launched worker runs what one spawned
  process ran (its index is its local rank), with the same launch comment;
- torchrun's environment read by name (``os.environ["LOCAL_RANK"]``, ``os.getenv("RANK")``) ->
  msrun's names for the same values (``DEVICE_ID``, ``RANK_ID``, ``RANK_SIZE``, ``MS_SCHED_HOST``,
  ``MS_SCHED_PORT``, which ms_core's launcher sets too); the script's own rendezvous settings
  (``os.environ["MASTER_PORT"] = "12355"``) go: the launcher's address and port are the ones.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import (
    bind_args,
    call_of,
    children,
    code_of,
    dotted,
    new_statement,
    removed,
)
from migrate.convert.registry import statement_rule
from migrate.convert.training.rules import INIT_PROCESS_GROUP
from migrate.convert.training.tree import Names, carry_comments

SPAWN = statement_rule(
    "MS240", "spawn_entry", "Replace mp.spawn(fn, args=(a,), nprocs=n) with ms.communication.init() + "
                            "fn(ms.communication.get_local_rank(), a): msrun starts the n workers.", examples=[
    ("import torch.multiprocessing as mp\n"
     "def main(rank, epochs):\n"
     "    print(rank, epochs)\n"
     "if __name__ == '__main__':\n"
     "    mp.spawn(main, args=(10,), nprocs=2)\n",
     "def main(rank, epochs):\n"
     "    print(rank, epochs)\n"
     "if __name__ == '__main__':\n"
     "    # mp.spawn started nprocs=2 processes; msrun starts them instead:\n"
     "    # Launch one process per device with msrun: msrun --worker_num=2 --local_worker_num=2 "
     "--master_port=PORT SCRIPT.py\n"
     "    #   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N "
     "--local_worker_num=N --node_rank=R --master_addr=NODE0);\n"
     "    #   on ms_core: python -m ms_core.launch --nproc 2 SCRIPT.py\n"
     "    ms.communication.init()\n"
     "    main(ms.communication.get_local_rank(), 10)\n"),
])
LAUNCH_ENV = statement_rule(
    "MS241", "launcher_environment", "Replace torchrun's environment (os.environ['LOCAL_RANK'], RANK, "
                                     "WORLD_SIZE, MASTER_ADDR/PORT) with msrun's (DEVICE_ID, RANK_ID, "
                                     "RANK_SIZE, MS_SCHED_HOST/PORT); drop the script's own rendezvous settings.",
    examples=[
        ("import os\n"
         "import torch.distributed as dist\n"
         'os.environ["MASTER_PORT"] = "12355"\n'
         'local_rank = int(os.environ["LOCAL_RANK"])\n'
         'world = int(os.getenv("WORLD_SIZE", "1"))\n',
         'local_rank = int(os.environ["DEVICE_ID"])\n'
         'world = int(os.getenv("RANK_SIZE", "1"))\n'),
    ])

SPAWN_CALLS = {"torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn",
               "torch.multiprocessing.start_processes", "torch.multiprocessing.spawn.start_processes"}
SPAWN_PARAMS = ["fn", "args", "nprocs", "join", "daemon", "start_method"]
_PG_PARAMS = ["backend", "init_method", "timeout", "world_size", "rank", "store", "group_name", "pg_options",
              "device_id"]
# torchrun's variables -> msrun's for the same value (ms_core's launcher sets both)
TORCHRUN_TO_MSRUN = {"RANK": "RANK_ID", "WORLD_SIZE": "RANK_SIZE", "LOCAL_RANK": "DEVICE_ID",
                     "MASTER_ADDR": "MS_SCHED_HOST", "MASTER_PORT": "MS_SCHED_PORT"}
_RENDEZVOUS = ("MASTER_ADDR", "MASTER_PORT")
_TCP = re.compile(r"""^["']tcp://\[?([^\]'"]+?)\]?:(\d+)["']$""")


def launch_comment(workers: str, addr: str | None = None, port: str | None = None) -> list[str]:
    """The comment lines that say how to start the converted script: msrun's command (and what
    torchrun's flags become), and ms_core's launcher."""
    master = (f" --master_addr={addr}" if addr else "") + f" --master_port={port or 'PORT'}"
    ms_master = (f" --master-addr {addr}" if addr else "") + (f" --master-port {port}" if port else "")
    msrun = (f"# Launch one process per device with msrun: msrun --worker_num={workers} "
             f"--local_worker_num={workers}{master} SCRIPT.py")
    torchrun = ("#   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N "
                "--local_worker_num=N --node_rank=R --master_addr=NODE0);")
    return [msrun, torchrun, f"#   on ms_core: python -m ms_core.launch --nproc {workers}{ms_master} SCRIPT.py"]


def _commented(stmt, lines):
    """`stmt` with `lines` as comment lines above it (after its own leading lines)."""
    extra = [cst.EmptyLine(comment=cst.Comment(line)) for line in lines]
    return stmt.with_changes(leading_lines=[*stmt.leading_lines, *extra])


def _group_launch(call: cst.Call) -> tuple[str, str | None, str | None, bool]:
    """(workers, addr, port, one process) from init_process_group's arguments."""
    args = bind_args(call, _PG_PARAMS) or {}
    given = {k: code_of(v) for k, v in args.items()}
    world = given.get("world_size", "-1")
    workers = world if re.fullmatch(r"\d+", world) else "N"
    m = _TCP.match(given.get("init_method", ""))
    addr, port = (m.group(1), m.group(2)) if m else (None, None)
    alone = world == "1" and given.get("rank", "0") == "0"
    return workers, addr, port, alone


def process_group(cleanup, st):
    """``dist.init_process_group(...)`` -> ``ms.communication.init()`` and the data-parallel
    context, under the launch comment; or None when ``st`` is not such a call."""
    tp = cleanup.tp
    call = call_of(st)
    if call is None or tp.qual(call.func) != "torch.distributed.init_process_group" \
            or not cleanup.allows(INIT_PROCESS_GROUP.id):
        return None
    tp.converter.output.used.add("ms")
    new = carry_comments(st, [new_statement("ms.communication.init()"),
                              new_statement("ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode."
                                            "DATA_PARALLEL, gradients_mean=True)")])
    workers, addr, port, alone = _group_launch(call)
    if not alone:
        new[0] = _commented(new[0], launch_comment(workers, addr, port))
    tp.record(st, new[0], INIT_PROCESS_GROUP.id, "transformed",
              "init_process_group -> communication.init() + data-parallel context with mean gradients; "
              + ("one process: no launcher needed" if alone else
                 "the rank, group size and rendezvous come from the launcher (msrun; ms_core: "
                 "python -m ms_core.launch), whose command the comment gives"))
    return new


def spawn(cleanup, st):
    """``mp.spawn(fn, args=(a, b), nprocs=n)`` -> ``ms.communication.init()`` and
    ``fn(ms.communication.get_local_rank(), a, b)`` under the launch comment; None when ``st``
    is not such a statement (a spawn whose result is used, or join=False, is marked)."""
    tp = cleanup.tp
    call = call_of(st)
    if call is None or tp.qual(call.func) not in SPAWN_CALLS or not cleanup.allows(SPAWN.id):
        return None
    args = bind_args(call, SPAWN_PARAMS)
    if spawn_problem(st.body[0], args):
        return None  # the main walk marks the call (its table entry is unsupported, MS901)
    tp.converter.output.used.add("ms")
    rest = args.get("args")
    extra = ""
    if rest is not None:
        extra = ", " + (", ".join(code_of(e.value) for e in rest.elements) if isinstance(rest, cst.Tuple)
                        else f"*{code_of(rest)}")
    nprocs = code_of(args["nprocs"]) if "nprocs" in args else "1"
    workers = nprocs if re.fullmatch(r"\d+", nprocs) else "N"
    first = _commented(new_statement("ms.communication.init()"),
                       [f"# mp.spawn started nprocs={nprocs} processes; msrun starts them instead:",
                        *launch_comment(workers)])
    new = carry_comments(st, [first, new_statement(
        f"{code_of(args['fn'])}(ms.communication.get_local_rank(){extra})")])
    tp.record(st, new[1], SPAWN.id, "transformed",
              f"mp.spawn -> each worker msrun starts runs fn with its local rank (the spawned "
              f"process's index); launch {workers} workers per machine (the comment gives the command)")
    return new


def spawn_problem(small, args) -> str:
    """Why the spawn call of the small statement `small` cannot become a direct call ('' when it
    can; `args` its bound arguments, None when they cannot be bound)."""
    if args is None or "fn" not in args:
        return "mp.spawn with arguments the rewrite cannot read (*args/**kwargs): call fn(rank, ...) " \
               "in each worker msrun starts"
    if not isinstance(small, cst.Expr):
        return "mp.spawn whose result is used (a process context): call fn(rank, ...) in each worker " \
               "msrun starts"
    join = args.get("join")
    if join is not None and code_of(join) != "True":
        return "mp.spawn(join=False): msrun's workers run fn to its end; call fn(rank, ...) in each"
    return ""


def environment(cleanup, st):
    """torchrun's environment reads -> msrun's names; the script's own rendezvous settings
    (``os.environ["MASTER_PORT"] = ...``) go. None when ``st`` has neither."""
    tp = cleanup.tp
    if not isinstance(st, cst.SimpleStatementLine) or not cleanup.allows(LAUNCH_ENV.id) \
            or not _uses_torch_distributed(tp):
        return None
    small = st.body[0] if len(st.body) == 1 else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 \
            and _env_key(small.targets[0].target) in _RENDEZVOUS:
        key = _env_key(small.targets[0].target)
        tp.record(st, "", LAUNCH_ENV.id, "transformed",
                  f"{key} set by the script removed: the launcher's rendezvous address and port are used "
                  f"(msrun --master_addr/--master_port; ms_core.launch --master-addr/--master-port)")
        return removed(st)
    if not any(_env_key(node) in TORCHRUN_TO_MSRUN for node in _env_reads(st, cleanup.names(st))):
        return None
    new = st.visit(_EnvRenamer())
    tp.record(st, new, LAUNCH_ENV.id, "exact",
              "torchrun's environment variables -> msrun's for the same values (RANK -> RANK_ID, "
              "LOCAL_RANK -> DEVICE_ID, WORLD_SIZE -> RANK_SIZE, MASTER_ADDR/PORT -> MS_SCHED_HOST/PORT)")
    tp.tree.stands_for(new, st)
    rest = cleanup._one(new)
    return rest if rest is not None else [new]


def _uses_torch_distributed(tp) -> bool:
    """Whether the file's imports bring torch.distributed (or torch.multiprocessing) in."""
    return any(q.startswith(("torch.distributed", "torch.multiprocessing")) or q == "torch"
               for q in tp.converter.facts.aliases.values())


def _env_key(node) -> str | None:
    """The literal variable name of ``os.environ["K"]``, ``os.environ.get("K", d)`` or
    ``os.getenv("K", d)``, else None."""
    if isinstance(node, cst.Subscript) and dotted(node.value) == "os.environ" and len(node.slice) == 1:
        key = node.slice[0].slice
        key = key.value if isinstance(key, cst.Index) else None
    elif isinstance(node, cst.Call) and dotted(node.func) in ("os.environ.get", "os.getenv") and node.args:
        key = node.args[0].value
    else:
        return None
    return key.evaluated_value if isinstance(key, cst.SimpleString) else None


def _env_reads(st, names: Names) -> list:
    return [n for n in (*names.calls, *_subscripts(st)) if _env_key(n) is not None]


def _subscripts(st) -> list:
    found, stack = [], [st]
    while stack:  # the code fields, not libcst's visitor: this runs at every statement
        node = stack.pop()
        if type(node) is cst.Subscript:
            found.append(node)
        stack.extend(children(node))
    return found


class _EnvRenamer(cst.CSTTransformer):
    """The variable names of torchrun's environment reads, as msrun calls them."""

    def leave_Subscript(self, original, updated):
        return self._renamed(original, updated)

    def leave_Call(self, original, updated):
        return self._renamed(original, updated)

    @staticmethod
    def _renamed(original, updated):
        key = _env_key(original)
        if key not in TORCHRUN_TO_MSRUN:
            return updated
        new = cst.SimpleString(repr(TORCHRUN_TO_MSRUN[key]).replace("'", '"'))
        if isinstance(updated, cst.Subscript):
            return updated.with_changes(slice=[updated.slice[0].with_changes(
                slice=updated.slice[0].slice.with_changes(value=new))])
        return updated.with_changes(args=[updated.args[0].with_changes(value=new), *updated.args[1:]])
