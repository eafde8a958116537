"""Random numbers a forward draws outside dropout layers, the same on both sides.

A torch forward may draw random numbers of its own: ``torch.rand`` in a stochastic-depth or
drop-connect helper, ``x.new_empty(shape).bernoulli_(keep)``, ``torch.randn_like`` in a VAE's
reparameterisation, or dropout inside a fused kernel (``F.scaled_dot_product_attention`` with
``dropout_p > 0``, which ``nn.MultiheadAttention`` calls). The checker gives the converted model
the very numbers torch drew, as it does with dropout masks:

- :class:`RandomDraws` records, while a torch run is recorded, the value of every draw the
  model's own code makes (function, call site, values), in call order;
- :class:`MsDrawReplay` answers the converted model's draws (``ops.rand``, ``ops.bernoulli``,
  ``Tensor.bernoulli_``, ...) with those values, in the same order, where the shapes agree;
- :class:`TorchDrawReplay` does the same for torch reference runs (float64, replays);
- :func:`explicit_attention_dropout` runs a fused attention with dropout as its math
  (``softmax(q kᵀ·scale + mask)``, ``F.dropout``, ``@ v``), so its mask is a functional dropout
  mask like any other, recorded and replayed in call order.

Only draws made by the model's code are taken: a draw made inside torch or ms_core themselves
(a layer's own kernel, an initializer) is left alone, on both sides alike.
"""
from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

TORCH_FUNCTIONS = ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like",
                   "bernoulli", "normal", "multinomial", "randperm", "poisson")
# Tensor methods that fill or draw (the in-place ones return the tensor itself)
TORCH_METHODS = ("bernoulli", "bernoulli_", "uniform_", "normal_", "random_", "exponential_",
                 "cauchy_", "log_normal_", "geometric_")
MS_FUNCTIONS = ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like",
                "bernoulli", "normal", "uniform", "multinomial", "randperm")
MS_METHODS = TORCH_METHODS
_HERE = os.path.dirname(os.path.abspath(__file__))
_THIS = os.path.abspath(__file__)


@dataclass
class Draw:
    """One draw of the model's code: the function, where it was called, the values it gave."""

    name: str
    site: str
    value: np.ndarray
    p: object = None  # a Bernoulli draw's probability (number or array): must be the same



# --- whose draw is it ---------------------------------------------------------------------------

def _library_dirs() -> tuple:
    """Directories whose code is not the model's: torch, ms_core, this checker."""
    import torch

    import ms_core
    return (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep,
            os.path.dirname(os.path.abspath(ms_core.__file__)) + os.sep, _HERE + os.sep)


def _model_frame(libraries):
    """The frame that called the wrapped function (frames of this file skipped), or None when
    that caller is library code (torch, ms_core, the checker)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == _THIS:
        frame = frame.f_back
    if frame is None:
        return None
    path = os.path.abspath(frame.f_code.co_filename)
    return None if path.startswith(libraries) else frame


def _first_model_frame(libraries):
    """The innermost frame of the model's code on the stack (None: none)."""
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(libraries):
        frame = frame.f_back
    return frame


def bernoulli_p(name, args, kwargs):
    """The probability of a Bernoulli draw (`name` ends in 'bernoulli' or 'bernoulli_'; args
    start with the input / the tensor filled) as a float64 array, or None for other draws.
    torch.bernoulli(input) and Tensor.bernoulli() draw with the input's values."""
    if not name.rstrip("_").endswith("bernoulli"):
        return None
    p = kwargs.get("p", args[1] if len(args) > 1 else None)
    if p is None:
        p = 0.5 if name.endswith("_") or name.startswith("ops.") else (args[0] if args else None)
    if hasattr(p, "detach"):
        p = p.detach().cpu().numpy()
    elif hasattr(p, "asnumpy"):
        p = p.asnumpy()
    return None if p is None else np.asarray(p, dtype=np.float64)


def _site(frame) -> str:
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


class _Patches:
    """Attributes replaced until :meth:`restore` (an attribute that was inherited is deleted
    again rather than set)."""

    def __init__(self):
        self.saved = []

    def set(self, owner, name, value):
        own = name in vars(owner) if isinstance(owner, type) else True
        self.saved.append((owner, name, getattr(owner, name), own))
        setattr(owner, name, value)

    def restore(self):
        for owner, name, value, own in reversed(self.saved):
            if own:
                setattr(owner, name, value)
            else:
                delattr(owner, name)
        self.saved = []


# --- torch: record, replay ------------------------------------------------------------------------

