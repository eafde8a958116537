"""Checkpoints: `ms.save_checkpoint`, `ms.load_checkpoint`, `ms.load_param_into_net`.

The default file format is ms_core's own (never pickle). Loading parses a length-prefixed JSON
header and copies raw little-endian bytes into NumPy arrays of whitelisted dtypes: nothing in the
file is ever executed or unpickled. `load_checkpoint` also reads MindSpore's protobuf `.ckpt`
files, and `save_checkpoint(..., mindspore_format=True)` writes them (with MindSpore's CRC32
trailer) so that real MindSpore loads what ms_core saved; the protobuf reader is a small strict
wire-format parser of our own (no protobuf dependency, no code execution).

    offset 0   magic  b"MSCORE-CKPT\\0"               12 bytes
    12         format version, uint32 little-endian    (1)
    16         header length H, uint64 little-endian
    24         SHA-256 of the header bytes             32 bytes
    56         header: UTF-8 JSON                      H bytes
    56 + H     payload: every entry's bytes, back to back; exactly `payload_size` bytes to the end

The header lists the entries (name, kind 'tensor' or 'str', dtype, shape, offset, nbytes,
requires_grad) and the payload's size and SHA-256, so truncation, trailing bytes and flipped bits
are all detected before anything is returned. Writes go to a temporary file in the target
directory, are fsynced, and replace the target with `os.replace`, so a crash leaves either the old
file or the new one, never a half-written checkpoint. A process killed mid-save leaves its
`.NAME.<hex>.tmp` file behind; the next save of NAME removes it (a temp file is locked while
it is written, so a concurrent save's is never taken for a leftover).
"""
import hashlib
import math
import numbers
import os
import struct
from collections import OrderedDict

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell, check_cell

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

MAGIC = b"MSCORE-CKPT\x00"
VERSION = 1
_PREFIX = struct.Struct("<12sIQ32s")  # magic, version, header length, header sha256
_DTYPES = {name: np.dtype(name).newbyteorder("<") if np.dtype(name).itemsize > 1 else np.dtype(name)
           for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                        "uint64", "float16", "float32", "float64", "complex64", "complex128")}
_MAX_HEADER = 1 << 30


class CheckpointError(ValueError):
    """A checkpoint file that is missing, truncated, corrupt or not an ms_core checkpoint."""


# --- saving ----------------------------------------------------------------------------------------
def _entries_from(save_obj, fn="save_checkpoint"):
    """[(name, value, requires_grad)] from a Cell, a list of {'name', 'data'} dicts, or a dict."""
    if isinstance(save_obj, Cell):
        return [(p.name, p, p.requires_grad) for _, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        return [(k, v, getattr(v, "requires_grad", True)) for k, v in save_obj.items()]
    if isinstance(save_obj, (list, tuple)):
        out = []
        for i, item in enumerate(save_obj):
            if not isinstance(item, dict) or "name" not in item or "data" not in item:
                raise TypeError(f"For '{fn}', every element of a list 'save_obj' must be a dict "
                                f"{{'name': str, 'data': Tensor}}, but element {i} is "
                                f"{type(item).__name__ if not isinstance(item, dict) else sorted(item)}.")
            out.append((item["name"], item["data"], getattr(item["data"], "requires_grad", True)))
        return out
    raise TypeError(f"For '{fn}', the 'save_obj' must be a Cell, a list of {{'name', 'data'}} dicts "
                    f"or a dict, but got {type(save_obj).__name__}.")


def _as_array(name, value, fn):
    if isinstance(value, Tensor):
        arr = value._data
    elif isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, bool):
        arr = np.asarray(value)
    elif isinstance(value, numbers.Integral):
        arr = np.asarray(value, np.int64)
    elif isinstance(value, numbers.Real):
        arr = np.asarray(value, np.float32)  # a Python float is Float32, as MindSpore infers it
    else:
        raise TypeError(f"For '{fn}', the value of '{name}' must be a Tensor, Parameter, numpy "
                        f"array, number or str, but got {type(value).__name__}.")
    key = arr.dtype.name
    if key not in _DTYPES:
        raise TypeError(f"For '{fn}', the dtype {arr.dtype} of '{name}' cannot be saved; supported: "
                        f"{sorted(_DTYPES)}.")
    # np.asarray(order="C"), not ascontiguousarray: the latter turns 0-d scalars into shape (1,)
    return key, np.asarray(arr, dtype=_DTYPES[key], order="C")


