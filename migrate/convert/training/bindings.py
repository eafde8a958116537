"""What a training script binds, by name: optimizers, schedulers, loss scalers, data loaders,
datasets, samplers, data-parallel models (one scan of the whole file before any rewrite).

Which torch APIs make each kind is read from the entries of ``mappings/training.toml`` (by the
rule they name, or by their torch module), not written here a second time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from mappings import load_tables
from migrate.convert.cst import dotted, single_assign
from migrate.convert.training.tree import Names, getitem_columns, walk_statements

_NETWORK_PARAMS = ("model", "net", "network")  # function parameters that hold the network


@dataclass(frozen=True)
class TrainingAPIs:
    """Qualified torch names of each kind, from the training table."""

    scalers: frozenset[str]
    loaders: frozenset[str]
    tensor_datasets: frozenset[str]
    samplers: frozenset[str]
    random_splits: frozenset[str]
    data_parallel: frozenset[str]
    optimizers: frozenset[str]
    schedulers: frozenset[str]


@lru_cache(maxsize=1)
def training_apis() -> TrainingAPIs:
    """The torch names of mappings/training.toml, by kind (every alias included)."""
    entries = [e for e in load_tables().values() if e.table == "training"]

    def ruled(rule: str) -> frozenset[str]:
        return frozenset(e.torch for e in entries if e.rule == rule)

    optim = [e.torch for e in entries if e.torch.startswith("torch.optim.")]
    return TrainingAPIs(
        scalers=ruled("grad_scaler_ctor"), loaders=ruled("dataloader"),
        tensor_datasets=ruled("tensor_dataset"), samplers=ruled("distributed_sampler"),
        random_splits=ruled("random_split"), data_parallel=ruled("ddp"),
        optimizers=frozenset(q for q in optim if not q.startswith("torch.optim.lr_scheduler.")),
        schedulers=frozenset(q for q in optim if q.startswith("torch.optim.lr_scheduler.")),
    )


def looks_loader(name: str) -> bool:
    """``train_loader``, ``dataloaders``, ``self.val_loader``, ``train_dl``, ``dl``."""
    last = name.split(".")[-1].lower()
    return "loader" in last or last == "dl" or last.endswith("_dl")


def looks_optimizer(name: str) -> bool:
    """``optimizer``, ``self.optim``, ``opt``, ``opt_g``, ``d_opt``, ``opt2`` (not ``options``)."""
    last = name.split(".")[-1].lower()
    return "optim" in last or last == "opt" or last.startswith("opt_") or last.endswith("_opt") \
        or last[:3] == "opt" and last[3:].isdigit()


@dataclass
class FileBindings:
    """Names of one file bound to training objects (what the rules need to know about them)."""

    classes: set[str] = field(default_factory=set)      # classes defined in this file
    scalers: set[str] = field(default_factory=set)      # names bound to GradScaler(...)
    optimizers: set[str] = field(default_factory=set)   # names bound to torch.optim.*(...)
    schedulers: set[str] = field(default_factory=set)   # names bound to lr_scheduler.*(...)
    samplers: dict[str, cst.Call] = field(default_factory=dict)  # name -> DistributedSampler(...)
    datasets: dict[str, int] = field(default_factory=dict)  # name -> columns (TensorDataset(...))
    ds_columns: dict[str, int] = field(default_factory=dict)  # Dataset class -> columns of __getitem__
    ds_instances: dict[str, int] = field(default_factory=dict)  # name -> columns (an instance of one)
    loaders: set[str] = field(default_factory=set)      # names bound to DataLoader(...)
    loader_data: dict[str, cst.BaseExpression] = field(default_factory=dict)  # loader -> its dataset
    sharded: dict[str, cst.Call] = field(default_factory=dict)  # TensorDataset -> its sampler call
    ddp: set[str] = field(default_factory=set)          # names bound to DistributedDataParallel(...)

    def scan(self, body, conv, tensors: set[str]) -> None:
        """Fill the bindings from the whole file; add batch columns to ``tensors`` and network
        parameters (``def train(model, ...)``) to ``conv.module_names``."""
        batches: set[str] = set()  # loop variables that hold a whole batch (a list of columns)
        for node in walk_statements(body):
            if isinstance(node, cst.ClassDef):
                self.classes.add(node.name.value)
                cols = getitem_columns(node)
                if cols:
                    self.ds_columns[node.name.value] = cols
            elif isinstance(node, cst.For):
                self._loop(node, batches, tensors)
            elif isinstance(node, cst.FunctionDef):
                conv.module_names.update(p.name.value for p in node.params.params
                                         if p.name.value in _NETWORK_PARAMS)
            else:
                a = single_assign(node)
                if a is not None:
                    self._batch_columns(a, batches, tensors)
                    self._constructed(a, conv)

    def _loop(self, node: cst.For, batches: set[str], tensors: set[str]) -> None:
        """``for x, y in loader`` / ``for i, batch in enumerate(loader)``: batches are tensors."""
        it = node.iter
        if isinstance(it, cst.Call) and dotted(it.func) == "enumerate" and it.args:
            it = it.args[0].value
            target = node.target.elements[-1].value if isinstance(node.target, cst.Tuple) \
                and len(node.target.elements) == 2 else None
        else:
            target = node.target
        if isinstance(it, cst.Subscript):  # dataloaders[phase]
            it = it.value
        src = dotted(it) or ""
        if target is not None and (src in self.loaders or looks_loader(src)):
            if isinstance(target, cst.Name):
                batches.add(target.value)  # a list of columns: `x, y = batch` below
            else:
                tensors.update(Names.bound_by(target))

    @staticmethod
    def _batch_columns(a: cst.Assign, batches: set[str], tensors: set[str]) -> None:
        """``x, y = batch`` / ``x = batch[0]`` (columns of a batch); not ``batch = ...`` itself."""
        v = a.value.value if isinstance(a.value, cst.Subscript) else a.value
        t = a.targets[0].target
        if dotted(v) in batches and (isinstance(t, (cst.Tuple, cst.List)) or isinstance(a.value, cst.Subscript)):
            tensors.update(Names.bound_by(t))

    def _constructed(self, a: cst.Assign, conv) -> None:
        """``name = <training API>(...)``: remember what ``name`` holds."""
        if len(a.targets) != 1 or not isinstance(a.value, cst.Call):
            return
        apis = training_apis()
        call = a.value
        name = dotted(a.targets[0].target)
        q = conv.qual(call.func) or ""
        if name is None and q not in apis.random_splits:
            return
        if q in apis.data_parallel:
            self.ddp.add(name)
        if q in apis.scalers:
            self.scalers.add(name)
        elif q in apis.loaders:
            self._loader(name, call)
        elif q in apis.schedulers:
            self.schedulers.add(name)
        elif q in apis.optimizers:
            self.optimizers.add(name)
        elif q in apis.samplers:
            self.samplers[name] = call
        elif q in apis.tensor_datasets:
            self.datasets[name] = len(call.args)
        elif q in apis.random_splits:
            for t in Names.bound_by(a.targets[0]):
                self.datasets[t] = 0
        elif isinstance(call.func, cst.Name) and call.func.value in self.ds_columns:
            self.ds_instances[name] = self.ds_columns[call.func.value]

    def _loader(self, name: str, call: cst.Call) -> None:
        self.loaders.add(name)
        if call.args and call.args[0].keyword is None:
            self.loader_data[name] = call.args[0].value
            ds = dotted(call.args[0].value)
            sampler = next((x.value for x in call.args
                            if x.keyword is not None and x.keyword.value == "sampler"), None)
            if ds in self.datasets and dotted(sampler) in self.samplers:
                # a TensorDataset read through a DistributedSampler: shard the dataset
                self.sharded[ds] = self.samplers[dotted(sampler)]
