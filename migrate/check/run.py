"""Running the two models side by side: per-layer capture, local replay, gradients, training steps.

Layers are aligned by module path and call index: torch's ``named_modules()`` and ms_core's
``cells_and_names()`` give the same paths when the converter keeps attribute names, and a layer
called twice in one forward is two rows (``path#1``).

Local error of a layer = the ms layer fed torch's recorded inputs for that call, its sub-layers
replaced by torch's recorded outputs (so a composite layer's local error measures only its own
code, and every layer is run once in total), compared to torch's output. The inputs the ms
composite hands to its sub-layers are compared too: a wrong op between two sub-layers shows in
the composite, not in the sub-layer after it.
"""
from __future__ import annotations

import copy
import functools
import inspect
import os
from dataclasses import dataclass, field

import numpy as np

from .compare import TensorStats, as_array, compare, quick_pass

ROOT = "(model)"


# --- structures ---------------------------------------------------------------------------------

def flatten(x) -> list:
    """The tensor leaves of a (nested) tuple/list/dict output, in order."""
    if isinstance(x, (tuple, list)):
        out = []
        for i in x:
            out += flatten(i)
        return out
    if isinstance(x, dict):
        out = []
        for k in x:
            out += flatten(x[k])
        return out
    if _is_torch(x) or _is_ms(x):
        return [x]
    return []


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _is_ms(x) -> bool:
    return hasattr(x, "asnumpy") and hasattr(x, "_data")


def torch_to_ms(x):
    """Rebuild a torch structure with ms_core Tensors (values copied)."""
    import ms_core
    if _is_torch(x):
        return ms_core.Tensor(np.ascontiguousarray(x.detach().cpu().numpy()))
    if isinstance(x, np.ndarray):
        return ms_core.Tensor(np.ascontiguousarray(x))
    if isinstance(x, tuple):
        return tuple(torch_to_ms(i) for i in x)
    if isinstance(x, list):
        return [torch_to_ms(i) for i in x]
    if isinstance(x, dict):
        return {k: torch_to_ms(v) for k, v in x.items()}
    return x


def _clone_torch(x, memo=None):
    """Detached copies (in-place ops later must not change what was recorded). `memo` maps
    (id, version) of a tensor already copied to its copy: a layer's input is usually the
    previous layer's output, copied once."""
    if _is_torch(x):
        if memo is None:
            return x.detach().clone()
        key = (id(x), x._version)
        hit = memo.get(key)
        if hit is None or hit[0] is not x:
            hit = memo[key] = (x, x.detach().clone())
        return hit[1]
    if isinstance(x, list):
        return [_clone_torch(i, memo) for i in x]
    if isinstance(x, tuple):
        return tuple(_clone_torch(i, memo) for i in x)
    if isinstance(x, dict):
        return {k: _clone_torch(v, memo) for k, v in x.items()}
    return x


def source_of(obj) -> str:
    """`file:line` of a module/cell's forward/construct (the class when that fails)."""
    return _class_source(obj if inspect.isclass(obj) else type(obj))


@functools.lru_cache(maxsize=None)
def _class_source(klass) -> str:
    for meth in ("construct", "forward"):
        fn = klass.__dict__.get(meth)
        if fn is None:
            for base in klass.__mro__:
                if meth in base.__dict__:
                    fn = base.__dict__[meth]
                    # a user subclass of a library container: its own class line says more
                    if base.__module__.startswith(_LIBRARY_PREFIXES) and \
                            not klass.__module__.startswith(_LIBRARY_PREFIXES):
                        fn = None
                    break
        if fn is not None:
            try:
                _, line = inspect.getsourcelines(fn)
                return f"{_short_path(inspect.getsourcefile(fn))}:{line}"
            except (OSError, TypeError):
                continue
    try:
        _, line = inspect.getsourcelines(klass)
        return f"{_short_path(inspect.getsourcefile(klass))}:{line}"
    except (OSError, TypeError):
        return ""


_LIBRARY_PREFIXES = ("torch.", "ms_core.", "mindspore.")


