"""A reader of PyTorch checkpoint files (`torch.save`) that needs no torch and runs no code.

Two formats are read: the zip archive of torch >= 1.6 (``<name>/data.pkl`` plus one raw file per
storage, ``<name>/data/<key>``) and the legacy stream of torch < 1.6 (pickles of a magic number,
the protocol, system info, the object and the storage keys, then every storage's raw bytes).

The object pickle is read by a restricted unpickler: the only globals it resolves are
``collections.OrderedDict``, torch's tensor/parameter rebuild functions and storage types (which
it replaces with its own NumPy versions) and a few harmless builtins; any other global -- the way
a malicious pickle runs code -- raises ``UnpicklingError`` naming it, before anything is called.
Tensors are rebuilt as NumPy views checked against their storage's bounds and copied; ``torch``
is never imported.
"""
from __future__ import annotations

import io
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np

from ..common.tensor import Tensor

__all__ = ["load_torch_checkpoint", "TorchCheckpointError"]

# torch storage class -> NumPy dtype of its elements (little-endian as written; bfloat16 is read
# as its 16 bits and widened to float32, which holds every bfloat16 value exactly)
_STORAGE_DTYPES = {
    "FloatStorage": "<f4", "DoubleStorage": "<f8", "HalfStorage": "<f2", "BFloat16Storage": "<u2",
    "LongStorage": "<i8", "IntStorage": "<i4", "ShortStorage": "<i2", "CharStorage": "i1",
    "ByteStorage": "u1", "BoolStorage": "?", "ComplexFloatStorage": "<c8",
    "ComplexDoubleStorage": "<c16",
}
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001


class TorchCheckpointError(pickle.UnpicklingError):
    """A file that is not a readable torch checkpoint, or one that needs more than weights."""


class _StorageType:
    """Stands for torch.<X>Storage in a pickle: only its element dtype is used."""

    def __init__(self, name):
        self.name = name
        self.bfloat16 = name == "BFloat16Storage"
        self.dtype = np.dtype(_STORAGE_DTYPES[name])


class _Storage:
    """One storage's elements as a 1-D NumPy array (the file's bytes, never executed)."""

    def __init__(self, array, bfloat16, location):
        self.array = array
        self.bfloat16 = bfloat16
        self.location = location
        self.view = None  # legacy format: (offset, size) in its root storage


class _Pending:
    """A tensor of the legacy format, whose storage bytes follow the object pickle."""

    def __init__(self, args):
        self.args = args


def _resolve(obj):
    """The object with every _Pending tensor rebuilt (containers rebuilt in place)."""
    if isinstance(obj, _Pending):
        return _rebuild_tensor(*obj.args)
    if isinstance(obj, dict):
        for k, v in obj.items():
            obj[k] = _resolve(v)
        return obj
    if isinstance(obj, list):
        obj[:] = [_resolve(v) for v in obj]
        return obj
    if isinstance(obj, tuple):
        return tuple(_resolve(v) for v in obj)
    return obj


def _rebuild_tensor(storage, storage_offset, size, stride, *_ignored):
    """torch._utils._rebuild_tensor(_v2): a strided view of a storage, bounds-checked, copied."""
    if not isinstance(storage, _Storage):
        raise TorchCheckpointError("a tensor in the checkpoint does not refer to a storage")
    if storage.array is None:
        return _Pending((storage, storage_offset, size, stride))
    size, stride = tuple(size), tuple(stride)
    ints = (storage_offset, *size, *stride)
    if len(size) != len(stride) or not all(isinstance(i, int) and i >= 0 for i in ints):
        raise TorchCheckpointError(f"a tensor has an invalid layout: offset {storage_offset}, size "
                                   f"{size}, stride {stride}")
    data = storage.array
    if all(size):
        last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride))
        if last >= data.size:
            raise TorchCheckpointError(f"a tensor of size {size} and stride {stride} at offset "
                                       f"{storage_offset} reads past its storage of {data.size} "
                                       f"elements")
        view = np.lib.stride_tricks.as_strided(
            data[storage_offset:], size, tuple(s * data.itemsize for s in stride), writeable=False)
        out = np.array(view)
    else:
        out = np.zeros(size, data.dtype)
    if storage.bfloat16:
        out = (out.astype(np.uint32) << 16).view(np.float32)
    return Tensor._wrap(out.astype(out.dtype.newbyteorder("="), copy=False))


