"""Running the two models side by side: hooks that record every layer call, torch's dropout
masks replayed in the converted model, state snapshots.

Layers are aligned by module path and call index: torch's ``named_modules()`` and ms_core's
``cells_and_names()`` give the same paths when the converter keeps attribute names, and a layer
called twice in one forward is two rows (``path#1``).
"""
from __future__ import annotations

import copy
import inspect
import sys
from dataclasses import dataclass, field

import numpy as np

from .compare import TensorStats, as_array, compare
from .randomness import MsDrawReplay, RandomDraws
from .rnn import is_layered_dropout, layered, ms_rnn_masks
from .sources import layer_source
from .weights import TransferReport, map_names


# --- values ---------------------------------------------------------------------------------------

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
    if is_torch(x) or is_ms(x):
        return [x]
    return []


def is_torch(x) -> bool:
    """A torch tensor (checked without importing torch: none exists before it is imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def is_ms(x) -> bool:
    """An ms_core (or MindSpore) tensor."""
    return hasattr(x, "asnumpy") and hasattr(x, "_data")


def numpy_to_torch(x, dtype=None):
    """Rebuild an input structure (arrays, tuples/lists of them, e.g. an LSTM's ``(h, c)``) with
    torch tensors; with `dtype`, floating-point arrays and tensors are cast to it."""
    import torch
    if isinstance(x, np.ndarray) or is_torch(x):
        t = torch.from_numpy(np.array(x)) if isinstance(x, np.ndarray) else x.detach()
        return t.to(dtype) if dtype is not None and t.is_floating_point() else t
    if isinstance(x, (tuple, list)):
        return type(x)(numpy_to_torch(i, dtype) for i in x)
    return x


def torch_to_ms(x):
    """Rebuild a torch structure with ms_core Tensors (values copied)."""
    import ms_core
    if is_torch(x):
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
    if is_torch(x):
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


def one_line(exc) -> str:
    """An exception as 'Type: first line of its message'."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def kwargs_for(cell, kwargs):
    """The torch keyword arguments the ms cell's construct accepts: torch-only ones (e.g.
    MultiheadAttention's is_causal, absent from MindSpore 2.10) are not passed on replay."""
    try:
        params = inspect.signature(cell.construct).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in params}


# --- the two models -------------------------------------------------------------------------------

@dataclass
class ModelPair:
    """The torch model and its conversion, the weight map between them, and where each layer's
    code is (layer path -> 'file:line')."""

    torch_module: object
    ms_cell: object
    weight_map: TransferReport
    torch_sources: dict
    ms_sources: dict

    @classmethod
    def of(cls, torch_module, ms_cell, name_map=None) -> ModelPair:
        torch_sources = {p: layer_source(torch_module, p) for p, _ in torch_module.named_modules()}
        ms_sources = {p: layer_source(ms_cell, p) for p, _ in ms_cell.cells_and_names()}
        return cls(torch_module, ms_cell, map_names(torch_module, ms_cell, name_map),
                   torch_sources, ms_sources)

    def sources(self, path: str) -> tuple[str, str]:
        """(torch source, ms source) of the layer at `path` ('' where unknown)."""
        return self.torch_sources.get(path, ""), self.ms_sources.get(path, "")


# --- recorded calls -------------------------------------------------------------------------------

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
    draws: list = field(default_factory=list)  # random draws of this call's own code (Draw)