class RandomDraws:
    """Context manager: while entered, every draw of the model's own code through torch's random
    functions and Tensor methods is recorded in `draws` (:class:`Draw`, call order) and handed
    to `on_draw`; the functions still run as before. Fused attention with dropout runs as its
    math (:func:`explicit_attention_dropout`), its mask recorded by whoever records F.dropout."""

    def __init__(self, on_draw=None):
        self.draws: list = []
        self.on_draw = on_draw
        self._patches = _Patches()
        self._attention = None

    def __enter__(self):
        import torch
        libraries = _library_dirs()
        for owner, names in ((torch, TORCH_FUNCTIONS), (torch.Tensor, TORCH_METHODS)):
            for name in names:
                orig = getattr(owner, name, None)
                if orig is not None:
                    self._patches.set(owner, name, self._wrap(orig, name, owner is torch,
                                                              libraries))
        self._attention = explicit_attention_dropout(self._note_attention)
        self._attention.__enter__()
        return self

    def _wrap(self, orig, name, function, libraries):
        label = f"torch.{name}" if function else f"Tensor.{name}"

        def wrapper(*args, **kwargs):
            out = orig(*args, **kwargs)
            frame = _model_frame(libraries)
            if frame is not None and hasattr(out, "detach"):
                self._add(Draw(label, _site(frame), out.detach().cpu().numpy().copy(),
                               bernoulli_p(label, args, kwargs)))
            return out
        return wrapper

    def _add(self, draw):
        self.draws.append(draw)
        if self.on_draw is not None:
            self.on_draw(draw)

    def _note_attention(self, p, frame):
        """A fused attention's dropout: its mask is F.dropout's (recorded with the functional
        masks); noted here (no values) so the report says where it came from."""
        self.draws.append(Draw(f"F.scaled_dot_product_attention(dropout_p={p:g})",
                               _site(frame) if frame is not None else "?", None))

    def __exit__(self, *exc):
        self._patches.restore()
        if self._attention is not None:
            self._attention.__exit__(None, None, None)
            self._attention = None

    @property
    def valued(self) -> list:
        """The draws whose values the converted model is given (not the attention notes)."""
        return [d for d in self.draws if d.value is not None]

    def summary(self, limit: int = 3) -> str:
        """'torch.rand at utils.py:150 (x16)' for the most frequent sites, or ''."""
        counts: dict = {}
        for d in self.draws:
            counts[(d.name, d.site)] = counts.get((d.name, d.site), 0) + 1
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:limit]
        return ", ".join(f"{name} at {site} (x{n})" for (name, site), n in top)


class _Queue:
    """Recorded draws handed out in order; what did not fit is noted."""

    def __init__(self, draws, notes):
        self.draws, self.i, self.notes = [d for d in draws if d.value is not None], 0, notes

    def take(self, shape, name, p=None):
        """The next recorded values if their shape is `shape` and, for a Bernoulli draw, their
        probability is `p` (else None, noted: the side draws its own values)."""
        i = self.i
        self.i += 1
        if i >= len(self.draws):
            self.notes.append(f"draw {i} ({name} {list(shape)}): torch drew only "
                              f"{len(self.draws)}; not replayed")
            return None
        d = self.draws[i]
        if tuple(d.value.shape) != tuple(shape):
            self.notes.append(f"draw {i}: {d.name} at {d.site} drew {list(d.value.shape)}, "
                              f"{name} asks for {list(shape)}; not replayed")
            return None
        if d.p is not None and p is not None and not _same_probability(d.p, p):
            self.notes.append(f"draw {i}: {d.name} at {d.site} drew with probability "
                              f"{_show(d.p)}, {name} asks for {_show(p)}; not replayed")
            return None
        return d.value

    def unused(self) -> None:
        if self.i < len(self.draws):
            d = self.draws[self.i]
            self.notes.append(f"{len(self.draws) - self.i} torch draw(s) not asked for by the "
                              f"converted model, from {d.name} at {d.site}")


def _same_probability(a, b) -> bool:
    try:
        return bool(np.allclose(*np.broadcast_arrays(a, b), rtol=1e-6, atol=1e-7))
    except ValueError:  # shapes that do not broadcast
        return False


def _show(p) -> str:
    p = np.asarray(p)
    return f"{float(p):g}" if p.size == 1 else f"an array (mean {float(p.mean()):.3g})"


class TorchDrawReplay:
    """Context manager: torch's random functions and methods, called by the model's code, give
    the recorded draws in order (cast to the dtype asked for), e.g. in the float64 reference."""

    def __init__(self, draws, notes=None):
        self.queue = _Queue(draws, notes if notes is not None else [])
        self._patches = _Patches()

    def __enter__(self):
        import torch
        if not self.queue.draws:
            return self
        libraries = _library_dirs()
        for owner, names in ((torch, TORCH_FUNCTIONS), (torch.Tensor, TORCH_METHODS)):
            for name in names:
                orig = getattr(owner, name, None)
                if orig is not None:
                    self._patches.set(owner, name, self._wrap(orig, name, libraries))
        return self

    def _wrap(self, orig, name, libraries):
        def wrapper(*args, **kwargs):
            import torch
            out = orig(*args, **kwargs)
            if not hasattr(out, "detach") or _model_frame(libraries) is None:
                return out
            value = self.queue.take(tuple(out.shape), f"torch.{name}",
                                    bernoulli_p(name, args, kwargs))
            if value is None:
                return out
            given = torch.from_numpy(np.ascontiguousarray(value)).to(out.dtype)
            if name.endswith("_"):  # in place: the tensor itself holds the values
                with torch.no_grad():
                    out.copy_(given)
                return out
            # keep the graph (torch.normal(mean, std) is differentiable in mean and std)
            return given + (out - out.detach()) if out.requires_grad else given  # exact
        return wrapper

    def __exit__(self, *exc):
        self._patches.restore()


