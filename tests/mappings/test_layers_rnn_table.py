"""Proofs of mappings/layers_rnn.toml (RNN, GRU, LSTM and their cells): see
tests/mappings/proof.py. The cells need hx in MindSpore (torch defaults it to zeros): the cases
pass it; LSTMCell takes an (h, c) pair, proven by a whole converted model."""
import pytest

from tests.mappings.proof import Layer, Marked, ProvenBy, case_id, run

pytest.importorskip("torch")

SEQ = (("s", "rs.randn(5, 2, 4).astype(np.float32)"),    # (L, N, H_in)
       ("b", "rs.randn(2, 5, 4).astype(np.float32)"),    # (N, L, H_in)
       ("x", "rs.randn(3, 4).astype(np.float32)"),       # a step of 3 samples
       ("h", "rs.randn(3, 6).astype(np.float32)"))

CASES = [
    Layer("torch.nn.RNN", "nn.RNN(4, 6)", input="s", arrays=SEQ),
    Layer("torch.nn.RNN", "nn.RNN(4, 6, 2, 'relu', batch_first=True, bidirectional=True)",
          input="b", arrays=SEQ),
    Layer("torch.nn.GRU", "nn.GRU(4, 6)", input="s", arrays=SEQ),
    Layer("torch.nn.GRU", "nn.GRU(4, 6, num_layers=2, bias=False, batch_first=True, dropout=0)",
          input="b", arrays=SEQ),
    Layer("torch.nn.LSTM", "nn.LSTM(4, 6)", input="s", arrays=SEQ),
    Layer("torch.nn.LSTM", "nn.LSTM(4, 6, 2, batch_first=True, bidirectional=True)", input="b",
          arrays=SEQ),
    Marked("torch.nn.LSTM", "nn.LSTM(4, 6, proj_size=2)"),
    Layer("torch.nn.RNNCell", "nn.RNNCell(4, 6)", input=("x", "h"), arrays=SEQ),
    Layer("torch.nn.RNNCell", "nn.RNNCell(4, 6, nonlinearity='relu', bias=False)",
          input=("x", "h"), arrays=SEQ),
    Layer("torch.nn.GRUCell", "nn.GRUCell(4, 6)", input=("x", "h"), arrays=SEQ),
    ProvenBy("torch.nn.LSTMCell", "tests/migrate/convert/rules/test_rnn.py::"
             "test_converted_gru_rnn_cells_model_matches_torch"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
