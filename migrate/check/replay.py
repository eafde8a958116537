"""Each layer on its own: the ms layer fed torch's recorded inputs (its local error), and its
backward fed torch's inputs and the same cotangent (its local gradient).

Local error of a layer = the ms layer fed torch's recorded inputs for that call, its sub-layers
replaced by torch's recorded outputs (so a composite layer's local error measures only its own
code, and every layer is run once in total), compared to torch's output. The inputs the ms
composite hands to its sub-layers are compared too: a wrong op between two sub-layers shows in
the composite, not in the sub-layer after it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .compare import TensorStats, as_array, compare, float64_explains, quick_pass
from .randomness import MsDrawReplay
from .reference import float_copy
from .rnn import call_masks
from .result import LocalGrad
from .run import (DropoutReplay, FunctionalMasks, TorchRecorder, flatten, has_random_masks,
                  is_torch, kwargs_for, ms_dropout_keep, one_line, restore_ms, restore_torch,
                  snapshot_ms, snapshot_torch, split_grads, torch_to_ms, worst_stats)
from .weights import as_torch_layout


# --- local forward: each layer on torch's inputs --------------------------------------------------

@dataclass
class LocalResult:
    """One layer replayed on torch's inputs: its output stats, why it fails, or what it raised;
    `value` is the ms layer's output when it failed the tolerance (for the float64 floor)."""

    stats: TensorStats | None
    input_note: str = ""
    error: str = ""
    value: object = None


def local_replay(torch_model, ms_cell, torch_rec: TorchRecorder, rtol, atol, masks=None,
                 only=None) -> dict:
    """(path, k) -> LocalResult: each ms layer fed torch's inputs, sub-layers replayed
    (`only`: the set of (path, k) to replay; None: every layer)."""
    ms_cells = dict(ms_cell.cells_and_names())
    results = {}
    for key in torch_rec.order:
        if only is not None and key not in only:
            continue
        cell = ms_cells.get(key[0])
        if cell is not None:
            results[key] = _replay_layer(key, cell, ms_cells, torch_rec, rtol, atol, masks)
    return results


def _replay_layer(key, cell, ms_cells, torch_rec, rtol, atol, masks) -> LocalResult:
    """Run one ms layer on torch's inputs for the call `key`, its sub-layers answering with
    torch's outputs; hooks, masks and sub-layers are put back afterwards."""
    call = torch_rec.calls[key]
    path, _ = key
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
    own = _own_masks(key, cell, masks)
    hooks = (dict(cell._forward_pre_hooks), dict(cell._forward_hooks))
    cell._forward_pre_hooks.clear()
    cell._forward_hooks.clear()
    functional = FunctionalMasks(call.fmasks, []).__enter__() \
        if masks is not None or call.fmasks else None
    draws = MsDrawReplay(call.draws, input_notes).__enter__() if call.draws else None
    try:
        out = cell(*torch_to_ms(call.inputs), **torch_to_ms(kwargs_for(cell, call.kwargs)))
        st = worst_stats(out, call.output, rtol, atol)
        uncalled = [c for c, n, replay in expected if replay.calls[0] < n]
        if uncalled and not st.passed:
            input_notes.append("the ms layer does not call its sub-layer(s) "
                               + ", ".join(f"'{c}'" for c in uncalled)
                               + " as torch does")
        return LocalResult(st, "; ".join(input_notes), value=None if st.passed else out)
    except Exception as exc:  # a layer that cannot even run on torch's inputs is the culprit
        return LocalResult(None, "; ".join(input_notes), one_line(exc))
    finally:
        if functional is not None:
            functional.__exit__(None, None, None)
        if draws is not None:
            draws.__exit__(None, None, None)
        cell._forward_pre_hooks.update(hooks[0])
        cell._forward_hooks.update(hooks[1])
        for child in installed:
            child.__dict__.pop("construct", None)
        if own is not None:
            own.remove()


