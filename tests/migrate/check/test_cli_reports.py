"""`migrate check` command: exit codes 0/1/2, clear errors, reports (Markdown, JSON, HTML)."""
import json
import re
from pathlib import Path

import pytest

from cli import main
from tests.child import run_cli

FIXTURES = Path(__file__).parents[2] / "fixtures" / "check"
MODELS, FROZEN = str(FIXTURES / "models.py"), FIXTURES / "models_ms.py"


def run(*args):
    return main(["check", *map(str, args)])


@pytest.fixture
def faulty(tmp_path):
    code = FROZEN.read_text().replace("return x @ self.weight.T + self.bias",
                                      "return x @ self.weight + self.bias")
    path = tmp_path / "faulty_ms.py"
    path.write_text(code)
    return path


def test_pass_exit_0_with_markdown_report(tmp_path, capsys):
    report = tmp_path / "r.md"
    assert run(MODELS, "--model", "MLP()", "--input-shape", "4,6", "--train-steps", "2",
               "--report", report) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "eval mode" in out and "max abs" in out
    text = report.read_text()
    assert text.startswith("# migrate check report") and "| layer | type | shape |" in text


def test_mismatch_exit_1_names_the_layer_in_every_format(tmp_path, faulty, capsys):
    common = [MODELS, "--model", "ProjNet()", "--input-shape", "4,6", "--converted", faulty]
    assert run(*common, "--report", tmp_path / "r.md", "--report", tmp_path / "r.json",
               "--report", tmp_path / "r.html", "-q", "--train-steps", "3") == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "proj" in out
    assert "First divergence: `proj`" in (tmp_path / "r.md").read_text()
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["exit_code"] == 1 and data["culprit"]["layer"] == "proj"
    assert data["phases"][0]["first_divergence"] == "proj"
    html = (tmp_path / "r.html").read_text()
    assert "<svg" in html and 'class="first"' in html and "proj" in html
    assert 'data-figure="losses"' in html and "id='losses'" in html
    for figure in ("depth-eval", "depth-train", "gradients-train"):
        assert f"<figure id='{figure}'><svg" in html, figure
    assert html.count('class="gradient FAIL"') >= 1  # the transposed weight's gradient


def test_json_report_follows_the_documented_schema(tmp_path):
    report = tmp_path / "r.json"
    assert run(MODELS, "--model", "SmallCNN()", "--input-shape", "2,3,8,8", "--train-steps", "2",
               "--float64", "--report", report, "-q") == 0
    d = json.loads(report.read_text())
    assert d["schema_version"] == 1
    assert set(d) >= {"passed", "exit_code", "error", "settings", "culprit", "findings",
                      "transfer", "init", "phases", "train", "timings"}
    row = d["phases"][1]["layers"][0]
    assert set(row) >= {"name", "path", "call", "depth", "order", "torch_type", "ms_type",
                        "status", "output", "local", "noise", "torch_source", "ms_source"}
    assert set(row["output"]) >= {"max_abs", "max_rel", "mean_abs", "cosine", "worst_index",
                                  "worst_torch", "worst_ms", "passed", "min_rtol", "min_atol",
                                  "nan_torch", "nan_ms", "inf_torch", "inf_ms"}
    assert d["train"]["torch_losses"] and d["init"][0]["statistic"] >= 0
    # every documented key is in the schema document
    schema = (Path(__file__).parents[3] / "docs" / "check_report_schema.md").read_text()
    for key in list(d) + list(row) + list(row["output"]):
        assert f"`{key}`" in schema, key


