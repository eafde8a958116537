"""Pretrained torch weights for converted models, without torch (an ms_core extension: MindSpore
2.10 has no counterpart, so the converter uses it for the ms_core target only).

- :func:`load_state_dict_from_url` downloads a checkpoint once into a cache directory (torch's
  own, ``$TORCH_HOME/hub/checkpoints``, so files torch fetched are reused) and reads it with
  :func:`~ms_core.train.torch_format.load_torch_checkpoint` (no pickle code is ever run).
- :func:`load` reads a ``torch.save`` file the same way, and what :func:`save` wrote.
- :func:`save` is ``torch.save`` of what training scripts save (a nested dict of state dicts,
  optimizer and scheduler state, Python numbers): a checkpoint file, never a pickle
  (:mod:`ms_core.train.nested_checkpoint`); MindSpore's ``.ckpt`` layout where every entry has a
  MindSpore type, so real MindSpore reads it too.
- :func:`load_state_dict` is ``Module.load_state_dict`` on a Cell: the dict's torch names are
  mapped to the Cell's parameter names by each layer's renames (a BatchNorm's ``weight, bias,
  running_mean, running_var`` are ``gamma, beta, moving_mean, moving_variance``; an Embedding's
  ``weight`` is ``embedding_table``; ...), MindSpore names are taken as they are, and torch's
  ``strict`` rules apply (missing/unexpected keys raise; the result lists them by torch name).
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from collections import namedtuple
from urllib.parse import urlparse

import numpy as np

from ._torch_renames import TORCH_RENAMES
from .common.parameter import Parameter
from .common.tensor import Tensor
from .train import nested_checkpoint
from .train.torch_format import TorchCheckpointError, load_torch_checkpoint

__all__ = [
    "IncompatibleKeys",
    "TorchCheckpointError",
    "get_dir",
    "load",
    "load_state_dict",
    "load_state_dict_from_url",
    "save",
    "set_dir",
]

# torch's: a file name "name-<sha256 prefix>.ext" carries the hash check_hash verifies
_HASH = re.compile(r"-([a-f0-9]*)\.")
_hub_dir = None

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])

# layer class name -> {torch local name: MindSpore local name}; None: a torch buffer MindSpore
# does not keep (BatchNorm's step counter). Generated from the converter's layer tables
# (mappings/attributes.toml) and keyed by class name (torch's _NormBase, ms_core's _InstanceNorm,
# ...), matched along the MRO of a class of that side's package, so the converter's attribute
# renames, the checker's weight map (migrate/check/weights.py) and load_state_dict share one table
# (TORCH_RENAMES, imported above).
def get_dir():
    """The hub directory: set_dir's, else $TORCH_HOME/hub, else $XDG_CACHE_HOME/torch/hub
    (~/.cache/torch/hub), as torch.hub.get_dir."""
    if _hub_dir is not None:
        return _hub_dir
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    return os.path.join(os.path.expanduser(os.environ.get("TORCH_HOME", os.path.join(cache, "torch"))),
                        "hub")


def set_dir(d):
    """Set the hub directory (torch.hub.set_dir)."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _download(url, dst, hash_prefix, progress):
    """Fetch url into dst through a temp file in the same directory; check the sha256 prefix."""
    from urllib.request import urlopen
    fd, tmp = tempfile.mkstemp(prefix=".download-", dir=os.path.dirname(dst))
    digest = hashlib.sha256()
    try:
        with urlopen(url) as response, os.fdopen(fd, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while chunk := response.read(1 << 20):
                out.write(chunk)
                digest.update(chunk)
                done += len(chunk)
                if progress and total:
                    sys.stderr.write(f"\r{100 * done // total:3d}% of {total} bytes")
            if progress and total:
                sys.stderr.write("\n")
        if hash_prefix and not digest.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                               f'"{digest.hexdigest()}")')
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=True):
    """torch.hub.load_state_dict_from_url without torch: download once, read without running code.

    Args:
        url: the checkpoint's URL (``file://`` URLs work too).
        model_dir: the cache directory (default ``get_dir()/checkpoints``).
        map_location: see :func:`load` (tensors always land in host memory).
        progress: print the download's progress to stderr.
        check_hash: verify that the file's SHA-256 starts with the hex digits after the last
            '-' of its name (``resnet18-f37072fd.pth``), as torch does.
        file_name: the cached file's name (default: the URL's last path part).
        weights_only: accepted; the reader is always weights-only (a checkpoint that needs other
            objects raises ``TorchCheckpointError`` naming them).

    Returns:
        The checkpoint (an OrderedDict of torch names -> ms_core Tensors for a state_dict).

    Raises:
        RuntimeError: the hash check failed. TorchCheckpointError: see :func:`load`.

    Example:
        >>> sd = ms.hub.load_state_dict_from_url("https://download.pytorch.org/models/resnet18-f37072fd.pth")
        >>> ms.hub.load_state_dict(net, sd)
    """
    del weights_only
    model_dir = os.fspath(model_dir) if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = _HASH.search(name) if check_hash else None
        _download(url, cached, match.group(1) if match else None, progress)
    return load(cached, map_location=map_location)


