"""Before/after pairs for the training rules (migrate/training.py, mappings/training.toml):
each rewrite with a no-op case, an aliased-import case and its marker cases."""
import textwrap

import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import body, check, without_guards


def rules_of(res, prefix=("MS020", "MS2", "MS95")):  # the training table, its rules, markers
    return [c.rule for c in res.changes if c.rule.startswith(prefix)]


# ---- MS201/MS202: the canonical step ---------------------------------------------------------
CANONICAL_OUT = """\
    opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)
    sched = ms.experimental.optim.lr_scheduler.StepLR(opt, 2)

    def forward_fn(x, y):
        loss = ops.cross_entropy(net(x), y)
        return loss

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

    for x, y in loader:
        loss, grads = grad_fn(x, y)
        opt(grads)
        sched.step()
"""


@pytest.mark.parametrize("imports,sgd,step_lr", [
    ("import torch.optim as optim", "optim.SGD", "optim.lr_scheduler.StepLR"),
    ("from torch import optim", "optim.SGD", "optim.lr_scheduler.StepLR"),
    ("from torch.optim import SGD\nfrom torch.optim.lr_scheduler import StepLR", "SGD", "StepLR"),
    ("from torch.optim import SGD, lr_scheduler as sch", "SGD", "sch.StepLR"),
    ("", "torch.optim.SGD", "torch.optim.lr_scheduler.StepLR"),
])
def test_canonical_step_with_any_import_spelling(imports, sgd, step_lr):
    src = (f"{imports}\n" if imports else "") + textwrap.dedent(f"""\
        opt = {sgd}(net.parameters(), lr=0.1)
        sched = {step_lr}(opt, 2)
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            sched.step()
        """)
    res = check(src, CANONICAL_OUT)
    assert rules_of(res) == ["MS020", "MS020", "MS202", "MS201", "MS201"]
    assert res.unsupported == 0


def test_no_torch_import_is_a_no_op():
    src = "for x, y in loader:\n    opt.zero_grad()\n    loss = f(x)\n    loss.backward()\n    opt.step()\n"
    res = convert_source(src)
    assert res.code == src and res.changes == []


def test_torch_file_without_training_code_is_untouched_by_the_pass():
    res = convert_source("import torch\n# call backward() and zero_grad() later\nx = torch.zeros(2)\n")
    assert rules_of(res) == []
    assert res.code == ("import ms_core as ms\nfrom ms_core import ops\n# call backward() and zero_grad() later\n"
                        "x = ops.zeros((2,))\n")


def test_a_non_optimizer_step_is_not_an_optimizer_step():
    res = convert_source(textwrap.dedent("""\
        import torch
        for x in data:
            loss = model(x)
            loss.backward()
            env.step()
    """))
    assert rules_of(res) == ["MS953"]
    assert res.code == textwrap.dedent("""\
        import ms_core as ms
        for x in data:
            loss = model(x)
            # migrate: MS953 no optimizer.step() follows backward() in the same block: compute grads with ms.value_and_grad and apply optimizer(grads)
            loss.backward()
            env.step()
    """)  # noqa: E501


# ---- aux outputs, several losses, .item(), train functions ---------------------------------
def test_train_function_returns_what_the_loop_reads():
    check("""\
        def train(model, loader, optimizer, criterion):
            model.train()
            running_loss = 0.0
            for inputs, labels in loader:
                optimizer.zero_grad()
                outputs = model(inputs)
                loss = criterion(outputs, labels) + 0.5 * criterion(outputs * 2, labels)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                running_loss += loss.item()
                acc = (outputs.argmax(1) == labels).float().mean()
            return running_loss / len(loader)
        """, """\
        def train(model, loader, optimizer, criterion):
            model.set_train(True)
            running_loss = 0.0

            def forward_fn(inputs, labels):
                outputs = model(inputs)
                loss = criterion(outputs, labels) + 0.5 * criterion(outputs * 2, labels)
                return loss, outputs

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

            for inputs, labels in loader:
                (loss, outputs), grads = grad_fn(inputs, labels)
                grads = ops.clip_by_global_norm(grads, 1.0)
                optimizer(grads)
                running_loss += loss.item()
                acc = (ops.argmax(outputs, 1) == labels).float().mean()
            return running_loss / loader.get_dataset_size()
        """)


def test_step_in_a_function_without_loop_closes_over_its_arguments():
    check("""\
        def train_step(model, x, y, optimizer):
            optimizer.zero_grad()
            logits, value = model(x)
            ce = F.cross_entropy(logits, y)
            loss = ce + F.mse_loss(value, y.float())
            loss.backward()
            optimizer.step()
            return loss.item(), ce.item()
        """, """\
        def train_step(model, x, y, optimizer):

            def forward_fn():
                logits, value = model(x)
                ce = ops.cross_entropy(logits, y)
                loss = ce + ops.mse_loss(value, y.float())
                return loss, ce

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
            (loss, ce), grads = grad_fn()
            optimizer(grads)
            return loss.item(), ce.item()
        """)


def test_counters_updated_in_the_forward_pass_are_passed_in_and_returned():
    check("""\
        for x, y in loader:
            optimizer.zero_grad()
            n_batches += 1
            out = model(x)
            seen += out.shape[0]
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
        print(seen, n_batches)
        """, """\
        def forward_fn(x, seen, y):
            out = model(x)
            seen += out.shape[0]
            loss = criterion(out, y)
            return loss, seen

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

        for x, y in loader:
            n_batches += 1
            (loss, seen), grads = grad_fn(x, seen, y)
            optimizer(grads)
        print(seen, n_batches)
        """)


# ---- MS205/MS207: accumulation and guarded steps -------------------------------------------
def test_gradient_accumulation():
    check("""\
        def train(model, loader, optimizer, criterion, k):
            for i, (x, y) in enumerate(loader):
                out = model(x)
                loss = criterion(out, y) / k
                loss.backward()
                if (i + 1) % k == 0:
                    nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
                    optimizer.step()
                    optimizer.zero_grad()
        """, """\
        def train(model, loader, optimizer, criterion, k):

            def forward_fn(x, y):
                out = model(x)
                loss = criterion(out, y) / k
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
            accum_grads = None

            for i, (x, y) in enumerate(loader):
                loss, grads = grad_fn(x, y)
                accum_grads = grads if accum_grads is None else tuple(a + g for a, g in zip(accum_grads, grads))
                if (i + 1) % k == 0:
                    accum_grads = ops.clip_by_global_norm(accum_grads, 2.0)
                    optimizer(accum_grads)
                    accum_grads = None
        """)


