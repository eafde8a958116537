import importlib
import os
import tempfile

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn, ops = ms.nn, ms.ops
rng = np.random.default_rng(0)
W0 = rng.standard_normal((3, 4)).astype(np.float32)
B0 = rng.standard_normal((3,)).astype(np.float32)
G = [(rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3,)).astype(np.float32))
     for _ in range(5)]


def params():
    w = ms.Parameter(ms.Tensor(W0), name="fc.weight")
    b = ms.Parameter(ms.Tensor(B0), name="fc.bias")
    return [w, b]


def run(name, make):
    ps = params()
    opt = make(ps)
    for gw, gb in G:
        opt((ms.Tensor(gw), ms.Tensor(gb)))
    print(name, [float(f"{v:.7g}") for p in ps for v in p.asnumpy().ravel()[:5]])


run("sgd", lambda ps: nn.SGD(ps, learning_rate=0.1))
run("sgd momentum nesterov wd",
    lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9, nesterov=True, weight_decay=0.01))
run("momentum", lambda ps: nn.Momentum(ps, learning_rate=0.1, momentum=0.9))
run("momentum wd", lambda ps: nn.Momentum(ps, learning_rate=0.1, momentum=0.9, weight_decay=0.01))
# Not compared: nn.Momentum(use_nesterov=True). MindSpore 2.10's CPU kernel ignores the flag
# (one step of grad 1 from 1.0 gives 0.9, the plain-momentum result); ms_core follows the
# documented formula p -= lr * (grad + momentum * accum), as nn.SGD(nesterov=True) does on 2.10.
run("adam", lambda ps: nn.Adam(ps, learning_rate=0.01))
run("adam wd", lambda ps: nn.Adam(ps, learning_rate=0.01, weight_decay=0.1))
run("adamweightdecay", lambda ps: nn.AdamWeightDecay(ps, learning_rate=0.01, weight_decay=0.1))
run("rmsprop", lambda ps: nn.RMSProp(ps, learning_rate=0.01))
run("rmsprop centered", lambda ps: nn.RMSProp(ps, learning_rate=0.01, centered=True, momentum=0.5))
run("adagrad", lambda ps: nn.Adagrad(ps, learning_rate=0.1))
run("dynamic lr list", lambda ps: nn.Momentum(ps, learning_rate=[0.1, 0.05, 0.02, 0.01, 0.005], momentum=0.9))
run("groups", lambda ps: nn.Momentum([{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.1},
                                      {"params": [ps[1]]}], learning_rate=0.1, momentum=0.9))
run("schedule", lambda ps: nn.Momentum(ps, nn.ExponentialDecayLR(0.1, 0.9, 2), momentum=0.9))
step = ms.Tensor(3, ms.int32)
for sched in [nn.ExponentialDecayLR(0.1, 0.9, 2), nn.ExponentialDecayLR(0.1, 0.9, 2, is_stair=True),
              nn.NaturalExpDecayLR(0.1, 0.9, 2), nn.InverseDecayLR(0.1, 0.9, 2),
              nn.CosineDecayLR(0.01, 0.1, 10), nn.PolynomialDecayLR(0.1, 0.01, 10, 0.5),
              nn.WarmUpLR(0.1, 10)]:
    print(type(sched).__name__, float(f"{sched(step).asnumpy().item():.7g}"))
print([float(f"{v:.7g}") for v in nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01])])
print([float(f"{v:.7g}") for v in nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1)])
print([float(f"{v:.7g}") for v in nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2)])
print([float(f"{v:.7g}") for v in nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5)])
print([float(f"{v:.7g}") for v in nn.warmup_lr(0.1, 6, 2, 2)])


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn(self.fc(x))


net = Net()
for p in net.get_parameters():
    p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.5
                         + (1.0 if "variance" in p.name else 0.0)))
print([p.name for p in net.get_parameters()], [p.name for p in net.trainable_params()])
train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
train.set_train()
x, y = (ms.Tensor(rng.standard_normal((5, 4)).astype(np.float32)),
        ms.Tensor(rng.standard_normal((5, 3)).astype(np.float32)))
print("losses", [float(f"{train(x, y).asnumpy().item():.6g}") for _ in range(3)])
print("after", [float(f"{v:.6g}") for p in net.get_parameters() for v in p.asnumpy().ravel()[:3]])
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "net.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    print(sorted(loaded))
    fresh = Net()
    print(ms.load_param_into_net(fresh, loaded))
    # MindSpore 2.10 falls back to matching a checkpoint name by suffix ('weight' <- 'fc.weight')
    print(ms.load_param_into_net(nn.Dense(4, 3), loaded))
