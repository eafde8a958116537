"""Argument rules for data loading and data parallelism: the ``rule`` names that
mappings/training.toml gives its DataLoader, TensorDataset, random_split, DistributedSampler,
GradScaler, is_initialized and DDP entries.

They read what the training pass learnt about the file from ``converter.facts.training`` (a
:class:`~migrate.convert.training.bindings.FileBindings`: names bound to TensorDatasets,
samplers, Dataset classes), when it ran. Every rule has one signature, ``apply(edit) -> None``.
"""
from __future__ import annotations

import ast

import libcst as cst

from migrate.convert.call_edit import make_arg, primary
from migrate.convert.cst import bind_args, code_of, dotted, parse_expr
from migrate.convert.registry import argument_rule
from migrate.convert.rules.vision_uses import is_dataset_helper_call, torchvision_uses


def _safe_rule(rule_id: str, name: str, **record):
    """Register a table rule that never breaks a conversion: an unexpected failure marks the call
    (``record``: the rest of the rule, ``needs`` and ``examples``, as for ``argument_rule``)."""
    def deco(fn):
        def run(edit):
            try:
                fn(edit)
            except Exception as exc:  # noqa: BLE001 (a converter bug must not lose the file)
                edit.result = None
                edit.unsupported(f"could not translate ({type(exc).__name__}: {exc})"[:160])
        run.__doc__ = fn.__doc__
        run.__name__ = fn.__name__
        return argument_rule(rule_id, name, **record)(run)
    return deco


def column_names(n: int) -> str:
    """``column_names=`` of a dataset of ``n`` columns (data, label for two)."""
    names = ["data", "label"] if n == 2 else [f"column_{i}" for i in range(n)]
    return "[" + ", ".join(f'"{c}"' for c in names) + "]"


# DistributedSampler's parameters, in order
SAMPLER_ARGS = ["dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last"]


def _is_false(node) -> bool:
    return node is None or code_of(node) in ("False", "None")


@_safe_rule("MS224", "tensor_dataset", examples=[
    ("import torch.distributed as dist\n"
     "from torch.utils.data import DataLoader, DistributedSampler, TensorDataset\n"
     "data = TensorDataset(torch.zeros(8, 2), torch.ones(8))\n"
     "sampler = DistributedSampler(data, num_replicas=dist.get_world_size(), "
     "rank=dist.get_rank(), shuffle=False)\n"
     "loader = DataLoader(data, batch_size=4, sampler=sampler)\n"
     "if dist.is_initialized():\n"
     "    dist.barrier()\n"
     "dist.destroy_process_group()\n",
     "data = ms.dataset.NumpySlicesDataset((ops.zeros((8, 2)).asnumpy(), "
     'ops.ones((8,)).asnumpy()), column_names=["data", "label"], '
     "num_shards=ms.communication.get_group_size(), "
     "shard_id=ms.communication.get_rank(), shuffle=False)\n"
     "loader = data.batch(4)\n"
     "ms.mint.distributed.barrier()\n"
     "ms.communication.release()\n"),
])
def tensor_dataset(edit) -> None:
    """Replace TensorDataset(a, b) with ms.dataset.NumpySlicesDataset((a, b), column_names, shuffle=False);
    TensorDataset(*tensors) with NumpySlicesDataset(tuple(t.asnumpy() for t in tensors), shuffle=False)."""
    values = [a.value for a in edit.call.args]
    if len(edit.call.args) == 1 and edit.call.args[0].star == "*":
        # the number of tensors is known at run time: MindSpore names the columns column_0, ...
        edit.converter.output.used.add("ms")
        edit.result = parse_expr(f"ms.dataset.NumpySlicesDataset(tuple(t.asnumpy() for t in {code_of(values[0])}), "
                                 f"shuffle=False)")
        return
    if any(a.star or a.keyword is not None for a in edit.call.args) or not values:
        edit.unsupported("TensorDataset needs the tensors as positional arguments")
        return
    edit.converter.output.used.add("ms")
    edit.result = parse_expr(f"ms.dataset.NumpySlicesDataset({slices_data(values)}, "
                             f"column_names={column_names(len(values))}, shuffle=False)")


