"""ms.hub.save / ms.hub.load: the nested objects training scripts give torch.save (model, optimizer
and scheduler state, Python numbers) written as checkpoints, never pickled, and read back exactly;
a run resumed from one continues as torch's does."""
import io
import math

import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core.train import nested_checkpoint
from ms_core.train.serialization import MAGIC


def _net():
    ms.set_seed(0)
    return ms.nn.SequentialCell([ms.nn.Dense(3, 4), ms.nn.BatchNorm1d(4), ms.nn.Dense(4, 2)])


def test_a_training_checkpoint_comes_back_with_its_types_and_bits(tmp_path):
    net = _net()
    opt = ms.experimental.optim.AdamW(net.trainable_params(), lr=0.1)
    sched = ms.experimental.optim.lr_scheduler.ReduceLROnPlateau(opt)
    obj = {"model": net.parameters_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
           "epoch": 3, "best": float("inf"), "nan": float("nan"), "lr": 0.1 + 1e-17 * 3, "third": 1 / 3,
           "tuple": (1, "a", None, False), "np64": np.float64(1 / 7), "i32": np.int32(-5),
           "arr": np.arange(6, dtype=np.int64).reshape(2, 3), 7: ["int key"], (1, 2): "tuple key"}
    path = tmp_path / "ckpt.pt"
    ms.hub.save(obj, str(path))
    assert path.is_file() and not (tmp_path / "ckpt.pt.ckpt").exists()   # exactly the path given
    back = ms.hub.load(str(path))
    assert list(back) == list(obj)
    for name, p in net.parameters_dict().items():
        assert isinstance(back["model"][name], ms.Tensor)
        np.testing.assert_array_equal(back["model"][name].asnumpy(), p.asnumpy())
    assert back["optimizer"] == opt.state_dict()
    assert back["scheduler"]["mode_worse"] == math.inf and back["scheduler"] == sched.state_dict()
    assert back["epoch"] == 3 and type(back["epoch"]) is int
    assert back["best"] == math.inf and math.isnan(back["nan"])
    assert back["lr"] == obj["lr"] and back["third"] == 1 / 3          # doubles, bit for bit
    assert back["tuple"] == (1, "a", None, False) and isinstance(back["tuple"], tuple)
    assert type(back["np64"]) is np.float64 and back["np64"] == np.float64(1 / 7)
    assert type(back["i32"]) is np.int32 and back["i32"] == -5
    assert back["arr"].dtype == np.int64 and isinstance(back["arr"], np.ndarray)
    np.testing.assert_array_equal(back["arr"], obj["arr"])
    assert back[7] == ["int key"] and back[(1, 2)] == "tuple key"


def test_the_file_is_mindsporeformat_when_it_can_be_and_the_safe_format_otherwise(tmp_path):
    net = _net()
    ms.hub.save({"model": net.parameters_dict(), "epoch": 1}, str(tmp_path / "a.pt"))
    assert not (tmp_path / "a.pt").read_bytes().startswith(MAGIC)   # MindSpore's protobuf layout
    # MindSpore's load_checkpoint reads it: the entries by path, the structure as a str
    (tmp_path / "a.ckpt").write_bytes((tmp_path / "a.pt").read_bytes())
    flat = ms.load_checkpoint(str(tmp_path / "a.ckpt"))
    assert set(flat) == {f"model/{n}" for n in net.parameters_dict()} | {nested_checkpoint.STRUCTURE}
    assert isinstance(flat[nested_checkpoint.STRUCTURE], str)
    ms.hub.save({"z": np.array([1 + 2j], np.complex64)}, str(tmp_path / "c.pt"))  # no MindSpore type
    assert (tmp_path / "c.pt").read_bytes().startswith(MAGIC)
    np.testing.assert_array_equal(ms.hub.load(str(tmp_path / "c.pt"))["z"], [1 + 2j])


def test_a_flat_state_dict_keeps_its_names_and_a_file_object_works():
    net = _net()
    buf = io.BytesIO()
    ms.hub.save(net.parameters_dict(), buf)
    buf.seek(0)
    back = ms.hub.load(buf)
    assert list(back) == list(net.parameters_dict())
    fresh = _net()
    ms.hub.load_state_dict(fresh, back)
    for a, b in zip(fresh.get_parameters(), net.get_parameters()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("obj, where, what", [
    ({"model": "net"}, "model", "a whole network"),
    ({"fn": len}, "fn", "function or class"),
    ({"x": [1, object()]}, "x/1", "object, which only pickle can save"),
])
def test_what_is_not_data_is_refused_by_its_path(tmp_path, obj, where, what):
    obj = {k: (_net() if v == "net" else v) for k, v in obj.items()}
    with pytest.raises(TypeError, match=f"For 'save', {where} is .*{what}"):
        ms.hub.save(obj, str(tmp_path / "x.pt"))
    assert not (tmp_path / "x.pt").exists()


def test_a_corrupt_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "t.pt"
    ms.hub.save({"a": np.ones(3, np.float32), "step": 2}, str(path))
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(data[:-12]))
    with pytest.raises(ValueError, match="t.pt"):
        ms.hub.load(str(path))


