"""Notebooks (issue 13, item 7): code cells converted as one program, everything else kept;
IPython lines kept as written; a clear refusal without nbformat."""
import json
import sys

import pytest

import cli

nbformat = pytest.importorskip("nbformat")

CELLS = [
    ("markdown", "# Training\nUses `torch.nn.Linear`."),
    ("code", "!pip install torch\n%matplotlib inline\nimport torch\nimport torch.nn as nn"),
    ("code", "model = nn.Sequential(nn.Linear(4, 2), nn.Dropout(0.3))\nmodel?"),
    ("code", "%%time\ny = torch.fft.hfft(x)  # keep me\nfor i in range(2):\n"
             "    !echo {i} \\\n      more\n    z = torch.ones(2, 3)"),
    ("code", "%%bash\necho torch.ones(2)"),
    ("code", "files = !ls\npip install numpy\nw = torch.zeros(3)"),
]


def make_notebook(path, cells=CELLS, language="python"):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": language, "display_name": "Python 3"}
    nb.metadata["custom"] = {"keep": [1, 2]}
    for kind, source in cells:
        cell = nbformat.v4.new_code_cell(source) if kind == "code" else nbformat.v4.new_markdown_cell(source)
        nb.cells.append(cell)
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="hello\n")]
    nb.cells[2].execution_count = 7
    nb.cells[2].metadata["tags"] = ["train"]
    nbformat.write(nb, str(path))
    return path


def sources(path):
    return [c.source for c in nbformat.read(str(path), as_version=4).cells]


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")


def test_code_cells_are_converted_and_the_rest_is_kept(tmp_path, capsys):
    src = make_notebook(tmp_path / "train.ipynb")
    before = src.read_bytes()
    out = tmp_path / "train_ms.ipynb"
    assert cli.main(["convert", str(src), "-o", str(out), "-q"]) == 0
    assert src.read_bytes() == before
    got = nbformat.read(str(out), as_version=4)
    s = [c.source for c in got.cells]
    assert s[0] == CELLS[0][1]  # markdown untouched
    assert s[1].startswith("!pip install torch\n%matplotlib inline\n")
    assert "import ms_core as ms" in s[1]
    # names imported in cell 2 are resolved in the later cells: one program, not one per cell
    assert s[2] == ("model = nn.SequentialCell(nn.Dense(4, 2, "
                    "weight_init=HeUniform(negative_slope=math.sqrt(5)), "
                    "bias_init=Uniform(scale=1 / math.sqrt(4))), nn.Dropout(keep_prob=0.7))\nmodel?")
    assert s[3] == ("%%time\n# migrate: MS901 torch.fft.hfft has no mapping\ny = torch.fft.hfft(x)  # keep me\n"
                    "for i in range(2):\n    !echo {i} \\\n      more\n    z = ops.ones((2, 3))")
    assert s[4] == CELLS[4][1]  # %%bash: not Python, left alone
    assert s[5] == "files = !ls\npip install numpy\nw = ops.zeros((3,))"
    assert got.metadata["custom"] == {"keep": [1, 2]}
    assert got.cells[2].outputs[0]["text"] == "hello\n"
    assert got.cells[2].execution_count == 7 and got.cells[2].metadata["tags"] == ["train"]
    assert nbformat.validate(got) is None


def test_converting_the_output_again_changes_nothing(tmp_path):
    src = make_notebook(tmp_path / "train.ipynb")
    once, twice = tmp_path / "once.ipynb", tmp_path / "twice.ipynb"
    assert cli.main(["convert", str(src), "-o", str(once), "-q"]) == 0
    assert cli.main(["convert", str(once), "-o", str(twice), "-q"]) == 0
    assert twice.read_bytes() == once.read_bytes()


