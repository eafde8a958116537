"""Weight conversion torch -> ms_core (and back) by a name and layout map.

The map is what the conversion does to each layer: a torch module at path ``P`` becomes an ms
cell at the same path ``P`` (the converter keeps attribute names), and each of its parameters
and buffers is renamed by the layer's class:

=====================  ==========================================  ==============================
torch layer            torch name                                  ms_core / MindSpore name
=====================  ==========================================  ==============================
BatchNorm1d/2d/3d      weight, bias, running_mean, running_var     gamma, beta, moving_mean,
                                                                   moving_variance (BatchNorm3d:
                                                                   bn2d.gamma, ... as MindSpore)
                       num_batches_tracked                         (dropped: MindSpore keeps no
                                                                   counter; noted)
LayerNorm, GroupNorm   weight, bias                                gamma, beta
Embedding              weight                                      embedding_table
PReLU                  weight                                      w
weight-normalised      weight_g, weight_v; parametrizations.       weight_g, weight_v
                       weight.original0, original1
Linear, Conv*, other   weight, bias, ...                           unchanged
=====================  ==========================================  ==============================

Layouts need no change: torch Linear (out, in) == Dense (out, in); Conv OIHW on both sides;
ConvTranspose (in, out/groups, kh, kw) on both sides. Shapes that differ only by size-1 axes are
reshaped (MindSpore's Conv1d is a Conv2d of height 1: weight (out, in, 1, k) for torch's
(out, in, k)); any other shape difference fails (a transposed weight is never "fixed"). Every parameter and buffer on
both sides
is accounted for: what is not mapped is listed in :class:`TransferReport` and fails the check.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import asdict, dataclass, field

import numpy as np

# torch class name -> {torch local name: ms local name (None = dropped)}, matched along the MRO,
# so user subclasses of a torch layer get the layer's renames (one table with ms.hub's)
from ms_core.hub import TORCH_RENAMES as _RENAMES

_DROP_NOTES = {
    "num_batches_tracked": "dropped: MindSpore BatchNorm keeps no step counter (only used by "
                           "torch when momentum=None, which the converter refuses)",
}
# Reverse lookups for a state dict without a model: a prefix with these siblings is a BatchNorm.
_BN_MARKERS = ("running_mean", "running_var")


@dataclass
class WeightEntry:
    """One mapped tensor: torch name -> ms name, shape, and what was done."""

    torch_name: str
    ms_name: str | None
    shape: list
    action: str  # copied | renamed | reshaped | dropped | matched-by-shape | shape-mismatch
    note: str = ""


@dataclass
class TransferReport:
    """The outcome of mapping every parameter and buffer of both models.

    Attributes:
        entries: one per torch tensor (copied, renamed, dropped, or failed).
        unmapped_torch: torch names with no ms counterpart.
        unmapped_ms: ms parameter names that received nothing.
        notes: remarks (dropped counters, shape-matched fallbacks).
    """

    entries: list = field(default_factory=list)
    unmapped_torch: list = field(default_factory=list)
    unmapped_ms: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every tensor on both sides is accounted for and shapes agree."""
        return (not self.unmapped_torch and not self.unmapped_ms
                and not any(e.action == "shape-mismatch" for e in self.entries))

    def pairs(self) -> list[tuple[str, str]]:
        """(torch name, ms name) of every tensor that was transferred."""
        return [(e.torch_name, e.ms_name) for e in self.entries
                if e.ms_name is not None and e.action != "shape-mismatch"]

    def problems(self) -> list[str]:
        """Human-readable lines for everything that fails the transfer."""
        out = [f"torch '{n}' has no counterpart in the converted model"
               for n in self.unmapped_torch]
        out += [f"converted model parameter '{n}' received no torch value"
                for n in self.unmapped_ms]
        out += [f"'{e.torch_name}' -> '{e.ms_name}': {e.note}" for e in self.entries
                if e.action == "shape-mismatch"]
        return out

    def to_dict(self) -> dict:
        return {"ok": self.ok, "entries": [asdict(e) for e in self.entries],
                "unmapped_torch": list(self.unmapped_torch), "unmapped_ms": list(self.unmapped_ms),
                "notes": list(self.notes)}


def _rename_table(module) -> dict:
    for klass in type(module).__mro__:
        table = _RENAMES.get(klass.__name__)
        if table is not None and klass.__module__.startswith("torch."):
            return table
    return {}


