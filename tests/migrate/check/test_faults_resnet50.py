"""Planted faults in a converted ResNet-50 (one bottleneck per stage, width 16, 64x64 inputs:
the in-suite variant of bench/check_faults.py, which runs the full ResNet-50 at 224x224) are
caught with the right culprit although the float32 noise floor is active, and the healthy
conversion passes."""
import pytest

from migrate import convert_source
from migrate.check import check
from migrate.check.harness import make_inputs, prepare

from .planted import FAULTS, RESNET50, culprit_problems, plant

SMALL = "ResNet50(layers=(1, 1, 1, 1), width=16)"


@pytest.fixture(scope="module")
def converted():
    return convert_source(RESNET50.read_text()).code


def _pair(tmp_path, code):
    path = tmp_path / "resnet50_ms.py"
    path.write_text(code)
    t, m, _, _ = prepare(str(RESNET50), SMALL, str(path))
    return t, m, make_inputs(["2,3,64,64"], None, None, 0)


def test_the_healthy_conversion_passes(tmp_path, converted):
    t, m, x = _pair(tmp_path, converted)
    r = check(t, m, x, mode="both", train_steps=2)  # init: the default-init fault's test
    assert r.passed, [str(f) for f in r.findings]


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_a_planted_fault_fails_naming_its_culprit(tmp_path, converted, fault):
    t, m, x = _pair(tmp_path, plant(converted, fault))
    r = check(t, m, x, **fault.options)
    assert culprit_problems(r, fault) == []
    assert r.exit_code == 1
