"""Recurrent layers with fixed weights: outputs, final states, seq_length, cells and gradients."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
nn = ms.nn
rng = np.random.default_rng(0)


def T(*shape, dtype=np.float32):
    return ms.Tensor(rng.standard_normal(shape).astype(dtype))


def flat(out):
    if isinstance(out, (tuple, list)):
        return sum((flat(o) for o in out), [])
    return [out]


def show(name, out):
    outs = flat(out)
    print(name, [tuple(o.shape) for o in outs],
          [[float(f"{v:.7g}") for v in o.asnumpy().astype(np.float64).ravel()[:16]] for o in outs])


def set_all(cell):
    for p in cell.get_parameters():
        p.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
    return cell


for cls, kw in [(nn.LSTM, {}), (nn.GRU, {}), (nn.RNN, {}), (nn.RNN, dict(nonlinearity="relu")),
                (nn.LSTM, dict(num_layers=2, bidirectional=True)),
                (nn.GRU, dict(num_layers=2, bidirectional=True, batch_first=True)),
                (nn.LSTM, dict(has_bias=False, batch_first=True))]:
    net = set_all(cls(3, 4, **kw))
    print(cls.__name__, kw, [(p.name, tuple(p.shape)) for p in net.get_parameters()])
    x = T(2, 5, 3) if kw.get("batch_first") else T(5, 2, 3)
    d = 2 if kw.get("bidirectional") else 1
    n = kw.get("num_layers", 1) * d
    h0 = T(n, 2, 4)
    hx = (h0, T(n, 2, 4)) if cls is nn.LSTM else h0
    show(f"{cls.__name__} {kw} default state", net(x))
    show(f"{cls.__name__} {kw} given state", net(x, hx))
    if not kw.get("batch_first"):
        show(f"{cls.__name__} {kw} seq_length", net(x, hx, ms.Tensor(np.array([5, 3], np.int32))))
    grads = ms.grad(lambda t: flat(net(t, hx))[0].sum(), grad_position=0,
                    weights=net.trainable_params())(x)
    show(f"{cls.__name__} {kw} grads", grads)

for cls, kw in [(nn.LSTMCell, {}), (nn.GRUCell, {}), (nn.RNNCell, {}),
                (nn.RNNCell, dict(nonlinearity="relu", has_bias=False))]:
    cell = set_all(cls(3, 4, **kw))
    print(cls.__name__, kw, [(p.name, tuple(p.shape)) for p in cell.get_parameters()])
    x, h = T(2, 3), T(2, 4)
    hx = (h, T(2, 4)) if cls is nn.LSTMCell else h
    show(f"{cls.__name__} {kw}", cell(x, hx))