def test_guarded_step_without_accumulation_and_clip_value():
    res = check("""\
        for step, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)
            if step > 10:
                optimizer.step()
        """, """\
        def forward_fn(x, y):
            loss = criterion(model(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for step, (x, y) in enumerate(loader):
            loss, grads = grad_fn(x, y)
            grads = ops.clip_by_value(grads, -0.1, 0.1)
            if step > 10:
                optimizer(grads)
        """)
    assert rules_of(res) == ["MS202", "MS201", "MS204", "MS207", "MS201"]


# ---- MS206/MS208/MS222: GradScaler and autocast --------------------------------------------
_CUDA_SCALER = "torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=1024.0, scale_factor=2, scale_window=100))"
_CPU_SCALER = "ms.amp.DynamicLossScaler(scale_value=1024.0, scale_factor=2, scale_window=100)"


# torch disables a 'cuda' scaler without CUDA: the runtime decides by the backend; a 'cpu' one scales everywhere
@pytest.mark.parametrize("ctor, new", [("torch.cuda.amp.GradScaler(init_scale=1024.0, growth_interval=100)",
                                        _CUDA_SCALER),
                                       ("torch.amp.GradScaler('cuda', 1024.0, growth_interval=100)", _CUDA_SCALER),
                                       ("torch.amp.GradScaler('cpu', 1024.0, growth_interval=100)", _CPU_SCALER),
                                       ("torch.cpu.amp.GradScaler(init_scale=1024.0, growth_interval=100)",
                                        _CPU_SCALER)])
def test_grad_scaler_and_autocast(ctor, new):
    res = check(f"""\
        scaler = {ctor}
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        """, f"""\
        scaler = {new}

        def forward_fn(x, y):
            loss = criterion(model(x), y)
            return scaler.scale(loss)

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            loss = scaler.unscale(loss)
            grads = scaler.unscale(grads)
            grads_finite = ms.amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            scaler.adjust(grads_finite)
        """)
    labels = {c.rule: c.label for c in res.changes}
    assert labels["MS222"] == labels["MS208"] == labels["MS206"] == "approximate"


def test_autocast_outside_a_training_step_is_unwrapped():
    check("""\
        from torch.cuda.amp import autocast
        with autocast():
            # evaluation
            y = model(x)
        """, """\
        # evaluation
        y = model(x)
        """)


def test_grad_scaler_enabled_flag():
    check("""\
        s1 = torch.cuda.amp.GradScaler(enabled=args.amp)
        s2 = torch.cuda.amp.GradScaler(enabled=False)
        s3 = torch.amp.GradScaler("cuda", enabled=use_amp)
        s4 = torch.amp.GradScaler(device_type, enabled=True)
        s5 = torch.amp.GradScaler("cpu", enabled=use_amp)
        """, """\
        s1 = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000), enabled=args.amp)
        s2 = ms.amp.StaticLossScaler(1.0)
        s3 = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000), enabled=use_amp)
        s4 = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000), device=device_type)
        s5 = ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000) if use_amp else ms.amp.StaticLossScaler(1.0)
        """)  # noqa: E501


# ---- MS209: torch.autograd.grad ------------------------------------------------------------
def test_autograd_grad_becomes_ms_grad():
    res = check("""\
        x.requires_grad_(True)
        y = net(x)
        g = torch.autograd.grad(outputs=y.sum(), inputs=x, create_graph=True)[0]
        h = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
        """, """\
        y = net(x)
        g = ms.grad(lambda x: net(x).sum())(x)
        h = (ms.grad(lambda x: net(x).sum())(x),)
        """)
    assert [c.line for c in res.changes if c.rule == "MS209"] == [4, 6, 7]


def test_autograd_grad_inlines_only_what_depends_on_the_input():
    # the network is a constant of the lambda (inlining its construction would draw new weights);
    # h and y are recomputed from the lambda's x in order, a rebinding included
    check("""\
        net = nn.Linear(2, 2)
        c = net(torch.ones(2))
        h = x * 2
        h = h - 1
        y = net(h) * c
        g = torch.autograd.grad(y.sum(), x)[0]
        """, """\
        net = nn.Dense(2, 2, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(2)))
        c = net(ops.ones((2,)))
        h = x * 2
        h = h - 1
        y = net(h) * c
        g = ms.grad(lambda x: ops.sum((net(((x * 2) - 1)) * c)))(x)
        """)  # noqa: E501


def test_autograd_grad_through_a_loop_is_left_marked():
    res = check("""\
        h = x * 2
        for k in range(3):
            h = h * k
        g = torch.autograd.grad(h.sum(), x)[0]
        """, """\
        h = x * 2
        for k in range(3):
            h = h * k
        # migrate: MS901 torch.autograd.grad has no mapping
        g = torch.autograd.grad(h.sum(), x)[0]
        """)
    assert not [c for c in res.changes if c.rule == "MS209"]


def test_autograd_grad_with_unclear_inputs_is_left_marked():
    check("g = torch.autograd.grad(loss, model.parameters())\n",
          "# migrate: MS901 torch.autograd.grad has no mapping\ng = torch.autograd.grad(loss, model.parameters())\n")


def test_autograd_grad_in_a_forward_pass_is_refused_when_unclear():
    res = check("""\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            g = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
            loss = loss + sum((p ** 2).sum() for p in g)
            loss.backward()
            optimizer.step()
        """, """\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            # migrate: MS901 torch.autograd.grad has no mapping
            g = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
            loss = loss + sum((p ** 2).sum() for p in g)
            # migrate: MS954 torch.autograd.grad inside the forward pass: build it with nested ms.grad by hand
            loss.backward()
            optimizer.step()
        """)
    assert rules_of(res, ("MS95",)) == ["MS954"]


