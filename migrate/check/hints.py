"""Likely causes: when a layer, a parameter or a BatchNorm's statistics differ, what in the
conversion probably did it (read from the two layers' arguments and values)."""
from __future__ import annotations

from .result import ROOT
from .run import ms_dropout_keep


def layer_hint(torch_module, ms_cell, path) -> str:
    """A likely cause for a layer pair whose own outputs differ, from their arguments."""
    import torch
    mod = dict(torch_module.named_modules()).get(path)
    cell = dict(ms_cell.cells_and_names()).get(path)
    if mod is None or cell is None:
        return ""
    if isinstance(mod, torch.nn.modules.dropout._DropoutNd):
        keep = ms_dropout_keep(cell)
        if keep is not None and abs(keep - (1.0 - mod.p)) > 1e-9:
            return (f"torch p={mod.p:g} is the probability to DROP; the ms layer keeps with "
                    f"probability {keep:g}, it needs keep_prob={1.0 - mod.p:g} (or p={mod.p:g})")
    if isinstance(mod, torch.nn.RNNBase):
        p_ms = getattr(cell, "dropout", None)
        if isinstance(p_ms, (int, float)) and abs(float(p_ms) - float(mod.dropout)) > 1e-9:
            return (f"torch drops between the RNN's layers with p={mod.dropout:g}, the ms layer "
                    f"with dropout={float(p_ms):g} (both are the probability to drop)")
    pooling = torch.nn.modules.pooling
    if isinstance(mod, (pooling._MaxPoolNd, pooling._AvgPoolNd)):
        pad_mode = getattr(cell, "pad_mode", None)
        pads = mod.padding if isinstance(mod.padding, (tuple, list)) else (mod.padding,)
        if pad_mode == "same":
            return ("ms pad_mode='same' pads TF-style (the odd extra at the bottom/right"
                    + (", and AvgPool 'same' divides by the real elements only" if
                       isinstance(mod, pooling._AvgPoolNd) else "")
                    + f"); torch pads {tuple(pads)} on both sides: use "
                    + (f"pad_mode='pad', padding={pads[0]}" if any(pads) else "pad_mode='valid'"))
        ms_cip = getattr(cell, "count_include_pad", None)
        if isinstance(mod, pooling._AvgPoolNd) and any(pads) and ms_cip is not None and \
                bool(ms_cip) != bool(mod.count_include_pad):
            return (f"count_include_pad: torch {mod.count_include_pad}, ms {ms_cip} (the "
                    f"border averages divide by a different count)")
    if isinstance(mod, torch.nn.modules.conv._ConvNd):
        pad_mode = getattr(cell, "pad_mode", None)
        stride = tuple(mod.stride)
        if pad_mode == "same" and isinstance(mod.padding, tuple) and any(mod.padding) and \
                any(s > 1 for s in stride):
            return (f"ms pad_mode='same' pads TF-style (the odd extra row/column at the "
                    f"bottom/right) with stride {stride}, torch pads {mod.padding} on both "
                    f"sides: use pad_mode='pad', padding={mod.padding[0]}")
    return ""


def momentum_hints(torch_module, ms_cell, tr):
    """BatchNorm layers whose ms momentum is not 1 - torch's (the classic missed inversion)."""
    import torch
    cells = dict(ms_cell.cells_and_names())
    for path, mod in torch_module.named_modules():
        if not isinstance(mod, torch.nn.modules.batchnorm._BatchNorm) or mod.momentum is None:
            continue
        # As in MindSpore, the cell's `momentum` attribute holds 1 - the constructor argument.
        attr = getattr(cells.get(path), "momentum", None)
        if not isinstance(attr, (int, float)):
            continue
        m_ms = 1.0 - float(attr)
        if abs((1.0 - mod.momentum) - m_ms) > 1e-6:
            tr.hints[path or ROOT] = (
                f"BatchNorm momentum: torch {mod.momentum:g} weighs the new batch, MindSpore's "
                f"weighs the old value, so the ms layer needs momentum={1.0 - mod.momentum:g}, "
                f"but has {m_ms:g}")


def init_hint(ks) -> str:
    """Name MindSpore's own defaults when the ms values look like them."""
    if ks.n_ms >= 16 and abs(ks.ms_mean) < 0.005 and abs(ks.ms_std - 0.01) < 0.002:
        return ("; the ms values look like MindSpore's default 'normal' (sigma 0.01): the "
                "initializer was not carried over (torch's default is HeUniform(sqrt(5)) for "
                "weights, Uniform(1/sqrt(fan_in)) for biases)")
    if ks.ms_std == 0.0 and ks.torch_std > 0.0:
        return (f"; the ms values are the constant {ks.ms_mean:.3g} (MindSpore's default "
                f"'zeros' for biases?) where torch draws random values")
    return ""