def _encode(entries, fn):
    """(header bytes, list of payload buffers)."""
    import json  # loaded lazily: `import ms_core` stays fast
    records, buffers, offset, seen = [], [], 0, set()
    digest = hashlib.sha256()
    for name, value, requires_grad in entries:
        if not isinstance(name, str) or not name:
            raise TypeError(f"For '{fn}', every parameter name must be a non-empty str, but got "
                            f"{name!r}.")
        if name in seen:
            raise ValueError(f"For '{fn}', the name '{name}' appears more than once; every saved "
                             f"parameter needs a unique name (rename the Parameters).")
        seen.add(name)
        if isinstance(value, str):
            buf = value.encode("utf-8")
            rec = {"name": name, "kind": "str", "dtype": "utf8", "shape": [len(buf)]}
        else:
            dtype, arr = _as_array(name, value, fn)
            buf = memoryview(arr).cast("B") if arr.size else b""
            rec = {"name": name, "kind": "tensor", "dtype": dtype, "shape": list(arr.shape),
                   "requires_grad": bool(requires_grad)}
        rec["offset"], rec["nbytes"] = offset, len(buf)
        digest.update(buf)
        offset += len(buf)
        records.append(rec)
        buffers.append(buf)
    header = {"format": "ms_core-checkpoint", "version": VERSION, "payload_size": offset,
              "payload_sha256": digest.hexdigest(), "entries": records}
    return json.dumps(header, separators=(",", ":")).encode("utf-8"), buffers


def _lock_temp(fd, tmp):
    """Lock a new temp file for as long as it is written; return False when a concurrent save's
    cleanup removed it before the lock was taken (then another name is tried).

    A later save tells a live writer's temp file from one that a killed process left behind by
    this lock: the OS drops a dead process's locks.
    """
    try:
        import fcntl
    except ImportError:  # Windows: an open file cannot be deleted there, which protects it
        return True
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        return os.stat(tmp).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


def _remove_if_stale(path):
    """Remove temp file `path` unless a live save holds its lock (removed while locked, so a
    writer that opened it a moment ago sees it gone once it gets the lock)."""
    try:
        import fcntl
    except ImportError:
        fcntl = None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.unlink(path)
    except OSError:
        pass  # locked by a live save (or, on Windows, open: the unlink fails)
    finally:
        os.close(fd)


def _remove_stale_temps(directory, basename):
    """Delete `.NAME.<16 hex>.tmp` files of earlier saves of the same checkpoint that were killed
    mid-write (kill -9, power loss): nothing else would ever remove them."""
    prefix = f".{basename}."
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        token = name[len(prefix):-len(".tmp")]
        if (name.startswith(prefix) and name.endswith(".tmp") and len(token) == 16
                and all(c in "0123456789abcdef" for c in token)):
            _remove_if_stale(os.path.join(directory, name))


