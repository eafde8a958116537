"""`migrate.check.check`: fixture models pass; planted faults are caught and named by layer."""
from pathlib import Path

import numpy as np
import pytest

from migrate import convert_source
from migrate.check import CheckError, check
from migrate.check.harness import UsageError, make_inputs, prepare

FIXTURES = Path(__file__).parents[2] / "fixtures" / "check"
MODELS = FIXTURES / "models.py"
FROZEN = FIXTURES / "models_ms.py"  # models.py converted once; faults are planted into copies

INPUTS = {
    "MLP()": ["4,6"],
    "SmallCNN()": ["2,3,8,8"],
    "TinyResNet()": ["2,3,8,8"],
    "ProjNet()": ["4,6"],
    "TwoInputs()": ["4,4", "4,3"],
    "Misc1d()": ["2,3,6"],
    "Up()": ["2,3,6,6"],
}


def inputs_for(expr):
    if expr == "TextModel()":
        return make_inputs(["2,5"], ["int64"], ["0,20"], 0)
    return make_inputs(INPUTS[expr], None, None, 0)


def planted(tmp_path, *edits):
    """A copy of the frozen conversion with text edits (each must apply exactly where meant)."""
    code = FROZEN.read_text()
    for old, new in edits:
        assert code.count(old) == 1, f"edit target not unique/present: {old!r}"
        code = code.replace(old, new)
    path = tmp_path / "models_ms.py"
    path.write_text(code)
    return str(path)


def models(expr, converted=None):
    t, m, _, _ = prepare(str(MODELS), expr, converted or str(FROZEN), seed=0)
    return t, m


# --- fixture models pass --------------------------------------------------------------------------

@pytest.mark.parametrize("expr", sorted(list(INPUTS) + ["TextModel()"]))
def test_fixture_models_pass_eval_train_gradients_and_sgd_steps(expr):
    t, m = models(expr)
    r = check(t, m, inputs_for(expr), mode="both", train_steps=5, init_check=True)
    assert r.passed, [str(f) for f in r.findings]
    assert r.exit_code == 0
    assert [p.mode for p in r.phases] == ["eval", "train"]
    assert r.phases[-1].gradients and all(g.stats.passed for g in r.phases[-1].gradients)
    assert len(r.train.torch_losses) == 5 and r.train.loss_stats.passed
    assert r.transfer.ok


def test_live_conversion_of_the_fixtures_matches_the_frozen_copy_semantics(tmp_path):
    """The converter's current output (not the frozen copy) also passes."""
    code = convert_source(MODELS.read_text()).code
    path = tmp_path / "live_ms.py"
    path.write_text(code)
    t, m = models("SmallCNN()", str(path))
    r = check(t, m, inputs_for("SmallCNN()"), train_steps=2)
    assert r.passed, [str(f) for f in r.findings]


def test_weights_are_restored_and_models_left_with_torch_weights():
    import torch
    t, m = models("SmallCNN()")
    before = {k: v.clone() for k, v in t.state_dict().items()}
    check(t, m, inputs_for("SmallCNN()"), mode="both", train_steps=3)
    after = t.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    np.testing.assert_array_equal(m.conv1.weight.asnumpy(), before["conv1.weight"].numpy())
    assert t.training is True  # torch's mode as it was


def test_per_layer_rows_have_local_error_and_sources():
    t, m = models("TinyResNet()")
    r = check(t, m, inputs_for("TinyResNet()"), mode="eval", local="all")
    rows = {row.name: row for row in r.phases[0].layers}
    assert all(row.local is not None for row in rows.values())
    assert {"stem.0", "layer1.conv1", "layer2.down.0", "fc", "(model)"} <= set(rows)
    assert rows["layer1.conv1"].local is not None and rows["layer1.conv1"].status == "pass"
    assert Path(rows["layer1.conv1"].ms_source).name.startswith("models_ms.py:")
    assert Path(rows["layer1.conv1"].torch_source).name.startswith("models.py:")
    order = [row.order for row in r.phases[0].layers]
    assert order == sorted(order)


