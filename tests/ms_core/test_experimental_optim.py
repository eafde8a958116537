"""ms_core.experimental.optim against torch.optim: parameter trajectories over 50 steps.

Both sides start from the same weights and receive the same gradient arrays at every step (torch
computes them at its own current weights), so any difference comes from the update rules alone.
"""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import nn
from ms_core.experimental import optim

STEPS = 50
TOL = dict(rtol=1e-5, atol=1e-6)  # float32 updates, 50 steps


def _problem(seed=0, dtype=np.float32):
    """A small nonlinear least-squares problem: a 2-layer MLP's weights, data and a loss."""
    rng = np.random.default_rng(seed)
    shapes = [(4, 3), (4,), (2, 4), (2,)]
    init = [(rng.standard_normal(s) * 0.5).astype(dtype) for s in shapes]
    x = torch.tensor(rng.standard_normal((8, 3)).astype(dtype))
    y = torch.tensor(rng.standard_normal((8, 2)).astype(dtype))

    def loss_fn(w1, b1, w2, b2):
        h = torch.tanh(x @ w1.T + b1)
        return ((h @ w2.T + b2 - y) ** 2).mean()

    return init, loss_fn


def _run(ms_factory, torch_factory, steps=STEPS, groups=None, seed=0, none_grad_every=0,
         dtype=np.float32, tol=TOL):
    """Run both optimizers side by side; returns the per-step parameter arrays of each."""
    init, loss_fn = _problem(seed, dtype)
    tparams = [torch.tensor(a, requires_grad=True) for a in init]
    mparams = [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(init)]
    if groups is None:
        topt, mopt = torch_factory(tparams), ms_factory(mparams)
    else:  # groups: list of (indices, options)
        topt = torch_factory([dict(params=[tparams[i] for i in idx], **o) for idx, o in groups])
        mopt = ms_factory([dict(params=[mparams[i] for i in idx], **o) for idx, o in groups])
    order = [id(p) for p in mopt.parameters]
    for step in range(steps):
        topt.zero_grad(set_to_none=True)
        loss_fn(*tparams).backward()
        if none_grad_every and step % none_grad_every == 1:
            tparams[1].grad = None  # a parameter without a gradient is skipped on both sides
        by_id = {id(m): (None if t.grad is None else ms.Tensor(t.grad.numpy().copy()))
                 for m, t in zip(mparams, tparams)}
        grads = tuple(by_id[i] for i in order)
        topt.step()
        mopt(grads)
        for m, t in zip(mparams, tparams):
            assert m.asnumpy().dtype == dtype
            np.testing.assert_allclose(m.asnumpy(), t.detach().numpy(), **tol,
                                       err_msg=f"step {step}")
    return mparams, tparams