def test_stdout_is_the_notebook_and_changes_name_their_cell(tmp_path, capsys):
    src = make_notebook(tmp_path / "train.ipynb")
    report = tmp_path / "r.json"
    assert cli.main(["convert", str(src), "--report", str(report), "-q"]) == 0
    printed = nbformat.reads(capsys.readouterr().out, as_version=4)
    assert "ops.zeros((3,))" in printed.cells[5].source
    changes = json.loads(report.read_text())["files"][0]["changes"]
    fft = next(c for c in changes if c["rule"] == "MS901")
    assert fft["note"].startswith("cell 4: ") and fft["line"] == 2  # cell 4, its line 2
    zeros = next(c for c in changes if "zeros" in c["before"])
    assert zeros["note"].startswith("cell 6") and zeros["line"] == 3


def test_directory_mode_converts_notebooks_and_leaves_others_byte_identical(tmp_path, capsys):
    tree = tmp_path / "d"
    tree.mkdir()
    make_notebook(tree / "train.ipynb")
    plain = make_notebook(tree / "plain.ipynb", [("code", "import numpy as np\nx = np.ones(3)")] * 3)
    out = tmp_path / "out"
    assert cli.main(["convert", str(tree), "-o", str(out), "-q"]) == 0
    assert "ops.zeros((3,))" in sources(out / "train.ipynb")[5]
    assert (out / "plain.ipynb").read_bytes() == plain.read_bytes()


def test_without_nbformat_notebooks_are_refused_clearly(tmp_path, capsys, monkeypatch):
    src = make_notebook(tmp_path / "train.ipynb")
    monkeypatch.setitem(sys.modules, "nbformat", None)  # import nbformat -> ImportError
    code = cli.main(["convert", str(src), "-o", str(tmp_path / "o.ipynb"), "-q"])
    err = capsys.readouterr().err
    assert code == 1 and "pip install 'ms-migrate[notebook]'" in err and "Traceback" not in err
    tree = tmp_path / "d"
    tree.mkdir()
    src.rename(tree / "train.ipynb")
    (tree / "m.py").write_text("import torch.nn as nn\nd = nn.Dropout(0.3)\n")
    assert cli.main(["convert", str(tree), "-o", str(tmp_path / "out"), "-q"]) == 1
    err = capsys.readouterr().err
    assert [ln for ln in err.splitlines() if "train.ipynb" in ln][0].startswith("failed: train.ipynb: converting")
    assert (tmp_path / "out" / "train.ipynb").read_bytes() == (tree / "train.ipynb").read_bytes()
    assert "keep_prob=0.7" in (tmp_path / "out" / "m.py").read_text()


@pytest.mark.parametrize("content,message", [
    (b"{not json", "not a valid notebook"),
    (b'{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}', "notebook format 3"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_broken_notebooks_are_one_line(tmp_path, capsys, content, message):
    src = tmp_path / "bad.ipynb"
    src.write_bytes(content)
    assert cli.main(["convert", str(src), "-o", str(tmp_path / "o.ipynb"), "-q"]) == 1
    err = capsys.readouterr().err
    assert message in [ln for ln in err.splitlines() if "bad.ipynb" in ln][0]


def test_a_cell_that_is_not_python_names_the_cell(tmp_path, capsys):
    src = make_notebook(tmp_path / "nb.ipynb", [("code", "import torch"), ("code", "x = = 1"),
                                                 ("code", "y = torch.ones(1)")])
    assert cli.main(["convert", str(src), "-o", str(tmp_path / "o.ipynb"), "-q"]) == 1
    err = capsys.readouterr().err
    assert "cell 2, line 1: invalid syntax" in err and "notebook left unchanged" in err
    assert (tmp_path / "o.ipynb").read_bytes() == src.read_bytes()


def test_a_notebook_in_another_language_is_left_alone(tmp_path, capsys):
    src = make_notebook(tmp_path / "r.ipynb", [("code", "library(torch)\nx <- torch_ones(2)")] * 3,
                        language="R")
    assert cli.main(["convert", str(src), "-o", str(tmp_path / "o.ipynb"), "-q"]) == 0
    assert (tmp_path / "o.ipynb").read_bytes() == src.read_bytes()