# ---- markers: steps the rules cannot prove safe --------------------------------------------
REFUSALS = {
    "retain_graph": ("""\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward(retain_graph=True)
            optimizer.step()
        """, "MS952", """\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            # migrate: MS952 loss.backward(retain_graph=True): keep the graph by calling grad_fn again or compute the gradients with ms.grad/ms.value_and_grad by hand
            loss.backward(retain_graph=True)
            optimizer.step()
        """),  # noqa: E501
    "grad_read": ("""\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            for p in model.parameters():
                p.grad.data.mul_(0.5)
            optimizer.step()
        """, "MS951", """\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            # migrate: MS951 parameter .grad is read or changed after backward(): use the grads tuple returned by grad_fn (aligned with optimizer.parameters) instead
            loss.backward()
            for p in torch_parameters(model):
                p.grad.data.mul_(0.5)
            optimizer.step()
        """),  # noqa: E501
    "no_step": ("""\
        loss = model(x).sum()
        loss.backward()
        """, "MS953", """\
        loss = model(x).sum()
        # migrate: MS953 no optimizer.step() follows backward() in the same block: compute grads with ms.value_and_grad and apply optimizer(grads)
        loss.backward()
        """),  # noqa: E501
    # (a used clip_grad_norm_ result, the total norm, is translated: test_recipe_sample3)
    "clip_result_used": ("""\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            out = nn.utils.clip_grad_value_(model.parameters(), 1.0)
            optimizer.step()
        """, "MS953", """\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            # migrate: MS953 nn.utils.clip_grad_value_(model.parameters(), 1.0): clipping result used; clip the grads tuple with ops.clip_by_value by hand
            loss.backward()
            # migrate: MS901 torch.nn.utils.clip_grad_value_ has no mapping
            out = nn.utils.clip_grad_value_(model.parameters(), 1.0)
            optimizer.step()
        """),  # noqa: E501
    "other_optimizer": ("""\
        for x, y in loader:
            opt_a.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt_b.step()
            opt_a.step()
        """, "MS953", """\
        for x, y in loader:
            opt_a.zero_grad()
            loss = criterion(model(x), y)
            # migrate: MS953 backward() is followed by the step of another optimizer (opt_a): write its value_and_grad by hand
            loss.backward()
            opt_b.step()
            opt_a.step()
        """),  # noqa: E501
    "loss_from_saved_tensors": ("""\
        def finish_episode(policy, optimizer, returns):
            losses = [-lp * r for lp, r in zip(policy.saved_log_probs, returns)]
            optimizer.zero_grad()
            loss = torch.cat(losses).sum()
            loss.backward()
            optimizer.step()
        """, "MS953", """\
        def finish_episode(policy, optimizer, returns):
            losses = [-lp * r for lp, r in zip(policy.saved_log_probs, returns)]
            optimizer.zero_grad()
            loss = ops.sum(ops.cat(losses))
            # migrate: MS953 the loss `loss` is built from tensors computed before this block (no network is called between zero_grad() and backward()): compute them inside the forward pass by hand
            loss.backward()
            optimizer.step()
        """),  # noqa: E501
    "optimizer_built_in_forward": ("""\
        for x, y in loader:
            out = net(x)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            loss = criterion(out, y)
            loss.backward()
            opt.step()
        """, "MS953", """\
        for x, y in loader:
            out = net(x)
            opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)
            loss = criterion(out, y)
            # migrate: MS953 opt is created inside the forward pass: create it before the training step
            loss.backward()
            opt.step()
        """),
    "break_in_forward": ("""\
        for x, y in loader:
            optimizer.zero_grad()
            out = model(x)
            if out.max() > 10:
                break
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
        """, "MS953", """\
        for x, y in loader:
            optimizer.zero_grad()
            out = model(x)
            if out.max() > 10:
                break
            loss = criterion(out, y)
            # migrate: MS953 return/break/continue/yield between the forward pass and backward(): restructure the step by hand
            loss.backward()
            optimizer.step()
        """),  # noqa: E501
}


def test_a_break_after_the_loss_runs_after_grad_fn():
    # what follows the loss's last statement runs after the gradient computation: the step is
    # still skipped when the loop breaks
    check("""\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            if loss > 10:
                break
            loss.backward()
            optimizer.step()
        """, """\
        def forward_fn(x, y):
            loss = criterion(model(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            if loss > 10:
                break
            optimizer(grads)
        """)


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refused_steps_stay_as_they_were_with_a_marker(name):
    src, rule_id, expected = REFUSALS[name]
    res = check(src, expected)  # zero_grad() and step() of a refused step stay too
    assert rules_of(res, ("MS95",)) == [rule_id]
    assert "MS202" not in rules_of(res)
    # converting the output again adds nothing (markers are not duplicated)
    again = convert_source(res.code)
    assert again.code == res.code


def test_gan_with_recomputed_fakes_becomes_two_value_and_grads():
    res = check("""\
        for x, z in loader:
            opt_d.zero_grad()
            d_loss = D(x).mean() - D(G(z).detach()).mean()
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(G(z)).mean()
            g_loss.backward()
            opt_g.step()
        """, """\
        def forward_fn(x, z):
            d_loss = ops.mean(D(x)) - ops.mean(D(ops.stop_gradient(G(z))))
            return d_loss

        grad_fn = ms.value_and_grad(forward_fn, None, opt_d.parameters)

        def forward_fn_1(z):
            g_loss = -ops.mean(D(G(z)))
            return g_loss

        grad_fn_1 = ms.value_and_grad(forward_fn_1, None, opt_g.parameters)

        for x, z in loader:
            d_loss, grads = grad_fn(x, z)
            opt_d(grads)
            g_loss, grads_1 = grad_fn_1(z)
            opt_g(grads_1)
        """)
    assert res.unsupported == 0


# ---- the training table (MS020) and its rules ------------------------------------------------
def test_optimizers_and_schedulers_keep_their_arguments():
    check("""\
        a = torch.optim.Adagrad(model.parameters(), lr=0.1)
        b = torch.optim.Adadelta(model.parameters())
        c = torch.optim.Adam([{"params": model.fc.parameters(), "lr": 0.1}], lr=0.01)
        d = torch.optim.RMSprop(model.parameters(), alpha=0.9)
        e = torch.optim.AdamW(model.parameters(), weight_decay=0.1)
        s1 = torch.optim.lr_scheduler.OneCycleLR(c, max_lr=0.1, total_steps=10)
        s2 = torch.optim.lr_scheduler.ReduceLROnPlateau(c, patience=2)
        s3 = torch.optim.lr_scheduler.LambdaLR(c, lambda e: 0.9 ** e)
        s4 = torch.optim.lr_scheduler.MultiStepLR(c, [2, 4])
        """, """\
        a = ms.experimental.optim.Adagrad(model.trainable_params(), lr=0.1)
        b = ms.experimental.optim.Adadelta(model.trainable_params())
        c = ms.experimental.optim.Adam([{"params": model.fc.trainable_params(), "lr": 0.1}], lr=0.01)
        d = ms.experimental.optim.RMSprop(model.trainable_params(), alpha=0.9)
        e = ms.experimental.optim.AdamW(model.trainable_params(), weight_decay=0.1)
        s1 = ms.experimental.optim.lr_scheduler.OneCycleLR(c, max_lr=0.1, total_steps=10)
        s2 = ms.experimental.optim.lr_scheduler.ReduceLROnPlateau(c, patience=2)
        s3 = ms.experimental.optim.lr_scheduler.LambdaLR(c, lambda e: 0.9 ** e)
        s4 = ms.experimental.optim.lr_scheduler.MultiStepLR(c, [2, 4])
        """)