def test_float64_noise_floor_column():
    t, m = models("MLP()")
    r = check(t, m, inputs_for("MLP()"), mode="train", float64_reference=True)
    assert all(row.noise is not None for row in r.phases[0].layers)
    assert all(g.noise is not None for g in r.phases[0].gradients)
    assert r.phases[0].layers[0].noise.max_abs < 1e-5


def test_drift_alone_runs_no_float64_reference_and_is_noted():
    """ResNet-18 in training mode (batch 2, 64x64): BatchNorm over 2x2 maps amplifies rounding,
    so deep layers' accumulated outputs exceed the tolerance while each layer's own error, the
    outputs and the gradients agree. That decides nothing: no float64 run, the rows stay 'drift'
    and a note names the first. With float64_reference the same rows are judged against torch
    float64 and pass as float32 noise."""
    t, m, _, _ = prepare(str(FIXTURES / "resnet.py"), "ResNet18()", convert=convert_source)
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32)
    r = check(t, m, [x], mode="train")
    phase = r.phases[0]
    drift = [row.name for row in phase.layers if row.status == "drift"]
    assert r.passed and drift and phase.outputs.passed
    assert not any(n.startswith("float64 reference") for n in phase.notes)
    assert any(n.startswith(f"accumulated error: {len(drift)} layer output(s)") and
               f"first at '{drift[0]}'" in n for n in phase.notes)
    forced = check(t, m, [x], mode="train", float64_reference=True).phases[0]
    rows = {row.name: row for row in forced.layers}
    assert all(rows[n].status == "noise" and rows[n].output.explained == "float64" for n in drift)


FLOAT32_LAYER_NORM = """\
import torch
from torch import nn


class LayerNorm(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.type(torch.float32)).type(x.dtype)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.ln = LayerNorm(6)

    def forward(self, x):
        return self.ln(self.fc(x))
"""


def test_model_that_cannot_run_in_float64_is_checked_in_float32(tmp_path):
    """openai/CLIP's LayerNorm casts its input to float32 by name, so torch cannot run the model
    in float64 ("mixed dtype"): the check notes it and judges in float32 instead of failing."""
    torch_path = tmp_path / "f32_layer_norm.py"
    torch_path.write_text(FLOAT32_LAYER_NORM)
    t, m, _, _ = prepare(str(torch_path), "Net()", None, seed=0, convert=convert_source)
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    r = check(t, m, [x], mode="train", float64_reference=True)
    phase = r.phases[0]
    assert r.passed and phase.outputs.passed
    assert any(n.startswith("no float64 reference: the torch model does not run in float64") and
               "mixed dtype" in n for n in phase.notes)
    assert t.fc.weight.dtype == __import__("torch").float32  # the model is back in float32


DEEP_LINEAR = """\
import torch
from torch import nn


class Deep(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(*[nn.Linear(24, 24) for _ in range(200)])

    def forward(self, x):
        return self.body(x)
"""


def test_init_check_alpha_holds_for_the_whole_model(tmp_path):
    """400 parameters drawn from torch's distributions on both sides: one of them falls under
    p = 1e-3 by chance (seed 0), which is no finding, since each test runs at 1e-3 / 400
    (pytorchcv's DenseNet-121 and MnasNet were reported as init mismatches this way)."""
    torch_path = tmp_path / "deep_linear.py"
    torch_path.write_text(DEEP_LINEAR)
    t, m, _, _ = prepare(str(torch_path), "Deep()", None, seed=0, convert=convert_source)
    r = check(t, m, [np.ones((2, 24), np.float32)], mode="eval", init_check=True)
    assert len(r.init) == 400 and min(row.ks.pvalue for row in r.init) < 1e-3
    assert not [f for f in r.findings if f.kind == "init"]


def test_adam_steps_run_and_state_the_eps_difference():
    t, m = models("MLP()")
    r = check(t, m, inputs_for("MLP()"), mode="eval", train_steps=3, optimizer="adam", lr=1e-3)
    assert len(r.train.ms_losses) == 3
    assert any("eps" in n for n in r.train.notes)


