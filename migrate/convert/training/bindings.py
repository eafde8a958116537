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
from migrate.convert.torch_signature import signatures
from migrate.convert.training.tree import Names, getitem_columns, walk_statements

# torch's optimizer base class, as optimizer classes name it, and the methods of its API that
# are not steps
OPTIMIZER_BASES = ("torch.optim.Optimizer", "torch.optim.optimizer.Optimizer")
TORCH_OPTIMIZER_API = {"step", "zero_grad", "state_dict", "load_state_dict", "add_param_group", "__init__",
                       "__setstate__", "__getstate__", "__repr__"}
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
    single_process_parallel: frozenset[str]
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
        single_process_parallel=ruled("data_parallel_module"),
        optimizers=frozenset(q for q in optim if not q.startswith("torch.optim.lr_scheduler.")),
        schedulers=frozenset(q for q in optim if q.startswith("torch.optim.lr_scheduler.")),
    )


def _unmoved(call: cst.Call) -> cst.Call:
    """``C(...)`` of ``C(...).cuda()`` / ``.to(device)`` / ``.train()``: the call that built the object."""
    while isinstance(call.func, cst.Attribute) and call.func.attr.value in _MOVES \
            and isinstance(call.func.value, cst.Call):
        call = call.func.value
    return call


_MOVES = ("cuda", "to", "cpu", "train", "eval", "float", "half", "double")


class _Subscripted(cst.CSTVisitor):
    def __init__(self, names: set[str]):
        self.names = names
        self.found: set[str] = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        name = dotted(node.value)
        if name in self.names:
            self.found.add(name)