@pytest.mark.parametrize("src,marker", [
    ("opt = torch.optim.SparseAdam(model.parameters())\n",
     "# migrate: MS901 sparse gradients have no MindSpore counterpart"),
])
def test_optimizers_without_counterpart_are_marked(src, marker):
    res = check(src, f"{marker}\n{src}")
    assert [c.rule for c in res.changes if c.label == "unsupported" and c.rule != "MS900"] == ["MS901"]


@pytest.mark.parametrize("torch_name", ["NAdam", "RAdam", "Adamax", "ASGD", "Rprop"])
def test_less_common_optimizers_map_to_experimental_optim(torch_name):
    check(f"opt = torch.optim.{torch_name}(model.parameters(), lr=0.1)\n",
          f"opt = ms.experimental.optim.{torch_name}(model.trainable_params(), lr=0.1)\n")


def test_cyclic_lr_maps_to_experimental_lr_scheduler():
    check("s = torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)\n",
          "s = ms.experimental.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)\n")


def test_data_loading():
    res = check("""\
        from torch.utils.data import DataLoader, Dataset, TensorDataset
        class Pairs(Dataset):
            def __len__(self):
                return 10
            def __getitem__(self, i):
                return np.float32(i), np.int64(i % 2), np.float32(0)
        train_ds = TensorDataset(x, y)
        a = DataLoader(Pairs(), batch_size=4, shuffle=True, drop_last=True, num_workers=2, pin_memory=True)
        b = DataLoader(train_ds, batch_size=8, shuffle=True)
        c = DataLoader(train_ds, 8)
        d = DataLoader(TensorDataset(x, y), batch_size=2, shuffle=False)
        e = DataLoader(some_dataset, batch_size=16)
        f = DataLoader(train_ds, batch_size=2, collate_fn=my_collate)
        """, """\
        class Pairs:
            def __len__(self):
                return 10
            def __getitem__(self, i):
                return np.float32(i), np.int64(i % 2), np.float32(0)
        train_ds = ms.dataset.NumpySlicesDataset((x.asnumpy(), y.asnumpy()), column_names=["data", "label"], shuffle=False)
        a = ms.dataset.GeneratorDataset(Pairs(), column_names=["column_0", "column_1", "column_2"], shuffle=True).batch(4, drop_remainder=True)
        b = train_ds.shuffle(train_ds.get_dataset_size()).batch(8)
        c = train_ds.batch(8)
        d = ms.dataset.NumpySlicesDataset((x.asnumpy(), y.asnumpy()), column_names=["data", "label"], shuffle=False).batch(2)
        e = ms.dataset.GeneratorDataset(some_dataset, column_names=["data", "label"], shuffle=False).batch(16)
        f = DataLoaderTorch(train_ds, batch_size=2, collate_fn=my_collate)
        """)  # noqa: E501
    by_line = {c.line: c for c in res.changes if c.rule == "MS223"}
    assert by_line[11].label == "approximate" and "num_workers=2 dropped" in by_line[11].note
    assert by_line[13].label == "transformed"
    assert "assumed to yield (data, label)" in by_line[15].note


def test_distributed():
    res = check("""\
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data import DataLoader, DistributedSampler
        dist.init_process_group(backend="nccl")
        rank = dist.get_rank()
        world = dist.get_world_size()
        model = DDP(model, device_ids=[rank])
        sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=rank, shuffle=False)
        loader = DataLoader(dataset, batch_size=32, sampler=sampler)
        loader2 = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
        for epoch in range(3):
            sampler.set_epoch(epoch)
            for x, y in loader:
                pass
        """, """\
        # Launch one process per device with msrun: msrun --worker_num=N --local_worker_num=N --master_port=PORT SCRIPT.py
        #   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N --local_worker_num=N --node_rank=R --master_addr=NODE0);
        #   on ms_core: python -m ms_core.launch --nproc N SCRIPT.py
        ms.communication.init()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        rank = ms.communication.get_rank()
        world = ms.communication.get_group_size()
        model = torch_distributed_data_parallel(model)
        loader = ms.dataset.GeneratorDataset(dataset, column_names=["data", "label"], num_shards=ms.communication.get_group_size(), shard_id=rank, shuffle=False).batch(32)
        loader2 = ms.dataset.GeneratorDataset(dataset, column_names=["data", "label"], num_shards=ms.communication.get_group_size(), shard_id=ms.communication.get_rank(), shuffle=True).batch(32)
        for epoch in range(3):
            for x, y in loader:
                pass
        """)  # noqa: E501
    assert res.unsupported == 0


@pytest.mark.parametrize("call,launch", [
    ('dist.init_process_group("gloo", rank=r, world_size=n)',
     "msrun --worker_num=N --local_worker_num=N --master_port=PORT SCRIPT.py"),
    ("dist.init_process_group(backend='nccl', init_method='tcp://h:23456', world_size=4, rank=r)",
     "msrun --worker_num=4 --local_worker_num=4 --master_addr=h --master_port=23456 SCRIPT.py"),
    ("dist.init_process_group(**kw)", "msrun --worker_num=N --local_worker_num=N --master_port=PORT SCRIPT.py"),
    ('dist.init_process_group("gloo", init_method="file:///tmp/s", rank=0, world_size=1)', None),
    ('dist.init_process_group(backend="nccl", timeout=t)',
     "msrun --worker_num=N --local_worker_num=N --master_port=PORT SCRIPT.py"),
])
def test_the_launcher_gives_rank_size_and_rendezvous_and_the_comment_says_how(call, launch):
    res = convert_source(f"import torch.distributed as dist\n{call}\n")
    code = res.code
    assert "ms.communication.init()" in code and "init_process_group" not in code and "# migrate" not in code
    assert [c.label for c in res.changes if c.rule == "MS210"] == ["transformed"]
    if launch is None:  # a group of one process is what init() gives without a launcher
        assert "msrun" not in code, code
    else:
        assert f"# Launch one process per device with msrun: {launch}" in code, code
        assert "#   on ms_core: python -m ms_core.launch --nproc" in code


