"""Checkpoints: round trips in every save form, MindSpore's load semantics, and safety — corrupt,
truncated, garbage or hostile files raise a clear error naming the file and change nothing;
loading never executes anything; writes are atomic."""
import hashlib
import json
import os
import pickle
import struct

import numpy as np
import pytest

import ms_core as ms
from ms_core import nn
from ms_core.train import serialization as ser


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.bn = nn.Dense(3, 3)
        self.fc2 = nn.Dense(3, 2, weight_init="ones")

    def construct(self, x):
        return self.fc2(self.bn(self.fc1(x)))


def fresh(seed):
    ms.set_seed(seed)
    return Net()


def values(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def test_roundtrip_cell(tmp_path):
    a, b = fresh(0), fresh(1)
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(a, path)
    params = ms.load_checkpoint(path)
    assert list(params) == [p.name for p in a.get_parameters()]
    assert all(isinstance(p, ms.Parameter) and p.name == k for k, p in params.items())
    param_not_load, ckpt_not_load = ms.load_param_into_net(b, params)
    assert param_not_load == [] and ckpt_not_load == []
    for k, v in values(a).items():
        np.testing.assert_array_equal(values(b)[k], v)
    # the net does not alias the loaded dict
    params["fc1.weight"].set_data(ms.Tensor(np.zeros((3, 4), np.float32)))
    assert not np.all(b.fc1.weight.asnumpy() == 0)


def test_load_with_net_argument_and_extension(tmp_path):
    a, b = fresh(0), fresh(1)
    ms.save_checkpoint(a, str(tmp_path / "model"))  # '.ckpt' appended, as MindSpore does
    assert os.path.exists(tmp_path / "model.ckpt")
    ms.load_checkpoint(str(tmp_path / "model.ckpt"), net=b)
    np.testing.assert_array_equal(a.fc2.bias.asnumpy(), b.fc2.bias.asnumpy())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64,
                                   np.uint8, np.bool_, np.complex64])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4)])
def test_list_form_dtypes_and_shapes(tmp_path, dtype, shape):
    rng = np.random.default_rng(0)
    arr = (rng.standard_normal(shape) * 10).astype(dtype)
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint([{"name": "x", "data": ms.Tensor(arr)}], path)
    got = ms.load_checkpoint(path)["x"]
    assert got.shape == shape and got.asnumpy().dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.asnumpy(), arr)


def test_dict_form_append_dict_and_requires_grad(tmp_path):
    frozen = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="frozen", requires_grad=False)
    path = str(tmp_path / "d.ckpt")
    ms.save_checkpoint({"frozen": frozen, "t": ms.Tensor(np.arange(3))}, path,
                       append_dict={"epoch_num": 7, "lr": 0.5, "note": "hello ✓", "flag": True})
    got = ms.load_checkpoint(path)
    assert got["frozen"].requires_grad is False
    np.testing.assert_array_equal(got["t"].asnumpy(), np.arange(3))
    assert int(got["epoch_num"].asnumpy()) == 7 and got["epoch_num"].dtype == ms.int64
    assert float(got["lr"].asnumpy()) == 0.5 and got["lr"].dtype == ms.float32
    assert got["note"] == "hello ✓"
    assert bool(got["flag"].asnumpy()) is True


def test_choice_filter_and_specify_prefix(tmp_path):
    a = fresh(0)
    path = str(tmp_path / "p.ckpt")
    ms.save_checkpoint(a, path, choice_func=lambda name: not name.startswith("bn"))
    assert "bn.weight" not in ms.load_checkpoint(path)
    assert list(ms.load_checkpoint(path, filter_prefix="fc1")) == ["fc2.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, filter_prefix=["fc1", "fc2.b"])) == ["fc2.weight"]
    assert list(ms.load_checkpoint(path, specify_prefix="fc2")) == ["fc2.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == \
        ["fc1.bias", "fc2.bias"]
    # MindSpore 2.10: the prefixes combine, and override choice_func
    assert list(ms.load_checkpoint(path, specify_prefix="fc", filter_prefix="fc1")) == \
        ["fc2.weight", "fc2.bias"]
    assert list(ms.load_checkpoint(path, specify_prefix="fc2", choice_func=lambda n: False)) == \
        ["fc2.weight", "fc2.bias"]
    with pytest.raises(ValueError, match="empty after filter or specify"):
        ms.load_checkpoint(path, specify_prefix="nothing")


def test_load_param_into_net_reports_both_sides():
    net = fresh(0)
    params = {"fc1.weight": ms.Parameter(ms.Tensor(np.zeros((3, 4), np.float32)), name="fc1.weight"),
              "extra": ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="extra")}
    param_not_load, ckpt_not_load = ms.load_param_into_net(net, params)
    assert param_not_load == ["fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]
    assert ckpt_not_load == ["extra"]
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), np.zeros((3, 4)))


