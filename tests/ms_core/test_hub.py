"""ms.hub: torch checkpoints read without torch (zip and legacy formats, a restricted unpickler)
and torch's load_state_dict on a Cell (torch names mapped, strict rules)."""
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core.hub import TorchCheckpointError


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_dtypes_views_and_nesting_read_as_torch_wrote_them(tmp_path, legacy):
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    obj = {"state_dict": {"f64": base, "t": base.t(), "slice": base[1:3, ::2],  # strided views
                          "f16": base.half(), "i32": base.int(), "b": base > 5, "u8": base.byte(),
                          "bf16": torch.tensor([1.5, -2.25, 3e38], dtype=torch.bfloat16),
                          "empty": torch.zeros(0, 3), "scalar": torch.tensor(7)},
           "epoch": 3, "names": ["a", "b"], "p": torch.nn.Parameter(torch.ones(2))}
    path = tmp_path / "ck.pt"
    torch.save(obj, path, _use_new_zipfile_serialization=not legacy)
    got = ms.hub.load(str(path), map_location="cpu")
    assert got["epoch"] == 3 and got["names"] == ["a", "b"]
    for key, ref in obj["state_dict"].items():
        want = ref.float().numpy() if ref.dtype == torch.bfloat16 else ref.numpy()
        arr = got["state_dict"][key].asnumpy()
        assert arr.dtype == want.dtype and arr.shape == want.shape, key
        np.testing.assert_array_equal(arr, want)
    np.testing.assert_array_equal(got["p"].asnumpy(), np.ones(2, np.float32))


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /tmp/ms_core_hub_pwned",))


def test_a_pickle_that_runs_code_is_refused_before_anything_runs(tmp_path):
    marker = "/tmp/ms_core_hub_pwned"
    if os.path.exists(marker):
        os.remove(marker)
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2)}, path)
    with zipfile.ZipFile(path) as z:  # replace data.pkl by a pickle that calls os.system
        entries = {n: z.read(n) for n in z.namelist()}
    pkl = next(n for n in entries if n.endswith("data.pkl"))
    entries[pkl] = pickle.dumps({"w": _Evil()}, protocol=2)
    with zipfile.ZipFile(path, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)
    with pytest.raises(TorchCheckpointError, match="posix.system|os.system"):
        ms.hub.load(str(path))
    legacy = io.BytesIO()
    for part in (0x1950a86a20f9469cfc6c, 1001, {"little_endian": True}, {"w": _Evil()}):
        pickle.dump(part, legacy, protocol=2)
    legacy.seek(0)
    with pytest.raises(TorchCheckpointError, match="system"):
        ms.hub.load(legacy)
    assert not os.path.exists(marker)


def test_a_tensor_reaching_past_its_storage_is_refused(tmp_path):
    path = tmp_path / "oob.pt"
    torch.save({"w": torch.ones(4)}, path)
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    pkl = next(n for n in entries if n.endswith("data.pkl"))
    # size 4 -> 4000 with the same storage: the strided view would read other memory
    entries[pkl] = entries[pkl].replace(b"K\x04\x85", b"M\xa0\x0f\x85")
    with zipfile.ZipFile(path, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)
    with pytest.raises(TorchCheckpointError, match="reads past its storage"):
        ms.hub.load(str(path))


def test_not_a_checkpoint_raises_a_clear_error(tmp_path):
    path = tmp_path / "x.pt"
    path.write_bytes(b"hello world")
    with pytest.raises(TorchCheckpointError, match="not a torch checkpoint"):
        ms.hub.load(io.BytesIO(path.read_bytes()))
    with pytest.raises(ValueError, match="x.pt': it is neither an ms_core checkpoint nor a readable "
                                         "MindSpore checkpoint"):  # neither torch's nor ours
        ms.hub.load(str(path))


def _pair():
    t = torch.nn.Module()
    t.bn = torch.nn.BatchNorm2d(3)
    t.bn3 = torch.nn.BatchNorm3d(2)
    t.ln = torch.nn.LayerNorm(4)
    t.gn = torch.nn.GroupNorm(1, 3)
    t.emb = torch.nn.Embedding(5, 4)
    t.act = torch.nn.PReLU()
    t.conv1 = torch.nn.Conv1d(2, 3, 3)
    for p in t.state_dict().values():
        if p.is_floating_point():
            p.uniform_(0.5, 1.5)
    m = ms.nn.Cell()
    m.bn = ms.nn.BatchNorm2d(3)
    m.bn3 = ms.nn.BatchNorm3d(2)
    m.ln = ms.nn.LayerNorm((4,))
    m.gn = ms.nn.GroupNorm(1, 3)
    m.emb = ms.nn.Embedding(5, 4)
    m.act = ms.nn.PReLU()
    m.conv1 = ms.nn.Conv1d(2, 3, 3, has_bias=True)
    return t, m