def test_spawned_workers_become_launched_workers():
    code, res = body("""\
        import torch.multiprocessing as mp
        import torch.distributed as dist


        def main(rank, world_size, epochs):
            dist.init_process_group("nccl", rank=rank, world_size=world_size)


        if __name__ == "__main__":
            mp.spawn(main, args=(4, 10), nprocs=4)
            mp.spawn(main, args=extra, nprocs=n, join=True)
            ctx = mp.spawn(main, args=(4, 10), nprocs=4, join=False)
        """)
    assert """    # mp.spawn started nprocs=4 processes; msrun starts them instead:
    # Launch one process per device with msrun: msrun --worker_num=4 --local_worker_num=4 --master_port=PORT SCRIPT.py
    #   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N --local_worker_num=N --node_rank=R --master_addr=NODE0);
    #   on ms_core: python -m ms_core.launch --nproc 4 SCRIPT.py
    ms.communication.init()
    main(ms.communication.get_local_rank(), 4, 10)
""" in code, code  # noqa: E501
    assert "    main(ms.communication.get_local_rank(), *extra)\n" in code
    assert "    # migrate: MS901 mp.spawn whose result is used or with join=False: " \
           "msrun starts the workers; call fn(ms.communication.get_local_rank(), ...) in each" in code, code
    assert "in each (a spawn statement becomes init() + fn(local rank, *args), MS240)\n" \
           "    ctx = mp.spawn(main, args=(4, 10), nprocs=4, join=False)\n" in code, code
    assert [c.label for c in res.changes if c.rule == "MS240"] == ["transformed", "transformed"]


def test_torchrun_environment_reads_become_msruns_and_rendezvous_settings_go():
    code, res = body("""\
        import os
        import torch.distributed as dist
        os.environ["MASTER_ADDR"] = "localhost"
        os.environ["MASTER_PORT"] = "12355"
        local_rank = int(os.environ["LOCAL_RANK"])
        rank, world = int(os.environ.get("RANK", 0)), int(os.getenv("WORLD_SIZE", "1"))
        other = os.environ["HOME"]
        """)
    assert code == """\
local_rank = int(os.environ["DEVICE_ID"])
rank, world = int(os.environ.get("RANK_ID", 0)), int(os.getenv("RANK_SIZE", "1"))
other = os.environ["HOME"]
""", code
    assert [c.label for c in res.changes if c.rule == "MS241"] == ["transformed", "transformed", "exact", "exact"]


def test_environment_reads_of_files_without_torch_distributed_stay():
    code = convert_source('import os\nimport numpy as np\nrank = int(os.environ["RANK"])\n').code
    assert code == 'import os\nimport numpy as np\nrank = int(os.environ["RANK"])\n'


def test_target_mindspore():
    res = check("""\
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        """, """\
        def forward_fn(x, y):
            loss = criterion(model(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            optimizer(grads)
        """, target="mindspore")
    assert res.code.startswith("import mindspore as ms\n\ndef forward_fn(x, y):\n")


def test_change_lines_point_into_the_input():
    src = textwrap.dedent("""\
        import torch
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for x, y in loader:
            opt.zero_grad()
            loss = net(x).sum()
            loss.backward()
            opt.step()
            print(loss.item())
    """)
    res = convert_source(src)
    lines = {(c.rule, c.before): c.line for c in res.changes}
    assert [c.line for c in res.changes if c.rule == "MS020"] == [2]
    assert lines[("MS202", "opt.zero_grad()")] == 4
    assert lines[("MS201", "loss.backward()")] == 6
    assert lines[("MS201", "opt.step()")] == 7


def test_backward_under_a_condition_moves_the_forward_pass_into_if_else():
    res = check("""\
        def train_model(model, criterion, optimizer, dataloaders):
            for phase in ['train', 'val']:
                for inputs, labels in dataloaders[phase]:
                    optimizer.zero_grad()
                    with torch.set_grad_enabled(phase == 'train'):
                        outputs = model(inputs)
                        loss = criterion(outputs, labels)
                        if phase == 'train':
                            loss.backward()
                            optimizer.step()
                    total += loss.item() * inputs.size(0)
        """, """\
        def train_model(model, criterion, optimizer, dataloaders):

            def forward_fn(inputs, labels):
                outputs = model(inputs)
                loss = criterion(outputs, labels)
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

            for phase in ['train', 'val']:
                for inputs, labels in dataloaders[phase]:
                    with TorchSetGradEnabled(phase == 'train'):
                        if phase == 'train':
                            loss, grads = grad_fn(inputs, labels)
                            optimizer(grads)
                        else:
                            outputs = model(inputs)
                            loss = criterion(outputs, labels)
                    total += loss.item() * inputs.shape[0]
        """)
    assert rules_of(res) == ["MS202", "MS213", "MS201", "MS201"]


def test_len_of_loaders():
    check("""\
        from torch.utils.data import DataLoader
        test_loader = DataLoader(test_set, batch_size=10)
        def report(correct, test_loader):
            print(f"acc {correct / len(test_loader.dataset):.3f} of {len(test_loader)} batches")
        n = len(test_loader.dataset) + len(other)
        """, """\
        test_loader = ms.dataset.GeneratorDataset(test_set, column_names=["data", "label"], shuffle=False).batch(10)
        def report(correct, test_loader):
            print(f"acc {correct / test_loader.children[0].get_dataset_size():.3f} of {test_loader.get_dataset_size()} batches")
        n = test_loader.children[0].get_dataset_size() + len(other)
        """)  # noqa: E501


def test_model_zero_grad_and_iterable_dataset():
    res = check("""\
        from torch.utils.data import IterableDataset
        class Stream(IterableDataset):
            def __iter__(self):
                yield 1.0, 2
        model.zero_grad()
        for x, y in loader:
            model.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        """, """\
        class Stream:
            def __iter__(self):
                yield 1.0, 2

        def forward_fn(x, y):
            loss = criterion(model(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            optimizer(grads)
        """)
    assert res.unsupported == 0


def test_random_split():
    got, res = body("""\
        from torch.utils.data import DataLoader, TensorDataset, random_split
        full = TensorDataset(x, y)
        train_ds, val_ds = random_split(full, [80, 20])
        train_loader = DataLoader(train_ds, batch_size=8, shuffle=True)
        val_loader = DataLoader(val_ds, batch_size=8)
        a, b = random_split(MyData(), [0.8, 0.2])
        """)
    assert got == textwrap.dedent("""\
        full = ms.dataset.NumpySlicesDataset((x.asnumpy(), y.asnumpy()), column_names=["data", "label"], shuffle=False)
        train_ds, val_ds = full.split([80, 20], randomize=True)
        train_loader = train_ds.shuffle(train_ds.get_dataset_size()).batch(8)
        val_loader = val_ds.batch(8)
        # migrate: MS902 torch.utils.data.random_split: fractional lengths: MindSpore's split rounds each part (round(f * n)), torch floors them and hands the remainder out one by one; give integer lengths
        a, b = random_split(MyData(), [0.8, 0.2])
        """)  # noqa: E501
    assert [c.label for c in res.changes if c.rule == "MS228"] == ["approximate"]