def test_html_is_self_contained(tmp_path, faulty):
    report = tmp_path / "r.html"
    run(MODELS, "--model", "ProjNet()", "--input-shape", "4,6", "--converted", faulty,
        "--report", report, "-q")
    html = report.read_text()
    assert "<script" not in html and "<link" not in html and not re.search(r"src=", html)
    urls = set(re.findall(r"https?://[^\"' ]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
    assert html.count("<polyline") == 2  # one error-vs-depth plot per mode


@pytest.mark.parametrize("args, message", [
    (["--model", "NoSuchModel()", "--input-shape", "4,6"], "fails on the torch side: NameError"),
    (["--model", "MLP()", "--input-shape", "4,5"], "does not run on inputs of shape 4,5"),
    (["--model", "MLP()", "--input-shape", "4,a"], "not a list of positive ints"),
    (["--model", "MLP()", "--input-shape", "2,x"], "'2,x' is not a list of positive ints"),
    (["--model", "MLP()", "--input-shape", "2,,6"], "'2,,6' is not a list of positive ints"),
    (["--model", "MLP()", "--input-shape", "4,6+"], "'' is not a list of positive ints"),
    (["--model", "MLP()", "--input-shape", "4,6", "--input-dtype", "float8"], "not one of"),
    (["--model", "MLP()", "--input-shape", "4,6", "--report", "r.txt"], "must end in"),
])
def test_bad_input_exit_2_with_a_clear_message_and_no_report(tmp_path, capsys, args, message):
    report = tmp_path / "r.md"
    full = [MODELS, *args] + ([] if "--report" in args else ["--report", report])
    assert run(*full) == 2
    err = capsys.readouterr().err
    assert message in " ".join(err.split())
    assert not report.exists()


def test_file_that_does_not_convert_exit_2(tmp_path, capsys):
    bad = tmp_path / "broken.py"
    bad.write_text("import torch\nclass Net(torch.nn.Module:\n    pass\n")
    report = tmp_path / "r.json"
    assert run(bad, "--model", "Net()", "--input-shape", "2,2", "--report", report) == 2
    assert "does not convert" in " ".join(capsys.readouterr().err.split())
    assert not report.exists()
    assert run(tmp_path / "missing.py", "--model", "Net()", "--input-shape", "2,2") == 2


def test_converted_model_that_raises_is_a_mismatch_naming_the_place(tmp_path, capsys):
    code = FROZEN.read_text().replace("x = ops.sigmoid(self.fc2(x))", "x = ops.sigmoid(self.fc2(x[:, :3]))")
    path = tmp_path / "broken_ms.py"
    path.write_text(code)
    assert run(MODELS, "--model", "MLP()", "--input-shape", "4,6", "--converted", path,
               "--train-steps", "2", "-q") == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "raises in eval mode" in out and "input 0 of 'fc2' differs" in out


def test_multi_input_and_integer_inputs(capsys):
    assert run(MODELS, "--model", "TwoInputs()", "--input-shape", "4,4", "--input-shape", "4,3",
               "-q") == 0
    assert run(MODELS, "--model", "TextModel()", "--input-shape", "2,5", "--input-dtype", "int64",
               "--input-range", "0,20", "--train-steps", "2", "-q") == 0


@pytest.mark.parametrize("extra", [["--mode", "train", "--loss", "cross_entropy"],
                                   ["--mode", "eval", "--loss", "sum", "--train-steps", "2"],
                                   ["--rtol", "1e-3", "--atol", "1e-4", "--seed", "3"]])
def test_modes_losses_and_tolerances(extra):
    assert run(MODELS, "--model", "SmallCNN()", "--input-shape", "2,3,8,8", "-q", *extra) == 0


def test_terminal_table_highlights_the_first_divergence(faulty, capsys):
    assert run(MODELS, "--model", "ProjNet()", "--input-shape", "4,6", "--converted", faulty,
               "--mode", "eval") == 1
    out = capsys.readouterr().out
    assert "first divergence: proj" in out
    assert "│ ► proj " in out and "FAIL" in out and "drift" in out


def test_registered_in_the_migrate_command(tmp_path):
    import cli
    assert cli.main(["check", MODELS, "--model", "MLP()", "--input-shape", "4,6", "-q"]) == 0
    assert cli.main(["check", MODELS, "--model", "Nope()", "--input-shape", "4,6"]) == 2
    assert cli.main(["weights", str(tmp_path / "none.pth"), "-o", str(tmp_path / "x.ckpt")]) == 2


def test_both_versions_import_in_isolation():
    import sys

    from migrate.check.harness import prepare
    before_path, before_mods = list(sys.path), set(sys.modules)
    t, m, _, _ = prepare(MODELS, "MLP()", str(FROZEN))
    assert sys.path == before_path  # the model's directory was on sys.path only while importing
    new = set(sys.modules) - before_mods
    assert "models_ms" not in new  # the converted side is not registered
    assert sys.modules["models"].MLP is type(t)  # the torch original is, as an import leaves it
    assert type(t).__module__ != type(m).__module__


BAD = str(FIXTURES / "bad_models.py")


@pytest.mark.parametrize("model, message", [
    ("ReturnsNone()", "the torch model returns NoneType None: the checker compares"),
    ("ReturnsInt()", "the torch model returns int 3: the checker compares"),
])
def test_a_forward_that_returns_no_tensor_exits_2(capsys, model, message):
    assert run(BAD, "--model", model, "--input-shape", "2,4", "--no-cache", "-q") == 2
    assert message in " ".join(capsys.readouterr().err.split())


def test_inputs_larger_than_the_memory_exit_2_before_allocating(capsys):
    assert run(MODELS, "--model", "MLP()", "--input-shape", "100000,100000,1000", "-q") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "alone need" in err and "GiB" in err and "use a smaller --input-shape" in err


# With --timeout the check runs in a child of a fork server: these commands run in a child process
# with a time limit of their own, so the server never lives in the test process.
def test_a_forward_that_hangs_is_stopped_by_the_timeout():
    import time
    t0 = time.monotonic()
    code, _, err = run_cli(["check", BAD, "--model", "Hangs()", "--input-shape", "2,4", "--no-cache",
                            "--timeout", "3", "-q"], timeout=300)
    assert code == 2
    assert time.monotonic() - t0 < 120  # the child's start-up (imports) and 3 s
    assert "did not finish within 3 s (--timeout)" in err


def test_a_check_with_a_timeout_runs_in_a_child_and_gives_the_same_verdict(tmp_path):
    report = tmp_path / "r.json"
    assert run_cli(["check", MODELS, "--model", "MLP()", "--input-shape", "4,6", "--timeout", "120",
                    "--report", report, "-q"], timeout=300)[0] == 0
    assert json.loads(report.read_text())["passed"] is True


def test_piped_terminal_output_is_not_folded_to_80_columns(tmp_path):
    """rich formats for 80 columns when stdout is not a terminal; the check's tables are wider."""
    import subprocess
    import sys
    root = Path(__file__).parents[3]
    code = ("import sys; from cli import main; sys.exit(main(['check', sys.argv[1], '--model', "
            "'SmallCNN()', '--input-shape', '2,3,8,8']))")
    env = {**__import__("os").environ, "PYTHONPATH": str(root), "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-c", code, MODELS], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if "torch mean/std" in line)
    assert all(c in header for c in ("layer", "ms mean/std", "max rel", "cosine", "local err"))
    assert max(map(len, lines)) > 100 and "…" not in proc.stdout
