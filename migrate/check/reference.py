"""Reference runs of the torch model beside the float32 run being checked: the same model in
float64 (how far float32 rounding alone moves each number), and torch's backward evaluated on the
converted model's forward values (whether a gradient difference comes from the forward's rounding
or from a layer's backward). Both replay the float32 run's dropout masks and random draws.
"""
from __future__ import annotations

import copy
from contextlib import ExitStack, contextmanager

import numpy as np

from .randomness import TorchDrawReplay, explicit_attention_dropout
from .rnn import layered
from .run import is_torch, numpy_to_torch, run_torch, torch_dropout_keep


# --- copies in another dtype ----------------------------------------------------------------------

def float_copy(module, dtype):
    """A deep copy of a torch module with every floating-point parameter, buffer and plain tensor
    attribute in `dtype` (parameters shared between layers stay shared).

    ``copy.deepcopy`` refuses tensors that are not graph leaves (a module that keeps the result
    of a computation, e.g. a cached mask built from a parameter): those are copied detached.
    """
    memo = _converted_tensors(module, dtype)
    for value in _tensor_attributes(module):
        if value.grad_fn is not None:
            memo[id(value)] = value.detach().clone()
    twin = copy.deepcopy(module, memo)
    twin.to(dtype)
    for mod in twin.modules():
        for name, value in list(vars(mod).items()):
            if is_torch(value) and value.is_floating_point() and value.dtype != dtype:
                object.__setattr__(mod, name, value.detach().to(dtype))
    return twin


def _converted_tensors(module, dtype) -> dict:
    """A deepcopy memo giving every parameter and buffer directly in `dtype` (one conversion
    instead of a copy and then a conversion; shared tensors stay shared through the memo)."""
    import torch
    memo = {}
    for p in module.parameters():
        if id(p) not in memo:
            # copy=True: a copy in the same dtype must not share storage with the original
            data = p.detach().to(dtype, copy=True) if p.is_floating_point() else \
                p.detach().clone()
            memo[id(p)] = torch.nn.Parameter(data, requires_grad=p.requires_grad)
    for b in module.buffers():
        if id(b) not in memo:
            memo[id(b)] = b.detach().to(dtype, copy=True) if b.is_floating_point() else \
                b.detach().clone()
    return memo


def _tensor_attributes(module):
    """Tensors held by a module tree outside its parameters and buffers (in attributes, lists,
    tuples and dicts), each once."""
    seen, out = set(), []

    def visit(value, depth):
        if is_torch(value):
            if id(value) not in seen:
                seen.add(id(value))
                out.append(value)
        elif depth < 4 and isinstance(value, (list, tuple, set)):
            for v in value:
                visit(v, depth + 1)
        elif depth < 4 and isinstance(value, dict):
            for v in value.values():
                visit(v, depth + 1)
    for mod in module.modules():
        for name, value in vars(mod).items():
            if name not in ("_parameters", "_buffers", "_modules"):
                visit(value, 0)
    return out


@contextmanager
def cast_in_place(module, dtype):
    """The module itself, until exit, with every floating-point parameter, buffer and tensor
    attribute in `dtype`; on exit it is exactly as before (the original tensors come back, not
    values converted back). No deep copy: the model's structure is shared, only its tensors are
    swapped, so a float64 run costs the conversion of its weights and nothing more.

    Parameters keep their identity (tied weights stay tied; `.data` is swapped), buffers and
    tensor attributes are replaced by converted copies (an integer buffer by a clone: a forward
    may count in it), and whatever the forward assigns to a module or its gradients is undone.
    """
    mods = list(module.modules())
    saved = [(m, dict(vars(m)), dict(m._parameters), dict(m._buffers), dict(m._modules))
             for m in mods]
    params = {id(p): p for p in module.parameters()}
    datas = {i: (p.data, p.grad) for i, p in params.items()}
    try:
        for p in params.values():
            p.data = _converted(p.data, dtype)
            p.grad = None
        converted: dict = {}
        for m in mods:
            for name, b in m._buffers.items():
                if b is not None:
                    if id(b) not in converted:
                        converted[id(b)] = _converted(b, dtype)
                    m._buffers[name] = converted[id(b)]
            for name, value in list(vars(m).items()):
                if is_torch(value) and value.is_floating_point():
                    object.__setattr__(m, name, value.detach().to(dtype))
        yield module
    finally:
        for i, p in params.items():
            p.grad = None  # before .data: a float64 gradient must not meet float32 data
            p.data, p.grad = datas[i]
        for m, attrs, ps, bs, ms in saved:
            for d, old in ((m._parameters, ps), (m._buffers, bs), (m._modules, ms)):
                d.clear()
                d.update(old)
            vars(m).clear()
            vars(m).update(attrs)