def test_data_parallel_step_reduces_gradients():
    res = check("""\
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        dist.init_process_group("nccl")
        model = DDP(model)
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        """, """\
        # Launch one process per device with msrun: msrun --worker_num=N --local_worker_num=N --master_port=PORT SCRIPT.py
        #   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N --local_worker_num=N --node_rank=R --master_addr=NODE0);
        #   on ms_core: python -m ms_core.launch --nproc N SCRIPT.py
        ms.communication.init()
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        model = torch_distributed_data_parallel(model)

        def forward_fn(x, y):
            loss = criterion(model(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
        grad_reducer = ms.nn.DistributedGradReducer(optimizer.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            grads = grad_reducer(grads)
            optimizer(grads)
        """)  # noqa: E501
    assert res.unsupported == 0


def test_module_of_a_ddp_model_is_the_model():
    """``model.module`` (the network inside DistributedDataParallel): the wrapper is gone."""
    got, res = body("""\
        from torch.nn.parallel import DistributedDataParallel as DDP
        model = DDP(net)
        w = model.module.fc.weight
        torch.save(model.module.state_dict(), "ckpt.pt")
        other.module.x = 1
        """)
    assert "w = model.fc.weight" in got
    assert "model.module" not in got
    assert "other.module.x = 1" in got


def test_ddp_arguments_are_kept_dropped_or_marked():
    """broadcast_buffers is the helper's; per-device and bucketing arguments go with a note; a
    process group, init_sync=False or mixed precision change what trains: marked."""
    got, res = body("""\
        from torch.nn.parallel import DistributedDataParallel as DDP
        a = DDP(net, device_ids=[rank], output_device=rank, bucket_cap_mb=50, static_graph=True)
        b = DDP(net, broadcast_buffers=flag)
        c = DDP(net, process_group=group)
        d = DDP(net, init_sync=False)
        """)
    assert "a = torch_distributed_data_parallel(net)\n" in got
    assert "b = torch_distributed_data_parallel(net, broadcast_buffers=flag)\n" in got
    assert "# migrate: MS902 torch.nn.parallel.DistributedDataParallel: DistributedDataParallel(" \
           "process_group=group): not translated" in got
    assert "DistributedDataParallel(init_sync=False): not translated" in got
    notes = [c.note for c in res.changes if c.rule == "MS226"]
    assert any("bucket_cap_mb, device_ids, output_device, static_graph dropped" in n for n in notes), notes


def test_convert_sync_batchnorm_becomes_the_helper_and_a_group_is_marked():
    got, _ = body("""\
        import torch.nn as nn
        model = nn.SyncBatchNorm.convert_sync_batchnorm(net)
        other = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group=group)
        """)
    assert "model = torch_convert_sync_batchnorm(net)\n" in got
    assert "# migrate: MS902 torch.nn.SyncBatchNorm.convert_sync_batchnorm: convert_sync_batchnorm over a " \
           "torch process group" in got


def test_get_scale_of_a_grad_scaler_reads_its_scale_value():
    got, _ = body("""\
        scaler = torch.cuda.amp.GradScaler()
        print(f"scale {scaler.get_scale()}")
        other.get_scale()
        """)
    assert 'print(f"scale {float(scaler.scale_value)}")' in got
    assert "other.get_scale()" in got


def test_sharded_tensor_dataset_and_process_group_calls():
    got, res = body("""\
        import torch.distributed as dist
        from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
        data = TensorDataset(torch.zeros(8, 2), torch.ones(8))
        sampler = DistributedSampler(data, num_replicas=dist.get_world_size(), rank=dist.get_rank(), shuffle=False)
        loader = DataLoader(data, batch_size=4, sampler=sampler)
        if dist.is_initialized():
            dist.barrier()
        dist.destroy_process_group()
        """)
    assert got == textwrap.dedent("""\
        data = ms.dataset.NumpySlicesDataset((ops.zeros((8, 2)).asnumpy(), ops.ones((8,)).asnumpy()), column_names=["data", "label"], num_shards=ms.communication.get_group_size(), shard_id=ms.communication.get_rank(), shuffle=False)
        loader = data.batch(4)
        ms.mint.distributed.barrier()
        ms.communication.release()
        """)  # noqa: E501
    assert res.unsupported == 0


def test_optimizer_created_inside_an_outer_loop():
    res = check("""\
        for fold in range(3):
            model = Net()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(2):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
        for fold in range(3):
            model = Net()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            x, y = data[fold]
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        """, """\
        for fold in range(3):
            model = Net()
            model.set_train(True)
            optimizer = ms.experimental.optim.SGD(model.trainable_params(), lr=0.1)

            def forward_fn(x, y):
                loss = criterion(model(x), y)
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

            for epoch in range(2):
                for x, y in loader:
                    loss, grads = grad_fn(x, y)
                    optimizer(grads)
        for fold in range(3):
            model = Net()
            model.set_train(True)
            optimizer = ms.experimental.optim.SGD(model.trainable_params(), lr=0.1)
            x, y = data[fold]

            def forward_fn_1():
                loss = criterion(model(x), y)
                return loss

            grad_fn_1 = ms.value_and_grad(forward_fn_1, None, optimizer.parameters)
            loss, grads_1 = grad_fn_1()
            optimizer(grads_1)
        """)
    assert res.unsupported == 0


def test_converting_twice_with_torch_still_imported_changes_nothing():
    src = textwrap.dedent("""\
        import torch
        import torchvision
        from torch.utils.data import DataLoader
        loader = DataLoader(torchvision.datasets.SVHN("data"), batch_size=4)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
        torch.autograd.backward(loss)
        print(len(loader), torch.fft.hfft(x))
    """)
    once = convert_source(src)
    # the torch imports stay, guarded (tests/migrate/convert/test_guards.py)
    assert "    import torch\n    import torchvision\nelse:" in once.code
    assert without_guards(once.code) == textwrap.dedent("""\
        import ms_core as ms
        from ms_core import ops
        # migrate: MS901 torchvision.datasets.SVHN has no mapping
        loader = ms.dataset.GeneratorDataset(torchvision.datasets.SVHN("data"), column_names=["data", "label"], shuffle=False).batch(4)
        opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)

        def forward_fn(x, y):
            loss = ops.cross_entropy(net(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            opt(grads)
        # migrate: MS953 torch.autograd.backward(loss): write it as loss.backward() or compute the gradients with ms.value_and_grad by hand
        # migrate: MS901 torch.autograd.backward has no mapping
        torch.autograd.backward(loss)
        # migrate: MS901 torch.fft.hfft has no mapping
        print(loader.get_dataset_size(), torch.fft.hfft(x))
    """)  # noqa: E501
    assert [c.rule for c in once.changes if c.rule.startswith("MS95")] == ["MS953"]
    assert convert_source(once.code).code == once.code