CASES = [
    ("sgd", lambda p: optim.SGD(p, lr=0.1), lambda p: torch.optim.SGD(p, lr=0.1)),
    ("sgd_momentum", lambda p: optim.SGD(p, lr=0.05, momentum=0.9),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
    ("sgd_dampening_wd", lambda p: optim.SGD(p, 0.05, momentum=0.8, dampening=0.3, weight_decay=0.01),
     lambda p: torch.optim.SGD(p, 0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)),
    ("sgd_nesterov", lambda p: optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("sgd_maximize", lambda p: optim.SGD(p, lr=0.01, momentum=0.5, maximize=True),
     lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.5, maximize=True)),
    ("adam", lambda p: optim.Adam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01)),
    ("adam_wd_betas", lambda p: optim.Adam(p, lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
     lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("adam_amsgrad", lambda p: optim.Adam(p, lr=0.01, amsgrad=True),
     lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=True)),
    ("adam_maximize", lambda p: optim.Adam(p, lr=0.01, maximize=True),
     lambda p: torch.optim.Adam(p, lr=0.01, maximize=True)),
    ("adamw", lambda p: optim.AdamW(p, lr=0.01), lambda p: torch.optim.AdamW(p, lr=0.01)),
    ("adamw_wd_amsgrad", lambda p: optim.AdamW(p, lr=0.01, weight_decay=0.3, amsgrad=True),
     lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.3, amsgrad=True)),
    ("rmsprop", lambda p: optim.RMSprop(p, lr=0.01), lambda p: torch.optim.RMSprop(p, lr=0.01)),
    ("rmsprop_centered_momentum",
     lambda p: optim.RMSprop(p, lr=0.005, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01),
     lambda p: torch.optim.RMSprop(p, lr=0.005, alpha=0.9, momentum=0.5, centered=True,
                                   weight_decay=0.01)),
    ("rmsprop_maximize", lambda p: optim.RMSprop(p, lr=0.001, maximize=True),
     lambda p: torch.optim.RMSprop(p, lr=0.001, maximize=True)),
    ("adagrad", lambda p: optim.Adagrad(p, lr=0.1), lambda p: torch.optim.Adagrad(p, lr=0.1)),
    ("adagrad_decay", lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.05, weight_decay=0.01,
                                              initial_accumulator_value=0.1, eps=1e-8),
     lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.05, weight_decay=0.01,
                                   initial_accumulator_value=0.1, eps=1e-8)),
    ("adadelta", lambda p: optim.Adadelta(p), lambda p: torch.optim.Adadelta(p)),
    ("adadelta_wd", lambda p: optim.Adadelta(p, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1),
     lambda p: torch.optim.Adadelta(p, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("adamax", lambda p: optim.Adamax(p, lr=0.01), lambda p: torch.optim.Adamax(p, lr=0.01)),
    ("adamax_wd", lambda p: optim.Adamax(p, betas=(0.8, 0.9), weight_decay=0.1, maximize=True),
     lambda p: torch.optim.Adamax(p, betas=(0.8, 0.9), weight_decay=0.1, maximize=True)),
    ("nadam", lambda p: optim.NAdam(p, lr=0.01), lambda p: torch.optim.NAdam(p, lr=0.01)),
    ("nadam_wd", lambda p: optim.NAdam(p, lr=0.01, weight_decay=0.1, momentum_decay=0.01),
     lambda p: torch.optim.NAdam(p, lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("nadam_decoupled", lambda p: optim.NAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
     lambda p: torch.optim.NAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("radam", lambda p: optim.RAdam(p, lr=0.01), lambda p: torch.optim.RAdam(p, lr=0.01)),
    ("radam_wd", lambda p: optim.RAdam(p, lr=0.01, betas=(0.9, 0.9), weight_decay=0.1),
     lambda p: torch.optim.RAdam(p, lr=0.01, betas=(0.9, 0.9), weight_decay=0.1)),
    ("radam_decoupled", lambda p: optim.RAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
     lambda p: torch.optim.RAdam(p, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("asgd", lambda p: optim.ASGD(p, lr=0.05), lambda p: torch.optim.ASGD(p, lr=0.05)),
    ("asgd_averaging", lambda p: optim.ASGD(p, lr=0.05, lambd=0.01, t0=10.0, weight_decay=0.01),
     lambda p: torch.optim.ASGD(p, lr=0.05, lambd=0.01, t0=10.0, weight_decay=0.01)),
    ("rprop", lambda p: optim.Rprop(p, lr=0.01), lambda p: torch.optim.Rprop(p, lr=0.01)),
    ("rprop_bounds", lambda p: optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1)),
     lambda p: torch.optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1))),
]


@pytest.mark.parametrize("name,ms_factory,torch_factory", CASES, ids=[c[0] for c in CASES])
def test_trajectory_matches_torch(name, ms_factory, torch_factory):
    _run(ms_factory, torch_factory)


@pytest.mark.parametrize("name,ms_factory,torch_factory", CASES, ids=[c[0] for c in CASES])
def test_float64_trajectory_matches_torch_to_double_precision(name, ms_factory, torch_factory):
    """float64 parameters stay float64, and the lr is used at full precision (not the float32 the
    lr Parameter stores), so trajectories agree with torch's doubles."""
    _run(ms_factory, torch_factory, dtype=np.float64, steps=20, tol=dict(rtol=1e-10, atol=1e-12))


@pytest.mark.parametrize("name,ms_factory,torch_factory", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_none_gradients_are_skipped(name, ms_factory, torch_factory):
    _run(ms_factory, torch_factory, steps=20, none_grad_every=3)


GROUPS = [([0, 1], dict(lr=0.05)), ([2, 3], dict(lr=0.2, weight_decay=0.01))]


@pytest.mark.parametrize("ms_cls,torch_cls,kwargs", [
    (optim.SGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.01)),
    (optim.AdamW, torch.optim.AdamW, dict()),
    (optim.RMSprop, torch.optim.RMSprop, dict()),
    (optim.Adagrad, torch.optim.Adagrad, dict()),
    (optim.Adadelta, torch.optim.Adadelta, dict()),
    (optim.Adamax, torch.optim.Adamax, dict()),
    (optim.NAdam, torch.optim.NAdam, dict()),
    (optim.RAdam, torch.optim.RAdam, dict()),
    (optim.ASGD, torch.optim.ASGD, dict()),
    (optim.Rprop, torch.optim.Rprop, dict()),
], ids=["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
        "Rprop"])
def test_param_groups_with_different_lrs(ms_cls, torch_cls, kwargs):
    _run(lambda g: ms_cls(g, **kwargs), lambda g: torch_cls(g, **kwargs), groups=GROUPS)


def test_param_groups_reorder_parameters():
    """optimizer.parameters is the groups' parameters in group order, grads align with it."""
    groups = [([2, 3], dict(lr=0.01)), ([0, 1], dict(lr=0.1, momentum=0.5))]
    mparams, _ = _run(lambda g: optim.SGD(g, lr=0.0), lambda g: torch.optim.SGD(g, lr=0.0),
                      groups=groups, steps=10)


def test_group_lr_is_a_parameter_and_editable_like_torch():
    """Editing group['lr'] (a float32 Parameter, or replaced by a float) changes the next step."""
    p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    opt = optim.SGD([p], lr=0.1)
    assert isinstance(opt.param_groups[0]["lr"], ms.Parameter)
    assert opt.param_groups[0]["lr"].name == "learning_rate_group_0"
    assert opt.param_groups[0]["lr"].dtype == ms.float32
    opt((ms.Tensor(np.ones(3, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), 0.9, rtol=1e-6)
    opt.param_groups[0]["lr"] = 0.5  # the torch idiom: assign a float
    opt((ms.Tensor(np.ones(3, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), 0.4, rtol=1e-6)
    opt.param_groups[0]["momentum"] = 0.9  # options are read at every step, as in torch
    opt((ms.Tensor(np.ones(3, np.float32)),))
    assert "momentum_buffer" in opt.state[p]


def test_params_from_generator_and_net_trainable_params():
    net = nn.Dense(3, 2)
    opt = optim.Adam(p for p in net.trainable_params())
    assert [p.name for p in opt.parameters] == ["weight", "bias"]
    assert isinstance(opt.parameters, ms.ParameterTuple)
    assert isinstance(opt, nn.Cell)
    # the optimizer does not rename the network's parameters, even held by another Cell
    holder = nn.Cell()
    holder.opt = opt
    assert [p.name for p in net.trainable_params()] == ["weight", "bias"]


def test_add_param_group_torch_and_mindspore_signatures():
    a = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="a")
    b = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="b")
    c = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="c")
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.01})
    opt.add_param_group(2, {"params": [c]})
    assert [p.name for p in opt.parameters] == ["a", "b", "c"]
    assert opt.param_groups[1]["momentum"] == 0.9
    assert opt.param_groups[2]["lr"].name == "learning_rate_group_2"
    g = ms.Tensor(np.ones(2, np.float32))
    opt((g, g, g))
    np.testing.assert_allclose([a.asnumpy()[0], b.asnumpy()[0], c.asnumpy()[0]], [0.9, 0.99, 0.9],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_end_to_end_with_value_and_grad_matches_torch():
    """The MindSpore idiom: value_and_grad over optimizer.parameters, then optimizer(grads)."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    y = rng.standard_normal((6, 2)).astype(np.float32)
    net = nn.Dense(3, 2)
    net.weight.set_data(ms.Tensor(w))
    net.bias.set_data(ms.Tensor(b))
    tnet = torch.nn.Linear(3, 2)
    with torch.no_grad():
        tnet.weight.copy_(torch.tensor(w))
        tnet.bias.copy_(torch.tensor(b))
    opt = optim.AdamW(net.trainable_params(), lr=0.05, weight_decay=0.1)
    topt = torch.optim.AdamW(tnet.parameters(), lr=0.05, weight_decay=0.1)
    sched = optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=5, gamma=0.5)

    def forward_fn(xb, yb):
        return ((net(xb) - yb) ** 2).mean()

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
    for _ in range(20):
        loss, grads = grad_fn(ms.Tensor(x), ms.Tensor(y))
        opt(grads)
        sched.step()
        topt.zero_grad()
        tloss = ((tnet(torch.tensor(x)) - torch.tensor(y)) ** 2).mean()
        tloss.backward()
        topt.step()
        tsched.step()
        np.testing.assert_allclose(loss.asnumpy(), tloss.item(), rtol=1e-5)
    np.testing.assert_allclose(net.weight.asnumpy(), tnet.weight.detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_state_dict_round_trip_continues_identically():
    init, loss_fn = _problem()
    tparams = [torch.tensor(a, requires_grad=True) for a in init]
    grads_seq = []
    for _ in range(10):
        for t in tparams:
            t.grad = None
        loss_fn(*tparams).backward()
        grads_seq.append(tuple(ms.Tensor(t.grad.numpy().copy()) for t in tparams))
    p1 = [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(init)]
    p2 = [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(init)]
    o1 = optim.Adam(p1, lr=0.01, amsgrad=True)
    for g in grads_seq[:5]:
        o1(g)
    o2 = optim.Adam(p2, lr=0.5)
    for a, b in zip(p2, p1):
        a.set_data(b)
    o2.load_state_dict(o1.state_dict())
    assert float(o2.param_groups[0]["lr"]) == pytest.approx(0.01)
    assert o2.param_groups[0]["amsgrad"] is True
    for g in grads_seq[5:]:
        o1(g)
        o2(g)
    for a, b in zip(p1, p2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("build,exc,match", [
    (lambda p: optim.SGD(p, lr=-0.1), ValueError, "'lr' must be a non-negative"),
    (lambda p: optim.SGD(p), ValueError, "required optimization parameter 'lr'"),
    (lambda p: optim.SGD(p, lr=0.1, nesterov=True), ValueError, "Nesterov momentum requires"),
    (lambda p: optim.SGD(p, lr=0.1, momentum=-1), ValueError, "'momentum' must be a non-negative"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.9)), ValueError, r"'betas\[0\]' must be in \[0.0, 1.0\)"),
    (lambda p: optim.Adam(p, betas=0.9), TypeError, "'betas' must be a tuple"),
    (lambda p: optim.AdamW(p, weight_decay=-1), ValueError, "'weight_decay' must be a non-negative"),
    (lambda p: optim.Adadelta(p, rho=1.5), ValueError, r"'rho' must be in \[0.0, 1.0\]"),
    (lambda p: optim.Adam(p[0]), TypeError, "Wrap it in a list"),
    (lambda p: optim.Adam([]), ValueError, "must not be empty"),
    (lambda p: optim.Adam(None), ValueError, "can not be None"),
    (lambda p: optim.Adam(3), TypeError, "must be iterable"),
    (lambda p: optim.Adam([np.ones(3)]), TypeError, "must be a Parameter"),
    (lambda p: optim.Adam(set(p)), TypeError, "not a set"),
    (lambda p: optim.Adam([{"lr": 0.1}]), ValueError, "must have the key 'params'"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_arguments(build, exc, match):
    params = [ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")]
    with pytest.raises(exc, match=match):
        build(params)


def test_bad_gradients():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    q = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="v")
    opt = optim.SGD([p, q], lr=0.1)
    with pytest.raises(ValueError, match="number of gradients must equal the number of parameters 2"):
        opt((ms.Tensor(np.ones(2, np.float32)),))
    with pytest.raises(ValueError, match=r"gradient 1 must have the shape of parameter 'v' \[3\]"):
        opt((ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32))))
    with pytest.raises(TypeError, match="tuple of Tensors"):
        opt(3)


def test_float32_kept_with_float64_gradients():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    opt = optim.Adam([p], lr=0.1)
    opt((np.ones(2, np.float64),))
    assert p.dtype == ms.float32
    assert opt.state[p]["exp_avg"].dtype == np.float32


def test_repr_lists_groups():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    text = repr(optim.SGD([p], lr=0.1, momentum=0.9))
    assert "Parameter Group 0" in text and "lr: 0.1\n" in text and "momentum: 0.9" in text


def test_asgd_running_average_matches_torch():
    init, loss_fn = _problem()
    tparams = [torch.tensor(a, requires_grad=True) for a in init]
    mparams = [ms.Parameter(ms.Tensor(a.copy()), name=f"p{i}") for i, a in enumerate(init)]
    topt = torch.optim.ASGD(tparams, lr=0.05, t0=5)
    mopt = optim.ASGD(mparams, lr=0.05, t0=5.0)
    for _ in range(30):
        topt.zero_grad()
        loss_fn(*tparams).backward()
        mopt(tuple(ms.Tensor(t.grad.numpy().copy()) for t in tparams))
        topt.step()
    for m, t in zip(mparams, tparams):
        np.testing.assert_allclose(mopt.state[m]["ax"], topt.state[t]["ax"].numpy(), **TOL)
        assert mopt.state[m]["eta"] == pytest.approx(topt.state[t]["eta"].item(), rel=1e-7)


def test_train_one_step_cell_accepts_experimental_optimizer():
    """nn.TrainOneStepCell drives an experimental optimizer like torch's loss.backward(); step()."""
    rng = np.random.default_rng(2)
    w = rng.standard_normal((1, 3)).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)
    net = nn.Dense(3, 1)
    net.weight.set_data(ms.Tensor(w))
    net.bias.set_data(ms.Tensor(np.zeros(1, np.float32)))
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                optim.SGD(net.trainable_params(), lr=0.1, momentum=0.9))
    tnet = torch.nn.Linear(3, 1)
    with torch.no_grad():
        tnet.weight.copy_(torch.tensor(w))
        tnet.bias.zero_()
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1, momentum=0.9)
    for _ in range(10):
        loss = train(ms.Tensor(x), ms.Tensor(y))
        topt.zero_grad()
        tloss = torch.nn.functional.mse_loss(tnet(torch.tensor(x)), torch.tensor(y))
        tloss.backward()
        topt.step()
        np.testing.assert_allclose(float(loss), tloss.item(), rtol=1e-5)