def ms_path(torch_module, path: str) -> str:
    """The ms module path of torch module path `path` (children renamed where MindSpore
    names them differently: the rename table's entries for the class that holds them, a
    Transformer layer's linear1 is MindSpore's dense1)."""
    if not path:
        return path
    mod, out = torch_module, []
    for part in path.split("."):
        renamed = _rename_table(mod).get(part) if mod is not None else None
        out.append(renamed if isinstance(renamed, str) and "." not in renamed else part)
        mod = mod._modules.get(part) if mod is not None else None
    return ".".join(out)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def torch_tensors(module) -> list[tuple[str, str, str, object, bool]]:
    """Every parameter and buffer of a torch module: (full name, module path, local name,
    tensor, is_persistent), each tensor once, in module order."""
    out, seen = [], set()
    for path, mod in module.named_modules():
        non_persistent = getattr(mod, "_non_persistent_buffers_set", set())
        # the module's own dicts: named_parameters(recurse=False) walks the tree to find them
        items = [(n, t, True) for n, t in mod._parameters.items()]
        items += [(n, t, n not in non_persistent) for n, t in mod._buffers.items()]
        for local, t, persistent in items:
            if t is None or id(t) in seen:
                continue
            seen.add(id(t))
            out.append((_join(path, local), path, local, t, persistent))
    return out


def ms_parameters(cell) -> dict:
    """ms parameter path -> Parameter (paths as `parameters_and_names()` gives them)."""
    return dict(cell.parameters_and_names())


def map_names(torch_module, ms_cell, name_map: dict | None = None) -> TransferReport:
    """Work out which ms parameter receives each torch parameter/buffer (nothing is copied).

    Args:
        torch_module: the reference `torch.nn.Module`.
        ms_cell: the converted `ms_core.nn.Cell`.
        name_map: optional overrides {torch name: ms name or None (drop on purpose)}.

    Returns:
        A :class:`TransferReport` with `entries` whose `ms_name` is set where a target exists.
    """
    name_map = dict(name_map or {})
    ms_params = ms_parameters(ms_cell)
    ms_cells = dict(ms_cell.cells_and_names())
    taken: set = set()
    rep = TransferReport()
    pending = []  # (entry, module path, torch tensor) not matched by name: matched by shape later
    for full, path, local, t, persistent in torch_tensors(torch_module):
        shape = list(t.shape)
        if full in name_map:
            target = name_map[full]
            if target is None:
                rep.entries.append(WeightEntry(full, None, shape, "dropped", "dropped by name_map"))
                continue
            action, note = "renamed", "from name_map"
        else:
            path, local = _unparametrized(torch_module, path, local)
            table = _rename_table(_module_at(torch_module, path))
            path = ms_path(torch_module, path)
            if local in table and table[local] is None:
                note = _DROP_NOTES.get(local, "dropped: no MindSpore counterpart")
                rep.entries.append(WeightEntry(full, None, shape, "dropped", note))
                if f"{local}: {note}" not in rep.notes:
                    rep.notes.append(f"{local}: {note}")
                continue
            target = _join(path, table.get(local, local))
            action = "renamed" if target != full else "copied"
            note = ""
        if target not in ms_params:
            listed = _listed_under(ms_cells, ms_params, target)
            if listed is not None:
                target, note = listed, f"the Parameter at '{target}', which MindSpore lists once, as '{listed}'"
        if target in ms_params and target not in taken:
            taken.add(target)
            e = WeightEntry(full, target, shape, action, note)
            ms_shape = list(ms_params[target].shape)
            if ms_shape != shape and not (int(np.prod(ms_shape)) == int(np.prod(shape)) == 1):
                if same_layout(shape, ms_shape):
                    # e.g. MindSpore's Conv1d is a Conv2d of height 1: weight (out, in, 1, k)
                    e.action = "reshaped"
                    e.note = (f"layout: torch {shape} -> ms {ms_shape} (size-1 axes only; the "
                              f"values keep their order)")
                else:
                    e.action, e.note = "shape-mismatch", f"torch {shape} vs ms {ms_shape}"
            rep.entries.append(e)
            continue
        # A plain Tensor attribute of the ms cell (a torch buffer converted to a constant).
        cell = ms_cells.get(path)
        attr = target.rsplit(".", 1)[-1]
        if cell is not None and _parent(target) == path and \
                _is_ms_tensor(getattr(cell, attr, None)):
            rep.entries.append(WeightEntry(full, target, shape, "tensor-attribute",
                                           f"ms '{attr}' is a Tensor attribute, not a Parameter"))
            continue
        if not persistent:
            rep.entries.append(WeightEntry(full, None, shape, "dropped",
                                           "non-persistent torch buffer (not part of the state)"))
            continue
        pending.append((WeightEntry(full, None, shape, "unmapped"), path, t))
    _match_by_shape(pending, ms_params, taken, rep)
    received = {id(ms_params[n]) for n in taken if n in ms_params}
    received |= {id(getattr(ms_cells[_parent(e.ms_name)], e.ms_name.rsplit(".", 1)[-1]))
                 for e in rep.entries if e.action == "tensor-attribute"}
    _account_ms(torch_module, ms_params, taken, rep, received)
    return rep