# --- planted faults: one per fault, the right layer named ----------------------------------------

@pytest.mark.parametrize("float64_reference", [False, True])
def test_fault_batchnorm_momentum_not_inverted_shows_after_training_steps(tmp_path,
                                                                           float64_reference):
    # with the float64 noise floor too: a real difference is far outside float32 drift
    path = planted(tmp_path, ("self.bn2 = nn.BatchNorm2d(8, momentum=0.9)",
                              "self.bn2 = nn.BatchNorm2d(8, momentum=0.1)"))
    t, m = models("SmallCNN()", path)
    r = check(t, m, inputs_for("SmallCNN()"), mode="both", train_steps=2,
              float64_reference=float64_reference)
    assert all(p.passed for p in r.phases)  # invisible in outputs and gradients
    assert r.culprit.kind == "training-steps" and r.culprit.layer == "bn2"
    assert "needs momentum=0.9, but has 0.1" in r.culprit.message
    bad = {p.name for p in r.train.params if not p.stats.passed}
    assert "bn2.running_mean" in bad and not any(n.startswith("bn1") for n in bad)
    assert not r.train.eval_outputs.passed  # and it reaches inference outputs
    assert r.exit_code == 1


def test_fault_dropout_p_passed_as_keep_prob(tmp_path):
    path = planted(tmp_path, ("nn.Dropout(keep_prob=0.7)", "nn.Dropout(keep_prob=0.3)"))
    t, m = models("SmallCNN()", path)
    r = check(t, m, inputs_for("SmallCNN()"), mode="both")
    assert r.phase("eval").passed  # identity in inference mode
    assert r.culprit.kind == "train" and r.culprit.layer == "drop"
    row = r.phase("train").first_local_failure
    assert row.torch_type == "Dropout" and row.local.max_rel > 0.5
    assert "needs keep_prob=0.7" in r.culprit.message
    # the mask was torch's (no p=0 trick): the kept/dropped pattern agrees, only the scale differs
    assert row.local.cosine == pytest.approx(1.0, abs=1e-6)


def test_fault_same_padding_torch_style_on_stride_2_conv(tmp_path):
    path = planted(tmp_path, (
        "self.conv2 = nn.Conv2d(8, 8, 3, stride=2, pad_mode='pad', padding=1,",
        "self.conv2 = nn.Conv2d(8, 8, 3, stride=2, pad_mode='same',"))
    t, m = models("SmallCNN()", path)
    r = check(t, m, inputs_for("SmallCNN()"), mode="eval")
    assert r.culprit.kind == "eval" and r.culprit.layer == "conv2"
    assert "use pad_mode='pad', padding=1" in r.culprit.message
    rows = {row.name: row for row in r.phases[0].layers}
    assert rows["conv1"].status == "pass" and rows["conv2"].status == "FAIL"
    assert rows["fc"].status in ("pass", "drift")  # downstream: inherited, not its own fault
    assert r.culprit.ms_source.endswith(":" + str(_line_of(path, "self.conv2 =")))


def test_fault_pooling_same_padding(tmp_path):
    path = planted(tmp_path, ("self.pool = nn.MaxPool2d(2, stride=2, pad_mode='valid')",
                              "self.pool = nn.MaxPool2d(2, stride=2, pad_mode='same')"))
    t, m = models("SmallCNN()", path)
    x = make_inputs(["2,3,10,10"], None, None, 0)  # 5x5 before the pool: 'same' pads it
    r = check(t, m, x, mode="eval")
    assert r.culprit.layer == "pool" and "use pad_mode='valid'" in r.culprit.message