def slices_data(values: list) -> str:
    """NumpySlicesDataset's ``data`` for TensorDataset's tensors: a tuple of NumPy arrays
    (MindSpore takes lists and arrays there, not Tensors)."""
    return "(" + ", ".join(f"{primary(v)}.asnumpy()" for v in values) + ("," if len(values) == 1 else "") + ")"


@_safe_rule("MS227", "distributed_sampler", examples=[
    ("s = torch.utils.data.DistributedSampler(ds)  # one shard per rank\n"
     "s = 3\n"
     "print(s)\n",
     "s = ms.dataset.DistributedSampler(num_shards=ms.communication.get_group_size(), "
     "shard_id=ms.communication.get_rank(), shuffle=True)  # one shard per rank\n"
     "s = 3\n"
     "print(s)\n"),
])
def distributed_sampler(edit) -> None:
    """Replace DistributedSampler(ds, ...) with ms.dataset.DistributedSampler(num_shards, shard_id, shuffle)."""
    edit.converter.output.used.add("ms")
    edit.result = parse_expr(shard_args(edit.bound, "ms.dataset.DistributedSampler({})"))


def shard_args(bound: dict, template: str) -> str:
    """``template`` filled with num_shards/shard_id/shuffle from a DistributedSampler's bound arguments."""
    def plain(key, default):
        v = bound.get(key)
        # dist.get_world_size() / dist.get_rank() as arguments mean the defaults anyway
        return code_of(v) if v is not None and isinstance(v, (cst.Name, cst.Integer)) else default
    shuffle = bound.get("shuffle")
    return template.format(
        f"num_shards={plain('num_replicas', 'ms.communication.get_group_size()')}, "
        f"shard_id={plain('rank', 'ms.communication.get_rank()')}, "
        f"shuffle={code_of(shuffle) if shuffle is not None else 'True'}")


@_safe_rule("MS223", "dataloader", examples=[
    ("sampler = torch.utils.data.DistributedSampler(ds, shuffle=False)\n"
     "loader = torch.utils.data.DataLoader(ds, batch_size=4, sampler=sampler)\n"
     "print(len(sampler))\n",
     "sampler = ms.dataset.DistributedSampler(num_shards=ms.communication.get_group_size(),"
     " shard_id=ms.communication.get_rank(), shuffle=False)\n"
     'loader = ms.dataset.GeneratorDataset(ds, column_names=["data", "label"], '
     "shuffle=False if sampler is None else None, sampler=sampler).batch(4)\n"
     "print(len(sampler))\n"),
])
def dataloader(edit) -> None:
    """Replace DataLoader(ds, batch_size, shuffle, drop_last) with ms.dataset.GeneratorDataset(ds, ...).batch(...)."""
    b = edit.bound
    ds = b.get("dataset")
    if ds is None:
        edit.unsupported("DataLoader without a dataset")
        return
    edit.converter.output.used.add("ms")
    bs = b.get("batch_size")
    if bs is not None and code_of(bs) == "None":
        edit.unsupported("batch_size=None (no batching): iterate the dataset itself")
        return
    if _torchvision_at_run_time(edit, ds):
        return
    collate = b.get("collate_fn")
    if collate is not None and code_of(collate) != "None":
        # torch's contract: each batch is collate_fn(list of samples), which a MindSpore batch
        # map does not keep (it gets columns); the generated loader keeps it
        edit.needs_runtime("a collate_fn: each batch is collate_fn([dataset[i] for i in indices]), as torch's")
        return
    if _ncols(ds, edit.converter.facts.training) == 0:
        # a sample that is no literal tuple (a tensor, a dict): torch's batch is the collated sample
        # itself, a MindSpore dataset yields a list of columns; the sample decides when it runs
        edit.needs_runtime("samples that are not tuples: torch's batches are the collated samples themselves")
        return
    shuffle = b.get("shuffle")
    kept = _kept_sampler(edit, b.get("sampler"))
    shard = None if kept else _sampler_shards(edit, b.get("sampler"), shuffle)
    if edit.problems:
        return
    if shuffle is not None and not _is_false(shuffle):
        edit.worse("approximate", "shuffle: same distribution, different order than torch's RandomSampler")
    # a primary: the code may put it inside a conditional expression (`ds if shuffle else ...`)
    shuffle_code = primary(shuffle) if shuffle is not None and code_of(shuffle) != "None" else "False"
    if shard is not None:
        edit.note("DistributedSampler -> num_shards/shard_id")
    base = _loader_source(edit, ds, shard, shuffle_code, kept)
    if edit.problems:
        return
    batch = code_of(bs) if bs is not None else "1"
    drop = b.get("drop_last")
    drop_code = "" if _is_false(drop) else f", drop_remainder={code_of(drop)}"
    edit.result = parse_expr(f"{base}.batch({batch}{drop_code})")