def test_step_without_backward_is_marked_not_dropped():
    res = check("""\
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        def update(optimizer):
            optimizer.step()
            optimizer.zero_grad()
        """, """\
        opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)
        def update(optimizer):
            # migrate: MS955 optimizer.step() without a backward() before it in the same block: compute grads with ms.value_and_grad and call the optimizer with them
            optimizer.step()
            # migrate: MS955 optimizer.zero_grad() without a backward() before it in the same block: compute grads with ms.value_and_grad and call the optimizer with them
            optimizer.zero_grad()
        """)  # noqa: E501
    assert rules_of(res) == ["MS020", "MS955", "MS955"]
    assert convert_source(res.code).code == res.code


def test_multiline_calls_in_markers_stay_one_comment_line():
    res = check("""\
        torch.autograd.backward(
            loss, grad_tensors=g,
        )
        """, """\
        # migrate: MS953 torch.autograd.backward( loss, grad_tensors=g, ): write it as loss.backward() or compute the gradients with ms.value_and_grad by hand
        # migrate: MS901 torch.autograd.backward has no mapping
        torch.autograd.backward(
            loss, grad_tensors=g,
        )
        """)  # noqa: E501
    compile(res.code, "x", "exec")


def test_forward_before_zero_grad_is_part_of_the_step():
    check("""\
        for image, target in data_loader:
            image = image.to(device)
            output = model(image)
            loss = criterion(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            accuracy(output, target)
        """, """\
        def forward_fn(image, target):
            output = model(image)
            loss = criterion(output, target)
            return loss, output

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

        for image, target in data_loader:
            (loss, output), grads = grad_fn(image, target)
            optimizer(grads)
            accuracy(output, target)
        """)


def test_gan_whose_generator_step_reuses_the_fakes_of_the_critic_step():
    res = check("""\
        for x, z in loader:
            fake = G(z)
            opt_d.zero_grad()
            d_loss = D(x).mean() - D(fake.detach()).mean()
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(fake).mean()
            g_loss.backward()
            opt_g.step()
        """, """\
        def forward_fn(x, fake):
            d_loss = ops.mean(D(x)) - ops.mean(D(ops.stop_gradient(fake)))
            return d_loss

        grad_fn = ms.value_and_grad(forward_fn, None, opt_d.parameters)

        def forward_fn_1(fake):
            g_loss = -ops.mean(D(fake))
            return g_loss

        grad_fn_1 = ms.value_and_grad(forward_fn_1, 0, opt_g.parameters)

        for x, z in loader:
            fake, fake_vjp = ms.vjp(lambda: G(z), weights=opt_g.parameters)
            d_loss, grads = grad_fn(x, fake)
            opt_d(grads)
            g_loss, (fake_grad, grads_1) = grad_fn_1(fake)
            grads_1 = tuple(a + b for a, b in zip(grads_1, fake_vjp(fake_grad)[1]))
            opt_g(grads_1)
        """)
    # the fakes are computed once, before the critic's step; the generator's gradients come back
    # through their vjp (MS232), as torch's graph from G(z) to the loss does
    assert rules_of(res, ("MS95",)) == [] and "MS232" in rules_of(res)


def test_tutorial_loop_with_batches_unpacked_inside():
    res = check("""\
        from torch.utils.data import DataLoader
        trainloader = DataLoader(trainset, batch_size=4, shuffle=True)
        for epoch in range(2):
            running_loss = 0.0
            for i, data in enumerate(trainloader, 0):
                inputs, labels = data
                optimizer.zero_grad()
                outputs = net(inputs)
                loss = criterion(outputs, labels)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()
        correct = 0
        total = 0
        with torch.no_grad():
            for data in testloader:
                images, labels = data
                outputs = net(images)
                _, predicted = torch.max(outputs.data, 1)
                total += labels.size(0)
                correct += (predicted == labels).sum().item()
        """, """\
        trainloader = ms.dataset.GeneratorDataset(trainset, column_names=["data", "label"], shuffle=True).batch(4)

        def forward_fn(inputs, labels):
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for epoch in range(2):
            running_loss = 0.0
            for i, data in enumerate(trainloader, 0):
                inputs, labels = data
                loss, grads = grad_fn(inputs, labels)
                optimizer(grads)
                running_loss += loss.item()
        correct = 0
        total = 0
        with torch_no_grad():
            for data in testloader:
                images, labels = data
                outputs = net(images)
                _, predicted = ops.max(outputs, 1)
                total += labels.shape[0]
                correct += (predicted == labels).sum().item()
        """)
    assert res.unsupported == 0


def test_loss_from_a_model_method_or_a_helper_function():
    res = check("""\
        def fit(model, loader, optimizer):
            for batch in loader:
                loss = model.training_step(batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        def fit2(model, loader, optimizer):
            for x, y in loader:
                loss = compute_loss(model, x, y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """, """\
        def fit(model, loader, optimizer):

            def forward_fn(batch):
                loss = model.training_step(batch)
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

            for batch in loader:
                loss, grads = grad_fn(batch)
                optimizer(grads)
        def fit2(model, loader, optimizer):

            def forward_fn(x, y):
                loss = compute_loss(model, x, y)
                return loss

            grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

            for x, y in loader:
                loss, grads = grad_fn(x, y)
                optimizer(grads)
        """)
    assert res.unsupported == 0


def test_main_walk_lines_inside_rewritten_functions():
    src = textwrap.dedent("""\
        import torch
        import torch.nn as nn
        from torch.utils.data import Dataset

        class D(Dataset):
            def __getitem__(self, i):
                return i, i

        class Net(nn.Module):
            def forward(self, x):
                return x

        def train(model, loader, optimizer):
            for x, y in loader:
                optimizer.zero_grad()
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
    """)
    lines = {}
    for c in convert_source(src).changes:
        lines.setdefault(c.rule, c.line)
    assert lines["MS211"] == 5 and lines["MS010"] == 9 and lines["MS102"] == 10  # nn.Module, forward
    assert lines["MS202"] == 15 and lines["MS134"] == 16 and lines["MS201"] == 17


def test_other_step_methods_are_not_optimizer_steps():
    res = check("""\
        self.options.step()
        env.step(action)
        sched.step()
        """, """\
        self.options.step()
        env.step(action)
        sched.step()
        """)
    assert rules_of(res) == []


