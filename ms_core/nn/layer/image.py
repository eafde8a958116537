"""Image layers: Upsample."""
from ..cell import Cell
from ...ops import conv_ops as CO

__all__ = ["Upsample"]


class Upsample(Cell):
    """Resize (N, C, L) / (N, C, H, W) input, `mindspore.nn.Upsample`; the same computation as
    `ops.interpolate` (PyTorch's source-coordinate rules for 'nearest' and 'bilinear', with
    `align_corners` True or False)."""

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