def load(f, map_location=None, weights_only=True, mmap=None):
    """torch.load without torch: a ``torch.save`` file (zip or legacy format) read without running
    code from it, or a checkpoint the converted code saved -- by :func:`save` (the nested object
    comes back) or by ``ms.save_checkpoint`` (which names the file ``f + '.ckpt'``: a dict of
    name -> Parameter).

    Args:
        f: a path or a binary file object.
        map_location: None, a device string/``dict`` (no effect: tensors are NumPy-backed), or a
            callable ``(storage, location)`` returning the storage it is given.
        weights_only, mmap: accepted; the reader is always weights-only and reads into memory.

    Returns:
        The saved object, tensors as ms_core Tensors.

    Raises:
        TorchCheckpointError: a torch file that is truncated or needs globals other than tensors
            and containers (a pickled model class is never rebuilt).
        ValueError: no such file (neither ``f`` nor ``f + '.ckpt'``; an empty ``f`` counts as
            none), or a corrupt checkpoint.

    Example:
        >>> state = ms.hub.load("checkpoint.pt")
        >>> ms.hub.load_state_dict(net, state["model"])
    """
    del weights_only, mmap
    if not isinstance(f, (str, os.PathLike)):
        head = f.read(4)
        f.seek(-len(head), os.SEEK_CUR)
        # ms_core's magic or a protobuf record (field 1, length-delimited): what save wrote
        if head[:4] == b"MSCO" or head[:1] == b"\n":
            return nested_checkpoint.load(f)
        return load_torch_checkpoint(f, map_location)
    path = os.fspath(f)
    # (an empty file at the path: the one `with open(path, 'wb') as f` created around a save that
    # became save_checkpoint(net, f.name), which writes path + '.ckpt')
    if (not os.path.exists(path) or os.path.getsize(path) == 0) and os.path.exists(path + ".ckpt"):
        path += ".ckpt"
    if not os.path.isfile(path):
        raise ValueError(f"For 'load', the file '{path}' does not exist.")
    with open(path, "rb") as fh:
        head = fh.read(4)
    # a zip archive or a pickle stream (protocol >= 2): torch's formats; anything else is one of
    # the MindSpore formats save_checkpoint and save write
    if head.startswith(b"PK\x03\x04") or head[:1] == b"\x80":
        return load_torch_checkpoint(path, map_location)
    return nested_checkpoint.load(path)


def save(obj, f, pickle_module=None, pickle_protocol=None):
    """torch.save without pickle: a nested object of data (dicts, lists, tuples, numbers, str,
    None, Tensors / Parameters / NumPy arrays) written as a checkpoint at exactly ``f`` (see
    :mod:`ms_core.train.nested_checkpoint`); :func:`load` gives it back, floats bit for bit.

    Args:
        obj: what to save, e.g. ``{"model": net.parameters_dict(), "optimizer":
            optimizer.state_dict(), "epoch": 3}``.
        f: a path (no suffix is added) or a binary file object.
        pickle_module, pickle_protocol: accepted for torch's signature; nothing is pickled.

    Raises:
        TypeError: part of ``obj`` is not data (a Cell, a function, another object), named by its
            path in ``obj``.

    Example:
        >>> ms.hub.save({"model": net.parameters_dict(), "epoch": 3}, "checkpoint.pt")
    """
    if pickle_module is not None:
        raise ValueError("For 'save', 'pickle_module' is not supported: checkpoints are never pickled.")
    nested_checkpoint.save(obj, f)


def _renames(cell):
    for klass in type(cell).__mro__:
        if klass.__name__ in TORCH_RENAMES and klass.__module__.startswith("ms_core."):
            return TORCH_RENAMES[klass.__name__]
    return {}