class TorchRecorder:
    """Forward pre-hooks and hooks on every torch module: inputs, outputs, nesting, and
    dropout masks. `capture`: record every module's calls (True), only the dropout masks
    (False), or the calls of the modules at these paths (a set) and the dropout masks."""

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
        self.notes: list = []
        # multi-layer RNNs drop between layers inside torch's kernel: run them layer by layer
        self._rnn = layered(model, self.dropout_masks, record=True, notes=self.notes)
        self._rnn.__enter__()
        self.drop_paths = set()
        for path, mod in model.named_modules():
            is_drop, _ = torch_dropout_keep(mod)
            if is_drop:
                self.drop_paths.add(path)
            if not (capture is True or (capture and path in capture)) and not is_drop:
                continue
            self.handles.append(mod.register_forward_pre_hook(self._pre(path), with_kwargs=True))
            self.handles.append(mod.register_forward_hook(self._post(path, is_drop),
                                                          with_kwargs=True))
        self._patch_functional()
        # torch.rand & co. in the model's code, and fused attention dropout (as F.dropout)
        self.random = RandomDraws(on_draw=self._on_draw).__enter__()

    def _on_draw(self, draw):
        if self.stack:
            self.stack[-1].draws.append(draw)

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
                before = input.detach().clone() if is_torch(input) else input  # inplace=True
                out = _orig(input, *args, **kwargs)
                input = before
                p = kwargs.get("p", args[0] if args else 0.5)
                training = kwargs.get("training", args[1] if len(args) > 1 else True)
                if training and p and is_torch(out):
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
                call.inputs = (args[0].detach().clone(),) if is_torch(args[0]) else ()
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
            if is_drop and mod.training and call.inputs and is_torch(out):
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
        if self._rnn is not None:
            self._rnn.__exit__(None, None, None)
            self._rnn = None
        import torch.nn.functional as TF
        for name, orig in getattr(self, "_saved", {}).items():
            setattr(TF, name, orig)
        self._saved = {}
        if getattr(self, "random", None) is not None:
            self.random.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class MsRecorder:
    """Forward hooks on every ms cell: outputs by (path, call index); dropout masks replayed.

    Training-mode Dropout cells get torch's recorded mask for the same (path, call)
    (:class:`DropoutReplay`); functional dropout (`ops.dropout`) gets torch's functional masks in
    call order through ms_core's global provider (:class:`FunctionalMasks`); the model's own
    random draws (`ops.rand`, `Tensor.bernoulli_`, ...) get torch's `draws` in call order
    (:class:`~migrate.check.randomness.MsDrawReplay`).
    """

    def __init__(self, cell, capture=True, masks=None, fmasks=None, draws=None):
        self.cell = cell
        self.calls: dict = {}
        self.order: list = []
        self.counts: dict = {}
        self.handles = []
        self.mask_notes: list = []
        self.draw_notes: list = []
        self.draws = MsDrawReplay(draws or [], self.draw_notes, model_modules(cell)).__enter__() \
            if draws else None
        if masks:  # torch's RNN masks between layers go to the ms RNN's Dropout sub-cell
            masks = {**masks, **ms_rnn_masks(masks, cell, lambda c: ms_dropout_keep(c) is not None)}
        self.dropouts = DropoutReplay(masks or {}, self.mask_notes)
        for path, c in cell.cells_and_names():
            if capture:
                self.handles.append(c.register_forward_hook(self._post(path)))
            if masks is not None and c.training and ms_dropout_keep(c) is not None:
                self.dropouts.install(path, c)
        self.functional = None
        # F.dropout(x, p) drops even in eval mode (training=True is its default): its masks are
        # replayed in both modes, module Dropout masks only in training mode
        if masks is not None or fmasks:
            self.functional = FunctionalMasks(fmasks or [], self.mask_notes).__enter__()

    def _post(self, path):
        def hook(c, args, out):
            k = self.counts.get(path, 0)
            self.counts[path] = k + 1
            self.calls[(path, k)] = Call(path, k, order=len(self.order), output=out)
            self.order.append((path, k))
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []
        self.dropouts.remove()
        if self.functional is not None:
            self.functional.__exit__(None, None, None)
            self.functional = None
        if self.draws is not None:
            self.draws.__exit__(None, None, None)
            self.draws = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def model_modules(cell) -> list:
    """The Python modules defining the cell classes of a model (where its code may have imported
    a random op by name)."""
    names = {type(c).__module__ for _, c in cell.cells_and_names()}
    return [sys.modules[n] for n in names if n in sys.modules and not n.startswith("ms_core")]


# --- dropout masks --------------------------------------------------------------------------------

def has_random_masks(module) -> bool:
    """A torch layer that draws dropout masks in its current mode (re-running it draws others)."""
    is_drop, _ = torch_dropout_keep(module)
    return (is_drop and module.training) or is_layered_dropout(module)


def torch_dropout_keep(module):
    """(is a torch dropout layer, keep probability)"""
    import torch
    if isinstance(module, torch.nn.modules.dropout._DropoutNd) and not isinstance(
            module, (torch.nn.AlphaDropout, torch.nn.FeatureAlphaDropout)):
        return True, 1.0 - float(module.p)
    return False, 1.0