def test_training_loop_with_dataset_optimizer_and_scheduler_matches_torch():
    """The converted-script shape: GeneratorDataset(...).batch, value_and_grad over
    optimizer.parameters, optimizer(grads), scheduler.step() per epoch; per-step losses match a
    torch DataLoader + torch.optim loop (same initial weights, unshuffled data)."""
    import ms_core.dataset as ds
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((40, 5)).astype(np.float32)
    ys = rng.integers(0, 3, 40)
    w1 = (rng.standard_normal((8, 5)) * 0.4).astype(np.float32)
    w2 = (rng.standard_normal((3, 8)) * 0.4).astype(np.float32)

    class Source:
        def __getitem__(self, i):
            return xs[i], ys[i]

        def __len__(self):
            return len(ys)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 8)
            self.fc2 = nn.Dense(8, 3)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    net = Net()
    for p, a in zip(net.trainable_params(), [w1, np.zeros(8, np.float32), w2,
                                             np.zeros(3, np.float32)]):
        p.set_data(ms.Tensor(a))
    tnet = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        for p, a in zip(tnet.parameters(), [w1, np.zeros(8, np.float32), w2,
                                            np.zeros(3, np.float32)]):
            p.copy_(torch.tensor(a))
    loader = ds.GeneratorDataset(Source(), column_names=["data", "label"], shuffle=False).batch(8)
    tloader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.tensor(xs), torch.tensor(ys)), batch_size=8, shuffle=False)
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.SGD(net.trainable_params(), lr=0.2, momentum=0.9, weight_decay=1e-3)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    topt = torch.optim.SGD(tnet.parameters(), lr=0.2, momentum=0.9, weight_decay=1e-3)
    tsched = torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=4)

    def forward_fn(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters, has_aux=True)
    losses, tlosses = [], []
    for _ in range(4):
        net.set_train(True)
        for x, y in loader:
            (loss, _), grads = grad_fn(x, y)
            opt(grads)
            losses.append(float(loss))
        sched.step()
        for x, y in tloader:
            topt.zero_grad()
            tloss = torch.nn.functional.cross_entropy(tnet(x), y)
            tloss.backward()
            topt.step()
            tlosses.append(tloss.item())
        tsched.step()
    assert len(losses) == 20
    np.testing.assert_allclose(losses, tlosses, rtol=1e-4)


