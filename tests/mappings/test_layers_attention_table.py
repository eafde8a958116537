"""Proofs of mappings/layers_attention.toml (MultiheadAttention, Transformer layers and stacks,
padding layers): see tests/mappings/proof.py. Inference mode (dropout off)."""
import pytest

from tests.mappings.proof import Layer, Marked, ProvenBy, case_id, run

pytest.importorskip("torch")

SEQ = (("q", "rs.randn(3, 2, 8).astype(np.float32)"),     # (L, N, E), sequence first
       ("kv", "rs.randn(5, 2, 8).astype(np.float32)"),
       ("bq", "rs.randn(2, 3, 8).astype(np.float32)"),    # (N, L, E), batch first
       ("tg", "rs.randn(4, 2, 8).astype(np.float32)"))
FF = "dim_feedforward=16"
V3 = (("v3", "rs.randn(2, 3, 5).astype(np.float32)"),)
V5 = (("v5", "rs.randn(1, 2, 3, 4, 3).astype(np.float32)"),)
# the sums of 8-term products of an attention layer differ in the last float32 digits
ATT = {"atol": 2e-6}

CASES = [
    Layer("torch.nn.MultiheadAttention", "nn.MultiheadAttention(8, 2)", input=("q", "kv", "kv"),
          arrays=SEQ, **ATT),
    Layer("torch.nn.MultiheadAttention", "nn.MultiheadAttention(8, 4, batch_first=True, "
          "bias=False)", input=("bq", "bq", "bq"), arrays=SEQ, **ATT),
    Layer("torch.nn.MultiheadAttention", "nn.MultiheadAttention(8, 2, kdim=6, vdim=4, "
          "add_bias_kv=True)", input=("q", "k6", "v4"),
          arrays=SEQ + (("k6", "rs.randn(5, 2, 6).astype(np.float32)"),
                        ("v4", "rs.randn(5, 2, 4).astype(np.float32)")), **ATT),
    Layer("torch.nn.TransformerEncoderLayer", f"nn.TransformerEncoderLayer(8, 2, {FF})",
          input="q", arrays=SEQ, **ATT),
    Layer("torch.nn.TransformerEncoderLayer", f"nn.TransformerEncoderLayer(8, 2, {FF}, "
          "activation='gelu', batch_first=True, norm_first=True)", input="bq", arrays=SEQ, **ATT),
    Marked("torch.nn.TransformerEncoderLayer", "nn.TransformerEncoderLayer(8, 2, bias=False)"),
    Layer("torch.nn.TransformerDecoderLayer", f"nn.TransformerDecoderLayer(8, 2, {FF})",
          input=("tg", "q"), arrays=SEQ, **ATT),
    Layer("torch.nn.TransformerEncoder", f"nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, "
          f"{FF}), 2, enable_nested_tensor=False)", input="q", arrays=SEQ, **ATT),
    Layer("torch.nn.TransformerDecoder", f"nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, "
          f"{FF}), 2, norm=nn.LayerNorm(8))", input=("tg", "q"), arrays=SEQ, **ATT),
    Layer("torch.nn.Transformer", f"nn.Transformer(8, 2, 1, 1, {FF})", input=("q", "tg"),
          arrays=SEQ, **ATT),
    Layer("torch.nn.ZeroPad2d", "nn.ZeroPad2d((1, 2, 0, 1))", input="img"),
    Layer("torch.nn.ConstantPad1d", "nn.ConstantPad1d((2, 1), 0.5)", input="v3", arrays=V3),
    Layer("torch.nn.ConstantPad2d", "nn.ConstantPad2d(1, -1.0)", input="img"),
    Layer("torch.nn.ConstantPad3d", "nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 2.0)", input="v5",
          arrays=V5),
    Layer("torch.nn.ReflectionPad1d", "nn.ReflectionPad1d(2)", input="v3", arrays=V3),
    Layer("torch.nn.ReflectionPad2d", "nn.ReflectionPad2d((1, 2, 2, 1))", input="img"),
    Layer("torch.nn.ReflectionPad3d", "nn.ReflectionPad3d(1)", input="v5", arrays=V5),
    Layer("torch.nn.ReplicationPad1d", "nn.ReplicationPad1d((0, 3))", input="v3", arrays=V3),
    Layer("torch.nn.ReplicationPad2d", "nn.ReplicationPad2d(2)", input="img"),
    Layer("torch.nn.ReplicationPad3d", "nn.ReplicationPad3d((1, 1, 0, 2, 1, 0))", input="v5",
          arrays=V5),
    Marked("torch.nn.ZeroPad1d", "nn.ZeroPad1d(2)"),
    Marked("torch.nn.ZeroPad3d", "nn.ZeroPad3d(1)"),
    Layer("torch.nn.CircularPad2d", "nn.CircularPad2d((1, 2, 0, 1))", input="img"),
    Layer("torch.nn.CircularPad3d", "nn.CircularPad3d(1)", input="v5", arrays=V5),
    ProvenBy("torch.nn.CircularPad1d",
             "tests/migrate/convert/rules/test_circular_pad_layer.py::test_circular_pads_give_torch_values"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
