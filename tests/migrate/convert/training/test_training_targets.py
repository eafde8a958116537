"""Before/after pairs for what a backward() feeds besides one optimizer step (issue 10 classes 8
and 10, the training-step patterns of real scripts): hand-written updates (MS217), gradient
computations without an optimizer (MS218), several backward() calls per step (MS219), and
networks set to training mode (MS229)."""
import textwrap

from migrate import convert_source
from tests.migrate.convert.helpers import body, check


def rules_of(res, prefix=("MS020", "MS2", "MS95")):  # the training table, its rules, markers
    return [c.rule for c in res.changes if c.rule.startswith(prefix)]


# ---- MS217: hand-written updates ---------------------------------------------------------------
def test_hand_written_sgd_with_clipping():
    res = check("""\
        def train(model, lr, batches):
            for data, targets in batches:
                model.zero_grad()
                output = model(data)
                loss = F.nll_loss(output, targets)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
        """, """\
        def train(model, lr, batches):

            def forward_fn(data, targets):
                output = model(data)
                loss = ops.nll_loss(output, targets)
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, model.trainable_params())

            for data, targets in batches:
                loss, grads = grad_fn(data, targets)
                grads = ops.clip_by_global_norm(grads, 0.25)
                for p, p_grad in zip(model.trainable_params(), grads):
                    p.set_data(p + (-lr) * p_grad)
        """)
    assert "MS217" in rules_of(res) and res.unsupported == 0


def test_hand_written_updates_under_no_grad_with_gradient_clearing():
    check("""\
        net = nn.Linear(3, 1)
        for x, y in batches:
            loss = F.mse_loss(net(x), y)
            loss.backward()
            with torch.no_grad():  # plain SGD
                for w in net.parameters():
                    w -= 0.1 * w.grad
                    w.grad = None
        """, """\
        net = nn.Dense(3, 1, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(3)))
        net.set_train(True)

        def forward_fn(x, y):
            loss = ops.mse_loss(net(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params())

        for x, y in batches:
            loss, grads = grad_fn(x, y)
            # plain SGD
            for w, w_grad in zip(net.trainable_params(), grads):
                w.set_data(w - (0.1 * w_grad))
        """)  # noqa: E501


def test_update_loops_over_two_networks_are_marked():
    got, res = body("""\
        for x in batches:
            loss = f(x)
            loss.backward()
            for p in a.parameters():
                p.data.sub_(p.grad)
            for p in b.parameters():
                p.data.sub_(p.grad)
        """)
    assert "# migrate: MS951 hand-written updates over the parameters of a, b" in got


# ---- MS218: gradient computations ------------------------------------------------------------
def test_gradient_smoke_test_in_a_main_block():
    res = check("""\
        class Net(nn.Module):
            def forward(self, x):
                return x
        if __name__ == "__main__":
            net = Net()
            x = torch.randn(2, 3)
            x.requires_grad_(True)
            y = net(x)
            y.sum().backward()  # smoke test
            print(x.grad.shape)
        """, """\
        class Net(nn.Cell):
            def construct(self, x):
                return x
        if __name__ == "__main__":
            net = Net()
            net.set_train(True)
            x = ops.randn(2, 3)

            def forward_fn(x):
                y = net(x)
                return ops.sum(y)

            grad_fn = ms.value_and_grad(forward_fn, 0, net.trainable_params())
            loss, (x_grad, grads) = grad_fn(x)  # smoke test
            print(x_grad.shape)
        """)
    assert rules_of(res) == ["MS229", "MS218", "MS201", "MS218"]


def test_smoke_test_over_model_factories_builds_grad_fn_per_model():
    """pytorchcv's model files end in a _test() that builds each model of a list in a loop and
    runs y.sum().backward() on it: the network is made in the loop, so grad_fn is built after it,
    inside the loop, and its construction stays out of forward_fn (it was hoisted before the loop,
    reading a `net` not yet bound)."""
    check("""\
        def _test():
            for model in [resnet10, resnet12]:
                net = model(pretrained=False)
                net.eval()
                x = torch.randn(1, 3, 8, 8)
                y = net(x)
                y.sum().backward()
                assert tuple(y.size()) == (1, 10)
        """, """\
        def _test():
            for model in [resnet10, resnet12]:
                net = model(pretrained=False)
                net.set_train(False)
                x = ops.randn(1, 3, 8, 8)

                def forward_fn():
                    y = net(x)
                    return ops.sum(y), y

                grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)
                (loss, y), grads = grad_fn()
                assert tuple(y.shape) == (1, 10)
        """)