# --- ms_core: replay ------------------------------------------------------------------------------

class MsDrawReplay:
    """Context manager: ms_core's random ops and Tensor methods, called by the converted model's
    code, give torch's recorded draws in order, in the dtype ms_core would have given, where
    the shapes agree (what does not fit is noted in `notes`, and draws its own values)."""

    def __init__(self, draws, notes, extra_modules=()):
        self.queue = _Queue(draws, notes)
        self.extra_modules = extra_modules
        self._patches = _Patches()

    def __enter__(self):
        if not self.queue.draws:
            return self
        from ms_core.common.tensor import Tensor
        from ms_core.ops import random_ops
        libraries = _library_dirs()
        originals = {id(getattr(random_ops, n)): (n, getattr(random_ops, n))
                     for n in MS_FUNCTIONS if hasattr(random_ops, n)}
        for module in _ms_namespaces(self.extra_modules):
            for attr, value in list(vars(module).items()):
                name, orig = originals.get(id(value), (None, None))
                if name is not None and value is orig:
                    self._patches.set(module, attr, self._wrap(value, f"ops.{name}", False,
                                                               libraries))
        for name in MS_METHODS:
            orig = getattr(Tensor, name, None)
            if orig is not None:
                self._patches.set(Tensor, name, self._wrap(orig, f"Tensor.{name}", True,
                                                           libraries))
        return self

    def _wrap(self, orig, label, method, libraries):
        def wrapper(*args, **kwargs):
            from ms_core.common.tensor import Tensor
            out = orig(*args, **kwargs)
            if not isinstance(out, Tensor) or _model_frame(libraries) is None:
                return out
            value = self.queue.take(tuple(out.shape), label, bernoulli_p(label, args, kwargs))
            if value is None:
                return out
            data = np.asarray(value).astype(out._data.dtype)
            if method and label.endswith("_"):
                out._data = data
                return out
            return Tensor._wrap(data)
        return wrapper

    def __exit__(self, *exc):
        self.queue.unused()
        self._patches.restore()


_NAMESPACES: dict = {}


def _ms_namespaces(extra) -> list:
    """ms_core's modules (they re-export the random ops: ms_core.ops, ops.functional, ...) and
    `extra` ones (the converted model's, which may have imported an op by name)."""
    key = len(sys.modules)
    if _NAMESPACES.get("key") != key:
        _NAMESPACES["key"] = key
        _NAMESPACES["mods"] = [m for n, m in list(sys.modules.items())
                               if m is not None and (n == "ms_core" or n.startswith("ms_core."))]
    return _NAMESPACES["mods"] + [m for m in extra if m is not None]


# --- fused attention with dropout, as its math ----------------------------------------------------

@contextmanager
def explicit_attention_dropout(note=None):
    """While entered, ``F.scaled_dot_product_attention`` with ``dropout_p > 0`` computes
    ``softmax(q kᵀ·scale + mask)``, then ``F.dropout`` (looked up at call time: a recorder or a
    replay of functional masks sees it), then ``@ v``. Without dropout it is torch's own.
    `note(p, frame)` is told of each such call made by the model's code."""
    import torch.nn.functional as TF
    orig = TF.scaled_dot_product_attention
    libraries = _library_dirs()

    def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
             enable_gqa=False):
        if not dropout_p:
            return orig(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p,
                        is_causal=is_causal, scale=scale, enable_gqa=enable_gqa)
        if note is not None:
            note(dropout_p, _first_model_frame(libraries))
        return _attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale,
                               enable_gqa)
    TF.scaled_dot_product_attention = sdpa
    try:
        yield
    finally:
        TF.scaled_dot_product_attention = orig


def _attention_math(q, k, v, attn_mask, p, is_causal, scale, enable_gqa):
    """torch's documented reference of scaled_dot_product_attention, dropout by F.dropout."""
    import torch
    import torch.nn.functional as TF
    length, source = q.size(-2), k.size(-2)
    factor = 1.0 / math.sqrt(q.size(-1)) if scale is None else scale
    bias = torch.zeros(length, source, dtype=q.dtype, device=q.device)
    if is_causal:
        keep = torch.ones(length, source, dtype=torch.bool, device=q.device).tril(diagonal=0)
        bias = bias.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            bias = bias.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            bias = attn_mask + bias
    if enable_gqa:
        k = k.repeat_interleave(q.size(-3) // k.size(-3), -3)
        v = v.repeat_interleave(q.size(-3) // v.size(-3), -3)
    weights = torch.softmax(q @ k.transpose(-2, -1) * factor + bias, dim=-1)
    return TF.dropout(weights, p, training=True) @ v
