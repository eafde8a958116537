"""Dropout between the layers of torch's multi-layer RNN/LSTM/GRU, made visible.

``nn.LSTM(..., num_layers=2, dropout=p)`` drops inside torch's kernel, where no hook sees the
mask, so the converted model could not replay it. While a check runs, such a module (in training
mode) runs layer by layer instead: one single-layer module per layer sharing the original's
parameters (torch's own kernel for each layer), the layers joined by ``out * mask / (1 - p)``
in time-major layout, as torch's kernel does. The masks are recorded under
``(path, "rnn", call, layer)`` (or replayed from there, for the float64 reference), and the
converted model's RNN gets them through its Dropout sub-cell (see :func:`ms_rnn_masks`).
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

RNN_TAG = "rnn"


def is_layered_dropout(module) -> bool:
    """A torch RNN/LSTM/GRU that drops between its layers in training mode."""
    import torch
    return isinstance(module, torch.nn.RNNBase) and module.num_layers > 1 and \
        float(module.dropout) > 0 and module.training


@contextmanager
def layered(model, masks: dict, record: bool, notes=None):
    """Run every torch RNN of `model` that drops between layers layer by layer, recording its
    masks into `masks` (`record`) or replaying them from there."""
    import torch
    patched = []
    for path, mod in model.named_modules():
        if isinstance(mod, torch.nn.RNNBase) and mod.num_layers > 1 and \
                float(mod.dropout) > 0 and "forward" not in mod.__dict__:  # outer replay wins
            object.__setattr__(mod, "forward", _LayerByLayer(path, mod, masks, record, notes))
            patched.append(mod)
    try:
        yield
    finally:
        for mod in patched:
            mod.__dict__.pop("forward", None)


class _LayerByLayer:
    """The forward of one multi-layer torch RNN, layer by layer with visible dropout."""

    def __init__(self, path, mod, masks, record, notes):
        self.path, self.mod, self.masks, self.record, self.notes = path, mod, masks, record, notes
        self.native = type(mod).forward.__get__(mod)
        self.calls = 0
        self.layers = None

    def _single_layers(self):
        import torch
        mod = self.mod
        subs = []
        with torch.random.fork_rng():  # building modules draws initial values: keep the stream
            for layer in range(mod.num_layers):
                width = mod.input_size if layer == 0 else \
                    (mod.proj_size or mod.hidden_size) * (2 if mod.bidirectional else 1)
                kwargs = dict(num_layers=1, bias=mod.bias, batch_first=False,
                              bidirectional=mod.bidirectional)
                if isinstance(mod, torch.nn.LSTM):
                    kwargs["proj_size"] = mod.proj_size
                if type(mod) is torch.nn.RNN:
                    kwargs["nonlinearity"] = mod.nonlinearity
                sub = type(mod)(width, mod.hidden_size, **kwargs).to(mod.weight_ih_l0.dtype)
                for name in sub._flat_weights_names:
                    setattr(sub, name, getattr(mod, name.replace("_l0", f"_l{layer}", 1)))
                sub.train(mod.training)
                subs.append(sub)
        return subs

    def __call__(self, input, hx=None):
        from torch.nn.utils.rnn import PackedSequence
        mod = self.mod
        if not mod.training or isinstance(input, PackedSequence):
            if mod.training and self.notes is not None:
                self.notes.append(f"{self.path}: packed sequences run in torch's kernel; its "
                                  f"dropout masks between layers are not replayed")
            return self.native(input, hx)
        if self.layers is None:
            self.layers = self._single_layers()
        k, self.calls = self.calls, self.calls + 1
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1)
        if mod.batch_first and batched:
            x = x.transpose(0, 1)
        states = _split_states(hx, mod, batched)
        outs = []
        for layer, sub in enumerate(self.layers):
            x, h = sub(x, states[layer] if states is not None else None)
            outs.append(h)
            if layer < mod.num_layers - 1:
                x = x * self._mask(x, k, layer) / (1.0 - float(mod.dropout))
        if mod.batch_first and batched:
            x = x.transpose(0, 1)
        return (x if batched else x.squeeze(1)), _join_states(outs, mod, batched)

    def _mask(self, x, k, layer):
        import torch
        key = (self.path, RNN_TAG, k, layer)
        if self.record:
            keep = torch.empty_like(x).bernoulli_(1.0 - float(self.mod.dropout)) != 0
            self.masks[key] = keep.detach().cpu().numpy()
        elif key not in self.masks:
            keep = torch.ones_like(x, dtype=torch.bool)
        else:
            keep = torch.from_numpy(self.masks[key])
        return keep.to(x.dtype)


def _split_states(hx, mod, batched):
    """Per layer: the initial state slice (a pair for LSTM), in batched layout; None: zeros."""
    import torch
    if hx is None:
        return None
    d = 2 if mod.bidirectional else 1
    pair = isinstance(mod, torch.nn.LSTM)
    parts = list(hx) if pair else [hx]
    if not batched:
        parts = [p.unsqueeze(1) for p in parts]
    out = []
    for layer in range(mod.num_layers):
        sl = [p[layer * d:(layer + 1) * d] for p in parts]
        out.append(tuple(sl) if pair else sl[0])
    return out


def _join_states(outs, mod, batched):
    import torch
    if isinstance(mod, torch.nn.LSTM):
        h, c = torch.cat([o[0] for o in outs]), torch.cat([o[1] for o in outs])
        return (h, c) if batched else (h.squeeze(1), c.squeeze(1))
    h = torch.cat(outs)
    return h if batched else h.squeeze(1)


def ms_rnn_masks(masks: dict, cell, is_dropout) -> dict:
    """The recorded RNN masks {(path, 'rnn', call, layer): mask} as dropout masks of the converted
    RNN cells' Dropout sub-cells {(sub-cell path, n): mask}, n counting that sub-cell's calls
    (`is_dropout(cell)` tells a dropout cell)."""
    by_path: dict = {}
    for key, mask in masks.items():
        if len(key) == 4 and key[1] == RNN_TAG:
            by_path.setdefault(key[0], []).append(((key[2], key[3]), mask))
    if not by_path:
        return {}
    cells = dict(cell.cells_and_names())
    out = {}
    for path, items in by_path.items():
        rnn = cells.get(path)
        if rnn is None:
            continue
        drops = [name for name, child in rnn.name_cells().items() if is_dropout(child)]
        if len(drops) != 1:
            continue
        sub = f"{path}.{drops[0]}" if path else drops[0]
        for n, (_, mask) in enumerate(sorted(items, key=lambda kv: kv[0])):
            out[(sub, n)] = np.asarray(mask)
    return out


def call_masks(masks: dict, path: str, k: int) -> dict:
    """{layer: mask} of one recorded call of the RNN at `path`."""
    return {key[3]: m for key, m in masks.items()
            if len(key) == 4 and key[1] == RNN_TAG and key[0] == path and key[2] == k}
