"""Hooks that make a training script and its conversion comparable step by step.

`migrate check-script` (:mod:`migrate.check.script_check`) and the benchmarks (`bench/realworld.py
--child script --trace DIR`, `bench/recipes.py`) install them before running a script:

- the same initial weights: the first time a network is called from outside any other network,
  every parameter it has that nothing set yet is drawn from one NumPy stream per network (seeded by
  the order of those first calls), in registration order: `parameters()` on the torch side,
  `trainable_params()` on the converted side, which agree for converted models. A parameter whose
  shape differs between the sides gets different values and the comparison fails, as it should;
- the same random numbers: the torch side records what `torch.randn/rand/randint/randperm/...`
  return when the script's own files call them; the converted side returns the recorded values, in
  order, from the ms_core functions the converter maps them to (shapes checked; a mismatch stops
  the replay and is reported);
- the same dropout masks: the torch side records the keep-mask of every dropout it applies in
  training mode (`F.dropout` / `dropout1d/2d/3d`, which torch's dropout layers call, and the
  attention dropout of `F.scaled_dot_product_attention`, run as its math so that its mask is a
  functional dropout's: `migrate.check.randomness.explicit_attention_dropout`), in call order;
  the converted side answers ms_core's dropout mask requests (`ops.nn_ops.set_dropout_mask_provider`:
  `nn.Dropout*`, `ops.dropout*`, the attention dropout of `nn.MultiheadAttention`) with them, in
  the same order (fitted to the shape asked as the checker does: `migrate.check.run.fit_mask`;
  a mask that does not fit drops nothing and is reported). Dropout inside
  fused torch kernels (the `dropout=` between the layers of `nn.LSTM/GRU/RNN`) is not seen;
- the same data order: random samplers of data loaders read in order on both sides;
- what is compared: the loss of every backward() (torch) and of every value_and_grad call
  (converted), and, after every optimizer step, each parameter's sum and sum of squares.

`trace.json` in DIR holds `losses`, `steps` (per step, per parameter [sum, sum of squares]) and
`notes` (replay problems).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from .trace_hooks import (called_from, initial_values, record_torch_random, record_value_and_grad_losses,
                          replay_random)

MAX_RECORDS = 8          # losses and steps kept per run


@dataclass(frozen=True)
class Options:
    """What the hooks do besides recording: `weights` draws the initial weights (off for a run that
    resumes from a checkpoint); `keep_set` leaves alone the parameters a script sets itself
    (`load_state_dict`, `load_param_into_net`), and a `copy.deepcopy` of parameters not drawn yet
    (a model EMA built before the first forward) follows its source: it gets the same values."""

    weights: bool = True
    keep_set: bool = False
    by_name: bool = False   # each parameter's values drawn by its torch name (not by order), and
    # the steps recorded per name: order-free (MindSpore's multi-layer RNNs list their weights
    # layer-major, torch's parameter-major)
    max_steps: int | None = None   # keep every parameter after each of the first N optimizer steps
    # (Trace.full, saved as steps.npz), then stop the script (StopTraining)


class StopTraining(BaseException):
    """Raised after the optimizer step that completes `Options.max_steps` (a BaseException, so the
    script's own `except Exception` does not catch it)."""


class Trace:
    """What one run recorded, and the files it reads and writes."""

    def __init__(self, out_dir: str, tree: str, replay: str | None = None):
        self.out = os.path.join(out_dir, "trace.json")
        self.tree = os.path.abspath(tree)
        self.losses: list[float] = []
        self.steps: list[list] = []
        self.notes: list[str] = []
        self.random: list[np.ndarray] = []   # recorded (torch) or to replay (converted)
        self.masks: list[np.ndarray] = []    # dropout keep-masks, recorded or to replay
        self.attention = None                # torch side: fused attention run as its math
        self.done: set[int] = set()          # ids of parameters already set
        self.followers: dict[int, list] = {}  # id of a parameter not set yet -> its deep copies
        # the parameters whose ids are keys of done / names, kept alive: a script that builds a
        # second network after dropping the first would otherwise get the first's recycled ids
        # (already "set", under the first network's names)
        self.alive: list = []
        self.networks = 0
        self.depth = 0
        self.names: dict[int, str] = {}     # id of a drawn parameter -> its torch name (by_name)
        self.drawn: list[list[str]] = []     # per network drawn, the names (by_name) of what it drew
        self.full: list[dict] = []           # per step, {torch name: the parameter's values}
        self.stepped = 0                     # optimizer steps taken so far
        self.loss_steps: list[int] = []      # per loss, the optimizer steps taken before it
        self.max_steps: int | None = None
        if replay:
            with np.load(replay) as z:
                self.random = [z[k] for k in sorted((k for k in z.files if k[0] == "r"), key=lambda k: int(k[1:]))]
                self.masks = [z[k] for k in sorted((k for k in z.files if k[0] == "m"), key=lambda k: int(k[1:]))]

    def from_script(self, depth: int = 2) -> bool:
        """Whether the caller's caller is code of the script's tree (not torch's or ms_core's)."""
        return called_from(self.tree, depth)

    def values(self, shapes) -> list[np.ndarray]:
        """The initial values of one network's parameters (one stream per network)."""
        return initial_values(self, shapes)

    def named_values(self, named_shapes) -> list[np.ndarray]:
        """The initial values of one network's parameters, each drawn from a stream of its own
        (seeded by the network's index and the parameter's torch name)."""
        import zlib
        index = self.networks
        self.networks += 1
        out = []
        for name, shape in named_shapes:
            rng = np.random.default_rng([1000 + index, zlib.crc32(name.encode())])
            bound = 1.0 / np.sqrt(np.prod(shape[1:])) if len(shape) > 1 else 0.1
            out.append(rng.uniform(-bound, bound, size=shape).astype(np.float32))
        return out

    def draw(self, named, assign, by_name: bool) -> None:
        """Set the parameters of one network ([(torch name, parameter)]) that nothing set yet."""
        shapes = [tuple(p.shape) for _, p in named]
        values = self.named_values([(n, s) for (n, _), s in zip(named, shapes)]) if by_name else self.values(shapes)
        self.drawn.append([n for n, p in named if id(p) not in self.done])
        for (name, p), v in zip(named, values):
            self.alive.append(p)
            self.names.setdefault(id(p), name)
            for f in self.followers.get(id(p), []):
                self.names.setdefault(id(f), name)
            self.set_value(p, v, assign)

    def record_named_step(self, params) -> None:
        """After an optimizer step: {torch name: [sum, sum of squares]} of its parameters (and
        the values themselves, with max_steps; StopTraining once that many steps are kept)."""
        self.stepped += 1
        named = {}
        for i, (pid, a) in enumerate(params):
            name = self.names.get(pid, f"#{i}")
            while name in named:
                name += "'"
            named[name] = a
        if len(self.steps) < MAX_RECORDS:
            self.steps.append({n: [float(a.sum(dtype=np.float64)), float((a.astype(np.float64) ** 2).sum())]
                               for n, a in named.items()})
        if self.max_steps is not None:
            self.full.append({n: np.array(a, dtype=np.float64) for n, a in named.items()})
            if len(self.full) >= self.max_steps:
                raise StopTraining(f"stopped after {self.max_steps} optimizer steps")

    def link(self, source, copy) -> None:
        """`copy` is a deep copy of the parameter `source`: set with it (or kept, if set already)."""
        self.alive += [source, copy]
        if id(source) in self.done:
            self.done.add(id(copy))
        else:
            self.followers.setdefault(id(source), []).append(copy)

    def set_value(self, param, value, assign) -> None:
        """Set one parameter (and the deep copies that follow it) with `assign(param, value)`."""
        for p in [param, *self.followers.pop(id(param), [])]:
            if id(p) not in self.done:
                assign(p, value)
                self.done.add(id(p))
                self.alive.append(p)

    def record_step(self, arrays) -> None:
        self.stepped += 1
        if len(self.steps) < MAX_RECORDS:
            self.steps.append([[float(a.sum(dtype=np.float64)), float((a.astype(np.float64) ** 2).sum())]
                               for a in arrays])

    def record_loss(self, value) -> None:
        if len(self.losses) < MAX_RECORDS:
            self.losses.append(float(value))
            self.loss_steps.append(self.stepped)

    def save(self, random_path: str | None = None) -> None:
        with open(self.out, "w") as f:
            json.dump({"losses": self.losses, "steps": self.steps, "notes": self.notes, "drawn": self.drawn,
                       "loss_steps": self.loss_steps}, f)
        if self.full:
            np.savez(os.path.join(os.path.dirname(self.out), "steps.npz"),
                     **{f"{k}:{name}": a for k, step in enumerate(self.full) for name, a in step.items()})
        if random_path is not None:
            np.savez(random_path, **{f"r{i}": a for i, a in enumerate(self.random)},
                     **{f"m{i}": a for i, a in enumerate(self.masks)})


# ---- torch side ------------------------------------------------------------------------------

def no_dropout(side: str) -> None:
    """Make dropout the identity on one side (for scripts that have no flag to turn it off: the
    two sides draw their masks from different generators)."""
    if side == "original":
        import torch
        torch.nn.functional.dropout = lambda input, p=0.5, training=True, inplace=False: input
    else:
        import ms_core as ms
        ms.nn.Dropout.construct = lambda self, x: x
        ms.ops.dropout = lambda input, p=0.5, training=True, seed=None: input


def _follow_copies(trace: Trace, is_param) -> None:
    """copy.deepcopy of parameters: each copy follows its source (Trace.link)."""
    import copy
    original, depth = copy.deepcopy, [0]

    def deepcopy(x, memo=None, _nil=[]):  # noqa: B006 (copy.deepcopy's own signature)
        memo = {} if memo is None else memo
        depth[0] += 1
        try:
            y = original(x, memo, _nil)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            for o in memo.get(id(memo), []):
                c = memo.get(id(o))
                if is_param(o) and c is not None and c is not o:
                    trace.link(o, c)
        return y

    copy.deepcopy = deepcopy


def install_torch(trace: Trace, options: Options = Options()) -> None:
    """Hooks for the original script: weights, recorded random numbers, losses, steps."""
    import torch
    trace.max_steps = options.max_steps
    if options.weights:
        _torch_weights(trace, torch, options.by_name)
    if options.keep_set:
        _follow_copies(trace, lambda o: isinstance(o, torch.nn.Parameter))
        original_load = torch.nn.Module.load_state_dict

        def load_state_dict(self, *args, **kwargs):
            out = original_load(self, *args, **kwargs)
            trace.done.update(id(p) for p in self.parameters())
            return out

        torch.nn.Module.load_state_dict = load_state_dict
    record_torch_random(trace, torch)
    _torch_dropout(trace)
    original_backward = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        if self.numel() == 1:
            trace.record_loss(self.detach().float().item())
        return original_backward(self, *args, **kwargs)

    torch.Tensor.backward = backward

    def after_step(optimizer, args, kwargs):
        # a frozen parameter given to a torch optimizer is never stepped; MindSpore's optimizers
        # hold the trainable ones only
        params = [p for g in optimizer.param_groups for p in g["params"] if p.requires_grad]
        if options.by_name:
            trace.record_named_step([(id(p), p.detach().double().numpy()) for p in params])
        else:
            trace.record_step([p.detach().double().numpy() for p in params])

    from torch.optim.optimizer import register_optimizer_step_post_hook
    register_optimizer_step_post_hook(after_step)
    import torch.utils.data.sampler as samplers
    samplers.RandomSampler.__iter__ = lambda self: iter(range(len(self.data_source)))


def _torch_weights(trace: Trace, torch, by_name: bool = False) -> None:
    original_call = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        if trace.depth == 0:
            named = _torch_named(self)
            if any(id(p) not in trace.done for _, p in named):
                with torch.no_grad():
                    trace.draw(named, lambda q, a: q.copy_(torch.from_numpy(a)), by_name)
        trace.depth += 1
        try:
            return original_call(self, *args, **kwargs)
        finally:
            trace.depth -= 1

    torch.nn.Module.__call__ = call
    if by_name:
        _draw_at_optimizers(trace, torch.nn.Module, [torch.optim.Optimizer],
                            _torch_named,
                            lambda opt: [p for g in opt.param_groups for p in g["params"]],
                            lambda q, a: q.copy_(torch.from_numpy(a)), torch.no_grad)


def _draw_at_optimizers(trace: Trace, base, optimizers, named_of, params_of, assign, no_grad) -> None:
    """Networks whose parameters an optimizer gets before the network is first called (or that are
    never called, only their forward): drawn when the optimizer is built, by the torch names of the
    outermost network built so far that holds them."""
    import weakref
    built = []
    original_init = base.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        built.append(weakref.ref(self))

    base.__init__ = init

    def after(opt):
        todo = {id(p) for p in params_of(opt)} - trace.done
        while todo:
            best = None
            for ref in built:
                net = ref()
                if net is None:
                    continue
                named = named_of(net)
                hit = sum(id(p) in todo for _, p in named)
                if hit and (best is None or len(named) > len(best)):
                    best = named
            if best is None:
                return
            with no_grad():
                trace.draw(best, assign, True)
            todo -= {id(p) for _, p in best}

    for cls in optimizers:
        original = cls.__init__

        def opt_init(self, *args, _original=original, **kwargs):
            _original(self, *args, **kwargs)
            after(self)

        cls.__init__ = opt_init


def _torch_dropout(trace: Trace) -> None:
    """Record the keep-mask of every training-mode dropout (torch's own draw: the original
    function run on ones, so the script's random stream is consumed as without the hook)."""
    import torch
    import torch.nn.functional as F

    from migrate.check.randomness import explicit_attention_dropout

    def recorder(fn):
        def wrapped(input, p=0.5, training=True, inplace=False):
            if not training or p == 0.0:
                return fn(input, p, training, inplace)
            scale = fn(torch.ones_like(input), p, True, False)
            trace.masks.append((scale != 0).cpu().numpy())
            return input.mul_(scale) if inplace else input * scale
        return wrapped

    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
        setattr(F, name, recorder(getattr(F, name)))
    trace.attention = explicit_attention_dropout()   # entered for the whole run (kept: a
    trace.attention.__enter__()                      # context left to the collector exits)


# ---- converted side (ms_core) ----------------------------------------------------------------

def install_ms(trace: Trace, options: Options = Options()) -> None:
    """Hooks for the converted script: the same weights, replayed random numbers, losses, steps."""
    import ms_core as ms
    from ms_core import nn
    trace.max_steps = options.max_steps
    if options.weights:
        _ms_weights(trace, ms, nn, options.by_name)
    if options.keep_set:
        _follow_copies(trace, lambda o: isinstance(o, ms.Parameter))
        _ms_keep_loaded(trace, ms, nn)
    replay_random(trace, ms.ops, ms.Tensor)
    _ms_dropout(trace)
    record_value_and_grad_losses(trace, ms)
    _ms_steps(trace, ms, options.by_name)
    from ms_core.dataset import samplers
    samplers.RandomSampler._indices = lambda self, n: np.arange(n if self.num_samples is None else
                                                                min(n, self.num_samples))
    from ms_core.dataset.datasets import Dataset
    Dataset.shuffle = lambda self, buffer_size: self   # a shuffled DataLoader's pipeline, in order


def _ms_keep_loaded(trace: Trace, ms, nn) -> None:
    """Parameters a converted script loads itself are not redrawn."""
    from ms_core.train import serialization
    original_load = serialization.load_param_into_net

    def load_param_into_net(net, *args, **kwargs):
        out = original_load(net, *args, **kwargs)
        trace.done.update(id(p) for p in net.get_parameters())
        return out

    ms.load_param_into_net = serialization.load_param_into_net = load_param_into_net
    if hasattr(nn.Cell, "load_state_dict"):
        original_cell_load = nn.Cell.load_state_dict

        def load_state_dict(self, *args, **kwargs):
            out = original_cell_load(self, *args, **kwargs)
            trace.done.update(id(p) for p in self.get_parameters())
            return out

        nn.Cell.load_state_dict = load_state_dict


def _ms_torch_names(cell) -> list:
    """[(torch name, Parameter)] of a Cell's trainable parameters: the path name, with each
    layer's MindSpore names given back their torch names (ms_core.hub's renames); a tied
    parameter by the first of its names in sorted order (as :func:`_torch_named`)."""
    from ms_core import hub
    names: dict[int, list] = {}
    for n, p in hub._torch_names(cell).items():
        if p is not None:
            names.setdefault(id(p), []).append(n)
    trainable = {id(p) for p in cell.trainable_params()}
    out, seen = [], set()
    for path, p in cell.parameters_and_names():
        if id(p) in trainable and id(p) not in seen:
            seen.add(id(p))
            out.append((min(names.get(id(p), [path])), p))
    return out


def _torch_named(module) -> list:
    """[(torch name, parameter)] of a module's trainable parameters, each once, in torch's order; a tied
    parameter by the first of its names in sorted order (the two sides register ties in their
    own order: nanoGPT's wte and lm_head)."""
    names: dict[int, list] = {}
    for n, p in module.named_parameters(remove_duplicate=False):
        names.setdefault(id(p), []).append(n)
    # trainable ones only, as the converted side draws (_ms_torch_names): a parameter frozen when
    # its network is drawn (a table given to Embedding.from_pretrained) keeps the script's value
    return [(min(names[id(p)]), p) for _, p in module.named_parameters() if p.requires_grad]


def _ms_weights(trace: Trace, ms, nn, by_name: bool = False) -> None:
    original_call = nn.Cell.__call__

    from ms_core.experimental.optim.optimizer import Optimizer as Experimental
    from ms_core.nn.optim.optimizer import Optimizer as Classic

    def call(self, *args, **kwargs):
        if trace.depth == 0 and not isinstance(self, (Experimental, Classic)):
            named = _ms_torch_names(self) if by_name else [("", p) for p in self.trainable_params()]
            if any(id(p) not in trace.done for _, p in named):
                trace.draw(named, lambda q, a: q.set_data(ms.Tensor(a)), by_name)
        trace.depth += 1
        try:
            return original_call(self, *args, **kwargs)
        finally:
            trace.depth -= 1

    nn.Cell.__call__ = call
    if by_name:
        import contextlib
        _draw_at_optimizers(trace, nn.Cell, [Experimental, Classic],
                            lambda c: [] if isinstance(c, (Experimental, Classic)) else _ms_torch_names(c),
                            lambda opt: list(opt.parameters), lambda q, a: q.set_data(ms.Tensor(a)),
                            contextlib.nullcontext)


def _ms_dropout(trace: Trace) -> None:
    """Answer ms_core's dropout mask requests with torch's recorded masks, in order (the
    checker's functional-mask replay: a mask that does not fit drops nothing and is noted)."""
    from migrate.check.run import FunctionalMasks
    FunctionalMasks(trace.masks, trace.notes).__enter__()   # for the whole run


def _ms_steps(trace: Trace, ms, by_name: bool = False) -> None:
    from ms_core.experimental.optim.optimizer import Optimizer as Experimental
    from ms_core.nn.optim.optimizer import Optimizer as Classic
    for cls in (Experimental, Classic):
        original = cls.__call__

        def call(self, *args, _original=original, **kwargs):
            out = _original(self, *args, **kwargs)
            _record_step(trace, self.parameters, by_name)
            return out

        cls.__call__ = call
    _runtime_optimizer_steps(trace, by_name)


def _record_step(trace: Trace, parameters, by_name: bool) -> None:
    """The values of an optimizer's parameters after its step, by identity or in order."""
    if by_name:
        trace.record_named_step([(id(p), p.asnumpy().astype(np.float64)) for p in parameters])
    else:
        trace.record_step([p.asnumpy().astype(np.float64) for p in parameters])


def _runtime_optimizer_steps(trace: Trace, by_name: bool) -> None:
    """Record the steps of the conversion runtime's optimizers that are not MindSpore Optimizers
    (TorchLBFGS: ``step(closure)``), in whichever copy of the runtime the converted tree imports
    (``migrate_runtime`` beside its files, or ``migrate.runtime``): patched when that module loads."""
    import importlib.abc
    import sys

    def is_optim(name: str) -> bool:
        return name.endswith("migrate_runtime.optim") or name == "migrate.runtime.optim"

    def patch(module) -> None:
        cls = getattr(module, "TorchLBFGS", None)
        if cls is None or getattr(cls.step, "_traced", False):
            return
        original = cls.step

        def step(self, *args, _original=original, **kwargs):
            out = _original(self, *args, **kwargs)
            _record_step(trace, self.parameters, by_name)
            return out

        step._traced = True
        cls.step = step

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if not is_optim(name):
                return None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None and spec.loader is not None:
                    exec_module = spec.loader.exec_module

                    def run(module, _exec=exec_module):
                        _exec(module)
                        patch(module)
                    spec.loader.exec_module = run
                    return spec
            return None

    for name, module in list(sys.modules.items()):
        if is_optim(name):
            patch(module)
    sys.meta_path.insert(0, Finder())


# ---- comparison --------------------------------------------------------------------------------

def compare(torch_trace: dict, ms_trace: dict, tolerance: float) -> dict:
    """Worst relative error of the losses and of the per-step parameter statistics."""
    def rel(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12)) if a.size else 0.0

    n = min(len(torch_trace["losses"]), len(ms_trace["losses"]))
    s = min(len(torch_trace["steps"]), len(ms_trace["steps"]))
    res = {"losses": n, "steps": s, "notes": ms_trace.get("notes", [])}
    if n == 0 and s == 0:
        res["status"] = "no steps"
        return res
    a_steps, b_steps = torch_trace["steps"][:s], ms_trace["steps"][:s]
    if s and isinstance(a_steps[0], dict):   # recorded by name: compare the names both have
        missing = sorted({k for x in a_steps for k in x} ^ {k for x in b_steps for k in x})
        if missing:
            res["detail"] = "parameters stepped on one side only: " + ", ".join(missing[:6])
        a_steps = [[x[k] for k in sorted(x)] for x in a_steps]
        b_steps = [[x[k] for k in sorted(x)] for x in b_steps]
    shapes = [len(x) for x in a_steps] == [len(x) for x in b_steps]
    res["loss_err"] = rel(ms_trace["losses"][:n], torch_trace["losses"][:n]) if n else None
    # steps of networks of different sizes (a script that trains several) are one list of values
    res["param_err"] = rel([v for x in b_steps for v in x], [v for x in a_steps for v in x]) if s and shapes else None
    worst = max(e for e in (res["loss_err"], res["param_err"]) if e is not None) if (n or shapes) else None
    res["status"] = "agree" if worst is not None and worst <= tolerance and (shapes or not s) else "differ"
    return res