def _subscripted(body, names: set[str]) -> set[str]:
    """The names of ``names`` that the statements of ``body`` read by index (``name[...]``)."""
    visitor = _Subscripted(names)
    for st in body:
        st.visit(visitor)
    return visitor.found


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
    # classes here deriving from torch.optim.Optimizer -> the step methods they define besides
    # torch's API (SAM's first_step/second_step), theirs and their bases' here
    optimizer_classes: dict[str, set[str]] = field(default_factory=dict)
    torch_api_optimizers: dict[str, str] = field(default_factory=dict)  # name -> its optimizer class here
    schedulers: set[str] = field(default_factory=set)   # names bound to lr_scheduler.*(...)
    opt_params: dict[str, str | None] = field(default_factory=dict)  # optimizer -> net of Opt(net.parameters())
    # name -> DistributedSampler(...), for a name bound once and read only as a DataLoader's
    # sampler= or by set_epoch(): folded into the dataset (num_shards/shard_id), statement removed
    samplers: dict[str, cst.Call] = field(default_factory=dict)
    # names also bound to a DistributedSampler but bound elsewhere too (`s = None` in an else
    # branch) or read otherwise: the statement stays (an ms DistributedSampler) and the
    # DataLoader passes it as sampler=
    kept_samplers: set[str] = field(default_factory=set)
    datasets: dict[str, int] = field(default_factory=dict)  # name -> columns (TensorDataset(...))
    indexed: set[str] = field(default_factory=set)  # TensorDataset names the file reads by index (ds[i], ds[a:b])
    ds_columns: dict[str, int] = field(default_factory=dict)  # Dataset class -> columns of __getitem__ (0: no tuple)
    ds_instances: dict[str, int] = field(default_factory=dict)  # name -> columns (an instance of one)
    loaders: set[str] = field(default_factory=set)      # names bound to DataLoader(...)
    loader_data: dict[str, cst.BaseExpression] = field(default_factory=dict)  # loader -> its dataset
    sharded: dict[str, cst.Call] = field(default_factory=dict)  # TensorDataset -> its sampler call
    ddp: set[str] = field(default_factory=set)          # names bound to DistributedDataParallel(...)
    wrapped: set[str] = field(default_factory=set)      # ... or to DataParallel(...): `.module` is the network
    loop_names: set[str] = field(default_factory=set)   # names bound by `for` targets

    def scan(self, body, converter, tensors: set[str]) -> None:
        """Fill the bindings from the whole file; add batch columns to ``tensors`` and network
        parameters (``def train(model, ...)``) to ``converter.walk_state.module_names``."""
        batches: set[str] = set()  # loop variables that hold a whole batch (a list of columns)
        for node in walk_statements(body):
            if isinstance(node, cst.ClassDef):
                self.classes.add(node.name.value)
                self._optimizer_class(node, converter)
                cols = getitem_columns(node)
                if cols is not None:
                    self.ds_columns[node.name.value] = cols
            elif isinstance(node, cst.For):
                self.loop_names.update(Names.bound_by(node.target))
                self._loop(node, batches, tensors)
            elif isinstance(node, cst.FunctionDef):
                converter.walk_state.module_names.update(p.name.value for p in node.params.params
                                         if p.name.value in _NETWORK_PARAMS)
            else:
                a = single_assign(node)
                if a is not None:
                    self._batch_columns(a, batches, tensors)
                    self._constructed(a, converter)
        if self.samplers:
            self._keep_used_samplers(body, converter)
        if self.datasets:
            self.indexed = _subscripted(body, set(self.datasets))

    def _optimizer_class(self, node: cst.ClassDef, converter) -> None:
        """Remember a class deriving from torch.optim.Optimizer (or from one defined here) and
        the methods it defines that take the gradients in p.grad besides step()."""
        bases = [dotted(b.value) for b in node.bases]
        # the runtime's TorchOptimizer: what a first conversion made of torch's base
        converted = signatures(converter).existing.get("TorchOptimizer")
        if not any((converter.qual(b.value) or "") in OPTIMIZER_BASES for b in node.bases) and \
                not any(b in self.optimizer_classes for b in bases) and (converted is None or converted not in bases):
            return
        inherited = set().union(*(self.optimizer_classes.get(b, set()) for b in bases))
        own = {s.name.value for s in node.body.body if isinstance(s, cst.FunctionDef)
               and not s.name.value.startswith("_")} if isinstance(node.body, cst.IndentedBlock) else set()
        self.optimizer_classes[node.name.value] = (inherited | own) - TORCH_OPTIMIZER_API

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

    def _constructed(self, a: cst.Assign, converter) -> None:
        """``name = <training API>(...)``: remember what ``name`` holds."""
        apis = training_apis()
        if len(a.targets) == 1 and isinstance(a.value, cst.IfExp) and dotted(a.targets[0].target):
            # s = DistributedSampler(ds) if distributed else None: chosen at run time
            if any(isinstance(v, cst.Call) and (converter.qual(v.func) or "") in apis.samplers
                   for v in (a.value.body, a.value.orelse)):
                self.kept_samplers.add(dotted(a.targets[0].target))
            return
        if len(a.targets) != 1 or not isinstance(a.value, cst.Call):
            return
        call = a.value
        name = dotted(a.targets[0].target)
        q = converter.qual(call.func) or ""
        if name is None and q not in apis.random_splits:
            return
        if q in apis.data_parallel:
            self.ddp.add(name)
        if (converter.qual(_unmoved(call).func) or "") in apis.data_parallel | apis.single_process_parallel:
            self.wrapped.add(name)  # (also through .cuda() / .to(device))
        if q in apis.scalers:
            self.scalers.add(name)
        elif q in apis.loaders:
            self._loader(name, call)
        elif q in apis.schedulers:
            self.schedulers.add(name)
        elif q in apis.optimizers or (isinstance(call.func, cst.Name) and call.func.value in self.optimizer_classes):
            self.optimizers.add(name)
            if isinstance(call.func, cst.Name) and call.func.value in self.optimizer_classes:
                self.torch_api_optimizers[name] = call.func.value
            self._optimizer_params(name, call)
        elif q in apis.samplers:
            self.samplers[name] = call
        elif q in apis.tensor_datasets:
            self.datasets[name] = len(call.args)
        elif q in apis.random_splits:
            for t in Names.bound_by(a.targets[0]):
                self.datasets[t] = 0
        elif isinstance(call.func, cst.Name) and call.func.value in self.ds_columns:
            self.ds_instances[name] = self.ds_columns[call.func.value]

    def _optimizer_params(self, name: str, call: cst.Call) -> None:
        """``opt = Opt(net.parameters(), ...)``: remember ``net`` (bound once; else forgotten)."""
        first = call.args[0].value if call.args and call.args[0].keyword is None else None
        net = None
        if isinstance(first, cst.Call) and not first.args and isinstance(first.func, cst.Attribute) \
                and first.func.attr.value == "parameters":
            net = dotted(first.func.value)
        if name in self.opt_params and self.opt_params[name] != net or net is None:
            self.opt_params[name] = None
        else:
            self.opt_params[name] = net

    def _keep_used_samplers(self, body, converter) -> None:
        """A sampler name bound more than once, or read other than as a DataLoader's
        ``sampler=`` or ``name.set_epoch(...)``, keeps its statements (no fold)."""
        uses = _NameUses(set(self.samplers), converter, training_apis().loaders)
        for st in body:
            st.visit(uses)
        for name in list(self.samplers):
            if uses.bound[name] != 1 or uses.other[name]:
                self.kept_samplers.add(name)
                del self.samplers[name]
            for ds in uses.loader_data.get(name, ()):
                if ds in self.datasets and name in self.samplers:
                    # a TensorDataset read through the sampler (by a loader bound to a name or not)
                    self.sharded.setdefault(ds, self.samplers[name])
        for ds in [d for d, call in self.sharded.items() if all(call is not c for c in self.samplers.values())]:
            del self.sharded[ds]
        # the dataset's own statement becomes the sharded one: only where the name means that one
        # TensorDataset in the whole file (`ds` of another function must stay unsharded)
        data_uses = _NameUses(set(self.sharded), converter, training_apis().loaders)
        for st in body:
            st.visit(data_uses)
        for ds in [d for d in self.sharded if data_uses.bound[d] != 1 or self._reads_loop_names(self.sharded[d])]:
            call = self.sharded.pop(ds)
            for name in [n for n, c in self.samplers.items() if c is call]:
                del self.samplers[name]  # not folded: its statement stays, the loader is marked
                self.kept_samplers.add(name)

    def _reads_loop_names(self, sampler: cst.Call) -> bool:
        """Whether the sampler's arguments read a loop variable (``for rank in ...``): the folded
        dataset statement comes before the loop and could not read it."""
        return bool(set(Names.of([a.value for a in sampler.args[1:]]).reads) & self.loop_names)

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