def _own_masks(key, cell, masks):
    """The torch masks of this call replayed in the ms layer itself: a dropout cell's mask, or a
    multi-layer RNN's masks between its layers (through its Dropout sub-cell). None: none."""
    if masks is None or not cell.training:
        return None
    path, k = key
    if ms_dropout_keep(cell) is not None:
        own = DropoutReplay({(path, 0): masks.get(key)}, [])
        own.install(path, cell)
        return own
    layers = call_masks(masks, path, k)
    if not layers:
        return None
    drops = [name for name, child in cell.name_cells().items()
             if ms_dropout_keep(child) is not None]
    if len(drops) != 1:
        return None
    sub = f"{path}.{drops[0]}" if path else drops[0]
    own = DropoutReplay({(sub, n): layers[layer] for n, layer in enumerate(sorted(layers))}, [])
    own.install(sub, cell.name_cells()[drops[0]])
    return own


def _replayer(cpath, keys, torch_rec, rtol, atol, notes):
    """A construct for the sub-layer at `cpath` that answers its calls with torch's recorded
    outputs, noting where the inputs it is given differ from torch's."""
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


# --- local backward: each layer's VJP on torch's recorded inputs ---------------------------------

def local_grad_replay(torch_model, ms_cell, torch_rec, name_pairs, rtol, atol, seed=0):
    """Find the layer whose own backward is wrong: for leaves first, then composites whose
    sub-layers all pass, compare torch's VJP (w.r.t. inputs and the layer's own parameters) with
    ms_core's, on torch's recorded inputs and one random cotangent. Returns LocalGrad rows in
    execution order, stopping at the first failure. Layers containing dropout (in training
    mode) or random draws are skipped (a re-run of torch's layer would draw new ones)."""
    ms_cells = dict(ms_cell.cells_and_names())
    torch_mods = dict(torch_model.named_modules())
    to_ms = dict(name_pairs)
    rows, passed = [], set()
    rng = np.random.default_rng(seed + 77)
    for key in torch_rec.order:
        sub = _subtree(torch_rec, key)
        if any(k not in passed for k in sub):
            continue  # a sub-layer failed (or was skipped): that is the place to look
        mod, cell = torch_mods.get(key[0]), ms_cells.get(key[0])
        if mod is None or cell is None or \
                any(has_random_masks(torch_mods[k[0]]) or torch_rec.calls[k].draws
                    for k in sub + [key]):
            continue  # a re-run would draw other random numbers
        row = _layer_backward(key, torch_rec.calls[key], mod, cell, to_ms, rng, rtol, atol)
        if row is not None:
            rows.append(row)
            if not row.passed:
                break
        passed.add(key)
    return rows


def _subtree(rec, key):
    out, todo = [], list(rec.calls[key].children)
    while todo:
        k = todo.pop()
        out.append(k)
        todo.extend(rec.calls[k].children)
    return out


def _layer_backward(key, call, mod, cell, to_ms, rng, rtol, atol) -> LocalGrad | None:
    """The VJPs of one layer pair on torch's inputs for `call` (None: nothing to differentiate);
    the layers' buffers are restored afterwards."""
    import torch
    t_in = list(call.inputs)
    pos = [i for i, x in enumerate(t_in) if is_torch(x) and x.is_floating_point()]
    for i in pos:
        t_in[i] = t_in[i].detach().clone().requires_grad_(True)
    pairs = _parameter_pairs(key[0], mod, cell, to_ms)
    state = snapshot_torch(mod, buffers_only=True)
    m_state = snapshot_ms(cell, buffers_only=True)
    try:
        with torch.enable_grad():
            out = mod(*t_in, **call.kwargs)
        outs = [o for o in flatten(out) if o.is_floating_point() and o.requires_grad]
        if not outs:
            return None
        vs = [rng.standard_normal(tuple(o.shape)).astype(np.float32) for o in outs]
        targets = [t_in[i] for i in pos] + [p for _, p, _ in pairs]
        tg = torch.autograd.grad(outs, targets, [torch.from_numpy(v).to(o.dtype)
                                                 for v, o in zip(vs, outs)], allow_unused=True)
        weights = [mp for _, _, mp in pairs]
        if not pos and not weights:
            return None
        g_in, g_w = _ms_vjp(cell, call, pos, weights, vs)
        stats = _vjp_stats(pos, pairs, t_in, tg, g_in, g_w, rtol, atol)
        if not all(st.passed for st in stats.values()):
            try:
                _explain_vjp(stats, key[0], mod, call, pos, pairs, vs, tg, g_in, g_w)
            except Exception:  # noqa: BLE001 (no float64 copy of this layer: no floor for it)
                pass
        return LocalGrad(key, stats)
    except Exception as exc:  # the ms layer cannot be differentiated on torch's inputs
        return LocalGrad(key, {}, one_line(exc))
    finally:
        restore_torch(mod, state)
        restore_ms(cell, m_state)


