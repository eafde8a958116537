"""What the fourth first-pass sample still failed (bench/README.md "A fourth sample"), each class
with a fixture of our own run against torch with the same weights; the MindSpore side in
tests/oracle/test_oracle_fourth_sample_left.py."""
import numpy as np
import pytest

from tests.migrate.convert.test_first_pass_fourth_sample import run_both
from tests.migrate.convert.test_fixtures_numeric import copy_weights

torch = pytest.importorskip("torch")
ms = pytest.importorskip("ms_core")

# rtdl's FTTransformer: its blocks are a ModuleList of ModuleDicts (one holding a Sequential)
DICTS_IN_A_LIST = '''
class Net(nn.Module):
    def __init__(self, d=4, n=2):
        super().__init__()
        self.blocks = nn.ModuleList([
            nn.ModuleDict({"norm": nn.LayerNorm(d), "ffn": nn.Sequential(nn.Linear(d, 2 * d), nn.ReLU(),
                                                                         nn.Linear(2 * d, d))})
            for _ in range(n)])
        self.heads = nn.ModuleList((nn.ModuleDict({"lin": nn.Linear(d, d)}), nn.ModuleDict({"lin": nn.Linear(d, 3)})))

    def forward(self, x):
        for block in self.blocks:
            x = x + block["ffn"](block["norm"](x))
        for block in self.heads:
            x = block["lin"](x)
        return x
'''


def test_a_cell_list_refuses_a_cell_dict_when_built_as_mindspore_does_and_append_takes_one():
    with pytest.raises(TypeError, match="For 'CellList', the type of cell can not be CellDict"):
        ms.nn.CellList([ms.nn.CellDict({"a": ms.nn.Dense(2, 2)})])
    cells = ms.nn.CellList([ms.nn.Dense(2, 2)])
    cells.append(ms.nn.CellDict({"a": ms.nn.Dense(2, 2)}))
    assert len(cells) == 2


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_module_dicts_inside_a_module_list_are_a_torch_module_list(target):
    out, namespace, torch_namespace = run_both(DICTS_IN_A_LIST, target)
    assert "self.blocks = TorchModuleList([" in out and "self.heads = TorchModuleList((" in out
    torch.manual_seed(0)
    net, cell = torch_namespace["Net"](), namespace["Net"]()
    assert copy_weights(net, cell) == set()
    assert [n for n, _ in cell.parameters_and_names()] == [n.replace("weight", "gamma").replace(
        "norm.bias", "norm.beta") if ".norm." in n else n for n, _ in net.named_parameters()]
    x = np.random.RandomState(0).randn(2, 5, 4).astype(np.float32)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
