"""Statement rewrites around the training steps: autocast blocks, ``len(loader)``, the leftover
``zero_grad()``/``step()`` calls, samplers and ``set_epoch``, data-parallel models, process
groups, Dataset base classes.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import (
    bind_args,
    call_of,
    code_of,
    dotted,
    left_pass,
    parse_expr,
    removed,
    short,
)
from migrate.convert.registry import RULES
from migrate.convert.rules.data import (
    SAMPLER_ARGS,
    column_names,
    shard_args,
    slices_data,
)
from migrate.convert.torch_signature import signatures
from migrate.convert.training import distributed
from migrate.convert.training.bindings import looks_loader, training_apis
from migrate.convert.training.rules import (
    AUTOCAST,
    DATASET_BASE,
    LEN_LOADER,
    SAMPLER_STATEMENTS,
    ZERO_GRAD,
)
from migrate.convert.training.tree import Names, with_comment

AUTOCAST_CALLS = {"torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast",
                  "torch.cpu.amp.autocast", "torch.amp.autocast_mode.autocast"}
DATASET_BASES = {"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset",
                 "torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}
# the table rules that statements apply too: a TensorDataset read through a sampler becomes a
# sharded dataset, `model = DDP(model)` goes
_TENSOR_DATASET = RULES["tensor_dataset"]
_DDP = RULES["ddp"]


class Cleanup:
    """Statement rewrites around the steps, one statement list at a time (see
    :meth:`~migrate.convert.training.tree.StatementTree.walk_blocks`), so untouched statements
    keep their identity and their line numbers.

    Args:
        tp: the training pass.
        autocast_only: only unwrap autocast blocks (run first, so that a backward() inside one
            sits in the loop body with its step).
    """

    def __init__(self, tp, autocast_only: bool = False):
        self.tp = tp
        self.autocast_only = autocast_only
        self.allows = tp.converter.allows
        self._scanned: dict[int, tuple] = {}  # id(statement) -> (statement, its Names)

    def names(self, st) -> Names:
        """``Names.of(st)``, scanned once for the several rewrites that ask about ``st``."""
        got = self._scanned.get(id(st))
        if got is None or got[0] is not st:
            got = self._scanned[id(st)] = (st, Names.of(st))
        return got[1]

    def __call__(self, stmts: list):
        out, changed = [], False
        for st in stmts:
            new = self._one(st)
            if new is None:
                out.append(st)
                continue
            changed = True
            out.extend(new)
        if not changed:
            return None
        return out or [left_pass()]

    def _one(self, st):
        """The statements that replace ``st``, or None to keep it."""
        if self.autocast_only and not isinstance(st, cst.With):
            return None
        if self._has_len_of_loader(st) and self.allows(LEN_LOADER.id):
            return self._len_of_loader(st)
        if self._has_ddp_module(st) and self.allows(_DDP.id):
            return self._ddp_module(st)
        if self._has_get_scale(st):
            return self._get_scale(st)
        if isinstance(st, cst.With):
            return self._autocast(st)
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            return None
        new = distributed.environment(self, st)
        if new is not None:
            return new
        small = st.body[0]
        for rewrite in (self._sharded_dataset, self._indexed_dataset, self._sampler, self._optimizer_call):
            new = rewrite(st, small)
            if new is not None:
                return new
        return distributed.process_group(self, st) or distributed.spawn(self, st)

    # ---- len(loader) -------------------------------------------------------------------
    def _has_len_of_loader(self, st) -> bool:
        return isinstance(st, cst.SimpleStatementLine) and any(
            isinstance(c.func, cst.Name) and c.func.value == "len" and len(c.args) == 1
            and self.len_target(c.args[0].value) is not None for c in self.names(st).calls)

    def _len_of_loader(self, st):
        tp = self.tp
        new = st.visit(_LenRewriter(self))
        tp.record(st, new, LEN_LOADER.id, "exact",
                  "len(loader) -> loader.get_dataset_size() (batches); len(loader.dataset) -> "
                  "loader.children[0].get_dataset_size() (samples)")
        tp.tree.stands_for(new, st)
        rest = self._one(new)
        return rest if rest is not None else [new]

    def _is_loader(self, node) -> bool:
        name = dotted(node)
        return name is not None and (name in self.tp.bindings.loaders or looks_loader(name))

    def len_target(self, arg) -> str | None:
        """The replacement of ``len(arg)`` when ``arg`` is a loader or ``loader.dataset``."""
        if self._is_loader(arg):
            return f"{code_of(arg)}.get_dataset_size()"
        if isinstance(arg, cst.Attribute) and arg.attr.value == "dataset" and self._is_loader(arg.value):
            # the rows before batching: the size of the batch's input dataset (exact also for
            # a partial last batch, and whatever the loader's name is bound to in this scope)
            return f"{code_of(arg.value)}.children[0].get_dataset_size()"
        return None

    # ---- ddp.module ---------------------------------------------------------------------
    def _has_ddp_module(self, st) -> bool:
        return isinstance(st, cst.SimpleStatementLine) and any(
            a.attr.value == "module" and dotted(a.value) in self.tp.bindings.wrapped for a in self.names(st).attrs)

    def _ddp_module(self, st):
        """``model.module`` of a DDP-wrapped ``model`` -> ``model`` (MindSpore wraps nothing)."""
        tp = self.tp
        new = st.visit(_DdpModuleRewriter(tp.bindings.wrapped))
        tp.record(st, new, _DDP.id, "exact", "model.module -> model: the (Distributed)DataParallel "
                                             "wrapper is gone, the network is the model")
        tp.tree.stands_for(new, st)
        rest = self._one(new)
        return rest if rest is not None else [new]

    # ---- scaler.get_scale(), scaler.state_dict(), scaler.load_state_dict(sd) -------------------
    def _has_get_scale(self, st) -> bool:
        return isinstance(st, cst.SimpleStatementLine) and any(
            _scaler_method(c, self.tp.bindings.scalers) for c in self.names(st).calls)

    def _get_scale(self, st):
        """``scaler.get_scale()`` -> ``float(scaler.scale_value)`` (MindSpore's scalers keep it
        there); the scaler's state by torch's keys through the runtime's
        ``torch_scaler_state_dict`` / ``torch_scaler_load_state_dict`` (a loss scaler is no Cell:
        ``parameters_dict()`` would be wrong)."""
        tp = self.tp
        rewriter = _GetScaleRewriter(tp.bindings.scalers, signatures(tp.converter))
        new = st.visit(rewriter)
        notes = {"get_scale": "scaler.get_scale() -> float(scaler.scale_value)",
                 "is_enabled": "scaler.is_enabled() -> torch_scaler_is_enabled(scaler): whether it scales",
                 "state_dict": "scaler.state_dict() -> torch_scaler_state_dict(scaler): torch's keys "
                               "(scale, growth_factor, backoff_factor, growth_interval, _growth_tracker)",
                 "load_state_dict": "scaler.load_state_dict(sd) -> torch_scaler_load_state_dict(scaler, sd)"}
        for name in sorted(rewriter.seen):
            tp.record(st, new, "MS222", "exact", notes[name])
        tp.tree.stands_for(new, st)
        rest = self._one(new)
        return rest if rest is not None else [new]

    # ---- with autocast() ---------------------------------------------------------------
    def _autocast(self, st: cst.With):
        tp = self.tp
        items = [it for it in st.items
                 if not (isinstance(it.item, cst.Call) and tp.qual(it.item.func) in AUTOCAST_CALLS)]
        if len(items) == len(st.items) or not isinstance(st.body, cst.IndentedBlock) \
                or not self.allows(AUTOCAST.id):
            return None
        tp.record(st, "", AUTOCAST.id, "approximate",
                  "autocast removed: ms_core computes in float32; for mixed precision use "
                  "ms.amp.auto_mixed_precision(network) once", before=code_of(st.items[0].item))
        if items:
            items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return [st.with_changes(items=items)]
        stmts = list(st.body.body)
        header = [cst.EmptyLine(comment=st.body.header.comment)] if st.body.header.comment is not None else []
        stmts[0] = stmts[0].with_changes(leading_lines=[*st.leading_lines, *header, *stmts[0].leading_lines])
        tp.tree.stands_for(stmts[0], st.body.body[0])
        return stmts

    # ---- data parallelism -------------------------------------------------------------
    def _sharded_dataset(self, st, small):
        """``data = TensorDataset(a, b)`` read through a DistributedSampler -> a sharded dataset."""
        tp = self.tp
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and dotted(small.targets[0].target) in tp.bindings.sharded and isinstance(small.value, cst.Call)
                and all(a.keyword is None and not a.star for a in small.value.args)
                and self.allows(_TENSOR_DATASET.id)):
            return None
        values = [a.value for a in small.value.args]
        sampler = tp.bindings.sharded[dotted(small.targets[0].target)]
        shard = shard_args(bind_args(sampler, SAMPLER_ARGS) or {}, "{}")
        tp.converter.output.used.add("ms")
        # the arguments stay torch code here: the main walk converts them inside the call
        new = st.with_changes(body=[small.with_changes(value=parse_expr(
            f"ms.dataset.NumpySlicesDataset({slices_data(values)}, column_names={column_names(len(values))}, "
            f"{shard})"))])
        tp.record(st, new, _TENSOR_DATASET.id, "transformed",
                  "TensorDataset read through a DistributedSampler -> a sharded NumpySlicesDataset")
        tp.tree.stands_for(new, st)
        return [new]

    def _indexed_dataset(self, st, small):
        """``ds = TensorDataset(a, b)`` that the file reads by index or slice (``ds[i: j]``) ->
        the runtime's ``TorchTensorDataset(a, b)``: a NumpySlicesDataset (a DataLoader batches it
        as before) whose ``ds[index]`` is torch's tuple of indexed tensors."""
        tp = self.tp
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and dotted(small.targets[0].target) in tp.bindings.indexed and isinstance(small.value, cst.Call)
                and tp.qual(small.value.func) in training_apis().tensor_datasets
                and all(a.keyword is None for a in small.value.args) and small.value.args
                and self.allows(_TENSOR_DATASET.id)):
            return None
        helper = signatures(tp.converter).helper("TorchTensorDataset")
        # the arguments stay torch code here: the main walk converts them inside the call
        new = st.with_changes(body=[small.with_changes(value=small.value.with_changes(func=cst.Name(helper)))])
        tp.record(st, new, _TENSOR_DATASET.id, "transformed",
                  "TensorDataset read by index -> TorchTensorDataset: a NumpySlicesDataset whose ds[i] / "
                  "ds[a:b] is torch's tuple of indexed tensors")
        tp.tree.stands_for(new, st)
        return [new]

    def _sampler(self, st, small):
        """``sampler = DistributedSampler(...)``: the DataLoader rule folds it into the dataset."""
        tp = self.tp
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and dotted(small.targets[0].target) in tp.bindings.samplers
                and isinstance(small.value, cst.Call)
                and tp.qual(small.value.func) in training_apis().samplers
                and self.allows(SAMPLER_STATEMENTS.id)):
            return None
        tp.record(st, "", SAMPLER_STATEMENTS.id, "transformed",
                  "DistributedSampler -> num_shards/shard_id of the dataset built from the DataLoader")
        return removed(st)

    # ---- optimizer calls outside the rewritten steps ----------------------------------
    def _optimizer_call(self, st, small):
        """zero_grad() of a rewritten optimizer goes; a step()/zero_grad() no backward() pairs
        with is marked (MS955); ``sampler.set_epoch(e)`` goes."""
        tp = self.tp
        call = call_of(st)
        if call is None or not isinstance(call.func, cst.Attribute):
            return None
        recv = dotted(call.func.value)
        name = call.func.attr.value
        keep = id(st) in tp.keep
        if name == "zero_grad" and not keep and (
                recv in tp.stepped or tp.stepped and recv in tp.converter.walk_state.module_names):
            if not self.allows(ZERO_GRAD.id):
                return None
            tp.record(st, "", ZERO_GRAD.id, "exact", "zero_grad() removed: value_and_grad "
                                                     "returns fresh gradients on every call")
            return removed(st)
        if not keep and (name == "step" and tp.is_step(st) or name == "zero_grad"
                         and (recv in tp.bindings.optimizers or "optim" in (recv or ""))):
            reason = short(f"{code_of(call).strip()} without a backward() before it in the same block: "
                           "compute grads with ms.value_and_grad and call the optimizer with them", 240)
            tp.record(st, "", "MS955", "unsupported", reason)
            return [with_comment(st, "MS955", reason)]
        # `loader.sampler.set_epoch(e)`: the loader is a MindSpore dataset, which has no sampler
        # attribute and reshuffles every epoch itself
        if name == "set_epoch" and (recv in tp.bindings.samplers or recv in tp.bindings.kept_samplers
                                    or (recv or "").endswith(".sampler")) \
                and self.allows(SAMPLER_STATEMENTS.id):
            tp.record(st, "", SAMPLER_STATEMENTS.id, "approximate",
                      "set_epoch removed: a sharded MindSpore dataset reshuffles every epoch itself")
            return removed(st)
        return None