def test_fault_dense_with_default_ms_init_is_caught_by_ks(tmp_path):
    path = planted(tmp_path, (
        "self.fc2 = nn.Dense(hidden, hidden, has_bias=True, "
        "weight_init=HeUniform(negative_slope=math.sqrt(5)), ",
        "self.fc2 = nn.Dense(hidden, hidden, has_bias=True, "))
    t, m = models("MLP()", path)
    r = check(t, m, inputs_for("MLP()"), mode="eval", init_check=True)
    assert r.culprit.kind == "init" and r.culprit.layer == "fc2"
    assert "MindSpore's default 'normal'" in r.culprit.message
    flagged = [row.name for row in r.init if row.ks.differs]
    assert flagged == ["fc2.weight"]
    # with torch's weights copied in, the numbers agree: only the KS test sees it
    assert r.phases[0].passed


def test_fault_transposed_weight(tmp_path):
    path = planted(tmp_path, ("return x @ self.weight.T + self.bias",
                              "return x @ self.weight + self.bias"))
    t, m = models("ProjNet()", path)
    r = check(t, m, inputs_for("ProjNet()"), mode="both")
    assert r.culprit.kind == "eval" and r.culprit.layer == "proj"
    rows = {row.name: row for row in r.phases[0].layers}
    assert rows["fc1"].status == "pass" and rows["proj"].status == "FAIL"
    assert rows["head"].status in ("pass", "drift")
    assert r.culprit.ms_source.endswith(":" + str(_line_of(path, "def construct(self, x):\n        return x @")))


@pytest.mark.parametrize("local", ["auto", "all"])
def test_fault_in_a_composite_layer_is_charged_to_it_not_its_children(tmp_path, local):
    path = planted(tmp_path, ("return self.relu(out + identity)", "return self.relu(out - identity)"))
    t, m = models("TinyResNet()", path)
    r = check(t, m, inputs_for("TinyResNet()"), mode="eval", local=local)
    assert r.culprit.layer == "layer1"
    rows = {row.name: row for row in r.phases[0].layers}
    assert all(rows[n].status == "pass" for n in ("layer1.conv1", "layer1.bn2", "layer1.relu"))


def test_fault_unmapped_parameter_fails_the_transfer(tmp_path):
    path = planted(tmp_path,
                   ("        self.fc3 = nn.Dense(hidden, d_out,", "        self.out = nn.Dense(hidden, d_out,"),
                   ("        return self.fc3(x)\n\n\nclass SmallCNN", "        return self.out(x)\n\n\nclass SmallCNN"))
    t, m = models("MLP()", path)
    r = check(t, m, inputs_for("MLP()"), mode="eval")
    assert not r.transfer.ok
    assert set(r.transfer.unmapped_torch) == {"fc3.weight", "fc3.bias"}
    assert set(r.transfer.unmapped_ms) == {"out.weight", "out.bias"}
    assert r.culprit.kind == "transfer" and r.exit_code == 1