def _torchvision_at_run_time(edit, ds) -> bool:
    """A translated torchvision dataset called in place, or a name that holds one on some paths
    and another dataset on others: the generated DataLoaderTorch decides when it runs (it
    batches a MindSpore pipeline as it is and wraps a Python dataset)."""
    uses = torchvision_uses(edit.converter)
    if is_dataset_helper_call(edit.converter, ds) or dotted(ds) in uses.mixed:
        edit.needs_runtime("a torchvision dataset: a MindSpore pipeline once converted")
        return True
    return False


_MS_SAMPLERS = ("ms.dataset.RandomSampler", "ms.dataset.SequentialSampler")


def _kept_sampler(edit, sampler) -> str | None:
    """The name of a sampler whose statements stay (bound to a DistributedSampler in one branch
    and to None in another, say), or the code of a converted RandomSampler/SequentialSampler
    call, or None: the DataLoader then passes it on as ``sampler=``."""
    if isinstance(sampler, cst.Call) and code_of(sampler.func) in _MS_SAMPLERS:
        edit.note(f"sampler={code_of(sampler.func)} passed on")
        return code_of(sampler)  # RandomSampler / SequentialSampler, converted
    facts = edit.converter.facts.training
    name = dotted(sampler) if sampler is not None else None
    if facts is None or name not in facts.kept_samplers:
        return None
    edit.note(f"sampler={name} passed on (a DistributedSampler or None at run time)")
    return name