def test_training_loop_over_models_builds_grad_fn_per_model():
    """A model (and its optimizer) per fold: grad_fn reads the fold's model's parameters."""
    check("""\
        for fold in range(3):
            model = Net()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for x, y in data:
                opt.zero_grad()
                loss = F.mse_loss(model(x), y)
                loss.backward()
                opt.step()
        """, """\
        for fold in range(3):
            model = Net()
            model.set_train(True)
            opt = ms.experimental.optim.SGD(model.trainable_params(), lr=0.1)

            def forward_fn(x, y):
                loss = ops.mse_loss(model(x), y)
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

            for x, y in data:
                loss, grads = grad_fn(x, y)
                opt(grads)
        """)


def test_gradient_of_a_function_of_an_input_only():
    check("""\
        x = torch.ones(3, requires_grad=True)
        y = f(x)
        y.backward()
        print(x.grad)
        """, """\
        x = ops.ones((3,))

        def forward_fn(x):
            y = f(x)
            return y

        grad_fn = ms.value_and_grad(forward_fn, 0)
        y, x_grad = grad_fn(x)
        print(x_grad)
        """)


def test_a_parameter_grad_read_after_a_gradient_computation_is_marked():
    got, _ = body("""\
        net = Net()
        y = net(torch.ones(2, 3))
        y.sum().backward()
        print(net.fc.weight.grad)
        """)
    assert "# migrate: MS951 net.fc.weight.grad is read after backward()" in got


def test_a_backward_without_step_in_a_file_with_an_optimizer_is_not_a_gradient_computation():
    got, res = body("""\
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        def backward_pass(loss):
            y = net(x)
            y.sum().backward()
        def step():
            opt.step()
        """)
    assert "MS218" not in rules_of(res) and "# migrate: MS953 no optimizer.step() follows" in got


# ---- MS219: several backward() calls per step ------------------------------------------------
def test_two_losses_before_one_step_are_summed():
    res = check("""\
        for real, z in loader:
            netD.zero_grad()
            err_real = criterion(netD(real), ones)
            err_real.backward()
            fake = netG(z)
            err_fake = criterion(netD(fake.detach()), zeros)
            err_fake.backward()
            optimizerD.step()
        """, """\
        def forward_fn(real):
            err_real = criterion(netD(real), ones)
            return err_real

        grad_fn = ms.value_and_grad(forward_fn, None, optimizerD.parameters)

        def forward_fn_1(fake):
            err_fake = criterion(netD(ops.stop_gradient(fake)), zeros)
            return err_fake

        grad_fn_1 = ms.value_and_grad(forward_fn_1, None, optimizerD.parameters)

        for real, z in loader:
            err_real, grads = grad_fn(real)
            accum_grads = grads
            fake = netG(z)
            err_fake, grads_1 = grad_fn_1(fake)
            accum_grads = tuple(a + g for a, g in zip(accum_grads, grads_1))
            optimizerD(accum_grads)
        """)
    assert rules_of(res).count("MS219") == 2 and res.unsupported == 0


def test_a_refused_second_loss_leaves_the_first_unrewritten_too():
    got, res = body("""\
        for real, z in loader:
            netD.zero_grad()
            err_real = criterion(netD(real), ones)
            err_real.backward()
            err_fake = criterion(netD(netG(z).detach()), zeros)
            err_fake.backward(retain_graph=True)
            optimizerD.step()
        """)
    assert got.count("# migrate: MS952") == 2 and "its gradients are summed with those of a later" in got
    assert "grad_fn(" not in got and "optimizerD.step()" in got and "netD.zero_grad()" in got


# ---- MS232: a generator's loss through a discriminator updated in between -------------------
def test_generator_loss_pulls_back_through_vjp_of_the_fake_batch():
    res = check("""\
        for real, z in loader:
            fake = netG(z)
            optimizerD.zero_grad()
            errD = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
            errD.backward()
            optimizerD.step()
            optimizerG.zero_grad()
            errG = criterion(netD(fake), ones)
            errG.backward()
            optimizerG.step()
        """, """\
        def forward_fn(real, fake):
            errD = criterion(netD(real), ones) + criterion(netD(ops.stop_gradient(fake)), zeros)
            return errD

        grad_fn = ms.value_and_grad(forward_fn, None, optimizerD.parameters)

        def forward_fn_1(fake):
            errG = criterion(netD(fake), ones)
            return errG

        grad_fn_1 = ms.value_and_grad(forward_fn_1, 0, optimizerG.parameters)

        for real, z in loader:
            fake, fake_vjp = ms.vjp(lambda: netG(z), weights=optimizerG.parameters)
            errD, grads = grad_fn(real, fake)
            optimizerD(grads)
            errG, (fake_grad, grads_1) = grad_fn_1(fake)
            grads_1 = tuple(a + b for a, b in zip(grads_1, fake_vjp(fake_grad)[1]))
            optimizerG(grads_1)
        """)
    assert "MS232" in rules_of(res) and res.unsupported == 0


