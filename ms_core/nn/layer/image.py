"""Image layers: Upsample."""
from ..cell import Cell
from ...ops import conv_ops as CO

__all__ = ["Upsample", "PixelShuffle", "PixelUnshuffle"]


def _check_scale(scale_factor, mode, x, recompute):
    """MindSpore 2.10's rules for a scale factor (checked): floats only, and for 3-D and 4-D
    input only with recompute_scale_factor=True (the output size floor(in * s) then defines
    the sampling, which for a whole-number s is what torch does without recomputing)."""
    if scale_factor is None:
        return
    values = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,)
    for v in values:
        if not isinstance(v, float):
            raise TypeError(f"For 'interpolate', the 'scale_factor' must be float, but got "
                            f"'{type(v).__name__}'")
    if x.ndim in (3, 4) and not recompute:
        raise ValueError(f"For 'interpolate', 'scale_factor' option cannot currently be set with "
                         f"the mode = {mode} and dim = {x.ndim}D.")


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
        _check_scale(self.scale_factor, self.mode, x, self.recompute_scale_factor)
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