def _sampler_shards(edit, sampler, shuffle) -> str | None:
    """num_shards/shard_id/shuffle arguments for a DataLoader's DistributedSampler (None without
    a sampler); marks the call for any other sampler."""
    if sampler is None or code_of(sampler) == "None":
        return None
    facts = edit.converter.facts.training
    name = dotted(sampler)
    if facts is not None and name in facts.samplers:
        shard = shard_args(bind_args(facts.samplers[name], SAMPLER_ARGS) or {}, "{}")
    elif isinstance(sampler, cst.Call) and code_of(sampler.func) == "ms.dataset.DistributedSampler":
        shard = ", ".join(code_of(a.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for a in sampler.args)
    else:
        edit.unsupported(f"sampler={code_of(sampler)}: only DistributedSampler maps "
                         "(to num_shards/shard_id); write a custom sampler by hand")
        return None
    if shuffle is not None and not _is_false(shuffle):
        edit.unsupported("shuffle together with a sampler")
    return shard


def _loader_source(edit, ds, shard: str | None, shuffle_code: str, kept: str | None = None) -> str:
    """The MindSpore dataset a DataLoader batches: the converted TensorDataset, a dataset bound
    to a name, or a GeneratorDataset over a Python source."""
    facts = edit.converter.facts.training
    sources = "shuffle=" + shuffle_code if shard is None else shard
    if kept is not None and not kept.isidentifier():
        if shuffle_code != "False":
            edit.unsupported("shuffle together with a sampler")
        sources = f"sampler={kept}"
    elif kept is not None:
        # MindSpore takes either a sampler or shuffle: shuffle only when the sampler is None
        if not isinstance(parse_expr(shuffle_code), (cst.Name, cst.Attribute, cst.Call)) \
                and not parse_expr(shuffle_code).lpar:
            shuffle_code = f"({shuffle_code})"
        sources = f"shuffle={shuffle_code} if {kept} is None else None, sampler={kept}"
    name = dotted(ds)
    if isinstance(ds, cst.Call) and code_of(ds.func) == "ms.dataset.NumpySlicesDataset":
        args = [code_of(a.with_changes(comma=cst.MaybeSentinel.DEFAULT)) for a in ds.args
                if a.keyword is None or a.keyword.value != "shuffle"]
        return f"{code_of(ds.func)}({', '.join([*args, sources])})"
    if facts is not None and name in facts.datasets or name in torchvision_uses(edit.converter).pipelines:
        if kept is not None:
            edit.unsupported(f"sampler={kept} over a dataset bound to a name: pass "
                             "sampler= to its NumpySlicesDataset by hand")
            return ""
        if shard is not None:
            if facts is None or name not in facts.sharded:
                edit.unsupported("a DistributedSampler over a dataset bound to a name: pass "
                                 "num_shards/shard_id to the MindSpore dataset by hand")
                return ""
            shuffle_code = "False"  # the sharded dataset shuffles (or not) itself
        return name if shuffle_code == "False" else (
            f"{name}.shuffle({name}.get_dataset_size())" if shuffle_code == "True" else
            f"({name}.shuffle({name}.get_dataset_size()) if {shuffle_code} else {name})")
    n = _ncols(ds, facts)
    if n is None:
        n = 2
        edit.worse("approximate", f"{code_of(ds)} assumed to yield (data, label) pairs: "
                                  "adjust column_names if it yields another number of items")
    return f"ms.dataset.GeneratorDataset({code_of(ds)}, column_names={column_names(n)}, {sources})"


@_safe_rule("MS228", "random_split", examples=[
    ("from torch.utils.data import TensorDataset, random_split\n"
     "full = TensorDataset(x, y)\n"
     "train_ds, val_ds = random_split(full, [80, 20])\n",
     "full = ms.dataset.NumpySlicesDataset((x.asnumpy(), y.asnumpy()), "
     'column_names=["data", "label"], shuffle=False)\n'
     "train_ds, val_ds = full.split([80, 20], randomize=True)\n"),
])
def random_split(edit) -> None:
    """Replace random_split(ds, lengths) with <dataset of ds>.split(lengths, randomize=True)."""
    converter = edit.converter
    facts = converter.facts.training
    ds = edit.bound.get("dataset")
    lengths = edit.bound.get("lengths")
    if ds is None or lengths is None:
        edit.unsupported("random_split needs a dataset and lengths")
        return
    if isinstance(lengths, (cst.List, cst.Tuple)) and any(
            isinstance(e.value, cst.Float) for e in lengths.elements):
        edit.unsupported("fractional lengths: MindSpore's split rounds each part (round(f * n)), torch "
                         "floors them and hands the remainder out one by one; give integer lengths")
        return
    converter.output.used.add("ms")
    if _is_ms_dataset(ds, facts, converter):
        base = code_of(ds)
    else:
        names = column_names(_ncols(ds, facts) or 2)
        base = f"ms.dataset.GeneratorDataset({code_of(ds)}, column_names={names}, shuffle=False)"
    lens = code_of(lengths)
    if not isinstance(lengths, cst.List):
        lens = f"{edit.converter.builtin('list')}({lens})"
    edit.result = parse_expr(f"{base}.split({lens}, randomize=True)")


def _is_ms_dataset(ds, facts, converter) -> bool:
    """A MindSpore dataset already (a converted TensorDataset, a split, a translated torchvision
    dataset), not a Python source."""
    if isinstance(ds, cst.Call) and code_of(ds.func) in ("ms.dataset.NumpySlicesDataset",
                                                         "ms.dataset.GeneratorDataset"):
        return True
    if is_dataset_helper_call(converter, ds) or dotted(ds) in torchvision_uses(converter).pipelines:
        return True
    return facts is not None and dotted(ds) in facts.datasets


def _ncols(ds, facts):
    if facts is None:
        return None
    name = dotted(ds)
    if name in facts.ds_instances:
        return facts.ds_instances[name]
    if isinstance(ds, cst.Call) and isinstance(ds.func, cst.Name):
        return facts.ds_columns.get(ds.func.value)
    return None


@_safe_rule("MS225", "dist_initialized", examples=[
    ("import torch.distributed as dist\n"
     "ok = dist.is_initialized()\n",
     "ok = True\n"),
])
def dist_initialized(edit) -> None:
    """Replace dist.is_initialized() with True (the communication group exists once init() ran)."""
    edit.result = parse_expr("True")


# DistributedDataParallel's parameters, in order
DDP_ARGS = ["module", "device_ids", "output_device", "dim", "broadcast_buffers", "init_sync", "process_group",
            "bucket_cap_mb", "find_unused_parameters", "check_reduction", "gradient_as_bucket_view",
            "static_graph", "delay_all_reduce_named_params", "param_to_hook_all_reduce", "mixed_precision",
            "device_mesh", "skip_all_reduce_unused_params"]
# arguments that change what the wrapped network computes unless they have these values
_DDP_REFUSED = {"init_sync": "True", "process_group": "None", "delay_all_reduce_named_params": "None",
                "param_to_hook_all_reduce": "None", "mixed_precision": "None", "device_mesh": "None"}


@_safe_rule("MS226", "ddp", needs=["torch_distributed_data_parallel"], examples=[
    ("from torch.nn.parallel import DistributedDataParallel as DDP\n"
     "model = DDP(net, device_ids=[rank])\n"
     "plain = DDP(other, broadcast_buffers=False)\n"
     "w = model.module.fc.weight\n"
     'torch.save(model.module.state_dict(), "ckpt.pt")\n'
     "other.module.x = 1\n",
     "model = torch_distributed_data_parallel(net)\n"
     "plain = torch_distributed_data_parallel(other, broadcast_buffers=False)\n"
     "w = model.fc.weight\n"
     'ms.save_checkpoint(model, "ckpt.pt")\n'
     "other.module.x = 1\n"),
])
def ddp(edit) -> None:
    """Replace DistributedDataParallel(model, ...) with torch_distributed_data_parallel(model,
    broadcast_buffers): rank 0's parameters and buffers copied to every rank, rank 0's buffers
    before every forward, as DDP does (the converted step's DistributedGradReducer averages the
    gradients)."""
    args = bind_args(edit.call, DDP_ARGS)
    if args is None or "module" not in args:
        edit.unsupported("DistributedDataParallel without its module, or with arguments that cannot be read")
        return
    refused = [f"{k}={code_of(v)}" for k, v in args.items() if k in _DDP_REFUSED and code_of(v) != _DDP_REFUSED[k]]
    if refused:
        edit.unsupported(f"DistributedDataParallel({', '.join(refused)}): not translated; the gradient "
                         "reducer averages over the whole group")
        return
    call = code_of(args["module"])
    if "broadcast_buffers" in args and code_of(args["broadcast_buffers"]) != "True":
        call += f", broadcast_buffers={code_of(args['broadcast_buffers'])}"
    dropped = sorted(set(args) - {"module", "broadcast_buffers"} - set(_DDP_REFUSED))
    if dropped:
        edit.note(f"{', '.join(dropped)} dropped: one device per process, and the reducer's buckets "
                  "are its own")
    edit.result = parse_expr(f"{edit.helper('torch_distributed_data_parallel')}({call})")


@_safe_rule("MS244", "convert_sync_batchnorm", needs=["torch_convert_sync_batchnorm"], examples=[
    ("model = nn.SyncBatchNorm.convert_sync_batchnorm(net)\n",
     "model = torch_convert_sync_batchnorm(net)\n"),
])
def convert_sync_batchnorm(edit) -> None:
    """Replace nn.SyncBatchNorm.convert_sync_batchnorm(model) with torch_convert_sync_batchnorm(model):
    every BatchNorm child becomes torch's SyncBatchNorm over ops.AllReduce (statistics of the whole
    batch across the group; MindSpore 2.10's nn.SyncBatchNorm runs on Ascend only)."""
    module = edit.bound.get("module")
    group = edit.bound.get("process_group")
    if module is None or group is not None and code_of(group) != "None":
        edit.unsupported("convert_sync_batchnorm over a torch process group: the world group only")
        return
    edit.result = cst.Call(cst.Name(edit.helper("torch_convert_sync_batchnorm")), [cst.Arg(module)])


def _literal_number(node, default: float) -> float | None:
    """The value of a number literal argument (``default`` when absent), None when not a literal."""
    if node is None:
        return default
    try:
        value = ast.literal_eval(code_of(node))
    except (ValueError, SyntaxError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@_safe_rule("MS222", "grad_scaler_ctor", needs=["torch_grad_scaler"], examples=[
    ("scaler = torch.cuda.amp.GradScaler()\n"
     'print(f"scale {scaler.get_scale()}")\n'
     "other.get_scale()\n",
     "scaler = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000))\n"
     'print(f"scale {float(scaler.scale_value)}")\n'
     "other.get_scale()\n"),
    ("scaler = torch.amp.GradScaler('cpu')\n",
     "scaler = ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000)\n"),
])
def grad_scaler(edit) -> None:
    """Replace GradScaler(device, enabled=flag) with DynamicLossScaler(...) where torch scales, and
    StaticLossScaler(1.0) where it does not. torch disables a 'cuda' scaler (torch.cuda.amp's, and
    torch.amp's default) on a machine without CUDA; its analogue, a CPU backend, is known at run
    time only: such a scaler goes through the runtime's ``torch_grad_scaler``."""
    growth = _literal_number(edit.bound.get("growth_factor"), 2.0)
    backoff = _literal_number(edit.bound.get("backoff_factor"), 0.5)
    if growth is None or backoff is None or abs(growth * backoff - 1.0) > 1e-12:
        # DynamicLossScaler has one factor: another backoff would skip other steps than torch's
        edit.unsupported("backoff_factor must be 1 / growth_factor (MindSpore's DynamicLossScaler "
                         "divides by its scale_factor on overflow)")
        return
    if growth != int(growth):
        edit.unsupported("a growth_factor that is not a whole number: MindSpore's DynamicLossScaler "
                         "takes an int scale_factor")
        return
    edit.set("scale_factor", str(int(growth)))  # MindSpore 2.10 refuses a float scale_factor
    enabled = edit.bound.get("enabled")
    if enabled is not None and code_of(enabled) == "False":
        edit.converter.output.used.add("ms")
        edit.note("disabled: StaticLossScaler(1.0) scales by 1, but an update with non-finite "
                  "gradients is still skipped (torch would apply it)")
        edit.result = parse_expr("ms.amp.StaticLossScaler(1.0)")
        return
    device = _scaler_device(edit)
    if device is None and (enabled is None or code_of(enabled) == "True"):
        return   # torch scales on every machine ('cpu', 'xpu', ...): plain MindSpore
    edit.converter.output.used.add("ms")
    if device is None:   # the user's flag alone decides
        edit.note("disabled when the flag is false: StaticLossScaler(1.0) scales by 1, but an update "
                  "with non-finite gradients is still skipped (torch would apply it)")
        edit.result = cst.IfExp(test=enabled, body=edit.build(), orelse=parse_expr("ms.amp.StaticLossScaler(1.0)"))
        return
    args = [cst.Arg(edit.build())]
    if code_of(device) != repr("cuda"):
        args.append(make_arg(device, "device"))
    if enabled is not None and code_of(enabled) != "True":
        args.append(make_arg(enabled, "enabled"))
    edit.note("torch disables a 'cuda' GradScaler without CUDA: torch_grad_scaler scales on "
              "Ascend/GPU only (StaticLossScaler(1.0) on a CPU backend, with torch's warning)")
    edit.result = cst.Call(cst.Name(edit.helper("torch_grad_scaler")), args)


def _scaler_device(edit) -> cst.BaseExpression | None:
    """The device a GradScaler call names, when torch may disable it without CUDA: the 'cuda'
    literal (torch.cuda.amp.GradScaler, torch.amp.GradScaler's default) or a value known at run
    time; None for a scaler torch enables on every machine ('cpu', torch.cpu.amp's, 'xpu')."""
    if edit.entry.torch.startswith("torch.cuda."):
        return cst.SimpleString(repr("cuda"))
    if edit.entry.torch.startswith("torch.cpu."):
        return None
    device = edit.bound.get("device")
    if device is None:
        return cst.SimpleString(repr("cuda"))
    try:
        value = ast.literal_eval(code_of(device))
    except (ValueError, SyntaxError):
        return device
    return cst.SimpleString(repr("cuda")) if value == "cuda" else None


@_safe_rule("MS243", "release_group", examples=[
    ("import torch.distributed as dist\n"
     "dist.destroy_process_group()\n",
     "ms.communication.release()\n"),
])
def release_group(edit) -> None:
    """Replace dist.destroy_process_group() with ms.communication.release() (with --target
    mindspore: nothing, msrun releases the group when its workers end)."""
    if edit.converter.facts.target_name != "mindspore":
        edit.converter.output.used.add("ms")
        edit.result = parse_expr("ms.communication.release()")
        return
    # MindSpore 2.10 on the CPU: a worker that calls release() after training crashes at exit
    # (msrun reports it timed out), tests/oracle/test_oracle_distributed.py
    edit.worse("approximate", "removed: msrun releases the group when the workers end (MindSpore "
                              "2.10's CPU workers crash at exit after release())")
    edit.result = cst.Name("None")


@_safe_rule("MS264", "data_parallel_call", examples=[
    ("def f(main, x, a, b, kw):\n"
     "    return nn.parallel.data_parallel(main, x, range(2)), "
     "nn.parallel.data_parallel(main, (a, b), None, module_kwargs=kw)\n",
     "def f(main, x, a, b, kw):\n"
     "    return main(x), main(a, b, **kw)\n"),
])
def data_parallel_call(edit) -> None:
    """Replace nn.parallel.data_parallel(module, inputs, device_ids) with module(inputs) (one device)."""
    module, inputs = edit.bound.get("module"), edit.bound.get("inputs")
    kwargs = edit.bound.get("module_kwargs")
    # torch passes a tuple of inputs as separate arguments
    args = [cst.Arg(e.value) for e in inputs.elements] if isinstance(inputs, cst.Tuple) \
        else [cst.Arg(inputs)]
    if kwargs is not None and code_of(kwargs) != "None":
        args.append(cst.Arg(kwargs, star="**"))
    if not isinstance(inputs, cst.Tuple):
        edit.note("inputs passed as one argument (a tuple held in a variable would be one "
                  "argument here, several in torch)")
    edit.result = cst.Call(func=module, args=args)


@_safe_rule("MS160", "data_parallel_module", examples=[
    ("model = nn.DataParallel(net, device_ids=[0, 1])\n"
     "w = model.module.fc.weight\n",
     "model = net\n"
     "w = model.fc.weight\n"),
])
def data_parallel_module(edit) -> None:
    """Replace nn.DataParallel(model) with model (one process trains the network itself; the
    training pass turns wrapped.module into wrapped)."""
    edit.result = edit.bound["module"]