def ms_dropout_keep(cell):
    """The keep probability an ms dropout cell applies (None if the cell is not a dropout layer:
    one of the core's Dropout classes or a subclass, never a block named after one, such as a
    ConvDropoutNormReLU that holds a convolution)."""
    import ms_core
    if not isinstance(cell, (ms_core.nn.Dropout, ms_core.nn.Dropout1d, ms_core.nn.Dropout2d, ms_core.nn.Dropout3d)):
        return None
    for attr in ("keep_prob",):
        v = getattr(cell, attr, None)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    p = getattr(cell, "p", None)
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        return 1.0 - float(p)
    return None


def fit_mask(mask, shape, path, k, notes):
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
    if mask.size == int(np.prod(shape)) and (mask.shape[-1:] == shape[-1:] or _merged(mask.shape, shape)):
        # the same elements in the same order, the leading axes merged or split: attention
        # weights are (N, H, L, S) in torch's fused kernel, (N*H, L, S) in an unfused one; a
        # Dropout2d given a 2-D (N, C) input drops each element as its own channel (1, N*C, 1, 1)
        return mask.reshape(shape)
    notes.append(f"{path}#{k}: torch mask {list(mask.shape)} does not fit {list(shape)}")
    return np.ones(shape, dtype=bool)


def _merged(have, want) -> bool:
    """Whether `want` is `have` with consecutive axes merged (size-1 axes aside): a row-major
    reshape then keeps every element's place."""
    def bounds(shape):
        out, n = set(), 1
        for d in shape:
            if d != 1:
                n *= d
                out.add(n)
        return out
    return bounds(want) <= bounds(have)


class DropoutReplay:
    """torch's recorded keep-masks, by (path, call index), fed to the ms dropout cells.

    ms_core's Dropout takes a mask through its `mask_provider` (so the layer's own code and
    keep_prob scale run); a dropout cell without one has its construct replaced for the run by
    `x * mask / keep_prob`, `keep_prob` read from the cell itself (so a wrong keep_prob shows as a
    wrong scale). Masks that do not fit are noted in `notes` and drop nothing.
    """

    def __init__(self, masks: dict, notes: list):
        self.masks, self.notes, self.overrides = masks, notes, []

    def install(self, path, c):
        """Replay the masks of the dropout cell `c` at `path` until :meth:`remove`."""
        counter = [0]
        if hasattr(type(c), "mask_provider"):
            def provider(shape, keep_prob):
                k = counter[0]
                counter[0] += 1
                return fit_mask(self.masks.get((path, k)), shape, path, k, self.notes)
            object.__setattr__(c, "mask_provider", provider)
            self.overrides.append((c, "mask_provider"))
        else:
            object.__setattr__(c, "construct", self._masked_construct(path, c, counter))
            self.overrides.append((c, "construct"))

    def _masked_construct(self, path, c, counter):
        import ms_core

        def construct(x, *args, **kwargs):
            k = counter[0]
            counter[0] += 1
            if not c.training:
                return x
            mask = self.masks.get((path, k))
            keep = ms_dropout_keep(c)
            if mask is None or tuple(mask.shape) != tuple(x.shape):
                self.notes.append(f"{path}#{k}: no torch mask of shape {list(x.shape)}")
                mask = np.ones(x.shape, dtype=bool)
            scale = (1.0 / keep) if keep else 0.0
            return x * ms_core.Tensor((mask * scale).astype(x._data.dtype))
        return construct

    def remove(self):
        for c, kind in self.overrides:
            c.__dict__.pop(kind, None)
        self.overrides = []


class FunctionalMasks:
    """ms_core's global dropout mask provider, replaying torch's functional masks in order."""

    def __init__(self, masks, notes):
        self.masks, self.i, self.notes, self.old = list(masks), 0, notes, None

    def __call__(self, shape, keep_prob):
        i = self.i
        self.i += 1
        mask = self.masks[i] if i < len(self.masks) else None
        return fit_mask(mask, shape, "functional dropout", i, self.notes)

    def __enter__(self):
        from ms_core.ops import nn_ops
        if hasattr(nn_ops, "set_dropout_mask_provider"):
            self.old = nn_ops.set_dropout_mask_provider(self)
        return self

    def __exit__(self, *exc):
        from ms_core.ops import nn_ops
        if hasattr(nn_ops, "set_dropout_mask_provider"):
            nn_ops.set_dropout_mask_provider(self.old)


# --- runs -----------------------------------------------------------------------------------------