def _listed_under(ms_cells, ms_params, target: str) -> str | None:
    """The name ``parameters_and_names()`` gives the Parameter the cell at ``target``'s parent holds
    under ``target``'s last part, when that is another name (a Parameter held by two cells,
    ``self.degrees = self.linear.degrees``: MindSpore 2.10 lists it once, under the first path
    it meets); None otherwise."""
    cell = ms_cells.get(_parent(target))
    held = getattr(cell, target.rsplit(".", 1)[-1], None) if cell is not None else None
    if held is None:
        return None
    return next((n for n, q in ms_params.items() if q is held), None)


def _match_by_shape(pending, ms_params, taken, rep) -> None:
    """Fallback: within the same layer, a unique shape match (e.g. a custom layer whose parameter
    was renamed by hand). Reported, since a name we did not predict deserves a look."""
    for e, path, t in pending:
        cands = [n for n, p in ms_params.items() if n not in taken and _parent(n) == path
                 and list(p.shape) == e.shape]
        if len(cands) == 1:
            taken.add(cands[0])
            e.ms_name, e.action = cands[0], "matched-by-shape"
            e.note = "no name match; the only same-shape parameter of the same layer"
            rep.notes.append(f"'{e.torch_name}' -> '{cands[0]}' matched by shape within the layer")
            rep.entries.append(e)
        else:
            rep.unmapped_torch.append(e.torch_name)
            rep.entries.append(e)


def _account_ms(torch_module, ms_params, taken, rep, received: set) -> None:
    """List the ms parameters that received nothing, except constant affine ones and the ones
    that received their value under another path (``received``: their ids), noted."""
    for n in ms_params:
        if n in taken:
            continue
        if id(ms_params[n]) in received:  # one Parameter under two paths (`self.d = self.linear.d`, tied weights)
            rep.notes.append(f"'{n}' is a parameter that received its value under another name")
            continue
        if _fixed_affine(torch_module, ms_params[n], n):
            rep.notes.append(f"'{n}' has no torch counterpart: the torch layer has no affine "
                             f"parameters and MindSpore keeps it constant (requires_grad=False)")
            continue
        rep.unmapped_ms.append(n)


def _fixed_affine(torch_module, param, name: str) -> bool:
    """An ms gamma (all ones) or beta (all zeros) with requires_grad=False whose torch layer was
    built with affine=False: MindSpore's norm layers keep them as constants, which computes
    what torch's layer without affine parameters does."""
    local = name.rsplit(".", 1)[-1]
    if local not in ("gamma", "beta") or getattr(param, "requires_grad", True):
        return False
    try:
        mod = _module_at(torch_module, _parent(name))
    except AttributeError:
        return False
    if getattr(mod, "affine", getattr(mod, "elementwise_affine", True)):
        return False
    value = np.asarray(param.asnumpy())
    return bool(np.all(value == (1.0 if local == "gamma" else 0.0)))


# torch.nn.utils.parametrizations keep a parametrized tensor's originals in
# `<module>.parametrizations.<name>.original<i>`; ms_core's nn.utils.weight_norm keeps them as
# `<module>.<name>_g` / `<name>_v`, the names of torch's older torch.nn.utils.weight_norm
_PARAMETRIZATION_NAMES = {"_WeightNorm": ("_g", "_v")}


