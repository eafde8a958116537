"""The converted sides of `migrate check-ddp` (see ddp_hooks.py): the same hooks for ms_core and
for real MindSpore, which share the API they patch. Loaded by path, it imports only the standard
library, NumPy and the framework (ms_core's dropout replay also uses this project's checker)."""
import importlib

import numpy as np


def install(trace, framework: str, common) -> None:
    """Every converted-side hook, for the whole process (`common`: the trace_hooks module)."""
    ms = importlib.import_module(framework)
    optimizers = _optimizer_classes(framework)
    _weights(trace, ms, optimizers)
    common.record_value_and_grad_losses(trace, ms)
    _steps(trace, optimizers)
    common.replay_random(trace, ms.ops, ms.Tensor)
    trace.state_of = lambda: _final_state(trace)
    if framework == "ms_core":
        _ms_core_masks(trace)
        _ms_core_samplers(trace)
    else:
        _mindspore_datasets(trace, ms)


def _optimizer_classes(framework):
    classes = [importlib.import_module(f"{framework}.nn").Optimizer]
    try:
        classes.append(importlib.import_module(f"{framework}.experimental.optim").Optimizer)
    except (ImportError, AttributeError):
        pass
    return tuple(classes)


def _weights(trace, ms, optimizers) -> None:
    """At a network's first top-level call, its trainable parameters from the trace's stream."""
    cell = ms.nn.Cell
    original_call = cell.__call__

    def call(self, *args, **kwargs):
        if trace.depth == 0 and not isinstance(self, optimizers):
            params = list(self.trainable_params())
            if params and any(id(p) not in trace.done for p in params):
                for p, v in zip(params, trace.values([tuple(p.shape) for p in params])):
                    if id(p) not in trace.done:
                        p.set_data(ms.Tensor(v))
                        trace.done.add(id(p))
                if trace.network is None:
                    trace.network = self
        trace.depth += 1
        try:
            return original_call(self, *args, **kwargs)
        finally:
            trace.depth -= 1

    cell.__call__ = call


def _final_state(trace) -> dict:
    if trace.network is None:
        return {}
    return {name: np.array(p.asnumpy()) for name, p in trace.network.parameters_and_names()}


def _steps(trace, optimizers) -> None:
    for cls in optimizers:
        original = cls.__call__

        def call(self, *args, _original=original, **kwargs):
            out = _original(self, *args, **kwargs)
            trace.record_step([np.asarray(p.asnumpy(), np.float64) for p in self.parameters])
            return out

        cls.__call__ = call


def _ms_core_masks(trace) -> None:
    """ms_core's dropout answers with torch's recorded masks, in order."""
    from migrate.check.run import FunctionalMasks
    FunctionalMasks(trace.masks, trace.notes).__enter__()  # for the whole run


def _ms_core_samplers(trace) -> None:
    """ms_core's DistributedSampler shards torch's recorded permutations (its own layout);
    random samplers read in order."""
    from ms_core.dataset import samplers
    original = samplers.DistributedSampler._indices

    def indices(self, n):
        if not self.shuffle:
            return original(self, n)
        perm = trace.next_perm(n)
        return original(self, n) if perm is None else perm[self._positions(n)]

    samplers.DistributedSampler._indices = indices
    samplers.RandomSampler._indices = lambda self, n: np.arange(
        n if self.num_samples is None else min(n, self.num_samples))


class ReplayShard:
    """A Python sampler for MindSpore: the rows of shard `shard_id` of torch's first recorded
    permutation, in the layout of MindSpore's DistributedSampler. MindSpore reads a Python
    sampler's order once, so every epoch takes it (noted when torch drew more)."""

    def __init__(self, trace, n, num_shards, shard_id):
        self.n, self.num_shards, self.shard_id = n, num_shards, shard_id
        perm = trace.next_perm(n)
        self.order = np.arange(n) if perm is None else perm
        if trace.perms:
            trace.notes.append(f"MindSpore reads the first epoch's recorded order in every epoch; "
                               f"torch drew {len(trace.perms)} more: compare the first epoch's steps")

    def __iter__(self):
        return iter(int(i) for i in self.order[_positions(self.n, self.num_shards, self.shard_id)])

    def __len__(self):
        return (self.n + self.num_shards - 1) // self.num_shards


def _mindspore_datasets(trace, ms) -> None:
    """MindSpore's sharded, shuffled Generator/NumpySlices datasets read torch's recorded
    permutations through a Python sampler; unsharded shuffled ones read in order."""
    for cls in (ms.dataset.GeneratorDataset, ms.dataset.NumpySlicesDataset):
        original = cls.__init__

        def init(self, *args, _original=original, _cls=cls, **kwargs):
            shards, shard = kwargs.get("num_shards"), kwargs.get("shard_id")
            if kwargs.get("sampler") is None and kwargs.get("shuffle") is not False:
                n = _rows(_cls, args, kwargs)
                kwargs["shuffle"] = False
                if shards is not None and n is not None:
                    kwargs.update(num_shards=None, shard_id=None, shuffle=None,
                                  sampler=ReplayShard(trace, n, shards, shard))
            return _original(self, *args, **kwargs)

        cls.__init__ = init


def _positions(n, num_shards, shard_id):
    per = -(-n // num_shards)
    return (num_shards * np.arange(per) + shard_id) % n


def _rows(cls, args, kwargs):
    """The number of rows of a Generator/NumpySlices dataset's source, or None."""
    source = args[0] if args else kwargs.get("source", kwargs.get("data"))
    if cls.__name__ == "NumpySlicesDataset":
        if isinstance(source, dict):
            source = next(iter(source.values()))
        elif isinstance(source, tuple):
            source = source[0]
    try:
        return len(source)
    except TypeError:
        return None