def _atomic_write(path, chunks):
    import secrets
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"For 'save_checkpoint', the directory of '{path}' does not exist: "
                         f"{directory}.")
    _remove_stale_temps(directory, os.path.basename(path))
    # Our own O_EXCL temp file (not tempfile.mkstemp's 0600): the process umask then gives the
    # checkpoint the usual permissions, with no os.umask juggling (not thread-safe).
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        if _lock_temp(fd, tmp):
            break
        os.close(fd)
    else:
        raise OSError(f"For 'save_checkpoint', could not create a temporary file in {directory}.")
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
            if os.name != "nt":  # renamed while locked: never taken for a leftover
                os.replace(tmp, path)
        if os.name == "nt":  # Windows cannot rename an open file
            os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    crc_check=False, format="ckpt", mindspore_format=False, **kwargs):
    """Save parameters to a checkpoint file (ms_core's safe format), atomically.

    Args:
        save_obj: a Cell (all its parameters, by `Parameter.name`), a list of dicts
            `{'name': str, 'data': Tensor}`, or a dict name -> Tensor/Parameter.
        ckpt_file_name: the path; '.ckpt' is appended when missing, as MindSpore does.
        append_dict: extra entries name -> int, float, bool, str or Tensor (e.g. {'epoch': 3}).
        choice_func: name -> bool; only names for which it returns True are saved.
        integrated_save, async_save: accepted; saving is always complete and synchronous here.
        crc_check: accepted; SHA-256 checksums are always written and always verified.
        format: only 'ckpt'; 'safetensors' is refused.
        mindspore_format: write MindSpore's protobuf checkpoint layout instead of ms_core's (an
            ms_core extension): real MindSpore's `load_checkpoint` reads the file. A CRC32 trailer
            is always appended (MindSpore's `crc_check=True` layout). Default: ms_core's format.
        enc_key: encryption is not supported (ValueError when given).

    Raises:
        TypeError: an unsupported save_obj, value or dtype.
        ValueError: duplicate names, a missing directory, or enc_key.

    Example:
        >>> ms.save_checkpoint(net, "./net.ckpt", append_dict={"epoch": 3})
    """
    fn = "save_checkpoint"
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For '{fn}', the 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    if enc_key is not None:
        raise ValueError(f"For '{fn}', encrypted checkpoints ('enc_key') are not supported by "
                         f"ms_core.")
    _check_format(fn, format)
    path = os.fspath(ckpt_file_name)
    if not path.endswith(".ckpt"):
        path += ".ckpt"
    entries = _entries_from(save_obj, fn)
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError(f"For '{fn}', the 'append_dict' must be a dict, but got "
                            f"{type(append_dict).__name__}.")
        for k, v in append_dict.items():
            if not isinstance(v, (str, numbers.Number, Tensor, np.ndarray)):
                raise TypeError(f"For '{fn}', the 'append_dict' values must be int, float, bool, "
                                f"str or Tensor, but '{k}' is {type(v).__name__}.")
            entries.append((k, v, False if not isinstance(v, Parameter) else v.requires_grad))
    if choice_func is not None:
        if not callable(choice_func):
            raise TypeError(f"For '{fn}', the 'choice_func' must be callable.")
        entries = [e for e in entries if choice_func(e[0])]
    if mindspore_format:
        chunks = _encode_mindspore(entries, fn)
    else:
        header, buffers = _encode(entries, fn)
        chunks = [_PREFIX.pack(MAGIC, VERSION, len(header), hashlib.sha256(header).digest()),
                  header] + buffers
    _atomic_write(path, chunks)


def _check_format(fn, fmt):
    if fmt != "ckpt":
        raise ValueError(f"For '{fn}', the 'format' must be 'ckpt' (ms_core's checkpoint format), "
                         f"but got {fmt!r}.")