def _torch_names(net):
    """torch name -> (Parameter or None for a dropped buffer) for every parameter of net: each
    cell's torch path (its children renamed back where MindSpore names them differently, a
    Transformer layer's dense1 is torch's linear1) joined with its own parameters' torch names. A
    tied parameter (an output layer's weight that is the embedding's) has each of its torch names."""
    out, explicit = {}, {}
    torch_path = {"": ""}
    for path, cell in net.cells_and_names():
        tpath = torch_path.get(path, path)
        prefix = f"{tpath}." if tpath else ""
        table = _renames(cell)
        back = {ms_local: t for t, ms_local in table.items() if ms_local is not None and "." not in ms_local}
        for name in cell.name_cells():
            torch_path[f"{path}.{name}" if path else name] = prefix + back.get(name, name)
        for local, param in cell._params.items():
            if param is not None:
                out[prefix + back.get(local, local)] = param
        for torch_local, ms_local in table.items():
            # what the cell does not keep, and what a child of it holds (BatchNorm3d's bn2d.gamma)
            if ms_local is None or "." in ms_local:
                param = None if ms_local is None else _param_at(cell, ms_local)
                if ms_local is None or param is not None:
                    explicit[prefix + torch_local] = param
    out.update(explicit)
    return out


def _param_at(cell, dotted):
    obj = cell
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, Parameter) else None


def _assign(param, key, value):
    """Copy value into param as torch's load_state_dict does (shape checked, dtype cast)."""
    arr = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    shape = tuple(param.shape)
    if arr.shape != shape:
        # MindSpore keeps a Conv1d weight as (out, in, 1, k): shapes equal up to size-1 axes
        if [d for d in arr.shape if d != 1] != [d for d in shape if d != 1]:
            raise RuntimeError(f"Error(s) in loading state_dict: size mismatch for {key}: copying "
                               f"a param with shape {arr.shape} from checkpoint, the shape in "
                               f"current model is {shape}.")
        arr = arr.reshape(shape)
    param.set_data(Tensor._wrap(np.asarray(arr, dtype=param.asnumpy().dtype)))


def load_state_dict(net, state_dict, strict=True, assign=False):
    """torch's ``net.load_state_dict(state_dict, strict)`` on an ms_core Cell.

    A key is a torch name (``bn.weight``, ``bn.running_mean``, ``emb.weight``: renamed by the
    layer's class) or a Parameter's own name (``bn.gamma``); a torch buffer MindSpore does not
    keep (``num_batches_tracked``) is skipped. Values are copied into the Parameters (cast to
    their dtype; shapes must agree up to size-1 axes).

    Args:
        net: the Cell.
        state_dict: a mapping name -> Tensor / Parameter / NumPy array.
        strict: raise when a parameter receives nothing or a key matches nothing (torch's rule).
        assign: only False (the Parameters keep their identity).

    Returns:
        IncompatibleKeys(missing_keys, unexpected_keys), missing keys by torch name.

    Raises:
        RuntimeError: strict and keys missing or unexpected, or a shape mismatch.
    """
    if assign:
        raise ValueError("For 'load_state_dict', assign=True is not supported: the values are "
                         "copied into the Cell's Parameters.")
    torch_names = _torch_names(net)
    by_name = {p.name: p for _, p in net.parameters_and_names()}
    by_path = dict(net.parameters_and_names())
    filled, unexpected = set(), []
    for key, value in state_dict.items():
        param = by_path.get(key, by_name.get(key))
        if param is None and key in torch_names:
            param = torch_names[key]
            if param is None:  # a buffer MindSpore does not keep
                continue
        if param is None:
            unexpected.append(key)
            continue
        if id(param) in filled:  # a tied parameter's second name: loaded once
            continue
        _assign(param, key, value)
        filled.add(id(param))
    ms_to_torch = {}
    for k, p in torch_names.items():
        if p is not None:
            ms_to_torch.setdefault(id(p), k)
    missing = [ms_to_torch.get(id(p), path) for path, p in by_path.items() if id(p) not in filled]
    if strict and (missing or unexpected):
        parts = []
        if missing:
            parts.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        if unexpected:
            parts.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected)
                         + ".")
        raise RuntimeError(f"Error(s) in loading state_dict for {type(net).__name__}:\n\t"
                           + "\n\t".join(parts))
    return IncompatibleKeys(missing, unexpected)