def _unparametrized(torch_module, path: str, local: str) -> tuple[str, str]:
    """(module path, local name) of a parametrization's original on the ms side:
    `c.parametrizations.weight` / `original0` -> `c` / `weight_g` for a weight norm."""
    head, sep, name = path.rpartition(".parametrizations.")
    if not sep and path.startswith("parametrizations."):
        head, name = "", path[len("parametrizations."):]
    elif not sep:
        return path, local
    # the parametrizations are the list's child modules (torch 2.13's ParametrizationList has no
    # len(); the bench's stand-in of a torch module has _modules only)
    plist = [m for m in _module_at(torch_module, path)._modules.values() if m is not None]
    kind = type(plist[0]).__name__ if len(plist) == 1 else None
    suffixes = _PARAMETRIZATION_NAMES.get(kind)
    if suffixes is None or not local.startswith("original") or not local[8:].isdigit():
        return path, local
    index = int(local[8:])
    return head, name + suffixes[index] if index < len(suffixes) else local


def same_layout(torch_shape, ms_shape) -> bool:
    """True when the two shapes differ only by size-1 axes (a reshape keeps every value's
    meaning): torch Conv1d (out, in, k) vs MindSpore Conv1d (out, in, 1, k)."""
    return [d for d in torch_shape if d != 1] == [d for d in ms_shape if d != 1]


def as_torch_layout(ms_value, torch_shape):
    """An ms array in torch's shape when the two layouts differ by size-1 axes only."""
    arr = np.asarray(ms_value)
    if tuple(arr.shape) != tuple(torch_shape) and same_layout(list(torch_shape), list(arr.shape)):
        return arr.reshape(tuple(torch_shape))
    return arr


