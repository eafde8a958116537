"""The `migrate` command: files, directories, reports, exit codes."""
import json
import shutil

import pytest

import cli
from tests.child import run_cli
from tests.migrate.convert.helpers import FIXTURE_ROOT

FIXTURES = FIXTURE_ROOT / "convert"


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """rich wraps to the terminal width; make messages greppable whatever the CI terminal is."""
    monkeypatch.setenv("COLUMNS", "300")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg" / "sub").mkdir(parents=True)
    shutil.copy(FIXTURES / "lenet.py", root / "pkg" / "lenet.py")
    (root / "pkg" / "__init__.py").write_text("from . import lenet\nfrom .sub import helper\n")
    (root / "pkg" / "sub" / "__init__.py").write_text("")
    (root / "pkg" / "sub" / "helper.py").write_text("import torch\nfrom ..lenet import LeNet\nx = torch.ones(2, 3)\n")
    (root / "pkg" / "bad.py").write_text("import torch\ndef f(:\n    pass\n")
    (root / "pkg" / "latin1.py").write_bytes(b"import torch\nname = '\xe9'\n")
    (root / "data.txt").write_text("not python\n")
    return root


def test_single_file_to_stdout_leaves_input(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("import torch.nn as nn\nd = nn.Dropout(0.3)\n")
    assert cli.main(["convert", str(src), "-q"]) == 0
    out = capsys.readouterr().out
    assert "d = nn.Dropout(keep_prob=0.7)" in out
    assert src.read_text() == "import torch.nn as nn\nd = nn.Dropout(0.3)\n"


def test_single_file_output_and_in_place(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import torch.nn as nn\nd = nn.Dropout(0.3)\n")
    dst = tmp_path / "out.py"
    assert cli.main(["convert", str(src), "-o", str(dst), "-q"]) == 0
    assert "keep_prob=0.7" in dst.read_text() and "Dropout(0.3)" in src.read_text()
    assert cli.main(["convert", str(src), "--in-place", "-q"]) == 0
    assert "keep_prob=0.7" in src.read_text()


def test_directory_mode_with_bad_files(project, tmp_path):
    out = tmp_path / "out"
    report = tmp_path / "r.json"
    # two worker processes: the command runs in a child process with a time limit
    code, _, err = run_cli(["convert", project, "-o", out, "--jobs", "2", "--report", report])
    assert code == 1  # bad.py failed to parse
    assert "bad.py" in err and "line 2" in err and "not UTF-8" in err
    # the others converted, relative imports intact, non-Python files copied
    helper = (out / "pkg" / "sub" / "helper.py").read_text()
    assert "from ..lenet import LeNet" in helper and "ops.ones((2, 3))" in helper or "ops.ones(2, 3)" in helper
    assert "nn.Cell" in (out / "pkg" / "lenet.py").read_text()
    assert (out / "data.txt").read_text() == "not python\n"
    assert "import torch" in (project / "pkg" / "lenet.py").read_text()  # input untouched
    data = json.loads(report.read_text())
    assert data["schema"] == 1 and data["summary"]["failed"] == 2
    files = {f["path"]: f for f in data["files"]}
    assert "line 2" in files["pkg/bad.py"]["error"]
    lenet = files["pkg/lenet.py"]
    assert lenet["error"] is None and lenet["changes"]
    assert set(lenet["changes"][0]) == {"line", "rule", "label", "before", "after", "note"}
    s = data["summary"]
    assert s["converted"] == sum(v for k, v in s["by_label"].items() if k != "unsupported")


def test_markdown_report_and_diff(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("import torch\ny = torch.fft.hfft(x)\n")
    md = tmp_path / "r.md"
    assert cli.main(["convert", str(src), "--diff", "--report", str(md)]) == 0
    out = capsys.readouterr().out
    assert "+# migrate: MS901" in out
    assert src.read_text() == "import torch\ny = torch.fft.hfft(x)\n"
    text = md.read_text()
    assert "| 2 | MS901 | unsupported |" in text


def test_usage_errors(tmp_path, project):
    assert cli.main(["convert", str(tmp_path / "missing.py")]) == 2
    one = project / "pkg" / "lenet.py"
    before = one.read_text()
    assert cli.main(["convert", str(one), "-o", str(one)]) == 2  # never overwritten without --in-place
    assert cli.main(["convert", str(one), "-o", str(one.parent)]) == 2
    assert one.read_text() == before
    assert cli.main(["convert", str(project)]) == 2  # directory needs -o / --in-place / --diff
    assert cli.main(["convert", str(project), "-o", str(project)]) == 2
    with pytest.raises(SystemExit):
        cli.main(["convert", str(project), "--target", "jax"])


def test_mappings_listing(capsys):
    assert cli.main(["mappings", "--search", "dropout"]) == 0
    out = capsys.readouterr().out
    assert "torch.nn.Dropout" in out and "keep_prob" in out
    assert cli.main(["mappings", "--rules"]) == 0
    out = capsys.readouterr().out
    assert "MS110" in out and "MS901" in out


def test_subcommands_are_registered_in_one_place():
    names = [name for name, _, _ in cli.SUBCOMMANDS]
    assert names[:2] == ["convert", "mappings"]
    parser = cli.build_parser()
    assert parser.parse_args(["convert", "x.py"]).command == "convert"


def test_verbose_lists_every_change(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text("import torch.nn as nn\nd = nn.Dropout(0.3)\n")
    assert cli.main(["convert", str(src), "-o", str(tmp_path / "o.py"), "-v"]) == 0
    err = capsys.readouterr().err
    assert "MS010" in err and "keep_prob=0.7" in err