def _train(model, opt, sched, data, steps):
    """Training steps of torch or ms_core (same data), returning the losses."""
    losses = []
    for x, y in data[:steps]:
        if isinstance(model, torch.nn.Module):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(torch.tensor(x)), torch.tensor(y))
            loss.backward()
            opt.step()
        else:
            fn = ms.value_and_grad(lambda a, b: ms.ops.mse_loss(model(a), b), None, opt.parameters)
            loss, grads = fn(ms.Tensor(x), ms.Tensor(y))
            opt(grads)
        sched.step()
        losses.append(loss.item())
    return losses


def test_a_resumed_run_continues_bit_for_bit_and_as_torch():
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32))
            for _ in range(8)]
    w1, b1 = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    w2, b2 = rng.standard_normal((2, 5)).astype(np.float32), rng.standard_normal(2).astype(np.float32)

    def ms_model():
        net = ms.nn.SequentialCell([ms.nn.Dense(3, 5), ms.nn.Tanh(), ms.nn.Dense(5, 2)])
        for p, v in zip(net.trainable_params(), (w1, b1, w2, b2)):
            p.set_data(ms.Tensor(v))
        opt = ms.experimental.optim.AdamW(net.trainable_params(), lr=0.05, weight_decay=0.1)
        sched = ms.experimental.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        return net, opt, sched

    tnet = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    with torch.no_grad():
        for p, v in zip(tnet.parameters(), (w1, b1, w2, b2)):
            p.copy_(torch.tensor(v))
    topt = torch.optim.AdamW(tnet.parameters(), lr=0.05, weight_decay=0.1)
    want = _train(tnet, topt, torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.5), data, 8)

    whole = ms_model()
    straight = _train(*whole, data, 8)
    first = ms_model()
    head = _train(*first, data, 5)
    buf = io.BytesIO()
    ms.hub.save({"model": first[0].parameters_dict(), "opt": first[1].state_dict(),
                 "sched": first[2].state_dict(), "step": 5}, buf)
    buf.seek(0)
    state = ms.hub.load(buf)
    again = ms_model()
    ms.hub.load_state_dict(again[0], state["model"])
    again[1].load_state_dict(state["opt"])
    again[2].load_state_dict(state["sched"])
    tail = _train(again[0], again[1], again[2], data[state["step"]:], 3)
    assert head + tail == straight                                   # bit for bit
    for a, b in zip(again[0].trainable_params(), whole[0].trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    np.testing.assert_allclose(straight, want, rtol=1e-5)
    for p, q in zip(again[0].trainable_params(), tnet.parameters()):
        np.testing.assert_allclose(p.asnumpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_a_config_object_beside_the_weights_comes_back_as_its_attributes(tmp_path):
    # what torch.save pickles in training checkpoints: 'config': GPTConfig(...), 'args': argparse.Namespace
    import argparse
    import dataclasses
    import types

    @dataclasses.dataclass
    class Config:
        block_size: int = 32
        n_layer: int = 2
        dropout: float = 0.1
        name: str = "gpt"
        sizes: tuple = (1, 2)

    args = argparse.Namespace(lr=3e-4, epochs=2, tags=["a"])
    obj = {"model": {"w": ms.Tensor(np.arange(4, dtype=np.float32))}, "config": Config(), "args": args,
           "extra": types.SimpleNamespace(best=float("inf"))}
    path = str(tmp_path / "ckpt.pt")
    ms.hub.save(obj, path)
    got = ms.hub.load(path)
    assert isinstance(got["config"], types.SimpleNamespace)
    assert vars(got["config"]) == dataclasses.asdict(Config()) | {"sizes": (1, 2)}
    assert got["args"].lr == 3e-4 and got["args"].epochs == 2 and got["args"].tags == ["a"]
    assert got["extra"].best == float("inf")
    np.testing.assert_array_equal(got["model"]["w"].asnumpy(), np.arange(4, dtype=np.float32))