# --- loading -----------------------------------------------------------------------------------
def _fail(path, reason):
    raise CheckpointError(f"Failed to load the checkpoint file '{path}': {reason}")


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _parse(path, data):
    """Validate everything and return [(name, value, requires_grad)]."""
    import json
    if len(data) < _PREFIX.size:
        _fail(path, f"the file is {len(data)} bytes, shorter than the {_PREFIX.size}-byte header "
                    f"prefix (truncated or not an ms_core checkpoint).")
    magic, version, header_len, header_sha = _PREFIX.unpack_from(data, 0)
    if magic != MAGIC:
        _fail(path, "it is not an ms_core checkpoint (bad magic bytes). MindSpore's own .ckpt "
                    "files are protobuf, a different format that ms_core does not read.")
    if version != VERSION:
        _fail(path, f"unsupported format version {version} (this ms_core reads version {VERSION}).")
    start = _PREFIX.size
    if header_len > _MAX_HEADER or start + header_len > len(data):
        _fail(path, f"the header says {header_len} bytes but the file has only "
                    f"{len(data) - start} after the prefix (truncated or corrupt).")
    header_bytes = bytes(data[start:start + header_len])
    if hashlib.sha256(header_bytes).digest() != header_sha:
        _fail(path, "the header checksum does not match (the file is corrupt).")
    try:
        header = json.loads(header_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        _fail(path, f"the header is not valid JSON ({exc}).")
    except RecursionError:  # a forged header of deeply nested arrays: ours is two levels deep
        _fail(path, "the header is nested too deeply to be an ms_core checkpoint (corrupt or forged).")
    if not isinstance(header, dict) or header.get("format") != "ms_core-checkpoint":
        _fail(path, "the header does not describe an ms_core checkpoint.")
    payload_start = start + header_len
    size, sha, entries = header.get("payload_size"), header.get("payload_sha256"), header.get("entries")
    if not _is_int(size) or not isinstance(sha, str) or not isinstance(entries, list):
        _fail(path, "the header is missing 'payload_size', 'payload_sha256' or 'entries'.")
    actual = len(data) - payload_start
    if actual != size:
        _fail(path, f"the payload should be {size} bytes but the file holds {actual} "
                    f"({'truncated' if actual < size else 'trailing bytes'}).")
    payload = memoryview(data)[payload_start:]
    if hashlib.sha256(payload).hexdigest() != sha:
        _fail(path, "the payload checksum does not match (the file is corrupt).")
    out, names = [], set()
    for i, rec in enumerate(entries):
        if not isinstance(rec, dict):
            _fail(path, f"entry {i} is not an object.")
        name, kind, dtype = rec.get("name"), rec.get("kind"), rec.get("dtype")
        shape, offset, nbytes = rec.get("shape"), rec.get("offset"), rec.get("nbytes")
        if not isinstance(name, str) or not name or name in names:
            _fail(path, f"entry {i} has a missing or duplicate name {name!r}.")
        names.add(name)
        if not (isinstance(shape, list) and all(_is_int(s) and s >= 0 for s in shape)
                and _is_int(offset) and _is_int(nbytes) and offset >= 0 and nbytes >= 0
                and offset + nbytes <= size):
            _fail(path, f"entry '{name}' has an invalid shape, offset or size.")
        raw = payload[offset:offset + nbytes]
        if kind == "str" and dtype == "utf8":
            try:
                out.append((name, bytes(raw).decode("utf-8"), False))
            except UnicodeDecodeError:
                _fail(path, f"entry '{name}' is not valid UTF-8.")
            continue
        if kind != "tensor" or dtype not in _DTYPES:
            _fail(path, f"entry '{name}' has an unsupported kind/dtype {kind!r}/{dtype!r}.")
        np_dtype = _DTYPES[dtype]
        count = math.prod(shape)  # Python ints: a forged huge shape cannot overflow
        if count * np_dtype.itemsize != nbytes:
            _fail(path, f"entry '{name}' declares shape {shape} of {dtype} ({count * np_dtype.itemsize}"
                        f" bytes) but holds {nbytes} bytes.")
        arr = np.frombuffer(raw, dtype=np_dtype, count=count).reshape(shape)
        arr = arr.astype(np_dtype.newbyteorder("="), copy=True)  # own, writable, native order
        out.append((name, arr, bool(rec.get("requires_grad", True))))
    return out


# --- MindSpore's protobuf checkpoint layout ------------------------------------------------------
# message Checkpoint { repeated Value value = 1; }
# message Value { required string tag = 1; oneof { TensorProto tensor = 2; MapTensorProto maptensor = 3; } }
# message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
#                       required bytes tensor_content = 3; }
# A parameter may be split into consecutive Values with the same tag (contents concatenated);
# strings have tensor_type 'str' and UTF-32-LE content; an optional trailer b"crc_num" + 10 bytes
# big-endian holds the CRC32 of everything before it.
_MS_TYPES = {"Bool": "bool", "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
             "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
             "Float16": "float16", "Float32": "float32", "Float64": "float64"}
_MS_NAMES = {v: k for k, v in _MS_TYPES.items()}
_CRC_TAG = b"crc_num"


class _PBError(Exception):
    pass


def _pb_varint(buf, pos, end):
    value, shift = 0, 0
    while True:
        if pos >= end:
            raise _PBError("a record is cut short")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise _PBError("an over-long varint")


def _pb_fields(buf, pos, end, allowed):
    """Yield (field, wire_type, value) where value is an int (varint) or a (start, stop) span."""
    while pos < end:
        key, pos = _pb_varint(buf, pos, end)
        field, wire = key >> 3, key & 7
        if wire not in allowed.get(field, ()):
            raise _PBError(f"unexpected field {field} (wire type {wire})")
        if wire == 0:
            value, pos = _pb_varint(buf, pos, end)
            yield field, wire, value
        else:
            length, pos = _pb_varint(buf, pos, end)
            if length > end - pos:
                raise _PBError("a record is cut short")
            yield field, wire, (pos, pos + length)
            pos += length


def _pb_tensor(buf, start, end):
    dims, ttype, content = [], None, None
    for field, wire, value in _pb_fields(buf, start, end, {1: (0, 2), 2: (2,), 3: (2,)}):
        if field == 1 and wire == 0:
            dims.append(value - (1 << 64) if value >= 1 << 63 else value)
        elif field == 1:  # packed dims
            pos, stop = value
            while pos < stop:
                v, pos = _pb_varint(buf, pos, stop)
                dims.append(v - (1 << 64) if v >= 1 << 63 else v)
        elif field == 2:
            ttype = bytes(buf[value[0]:value[1]]).decode("utf-8")
        else:
            content = buf[value[0]:value[1]]
    if ttype is None or content is None:
        raise _PBError("a tensor lacks its type or content")
    return dims, ttype, content


def _parse_mindspore(path, data):
    """Validate a MindSpore protobuf checkpoint and return [(name, value, requires_grad)]."""
    import binascii
    if not data:
        _fail(path, "the file is empty.")
    end = len(data)
    if end >= 17 and data[-17:-10] == _CRC_TAG:
        end -= 17
        if binascii.crc32(memoryview(data)[:end]) != int.from_bytes(data[-10:], "big"):
            _fail(path, "the CRC32 of this MindSpore checkpoint does not match (the file is corrupt).")
    buf = memoryview(data)
    records = []
    try:
        for _, _, (vs, ve) in _pb_fields(buf, 0, end, {1: (2,)}):
            tag, tensor = None, None
            for field, _, (s, e) in _pb_fields(buf, vs, ve, {1: (2,), 2: (2,), 3: (2,)}):
                if field == 1:
                    tag = bytes(buf[s:e]).decode("utf-8")
                elif field == 2:
                    tensor = _pb_tensor(buf, s, e)
                else:
                    raise _PBError("map tensors (MapParameter) are not supported")
            if not tag or tensor is None:
                raise _PBError("a record lacks its name or tensor")
            records.append((tag, tensor))
    except (_PBError, UnicodeDecodeError) as exc:
        _fail(path, f"it is neither an ms_core checkpoint nor a readable MindSpore checkpoint "
                    f"({exc}).")
    if not records:
        _fail(path, "it holds no parameters (empty or not a checkpoint).")
    out, names, i = [], set(), 0
    while i < len(records):
        tag, (dims, ttype, _) = records[i]
        j = i
        while j + 1 < len(records) and records[j + 1][0] == tag:
            j += 1
        if tag in names:
            _fail(path, f"the name '{tag}' appears in two places.")
        names.add(tag)
        if any(records[k][1][1] != ttype for k in range(i, j + 1)):
            _fail(path, f"the slices of '{tag}' disagree on the dtype.")
        raw = b"".join(bytes(records[k][1][2]) for k in range(i, j + 1))
        dims = records[j][1][0]
        i = j + 1
        if ttype == "str":
            if len(raw) % 4:
                _fail(path, f"the string '{tag}' is not valid UTF-32.")
            try:
                out.append((tag, raw.decode("utf-32-le").rstrip("\x00"), False))
            except UnicodeDecodeError:
                _fail(path, f"the string '{tag}' is not valid UTF-32.")
            continue
        if ttype not in _MS_TYPES:
            _fail(path, f"'{tag}' has the unsupported dtype {ttype!r}.")
        np_dtype = _DTYPES[_MS_TYPES[ttype]]
        if any(d < 0 for d in dims):
            _fail(path, f"'{tag}' has a negative dimension {dims}.")
        if dims == [0] and len(raw) == np_dtype.itemsize:
            dims = []  # MindSpore writes some scalars with dims [0]
        count = math.prod(dims)
        if count * np_dtype.itemsize != len(raw):
            _fail(path, f"'{tag}' declares shape {dims} of {ttype} but holds {len(raw)} bytes.")
        arr = np.frombuffer(raw, dtype=np_dtype, count=count).reshape(dims)
        out.append((tag, arr.astype(np_dtype.newbyteorder("="), copy=True), True))
    return out


def _pb_key(field, wire):
    return _pb_uvarint(field << 3 | wire)


def _pb_uvarint(value):
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _pb_len(field, payload):
    return _pb_key(field, 2) + _pb_uvarint(len(payload)) + payload


def _encode_mindspore(entries, fn):
    """MindSpore's protobuf layout with its CRC32 trailer, as a list of byte chunks."""
    import binascii
    chunks, crc, seen = [], 0, set()
    for name, value, _ in entries:
        if not isinstance(name, str) or not name:
            raise TypeError(f"For '{fn}', every parameter name must be a non-empty str, but got "
                            f"{name!r}.")
        if name in seen:
            raise ValueError(f"For '{fn}', the name '{name}' appears more than once; every saved "
                             f"parameter needs a unique name (rename the Parameters).")
        seen.add(name)
        if isinstance(value, str):
            dims, ttype, content = [0], "str", value.encode("utf-32-le")
        else:
            dtype, arr = _as_array(name, value, fn)
            if dtype not in _MS_NAMES:
                raise TypeError(f"For '{fn}', the dtype {dtype} of '{name}' has no MindSpore "
                                f"checkpoint type.")
            dims, ttype, content = list(arr.shape), _MS_NAMES[dtype], arr.tobytes()
        tensor = b"".join(_pb_key(1, 0) + _pb_uvarint(d) for d in dims)
        tensor += _pb_len(2, ttype.encode()) + _pb_len(3, content)
        record = _pb_len(1, _pb_len(1, name.encode("utf-8")) + _pb_len(2, tensor))
        crc = binascii.crc32(record, crc)
        chunks.append(record)
    chunks.append(_CRC_TAG + crc.to_bytes(10, "big"))
    return chunks


def _prefixes(fn, arg, value):
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items or not all(
            isinstance(p, str) and p for p in items):
        raise TypeError(f"For '{fn}', the '{arg}' must be a non-empty str or a list/tuple of "
                        f"non-empty str, but got {value!r}.")
    return tuple(items)


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                    dec_mode="AES-GCM", specify_prefix=None, choice_func=None, crc_check=False,
                    remove_redundancy=False, format="ckpt"):
    """Load a checkpoint file into a dict name -> Parameter (str entries come back as str).

    Reads ms_core's format and MindSpore's own protobuf `.ckpt` files (with or without their CRC
    trailer; not encrypted ones), both with parsers of our own that execute nothing. The whole
    file is validated (magic/structure, checksums, sizes, dtypes) before anything is returned or
    loaded into `net`; a bad file raises and changes nothing. A MindSpore file without a CRC
    trailer that was cut exactly between two records cannot be told from a shorter checkpoint:
    `load_param_into_net` then lists the missing names in `param_not_load`.

    Args:
        ckpt_file_name: path of a '.ckpt' file written by `save_checkpoint`.
        net: if given, the parameters are loaded into it (`load_param_into_net`).
        strict_load: passed to `load_param_into_net`.
        filter_prefix: str or list of str; names starting with one of them are skipped.
        specify_prefix: str or list of str; only names starting with one of them are loaded.
            The two combine; either one makes `choice_func` ignored (MindSpore 2.10's rules).
        choice_func: name -> bool; only names for which it returns True are loaded.
        dec_key: decryption is not supported (ValueError when given).
        crc_check, remove_redundancy: accepted; checksums are always verified.
        format: only 'ckpt'.

    Raises:
        ValueError: a missing file, a name not ending in '.ckpt', nothing left after filtering,
            or a corrupt/truncated file (`CheckpointError`, a ValueError subclass, naming the file
            and the problem).

    Example:
        >>> params = ms.load_checkpoint("./net.ckpt")
        >>> param_not_load, ckpt_not_load = ms.load_param_into_net(net, params)
    """
    fn = "load_checkpoint"
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For '{fn}', the 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    path = os.fspath(ckpt_file_name)
    if not path.endswith(".ckpt"):
        raise ValueError(f"For '{fn}', the checkpoint file should end with '.ckpt', but got "
                         f"'{path}'.")
    if dec_key is not None:
        raise ValueError(f"For '{fn}', encrypted checkpoints ('dec_key') are not supported by "
                         f"ms_core.")
    _check_format(fn, format)
    filters = _prefixes(fn, "filter_prefix", filter_prefix)
    specify = _prefixes(fn, "specify_prefix", specify_prefix)
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For '{fn}', the 'choice_func' must be callable, but got "
                        f"{type(choice_func).__name__}.")
    # MindSpore 2.10: the two prefix filters combine, and either one overrides choice_func.
    use_choice = choice_func is not None and not filters and not specify
    if not os.path.isfile(path):
        raise ValueError(f"For '{fn}', the checkpoint file '{path}' does not exist.")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise CheckpointError(f"Failed to read the checkpoint file '{path}': {exc}.") from exc
    if data[:len(MAGIC)] == MAGIC:
        entries = _parse(path, data)
    elif data and MAGIC.startswith(data[:len(MAGIC)]):
        _fail(path, f"the file is {len(data)} bytes, a truncated ms_core checkpoint header.")
    else:
        entries = _parse_mindspore(path, data)
    params = OrderedDict()
    for name, value, requires_grad in entries:
        if specify and not name.startswith(specify):
            continue
        if filters and name.startswith(filters):
            continue
        if use_choice and not choice_func(name):
            continue
        params[name] = value if isinstance(value, str) else Parameter(
            Tensor._wrap(value), name=name, requires_grad=requires_grad)
    if not params:
        raise ValueError(f"For '{fn}', the loaded parameter dict of '{path}' is empty after "
                         f"filter or specify; check 'filter_prefix', 'specify_prefix' and "
                         f"'choice_func'.")
    if net is not None:
        load_param_into_net(net, params, strict_load)
    return params


