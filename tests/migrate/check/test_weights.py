"""Weight conversion: the name/layout map, state dicts and checkpoint files (both directions)."""
from pathlib import Path

import numpy as np
import pytest
import torch

from cli import main
from migrate.check.harness import prepare
from migrate.check.weights import (convert_file, load_ms_checkpoint, load_torch_state, map_names,
                             state_dict_to_ms, transfer, transfer_back)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "check"
MODELS, FROZEN = str(FIXTURES / "models.py"), str(FIXTURES / "models_ms.py")


def pair(expr):
    t, m, _, _ = prepare(MODELS, expr, FROZEN)
    return t, m


def test_batchnorm_names_and_dropped_counter():
    t, m = pair("SmallCNN()")
    rep = map_names(t, m)
    names = dict(rep.pairs())
    assert names["bn1.weight"] == "bn1.gamma" and names["bn1.bias"] == "bn1.beta"
    assert names["bn1.running_mean"] == "bn1.moving_mean"
    assert names["bn1.running_var"] == "bn1.moving_variance"
    assert names["conv2.weight"] == "conv2.weight" and names["fc.bias"] == "fc.bias"
    dropped = [e for e in rep.entries if e.action == "dropped"]
    assert {e.torch_name for e in dropped} == {"bn1.num_batches_tracked", "bn2.num_batches_tracked"}
    assert any("num_batches_tracked" in n for n in rep.notes)
    assert rep.ok and not rep.unmapped_ms


def test_embedding_layernorm_prelu_names():
    t, m = pair("TextModel()")
    names = dict(map_names(t, m).pairs())
    assert names == {"emb.weight": "emb.embedding_table", "norm.weight": "norm.gamma",
                     "norm.bias": "norm.beta", "act.weight": "act.w",
                     "head.weight": "head.weight", "head.bias": "head.bias"}


def test_transfer_copies_values_and_layouts():
    t, m = pair("TinyResNet()")
    rep = transfer(t, m, strict=True)
    assert rep.ok
    np.testing.assert_array_equal(m.layer2.down[0].weight.asnumpy(),
                                  t.layer2.down[0].weight.detach().numpy())
    np.testing.assert_array_equal(m.stem[1].moving_variance.asnumpy(),
                                  t.stem[1].running_var.numpy())


def test_transfer_back_is_the_inverse():
    t, m = pair("SmallCNN()")
    transfer(t, m)
    t2, _ = pair("SmallCNN()")
    transfer_back(m, t2)
    for k, v in t.state_dict().items():
        if not k.endswith("num_batches_tracked"):
            assert torch.equal(v, t2.state_dict()[k]), k


def test_name_map_overrides_and_shape_mismatch_fails():
    t, m = pair("MLP()")
    rep = map_names(t, m, name_map={"fc1.bias": None})
    assert "fc1.bias" in rep.unmapped_ms and not rep.ok
    t2 = torch.nn.Linear(3, 2)
    import ms_core
    m2 = ms_core.nn.Dense(2, 3)
    rep = map_names(t2, m2)
    assert not rep.ok and any("torch [2, 3] vs ms [3, 2]" in p for p in rep.problems())
    with pytest.raises(ValueError, match="weight transfer failed"):
        transfer(t2, m2, strict=True)


def test_state_dict_without_model_detects_batchnorm():
    t, _ = pair("SmallCNN()")
    out, notes = state_dict_to_ms(t.state_dict())
    assert "bn1.gamma" in out and "bn1.moving_variance" in out and "conv1.weight" in out
    assert "bn1.num_batches_tracked" not in out and any("num_batches_tracked" in n for n in notes)


def test_pth_to_ckpt_and_back(tmp_path):
    t, m = pair("SmallCNN()")
    pth, ckpt, back = tmp_path / "m.pth", tmp_path / "m.ckpt", tmp_path / "back.pth"
    torch.save(t.state_dict(), pth)
    convert_file(str(pth), str(ckpt), t, m)
    params = load_ms_checkpoint(str(ckpt))
    assert set(params) == {n for n, _ in m.parameters_and_names()}
    np.testing.assert_array_equal(params["bn2.moving_mean"], t.bn2.running_mean.numpy())
    convert_file(str(ckpt), str(back), t, m)
    t2, _ = pair("SmallCNN()")
    t2.load_state_dict(torch.load(back, weights_only=True))  # strict: every key present
    for k, v in t.state_dict().items():
        if not k.endswith("num_batches_tracked"):
            assert torch.equal(v, t2.state_dict()[k]), k


def test_whole_pickled_model_is_refused(tmp_path):
    t, _ = pair("MLP()")
    path = tmp_path / "whole.pth"
    torch.save(t, path)  # a pickled Module: only loadable by unpickling arbitrary classes
    with pytest.raises(ValueError, match="weights_only=True"):
        load_torch_state(str(path))


