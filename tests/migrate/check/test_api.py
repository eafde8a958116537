"""CheckSettings, the library harness, and the checker's one rule about imports: it never imports
the converter (the caller hands it over)."""
import ast
from pathlib import Path

import numpy as np
import pytest

from migrate.check import CheckSettings, check
from migrate.check.api import PhasePlan
from migrate.check.harness import UsageError, check_file, prepare

ROOT = Path(__file__).parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "check"
MODELS, FROZEN = str(FIXTURES / "models.py"), str(FIXTURES / "models_ms.py")


@pytest.mark.parametrize("options, message", [
    ({"mode": "test"}, "mode must be 'eval', 'train' or 'both', but got 'test'"),
    ({"optimizer": "rmsprop"}, "optimizer must be 'sgd' or 'adam', but got 'rmsprop'"),
    ({"local": "some"}, "local must be 'auto' or 'all', but got 'some'"),
])
def test_settings_reject_unknown_values(options, message):
    with pytest.raises(ValueError, match=message):
        CheckSettings(**options)


@pytest.mark.parametrize("options, plan", [
    ({}, [PhasePlan("eval", False), PhasePlan("train", True)]),
    ({"mode": "eval"}, [PhasePlan("eval", True)]),
    ({"mode": "train", "gradients": False}, [PhasePlan("train", False)]),
])
def test_phase_plan_takes_gradients_in_the_last_mode(options, plan):
    assert CheckSettings(**options).phases() == plan


def test_keyword_options_replace_the_settings_given():
    import torch

    import ms_core
    x = np.ones((3, 4), np.float32)
    squares = (lambda out: (out * out).sum(), lambda out: (out * out).sum())
    r = check(torch.nn.Linear(4, 2), ms_core.nn.Dense(4, 2), [x],
              CheckSettings(mode="train", rtol=1e-3), mode="eval", loss_fn=squares)
    assert r.passed and [p.mode for p in r.phases] == ["eval"]
    assert (r.settings["rtol"], r.settings["mode"], r.settings["loss"]) == (1e-3, "eval", "custom")
    assert r.phases[0].torch_loss == pytest.approx(r.phases[0].ms_loss, rel=1e-5)
    with pytest.raises(TypeError):
        check(torch.nn.Linear(4, 2), ms_core.nn.Dense(4, 2), [x], no_such_setting=1)


def test_check_file_builds_checks_and_labels_the_result():
    r, notes = check_file(MODELS, "MLP()", ["4,6"], converted=FROZEN,
                          settings=CheckSettings(mode="eval"))
    assert r.passed and notes == []
    assert (r.settings["model"], r.settings["path"], r.settings["input_shapes"]) == \
        ("MLP()", MODELS, ["4,6"])
    assert [p.mode for p in r.phases] == ["eval"]


def test_prepare_needs_a_converted_file_or_a_converter():
    with pytest.raises(UsageError, match="give the converted file, or a converter"):
        prepare(MODELS, "MLP()")
    converted = []

    def convert(source):
        converted.append(source)
        return type("Result", (), {"code": Path(FROZEN).read_text(), "error": None,
                                   "unsupported": 2})()
    t, m, notes, display = prepare(MODELS, "MLP()", convert=convert)
    assert converted == [Path(MODELS).read_text()]  # the converter got the file's source
    assert notes == ["the conversion left 2 unsupported site(s) (marked '# migrate:')"]
    assert list(display.values()) == [str(FIXTURES)]  # the converted tree stands for this dir
    assert type(m).__name__ == "MLP" and type(m) is not type(t)
    assert type(t).__module__ == type(m).__module__ == "models"  # the same name, isolated


def _imports(path):
    """Every module a file imports, top-level or inside a function, as absolute names."""
    package = "migrate.check"  # every file here is a module (or the face) of this package
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package if node.level == 1 else "migrate" if node.level == 2 else ""
            stem = ".".join(p for p in (base, node.module or "") if p)
            out += [stem] + [f"{stem}.{a.name}" for a in node.names]
    return out


def test_the_checker_never_imports_the_converter():
    files = sorted((ROOT / "migrate" / "check").glob("*.py"))
    assert len(files) > 10
    for path in files:
        outside = [m for m in _imports(path) if m == "migrate" or
                   (m.startswith("migrate.") and not m.startswith("migrate.check"))]
        assert outside == [], (path.name, outside)