def test_functional_dropout_masks_are_replayed():
    import torch

    import ms_core
    from ms_core import nn as msnn

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 6)

        def forward(self, x):
            return torch.nn.functional.dropout(self.fc(x), p=0.4, training=self.training)

    class M(msnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = msnn.Dense(6, 6)

        def construct(self, x):
            return ms_core.ops.dropout(self.fc(x), p=0.4, training=self.training)

    r = check(T(), M(), [np.ones((3, 6), np.float32)], mode="train")
    assert r.passed, [str(f) for f in r.findings]


def test_model_that_cannot_run_is_a_check_error():
    t, m = models("MLP()")
    with pytest.raises(CheckError, match="the torch model fails in eval mode"):
        check(t, m, [np.ones((2, 5), np.float32)], mode="eval")



def test_converted_model_that_raises_is_a_finding_localised_to_the_layer():
    t, bad = models("MLP()")
    bad.fc2 = None  # the converted model breaks on its own
    r = check(t, bad, inputs_for("MLP()"), mode="eval")
    assert r.exit_code == 1 and r.phases[0].ms_error.startswith("TypeError")
    assert r.culprit.kind == "transfer" and r.culprit.layer == "fc2"  # its weights have no home
    found = next(f for f in r.findings if f.kind == "eval")
    assert found.layer == "(model)" and "raises in eval mode" in found.message
    rows = {row.name: row for row in r.phases[0].layers}
    assert rows["fc2"].status == "missing" and rows["(model)"].status == "error"


FROZEN_MASK = """\
import torch
from torch import nn


class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.mask = nn.Parameter(torch.tensor([[1.0, 0.0, 1.0, 1.0]] * 4), requires_grad=False)

    def forward(self, x):
        return x @ (self.fc.weight * self.mask).t() + self.fc.bias
"""


def test_a_parameter_frozen_on_both_sides_has_no_gradient_to_compare(tmp_path):
    """ncps' LTC cell keeps its wiring's sparsity mask as a Parameter with requires_grad=False:
    neither side has a gradient for it, which is no finding; the trained parameters are compared."""
    path = tmp_path / "frozen_mask.py"
    path.write_text(FROZEN_MASK)
    t, m, _, _ = prepare(str(path), "Masked()", None, seed=0, convert=convert_source)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    r = check(t, m, [x], mode="train")
    names = [g.name for g in r.phases[0].gradients]
    assert r.passed and "mask" not in names and {"fc.weight", "fc.bias"} <= set(names)


def _line_of(path, text):
    code = Path(path).read_text()
    return code[:code.index(text)].count("\n") + 1


def test_fault_wrong_backward_is_localised_by_local_gradients():
    """Forward identical, backward wrong in a parameter-free layer: the culprit is that layer,
    not the parameters upstream of it whose gradients are merely wrong by inheritance."""
    import torch

    import ms_core
    from ms_core import nn as msnn
    from ms_core import ops

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.act, self.fc2 = torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 2)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class BadTanh(msnn.Cell):
        def construct(self, x):
            return ops.tanh(x)

        def bprop(self, x, out, dout):
            return (dout * (1 - out),)  # should be 1 - out²

    class M(msnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1, self.act, self.fc2 = msnn.Dense(5, 7), BadTanh(), msnn.Dense(7, 2)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))

    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    r = check(T(), M(), [x], mode="train")
    assert r.phases[0].outputs.passed and r.phases[0].first_local_failure is None
    assert r.culprit.kind == "gradient" and r.culprit.layer == "act"
    grads = {g.name: g.stats.passed for g in r.phases[0].gradients}
    assert grads["fc2.weight"] and not grads["fc1.weight"]
    assert ms_core is not None


def test_functional_dropout_that_drops_in_eval_mode_is_replayed_in_every_phase(tmp_path):
    """F.dropout2d(x, p) keeps torch's training=True default, so it drops in eval mode too (as
    the converted ops.dropout2d(..., training=True) does): eval, train, gradients and the
    inference after training all replay torch's masks."""
    src = ("import torch\n"
           "import torch.nn as nn\n"
           "import torch.nn.functional as F\n"
           "class SE(nn.Module):\n"
           "    def __init__(self):\n"
           "        super().__init__()\n"
           "        self.conv = nn.Conv2d(3, 4, 3, padding=1)\n"
           "        self.fc = nn.Linear(4, 2)\n"
           "    def forward(self, x):\n"
           "        out = F.dropout2d(self.conv(x), 0.5)\n"
           "        out = F.adaptive_avg_pool2d(out, 1)\n"
           "        return self.fc(out.view(out.size(0), -1))\n")
    torch_path = tmp_path / "se.py"
    torch_path.write_text(src)
    t, m, _, _ = prepare(str(torch_path), "SE()", None, seed=0, convert=convert_source)
    r = check(t, m, make_inputs(["4,3,6,6"], None, None, 0), mode="both", train_steps=3)
    assert r.passed, [str(f) for f in r.findings]
    assert r.train.eval_outputs.passed