class _NameUses(cst.CSTVisitor):
    """How the names in ``names`` are used in a file: bindings, and reads other than a
    DataLoader's ``sampler=`` argument or the receiver of ``.set_epoch()``."""

    def __init__(self, names: set[str], converter, loaders):
        self.names = names
        self.converter = converter
        self.loaders = loaders
        self.bound = {n: 0 for n in names}
        self.other = {n: 0 for n in names}
        self.loader_data: dict[str, list] = {}  # sampler name -> the datasets of the loaders reading it
        self._allowed: set[int] = set()  # ids of the name nodes in an allowed place

    def _note_targets(self, targets) -> None:
        for t in targets:
            name = dotted(t)
            if name in self.names:
                self.bound[name] += 1
                self._allowed.add(id(t))
            elif t is not None:
                for sub in Names.bound_by(t):
                    if sub in self.names:
                        self.bound[sub] += 1  # a, s = ... : bound, not folded

    def visit_Assign(self, node) -> None:
        self._note_targets([t.target for t in node.targets])

    def visit_AnnAssign(self, node) -> None:
        self._note_targets([node.target])

    def visit_AugAssign(self, node) -> None:
        self._note_targets([node.target])

    def visit_For(self, node) -> None:
        self._note_targets([node.target])

    def visit_AsName(self, node) -> None:
        self._note_targets([node.name])

    def visit_Param(self, node) -> None:
        self._note_targets([node.name])

    def visit_Call(self, node) -> None:
        f = node.func
        if isinstance(f, cst.Attribute) and f.attr.value == "set_epoch" and dotted(f.value) in self.names:
            self._allowed.add(id(f.value))
        elif (self.converter.qual(f) or "") in self.loaders:
            for a in node.args:
                if a.keyword is not None and a.keyword.value == "sampler" and dotted(a.value) in self.names:
                    self._allowed.add(id(a.value))
                    data = node.args[0].value if node.args and node.args[0].keyword is None else None
                    self.loader_data.setdefault(dotted(a.value), []).append(dotted(data) if data else None)

    def visit_FunctionDef(self, node) -> None:
        self._note_targets([node.name])

    def visit_ClassDef(self, node) -> None:
        self._note_targets([node.name])

    def visit_Arg(self, node) -> None:
        if node.keyword is not None:
            self._allowed.add(id(node.keyword))  # f(sampler=...): a keyword, not a use

    def visit_Attribute(self, node) -> bool:
        if self._use(node):
            node.value.visit(self)  # x.sampler: the attribute's own name is not a use
        return False

    def visit_Name(self, node) -> None:
        self._use(node)

    def _use(self, node) -> bool:
        name = dotted(node)
        if name in self.names:
            if id(node) not in self._allowed:
                self.other[name] += 1
            return False
        return True