def layer_source(root, path) -> str:
    """Where a layer's behaviour is decided, as `file:line`.

    For a library layer (torch.nn.Conv2d, ms_core.nn.Conv2d...) that is the line constructing it
    in the user's model (`self.conv1 = nn.Conv2d(...)`: the arguments are what a conversion gets
    wrong); for a user-defined layer, its forward/construct.
    """
    obj = _at(root, path)
    if obj is None:
        return ""
    if not type(obj).__module__.startswith(_LIBRARY_PREFIXES):
        return source_of(obj)
    parts = path.split(".") if path else []
    # Walk up: the nearest user-defined ancestor class whose source assigns this attribute.
    for i in range(len(parts) - 1, -1, -1):
        parent = _at(root, ".".join(parts[:i]))
        if parent is None or type(parent).__module__.startswith(_LIBRARY_PREFIXES):
            continue
        site = _assignment_line(type(parent), parts[i])
        if site:
            return site
        return source_of(parent)
    return source_of(obj)


def _at(root, path):
    obj = root
    for part in (path.split(".") if path else []):
        if hasattr(obj, "_cells") and part in getattr(obj, "_cells", {}):
            obj = obj._cells[part]
        elif hasattr(obj, "_modules") and part in obj._modules:
            obj = obj._modules[part]
        else:
            return None
    return obj


@functools.lru_cache(maxsize=None)
def _assignment_line(klass, attr) -> str:
    import re
    try:
        lines, start = inspect.getsourcelines(klass)
        fname = inspect.getsourcefile(klass)
    except (OSError, TypeError):
        return ""
    pat = re.compile(r"self\.%s\s*(:[^=]*)?=[^=]" % re.escape(attr))
    for i, line in enumerate(lines):
        if pat.search(line):
            return f"{_short_path(fname)}:{start + i}"
    return ""


def _short_path(path):
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path


# --- captured runs --------------------------------------------------------------------------------

@dataclass
class Call:
    """One recorded call of one layer."""

    path: str
    k: int
    order: int = -1
    inputs: tuple = ()
    kwargs: dict = field(default_factory=dict)
    output: object = None
    children: list = field(default_factory=list)  # (path, k) called directly inside this call
    mask: object = None  # dropout keep-mask (torch, training)
    fmasks: list = field(default_factory=list)  # functional dropout masks of this call's own code


def _dropout_keep(module):
    """(is a torch dropout layer, keep probability)"""
    import torch
    if isinstance(module, torch.nn.modules.dropout._DropoutNd) and not isinstance(
            module, (torch.nn.AlphaDropout, torch.nn.FeatureAlphaDropout)):
        return True, 1.0 - float(module.p)
    return False, 1.0