def test_float64_noise_floor_in_training_steps_still_catches_a_momentum_fault(tmp_path):
    """TinyResNet has no dropout, so the float64 training run is used; the fault stays caught."""
    ok_t, ok_m = models("TinyResNet()")
    r = check(ok_t, ok_m, inputs_for("TinyResNet()"), mode="train", train_steps=3,
              float64_reference=True)
    assert r.passed, [str(f) for f in r.findings]
    assert all(p.noise is not None for p in r.train.params)
    code = FROZEN.read_text()
    old = "self.bn1 = nn.BatchNorm2d(cout, momentum=0.9)"
    assert code.count(old) == 1
    path = planted(tmp_path, (old, "self.bn1 = nn.BatchNorm2d(cout, momentum=0.1)"))
    t, m = models("TinyResNet()", path)
    r = check(t, m, inputs_for("TinyResNet()"), mode="train", train_steps=3, float64_reference=True)
    assert not r.passed and r.culprit.kind == "training-steps"
    assert any("running_mean" in p.name and not p.stats.passed for p in r.train.params)


RNN_LM = FIXTURES / "rnn_lm.py"


@pytest.mark.parametrize("expr", ["LM()", "LM('GRU', batch_first=True)", "LM('RNN')"])
def test_dropout_between_rnn_layers_is_replayed_in_training_mode(expr):
    """torch drops between the layers of a multi-layer LSTM/GRU/RNN inside its kernel; the check
    runs it layer by layer and the converted RNN's Dropout sub-cell gets the same masks (with
    tied weights and 2 training steps)."""
    t, m, _, _ = prepare(str(RNN_LM), expr, convert=convert_source)
    x = make_inputs(["5,3"], ["int64"], ["0,20"], 0)
    r = check(t, m, x, mode="train", train_steps=2)
    assert r.passed, [str(f) for f in r.findings]
    assert r.phases[0].outputs.cosine == pytest.approx(1.0, abs=1e-9)
    assert "dropout between the layers of 'rnn' replayed" in " ".join(r.phases[0].notes)


WORD_LM = FIXTURES / "word_lm.py"


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_a_tied_word_language_model_passes_training_mode(kind):
    """Dropout between the layers of the recurrent module, a tied decoder, the state passed in
    and returned (an LSTM's as the tuple (h, c): the 'A+B' input shape)."""
    t, m, _, _ = prepare(str(WORD_LM), f"WordLM({kind!r})", convert=convert_source)
    state = "2,3,12+2,3,12" if kind == "LSTM" else "2,3,12"
    x = make_inputs(["7,3", state], ["int64", "float32"], ["0,30"], 0)
    assert isinstance(x[1], tuple) == (kind == "LSTM")
    r = check(t, m, x, mode="both", train_steps=2)
    assert r.passed, [str(f) for f in r.findings]
    train = r.phase("train")
    assert "dropout between the layers of 'rnn' replayed" in " ".join(train.notes)
    assert train.outputs.cosine == pytest.approx(1.0, abs=1e-9)
    assert {g.name for g in train.gradients} >= {"encoder.weight", "rnn.weight_hh_l1"}
    assert len(r.train.torch_losses) == 2 and r.train.loss_stats.passed


def test_a_word_language_model_without_dropout_between_layers_fails(tmp_path):
    code = convert_source(WORD_LM.read_text()).code
    assert code.count("dropout=float(dropout)") == 2
    path = tmp_path / "word_lm_ms.py"
    path.write_text(code.replace("dropout=float(dropout)", "dropout=0.0"))
    t, _, _, _ = prepare(str(WORD_LM), "WordLM()", convert=convert_source)
    _, m, _, _ = prepare(str(WORD_LM), "WordLM()", str(path))
    x = make_inputs(["7,3", "2,3,12+2,3,12"], ["int64", "float32"], ["0,30"], 0)
    r = check(t, m, x, mode="train", train_steps=2)
    assert not r.passed
    assert r.culprit.kind == "train" and r.culprit.layer == "rnn"