def test_load_state_dict_maps_every_torch_name_to_the_layer_parameter():
    t, m = _pair()
    ret = ms.hub.load_state_dict(m, {k: v.numpy() for k, v in t.state_dict().items()})
    assert ret == ms.hub.IncompatibleKeys([], [])
    sd = t.state_dict()
    pairs = {"bn.gamma": "bn.weight", "bn.moving_variance": "bn.running_var",
             "bn3.bn2d.moving_mean": "bn3.running_mean", "ln.beta": "ln.bias",
             "gn.gamma": "gn.weight", "emb.embedding_table": "emb.weight", "act.w": "act.weight"}
    params = dict(m.parameters_and_names())
    for ms_name, torch_name in pairs.items():
        np.testing.assert_array_equal(params[ms_name].asnumpy(), sd[torch_name].numpy())
    # Conv1d: MindSpore's (out, in, 1, k) holds torch's (out, in, k)
    np.testing.assert_array_equal(params["conv1.weight"].asnumpy()[:, :, 0], sd["conv1.weight"].numpy())


class _TorchLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(11, 8)
        layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.decoder = torch.nn.Linear(8, 11)
        self.decoder.weight = self.embed.weight   # tied

    def forward(self, x):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.decoder(self.encoder(self.embed(x), mask=mask))


class _MsLM(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = ms.nn.Embedding(11, 8)
        layer = ms.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.encoder = ms.nn.TransformerEncoder(layer, 2)
        self.decoder = ms.nn.Dense(8, 11)
        self.decoder.weight = self.embed.embedding_table

    def construct(self, x):
        mask = ms.ops.triu(ms.ops.full((x.shape[1], x.shape[1]), float("-inf")), 1)
        return self.decoder(self.encoder(self.embed(x), src_mask=mask))


def test_torch_named_state_of_renamed_children_and_tied_weights_loads_once():
    """A Transformer layer's linear1/linear2 are MindSpore's dense1/dense2 (the layer tables'
    renames); torch's state dict names a tied weight twice (embed.weight, decoder.weight): it
    loads once, and the model computes torch's output."""
    torch.manual_seed(0)
    t = _TorchLM()
    sd = t.state_dict()
    assert sd["decoder.weight"] is not None and "encoder.layers.0.linear1.weight" in sd
    m = _MsLM()
    assert ms.hub.load_state_dict(m, sd) == ([], [])
    x = np.random.default_rng(0).integers(0, 11, (2, 5))
    want = t(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(m(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    params = dict(m.parameters_and_names())
    np.testing.assert_array_equal(params["encoder.layers.1.dense2.weight"].asnumpy(),
                                  sd["encoder.layers.1.linear2.weight"].numpy())
    # a missing key is named by its torch name
    del sd["encoder.layers.0.linear1.bias"]
    with pytest.raises(RuntimeError, match='"encoder.layers.0.linear1.bias"'):
        ms.hub.load_state_dict(m, sd)


def test_strict_rules_and_errors_are_torch_s():
    t, m = _pair()
    sd = {k: v.numpy() for k, v in t.state_dict().items()}
    del sd["emb.weight"]
    sd["extra.weight"] = np.zeros(2, np.float32)
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "emb.weight".*\n.*'
                                           r'Unexpected key\(s\) in state_dict: "extra.weight"'):
        ms.hub.load_state_dict(m, sd)
    assert ms.hub.load_state_dict(m, sd, strict=False) == (["emb.weight"], ["extra.weight"])
    sd["emb.weight"] = np.zeros((6, 4), np.float32)
    with pytest.raises(RuntimeError, match="size mismatch for emb.weight"):
        ms.hub.load_state_dict(m, sd, strict=False)
    # MindSpore names are taken too (a dict from ms.load_checkpoint)
    own = {p.name: p for _, p in m.parameters_and_names()}
    assert ms.hub.load_state_dict(m, own) == ([], [])


def test_download_is_cached_and_hash_checked(tmp_path, monkeypatch):
    src = tmp_path / "w.pth"
    torch.save({"w": torch.arange(3.0)}, src)
    import hashlib
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    good = src.with_name(f"w-{digest[:10]}.pth")
    src.rename(good)
    ms.hub.set_dir(tmp_path / "hub")
    try:
        sd = ms.hub.load_state_dict_from_url(good.as_uri(), progress=False, check_hash=True)
        assert ms.hub.get_dir() == str(tmp_path / "hub")
    finally:
        monkeypatch.setattr(ms.hub, "_hub_dir", None)
    np.testing.assert_array_equal(sd["w"].asnumpy(), [0, 1, 2])
    cached = tmp_path / "hub" / "checkpoints" / good.name
    assert cached.is_file()
    good.unlink()  # a second call reads the cache, never the URL
    sd = ms.hub.load_state_dict_from_url(good.as_uri(), model_dir=cached.parent)
    np.testing.assert_array_equal(sd["w"].asnumpy(), [0, 1, 2])


def test_load_reads_what_converted_code_saved(tmp_path):
    """torch.save(net.state_dict(), 'w.pt') became ms.save_checkpoint(net, 'w.pt') (-> w.pt.ckpt):
    torch.load('w.pt') as ms.hub.load finds it and loads it back by name."""
    net = ms.nn.SequentialCell(ms.nn.Dense(3, 2), ms.nn.BatchNorm1d(2))
    ms.save_checkpoint(net, str(tmp_path / "w.pt"))
    other = ms.nn.SequentialCell(ms.nn.Dense(3, 2), ms.nn.BatchNorm1d(2))
    assert ms.hub.load_state_dict(other, ms.hub.load(str(tmp_path / "w.pt"))) == ([], [])
    for (_, a), (_, b) in zip(net.parameters_and_names(), other.parameters_and_names()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with pytest.raises(ValueError, match="does not exist"):
        ms.hub.load(str(tmp_path / "missing.pt"))
