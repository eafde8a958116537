"""torch.nn.RNN / LSTM / GRU and the cells convert to nn.RNN / nn.LSTM / nn.GRU / nn.*Cell.

Before/after pairs for the argument translation (mappings/layers_rnn.toml), and converted models
that run on ms_core and match torch after copying the weights by name (rtol 1e-4).

torch.nn.LSTM: until the `unsupported` stub for it is removed from mappings/layers.toml, its
entry sits commented out (``#LSTM`` lines) in layers_rnn.toml; the `lstm_tables` fixture swaps
that entry in for the stub so the LSTM conversion is tested either way (a no-op once enabled).
"""
import ast
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import mappings
from migrate import convert_source
from migrate.convert import walker
from tests.migrate.convert.helpers import REPO

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

TABLE = REPO / "mappings" / "layers_rnn.toml"
FIXTURE = REPO / "tests" / "fixtures" / "convert" / "lstm_tagger.py"
HEADER = "import torch\nimport torch.nn as nn\n"


@pytest.fixture
def lstm_tables(monkeypatch, tmp_path):
    tables = mappings.load_tables()
    if tables["torch.nn.LSTM"].target == "nn.LSTM":
        return tables
    text = TABLE.read_text()
    pending = "\n".join(line[len("#LSTM "):] for line in text.splitlines()
                        if line.startswith("#LSTM "))
    assert pending, "layers_rnn.toml holds neither an enabled nor a pending LSTM entry"
    path = tmp_path / "layers_rnn.toml"
    path.write_text('id = "MS017"\n' + pending + "\n")
    (entry,) = mappings._load_file(path)
    patched = dict(tables, **{"torch.nn.LSTM": entry})
    monkeypatch.setattr(walker, "load_tables", lambda: patched)
    return patched


def one(expr, target="ms_core"):
    return convert_source(f"{HEADER}y = {expr}\n", target=target).code.splitlines()[-1]


PAIRS = [
    ("nn.GRU(4, 8)", "nn.GRU(4, 8)"),
    ("nn.GRU(4, 8, 2, False, True, 0.1, True)",
     "nn.GRU(4, 8, 2, has_bias=False, batch_first=True, dropout=0.1, bidirectional=True)"),
    ("nn.GRU(4, 8, num_layers=2, dropout=0, batch_first=True)",
     "nn.GRU(4, 8, num_layers=2, batch_first=True, dropout=0.0)"),
    ("nn.GRU(4, 8, bias=False, device='cpu')", "nn.GRU(4, 8, has_bias=False)"),
    ("nn.RNN(4, 8, 2, 'relu', False)", "nn.RNN(4, 8, 2, nonlinearity='relu', has_bias=False)"),
    ("nn.RNN(4, 8, nonlinearity='tanh', batch_first=True)",
     "nn.RNN(4, 8, nonlinearity='tanh', batch_first=True)"),
    ("nn.RNNCell(4, 8, True, 'relu')", "nn.RNNCell(4, 8, True, nonlinearity='relu')"),
    ("nn.RNNCell(4, 8, bias=False)", "nn.RNNCell(4, 8, has_bias=False)"),
    ("nn.GRUCell(4, 8, bias=False)", "nn.GRUCell(4, 8, has_bias=False)"),
    ("nn.LSTMCell(4, 8)", "nn.LSTMCell(4, 8)"),
    ("nn.LSTMCell(4, 8, bias=False, device=None)", "nn.LSTMCell(4, 8, has_bias=False)"),
]

LSTM_PAIRS = [
    ("nn.LSTM(4, 8)", "nn.LSTM(4, 8)"),
    ("nn.LSTM(4, 8, 2, False, True, 0.25, True)",
     "nn.LSTM(4, 8, 2, has_bias=False, batch_first=True, dropout=0.25, bidirectional=True)"),
    ("nn.LSTM(4, 8, batch_first=True, proj_size=0)", "nn.LSTM(4, 8, batch_first=True)"),
    ("nn.LSTM(input_size=4, hidden_size=8, bias=True, dropout=p)",
     "nn.LSTM(input_size=4, hidden_size=8, has_bias=True, dropout=float(p))"),
]


@pytest.mark.parametrize("before,after", PAIRS, ids=[p[0] for p in PAIRS])
def test_pairs(before, after):
    assert one(before) == f"y = {after}"


@pytest.mark.parametrize("before,after", LSTM_PAIRS, ids=[p[0] for p in LSTM_PAIRS])
def test_lstm_pairs(before, after, lstm_tables):
    assert one(before) == f"y = {after}"
    assert one(before, target="mindspore") == f"y = {after}"