class _DdpModuleRewriter(cst.CSTTransformer):
    def __init__(self, ddp: set[str]):
        self.ddp = ddp

    def leave_Attribute(self, original, updated):
        if updated.attr.value == "module" and dotted(updated.value) in self.ddp:
            return updated.value
        return updated


# name -> positional arguments
_SCALER_METHODS = {"get_scale": 0, "is_enabled": 0, "state_dict": 0, "load_state_dict": 1}


def _scaler_method(call: cst.Call, scalers) -> str | None:
    """The name of a GradScaler method of a bound scaler that ``call`` makes, or None."""
    f = call.func
    if not isinstance(f, cst.Attribute) or dotted(f.value) not in scalers:
        return None
    name = f.attr.value
    if name not in _SCALER_METHODS or len(call.args) != _SCALER_METHODS[name] \
            or any(a.keyword is not None or a.star for a in call.args):
        return None
    return name


class _GetScaleRewriter(cst.CSTTransformer):
    def __init__(self, scalers, runtime):
        self.scalers = scalers
        self.runtime = runtime   # the converter's runtime names (TorchSignatures)
        self.seen: set[str] = set()

    def leave_Call(self, original, updated):
        name = _scaler_method(updated, self.scalers)
        if name is None:
            return updated
        self.seen.add(name)
        scaler = code_of(updated.func.value)
        if name == "get_scale":
            return parse_expr(f"float({scaler}.scale_value)")
        helper = self.runtime.helper(f"torch_scaler_{name}")
        return cst.Call(cst.Name(helper), [cst.Arg(updated.func.value), *updated.args])


class _LenRewriter(cst.CSTTransformer):
    def __init__(self, cleanup: Cleanup):
        self.cleanup = cleanup

    def leave_Call(self, original, updated):
        if isinstance(updated.func, cst.Name) and updated.func.value == "len" and len(updated.args) == 1:
            text = self.cleanup.len_target(updated.args[0].value)
            if text is not None:
                return parse_expr(text)
        return updated


def dataset_class(tp, node: cst.ClassDef) -> cst.ClassDef:
    """``class D(torch.utils.data.Dataset)`` -> ``class D:`` (a random-access source)."""
    bases = [b for b in node.bases if tp.qual(b.value) not in DATASET_BASES]
    if len(bases) == len(node.bases) or not tp.converter.allows(DATASET_BASE.id):
        return node
    tp.record(node, "", DATASET_BASE.id, "exact",
              "Dataset base dropped: a class with __getitem__/__len__ is a GeneratorDataset source",
              before=node.bases[0].value)
    if bases:
        bases[-1] = bases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return tp.tree.rebuilt(node, node.with_changes(bases=bases))
    return tp.tree.rebuilt(node, node.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT,
                                                   rpar=cst.MaybeSentinel.DEFAULT))