def _castable(src, dst):
    """Non-strict loading converts within floats and within integers, as MindSpore does."""
    return (src.kind == "f" and dst.kind == "f") or (src.kind in "iu" and dst.kind in "iu")


def _match_by_prefix(unloaded, parameter_dict, plan):
    """MindSpore 2.10's non-strict fallback: find a prefix P with P + name in the dict for one
    unloaded parameter, load every unloaded parameter whose P + name is there, repeat."""
    while unloaded:
        prefix = None
        for param in unloaded:
            for key in parameter_dict:
                if key.endswith(param.name):
                    prefix = key[:-len(param.name)]
                    break
            if prefix is not None:
                break
        if prefix is None:
            return unloaded
        still = []
        for param in unloaded:
            key = prefix + param.name
            if key in parameter_dict:
                plan.append((param, key))
            else:
                still.append(param)
        unloaded = still
    return unloaded


def _checked_value(fn, param, key, new, strict_load):
    """The array to load into `param` (cast when allowed), or an error naming the parameter."""
    if not isinstance(new, (Tensor, np.ndarray)):
        raise TypeError(f"For '{fn}', the value of '{key}' in 'parameter_dict' must be a "
                        f"Parameter or Tensor, but got {type(new).__name__}.")
    arr = new._data if isinstance(new, Tensor) else new
    name = f"'{param.name}'" if key == param.name else f"'{param.name}' (loaded from '{key}')"
    if arr.shape != param._data.shape:
        raise RuntimeError(f"For '{fn}', the parameter {name} in 'net' has shape "
                           f"{list(param._data.shape)} but the value in 'parameter_dict' has "
                           f"shape {list(arr.shape)}; nothing was loaded. Check that the "
                           f"checkpoint belongs to this network.")
    if arr.dtype != param._data.dtype:
        if strict_load or not _castable(arr.dtype, param._data.dtype):
            raise RuntimeError(f"For '{fn}', the parameter {name} in 'net' has dtype "
                               f"{param.dtype} but the value in 'parameter_dict' has dtype "
                               f"{Tensor._wrap(arr).dtype}; nothing was loaded.")
        arr = arr.astype(param._data.dtype)
    return arr


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy the values of `parameter_dict` into the parameters of `net`, matched by name.

    Every match is checked first (type, shape, dtype); only when all pass are values copied, so
    an error leaves the network untouched (MindSpore stops midway, with earlier parameters
    already loaded). Without `strict_load`: float values load into parameters of another float
    dtype (and ints into ints) by casting, and parameters without an exact match fall back to
    MindSpore 2.10's prefix rule — if some checkpoint name is P + a missing name, every missing
    parameter whose P + name is in the dict is loaded from it (a stand-alone Dense's 'weight'
    takes 'fc.weight'), repeated until no prefix is found. With `strict_load`, only exact names
    load and a dtype mismatch is an error.

    Returns:
        (param_not_load, ckpt_not_load): the names of the network's parameters that got no value,
        and the dict names not loaded by exact name (as MindSpore 2.10 reports them: entries used
        through the prefix rule stay in this list). MindSpore 2.0 returned only param_not_load.

    Raises:
        TypeError: `net` is not a Cell, `parameter_dict` not a dict, or a matched value is not a
            Tensor.
        RuntimeError: a shape mismatch (or a dtype mismatch that cannot be cast), naming the
            parameter.

    Example:
        >>> param_not_load, ckpt_not_load = ms.load_param_into_net(net, ms.load_checkpoint("a.ckpt"))
    """
    fn = "load_param_into_net"
    check_cell(fn, "net", net)
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For '{fn}', the 'parameter_dict' must be a dict, but got "
                        f"{type(parameter_dict).__name__}.")
    if not isinstance(strict_load, bool):
        raise TypeError(f"For '{fn}', the 'strict_load' must be bool, but got "
                        f"{type(strict_load).__name__}.")
    plan, unloaded = [], []
    for _, param in net.parameters_and_names():
        if param.name in parameter_dict:
            plan.append((param, param.name))
        else:
            unloaded.append(param)
    exact = {key for _, key in plan}
    if unloaded and not strict_load:
        unloaded = _match_by_prefix(unloaded, parameter_dict, plan)
    updates = [(param, _checked_value(fn, param, key, parameter_dict[key], strict_load))
               for param, key in plan]
    for param, arr in updates:
        param._data = np.array(arr, copy=True)  # the net never aliases the dict's arrays
    return [p.name for p in unloaded], [k for k in parameter_dict if k not in exact]
