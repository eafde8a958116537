"""A network method that shares a torch Module method's name but not its signature
(``def train(self, x_pos, x_neg)``, pytorch/examples' forward-forward MNIST) is the user's own:
called on a known network it is left as written, not marked (torch itself would raise for its
own Module.train with those arguments)."""
from tests.migrate.convert.helpers import check


def test_users_own_train_method_is_left_as_written():
    check('''
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
        '''.lstrip("\n"))