@dataclass
class Run:
    """One model's forward (and backward) on the inputs."""

    recorder: object  # TorchRecorder / MsRecorder: every layer call, dropout masks (None: none)
    output: object = None
    loss: float | None = None
    grads: dict = field(default_factory=dict)  # 'input[i]' / parameter name -> array

    @property
    def calls(self) -> dict:
        return self.recorder.calls if self.recorder is not None else {}


def run_torch(model, inputs, loss=None, grads=False, capture=True, clone=True) -> Run:
    """Forward (and backward of `loss`) of the torch model, hooks recording."""
    import torch
    with TorchRecorder(model, capture=capture, clone=clone) as rec:
        t_inputs = [numpy_to_torch(x) for x in inputs]
        if not grads:
            with torch.no_grad():
                return Run(rec, model(*t_inputs))
        g_pos = [i for i, x in enumerate(t_inputs) if is_torch(x) and x.is_floating_point()]
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
            if not p.requires_grad:
                continue  # frozen (a fixed mask): no gradient on either side, as run_ms leaves it out
            g[n] = (p.grad.detach().numpy() if p.grad is not None
                    else np.zeros(tuple(p.shape), dtype=p.detach().numpy().dtype))
        model.zero_grad(set_to_none=True)
        return Run(rec, out, float(value.detach()), g)


def run_ms(cell, recorder, inputs, loss=None, grads=False) -> Run:
    """Forward (and value_and_grad of `loss`) of the converted model while `recorder` (an
    :class:`MsRecorder` on `cell`) records. The recorder is removed when this returns or raises;
    it keeps what it recorded (after an exception: the calls before the failure)."""
    import ms_core
    with recorder:
        m_inputs = [torch_to_ms(x) for x in inputs]
        if not grads:
            return Run(recorder, cell(*m_inputs))
        g_pos = tuple(i for i, x in enumerate(m_inputs) if is_ms(x) and x._data.dtype.kind == "f")
        names = [n for n, p in cell.parameters_and_names() if p.requires_grad]
        params = dict(cell.parameters_and_names())
        weights = [params[n] for n in names]
        if not g_pos and not weights:
            out = cell(*m_inputs)
            return Run(recorder, out, float(as_array(loss(out))))
        holder = {}

        def fn(*xs):
            holder["out"] = out = cell(*xs)
            return loss(out)

        vg = ms_core.value_and_grad(fn, g_pos if g_pos else None, weights if weights else None)
        value, gr = vg(*m_inputs)
        g_in, g_w = split_grads(gr, bool(g_pos), bool(weights))
        g = {f"input[{i}]": as_array(t) for i, t in zip(g_pos, g_in)}
        for n, t in zip(names, g_w):
            g[n] = as_array(t)
        return Run(recorder, holder["out"], float(as_array(value)), g)


def split_grads(grads, inputs: bool, weights: bool) -> tuple[tuple, tuple]:
    """(input gradients, weight gradients) from ms_core.value_and_grad's result structure."""
    if inputs and weights:
        g_in, g_w = grads
    elif inputs:
        g_in, g_w = grads, ()
    else:
        g_in, g_w = (), grads
    return (g_in if isinstance(g_in, tuple) else (g_in,)), g_w


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


# --- state snapshots ------------------------------------------------------------------------------

def snapshot_torch(model, buffers_only=False):
    """Copies of the state (only the buffers: what a forward pass can change)."""
    if buffers_only:
        return {n: b.detach().clone() for n, b in model.named_buffers()}
    return copy.deepcopy(model.state_dict())


def restore_torch(model, state):
    """Copy a snapshot back into the model's parameters and buffers."""
    import torch
    with torch.no_grad():
        current = dict(model.named_buffers())
        if not state.keys() <= current.keys():  # parameters too (not only what a forward moves)
            current.update(dict(model.named_parameters()))
        for n, v in state.items():
            if n in current:
                current[n].copy_(v)


def snapshot_ms(cell, buffers_only=False):
    """Copies of the parameter values (only the non-trainable ones: moving statistics)."""
    return {n: p._data.copy() for n, p in cell.parameters_and_names()
            if not (buffers_only and p.requires_grad)}


def restore_ms(cell, state):
    """Copy a snapshot back into the cell's parameters."""
    for n, p in cell.parameters_and_names():
        if n in state:
            p._data = state[n].copy()
