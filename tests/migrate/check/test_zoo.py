"""`migrate check --zoo`: many models from a TOML file, in parallel child processes, one summary
table, a report per model, the worst exit code."""
import json
from pathlib import Path

import numpy as np
import pytest

from migrate.check.harness import UsageError
from migrate.check.zoo import load_zoo, report_stem
from tests.child import run_cli

PACKAGES = Path(__file__).parents[2] / "fixtures" / "check_packages"
ZOO = PACKAGES / "zoo.toml"


def test_zoo_file_entries_take_the_defaults_and_their_own_keys():
    jobs = load_zoo(str(ZOO))
    assert [j.name for j in jobs] == ["cnnzoo.nets.tiny:TinyNet()", "wide",
                                      "mlp in a broken package", "no such model"]
    tiny, wide, mlp, _ = jobs
    assert (tiny.path, tiny.model, tiny.root) == (None, "cnnzoo.nets.tiny:TinyNet()",
                                                  str(PACKAGES))
    assert (tiny.settings.mode, tiny.settings.train_steps) == ("both", 1)
    assert wide.path.endswith("cnnzoo/nets/tiny.py") and wide.settings.mode == "eval"
    assert (mlp.input_shapes, mlp.input_dtypes) == (["4,6"], ["float32"])


@pytest.mark.parametrize("text, message", [
    ("[[model]]\nmodel = 'a:B()'\n", "needs 'model' and 'input_shape'"),
    ("[[model]]\nmodel = 'a:B()'\ninput_shape = '2,3'\nshape = 1\n", "unknown key(s) shape"),
    ("[[model]]\nmodel = 'a:B()'\ninput_shape = '2,3'\nmode = 'test'\n", "mode must be"),
    ("[defaults]\nmode = 'eval'\n", "no [[model]] entries"),
    ("[[model]\n", "zoo.toml"),
])
def test_a_bad_zoo_file_is_a_usage_error_naming_the_entry(tmp_path, text, message):
    path = tmp_path / "zoo.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        load_zoo(str(path))


def test_zoo_run_checks_in_parallel_and_summarises(tmp_path):
    reports = tmp_path / "reports"
    # the entries run in a pool of child processes: the command runs in a child with a time limit
    code, out, _ = run_cli(["check", "--zoo", ZOO, "--jobs", "2", "--report-dir", reports,
                            "--cache", tmp_path / "cache"])
    assert code == 2  # one entry could not run: the worst exit code
    for column in ("model", "verdict", "worst quantity", "first culprit", "time"):
        assert column in out
    assert "3 of 4 pass" in out
    summary = json.loads((reports / "summary.json").read_text())
    rows = {r["name"]: r for r in summary["models"]}
    assert [r["verdict"] for r in summary["models"]] == ["PASS", "PASS", "PASS", "ERROR"]
    assert "NameError: name 'NoSuchNet' is not defined" in rows["no such model"]["culprit"]
    assert rows["wide"]["worst"].startswith("eval ") and "(pass)" in rows["wide"]["worst"]
    for name in ("wide", "mlp in a broken package", "cnnzoo.nets.tiny:TinyNet()"):
        stem = str(reports / report_stem(name))
        assert json.loads(Path(stem + ".json").read_text())["passed"] is True
        assert "<svg" in Path(stem + ".html").read_text()
    assert "skipped" in " ".join(rows["mlp in a broken package"]["notes"])


def test_the_converter_keeps_its_cache_key_and_star_table_in_a_zoo_child():
    """Zoo entries run in child processes: the converter is pickled by multiprocessing, which
    drops a functools.partial's attributes (the children then never cached and converted
    packages without their star-import table)."""
    import pickle
    from multiprocessing.reduction import ForkingPickler

    import cli
    conv = cli._converter()
    back = pickle.loads(ForkingPickler.dumps(conv))
    assert back.cache_key == conv.cache_key and callable(back.for_package)
    assert "ops.ones" in back("import torch\nx = torch.ones(2)\n").code


def test_worst_quantity_calls_accumulated_drift_drift_not_fail():
    """A passing check whose deepest layer's accumulated output is beyond the tolerance (its own
    error within, no float64 run): the summary's worst quantity says 'drift'; a layer whose own
    error is beyond it says FAIL."""
    from migrate.check.compare import compare
    from migrate.check.result import CheckResult, LayerRow, PhaseResult
    from migrate.check.zoo import worst_quantity
    near = compare(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-7]), 1e-5, 1e-6)
    beyond = compare(np.array([1.0, 2.0]), np.array([1.0, 2.001]), 1e-5, 1e-6)
    row = LayerRow("layer4", "layer4", 0, 1, 0, "Sequential", "SequentialCell", beyond, near)
    row.status = "drift"
    res = CheckResult(settings={}, phases=[PhaseResult("train", outputs=near, layers=[row])])
    assert worst_quantity(res) == "train layer4: max abs 0.001 (drift)"
    row.status, row.local = "FAIL", beyond
    assert worst_quantity(res).endswith("(FAIL)")
