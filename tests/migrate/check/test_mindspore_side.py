"""Real MindSpore as a third side (`migrate check --ms-python`): oracle tests, run only where an
interpreter with MindSpore is given by MS_ORACLE_PYTHON (e.g. /opt/msvenv/bin/python)."""
import json
import os
import shutil
from pathlib import Path

import pytest

from cli import _converter, main
from migrate.check import CheckSettings
from migrate.check.harness import check_file

FIXTURES = Path(__file__).parents[2] / "fixtures"
MODELS = str(FIXTURES / "check" / "models.py")
ORACLE = os.environ.get("MS_ORACLE_PYTHON")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(not (ORACLE and (os.path.exists(ORACLE) or shutil.which(ORACLE))),
                                 reason="real MindSpore is not available (set MS_ORACLE_PYTHON "
                                        "to an interpreter that has it)")]


def _check(path, expr, shapes, dtypes=None, ranges=None, convert_mindspore=None, **options):
    return check_file(str(path), expr, shapes, dtypes, ranges, convert=_converter(),
                      settings=CheckSettings(**options), ms_python=ORACLE,
                      convert_mindspore=convert_mindspore or _converter("mindspore"))[0]


def test_third_column_outputs_layers_and_gradients_with_dropout_replayed(tmp_path):
    report = tmp_path / "r.json"
    assert main(["check", MODELS, "--model", "SmallCNN()", "--input-shape", "2,3,8,8",
                 "--ms-python", ORACLE, "--no-cache", "--report", str(report), "-q"]) == 0
    data = json.loads(report.read_text())
    for phase in data["phases"]:  # eval, then train with torch's dropout masks
        assert phase["mindspore_error"] is None and phase["mindspore_outputs"]["passed"]
        assert all(r["mindspore"] is not None and r["mindspore"]["passed"]
                   for r in phase["layers"])
    grads = data["phases"][1]["gradients"]
    assert grads and all(g["mindspore"]["passed"] for g in grads)
    assert data["settings"]["mindspore"] == f"MindSpore via {ORACLE}"


@pytest.mark.parametrize("path, expr, shapes, dtypes, ranges", [
    (FIXTURES / "check_packages" / "cnnzoo" / "nets" / "tiny.py", "TinyNet()", ["2,3,8,8"],
     None, None),
    (FIXTURES / "check" / "rnn_lm.py", "LM()", ["5,3"], ["int64"], ["0,20"]),
])
def test_packages_and_rnn_dropout_between_layers_agree_on_mindspore(path, expr, shapes, dtypes,
                                                                    ranges):
    r = _check(path, expr, shapes, dtypes, ranges, mode="both", train_steps=1)
    assert r.passed, [str(f) for f in r.findings]
    train = r.phase("train")
    assert train.mindspore_outputs.passed and all(g.mindspore is not None
                                                  for g in train.gradients)


def test_a_difference_only_mindspore_shows_is_a_finding_naming_the_layer():
    """The MindSpore conversion gets a transposed weight; the ms_core one is right."""
    base = _converter("mindspore")

    def planted(code):
        result = base(code)
        result.code = result.code.replace("return x @ self.weight.T + self.bias",
                                          "return x @ self.weight + self.bias")
        return result
    planted.cache_key = None
    r = _check(MODELS, "ProjNet()", ["4,6"], mode="eval", convert_mindspore=planted)
    assert r.phases[0].passed  # ms_core agrees with torch
    assert r.culprit.kind == "mindspore" and r.culprit.layer == "proj"
    assert "ms_core agrees" in r.culprit.message


def test_an_op_mindspore_cannot_run_names_its_layer():
    """MindSpore 2.10 has no CPU kernel for InstanceNorm: ms_core runs the model, MindSpore
    stops at 'inorm'."""
    r = _check(MODELS, "Up()", ["2,3,6,6"], mode="eval")
    assert r.phases[0].passed
    assert r.culprit.kind == "mindspore" and r.culprit.layer == "inorm"
    assert "InstanceNorm" in r.culprit.message


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_a_tuple_state_input_reaches_mindspore_as_on_the_other_sides(kind):
    """The second argument of an LSTM language model is the tuple (h, c) ('A+B' shape): the
    MindSpore side gets the same tuple and gives its column, in eval and train mode."""
    state = "2,3,12+2,3,12" if kind == "LSTM" else "2,3,12"
    r = _check(FIXTURES / "check" / "word_lm.py", f"WordLM({kind!r})", ["7,3", state],
               ["int64", "float32"], ["0,30"], mode="both")
    for phase in r.phases:
        assert phase.mindspore_error is None, phase.mindspore_error
        assert phase.mindspore_outputs is not None and phase.mindspore_outputs.passed
        assert any(row.mindspore is not None for row in phase.layers)
    assert r.phase("train").gradients and all(g.mindspore is not None
                                              for g in r.phase("train").gradients
                                              if not g.name.startswith("input"))


def test_random_draws_in_forward_reach_mindspore_too():
    """Stochastic depth (Tensor.bernoulli_) and a VAE's noise (torch.randn_like): MindSpore's
    ops.bernoulli / ops.randn_like in the converted model get torch's numbers, as ms_core's do."""
    r = _check(FIXTURES / "check" / "random_forward.py", "Noisy()", ["6,8"], mode="both")
    assert r.passed, [str(f) for f in r.findings]
    train = r.phase("train")
    assert "Tensor.bernoulli_" in train.random_draws
    assert train.mindspore_error is None and train.mindspore_outputs.passed
    assert not any("not replayed" in n for n in train.notes), train.notes