class TorchRecorder:
    """Forward pre-hooks and hooks on every torch module: inputs, outputs, nesting, and
    dropout masks."""

    def __init__(self, model, capture=True, clone=True):
        self.model = model
        self.calls: dict = {}
        self.order: list = []
        self.counts: dict = {}
        self.stack: list = []
        self.handles = []
        self.capture = capture
        self.clone = clone
        self.memo: dict = {}
        self.dropout_masks: dict = {}
        self.functional_masks: list = []  # F.dropout* calls outside dropout modules, in order
        self.drop_paths = set()
        for path, mod in model.named_modules():
            is_drop, _ = _dropout_keep(mod)
            if is_drop:
                self.drop_paths.add(path)
            if not capture and not is_drop:
                continue
            self.handles.append(mod.register_forward_pre_hook(self._pre(path), with_kwargs=True))
            self.handles.append(mod.register_forward_hook(self._post(path, is_drop),
                                                          with_kwargs=True))
        self._patch_functional()

    def _patch_functional(self):
        """Record the masks of functional dropout (F.dropout in a forward) in call order."""
        import torch.nn.functional as TF
        self._saved = {}
        for name in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
            orig = getattr(TF, name, None)
            if orig is None:
                continue
            self._saved[name] = orig

            def wrapper(input, *args, _orig=orig, **kwargs):
                inner = self.stack[-1] if self.stack else None
                if inner is not None and inner.path in self.drop_paths:
                    return _orig(input, *args, **kwargs)  # a module: recorded by its own hook
                before = input.detach().clone() if _is_torch(input) else input  # inplace=True
                out = _orig(input, *args, **kwargs)
                input = before
                p = kwargs.get("p", args[0] if args else 0.5)
                training = kwargs.get("training", args[1] if len(args) > 1 else True)
                if training and p and _is_torch(out):
                    mask = ((out.detach() != 0) | (input.detach() == 0)).cpu().numpy()
                    self.functional_masks.append(mask)
                    if inner is not None:
                        inner.fmasks.append(mask)
                return out
            setattr(TF, name, wrapper)

    def _pre(self, path):
        def hook(mod, args, kwargs):
            k = self.counts.get(path, 0)
            self.counts[path] = k + 1
            call = Call(path, k)
            if self.capture:
                call.inputs = _clone_torch(args, self.memo) if self.clone else args
                call.kwargs = _clone_torch(kwargs, self.memo) if self.clone else kwargs
                if self.stack:
                    self.stack[-1].children.append((path, k))
            elif args:
                # cloned: an in-place dropout (inplace=True) overwrites its input
                call.inputs = (args[0].detach().clone(),) if _is_torch(args[0]) else ()
            self.stack.append(call)
            self.calls[(path, k)] = call
        return hook

    def _post(self, path, is_drop):
        def hook(mod, args, kwargs, out):
            call = self.stack.pop()
            call.order = len(self.order)
            self.order.append((path, call.k))
            if self.capture:
                call.output = _clone_torch(out, self.memo) if self.clone else out
            if is_drop and mod.training and call.inputs and _is_torch(out):
                x = call.inputs[0]
                # out = x * mask / keep: where x == 0 the mask is invisible and irrelevant.
                call.mask = ((out.detach() != 0) | (x == 0)).cpu().numpy()
                self.dropout_masks[(path, call.k)] = call.mask
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []
        self.memo = {}
        import torch.nn.functional as TF
        for name, orig in getattr(self, "_saved", {}).items():
            setattr(TF, name, orig)
        self._saved = {}


class _FunctionalMasks:
    """ms_core's global dropout mask provider, replaying torch's functional masks in order."""

    def __init__(self, masks, notes):
        self.masks, self.i, self.notes, self.old = list(masks), 0, notes, None

    def __call__(self, shape, keep_prob):
        i = self.i
        self.i += 1
        mask = self.masks[i] if i < len(self.masks) else None
        return _fit_mask(mask, shape, "functional dropout", i, self.notes)

    def __enter__(self):
        from ms_core.ops import nn_ops
        if hasattr(nn_ops, "set_dropout_mask_provider"):
            self.old = nn_ops.set_dropout_mask_provider(self)
        return self

    def __exit__(self, *exc):
        from ms_core.ops import nn_ops
        if hasattr(nn_ops, "set_dropout_mask_provider"):
            nn_ops.set_dropout_mask_provider(self.old)