def _converted(t, dtype):
    """A copy of a tensor (detached), in `dtype` when it is floating-point."""
    t = t.detach()
    return t.to(dtype, copy=True) if t.is_floating_point() else t.clone()


def _cast_inputs(inputs, dtype):
    return [numpy_to_torch(x, dtype) for x in inputs]


# --- whole-model reference runs -------------------------------------------------------------------

def run_reference(torch_module, inputs, t_rec, mode, t_loss=None, dtype=None, capture=True,
                  ms_calls=None):
    """The torch model again, in `dtype` (default float64), replaying the float32 run's dropout
    masks (module and functional); with `ms_calls` ({(path, k): Call} of the converted model's
    run), every layer's output is replaced by the converted model's value while torch's graph is
    kept, so the backward is torch's, taken where the converted model's forward went.

    Args:
        torch_module: the reference model (cast in place for the run: it comes back unchanged).
        inputs: the check's inputs.
        t_rec: the float32 run's TorchRecorder (its dropout masks).
        mode: 'eval' or 'train'.
        t_loss: the loss (gradients are taken when given).
        dtype: the torch dtype of the run (float64 by default).
        capture: record every layer's output (True), none (False), or only the layers at
            these paths (a set).
        ms_calls: the converted model's recorded calls, to substitute.

    Returns:
        The :class:`~migrate.check.run.Run`: outputs, loss, gradients and recorded calls.
    """
    import torch
    dtype = dtype or torch.float64
    depth = {"depth": 0, "next": 0}  # dropout modules being run; next functional mask
    with ExitStack() as stack:
        model = stack.enter_context(cast_in_place(torch_module, dtype))
        model.train(mode == "train")
        if mode == "train":
            stack.enter_context(module_masks(model, t_rec.dropout_masks, depth))
        if mode == "train" or t_rec.functional_masks:  # F.dropout drops in eval mode too
            stack.enter_context(functional_masks(t_rec.functional_masks, depth))
        stack.enter_context(TorchDrawReplay(t_rec.random.draws))
        if ms_calls is not None:
            stack.enter_context(_substituted(model, ms_calls))
        return run_torch(model, _cast_inputs(inputs, dtype), t_loss, t_loss is not None,
                         capture=capture)


@contextmanager
def module_masks(model, masks, depth):
    """Every dropout module of `model` applies the recorded mask {(path, k): mask} for the same
    call (nothing recorded: the module's own)."""
    import torch
    handles = []
    rnn = layered(model, masks, record=False)  # multi-layer RNNs: their masks between layers
    rnn.__enter__()
    for path, mod in model.named_modules():
        is_drop, keep = torch_dropout_keep(mod)
        if not is_drop:
            continue
        counter, saved = [0], {}

        def pre(m, args, saved=saved):
            depth["depth"] += 1
            saved["x"] = args[0].clone()  # before an in-place dropout overwrites it

        def post(m, args, out, path=path, counter=counter, keep=keep, saved=saved):
            depth["depth"] -= 1
            k = counter[0]
            counter[0] += 1
            mask = masks.get((path, k))
            x = saved.pop("x")
            if mask is None or not m.training:
                return out
            return x * torch.from_numpy(mask).to(x.dtype) / keep
        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
    try:
        yield
    finally:
        rnn.__exit__(None, None, None)
        for h in handles:
            h.remove()