def test_dtype_conversion_and_strict_load():
    net = fresh(0)
    half = {"fc1.bias": ms.Tensor(np.ones(3, np.float16))}
    ms.load_param_into_net(net, half)  # non-strict: float16 -> float32
    assert net.fc1.bias.dtype == ms.float32
    np.testing.assert_array_equal(net.fc1.bias.asnumpy(), np.ones(3))
    with pytest.raises(RuntimeError, match="'fc1.bias'.*dtype"):
        ms.load_param_into_net(net, half, strict_load=True)
    with pytest.raises(RuntimeError, match="dtype"):
        ms.load_param_into_net(net, {"fc1.bias": ms.Tensor(np.ones(3, np.int32))})


def test_shape_mismatch_names_parameter_and_changes_nothing(tmp_path):
    net = fresh(0)
    before = values(net)
    good = {k: ms.Tensor(np.full(v.shape, 5, v.dtype)) for k, v in before.items()}
    good["fc2.weight"] = ms.Tensor(np.zeros((5, 5), np.float32))  # the last parameter is wrong
    with pytest.raises(RuntimeError, match="'fc2.weight'.*shape \\[2, 3\\].*\\[5, 5\\]"):
        ms.load_param_into_net(net, good)
    for k, v in values(net).items():  # fc1/bn were valid but not touched either
        np.testing.assert_array_equal(v, before[k])
    path = str(tmp_path / "bad.ckpt")
    ms.save_checkpoint([{"name": k, "data": v} for k, v in good.items()], path)
    with pytest.raises(RuntimeError, match="fc2.weight"):
        ms.load_checkpoint(path, net=net)
    for k, v in values(net).items():
        np.testing.assert_array_equal(v, before[k])


def test_resume_training_with_optimizer_state(tmp_path):
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((8, 2)).astype(np.float32))

    def trainer(seed):
        net = fresh(seed)
        return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                        nn.Adam(net.trainable_params(), 0.01))

    net_a, train_a = trainer(0)
    for _ in range(3):
        train_a(x, y)
    path = str(tmp_path / "train.ckpt")
    ms.save_checkpoint(train_a, path)
    net_b, train_b = trainer(5)
    param_not_load, _ = ms.load_param_into_net(train_b, ms.load_checkpoint(path))
    assert param_not_load == []
    assert int(train_b.optimizer.global_step.asnumpy()[0]) == 3
    for _ in range(3):
        la, lb = train_a(x, y), train_b(x, y)
        np.testing.assert_array_equal(la.asnumpy(), lb.asnumpy())
    np.testing.assert_array_equal(net_a.fc1.weight.asnumpy(), net_b.fc1.weight.asnumpy())


# --- safety --------------------------------------------------------------------------------------
@pytest.fixture
def good_file(tmp_path):
    path = str(tmp_path / "good.ckpt")
    ms.save_checkpoint(fresh(0), path, append_dict={"note": "text"})
    return path