def test_weights_command(tmp_path, capsys):
    t, _ = pair("SmallCNN()")
    pth, ckpt = tmp_path / "m.pth", tmp_path / "m.ckpt"
    torch.save(t.state_dict(), pth)
    assert main(["weights", str(pth), "-o", str(ckpt), "--source", MODELS,
                 "--model", "SmallCNN()"]) == 0
    assert ckpt.exists()
    assert main(["weights", str(pth), "-o", str(tmp_path / "m2.ckpt"),
                 "--model", f"{MODELS}:SmallCNN()"]) == 0
    assert main(["weights", str(pth), "-o", str(tmp_path / "m3.ckpt"), "--model", "Net()"]) == 2
    assert main(["weights", str(pth), "-o", str(tmp_path / "plain.ckpt")]) == 0  # no model
    assert "bn1.gamma" in load_ms_checkpoint(str(tmp_path / "plain.ckpt"))
    assert main(["weights", str(ckpt), "-o", str(tmp_path / "back.pth")]) == 0
    # errors: exit 2, nothing written
    assert main(["weights", str(tmp_path / "missing.pth"), "-o", str(tmp_path / "x.ckpt")]) == 2
    junk = tmp_path / "junk.pth"
    junk.write_bytes(b"not a torch file")
    assert main(["weights", str(junk), "-o", str(tmp_path / "y.ckpt")]) == 2
    assert not (tmp_path / "y.ckpt").exists() and not (tmp_path / "x.ckpt").exists()
    wrong = tmp_path / "wrong.pth"
    torch.save(torch.nn.Linear(2, 2).state_dict(), wrong)
    assert main(["weights", str(wrong), "-o", str(tmp_path / "z.ckpt"), "--source", MODELS,
                 "--model", "SmallCNN()"]) == 2
    assert not (tmp_path / "z.ckpt").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_checkpoint_loads_into_the_converted_model_with_ms_core(tmp_path):
    import ms_core
    t, _ = pair("TextModel()")
    pth, ckpt = tmp_path / "t.pth", tmp_path / "t.ckpt"
    torch.save(t.state_dict(), pth)
    assert main(["weights", str(pth), "-o", str(ckpt), "--model", f"{MODELS}:TextModel()"]) == 0
    _, fresh = pair("TextModel()")
    not_loaded, unused = ms_core.load_param_into_net(fresh, ms_core.load_checkpoint(str(ckpt)))
    assert not list(not_loaded) and not list(unused)
    np.testing.assert_array_equal(fresh.emb.embedding_table.asnumpy(), t.emb.weight.detach().numpy())
    np.testing.assert_array_equal(fresh.act.w.asnumpy(), t.act.weight.detach().numpy())


def test_conv1d_layout_is_reshaped_both_ways(tmp_path):
    import ms_core
    t, m = pair("Misc1d()")
    rep = map_names(t, m)
    entry = next(e for e in rep.entries if e.torch_name == "conv.weight")
    assert rep.ok and entry.action == "reshaped" and list(m.conv.weight.shape) == [8, 3, 1, 3]
    assert dict(rep.pairs())["gn.weight"] == "gn.gamma"
    pth, ckpt, back = tmp_path / "c.pth", tmp_path / "c.ckpt", tmp_path / "back.pth"
    torch.save(t.state_dict(), pth)
    convert_file(str(pth), str(ckpt), t, m)
    _, fresh = pair("Misc1d()")
    not_loaded, _ = ms_core.load_param_into_net(fresh, ms_core.load_checkpoint(str(ckpt)))
    assert not list(not_loaded)
    np.testing.assert_array_equal(fresh.conv.weight.asnumpy()[:, :, 0, :],
                                  t.conv.weight.detach().numpy())
    convert_file(str(ckpt), str(back), t, m)
    t2, _ = pair("Misc1d()")
    t2.load_state_dict(torch.load(back, weights_only=True))
    assert torch.equal(t2.conv.weight, t.conv.weight)


def test_a_parameter_two_cells_hold_is_found_where_mindspore_lists_it_once():
    """nflows' MADE block keeps its last layer's `degrees` buffer on itself too
    (`self.degrees = self.linear.degrees`): torch's state names it once, under the child; MindSpore
    2.10 lists the Parameter once, under the path it meets first (the parent's). The torch buffer
    maps to that Parameter, and nothing is left unmapped."""
    import ms_core as ms

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(2, 3)
            self.linear.register_buffer("degrees", torch.arange(3))
            self.degrees = self.linear.degrees  # a plain attribute in torch

    class Listed(ms.nn.Cell):
        def parameters_and_names(self, *args, **kwargs):  # MindSpore 2.10: each Parameter once
            seen = set()
            for name, p in super().parameters_and_names(*args, **kwargs):
                if id(p) not in seen:
                    seen.add(id(p))
                    yield name, p

    class MsBlock(Listed):
        def __init__(self):
            super().__init__()
            self.linear = ms.nn.Dense(2, 3)
            self.linear.degrees = ms.Parameter(ms.Tensor(np.arange(3)), requires_grad=False)
            self.degrees = self.linear.degrees

    cell = MsBlock()
    assert [n for n, _ in cell.parameters_and_names()][0] == "degrees"
    rep = map_names(Block(), cell)
    assert dict(rep.pairs())["linear.degrees"] == "degrees"
    assert rep.ok and not rep.unmapped_ms and not rep.unmapped_torch