def _parent(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _module_at(root, path):
    return root.get_submodule(path) if path else root


def _is_ms_tensor(x) -> bool:
    return x is not None and hasattr(x, "asnumpy") and hasattr(x, "_data")


def transfer(torch_module, ms_cell, name_map: dict | None = None,
             strict: bool = False, report: TransferReport | None = None) -> TransferReport:
    """Copy every torch parameter and buffer into the converted model.

    Args:
        torch_module: the reference `torch.nn.Module` (its values are read, never changed).
        ms_cell: the converted `ms_core.nn.Cell` (its Parameters are set in place).
        name_map: optional {torch name: ms name or None} overrides.
        strict: raise ValueError when the report is not ok.
        report: the name map of these two models when already computed (``map_names``).

    Returns:
        The :class:`TransferReport` (check `.ok`; unmapped names on either side fail it).

    Raises:
        ValueError: with `strict=True`, listing every problem.

    Example:
        >>> import torch, ms_core
        >>> rep = transfer(torch.nn.BatchNorm2d(3), ms_core.nn.BatchNorm2d(3))
        >>> rep.ok, rep.pairs()[0], [e.action for e in rep.entries][-1]
        (True, ('weight', 'gamma'), 'dropped')
    """
    rep = report if report is not None else map_names(torch_module, ms_cell, name_map)
    ms_params = ms_parameters(ms_cell)
    ms_cells = dict(ms_cell.cells_and_names())
    tensors = {full: t for full, _, _, t, _ in torch_tensors(torch_module)}
    for e in rep.entries:
        if e.ms_name is None or e.action == "shape-mismatch":
            continue
        value = tensors[e.torch_name].detach().cpu().numpy()
        if e.action == "tensor-attribute":
            path, attr = e.ms_name.rsplit(".", 1) if "." in e.ms_name else ("", e.ms_name)
            cell = ms_cells[path]
            old = getattr(cell, attr)
            old._data = value.astype(old._data.dtype).reshape(old._data.shape).copy()
            continue
        p = ms_params[e.ms_name]
        p.set_data(value.reshape(p.shape))  # one copy (set_data never aliases the array given)
    if strict and not rep.ok:
        raise ValueError("weight transfer failed:\n  " + "\n  ".join(rep.problems()))
    return rep


def transfer_back(ms_cell, torch_module, name_map: dict | None = None) -> TransferReport:
    """Copy the converted model's values into the torch model (the reverse direction)."""
    import torch
    rep = map_names(torch_module, ms_cell, name_map)
    ms_params = ms_parameters(ms_cell)
    tensors = {full: t for full, _, _, t, _ in torch_tensors(torch_module)}
    with torch.no_grad():
        for e in rep.entries:
            if e.ms_name in ms_params and e.action != "shape-mismatch":
                t = tensors[e.torch_name]
                t.copy_(torch.from_numpy(np.ascontiguousarray(ms_params[e.ms_name].asnumpy())
                                         .reshape(t.shape)).to(t.dtype))
    return rep


# --- state dicts and checkpoint files -----------------------------------------------------------

def state_dict_to_ms(state_dict: dict, torch_module=None, ms_cell=None,
                     name_map: dict | None = None) -> tuple[dict, list[str]]:
    """Rename a torch state dict to ms_core names: ({ms name: array}, notes).

    With `torch_module` the renames come from each layer's class (exact); without it, a prefix
    that has `running_mean`/`running_var` is taken for a BatchNorm (weight/bias -> gamma/beta),
    and everything else keeps its name (an Embedding's `weight` cannot be told from a Linear's
    without the model: pass `torch_module` or `name_map` for models with Embedding/LayerNorm/PReLU).
    """
    notes = []
    name_map = dict(name_map or {})
    out = {}
    if torch_module is not None and ms_cell is not None:
        rep = map_names(torch_module, ms_cell, name_map)
        for e in rep.entries:
            if e.ms_name is not None and e.torch_name in state_dict:
                value = _np(state_dict[e.torch_name])
                ms_shape = tuple(ms_parameters(ms_cell)[e.ms_name].shape) \
                    if e.action == "reshaped" else value.shape
                out[e.ms_name] = value.reshape(ms_shape)
        notes += rep.notes + rep.problems()
        return out, notes
    tables = {}
    if torch_module is not None:
        for path, mod in torch_module.named_modules():
            tables[path] = _rename_table(mod)
    prefixes = {k.rsplit(".", 1)[0] if "." in k else "" for k in state_dict}
    for key, value in state_dict.items():
        if key in name_map:
            if name_map[key] is not None:
                out[name_map[key]] = _np(value)
            continue
        prefix, local = key.rsplit(".", 1) if "." in key else ("", key)
        if torch_module is not None:
            table = tables.get(prefix, {})
        elif prefix in prefixes and all(_join(prefix, m) in state_dict for m in _BN_MARKERS):
            table = _RENAMES["_BatchNorm"]
        else:
            table = {}
        if local in table and table[local] is None:
            note = f"'{key}' {_DROP_NOTES.get(local, 'dropped')}"
            notes.append(note)
            continue
        out[_join(prefix, table.get(local, local))] = _np(value)
    return out, notes


def state_dict_to_torch(ms_state: dict, torch_module=None, name_map: dict | None = None) -> dict:
    """The reverse rename: {ms name: array} -> {torch name: torch.Tensor}.

    BatchNorm's `num_batches_tracked` is restored as 0 when the model is given (torch needs it
    to load the state dict strictly).
    """
    import torch
    inverse = {v: k for k, v in (name_map or {}).items() if v is not None}
    out = {}
    tables = {}
    if torch_module is not None:
        for path, mod in torch_module.named_modules():
            tables[path] = _rename_table(mod)
    for key, value in ms_state.items():
        if key in inverse:
            out[inverse[key]] = torch.from_numpy(np.array(_np(value)))
            continue
        prefix, local = key.rsplit(".", 1) if "." in key else ("", key)
        table = tables.get(prefix)
        if table is None:
            bn = local in ("gamma", "beta", "moving_mean", "moving_variance")
            table = _RENAMES["_BatchNorm"] if bn else {}
            if local == "embedding_table":
                table = _RENAMES["Embedding"]
        back = {v: k for k, v in table.items() if v is not None}
        out[_join(prefix, back.get(local, local))] = torch.from_numpy(np.array(_np(value)))
    if torch_module is not None:
        for full, _, local, t, _ in torch_tensors(torch_module):
            if local == "num_batches_tracked" and full not in out:
                out[full] = torch.zeros_like(t)
            elif full in out and tuple(out[full].shape) != tuple(t.shape) and \
                    same_layout(list(t.shape), list(out[full].shape)):
                out[full] = out[full].reshape(tuple(t.shape))  # Conv1d (out, in, 1, k) -> 3-D
    return out


def _np(v) -> np.ndarray:
    if hasattr(v, "asnumpy"):  # ms_core Tensor (it has a detach() too: test this first)
        return v.asnumpy()
    if hasattr(v, "detach"):
        return v.detach().cpu().numpy()
    return np.asarray(v)


def load_torch_state(path: str) -> dict:
    """Load a `.pth`/`.pt` state dict safely (`torch.load(weights_only=True)`: never unpickles
    arbitrary objects). A saved whole model is refused with the reason."""
    import torch
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:  # torch raises UnpicklingError / RuntimeError with long texts
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"cannot load '{path}' with weights_only=True (a whole pickled model or a "
                         f"non-torch file is refused for safety): {first}") from None
    if isinstance(obj, dict) and "state_dict" in obj and isinstance(obj["state_dict"], dict):
        obj = obj["state_dict"]
    if not isinstance(obj, dict) or not all(hasattr(v, "shape") for v in obj.values()):
        raise ValueError(f"'{path}' does not hold a state dict (name -> tensor)")
    return dict(obj)


