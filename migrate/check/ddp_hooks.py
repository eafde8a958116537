"""In-process hooks of `migrate check-ddp`: what makes a data-parallel script and its conversion
comparable rank by rank, and what each rank records.

Every process of a checked run loads this module at start-up (``ddp_site/sitecustomize.py``,
put first on PYTHONPATH by the checker) when ``MIGRATE_DDP_TRACE`` names the run's directory;
``MIGRATE_DDP_SIDE`` says which side it is: ``torch`` (the original under torch DDP),
``ms_core`` (the conversion under ``python -m ms_core.launch``) or ``mindspore`` (the
``--target mindspore`` conversion under msrun). So workers started by torchrun, by
``mp.spawn``, by the ms_core launcher or by msrun are all hooked, whoever starts them. The
module imports only the standard library and NumPy at load time (MindSpore's interpreter need
not have this project's dependencies); each side's hooks import their framework when installed.

What the hooks do, on every rank:

- the same initial weights: the first time a network is called from outside any other network,
  each of its parameters is drawn from one NumPy stream per network, in `parameters()` order on
  the torch side and `trainable_params()` order on the converted sides (which agree for
  converted models); the same on every rank, as DDP's broadcast from rank 0 makes them;
- the same random numbers: the torch side records what `torch.rand/randn/randint/...` return
  to the script's own files, per rank; the converted sides get those values back, in order,
  from the ops the converter maps them to;
- the same data order: torch's DistributedSampler draws its permutation from a generator seeded
  by seed + epoch; the torch side records each permutation it iterates, and the converted
  sides' sharded datasets take them in the same order (ms_core: the permutation its
  DistributedSampler shards; MindSpore: a Python sampler yielding the shard's rows, the layout
  MindSpore's DistributedSampler uses). Plain random samplers read in order on every side;
- the same dropout masks (torch and ms_core): torch's masks recorded, ms_core's dropout answers
  with them;
- what is recorded: the loss of every `backward()` (torch) / `value_and_grad` call (converted),
  each parameter's sum and sum of squares after every optimizer step, and the trained network's
  parameters and buffers after the last step (torch names translated to MindSpore's);
- `MIGRATE_DDP_MAX_STEPS`: the process saves and ends (SystemExit(0)) after that many
  optimizer steps.

The torch side also runs CUDA-written scripts on the CPU (the torch reference for an N-GPU
script): `nccl` becomes `gloo`, device indices and `cuda` devices stay on the CPU,
`torch.cuda.device_count()` answers N, `set_device` does nothing; and `nn.SyncBatchNorm`, which
torch runs only on accelerators, runs on the CPU with its statistics all-reduced over the group.

Files, per side and rank: ``DIR/SIDE/rankR.json`` (losses, steps, notes) and ``DIR/SIDE/rankR.npz``
(``state/NAME`` final values; on the torch side also ``random/I``, ``mask/I``, ``perm/I``).
"""
from __future__ import annotations

import atexit
import json
import os
import sys

import numpy as np

ENV_DIR, ENV_SIDE, ENV_ROOT = "MIGRATE_DDP_TRACE", "MIGRATE_DDP_SIDE", "MIGRATE_DDP_ROOT"
ENV_STEPS, ENV_NPROC = "MIGRATE_DDP_MAX_STEPS", "MIGRATE_DDP_NPROC"
SIDES = ("torch", "ms_core", "mindspore")


