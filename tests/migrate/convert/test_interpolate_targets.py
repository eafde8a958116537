"""F.interpolate as each target takes it: an int or whole scale_factor is written as MindSpore 2.10 takes it
(floats, recompute_scale_factor=True: guided-diffusion's Upsample; the same on both targets, as nn.Upsample), and
5-D input resampled trilinearly or by nearest neighbour (unet's UNet3D). Values and gradients against torch, the
mindspore output run here on ms_core; tests/oracle/test_oracle_interpolate_targets.py runs it on MindSpore 2.10."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_left import HEAD, assert_same_as_torch

torch = pytest.importorskip("torch")

UPSAMPLES = '''
def doubled(x):
    return F.interpolate(x, scale_factor=2, mode="nearest")


def doubled_linear(x):
    return F.interpolate(x, scale_factor=(2, 3), mode="bilinear", align_corners=False)


def volume(x):
    return F.interpolate(x, size=(5, 6, 7), mode="trilinear", align_corners=True)


def volume_half(x):
    return F.interpolate(x, scale_factor=2.0, mode="trilinear", align_corners=False)


def volume_nearest(x):
    return F.interpolate(x, size=(4, 8, 5), mode="nearest")
'''

RNG = np.random.RandomState(0)
CASES = {"doubled": (2, 3, 4, 5), "doubled_linear": (2, 3, 4, 5), "volume": (2, 2, 3, 4, 5),
         "volume_half": (1, 2, 3, 4, 5), "volume_nearest": (1, 2, 2, 4, 5)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_interpolate_gives_torchs_values_and_gradients_on_both_targets(name):
    assert_same_as_torch(UPSAMPLES, name, [RNG.randn(*CASES[name]).astype(np.float32)])


def test_an_int_scale_is_written_as_mindspore_takes_it():
    core = convert_source(HEAD + UPSAMPLES).code
    mind = convert_source(HEAD + UPSAMPLES, target="mindspore").code
    for out in (core, mind):
        assert 'ops.interpolate(x, scale_factor=2.0, mode="nearest", recompute_scale_factor=True)' in out
    assert 'ops.interpolate(x, scale_factor=(2.0, 3.0), mode="bilinear", align_corners=False, ' \
           'recompute_scale_factor=True)' in mind
    assert 'ops.interpolate(x, size=(5, 6, 7), mode="trilinear", align_corners=True)' in mind