def _ms_dropout_keep(cell):
    """The keep probability an ms dropout cell applies (None if the cell is not a dropout)."""
    name = type(cell).__name__
    if "Dropout" not in name:
        return None
    for attr in ("keep_prob",):
        v = getattr(cell, attr, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    p = getattr(cell, "p", None)
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        return 1.0 - float(p)
    return None


class MsRecorder:
    """Forward hooks on every ms cell: outputs by (path, call index); dropout masks replayed.

    Training-mode Dropout uses torch's recorded mask for the same (path, call): ms_core's Dropout
    takes it through its `mask_provider` (so the layer's own code and keep_prob scale run);
    a dropout cell without one has its construct replaced for the run by `x * mask / keep_prob`,
    `keep_prob` read from the cell itself (so a wrong keep_prob shows as a wrong scale).
    Functional dropout (`ops.dropout`) gets torch's functional masks in call order through
    ms_core's global provider.
    """

    def __init__(self, cell, capture=True, masks=None, fmasks=None):
        self.cell = cell
        self.calls: dict = {}
        self.order: list = []
        self.counts: dict = {}
        self.handles = []
        self.overrides = []
        self.masks = masks or {}
        self.mask_notes: list = []
        for path, c in cell.cells_and_names():
            if capture:
                self.handles.append(c.register_forward_hook(self._post(path)))
            if masks is not None and c.training and _ms_dropout_keep(c) is not None:
                self._replay_dropout(path, c)
        self.functional = None
        # F.dropout(x, p) drops even in eval mode (training=True is its default): its masks are
        # replayed in both modes, module Dropout masks only in training mode
        if masks is not None or fmasks:
            self.functional = _FunctionalMasks(fmasks or [], self.mask_notes).__enter__()

    def _post(self, path):
        def hook(c, args, out):
            k = self.counts.get(path, 0)
            self.counts[path] = k + 1
            self.calls[(path, k)] = Call(path, k, order=len(self.order), output=out)
            self.order.append((path, k))
        return hook

    def _replay_dropout(self, path, c):
        import ms_core
        counter = [0]
        masks = self.masks

        def construct(x, *args, **kwargs):
            k = counter[0]
            counter[0] += 1
            if not c.training:
                return x
            mask = masks.get((path, k))
            keep = _ms_dropout_keep(c)
            if mask is None or tuple(mask.shape) != tuple(x.shape):
                self.mask_notes.append(f"{path}#{k}: no torch mask of shape {list(x.shape)}")
                mask = np.ones(x.shape, dtype=bool)
            scale = (1.0 / keep) if keep else 0.0
            return x * ms_core.Tensor((mask * scale).astype(x._data.dtype))

        if hasattr(type(c), "mask_provider"):
            # ms_core's Dropout takes a mask provider: its own code (and keep_prob scale) runs.
            def provider(shape, keep_prob, _k=counter):
                k = _k[0]
                _k[0] += 1
                return _fit_mask(masks.get((path, k)), shape, path, k, self.mask_notes)
            object.__setattr__(c, "mask_provider", provider)
            self.overrides.append((c, "mask_provider"))
        else:
            object.__setattr__(c, "construct", construct)
            self.overrides.append((c, "construct"))

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []
        for c, kind in self.overrides:
            c.__dict__.pop(kind, None)
        self.overrides = []
        if getattr(self, "functional", None) is not None:
            self.functional.__exit__(None, None, None)
            self.functional = None


def _fit_mask(mask, shape, path, k, notes):
    """torch's element-wise keep-mask, reduced to the mask shape the ms layer asks for
    (channel dropout asks (N, C, 1, 1): a channel is kept when all its elements were)."""
    shape = tuple(shape)
    if mask is None:
        notes.append(f"{path}#{k}: no torch mask recorded; nothing dropped")
        return np.ones(shape, dtype=bool)
    if mask.shape == shape:
        return mask
    if len(shape) == mask.ndim and all(s in (1, m) for s, m in zip(shape, mask.shape)):
        axes = tuple(i for i, (s, m) in enumerate(zip(shape, mask.shape)) if s == 1 and m != 1)
        return mask.all(axis=axes, keepdims=True)
    notes.append(f"{path}#{k}: torch mask {list(mask.shape)} does not fit {list(shape)}")
    return np.ones(shape, dtype=bool)


# --- losses ---------------------------------------------------------------------------------------

def make_losses(loss_fn, seed):
    """(torch loss fn, ms loss fn) of the model outputs, both scalar and with the same targets.

    'mse' (default): mean of (out - T)² over every float output, T a fixed random target (every
    output element gets its own weight in the gradient, so a permuted output is caught);
    'sum': the sum of all outputs; 'cross_entropy': logits (N, C) against fixed random labels;
    a pair (torch_fn, ms_fn) of callables taking the model output. Targets are drawn from the
    first output the torch loss sees (the torch model always runs first).
    """
    import torch

    import ms_core
    from ms_core.ops import functional as F
    if isinstance(loss_fn, (tuple, list)) and len(loss_fn) == 2 and \
            all(callable(f) for f in loss_fn):
        return loss_fn[0], loss_fn[1]
    kind = loss_fn or "mse"
    if kind not in ("mse", "sum", "cross_entropy"):
        raise ValueError(f"unknown loss {loss_fn!r}: use 'mse', 'sum', 'cross_entropy' or a pair "
                         f"(torch_fn, ms_fn)")
    state = {}

    def targets(out):
        if "t" not in state:
            rng = np.random.default_rng(seed + 1000)
            outs = [as_array(o) for o in flatten(out)]
            if kind == "mse":
                state["t"] = [rng.standard_normal(o.shape).astype(np.float32)
                              if o.dtype.kind == "f" else None for o in outs]
            elif kind == "cross_entropy":
                logits = outs[0]
                if logits.ndim != 2:
                    raise ValueError(f"loss 'cross_entropy' needs (N, C) logits, but the model "
                                     f"output has shape {list(logits.shape)}")
                labels = rng.integers(0, logits.shape[1], logits.shape[0])
                state["t"] = (labels, np.eye(logits.shape[1], dtype=np.float32)[labels])
            else:
                state["t"] = None
        return state["t"]

    if kind == "mse":
        def t_loss(out):
            total = 0
            for o, t in zip(flatten(out), targets(out)):
                if t is not None:
                    d = o - torch.from_numpy(t).to(o.dtype)
                    total = total + (d * d).mean()
            return total

        def m_loss(out):
            total = None
            for o, t in zip(flatten(out), state["t"]):
                if t is not None:
                    d = o - ms_core.Tensor(t.astype(as_array(o).dtype))
                    v = F.mean(d * d)
                    total = v if total is None else total + v
            return total
        return t_loss, m_loss
    if kind == "sum":
        return (lambda out: sum(o.sum() for o in flatten(out) if o.is_floating_point()),
                lambda out: _ms_sum([F.sum(o) for o in flatten(out)
                                     if as_array(o).dtype.kind == "f"]))

    def t_ce(out):
        labels, _ = targets(out)
        return torch.nn.functional.cross_entropy(flatten(out)[0], torch.from_numpy(labels))

    def m_ce(out):
        _, onehot = state["t"]
        o = flatten(out)[0]
        lp = F.log_softmax(o, -1)
        picked = F.sum(lp * ms_core.Tensor(onehot.astype(as_array(o).dtype)))
        return -picked / float(onehot.shape[0])
    return t_ce, m_ce


def _ms_sum(items):
    total = items[0]
    for i in items[1:]:
        total = total + i
    return total


# --- state snapshots ------------------------------------------------------------------------------

def snapshot_torch(model, buffers_only=False):
    """Copies of the state (only the buffers: what a forward pass can change)."""
    if buffers_only:
        return {n: b.detach().clone() for n, b in model.named_buffers()}
    return copy.deepcopy(model.state_dict())


def restore_torch(model, state):
    import torch
    with torch.no_grad():
        current = dict(model.named_parameters())
        current.update(dict(model.named_buffers()))
        for n, v in state.items():
            if n in current:
                current[n].copy_(v)


def snapshot_ms(cell, buffers_only=False):
    """Copies of the parameter values (only the non-trainable ones: moving statistics)."""
    return {n: p._data.copy() for n, p in cell.parameters_and_names()
            if not (buffers_only and p.requires_grad)}


def restore_ms(cell, state):
    for n, p in cell.parameters_and_names():
        if n in state:
            p._data = state[n].copy()


# --- one phase: outputs, per-layer, local, gradients ----------------------------------------------

def run_torch(model, inputs, loss=None, grads=False, capture=True, clone=True):
    """Forward (and backward) of the torch model, hooks recording."""
    import torch
    rec = TorchRecorder(model, capture=capture, clone=clone)
    t_inputs = [torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else x for x in inputs]
    g_pos = [i for i, x in enumerate(t_inputs) if _is_torch(x) and x.is_floating_point()]
    try:
        if grads:
            for i in g_pos:
                t_inputs[i] = t_inputs[i].detach().clone().requires_grad_(True)
            model.zero_grad(set_to_none=True)
            out = model(*t_inputs)
            value = loss(out)
            value.backward()
            # .numpy() views keep their tensors alive: no copies of every gradient needed
            g = {f"input[{i}]": t_inputs[i].grad.detach().numpy()
                 if t_inputs[i].grad is not None else np.zeros(tuple(t_inputs[i].shape), np.float32)
                 for i in g_pos}
            for n, p in model.named_parameters():
                g[n] = (p.grad.detach().numpy() if p.grad is not None
                        else np.zeros(tuple(p.shape), dtype=p.detach().numpy().dtype))
            model.zero_grad(set_to_none=True)
            return rec, out, float(value.detach()), g
        with torch.no_grad():
            out = model(*t_inputs)
        return rec, out, None, {}
    finally:
        rec.remove()


def run_ms(cell, inputs, loss=None, grads=False, capture=True, masks=None, fmasks=None):
    """Forward (and value_and_grad) of the converted model, hooks recording, masks replayed."""
    import ms_core
    rec = MsRecorder(cell, capture=capture, masks=masks, fmasks=fmasks)
    m_inputs = [torch_to_ms(x) for x in inputs]
    g_pos = tuple(i for i, x in enumerate(m_inputs) if _is_ms(x) and x._data.dtype.kind == "f")
    try:
        if grads:
            names = [n for n, p in cell.parameters_and_names() if p.requires_grad]
            params = dict(cell.parameters_and_names())
            weights = [params[n] for n in names]
            holder = {}

            def fn(*xs):
                out = cell(*xs)
                holder["out"] = out
                return loss(out)

            if not g_pos and not weights:
                out = cell(*m_inputs)
                return rec, out, float(as_array(loss(out))), {}
            vg = ms_core.value_and_grad(fn, g_pos if g_pos else None, weights if weights else None)
            value, gr = vg(*m_inputs)
            if g_pos and weights:
                g_in, g_w = gr
            elif g_pos:
                g_in, g_w = gr, ()
            else:
                g_in, g_w = (), gr
            if not isinstance(g_in, tuple):
                g_in = (g_in,)
            g = {f"input[{i}]": as_array(t) for i, t in zip(g_pos, g_in)}
            for n, t in zip(names, g_w):
                g[n] = as_array(t)
            return rec, holder["out"], float(as_array(value)), g
        out = cell(*m_inputs)
        return rec, out, None, {}
    except Exception as exc:
        exc._check_rec = rec  # what was recorded before the failure
        raise
    finally:
        rec.remove()


def worst_stats(ms_value, torch_value, rtol, atol) -> TensorStats:
    """Compare two (possibly nested) outputs: the stats of the worst leaf (a leaf count note)."""
    ts, ms = flatten(torch_value), flatten(ms_value)
    if not ts and not ms:
        return compare(np.zeros(0), np.zeros(0), rtol, atol)
    if len(ts) != len(ms):
        st = compare(np.zeros(1), np.zeros(1), rtol, atol)
        st.passed = False
        st.max_abs = st.max_rel = st.mean_abs = st.min_atol = st.min_rtol = float("inf")
        st.note = f"torch gives {len(ts)} output tensor(s), ms {len(ms)}"
        return st
    stats = [compare(m, t, rtol, atol) for m, t in zip(ms, ts)]
    worst = max(range(len(stats)), key=lambda i: (not stats[i].passed, stats[i].max_rel
                                                  if np.isfinite(stats[i].max_rel) else 1e300))
    st = stats[worst]
    if len(stats) > 1:
        st.note = (st.note + "; " if st.note else "") + f"output {worst} of {len(stats)} (worst)"
    return st


@dataclass
class LocalResult:
    """One layer replayed on torch's inputs: its output stats, why it fails, or what it raised."""

    stats: TensorStats | None
    input_note: str = ""
    error: str = ""


def local_replay(torch_model, ms_cell, torch_rec: TorchRecorder, rtol, atol, masks=None,
                 only=None) -> dict:
    """(path, k) -> LocalResult: each ms layer fed torch's inputs, sub-layers replayed
    (`only`: the set of (path, k) to replay; None: every layer)."""
    ms_cells = dict(ms_cell.cells_and_names())
    results = {}
    for key in torch_rec.order:
        if only is not None and key not in only:
            continue
        call = torch_rec.calls[key]
        path, _ = key
        cell = ms_cells.get(path)
        if cell is None:
            continue
        # Sub-layers (the calls made directly inside this one) return torch's outputs.
        installed, input_notes, expected = [], [], []
        by_child: dict = {}
        for ck in call.children:
            by_child.setdefault(ck[0], []).append(ck)
        for cpath, keys in by_child.items():
            child = ms_cells.get(cpath)
            if child is None or child is cell:
                continue
            replay = _replayer(cpath, keys, torch_rec, rtol, atol, input_notes)
            object.__setattr__(child, "construct", replay)
            installed.append(child)
            expected.append((cpath, len(keys), replay))
        own = None
        if not call.children and masks is not None and cell.training and \
                _ms_dropout_keep(cell) is not None:
            own = MsRecorder.__new__(MsRecorder)
            own.masks, own.overrides, own.mask_notes, own.handles = \
                {(path, 0): masks.get(key)}, [], [], []
            own._replay_dropout(path, cell)
        hooks = (dict(cell._forward_pre_hooks), dict(cell._forward_hooks))
        cell._forward_pre_hooks.clear()
        cell._forward_hooks.clear()
        functional = _FunctionalMasks(call.fmasks, []).__enter__() \
            if masks is not None or call.fmasks else None
        try:
            out = cell(*torch_to_ms(call.inputs), **torch_to_ms(_kwargs_for(cell, call.kwargs)))
            st = worst_stats(out, call.output, rtol, atol)
            uncalled = [c for c, n, replay in expected if replay.calls[0] < n]
            if uncalled and not st.passed:
                input_notes.append("the ms layer does not call its sub-layer(s) "
                                   + ", ".join(f"'{c}'" for c in uncalled)
                                   + " as torch does")
            results[key] = LocalResult(st, "; ".join(input_notes))
        except Exception as exc:  # a layer that cannot even run on torch's inputs is the culprit
            results[key] = LocalResult(None, "; ".join(input_notes), _one_line(exc))
        finally:
            if functional is not None:
                functional.__exit__(None, None, None)
            cell._forward_pre_hooks.update(hooks[0])
            cell._forward_hooks.update(hooks[1])
            for child in installed:
                child.__dict__.pop("construct", None)
            if own is not None:
                own.remove()
    return results


def _one_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _replayer(cpath, keys, torch_rec, rtol, atol, notes):
    counter = [0]

    def construct(*args, **kwargs):
        i = counter[0]
        counter[0] += 1
        if i >= len(keys):
            notes.append(f"'{cpath}' called more often than in torch")
            raise RuntimeError(f"'{cpath}' is called more often than in the torch model")
        call = torch_rec.calls[keys[i]]
        tin = flatten(call.inputs) + flatten(call.kwargs)
        min_ = flatten(args) + flatten(kwargs)
        if len(tin) == len(min_):
            for j, (a, b) in enumerate(zip(min_, tin)):
                if quick_pass(a, b, rtol, atol):
                    continue
                st = compare(a, b, rtol, atol)
                if not st.passed:
                    notes.append(f"input {j} of '{cpath}' differs (max abs {st.max_abs:.3g}"
                                 f"{', ' + st.note if st.note else ''})")
                    break
        else:
            notes.append(f"'{cpath}' gets {len(min_)} tensor input(s), {len(tin)} in torch")
        return torch_to_ms(call.output)
    construct.calls = counter
    return construct


# --- local gradients: each layer's VJP on torch's recorded inputs --------------------------------

@dataclass
class LocalGrad:
    """One layer's backward fed torch's recorded inputs and the same cotangent."""

    key: tuple
    stats: dict  # name ('input[i]' or torch parameter name) -> TensorStats
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and all(s.passed for s in self.stats.values())


def _subtree(rec, key):
    out, todo = [], list(rec.calls[key].children)
    while todo:
        k = todo.pop()
        out.append(k)
        todo.extend(rec.calls[k].children)
    return out


def local_grad_replay(torch_model, ms_cell, torch_rec, name_pairs, rtol, atol, seed=0):
    """Find the layer whose own backward is wrong: for leaves first, then composites whose
    sub-layers all pass, compare torch's VJP (w.r.t. inputs and the layer's own parameters) with
    ms_core's, on torch's recorded inputs and one random cotangent. Returns LocalGrad rows in
    execution order, stopping at the first failure. Layers containing dropout are skipped in
    training mode (a re-run of torch's layer would draw a new mask)."""
    import torch

    import ms_core
    ms_cells = dict(ms_cell.cells_and_names())
    torch_mods = dict(torch_model.named_modules())
    to_ms = dict(name_pairs)
    rows, passed = [], set()
    rng = np.random.default_rng(seed + 77)
    for key in torch_rec.order:
        call = torch_rec.calls[key]
        path = key[0]
        sub = _subtree(torch_rec, key)
        if any(k not in passed for k in sub):
            continue  # a sub-layer failed (or was skipped): that is the place to look
        mod, cell = torch_mods.get(path), ms_cells.get(path)
        if mod is None or cell is None or any(_dropout_keep(torch_mods.get(k[0]))[0] and
                                              torch_mods[k[0]].training for k in sub + [key]):
            continue
        t_in = list(call.inputs)
        pos = [i for i, x in enumerate(t_in) if _is_torch(x) and x.is_floating_point()]
        for i in pos:
            t_in[i] = t_in[i].detach().clone().requires_grad_(True)
        t_params = [(n, p) for n, p in mod.named_parameters() if p.requires_grad]
        m_named = [(n, p) for n, p in cell.parameters_and_names() if p.requires_grad]
        # align the layer's parameters through the weight map (full names on both sides)
        pairs = []
        m_by_full = {(f"{path}.{n}" if path else n): p for n, p in m_named}
        for n, p in t_params:
            full = f"{path}.{n}" if path else n
            mp = m_by_full.get(to_ms.get(full, ""))
            if mp is not None:
                pairs.append((full, p, mp))
        state = snapshot_torch(mod, buffers_only=True)
        m_state = snapshot_ms(cell, buffers_only=True)
        try:
            with torch.enable_grad():
                out = mod(*t_in, **call.kwargs)
            outs = [o for o in flatten(out) if o.is_floating_point() and o.requires_grad]
            if not outs:
                passed.add(key)
                continue
            vs = [rng.standard_normal(tuple(o.shape)).astype(np.float32) for o in outs]
            targets = [t_in[i] for i in pos] + [p for _, p, _ in pairs]
            tg = torch.autograd.grad(outs, targets, [torch.from_numpy(v).to(o.dtype)
                                                     for v, o in zip(vs, outs)],
                                     allow_unused=True)
            m_in = [torch_to_ms(x) for x in call.inputs]
            weights = [mp for _, _, mp in pairs]

            def fn(*xs):
                o = cell(*xs, **torch_to_ms(_kwargs_for(cell, call.kwargs)))
                fl = [t for t in flatten(o) if as_array(t).dtype.kind == "f"]
                total = None
                for t, v in zip(fl, vs):
                    term = (t * ms_core.Tensor(v.astype(as_array(t).dtype))).sum()
                    total = term if total is None else total + term
                return total

            grad_pos = tuple(pos) if pos else None
            if grad_pos is None and not weights:
                passed.add(key)
                continue
            vg = ms_core.value_and_grad(fn, grad_pos, weights if weights else None)
            _, mg = vg(*m_in)
            if grad_pos is not None and weights:
                g_in, g_w = mg
            elif grad_pos is not None:
                g_in, g_w = mg, ()
            else:
                g_in, g_w = (), mg
            if not isinstance(g_in, tuple):
                g_in = (g_in,)
            stats = {}
            for j, i in enumerate(pos):
                tv = tg[j] if tg[j] is not None else torch.zeros_like(t_in[i])
                stats[f"input[{i}]"] = compare(g_in[j], tv, rtol, atol)
            for j, (full, p, _) in enumerate(pairs):
                tv = tg[len(pos) + j]
                tv = tv if tv is not None else torch.zeros_like(p)
                from .weights import as_torch_layout
                stats[full] = compare(as_torch_layout(as_array(g_w[j]), tuple(tv.shape)), tv,
                                      rtol, atol)
            row = LocalGrad(key, stats)
        except Exception as exc:  # the ms layer cannot be differentiated on torch's inputs
            row = LocalGrad(key, {}, _one_line(exc))
        finally:
            restore_torch(mod, state)
            restore_ms(cell, m_state)
        rows.append(row)
        if not row.passed:
            break
        passed.add(key)
    return rows


def _kwargs_for(cell, kwargs):
    """The torch keyword arguments the ms cell's construct accepts: torch-only ones (e.g.
    MultiheadAttention's is_causal, absent from MindSpore 2.10) are not passed on replay."""
    try:
        params = inspect.signature(cell.construct).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in params}
