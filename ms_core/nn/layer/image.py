"""Image layers: Upsample."""
from ..cell import Cell
from ...ops import conv_ops as CO

__all__ = ["Upsample", "PixelShuffle", "PixelUnshuffle"]


class Upsample(Cell):
    """Resize (N, C, L) / (N, C, H, W) input, `mindspore.nn.Upsample`; the same computation as
    `ops.interpolate`, whose argument rules it follows (a float scale_factor, and for 3-D and 4-D
    input recompute_scale_factor=True)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return CO.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                              self.recompute_scale_factor)

    def extend_repr(self):
        what = f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        return f"{what}, mode={self.mode}"


class PixelShuffle(Cell):
    """(N, C*r*r, H, W) -> (N, C, H*r, W*r), `mindspore.nn.PixelShuffle` (same layout as
    torch.nn.PixelShuffle)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, x):
        return CO.pixel_shuffle(x, self.upscale_factor)

    def extend_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Cell):
    """(N, C, H*r, W*r) -> (N, C*r*r, H, W), `mindspore.nn.PixelUnshuffle`."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, x):
        return CO.pixel_unshuffle(x, self.downscale_factor)

    def extend_repr(self):
        return f"downscale_factor={self.downscale_factor}"
