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