def open_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _cut_points(data):
    header_len = struct.unpack_from("<Q", data, 16)[0]
    payload = 56 + header_len
    return sorted({0, 1, 11, 12, 15, 16, 23, 24, 55, 56, 56 + header_len // 2, payload - 1, payload,
                   payload + 1, (payload + len(data)) // 2, len(data) - 1})


def assert_rejected_and_untouched(path, match=None):
    net = fresh(3)
    before = values(net)
    with pytest.raises(ValueError, match=match) as info:
        ms.load_checkpoint(path, net=net)
    assert os.path.basename(path) in str(info.value)
    for k, v in values(net).items():
        np.testing.assert_array_equal(v, before[k])
    return info.value


def test_truncation_at_many_offsets(good_file, tmp_path):
    data = open_bytes(good_file)
    cuts = _cut_points(data)
    assert len(cuts) >= 12
    for cut in cuts:
        path = str(tmp_path / f"cut{cut}.ckpt")
        with open(path, "wb") as f:
            f.write(data[:cut])
        err = assert_rejected_and_untouched(path)
        assert isinstance(err, ser.CheckpointError)


def test_trailing_bytes_rejected(good_file, tmp_path):
    path = str(tmp_path / "long.ckpt")
    with open(path, "wb") as f:
        f.write(open_bytes(good_file) + b"\x00")
    assert_rejected_and_untouched(path, "trailing bytes")


@pytest.mark.parametrize("where", ["magic", "version", "header", "payload", "payload_end"])
def test_flipped_byte_rejected(good_file, tmp_path, where):
    data = bytearray(open_bytes(good_file))
    header_len = struct.unpack_from("<Q", data, 16)[0]
    pos = {"magic": 2, "version": 12, "header": 56 + header_len // 2, "payload": 56 + header_len + 5,
           "payload_end": len(data) - 1}[where]
    data[pos] ^= 0x40
    path = str(tmp_path / f"flip_{where}.ckpt")
    with open(path, "wb") as f:
        f.write(bytes(data))
    assert_rejected_and_untouched(path)


@pytest.mark.parametrize("content", [b"", b"garbage" * 100, bytes(range(256)) * 40,
                                     b"MSCORE-CKPT\x00" + b"\xff" * 200])
def test_garbage_rejected(tmp_path, content):
    path = str(tmp_path / "junk.ckpt")
    with open(path, "wb") as f:
        f.write(content)
    assert_rejected_and_untouched(path)


class _Boom:
    def __reduce__(self):
        return (open, (os.environ.get("MSCORE_TEST_MARKER", "/nonexistent/marker"), "w"))


def test_pickle_is_never_executed(tmp_path, monkeypatch):
    marker = tmp_path / "executed"
    monkeypatch.setenv("MSCORE_TEST_MARKER", str(marker))
    path = str(tmp_path / "evil.ckpt")
    with open(path, "wb") as f:
        pickle.dump({"fc1.weight": _Boom()}, f)
    assert_rejected_and_untouched(path, "neither an ms_core checkpoint nor a readable MindSpore")
    assert not marker.exists()


def _forge(path, header, payload):
    """A file with valid checksums around a hand-written header (what an attacker controls)."""
    hb = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<12sIQ32s", b"MSCORE-CKPT\x00", 1, len(hb), hashlib.sha256(hb).digest()))
        f.write(hb)
        f.write(payload)


def _header(payload, **entry):
    rec = {"name": "fc1.weight", "kind": "tensor", "dtype": "float32", "shape": [3, 4], "offset": 0,
           "nbytes": 48, "requires_grad": True}
    rec.update(entry)
    return {"format": "ms_core-checkpoint", "version": 1, "payload_size": len(payload),
            "payload_sha256": hashlib.sha256(payload).hexdigest(), "entries": [rec]}


@pytest.mark.parametrize("entry,match", [
    (dict(dtype="object"), "unsupported kind/dtype"),
    (dict(dtype="O"), "unsupported kind/dtype"),
    (dict(kind="pickle"), "unsupported kind/dtype"),
    (dict(shape=[3, 5]), "declares shape"),
    (dict(shape=[-3, -4]), "invalid shape"),
    (dict(shape=[2 ** 40, 2 ** 40]), "declares shape"),
    (dict(offset=-8), "invalid shape"),
    (dict(offset=8), "invalid shape"),
    (dict(nbytes=4096), "invalid shape"),
    (dict(name=""), "missing or duplicate name"),
    (dict(shape="3x4"), "invalid shape"),
])
def test_forged_headers_rejected(tmp_path, entry, match):
    payload = np.zeros((3, 4), np.float32).tobytes()
    path = str(tmp_path / "forged.ckpt")
    _forge(path, _header(payload, **entry), payload)
    assert_rejected_and_untouched(path, match)


def test_forged_header_that_is_valid_loads(tmp_path):
    payload = np.arange(12, dtype="<f4").tobytes()
    path = str(tmp_path / "ok.ckpt")
    _forge(path, _header(payload), payload)  # the forging helper itself writes a readable file
    np.testing.assert_array_equal(ms.load_checkpoint(path)["fc1.weight"].asnumpy(),
                                  np.arange(12, dtype=np.float32).reshape(3, 4))


def test_duplicate_entries_in_header_rejected(tmp_path):
    payload = np.zeros((3, 4), np.float32).tobytes()
    header = _header(payload)
    header["entries"].append(dict(header["entries"][0]))
    path = str(tmp_path / "dup.ckpt")
    _forge(path, header, payload)
    assert_rejected_and_untouched(path, "duplicate name")


def test_atomic_write_keeps_old_file_on_failure(good_file, monkeypatch):
    before = open_bytes(good_file)
    directory = os.path.dirname(good_file)
    listing = sorted(os.listdir(directory))

    def broken_fsync(fd):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(ser.os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint(fresh(9), good_file)
    monkeypatch.undo()
    assert open_bytes(good_file) == before  # the old checkpoint is intact
    assert sorted(os.listdir(directory)) == listing  # and no temporary file is left behind
    ms.load_checkpoint(good_file)


def test_overwrite_replaces_file(good_file):
    net = fresh(42)
    ms.save_checkpoint(net, good_file)
    np.testing.assert_array_equal(ms.load_checkpoint(good_file)["fc1.weight"].asnumpy(),
                                  net.fc1.weight.asnumpy())
    assert not [n for n in os.listdir(os.path.dirname(good_file)) if n.endswith(".tmp")]


@pytest.mark.parametrize("call,exc,msg", [
    (lambda d: ms.load_checkpoint(os.path.join(d, "missing.ckpt")), ValueError, "does not exist"),
    (lambda d: ms.load_checkpoint(os.path.join(d, "model.pt")), ValueError, "should end with '.ckpt'"),
    (lambda d: ms.load_checkpoint(5), TypeError, "'ckpt_file_name' must be a str"),
    (lambda d: ms.load_checkpoint(os.path.join(d, "x.ckpt"), dec_key=b"k"), ValueError, "not supported"),
    (lambda d: ms.load_checkpoint(os.path.join(d, "x.ckpt"), filter_prefix=3), TypeError,
     "'filter_prefix'"),
    (lambda d: ms.save_checkpoint(fresh(0), os.path.join(d, "no", "dir.ckpt")), ValueError,
     "does not exist"),
    (lambda d: ms.save_checkpoint("net", os.path.join(d, "s.ckpt")), TypeError, "'save_obj' must be"),
    (lambda d: ms.save_checkpoint([{"name": "a"}], os.path.join(d, "s.ckpt")), TypeError,
     "'name': str, 'data': Tensor"),
    (lambda d: ms.save_checkpoint([{"name": "a", "data": ms.Tensor(1.0)}] * 2,
                                  os.path.join(d, "s.ckpt")), ValueError, "more than once"),
    (lambda d: ms.save_checkpoint([{"name": "a", "data": object()}], os.path.join(d, "s.ckpt")),
     TypeError, "must be a Tensor"),
    (lambda d: ms.save_checkpoint(fresh(0), os.path.join(d, "s.ckpt"), append_dict={"f": [1]}),
     TypeError, "'append_dict' values"),
    (lambda d: ms.save_checkpoint(fresh(0), os.path.join(d, "s.ckpt"), enc_key=b"k"), ValueError,
     "not supported"),
    (lambda d: ms.load_param_into_net("net", {}), TypeError, "'net' must be a Cell"),
    (lambda d: ms.load_param_into_net(fresh(0), [1]), TypeError, "'parameter_dict' must be a dict"),
    (lambda d: ms.load_param_into_net(fresh(0), {"fc1.bias": "x"}), TypeError, "Parameter or Tensor"),
])
def test_validation(tmp_path, call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(str(tmp_path))


# --- MindSpore's own protobuf layout -------------------------------------------------------------
# Bytes written by real MindSpore 2.10:
#   ms.save_checkpoint([{"name": "s", "data": Tensor(np.float32(3.5))},
#                       {"name": "v", "data": Tensor(np.arange(3, dtype=np.int32))},
#                       {"name": "h", "data": Tensor(np.ones((2, 2), np.float16))}], path,
#                      append_dict={"epoch": 3, "note": "héllo", "lr": 0.5, "flag": True})
MS_SAVED = (b'\n\x14\n\x01s\x12\x0f\x12\x07Float32\x1a\x04\x00\x00`@\n\x1c\n\x01v\x12\x17\x08\x03\x12'
            b'\x05Int32\x1a\x0c\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\n\x1c\n\x01h\x12\x17\x08'
            b'\x02\x08\x02\x12\x07Float16\x1a\x08\x00<\x00<\x00<\x00<\n\x1a\n\x05epoch\x12\x11\x12\x05'
            b'Int64\x1a\x08\x03\x00\x00\x00\x00\x00\x00\x00\n%\n\x04note\x12\x1d\x08\x00\x12\x03str\x1a'
            b'\x14h\x00\x00\x00\xe9\x00\x00\x00l\x00\x00\x00l\x00\x00\x00o\x00\x00\x00\n\x15\n\x02lr\x12'
            b'\x0f\x12\x07Float32\x1a\x04\x00\x00\x00?\n\x11\n\x04flag\x12\t\x12\x04Bool\x1a\x01\x01')
#   ... and the same "v" alone with crc_check=True (MindSpore's CRC32 trailer)
MS_CRC = (b'\n\x1c\n\x01v\x12\x17\x08\x03\x12\x05Int32\x1a\x0c\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00'
          b'\x00\x00crc_num\x00\x00\x00\x00\x00\x004\x17\xc4S')


def write(tmp_path, name, data):
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def test_reads_checkpoints_written_by_mindspore(tmp_path):
    got = ms.load_checkpoint(write(tmp_path, "ms.ckpt", MS_SAVED))
    assert list(got) == ["s", "v", "h", "epoch", "note", "lr", "flag"]
    assert got["s"].shape == () and float(got["s"].asnumpy()) == 3.5
    np.testing.assert_array_equal(got["v"].asnumpy(), np.arange(3, dtype=np.int32))
    assert got["h"].dtype == ms.float16 and got["h"].shape == (2, 2)
    assert got["epoch"].dtype == ms.int64 and int(got["epoch"].asnumpy()) == 3
    assert got["note"] == "héllo"
    assert bool(got["flag"].asnumpy()) is True
    crc = ms.load_checkpoint(write(tmp_path, "crc.ckpt", MS_CRC))
    np.testing.assert_array_equal(crc["v"].asnumpy(), [0, 1, 2])


def test_writes_mindspore_layout_that_roundtrips(tmp_path):
    a, b = fresh(0), fresh(1)
    path = str(tmp_path / "msfmt.ckpt")
    ms.save_checkpoint(a, path, append_dict={"epoch": 2, "note": "x"}, mindspore_format=True)
    data = open_bytes(path)
    assert data[:1] == b"\n" and data[-17:-10] == b"crc_num"  # protobuf records + CRC trailer
    got = ms.load_checkpoint(path, net=b)
    assert got["note"] == "x" and int(got["epoch"].asnumpy()) == 2
    for k, v in values(a).items():
        np.testing.assert_array_equal(values(b)[k], v)
    # the writer reproduces MindSpore's bytes for the same content (plus the CRC trailer)
    path2 = str(tmp_path / "v.ckpt")
    ms.save_checkpoint([{"name": "v", "data": ms.Tensor(np.arange(3, dtype=np.int32))}], path2,
                       mindspore_format=True)
    assert open_bytes(path2) == MS_CRC


def test_mindspore_slices_are_joined(tmp_path):
    # MindSpore splits big parameters into consecutive records with the same name.
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    rec = [ser._pb_len(1, ser._pb_len(1, b"w") + ser._pb_len(2, b"".join(
        ser._pb_key(1, 0) + ser._pb_uvarint(d) for d in (4, 3)) + ser._pb_len(2, b"Float32")
        + ser._pb_len(3, part.tobytes()))) for part in np.array_split(w, 2)]
    got = ms.load_checkpoint(write(tmp_path, "sliced.ckpt", b"".join(rec)))
    np.testing.assert_array_equal(got["w"].asnumpy(), w)


def test_mindspore_layout_corruption(tmp_path):
    # With the CRC trailer every cut and flipped byte is caught — except a cut that removes the
    # whole 17-byte trailer, which leaves a valid trailer-less MindSpore file (same content).
    body = len(MS_CRC) - 17
    for cut in range(1, len(MS_CRC)):
        if cut != body:
            assert_rejected_and_untouched(write(tmp_path, f"c{cut}.ckpt", MS_CRC[:cut]))
    assert list(ms.load_checkpoint(write(tmp_path, "body.ckpt", MS_CRC[:body]))) == ["v"]
    flipped = bytearray(MS_CRC)
    flipped[20] ^= 1
    assert_rejected_and_untouched(write(tmp_path, "flip.ckpt", bytes(flipped)), "CRC32")
    # Without it, a cut inside a record is caught; a cut between records is a shorter checkpoint
    # (the missing names then show up in param_not_load).
    first_record = 2 + MS_SAVED[1]
    for cut in (1, 5, 17, first_record + 3, len(MS_SAVED) - 1):
        assert_rejected_and_untouched(write(tmp_path, f"s{cut}.ckpt", MS_SAVED[:cut]))
    assert list(ms.load_checkpoint(write(tmp_path, "short.ckpt", MS_SAVED[:first_record]))) == ["s"]


@pytest.mark.parametrize("data,match", [
    (b"\n\x05\n\x01s\x18\x01", "unexpected field"),                       # unknown field in Value
    (b"\n\x0e\n\x01s\x12\x09\x12\x03Foo\x1a\x02\x00\x00", "unsupported dtype"),
    (b"\n\x12\n\x01s\x12\x0d\x08\x05\x12\x05Int32\x1a\x02\x00\x00", "declares shape"),
    (b"\n\x05\n\x01s\x1a\x00", "map tensors"),
    (b"\n\x03\n\x01s", "lacks its name or tensor"),
    (b"\n\xff\xff\xff\xff\x0f", "cut short"),
])
def test_mindspore_layout_forgeries(tmp_path, data, match):
    assert_rejected_and_untouched(write(tmp_path, "forged.ckpt", data), match)


ORACLE = os.environ.get("MS_ORACLE_PYTHON")


@pytest.mark.skipif(not ORACLE, reason="real MindSpore not available (set MS_ORACLE_PYTHON)")
def test_real_mindspore_reads_ms_core_output(tmp_path):
    import subprocess
    a = fresh(0)
    path = str(tmp_path / "for_ms.ckpt")
    ms.save_checkpoint(a, path, append_dict={"note": "hi"}, mindspore_format=True)
    code = ("import sys, mindspore as ms\n"
            "d = ms.load_checkpoint(sys.argv[1], crc_check=True)\n"
            "print(d['note']); print(repr(d['fc1.weight'].asnumpy().tolist()))\n")
    out = subprocess.run([ORACLE, "-c", code, path], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "hi"
    np.testing.assert_array_equal(np.array(eval(lines[1]), np.float32), a.fc1.weight.asnumpy())


# --- non-strict prefix fallback (each expected result printed by MindSpore 2.10 for the same call)
def _full(name, shape, v):
    return ms.Parameter(ms.Tensor(np.full(shape, v, np.float32)), name=name)


class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 3)
        self.head = nn.Dense(3, 1)

    def construct(self, x):
        return self.head(self.fc(x))


def _firsts(net):
    return [float(p.asnumpy().ravel()[0]) for p in net.get_parameters()]


def test_prefix_fallback_standalone_layer_takes_prefixed_names():
    d = nn.Dense(2, 3)
    res = ms.load_param_into_net(d, {"fc.weight": _full("fc.weight", (3, 2), 1.0),
                                     "fc.bias": _full("fc.bias", (3,), 2.0)})
    assert res == ([], ["fc.weight", "fc.bias"]) and _firsts(d) == [1.0, 2.0]


def test_prefix_fallback_wrapper_checkpoint_and_two_prefixes():
    n = Two()
    shapes = [("backbone.fc.weight", (3, 2)), ("backbone.fc.bias", (3,)),
              ("backbone.head.weight", (1, 3)), ("backbone.head.bias", (1,)), ("moments.x", (1,))]
    d = {k: _full(k, s, i) for i, (k, s) in enumerate(shapes)}
    assert ms.load_param_into_net(n, d) == ([], [k for k, _ in shapes])
    assert _firsts(n) == [0.0, 1.0, 2.0, 3.0]
    n = Two()
    d = {"fc.weight": _full("fc.weight", (3, 2), 5.0), "a.fc.bias": _full("a.fc.bias", (3,), 6.0),
         "b.head.weight": _full("b.head.weight", (1, 3), 7.0),
         "b.head.bias": _full("b.head.bias", (1,), 8.0)}
    assert ms.load_param_into_net(n, d) == ([], ["a.fc.bias", "b.head.weight", "b.head.bias"])
    assert _firsts(n) == [5.0, 6.0, 7.0, 8.0]


def test_prefix_fallback_off_when_strict_and_no_dot_boundary():
    n = Two()
    before = _firsts(n)
    res = ms.load_param_into_net(n, {"x.fc.weight": _full("x.fc.weight", (3, 2), 9.0)},
                                 strict_load=True)
    assert res == (["fc.weight", "fc.bias", "head.weight", "head.bias"], ["x.fc.weight"])
    assert _firsts(n) == before
    d = nn.Dense(2, 3)  # MindSpore matches plain suffixes: 'myweight' ends with 'weight'
    assert ms.load_param_into_net(d, {"myweight": _full("myweight", (3, 2), 4.0)}) == \
        (["bias"], ["myweight"])
    assert _firsts(d)[0] == 4.0


def test_prefix_fallback_shape_error_changes_nothing():
    n = Two()
    before = values(n)
    d = {"fc.weight": _full("fc.weight", (3, 2), 5.0), "p.head.weight": _full("p.head.weight", (2, 2), 1.0)}
    with pytest.raises(RuntimeError, match="'head.weight' \\(loaded from 'p.head.weight'\\) in 'net'"):
        ms.load_param_into_net(n, d)
    for k, v in values(n).items():
        np.testing.assert_array_equal(v, before[k])


def _mutations(data, rng, n):
    """Random single-byte flips, truncations, insertions and deletions of `data`."""
    for _ in range(n):
        kind = rng.integers(4)
        pos = int(rng.integers(len(data)))
        if kind == 0:
            out = bytearray(data)
            out[pos] ^= int(rng.integers(1, 256))
        elif kind == 1:
            out = data[:pos]
        elif kind == 2:
            out = data[:pos] + bytes(rng.integers(0, 256, int(rng.integers(1, 9))).astype(np.uint8)) + data[pos:]
        else:
            out = data[:pos] + data[pos + int(rng.integers(1, 9)):]
        yield bytes(out)


@pytest.mark.parametrize("mindspore_format", [False, True])
def test_fuzzed_files_always_raise_the_checkpoint_error(tmp_path, mindspore_format):
    # Every mutation of a checksummed file is rejected with CheckpointError (a ValueError) — never
    # another exception type, never a silently different load.
    path = str(tmp_path / "base.ckpt")
    ms.save_checkpoint(fresh(0), path, append_dict={"note": "text", "epoch": 1},
                       mindspore_format=mindspore_format)
    data = open_bytes(path)
    rng = np.random.default_rng(123)
    bad = str(tmp_path / "bad.ckpt")
    for mutated in _mutations(data, rng, 300):
        if mutated == data:
            continue
        with open(bad, "wb") as f:
            f.write(mutated)
        try:
            ms.load_checkpoint(bad)
        except ser.CheckpointError:
            continue
        if mindspore_format and mutated == data[:len(data) - 17]:
            continue  # the trailer cut off whole: a valid trailer-less MindSpore file
        raise AssertionError(f"a mutated file loaded: {len(mutated)} bytes")


def test_fuzzed_mindspore_files_without_crc_never_crash(tmp_path):
    # Without a CRC nothing can catch a changed value byte, but the parser must still only ever
    # return a dict or raise CheckpointError.
    rng = np.random.default_rng(7)
    bad = str(tmp_path / "bad.ckpt")
    loaded = rejected = 0
    for mutated in _mutations(MS_SAVED, rng, 400):
        with open(bad, "wb") as f:
            f.write(mutated)
        try:
            ms.load_checkpoint(bad)
            loaded += 1
        except ser.CheckpointError:
            rejected += 1
    assert rejected > 200 and loaded + rejected == 400


def test_pathlib_paths(tmp_path):
    net = fresh(0)
    ms.save_checkpoint(net, tmp_path / "p.ckpt")
    assert list(ms.load_checkpoint(tmp_path / "p.ckpt"))[0] == "fc1.weight"