# The checkpoint writer/reader: ms_core's own save_checkpoint/load_checkpoint when they exist,
# else a NumPy .npz stand-in with the same {name: array} content (switch in one place).
def save_ms_checkpoint(params: dict, path: str) -> None:
    """Write {name: array} as an ms_core checkpoint, atomically (nothing half-written)."""
    import ms_core
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".ckpt-", suffix=os.path.splitext(path)[1] or ".ckpt",
                               dir=directory)
    os.close(fd)
    try:
        save = getattr(ms_core, "save_checkpoint", None)
        if save is not None:
            save([{"name": n, "data": ms_core.Tensor(np.ascontiguousarray(v))}
                  for n, v in params.items()], tmp)
        else:
            with open(tmp, "wb") as f:
                np.savez(f, **{n: np.ascontiguousarray(v) for n, v in params.items()})
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_ms_checkpoint(path: str) -> dict:
    """Read an ms_core checkpoint into {name: array}."""
    import ms_core
    with open(path, "rb") as f:
        head = f.read(4)
    if head.startswith(b"PK"):  # the .npz stand-in (written when ms_core had no checkpoints)
        with np.load(path, allow_pickle=False) as z:
            return {n: z[n] for n in z.files}
    load = getattr(ms_core, "load_checkpoint", None)
    if load is None:
        raise ValueError(f"'{path}' is not a checkpoint this ms_core can read")
    return {n: _np(v) for n, v in load(path).items()}


def save_torch_state(state: dict, path: str) -> None:
    """Write a torch state dict atomically."""
    import torch
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".pth-", suffix=".pth", dir=directory)
    os.close(fd)
    try:
        torch.save(state, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def convert_file(src: str, dst: str, torch_module=None, ms_cell=None,
                 name_map: dict | None = None) -> list[str]:
    """`migrate weights`: convert a torch state-dict file to an ms_core checkpoint, or back.

    The direction is taken from the extensions: `.pth`/`.pt`/`.bin` -> `.ckpt`, and `.ckpt` ->
    `.pth`/`.pt`. Returns the notes (dropped counters, renames that could not be verified).

    Raises:
        ValueError: unsafe or unreadable input, unknown direction, or names that do not map
            onto the given model.
    """
    s_ext, d_ext = os.path.splitext(src)[1].lower(), os.path.splitext(dst)[1].lower()
    torch_exts = (".pth", ".pt", ".bin")
    if s_ext in torch_exts and d_ext not in torch_exts:
        state = load_torch_state(src)
        params, notes = state_dict_to_ms(state, torch_module, ms_cell, name_map)
        if ms_cell is not None and torch_module is not None:
            rep = map_names(torch_module, ms_cell, name_map)
            missing = [n for n in state if n not in {e.torch_name for e in rep.entries}]
            if rep.problems() or missing:
                raise ValueError("the state dict does not map onto the model:\n  "
                                 + "\n  ".join(rep.problems() + [f"'{m}' is not in the model"
                                                                  for m in missing]))
        save_ms_checkpoint(params, dst)
        return notes
    if s_ext == ".ckpt" or (s_ext not in torch_exts and d_ext in torch_exts):
        if not os.path.exists(src):
            raise FileNotFoundError(src)
        state = state_dict_to_torch(load_ms_checkpoint(src), torch_module, name_map)
        save_torch_state(state, dst)
        return []
    raise ValueError(f"cannot tell the direction from '{src}' -> '{dst}': use .pth/.pt for torch "
                     f"and .ckpt for ms_core")