def test_backward_inside_autocast_block():
    res = check("""\
        scaler = torch.cuda.amp.GradScaler()
        for x, y in loader:
            optimizer.zero_grad()
            with torch.cuda.amp.autocast():
                out = model(x)
                loss = criterion(out, y)
                scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        """, """\
        scaler = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000))

        def forward_fn(x, y):
            out = model(x)
            loss = criterion(out, y)
            return scaler.scale(loss)

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            loss = scaler.unscale(loss)
            grads = scaler.unscale(grads)
            grads_finite = ms.amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            scaler.adjust(grads_finite)
        """)
    assert res.unsupported == 0


def test_no_grad_inside_the_forward_pass_stops_gradients():
    res = check("""\
        for s, r, s2 in loader:
            q = policy(s).sum(1)
            with torch.no_grad():
                # bootstrap target
                target = r + 0.99 * policy(s2).max(1)[0]
            loss = F.mse_loss(q, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """, """\
        def forward_fn(s, r, s2):
            q = ops.sum(policy(s), 1)
            # bootstrap target
            target = r + 0.99 * ops.max(policy(s2), 1)[0]
            target = ops.stop_gradient(target)
            loss = ops.mse_loss(q, target)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for s, r, s2 in loader:
            loss, grads = grad_fn(s, r, s2)
            optimizer(grads)
        """)
    assert "MS216" in rules_of(res) and res.unsupported == 0


def test_set_grad_enabled_with_a_condition_inside_a_forward_pass_is_refused():
    res = check("""\
        for x, y in loader:
            with torch.set_grad_enabled(train_head):
                h = backbone(x)
            loss = criterion(head(h), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """, """\
        for x, y in loader:
            with TorchSetGradEnabled(train_head):
                h = backbone(x)
            loss = criterion(head(h), y)
            optimizer.zero_grad()
            # migrate: MS953 torch.set_grad_enabled(train_head) inside the forward pass: split the step by the condition by hand
            loss.backward()
            optimizer.step()
        """)  # noqa: E501
    assert rules_of(res, ("MS95",)) == ["MS953"]


def test_no_grad_in_helpers_called_by_a_forward_pass():
    check("""\
        def bootstrap(r, s2):
            with torch.no_grad():
                t = r + 0.9 * q_net(s2).max(1)[0]
            return t

        def frozen_features(x):
            with torch.no_grad():
                return backbone(x)

        def evaluate(x):
            with torch.no_grad():
                return q_net(x)

        for s, r, s2 in loader:
            q = head(frozen_features(s)).sum(1)
            loss = F.mse_loss(q, bootstrap(r, s2))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        """, """\
        def bootstrap(r, s2):
            t = r + 0.9 * q_net(s2).max(1)[0]
            t = ops.stop_gradient(t)
            return t

        def frozen_features(x):
            return ops.stop_gradient(backbone(x))

        def evaluate(x):
            with torch_no_grad():
                return q_net(x)

        def forward_fn(s, r, s2):
            q = ops.sum(head(frozen_features(s)), 1)
            loss = ops.mse_loss(q, bootstrap(r, s2))
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        for s, r, s2 in loader:
            loss, grads = grad_fn(s, r, s2)
            optimizer(grads)
        """)


def test_loss_from_values_kept_by_an_earlier_forward_pass_is_marked():
    # reinforce.py: log_probs saved while acting, the loss built from them later; a forward_fn
    # that only reads them would have zero gradients (deque is a standard-library class, no network)
    code = convert_source("""\
import torch
import torch.nn as nn
from collections import deque
policy = nn.Linear(4, 2)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
saved = []


def act(x):
    saved.append(torch.log_softmax(policy(x), 1)[0, 0])


def finish(rewards):
    returns = deque()
    for r in rewards:
        returns.appendleft(r)
    loss = torch.stack([-lp * r for lp, r in zip(saved, returns)]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""").code
    assert "# migrate: MS953 the loss `loss` is built from tensors computed before this block" in code, code
    assert "value_and_grad" not in code


def test_backend_names_are_mindspores_communication_backend():
    code = convert_source(textwrap.dedent("""\
        import torch
        import torch.distributed as dist
        def setup():
            backend = torch.distributed.get_default_backend_for_device(torch.accelerator.current_accelerator())
            dist.init_process_group(backend=backend)
            return backend, dist.get_backend(), dist.get_backend(None)
        """)).code
    assert "# migrate" not in code and "get_backend" not in code, code
    namespace = {}
    exec(code, namespace)
    import ms_core as ms
    from ms_core.communication import GlobalComm
    before = ms.get_context("device_target")
    try:
        for target, name in (("CPU", "mccl"), ("GPU", "nccl")):  # MindSpore's init(None) per target
            ms.set_context(device_target=target)
            assert namespace["setup"]() == (name, name, name) == (GlobalComm.BACKEND,) * 3
    finally:
        ms.set_context(device_target=before)
        ms.communication.release()


# ---- MS238: a group's lr read as a number ---------------------------------------------------
def test_lr_reads_of_parameter_groups_are_floats_and_writes_stay():
    res = check("""\
        import torch
        import torch.optim as optim
        opt = optim.SGD(params, lr=0.1)
        print(opt.param_groups[0]["lr"])
        for g in opt.param_groups:
            print(f"{g['lr']:.3f}")
            g["lr"] = g["lr"] * 0.5
        lrs = [group["lr"] for group in opt.param_groups]
        x = float(opt.param_groups[0]["lr"])
        other = {"lr": 1}["lr"]
        for g in groups:
            print(g["lr"])
        """, """\
        opt = ms.experimental.optim.SGD(params, lr=0.1)
        print(float(opt.param_groups[0]["lr"]))
        for g in opt.param_groups:
            print(f"{float(g['lr']):.3f}")
            g["lr"] = float(g["lr"]) * 0.5
        lrs = [float(group["lr"]) for group in opt.param_groups]
        x = float(opt.param_groups[0]["lr"])
        other = {"lr": 1}["lr"]
        for g in groups:
            print(g["lr"])
        """)
    assert rules_of(res, ("MS238",)) == ["MS238"] * 4
    again = convert_source(res.code)
    assert again.code == res.code


def test_lr_reads_in_a_function_over_an_optimizer_argument_and_the_numbers_run():
    src = textwrap.dedent("""\
        import torch
        def lrs(optimizer):
            return [f"{group['lr']:.4f}" for group in optimizer.param_groups]
        net = torch.nn.Linear(2, 1)
        opt = torch.optim.Adam([{"params": [net.weight]}, {"params": [net.bias], "lr": 0.25}], lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
        sched.step()
        shown = lrs(opt)
        """)
    res = convert_source(src)
    assert "float(group['lr'])" in res.code and "# migrate" not in res.code, res.code
    tns, cns = {}, {}
    exec(src, tns)
    exec(res.code, cns)
    assert cns["shown"] == tns["shown"] == ["0.0500", "0.1250"]
