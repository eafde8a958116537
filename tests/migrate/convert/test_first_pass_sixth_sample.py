"""Classes the sixth first-pass sample met (bench/README.md "A sixth sample"): eleven PyPI packages
nobody here had converted (BERT/GPT-2 weight initialisation, a BigGAN generator, N-BEATS, normalizing
flows, a vocoder head). Each test is a fixture of our own: the converted code is checked as text
where the rewrite matters and run against torch with the same weights."""
import numpy as np
import pytest

from migrate import convert_source
from tests.migrate.convert.test_first_pass_fourth_sample import run_both

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")


# pytorch-pretrained-bert's init_bert_weights (and Hugging Face's _init_weights): one isinstance
# over layer classes that MindSpore names the parameter differently in (Dense's weight, Embedding's
# embedding_table, LayerNorm's gamma)
INIT_BY_TUPLE = '''
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.norm = nn.LayerNorm(6)
        self.fc = nn.Linear(6, 3)
        self.apply(self.init_weights)

    def init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=0.02)
            module.weight.data.mul_(0.0).add_(0.25)
        elif isinstance(module, (nn.LayerNorm, nn.BatchNorm1d)):
            module.bias.data.fill_(0.5)
            module.weight.data.fill_(2.0)
        if isinstance(module, nn.Linear) and module.bias is not None:
            module.bias.data.zero_()

    def forward(self, x):
        return self.fc(self.norm(self.emb(x) * torch.arange(6.0)))


def weight_sums(model):
    sums = []
    for m in model.modules():
        if isinstance(m, (nn.Embedding, nn.LayerNorm, nn.Linear)):
            sums.append(float(m.weight.sum()))
    return sums
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_a_parameter_read_through_isinstance_of_classes_naming_it_differently(target):
    out, namespace, torch_namespace = run_both(INIT_BY_TUPLE, target)
    assert "TorchLayerAttrs(module).weight.set_data(" in out
    # an in-place chain on that read writes the parameter, as on any attribute chain
    assert ("TorchLayerAttrs(module).weight.data.copy_(TorchLayerAttrs(module).weight.data.copy().mul(0.0).add(0.25))"
            in out)
    assert "module.beta.set_data(" in out  # LayerNorm and BatchNorm1d agree: beta, written plainly
    net, cell = torch_namespace["Tagger"](), namespace["Tagger"]()
    x = np.array([[1, 4, 9], [0, 2, 2]], dtype=np.int64)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(namespace["weight_sums"](cell), torch_namespace["weight_sums"](net), rtol=1e-6)


def test_a_write_to_a_parameter_named_differently_by_the_classes_is_marked():
    code = ("import torch.nn as nn\n\n\ndef reset(m):\n    if isinstance(m, (nn.Linear, nn.LayerNorm)):\n"
            "        m.weight = None\n")
    out = convert_source(code).code
    assert "# migrate: MS918 LayerNorm/Linear.weight is gamma / weight in MindSpore" in out
    assert "        m.weight = None\n" in out


# pytorch-pretrained-biggan's snconv2d / snlinear / sn_embedding (and SAGAN/BigGAN discriminators in
# general): layers wrapped by torch.nn.utils.spectral_norm, built from torch's keyword arguments
SPECTRAL = '''
def snconv2d(eps=1e-12, **kwargs):
    return nn.utils.spectral_norm(nn.Conv2d(**kwargs), eps=eps)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = snconv2d(in_channels=3, out_channels=4, kernel_size=3, padding=1)
        self.up = nn.utils.spectral_norm(nn.ConvTranspose2d(4, 2, 2, stride=2), n_power_iterations=2)
        self.fc = torch.nn.utils.spectral_norm(nn.Linear(2 * 8 * 8, 1))

    def forward(self, x):
        return self.fc(F.relu(self.up(F.relu(self.conv(x)))).flatten(1))