def test_unsupported_arguments_are_marked(lstm_tables):
    res = convert_source(f"{HEADER}y = nn.LSTM(4, 8, proj_size=2)\n")
    assert "# migrate: MS902 torch.nn.LSTM: proj_size=2" in res.code
    res = convert_source(f"{HEADER}y = nn.GRU(4, 8, dtype=torch.float64)\n")
    assert "# migrate: MS902 torch.nn.GRU: dtype=torch.float64" in res.code


def test_changes_are_labelled_with_notes():
    res = convert_source(f"{HEADER}y = nn.GRU(4, 8, bias=False)\n")
    (change,) = [c for c in res.changes if "GRU" in c.before]
    assert change.label == "transformed" and "has_bias" in change.note
    assert change.rule == "MS017"  # the RNN table


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _converted_matches_torch(src: str, tmp_path: Path, name: str, shape):
    res = convert_source(src)
    assert res.error is None and res.unsupported == 0 and "# migrate:" not in res.code, res.code
    (tmp_path / f"torch_{name}.py").write_text(src)
    (tmp_path / f"ms_{name}.py").write_text(res.code)
    tmod = _load(tmp_path / f"torch_{name}.py", f"torch_{name}")
    cmod = _load(tmp_path / f"ms_{name}.py", f"ms_{name}")
    torch.manual_seed(0)
    tmodel = tmod.make_model().eval()
    cell = cmod.make_model()
    cell.set_train(False)
    params = dict(cell.parameters_and_names())
    sd = tmodel.state_dict()
    assert sorted(params) == sorted(sd), (sorted(params), sorted(sd))
    for key, value in sd.items():
        assert tuple(params[key].shape) == tuple(value.shape), key
        params[key].set_data(ms.Tensor(value.numpy()))
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    with torch.no_grad():
        ref = tmodel(torch.from_numpy(x)).numpy()
    out = cell(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    return res


GRU_MODEL = '''"""GRU encoder + RNN(relu) + GRUCell/RNNCell/LSTMCell refinement."""
import torch
import torch.nn as nn

INPUT_SHAPE = (3, 6, 5)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(5, 8, 2, True, True, 0.0, True)
        self.rnn = nn.RNN(16, 6, 1, 'relu', batch_first=True)
        self.gcell = nn.GRUCell(6, 4)
        self.rcell = nn.RNNCell(6, 4, nonlinearity='tanh')
        self.lcell = nn.LSTMCell(6, 4, bias=False)
        self.out = nn.Linear(12, 2)

    def forward(self, x):
        y, h = self.gru(x)
        z, _ = self.rnn(y)
        last = z[:, -1]
        h0 = torch.zeros(x.shape[0], 4)
        g = self.gcell(last, h0)
        r = self.rcell(last, h0)
        hc = self.lcell(last, (h0, h0))
        return self.out(torch.cat([g, r, hc[1]], 1))


def make_model():
    return Net()
'''


def test_converted_gru_rnn_cells_model_matches_torch(tmp_path):
    res = _converted_matches_torch(GRU_MODEL, tmp_path, "grunet", (3, 6, 5))
    assert "nn.GRU(5, 8, 2, has_bias=True, batch_first=True, dropout=0.0, " \
           "bidirectional=True)" in res.code
    assert "nn.RNN(16, 6, 1, nonlinearity='relu', batch_first=True)" in res.code


def _fixture_source():
    if FIXTURE.exists():
        return FIXTURE.read_text()
    pytest.skip("tests/fixtures/convert/lstm_tagger.py is added together with the LSTM entry")


def test_converted_lstm_tagger_fixture_matches_torch(tmp_path, lstm_tables):
    src = _fixture_source()
    (shape,) = [ast.literal_eval(node.value) for node in ast.parse(src).body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "INPUT_SHAPE"]
    res = _converted_matches_torch(src, tmp_path, "lstm_tagger", shape)
    assert "nn.LSTM(" in res.code and "has_bias" not in res.code.split("nn.LSTM(")[1].split(")")[0]


LSTM_MODEL = '''import torch
import torch.nn as nn

INPUT_SHAPE = (2, 5, 4)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, num_layers=2, bias=True, batch_first=True, dropout=0.3,
                            bidirectional=True)
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        h0 = torch.zeros(4, x.shape[0], 6)
        out, (h, c) = self.lstm(x, (h0, h0))
        return self.head(out) + h[-1].sum()


def make_model():
    return Tagger()
'''


def test_converted_inline_lstm_model_matches_torch(tmp_path, lstm_tables):
    res = _converted_matches_torch(LSTM_MODEL, tmp_path, "lstm_inline", (2, 5, 4))
    assert "dropout=0.3" in res.code and "has_bias=True" in res.code