def _explain_vjp(stats, path, mod, call, pos, pairs, vs, tg, g_in, g_w) -> None:
    """Accept the VJPs that float32 rounding explains: the torch layer in float64 on the same
    inputs and cotangent (see :func:`~migrate.check.compare.float64_explains`)."""
    import torch
    mod64 = float_copy(mod, torch.float64)
    t_in = [x.detach().to(torch.float64).requires_grad_(True) if i in pos else
            (x.to(torch.float64) if is_torch(x) and x.is_floating_point() else x)
            for i, x in enumerate(call.inputs)]
    own = dict(mod64.named_parameters())
    prefix = len(path) + 1 if path else 0
    params64 = [own[full[prefix:]] for full, _, _ in pairs]
    kwargs = {k: v.to(torch.float64) if is_torch(v) and v.is_floating_point() else v
              for k, v in call.kwargs.items()}
    with torch.enable_grad():
        outs = [o for o in flatten(mod64(*t_in, **kwargs)) if o.is_floating_point() and
                o.requires_grad]
    g64 = torch.autograd.grad(outs, [t_in[i] for i in pos] + params64,
                              [torch.from_numpy(v).to(torch.float64) for v in vs],
                              allow_unused=True)
    names = [f"input[{i}]" for i in pos] + [full for full, _, _ in pairs]
    ms_values = list(g_in) + [as_array(g) for g in g_w]
    for j, name in enumerate(names):
        st = stats[name]
        if st.passed or g64[j] is None or tg[j] is None:
            continue
        shape = tuple(tg[j].shape)
        float64_explains(st, as_torch_layout(as_array(ms_values[j]), shape), tg[j], g64[j])


def _parameter_pairs(path, mod, cell, to_ms) -> list:
    """(full torch name, torch parameter, ms parameter) of the layer's own trainable parameters,
    aligned through the weight map (full names on both sides)."""
    t_params = [(n, p) for n, p in mod.named_parameters() if p.requires_grad]
    m_named = [(n, p) for n, p in cell.parameters_and_names() if p.requires_grad]
    m_by_full = {(f"{path}.{n}" if path else n): p for n, p in m_named}
    pairs = []
    for n, p in t_params:
        full = f"{path}.{n}" if path else n
        mp = m_by_full.get(to_ms.get(full, ""))
        if mp is not None:
            pairs.append((full, p, mp))
    return pairs


def _ms_vjp(cell, call, pos, weights, vs):
    """ms_core's VJP of the layer with cotangents `vs`: (input gradients, weight gradients)."""
    import ms_core

    def fn(*xs):
        o = cell(*xs, **torch_to_ms(kwargs_for(cell, call.kwargs)))
        fl = [t for t in flatten(o) if as_array(t).dtype.kind == "f"]
        total = None
        for t, v in zip(fl, vs):
            term = (t * ms_core.Tensor(v.astype(as_array(t).dtype))).sum()
            total = term if total is None else total + term
        return total

    vg = ms_core.value_and_grad(fn, tuple(pos) if pos else None, weights if weights else None)
    _, mg = vg(*[torch_to_ms(x) for x in call.inputs])
    return split_grads(mg, bool(pos), bool(weights))


def _vjp_stats(pos, pairs, t_in, tg, g_in, g_w, rtol, atol) -> dict:
    """name ('input[i]' or torch parameter name) -> TensorStats of ms's VJP against torch's."""
    import torch
    stats = {}
    for j, i in enumerate(pos):
        tv = tg[j] if tg[j] is not None else torch.zeros_like(t_in[i])
        stats[f"input[{i}]"] = compare(g_in[j], tv, rtol, atol)
    for j, (full, p, _) in enumerate(pairs):
        tv = tg[len(pos) + j]
        tv = tv if tv is not None else torch.zeros_like(p)
        stats[full] = compare(as_torch_layout(as_array(g_w[j]), tuple(tv.shape)), tv, rtol, atol)
    return stats