def test_a_torch_module_left_in_the_converted_model_is_the_named_culprit(tmp_path):
    path = FIXTURES / "torch_layer_left.py"
    code = convert_source(path.read_text()).code
    assert "# migrate: MS9" in code
    # converted code never imports torch: building the model fails with the marker's reason
    with pytest.raises(UsageError, match=r"torch\.nn\.RMSNorm\(\): MS901 MindSpore 2\.10 has no nn\.RMSNorm"):
        prepare(str(path), "LeftNorm()", convert=convert_source)
    # a conversion finished by hand that still holds a torch module: the check names it
    by_hand = tmp_path / "torch_layer_left_ms.py"
    by_hand.write_text(code.replace("if TYPE_CHECKING:", "if True:"))
    t, m, _, _ = prepare(str(path), "LeftNorm()", str(by_hand))
    r = check(t, m, make_inputs(["5,2,4"], None, None, 0), mode="eval")
    assert not r.passed and r.culprit.kind == "transfer" and r.culprit.layer == "norm"
    assert "holds a torch module at 'norm' (torch.nn.RMSNorm)" in r.culprit.message
    assert not any("norm.weight" in f.message for f in r.findings)


def test_a_layer_chosen_by_a_run_time_name_is_built_by_the_runtime_and_matches():
    path = FIXTURES / "dynamic_layer.py"
    assert "# migrate: MS9" not in convert_source(path.read_text()).code
    t, m, _, _ = prepare(str(path), "DynamicRNN('GRU')", convert=convert_source)
    r = check(t, m, make_inputs(["5,2,4"], None, None, 0), mode="eval")
    assert r.passed, r.culprit


def test_random_draws_outside_dropout_are_replayed_in_training_mode(tmp_path):
    path = FIXTURES / "drop_connect.py"
    t, m, _, _ = prepare(str(path), "DropConnectNet()", convert=convert_source)
    x = make_inputs(["8,6"], None, None, 0)
    r = check(t, m, x, mode="both", train_steps=2)
    assert r.phase("eval").random_draws == "" and r.phase("eval").outputs.passed
    assert r.phase("train").random_draws == "torch.rand at drop_connect.py:18 (x1)"
    assert r.passed and r.train.passed and r.phase("train").draw_notes == []
    # the converted model drawing a differently shaped tensor cannot be given torch's numbers
    code = convert_source(path.read_text()).code
    assert "ops.rand([x.shape[0], 1])" in code
    bad = tmp_path / "drop_connect_ms.py"
    bad.write_text(code.replace("ops.rand([x.shape[0], 1])", "ops.rand([x.shape[0], 6])"))
    _, m, _, _ = prepare(str(path), "DropConnectNet()", str(bad))
    r = check(t, m, x, mode="both")
    assert not r.passed and r.culprit.kind == "train"
    assert "torch.rand at drop_connect.py:18 drew [8, 1], ops.rand asks for [8, 6]" \
        in r.culprit.message


def test_a_wrong_dropout_between_rnn_layers_is_named(tmp_path):
    code = convert_source(RNN_LM.read_text()).code
    assert code.count("dropout=float(dropout)") == 3
    path = tmp_path / "lm_ms.py"  # the keep probability where torch's p belongs
    path.write_text(code.replace("dropout=float(dropout)", "dropout=float(1 - dropout)"))
    t, _, _, _ = prepare(str(RNN_LM), "LM(dropout=0.25)", convert=convert_source)
    _, m, _, _ = prepare(str(RNN_LM), "LM(dropout=0.25)", str(path))
    r = check(t, m, make_inputs(["5,3"], ["int64"], ["0,20"], 0), mode="train")
    assert r.culprit.kind == "train" and r.culprit.layer == "rnn"
    assert "p=0.25, the ms layer with dropout=0.75" in r.culprit.message


def test_fused_attention_dropout_is_noted_as_a_random_draw_and_unpatched_after():
    import torch
    import torch.nn.functional as TF

    from migrate.check.randomness import RandomDraws
    q = torch.randn(1, 2, 4, 8)
    original = TF.scaled_dot_product_attention
    with RandomDraws() as rd:
        TF.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
        TF.scaled_dot_product_attention(q, q, q)  # no dropout: nothing random
    assert rd.summary().startswith("F.scaled_dot_product_attention(dropout_p=0.5) at test_check.py:")
    assert len(rd.draws) == 1 and rd.valued == [] and TF.scaled_dot_product_attention is original
