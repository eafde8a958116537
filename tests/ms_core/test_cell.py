"""Cell: registration, names, traversal, modes, repr."""
import pytest

import ms_core as ms
from ms_core import Parameter, Tensor, nn


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.fc(x))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Dense(2, 1, has_bias=False)
        self.scale = Parameter(Tensor([1.0]), name="scale")
        self.frozen = Parameter(Tensor([0.0]), name="frozen", requires_grad=False)

    def construct(self, x):
        return self.head(self.block(x)) * self.scale


def test_parameters_are_named_by_attribute_path():
    net = Net()
    names = [p.name for p in net.get_parameters()]
    assert names == ["scale", "frozen", "block.fc.weight", "block.fc.bias", "head.weight"]
    assert [n for n, _ in net.parameters_and_names()] == names
    assert [p.name for p in net.trainable_params()] == ["scale", "block.fc.weight", "block.fc.bias",
                                                        "head.weight"]
    assert [p.name for p in net.untrainable_params()] == ["frozen"]
    assert list(net.parameters_dict()) == names


def test_standalone_dense_parameter_names():
    assert [p.name for p in nn.Dense(2, 3).trainable_params()] == ["weight", "bias"]


def test_cells_and_names_name_cells_cells():
    net = Net()
    assert [n for n, _ in net.cells_and_names()] == ["", "block", "block.fc", "block.act", "head"]
    assert list(net.name_cells()) == ["block", "head"]
    assert [type(c).__name__ for c in net.cells()] == ["Block", "Dense"]


def test_insert_child_to_cell():
    net = Net()
    net.insert_child_to_cell("extra", nn.Dense(1, 1))
    assert "extra.weight" in [p.name for p in net.get_parameters()]
    with pytest.raises(TypeError, match="the 'child_cell' must be a Cell"):
        net.insert_child_to_cell("bad", 3)
    with pytest.raises(KeyError, match="without '.'"):
        net.insert_child_to_cell("a.b", nn.ReLU())


def test_training_defaults_to_false_and_set_train_recurses():
    net = Net()
    assert net.training is False and net.block.fc.training is False
    assert net.set_train() is net
    assert net.training and net.block.fc.training
    net.set_train(False)
    assert not net.block.act.training


def test_reassigning_an_attribute_unregisters():
    net = Net()
    net.head = None
    assert "head" not in net.name_cells()
    net.scale = 3
    assert "scale" not in [p.name for p in net.get_parameters()]


def test_shared_parameters_are_listed_once():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(2, 2)
            self.b = nn.Dense(2, 2)
            self.b.weight = self.a.weight

        def construct(self, x):
            return self.b(self.a(x))

    assert len(list(Tied().get_parameters())) == 3


def test_repr_nested_as_mindspore():
    # the format printed by MindSpore 2.10 for the same network
    assert repr(Net()) == (
        "Net(\n"
        "  (block): Block(\n"
        "    (fc): Dense(input_channels=3, output_channels=2, has_bias=True)\n"
        "    (act): ReLU()\n"
        "  )\n"
        "  (head): Dense(input_channels=2, output_channels=1)\n"
        ")")


def test_setattr_before_super_init_is_a_clear_error():
    class Bad(nn.Cell):
        def __init__(self):
            self.fc = nn.Dense(1, 1)
            super().__init__()

    with pytest.raises(AttributeError, match="call super\\(\\).__init__\\(\\) before assigning 'fc'"):
        Bad()


def test_cell_without_construct_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="define construct"):
        nn.Cell()(Tensor([1.0]))


def test_dense_validation():
    with pytest.raises(ValueError, match="For 'Dense', the 'in_channels' must be a positive int, but got 0"):
        nn.Dense(0, 2)
    with pytest.raises(ValueError, match="last dimension of the input must be in_channels=3"):
        nn.Dense(3, 2)(Tensor([[1.0, 2.0]]))


def test_dense_default_init_is_mindspore_2_0_normal():
    ms.set_seed(0)
    w = nn.Dense(256, 256).weight.asnumpy()
    assert abs(w.std() - 0.01) < 0.0005 and abs(w.mean()) < 0.0005
    assert nn.Dense(4, 4).bias.asnumpy().tolist() == [0.0] * 4


def test_attached_cells_name_parameters_by_attribute_path_as_mindspore_2_10():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = nn.PReLU()
            self.bn = nn.BatchNorm2d(2)

    assert [p.name for p in nn.PReLU().get_parameters()] == ["a"]
    assert sorted(p.name for p in Net().get_parameters()) == [
        "bn.beta", "bn.gamma", "bn.moving_mean", "bn.moving_variance", "p.w"]


def test_parameter_tuple_members_are_registered_by_name_as_mindspore_2_10():
    net = nn.Dense(2, 2)

    class WithOptimizer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net
            self.opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)

    # printed by MindSpore 2.10 for the same code (attaching the optimizer renames the shared
    # parameters through it, as MindSpore does)
    assert [n for n, _ in WithOptimizer().parameters_and_names()] == [
        "net.weight", "net.bias", "opt.global_step", "opt.learning_rate", "opt.momentum",
        "opt.moments.net.weight", "opt.moments.net.bias"]
    assert [p.name for p in net.get_parameters()] == ["opt.net.weight", "opt.net.bias"]