@pytest.mark.parametrize("ms_cls,torch_cls,kwargs", [
    (optim.Adam, torch.optim.Adam, dict(lr=0.01, amsgrad=True)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9)),
    (optim.RMSprop, torch.optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5)),
    (optim.NAdam, torch.optim.NAdam, dict(lr=0.01)),
    (optim.ASGD, torch.optim.ASGD, dict(lr=0.05, t0=2.0)),
    (optim.Rprop, torch.optim.Rprop, dict(lr=0.01)),
], ids=["Adam", "SGD", "RMSprop", "NAdam", "ASGD", "Rprop"])
def test_load_torch_state_dict_and_continue(ms_cls, torch_cls, kwargs):
    """A torch.optim state_dict (tensors, float steps) loads into the ms_core optimizer; both then
    continue identically."""
    init, loss_fn = _problem()
    tparams = [torch.tensor(a, requires_grad=True) for a in init]
    topt = torch_cls(tparams, **kwargs)

    def torch_grads():
        topt.zero_grad()
        loss_fn(*tparams).backward()
        return tuple(ms.Tensor(t.grad.numpy().copy()) for t in tparams)

    for _ in range(5):
        torch_grads()
        topt.step()
    mparams = [ms.Parameter(ms.Tensor(t.detach().numpy().copy()), name=f"p{i}")
               for i, t in enumerate(tparams)]
    mopt = ms_cls(mparams, lr=123.0)
    mopt.load_state_dict(topt.state_dict())
    assert float(mopt.param_groups[0]["lr"]) == pytest.approx(kwargs["lr"])
    for _ in range(10):
        grads = torch_grads()
        topt.step()
        mopt(grads)
        for m, t in zip(mparams, tparams):
            np.testing.assert_allclose(m.asnumpy(), t.detach().numpy(), **TOL)


