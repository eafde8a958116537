"""InstanceNorm with --target mindspore: MindSpore 2.10 has no CPU kernel for it ("Unsupported op
[InstanceNorm] on CPU", nnU-Net's and unet's 3-D UNets), and its InstanceNorm layers hold moving
statistics torch's have not. The runtime's InstanceNorm1d/2d/3dByGroups normalise through GroupNorm
with one channel a group (the same computation), stay subclasses of MindSpore's InstanceNorm and
hold gamma and beta only. Written for the layer built in place and for the class passed as a value
(`norm_op=nn.InstanceNorm3d`, the torch-signature class over it). The MindSpore side is
tests/oracle/test_oracle_instance_norm.py."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_left import HEAD, assert_same_as_torch, converted

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

NORMS = '''
def in_place(x2, x1, x3):
    a = nn.InstanceNorm2d(3, affine=True)
    with torch.no_grad():
        a.weight.copy_(torch.tensor([1.5, -0.5, 2.0]))
        a.bias.copy_(torch.tensor([0.1, 0.2, -0.3]))
    b = nn.InstanceNorm1d(3, eps=1e-3)
    c = nn.InstanceNorm3d(3, affine=True)
    return a(x2), b(x1), c(x3)


def by_class(x3, norm_op=nn.InstanceNorm3d):
    return norm_op(3, affine=True, eps=1e-5)(x3) * 2
'''


def _arrays():
    rng = np.random.RandomState(0)
    return [rng.randn(2, 3, 4, 5).astype(np.float32), rng.randn(2, 3, 6).astype(np.float32),
            rng.randn(2, 3, 2, 3, 4).astype(np.float32)]


def test_instance_norms_are_normalised_by_groups_for_mindspore():
    out = convert_source(HEAD + NORMS, target="mindspore").code
    assert "a = InstanceNorm2dByGroups(3, affine=True)" in out
    assert "b = InstanceNorm1dByGroups(3, eps=1e-3, affine=False)" in out
    assert "norm_op=TorchInstanceNorm3d" in out
    assert "ByGroups" not in convert_source(HEAD + NORMS).code  # ms_core has InstanceNorm


@pytest.mark.parametrize("name", ["in_place", "by_class"])
def test_instance_norms_give_torchs_values_and_gradients(name):
    arrays = _arrays()
    assert_same_as_torch(NORMS, name, arrays if name == "in_place" else arrays[2:])


def test_the_layer_is_an_instance_norm_with_gamma_and_beta_only():
    namespace = converted("norm = nn.InstanceNorm2d(4, affine=True)\n", "mindspore")
    norm = namespace["norm"]
    assert isinstance(norm, ms.nn.InstanceNorm2d)
    assert [n for n, _ in norm.parameters_and_names()] == ["gamma", "beta"]