def test_accumulation_over_micro_batches():
    res = check("""\
        for it in range(10):
            optimizer.zero_grad()
            for micro in range(4):
                loss = model(next(batches)) / 4
                loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        """, """\
        def forward_fn():
            loss = model(next(batches)) / 4
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
        accum_grads = None

        for it in range(10):
            accum_grads = None
            for micro in range(4):
                loss, grads = grad_fn()
                accum_grads = grads if accum_grads is None else tuple(a + g for a, g in zip(accum_grads, grads))
            accum_grads = ops.clip_by_global_norm(accum_grads, 1.0)
            optimizer(accum_grads)
        """)
    assert "MS219" in rules_of(res) and res.unsupported == 0


def test_unscale_under_a_condition_is_tracked_at_run_time():
    got, res = body("""\
        scaler = torch.cuda.amp.GradScaler()
        for x, y in loader:
            loss = crit(model(x), y)
            scaler.scale(loss).backward()
            if clip:
                scaler.unscale_(optimizer)  # before clipping
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        """)
    assert textwrap.dedent("""\
            grads_unscaled = False
            if clip:
                grads = scaler.unscale(grads)  # before clipping
                grads_unscaled = True
                grads = ops.clip_by_global_norm(grads, 1.0)
            if not grads_unscaled:
                grads = scaler.unscale(grads)
            grads_finite = ms.amp.all_finite(grads)
        """) in textwrap.dedent(got.split("loss = scaler.unscale(loss)\n")[1])
    assert res.unsupported == 0


# ---- MS229: training mode ------------------------------------------------------------------------
def test_a_network_switched_by_the_file_is_not_set_to_training_mode():
    got, res = body("""\
        net = Net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        net.eval()
        for x in data:
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
        """)
    assert "set_train(True)" not in got and "MS229" not in rules_of(res)


def test_training_mode_is_set_once_and_converting_again_changes_nothing():
    src = textwrap.dedent("""\
        import torch
        net = Net().to("cpu")
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for x in data:
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
        """)
    res = convert_source(src)
    assert res.code.count("net.set_train(True)") == 1
    assert convert_source(res.code).code == res.code


SMOKE_OVER_FACTORIES = """\
import torch
from torch import nn


def linear_a():
    m = nn.Linear(3, 2)
    nn.init.constant_(m.weight, 0.5)
    nn.init.constant_(m.bias, -1.0)
    return m


def linear_b():
    m = nn.Linear(3, 2)
    nn.init.constant_(m.weight, -0.25)
    nn.init.constant_(m.bias, 2.0)
    return m


def smoke(x):
    outs = []
    for make in [linear_a, linear_b]:
        net = make()
        net.eval()
        y = net(x)
        y.sum().backward()
        outs.append(y)
    return outs
"""


def test_smoke_test_over_model_factories_runs_and_matches_torch(tmp_path):
    """The converted smoke test runs (grad_fn per model) and gives torch's outputs."""
    import numpy as np
    import pytest
    torch = pytest.importorskip("torch")
    ms = pytest.importorskip("ms_core")
    from tests.migrate.convert.test_zoo_idioms import _load
    res = convert_source(SMOKE_OVER_FACTORIES)
    assert res.error is None and not res.unsupported, res.code
    cmod = _load(tmp_path, "smoke_factories_ms", res.code)
    tmod = __import__("types").ModuleType("smoke_factories_torch")
    exec(SMOKE_OVER_FACTORIES, tmod.__dict__)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for got, want in zip(cmod.smoke(ms.Tensor(x)), tmod.smoke(torch.tensor(x))):
        np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)


# ---- MS229: networks the file switches to eval() only after training -----------------------
def test_a_network_put_in_eval_mode_only_after_training_trains_in_training_mode():
    got, res = body("""\
        model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x in batches:
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        """)
    lines = got.splitlines()
    assert lines[1] == "model.set_train(True)" and "model.set_train(False)" in lines, got
    assert "MS229" in rules_of(res)
    got, _ = body("""\
        model = nn.Linear(3, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model.train()
        for x in batches:
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        """)
    assert got.count("set_train(True)") == 1   # the file's own train() only
    got, _ = body("""\
        def evaluate(model):
            model.eval()
        model = nn.Linear(3, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x in batches:
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        evaluate(model)
        """)
    assert "model.set_train(True)" in got   # a function's eval() may run anywhere: not before the step