ALL_OPTIMIZERS = [
    (optim.SGD, dict(lr=0.05, momentum=0.9)), (optim.Adam, dict(lr=0.01, amsgrad=True)),
    (optim.AdamW, dict(lr=0.01)), (optim.RMSprop, dict(momentum=0.5, centered=True)),
    (optim.Adagrad, dict(initial_accumulator_value=0.1)), (optim.Adadelta, dict()),
    (optim.Adamax, dict()), (optim.NAdam, dict()), (optim.RAdam, dict()),
    (optim.ASGD, dict(t0=2.0)), (optim.Rprop, dict()),
]


@pytest.mark.parametrize("cls,kwargs", ALL_OPTIMIZERS, ids=[c[0].__name__ for c in ALL_OPTIMIZERS])
def test_checkpoint_round_trip_into_a_fresh_optimizer(cls, kwargs, tmp_path):
    """save_checkpoint(optimizer) holds the lr and the state as Parameters; loading it into a new
    optimizer with load_param_into_net continues exactly like the original."""
    init, loss_fn = _problem()
    tparams = [torch.tensor(a, requires_grad=True) for a in init]
    grads_seq = []
    for _ in range(8):
        for t in tparams:
            t.grad = None
        loss_fn(*tparams).backward()
        grads_seq.append(tuple(ms.Tensor(t.grad.numpy().copy()) for t in tparams))
        with torch.no_grad():
            for t in tparams:
                t -= 0.01 * t.grad
    p1 = [ms.Parameter(ms.Tensor(a.copy()), name=f"w{i}") for i, a in enumerate(init)]
    o1 = cls(p1, **kwargs)
    for g in grads_seq[:4]:
        o1(g)
    path = str(tmp_path / "opt.ckpt")
    ms.save_checkpoint(o1, path)
    names = [p.name for p in o1.get_parameters()]
    assert "learning_rate_group_0" in names and "step.w0" in names
    p2 = [ms.Parameter(ms.Tensor(p.asnumpy().copy()), name=p.name) for p in p1]
    o2 = cls(p2, **kwargs)
    not_loaded, unused = ms.load_param_into_net(o2, ms.load_checkpoint(path))
    assert not_loaded == [] and unused == []
    for g in grads_seq[4:]:
        o1(g)
        o2(g)
    for a, b in zip(p1, p2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_checkpoint_before_any_step_loads_as_fresh(tmp_path):
    """A checkpoint taken before the first step (zero placeholders, step 0) leaves a fresh state:
    SGD's momentum buffer still starts at the first gradient, as in torch."""
    p1 = [ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")]
    o1 = optim.SGD(p1, lr=0.1, momentum=0.9)
    path = str(tmp_path / "o.ckpt")
    ms.save_checkpoint(o1, path)
    p2 = [ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")]
    o2 = optim.SGD(p2, lr=0.1, momentum=0.9)
    ms.load_param_into_net(o2, ms.load_checkpoint(path))
    g = (ms.Tensor(np.ones(2, np.float32)),)
    o1(g)
    o2(g)
    np.testing.assert_array_equal(p1[0].asnumpy(), p2[0].asnumpy())
    np.testing.assert_allclose(o2.state[p2[0]]["momentum_buffer"], 1.0)


def test_optimizer_parameters_are_its_own_not_the_networks():
    net = nn.Dense(3, 2)
    opt = optim.Adam(net.trainable_params(), lr=0.01)
    own = [p.name for p in opt.get_parameters()]
    assert "weight" not in own and "bias" not in own
    assert own[0] == "learning_rate_group_0" and "exp_avg.weight" in own
    assert opt.trainable_params() == []  # lr and state never receive gradients


def test_reachable_as_ms_experimental_optim():
    import ms_core.experimental.optim.lr_scheduler as lr_scheduler
    assert ms.experimental.optim is optim and optim.lr_scheduler is lr_scheduler
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        ms.experimental.nothing  # noqa: B018


def test_frozen_parameters_are_left_alone_like_torch():
    """requires_grad=False: torch gives no gradient, so no update (not even weight decay)."""
    net = nn.Dense(3, 2)
    net.bias.requires_grad = False
    before = net.bias.asnumpy().copy()
    opt = optim.SGD(list(net.get_parameters()), lr=0.1, momentum=0.9, weight_decay=0.1)
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)
    for _ in range(3):
        _, grads = grad_fn(ms.Tensor(np.ones((1, 3), np.float32)))
        opt(grads)
    np.testing.assert_array_equal(net.bias.asnumpy(), before)
    assert net.bias not in opt.state or not opt.state[net.bias]


def test_train_step_cell_checkpoint_includes_optimizer_state(tmp_path):
    net = nn.Dense(3, 1)
    opt = optim.Adam(net.trainable_params(), lr=0.01)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32))
    train(x, y)
    path = str(tmp_path / "train.ckpt")
    ms.save_checkpoint(train, path)
    names = set(ms.load_checkpoint(path))
    assert {"weight", "bias", "learning_rate_group_0", "exp_avg.weight", "exp_avg_sq.bias",
            "step.weight"} <= names
    assert [p.name for p in net.trainable_params()] == ["weight", "bias"]


def test_unnamed_parameters_get_distinct_state_names(tmp_path):
    ps = [ms.Parameter(ms.Tensor(np.ones(2, np.float32))) for _ in range(3)]
    opt = optim.Adam(ps)
    names = [p.name for p in opt.get_parameters()]
    assert len(names) == len(set(names)) == 1 + 3 * 3  # lr + (step, exp_avg, exp_avg_sq) each
    opt(tuple(ms.Tensor(np.ones(2, np.float32)) for _ in ps))
    ms.save_checkpoint(opt, str(tmp_path / "o.ckpt"))
    assert len(ms.load_checkpoint(str(tmp_path / "o.ckpt"))) == 10


@pytest.mark.parametrize("kwargs", [dict(t0=5), dict(lambd=0)])
def test_asgd_refuses_int_lambd_and_t0_as_mindspore_does(kwargs):
    """MindSpore 2.10's ASGD checks isinstance(float) (the converter writes t0=5.0)."""
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    with pytest.raises(TypeError, match="For 'ASGD', the type of (t0|lambd) must be float"):
        optim.ASGD([p], **kwargs)
