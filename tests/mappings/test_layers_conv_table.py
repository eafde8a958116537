"""Proofs of mappings/layers_conv.toml (3-D and 1-D transposed convolutions, 3-D / adaptive /
power pooling, pixel shuffles, fixed-mode upsampling): see tests/mappings/proof.py."""
import pytest

from tests.mappings.proof import Layer, Marked, case_id, run

pytest.importorskip("torch")

SIG = (("sig", "rs.randn(2, 2, 7).astype(np.float32)"),)          # (N, C, L)
VOL = (("v5", "rs.randn(2, 2, 5, 6, 4).astype(np.float32)"),)     # (N, C, D, H, W)
# 3-D weight gradients sum ~240 float32 products of magnitude ~10 per element, in another order
# than torch's kernels: absolute differences up to ~5e-6 on values up to ~25
SUMS = {"atol": 1e-5}

CASES = [
    Layer("torch.nn.ConvTranspose1d", "nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1)",
          input="sig", arrays=SIG),
    Layer("torch.nn.ConvTranspose1d", "nn.ConvTranspose1d(2, 4, (1,), 2, groups=2, bias=False)",
          input="sig", arrays=SIG),
    Layer("torch.nn.Conv3d", "nn.Conv3d(2, 4, 3, padding=1)", input="v5", arrays=VOL, **SUMS),
    Layer("torch.nn.Conv3d", "nn.Conv3d(2, 4, (3, 1, 2), stride=(1, 2, 1), padding=(1, 0, 1), "
          "dilation=(2, 1, 1), groups=2, bias=False)", input="v5", arrays=VOL),
    Layer("torch.nn.Conv3d", "nn.Conv3d(2, 3, 2, padding='same')", input="v5", arrays=VOL),
    Layer("torch.nn.modules.conv.Conv3d", "torch.nn.modules.conv.Conv3d(2, 3, 2, stride=2)",
          input="v5", arrays=VOL),
    Layer("torch.nn.ConvTranspose3d", "nn.ConvTranspose3d(2, 4, 3, stride=2, padding=1, "
          "output_padding=1)", input="v5", arrays=VOL, **SUMS),
    Layer("torch.nn.ConvTranspose3d", "nn.ConvTranspose3d(2, 4, (1, 2, 3), stride=(2, 1, 2), "
          "groups=2, dilation=(1, 2, 1))", input="v5", arrays=VOL),
    Marked("torch.nn.ConvTranspose3d", "nn.ConvTranspose3d(2, 4, 3, dilation=2)"),
    Layer("torch.nn.MaxPool3d", "nn.MaxPool3d(2)", input="v5", arrays=VOL),
    Layer("torch.nn.MaxPool3d", "nn.MaxPool3d(3, 2, 1, ceil_mode=True)", input="v5", arrays=VOL),
    Layer("torch.nn.modules.pooling.MaxPool3d", "torch.nn.modules.pooling.MaxPool3d((2, 1, 2), "
          "dilation=(1, 2, 1))", input="v5", arrays=VOL),
    Layer("torch.nn.AvgPool3d", "nn.AvgPool3d(2)", input="v5", arrays=VOL),
    Layer("torch.nn.AvgPool3d", "nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False)",
          input="v5", arrays=VOL),
    Layer("torch.nn.AvgPool3d", "nn.AvgPool3d((2, 3, 2), (1, 2, 2), (1, 1, 0), "
          "divisor_override=5)", input="v5", arrays=VOL),
    Layer("torch.nn.AdaptiveAvgPool3d", "nn.AdaptiveAvgPool3d((3, 2, None))", input="v5",
          arrays=VOL),
    Layer("torch.nn.AdaptiveMaxPool3d", "nn.AdaptiveMaxPool3d(2)", input="v5", arrays=VOL),
    Layer("torch.nn.AdaptiveMaxPool1d", "nn.AdaptiveMaxPool1d(3)", input="sig", arrays=SIG),
    Marked("torch.nn.AdaptiveMaxPool1d", "nn.AdaptiveMaxPool1d(3, return_indices=True)"),
    Layer("torch.nn.LPPool1d", "nn.LPPool1d(2, 3, 2)", input="sig", arrays=SIG),
    Layer("torch.nn.LPPool2d", "nn.LPPool2d(2, 2)", input="img"),
    Layer("torch.nn.LPPool2d", "nn.LPPool2d(3, (2, 3), 1)", input="pos4",
          arrays=(("pos4", "np.abs(rs.randn(1, 2, 5, 6)).astype(np.float32) + 0.1"),)),
    Marked("torch.nn.LPPool3d", "nn.LPPool3d(2, 2)"),
    Layer("torch.nn.PixelShuffle", "nn.PixelShuffle(2)", input="px",
          arrays=(("px", "rs.randn(2, 8, 3, 2).astype(np.float32)"),)),
    Layer("torch.nn.modules.pixelshuffle.PixelShuffle",
          "torch.nn.modules.pixelshuffle.PixelShuffle(2)", input="px",
          arrays=(("px", "rs.randn(1, 4, 2, 3).astype(np.float32)"),)),
    Layer("torch.nn.PixelUnshuffle", "nn.PixelUnshuffle(3)", input="px",
          arrays=(("px", "rs.randn(2, 2, 6, 3).astype(np.float32)"),)),
    Layer("torch.nn.UpsamplingNearest2d", "nn.UpsamplingNearest2d(scale_factor=2)", input="img"),
    Layer("torch.nn.UpsamplingNearest2d", "nn.UpsamplingNearest2d(size=(9, 4))", input="img"),
    Layer("torch.nn.UpsamplingBilinear2d", "nn.UpsamplingBilinear2d(scale_factor=2)",
          input="img"),
    Layer("torch.nn.UpsamplingBilinear2d", "nn.UpsamplingBilinear2d((4, 9))", input="img"),
    Layer("torch.nn.Unfold", "nn.Unfold(3, stride=2, padding=1)", input="img"),
    Marked("torch.nn.Fold", "nn.Fold((4, 4), 2)"),
    Marked("torch.nn.FractionalMaxPool2d", "nn.FractionalMaxPool2d(2, output_size=3)"),
    Marked("torch.nn.FractionalMaxPool3d", "nn.FractionalMaxPool3d(2, output_ratio=0.5)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