def _rebuild_parameter(data, requires_grad, *_ignored):
    """torch._utils._rebuild_parameter(_with_state): the parameter's values as a Tensor."""
    if not isinstance(data, _Pending) and type(data).__name__ != "Tensor":
        raise TorchCheckpointError("a parameter in the checkpoint holds no tensor")
    return data


def _rebuild_from_type(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2 for torch.Tensor/Parameter: the rebuilt tensor."""
    if new_type not in ("torch.Tensor", "torch.nn.Parameter") or func not in _REBUILDS:
        raise TorchCheckpointError("the checkpoint holds a tensor subclass; only torch.Tensor and "
                                   "torch.nn.Parameter are read")
    return func(*args)


_REBUILDS = (_rebuild_tensor, _rebuild_parameter)
_ALLOWED = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type,
    ("torch", "Tensor"): "torch.Tensor",
    ("torch.nn.parameter", "Parameter"): "torch.nn.Parameter",
    ("torch", "Size"): tuple,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "slice"): slice,
    ("builtins", "complex"): complex, ("_codecs", "encode"): lambda s, enc="utf-8": s.encode(enc),
    **{("torch", name): _StorageType(name) for name in _STORAGE_DTYPES},
}


class _WeightsUnpickler(pickle.Unpickler):
    """Resolves only the globals in _ALLOWED; storages come from `storage_of(pid)`."""

    def __init__(self, file, storage_of):
        super().__init__(file, encoding="utf-8")
        self._storage_of = storage_of

    def find_class(self, module, name):
        found = _ALLOWED.get((module, name))
        if found is None:
            raise TorchCheckpointError(
                f"the checkpoint needs '{module}.{name}', which a weights-only reader does not "
                f"rebuild (it never runs code from a file); save a state_dict of tensors instead")
        return found

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid or pid[0] not in ("storage", b"storage"):
            raise TorchCheckpointError(f"unknown persistent id in the checkpoint: {pid!r:.80}")
        return self._storage_of(pid[1:])


def _location(location, map_location):
    """Where torch would put a storage; every storage lands in host memory here, so only a
    callable map_location is consulted (it must give the storage back)."""
    return map_location.get(location, location) if isinstance(map_location, dict) else location


def _checked_map(map_location, storage):
    if callable(map_location):
        out = map_location(storage, storage.location)
        if out is not None and out is not storage:
            raise TorchCheckpointError("a callable map_location must return the storage it is "
                                       "given (or None): storages are NumPy arrays here")
    return storage


def _read_zip(f, map_location):
    with zipfile.ZipFile(f) as archive:
        names = archive.namelist()
        pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
        if len(pkl) != 1:
            raise TorchCheckpointError("the zip file has no single '<name>/data.pkl': not a torch "
                                       "checkpoint")
        root = pkl[0][:-len("data.pkl")]
        big = archive.read(root + "byteorder").strip() == b"big" if root + "byteorder" in names \
            else False
        storages = {}

        def storage_of(data):
            stype, key, location, numel = data[:4]
            if not isinstance(stype, _StorageType):
                raise TorchCheckpointError(f"unknown storage type {stype!r:.60}")
            key = str(key)
            if key not in storages:
                raw = archive.read(f"{root}data/{key}")
                dtype = stype.dtype.newbyteorder(">") if big else stype.dtype
                if len(raw) % dtype.itemsize:
                    raise TorchCheckpointError(f"storage '{key}' has {len(raw)} bytes, not a "
                                               f"multiple of its {dtype.itemsize}-byte elements")
                storage = _Storage(np.frombuffer(raw, dtype), stype.bfloat16,
                                   _location(location, map_location))
                storages[key] = _checked_map(map_location, storage)
            return storages[key]

        return _WeightsUnpickler(io.BytesIO(archive.read(pkl[0])), storage_of).load()


def _read_legacy(f, map_location):
    """torch < 1.6's stream: pickles of magic, protocol, sys info, object, keys; raw storages."""
    def header():
        return _WeightsUnpickler(f, _no_storage).load()
    try:
        magic, protocol, sys_info = header(), header(), header()
    except (pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise TorchCheckpointError(f"not a torch checkpoint ({exc})") from exc
    if magic != _LEGACY_MAGIC or protocol != _LEGACY_PROTOCOL:
        raise TorchCheckpointError("not a torch checkpoint (bad magic number or protocol)")
    if not (isinstance(sys_info, dict) and sys_info.get("little_endian", True)):
        raise TorchCheckpointError("big-endian legacy torch checkpoints are not supported")
    pending = {}  # storage key -> (storage type, element count, [its _Storage holders])

    def storage_of(data):
        stype, key, location, numel, view = (*data, None)[:5]
        if not isinstance(stype, _StorageType):
            raise TorchCheckpointError(f"unknown storage type {stype!r:.60}")
        holder = _Storage(None, stype.bfloat16, _location(location, map_location))
        if view is not None:
            holder.view = (int(view[1]), int(view[2]))
        pending.setdefault(str(key), (stype, int(numel), []))[2].append(holder)
        return holder

    result = _WeightsUnpickler(f, storage_of).load()
    keys = _WeightsUnpickler(f, _no_storage).load()
    if not isinstance(keys, list) or set(map(str, keys)) != set(pending):
        raise TorchCheckpointError("the storage keys do not match the storages the object uses")
    for key in keys:
        stype, numel, holders = pending[str(key)]
        (count,) = struct.unpack("<q", _read_exact(f, 8))
        if count != numel or count < 0:
            raise TorchCheckpointError(f"storage '{key}' holds {count} elements, {numel} expected")
        array = np.frombuffer(_read_exact(f, count * stype.dtype.itemsize), stype.dtype)
        for holder in holders:
            start, size = holder.view or (0, count)
            if start < 0 or size < 0 or start + size > count:
                raise TorchCheckpointError(f"a view of storage '{key}' lies outside it")
            holder.array = array[start:start + size]
            _checked_map(map_location, holder)
    return _resolve(result)


def _no_storage(_data):
    raise TorchCheckpointError("a storage outside the object pickle")


def _read_exact(f, n):
    data = f.read(n)
    if len(data) != n:
        raise TorchCheckpointError(f"the checkpoint ends early ({len(data)} of {n} bytes)")
    return data


def load_torch_checkpoint(f, map_location=None):
    """Read a file written by ``torch.save`` (a state_dict or other tensors in dicts/lists).

    Args:
        f: a path or a binary file object.
        map_location: None, a device string or dict (storages always land in host memory), or a
            callable ``(storage, location)`` that returns its storage (or None).

    Returns:
        The saved object with every tensor as an ms_core ``Tensor`` (dtypes kept; bfloat16
        widened to float32) and OrderedDicts kept.

    Raises:
        TorchCheckpointError: not a torch checkpoint, a truncated one, or one that needs a global
            other than tensors and containers (e.g. a pickled model class) -- never executed.

    Example:
        >>> sd = load_torch_checkpoint("resnet18.pth")
        >>> sd["fc.weight"].shape
        (1000, 512)
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return load_torch_checkpoint(fh, map_location)
    start = f.tell()
    is_zip = f.read(4) == b"PK\x03\x04"
    f.seek(start)
    if is_zip:
        try:
            return _read_zip(f, map_location)
        except (zipfile.BadZipFile, KeyError) as exc:
            raise TorchCheckpointError(f"a broken torch zip checkpoint: {exc}") from exc
    return _read_legacy(f, map_location)