@contextmanager
def functional_masks(masks, depth):
    """F.dropout* calls outside dropout modules apply the recorded masks in call order."""
    import torch
    import torch.nn.functional as TF
    saved_fns = {}
    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
        orig = getattr(TF, name, None)
        if orig is None:
            continue
        saved_fns[name] = orig

        def replay(input, *args, _orig=orig, **kwargs):
            p = kwargs.get("p", args[0] if args else 0.5)
            training = kwargs.get("training", args[1] if len(args) > 1 else True)
            if depth["depth"] > 0 or not training or not p or depth["next"] >= len(masks):
                return _orig(input, *args, **kwargs)
            mask = masks[depth["next"]]
            depth["next"] += 1
            keep = torch.from_numpy(np.ascontiguousarray(mask)).to(input.dtype)
            return input * keep / (1 - p)
        setattr(TF, name, replay)
    try:
        yield
    finally:
        for name, fn in saved_fns.items():
            setattr(TF, name, fn)


@contextmanager
def _substituted(model, ms_calls):
    """Forward hooks replacing each layer call's output by the converted model's recorded value
    (torch's graph kept: out + (ms - out).detach())."""
    handles = []
    for path, mod in model.named_modules():
        counter = [0]

        def post(m, args, out, path=path, counter=counter):
            k = counter[0]
            counter[0] += 1
            call = ms_calls.get((path, k))
            return out if call is None else substitute(out, call.output)
        handles.append(mod.register_forward_hook(post))
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def substitute(out, ms_out):
    """`out` with each floating-point tensor's value replaced by the matching leaf of `ms_out`
    (same structure and shapes; anything else is left as it is)."""
    import torch
    if is_torch(out):
        if not out.is_floating_point() or ms_out is None or not hasattr(ms_out, "asnumpy"):
            return out
        value = ms_out.asnumpy()
        if tuple(value.shape) != tuple(out.shape):
            return out
        return out + (torch.from_numpy(np.ascontiguousarray(value)).to(out.dtype) - out).detach()
    if isinstance(out, (tuple, list)) and isinstance(ms_out, (tuple, list)) and \
            len(out) == len(ms_out):
        items = [substitute(o, m) for o, m in zip(out, ms_out)]
        return type(out)(items) if not hasattr(out, "_fields") else type(out)(*items)
    if isinstance(out, dict) and isinstance(ms_out, dict):
        return {k: substitute(v, ms_out.get(k)) for k, v in out.items()}
    return out


# --- one layer in float64 -------------------------------------------------------------------------

def local_float64(torch_module, key, t_rec):
    """The model's layer at `key` = (path, k), cast to float64 for the call, run on the float32
    run's recorded inputs for that call, its sub-layers answering with the float32 run's recorded
    outputs (so it measures the layer's own rounding, as the local comparison does). None when it
    cannot run."""
    import torch
    path, _ = key
    call = t_rec.calls[key]
    modules = dict(torch_module.named_modules())
    mod = modules.get(path)
    if mod is None or torch_dropout_keep(mod)[0]:
        return None
    handles, by_child = [], {}
    for ck in call.children:
        by_child.setdefault(ck[0], []).append(ck)
    for cpath, keys in by_child.items():
        child = modules.get(cpath)
        if child is None or child is mod:
            continue
        counter = [0]

        def post(m, args, out, keys=keys, counter=counter):
            i = counter[0]
            counter[0] += 1
            return _as_dtype(t_rec.calls[keys[i]].output, torch.float64) if i < len(keys) else out
        handles.append(child.register_forward_hook(post))
    depth = {"depth": 0, "next": 0}
    try:
        with cast_in_place(mod, torch.float64), functional_masks(call.fmasks, depth), \
                TorchDrawReplay(call.draws), explicit_attention_dropout(), torch.no_grad():
            args = _as_dtype(call.inputs, torch.float64)
            kwargs = _as_dtype(call.kwargs, torch.float64)
            return mod(*args, **kwargs)
    except Exception:  # the layer cannot run alone in float64: no floor for it
        return None
    finally:
        for h in handles:
            h.remove()


def _as_dtype(x, dtype):
    if is_torch(x):
        return x.to(dtype) if x.is_floating_point() else x
    if isinstance(x, (tuple, list)):
        items = [_as_dtype(i, dtype) for i in x]
        return type(x)(items) if not hasattr(x, "_fields") else type(x)(*items)
    if isinstance(x, dict):
        return {k: _as_dtype(v, dtype) for k, v in x.items()}
    return x
