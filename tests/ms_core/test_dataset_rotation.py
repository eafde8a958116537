"""dataset.vision.RandomRotation (nearest neighbour, the canvas kept) against torchvision's
rotation of a tensor image: torchvision rotates with F.grid_sample over its inverse affine map
(pixel centres at i + 0.5, align_corners=False); the same map is written here in float64 with
torch's grid_sample. MindSpore's kernel (ms_core computes MindSpore 2.10's, tests/oracle/snippets/
random_rotation.py) rounds a source coordinate exactly halfway between two pixels up, torch to
even: every pixel agrees except at such ties."""
import math

import numpy as np
import pytest

from ms_core.dataset import vision

torch = pytest.importorskip("torch")


def _torchvision_rotate(img, angle, center=None, fill=0.0):
    """torchvision.transforms.functional.rotate of an (H, W, C) image (nearest, expand=False),
    and the source coordinates of every output pixel (in pixel indices)."""
    import torch.nn.functional as F
    h, w = img.shape[:2]
    cx, cy = (w * 0.5, h * 0.5) if center is None else center
    th = math.radians(angle)
    jj, ii = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    sx = math.cos(th) * (jj - cx) - math.sin(th) * (ii - cy) + cx
    sy = math.sin(th) * (jj - cx) + math.cos(th) * (ii - cy) + cy
    grid = torch.tensor(np.stack([sx / (w / 2) - 1, sy / (h / 2) - 1], -1)[None])
    t = torch.tensor(img, dtype=torch.float64).permute(2, 0, 1)[None]
    t = torch.cat([t, torch.ones_like(t[:, :1])], 1)  # torchvision's mask channel for the fill
    out = F.grid_sample(t, grid, mode="nearest", padding_mode="zeros", align_corners=False)[0]
    mask, out = out[-1:], out[:-1]
    fill = torch.tensor(fill, dtype=torch.float64).reshape(-1, 1, 1)
    out = torch.where(mask < 0.5, fill.expand_as(out), out)
    return out.permute(1, 2, 0).numpy(), sx - 0.5, sy - 0.5


def _ties(sx, sy):
    """Output pixels whose source coordinate is halfway between two pixels, to within MindSpore's
    fixed-point precision (its kernel's coordinates have 10 fractional bits: 2 / 1024 covers the
    rounding of both terms of the map)."""
    def near_half(v):
        return np.abs(v - np.floor(v) - 0.5) <= 2 / 1024
    return near_half(sx) | near_half(sy)


CASES = [((7, 9, 3), 30.0, None, (3, 5, 9)), ((8, 8, 1), -45.0, None, 0), ((5, 6, 1), 90.0, None, 17),
         ((6, 11, 3), 15.0, (5.5, 3.0), 0), ((9, 4, 1), 7.5, None, 0), ((10, 6, 3), 33.3, (2.0, 7.0), (1, 2, 3)),
         ((32, 32, 3), -12.0, None, 0), ((32, 32, 3), 180.0, None, 0), ((6, 8, 3), 0.0, None, 0)]


@pytest.mark.parametrize("shape, angle, center, fill", CASES)
def test_a_fixed_angle_rotates_as_torchvision(shape, angle, center, fill):
    rs = np.random.RandomState(len(CASES) + shape[0] * shape[1])
    img = rs.randint(0, 256, shape).astype(np.uint8)
    want, sx, sy = _torchvision_rotate(img, angle, center, fill if isinstance(fill, tuple) else (fill,) * shape[2])
    # torchvision's centre (pixel centres at i + 0.5) is MindSpore's plus 0.5; MindSpore writes a
    # 3-tuple fill into the channels in reverse order
    ms_center = None if center is None else (center[0] - 0.5, center[1] - 0.5)
    ms_fill = fill[::-1] if isinstance(fill, tuple) else fill
    got = vision.RandomRotation((angle, angle), center=ms_center, fill_value=ms_fill)(img)
    assert got.shape == img.shape and got.dtype == np.uint8
    differs = (got.astype(np.float64) != want).any(-1)
    assert not (differs & ~_ties(sx, sy)).any(), np.argwhere(differs & ~_ties(sx, sy))


def test_a_2d_image_and_the_angle_range():
    img = np.arange(20, dtype=np.uint8).reshape(4, 5)
    np.testing.assert_array_equal(vision.RandomRotation((0, 0))(img), img)
    np.testing.assert_array_equal(vision.RandomRotation((180, 180))(img), img[::-1, ::-1])
    rot = vision.RandomRotation(20)
    assert rot.degrees == (-20.0, 20.0)
    angles = [rot.angle() for _ in range(400)]
    assert -20 <= min(angles) and max(angles) <= 20 and abs(np.mean(angles)) < 2.0


@pytest.mark.parametrize("kwargs, error", [(dict(degrees=-3), ValueError), (dict(degrees=(5, 1)), ValueError),
                                           (dict(degrees=10, fill_value=(1, 2)), TypeError),
                                           (dict(degrees=10, resample=vision.Inter.BILINEAR), NotImplementedError),
                                           (dict(degrees=10, expand=True), NotImplementedError)])
def test_bad_arguments_are_named(kwargs, error):
    with pytest.raises(error):
        vision.RandomRotation(**kwargs)