'''


def _spectral_state(model):
    """The spectral-norm state by torch's names: weight_orig, weight_u, weight_v of each layer."""
    return {f"{layer}.{leaf}": getattr(getattr(model, layer), leaf)
            for layer in ("conv", "up", "fc") for leaf in ("weight_orig", "weight_u", "weight_v")}


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_spectral_norm_divides_by_the_power_iteration_estimate_as_torch(target):
    out, namespace, torch_namespace = run_both(SPECTRAL, target)
    assert "return torch_spectral_norm(TorchConv2d(**kwargs), eps=eps)" in out
    assert "MS901" not in out
    torch.manual_seed(0)
    net, cell = torch_namespace["Critic"](), namespace["Critic"]()
    for key, value in _spectral_state(net).items():  # torch's u, v and weights, copied
        layer, leaf = key.split(".")
        getattr(getattr(cell, layer), leaf).set_data(ms.Tensor(value.detach().numpy().reshape(
            getattr(getattr(cell, layer), leaf).shape)))
    for layer in ("conv", "up", "fc"):
        getattr(cell, layer).bias.set_data(ms.Tensor(getattr(net, layer).bias.detach().numpy()))
    x = np.random.RandomState(0).randn(2, 3, 4, 4).astype(np.float32)
    for training in (False, True, True):  # eval: the stored u, v; training: power iteration updates them
        net.train(training)
        cell.set_train(training)
        want = net(torch.from_numpy(x)).detach().numpy()
        np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
        for key, value in _spectral_state(net).items():
            layer, leaf = key.split(".")
            np.testing.assert_allclose(getattr(getattr(cell, layer), leaf).asnumpy().reshape(value.shape),
                                       value.detach().numpy(), rtol=1e-5, atol=1e-6)
    # the gradient reaches weight_orig through W / sigma (u and v held fixed), as torch's
    net.train(False)
    cell.set_train(False)
    net(torch.from_numpy(x)).sum().backward()
    grads = ms.grad(lambda t: cell(t).sum(), grad_position=None, weights=[cell.fc.weight_orig, cell.conv.weight_orig])(
        ms.Tensor(x))
    np.testing.assert_allclose(grads[0].asnumpy(), net.fc.weight_orig.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(grads[1].asnumpy(), net.conv.weight_orig.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_spectral_norm_refuses_a_layer_without_the_parameter():
    from migrate.runtime.layers import torch_spectral_norm
    with pytest.raises(TypeError, match="For 'spectral_norm', 'kernel' must be a Parameter of the cell"):
        torch_spectral_norm(ms.nn.Dense(2, 3), name="kernel")
    with pytest.raises(ValueError, match="'n_power_iterations' must be positive, but got 0"):
        torch_spectral_norm(ms.nn.Dense(2, 3), n_power_iterations=0)


# nbeats-pytorch's NBeatsNet: blocks kept in a plain list (not registered), their parameters
# gathered into a list that becomes nn.ParameterList (the only registration: torch names them
# parameters.0, ...); vocos' ResBlock1: per-layer scales in a ParameterList, None where not scaled
GATHERED = '''
class Block(nn.Module):
    def __init__(self, units):
        super().__init__()
        self.fc1 = nn.Linear(units, units)
        self.fc2 = nn.Linear(units, units)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Stacked(nn.Module):
    def __init__(self, units=4, n=3):
        super().__init__()
        self.blocks = []
        self.params = []
        for _ in range(n):
            block = Block(units)
            self.params.extend(block.parameters())
            self.blocks.append(block)
        self.params = nn.ParameterList(self.params)
        self.scale = nn.ParameterList([nn.Parameter(torch.full((units,), 0.5)), None, nn.Parameter(torch.ones(units))])

    def forward(self, x):
        for block, scale in zip(self.blocks, self.scale):
            x = block(x) if scale is None else x + scale * block(x)
        return x
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_a_parameter_list_names_its_parameters_by_index_as_torch(target):
    out, namespace, torch_namespace = run_both(GATHERED, target)
    assert "self.params = TorchParameterList(self.params)" in out
    torch.manual_seed(0)
    net, cell = torch_namespace["Stacked"](), namespace["Stacked"]()
    names = [name for name, _ in cell.parameters_and_names()]
    assert names == list(net.state_dict()) == [f"params.{i}" for i in range(12)] + ["scale.0", "scale.2"]
    for name, value in net.state_dict().items():
        dict(cell.parameters_and_names())[name].set_data(ms.Tensor(value.numpy()))
    x = np.random.RandomState(0).randn(2, 4).astype(np.float32)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


# BigGAN's GenBlock (and most U-Net decoders): F.interpolate with an int scale_factor
UPSAMPLED = '''
def up(x, s):
    return F.interpolate(x, scale_factor=2, mode="nearest") + F.interpolate(x, scale_factor=s, mode="bilinear")
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_interpolate_gets_a_float_scale_as_mindspore_takes_it(target):
    out, namespace, torch_namespace = run_both(UPSAMPLED, target)
    assert 'ops.interpolate(x, scale_factor=2.0, mode="nearest", recompute_scale_factor=True)' in out
    assert "scale_factor=torch_float_scale(s)" in out
    x = np.random.RandomState(0).randn(1, 2, 3, 4).astype(np.float32)
    np.testing.assert_allclose(namespace["up"](ms.Tensor(x), 2).asnumpy(),
                               torch_namespace["up"](torch.from_numpy(x), 2).numpy(), rtol=1e-5, atol=1e-6)


# vocos' ISTFTHead (and spectrogram code in general): a complex spectrum built from a magnitude
# and a phase with Python's imaginary unit
SPECTRUM = '''
def spectrum(mag, p):
    S = mag * (torch.cos(p) + 1j * torch.sin(p))
    T = torch.exp(1j * p) * mag / (2.0 - 1j)
    return torch.real(S + T), torch.imag(S - T), torch.real(p + 0.5j)
'''


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_complex_arithmetic_is_promoted_as_torch_does(target):
    out, namespace, torch_namespace = run_both(SPECTRUM, target)
    if target == "mindspore":
        assert "S = complex_mul(mag, ops.cos(p) + complex_mul(1j, ops.sin(p)))" in out
        assert "complex_div(complex_mul(ops.exp(complex_mul(1j, p)), mag), 2.0 - 1j)" in out
    else:  # ms_core takes torch's promotion as it is
        assert "S = mag * (ops.cos(p) + 1j * ops.sin(p))" in out
    rs = np.random.RandomState(0)
    mag, p = rs.rand(2, 5).astype(np.float32), rs.randn(2, 5).astype(np.float32)
    got = namespace["spectrum"](ms.Tensor(mag), ms.Tensor(p))
    want = torch_namespace["spectrum"](torch.from_numpy(mag), torch.from_numpy(p))
    for g, w in zip(got, want):
        assert g.asnumpy().dtype == w.numpy().dtype == np.float32
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=1e-5, atol=1e-6)
