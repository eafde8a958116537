"""Real MindSpore's side (--ms-python) in every report format: a column beside ms_core's in the
layer and gradient tables and a headline per mode; absent without it."""
import numpy as np

from migrate.check.compare import compare
from migrate.check.report import markdown, print_terminal, sections
from migrate.check.result import CheckResult, LayerRow, NamedStats, PhaseResult

TORCH = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)


def _result(mindspore_value=None, mindspore_error=None):
    agree = compare(TORCH.copy(), TORCH)
    row = LayerRow("proj", "proj", 0, 1, 0, "Linear", "Dense", agree, None)
    grad = NamedStats("proj.weight", "proj.weight", "proj", agree)
    phase = PhaseResult("eval", outputs=agree, layers=[row], gradients=[grad],
                        mindspore_error=mindspore_error)
    if mindspore_value is not None:
        row.mindspore = compare(mindspore_value, TORCH)
        grad.mindspore = compare(mindspore_value, TORCH)
        phase.mindspore_outputs = compare(mindspore_value, TORCH)
    return CheckResult(settings={"rtol": 1e-4, "atol": 1e-5}, phases=[phase])


def test_without_mindspore_the_tables_have_no_mindspore_columns():
    ph = sections(_result()).phases[0]
    assert "MindSpore" not in ph.layers.columns and "MindSpore" not in ph.gradients.columns
    assert "MindSpore" not in markdown(_result())


def test_a_mindspore_difference_is_a_failing_cell_and_headline(capsys):
    off = TORCH + np.float32(0.5)  # MindSpore off by 0.5 where ms_core agrees
    ph = sections(_result(off)).phases[0]
    assert ph.layers.columns[-2:] == ["MindSpore max abs", "MindSpore"]
    assert ph.layers.rows[0][-2:] == ["0.5", "FAIL"] and ph.layers.status == ["FAIL"]
    assert ph.gradients.rows[0][-1] == "FAIL"
    md = markdown(_result(off))
    assert "eval outputs on MindSpore: max abs 0.5" in md and "-> FAIL" in md
    print_terminal(_result(off))
    assert "eval outputs on MindSpore: max abs 0.5" in capsys.readouterr().out


def test_agreeing_mindspore_passes_and_an_error_is_reported():
    ph = sections(_result(TORCH.copy())).phases[0]
    assert ph.layers.rows[0][-1] == "pass" and ph.layers.status == ["pass"]
    md = markdown(_result(mindspore_error="no CPU kernel for InstanceNorm"))
    assert "the --target mindspore conversion raises: no CPU kernel for InstanceNorm" in md