def _sibling(name: str):
    """A module of this folder, loaded by path: MindSpore's interpreter may lack this project's
    dependencies, so the package (migrate.check) is not imported there."""
    import importlib.util
    key = f"_migrate_{name}"
    if key not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
        spec = importlib.util.spec_from_file_location(key, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


COMMON = _sibling("trace_hooks")   # what the script checker's hooks share with these


class Trace:
    """What one process records (or, on the converted sides, replays)."""

    def __init__(self, out_dir: str, side: str, root: str, max_steps: int | None):
        self.dir, self.side, self.root = out_dir, side, os.path.abspath(root)
        self.max_steps = max_steps
        self.losses: list[float] = []
        self.steps: list[list] = []
        self.notes: list[str] = []
        self.random: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.perms: list[np.ndarray] = []
        self.networks = 0          # networks whose weights were set (one stream each)
        self.done: set[int] = set()
        self.depth = 0
        self.network = None        # the first network trained: its final state is saved
        self.rank_of = lambda: 0   # set by the side's hooks
        self.state_of = dict

    def from_script(self, depth: int = 2) -> bool:
        """Whether the caller's caller is code of the script's own tree."""
        return COMMON.called_from(self.root, depth)

    def values(self, shapes) -> list[np.ndarray]:
        """Initial values of one network's parameters (one stream per network)."""
        return COMMON.initial_values(self, shapes)

    def record_loss(self, value) -> None:
        self.losses.append(float(np.asarray(value, np.float64).reshape(-1)[0]))

    def record_step(self, arrays) -> None:
        """After an optimizer step: statistics, the files, and the end at MAX_STEPS."""
        self.steps.append([[float(a.sum(dtype=np.float64)), float(np.square(a, dtype=np.float64).sum())]
                           for a in arrays])
        self.save()
        if self.max_steps is not None and len(self.steps) >= self.max_steps:
            # SystemExit, not os._exit: the frameworks' own exit handlers must run (msrun
            # waits a long time for workers that vanish without them)
            raise SystemExit(0)

    def save(self) -> None:
        """Write this rank's files (a process that trained nothing writes none)."""
        if not self.losses and not self.steps:
            return
        rank = self.rank_of()
        path = os.path.join(self.dir, self.side)
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, f"rank{rank}.json"), "w") as f:
            json.dump({"losses": self.losses, "steps": self.steps, "notes": self.notes}, f)
        arrays = {f"state/{k}": v for k, v in self.state_of().items()}
        if self.side == "torch":
            arrays.update({f"random/{i}": a for i, a in enumerate(self.random)})
            arrays.update({f"mask/{i}": a for i, a in enumerate(self.masks)})
            arrays.update({f"perm/{i}": a for i, a in enumerate(self.perms)})
        np.savez(os.path.join(path, f"rank{rank}.npz"), **arrays)

    def load_replay(self, rank: int) -> None:
        """The torch side's recordings of `rank`: what the converted side replays."""
        path = os.path.join(self.dir, "torch", f"rank{rank}.npz")
        if not os.path.isfile(path):
            self.notes.append(f"no torch recording for rank {rank}: nothing replayed")
            return
        with np.load(path) as z:
            for kind, target in (("random", self.random), ("mask", self.masks), ("perm", self.perms)):
                keys = sorted((k for k in z.files if k.startswith(kind + "/")), key=lambda k: int(k.split("/")[1]))
                target.extend(z[k] for k in keys)

    def next_perm(self, n: int):
        """The next recorded sampler permutation of n rows, or None (noted)."""
        if not self.perms:
            self.notes.append("a sharded dataset shuffled with nothing recorded left: its own order")
            return None
        perm = self.perms.pop(0)
        if perm.size != n:
            self.notes.append(f"a sharded dataset of {n} rows, recorded permutation of {perm.size}")
            return None
        return perm


def install() -> Trace | None:
    """Install the hooks of this process's side (from the environment); None when not asked."""
    out_dir, side = os.environ.get(ENV_DIR), os.environ.get(ENV_SIDE)
    if not out_dir or side not in SIDES:
        return None
    steps = os.environ.get(ENV_STEPS)
    trace = Trace(out_dir, side, os.environ.get(ENV_ROOT, os.getcwd()), int(steps) if steps else None)
    if side == "torch":
        from migrate.check.ddp_torch import install_torch
        install_torch(trace)
    elif "RANK" in os.environ or "RANK_ID" in os.environ:  # a worker, not its launcher
        _install_converted(trace, side)
    else:
        return None
    atexit.register(trace.save)
    return trace


def _install_converted(trace: Trace, framework: str) -> None:
    """The converted side's hooks (ms_core or real MindSpore): same code, either framework."""
    rank = int(os.environ.get("RANK", os.environ.get("RANK_ID", "0")))
    trace.rank_of = lambda: rank
    trace.load_replay(rank)
    hooks = _load_converted_hooks()
    hooks.install(trace, framework, COMMON)


def _load_converted_hooks():
    return _sibling("ddp_converted")
