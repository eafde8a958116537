"""A network method that shares a torch Module method's name but not its signature
(``def train(self, x_pos, x_neg)``, pytorch/examples' forward-forward MNIST) is the user's own:
called on a known network it is left as written, not marked (torch itself would raise for its
own Module.train with those arguments)."""
from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, check


def test_users_own_train_method_is_left_as_written():
    res = check('''
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            def train(self, x_pos, x_neg):
                return self.fc(x_pos) - self.fc(x_neg)


        net = Net()
        net.train(a, b)
        net.train(False)
        ''', '''
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(2, 2, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(2)))

            def train(self, x_pos, x_neg):
                return self.fc(x_pos) - self.fc(x_neg)


        net = Net()
        net.train(a, b)
        net.set_train(False)
        '''.lstrip("\n"))  # noqa: E501
    assert convert_source(res.code).code == res.code


def test_a_torch_method_called_with_arguments_it_refuses_stays_marked():
    # no class of the file defines cpu(self, ...): the call is torch's, and wrong
    out = convert_source(HEADER + "model = nn.Linear(2, 2)\nr = model.cpu(0, *args)\n").code
    assert "# migrate: MS903" in out


def test_accelerator_queries_on_tensors_are_false():
    # dcgan: `if input.is_cuda and self.ngpu > 1: data_parallel(...)`: MindSpore tensors live on
    # the context's device, so the single-device branch runs, as torch's on a CPU tensor
    check('''
        class G(nn.Module):
            def forward(self, x):
                if (x.is_cuda or x.is_xpu) and self.ngpu > 1:
                    return x
                return -x
        ''', '''
        class G(nn.Cell):
            def construct(self, x):
                if (False or False) and self.ngpu > 1:
                    return x
                return -x
        '''.lstrip("\n"))
