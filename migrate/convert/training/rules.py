"""The statement rules of the training pass, described as registry records.

The pass applies them (a step is rewritten by several at once: MS201 with MS202, MS203, ...);
reports carry their IDs and ``migrate mappings --rules`` lists them. Its markers (MS951-MS955)
are in :data:`migrate.convert.registry.MARKERS`.
"""
from __future__ import annotations

from migrate.convert.registry import statement_rule

TRAINING_STEP = statement_rule(
    "MS201", "training_step", "Replace zero_grad/loss.backward()/optimizer.step() with forward_fn + "
                              "ms.value_and_grad (built once) + optimizer(grads).", examples=[
    ("x = torch.ones(3, requires_grad=True)\n"
     "y = f(x)\n"
     "y.backward()\n"
     "print(x.grad)\n",
     "x = ops.ones((3,))\n"
     "\n"
     "def forward_fn(x):\n"
     "    y = f(x)\n"
     "    return y\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, 0)\n"
     "y, x_grad = grad_fn(x)\n"
     "print(x_grad)\n"),
])
# a plain loop with a device move: the example of the rules it exercises (MS202, MS229)
_SIMPLE_LOOP = (
    'net = Net().to("cpu")\n'
    "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
    "for x in data:\n"
    "    opt.zero_grad()\n"
    "    net(x).sum().backward()\n"
    "    opt.step()\n",
    "net = Net()\n"
    "net.set_train(True)\n"
    "opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)\n"
    "\n"
    "def forward_fn(x):\n"
    "    return net(x).sum()\n"
    "\n"
    "grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)\n"
    "\n"
    "for x in data:\n"
    "    loss, grads = grad_fn(x)\n"
    "    opt(grads)\n")
ZERO_GRAD = statement_rule(
    "MS202", "zero_grad", "Replace optimizer.zero_grad() / model.zero_grad() with nothing (fresh "
                          "gradients on every call).", examples=[
    _SIMPLE_LOOP,
])
# micro-batch accumulation then clipping: the example of both rules it exercises (MS203, MS219)
_ACCUMULATE_THEN_CLIP = (
    "for it in range(10):\n"
    "    optimizer.zero_grad()\n"
    "    for micro in range(4):\n"
    "        loss = model(next(batches)) / 4\n"
    "        loss.backward()\n"
    "    nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    "    optimizer.step()\n",
    "def forward_fn():\n"
    "    loss = model(next(batches)) / 4\n"
    "    return loss\n"
    "\n"
    "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
    "accum_grads = None\n"
    "\n"
    "for it in range(10):\n"
    "    accum_grads = None\n"
    "    for micro in range(4):\n"
    "        loss, grads = grad_fn()\n"
    "        accum_grads = grads if accum_grads is None else tuple(a + g for a, g in "
    "zip(accum_grads, grads))\n"
    "    accum_grads = ops.clip_by_global_norm(accum_grads, 1.0)\n"
    "    optimizer(accum_grads)\n")
CLIP_GRAD_NORM = statement_rule(
    "MS203", "clip_grad_norm", "Replace clip_grad_norm_(params, max_norm) with grads = "
                               "ops.clip_by_global_norm(grads, max_norm).", examples=[
    _ACCUMULATE_THEN_CLIP,
])
CLIP_GRAD_VALUE = statement_rule(
    "MS204", "clip_grad_value",
    "Replace clip_grad_value_(params, v) with grads = ops.clip_by_value(grads, -v, v).", examples=[
    ("for step, (x, y) in enumerate(loader):\n"
     "    optimizer.zero_grad()\n"
     "    loss = criterion(model(x), y)\n"
     "    loss.backward()\n"
     "    torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)\n"
     "    if step > 10:\n"
     "        optimizer.step()\n",
     "def forward_fn(x, y):\n"
     "    loss = criterion(model(x), y)\n"
     "    return loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "\n"
     "for step, (x, y) in enumerate(loader):\n"
     "    loss, grads = grad_fn(x, y)\n"
     "    grads = ops.clip_by_value(grads, -0.1, 0.1)\n"
     "    if step > 10:\n"
     "        optimizer(grads)\n"),
])
GRAD_ACCUMULATION = statement_rule(
    "MS205", "grad_accumulation", "Replace backward() every batch + step() every k batches with a "
                                  "summed grads tuple applied and reset every k batches.", examples=[
    ("def train(model, loader, optimizer, criterion, k):\n"
     "    for i, (x, y) in enumerate(loader):\n"
     "        out = model(x)\n"
     "        loss = criterion(out, y) / k\n"
     "        loss.backward()\n"
     "        if (i + 1) % k == 0:\n"
     "            nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)\n"
     "            optimizer.step()\n"
     "            optimizer.zero_grad()\n",
     "def train(model, loader, optimizer, criterion, k):\n"
     "\n"
     "    def forward_fn(x, y):\n"
     "        out = model(x)\n"
     "        loss = criterion(out, y) / k\n"
     "        return loss\n"
     "\n"
     "    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "    accum_grads = None\n"
     "\n"
     "    for i, (x, y) in enumerate(loader):\n"
     "        loss, grads = grad_fn(x, y)\n"
     "        accum_grads = grads if accum_grads is None else tuple(a + g for a, g in "
     "zip(accum_grads, grads))\n"
     "        if (i + 1) % k == 0:\n"
     "            accum_grads = ops.clip_by_global_norm(accum_grads, 2.0)\n"
     "            optimizer(accum_grads)\n"
     "            accum_grads = None\n"),
])
GRAD_SCALER = statement_rule(
    "MS206", "grad_scaler", "Replace scaler.scale(loss).backward()/unscale_/step/update with "
                            "scale in forward_fn, unscale(grads), all_finite, adjust.", examples=[
    ("scaler = torch.cuda.amp.GradScaler()\n"
     "for x, y in loader:\n"
     "    optimizer.zero_grad()\n"
     "    with torch.cuda.amp.autocast():\n"
     "        out = model(x)\n"
     "        loss = criterion(out, y)\n"
     "        scaler.scale(loss).backward()\n"
     "    scaler.step(optimizer)\n"
     "    scaler.update()\n",
     "scaler = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000))\n"
     "\n"
     "def forward_fn(x, y):\n"
     "    out = model(x)\n"
     "    loss = criterion(out, y)\n"
     "    return scaler.scale(loss)\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "\n"
     "for x, y in loader:\n"
     "    loss, grads = grad_fn(x, y)\n"
     "    loss = scaler.unscale(loss)\n"
     "    grads = scaler.unscale(grads)\n"
     "    grads_finite = ms.amp.all_finite(grads)\n"
     "    if grads_finite:\n"
     "        optimizer(grads)\n"
     "    scaler.adjust(grads_finite)\n"),
])
GUARDED_STEP = statement_rule(
    "MS207", "guarded_step", "Replace `if cond: optimizer.step()` with `if cond: optimizer(grads)`.", examples=[
    ("for step, (x, y) in enumerate(loader):\n"
     "    optimizer.zero_grad()\n"
     "    loss = criterion(model(x), y)\n"
     "    loss.backward()\n"
     "    torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)\n"
     "    if step > 10:\n"
     "        optimizer.step()\n",
     "def forward_fn(x, y):\n"
     "    loss = criterion(model(x), y)\n"
     "    return loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "\n"
     "for step, (x, y) in enumerate(loader):\n"
     "    loss, grads = grad_fn(x, y)\n"
     "    grads = ops.clip_by_value(grads, -0.1, 0.1)\n"
     "    if step > 10:\n"
     "        optimizer(grads)\n"),
])
AUTOCAST = statement_rule(
    "MS208", "autocast",
    "Replace `with autocast(): body` with body (float32; use ms.amp.auto_mixed_precision).", examples=[
    ("with torch.no_grad():  # evaluation\n"
     "    y = f(x)\n"
     'with torch.autocast("cpu"):  # mixed precision\n'
     "    z = g(y)\n",
     "with torch_no_grad():  # evaluation\n"
     "    y = f(x)\n"
     "# mixed precision\n"
     "z = g(y)\n"),
])
AUTOGRAD_GRAD = statement_rule(
    "MS209", "autograd_grad",
    "Replace torch.autograd.grad(f(x), x, create_graph=True) with ms.grad(lambda x: f(x))(x).", examples=[
    ("net = nn.Linear(2, 2)\n"
     "c = net(torch.ones(2))\n"
     "h = x * 2\n"
     "h = h - 1\n"
     "y = net(h) * c\n"
     "g = torch.autograd.grad(y.sum(), x)[0]\n",
     "net = nn.Dense(2, 2, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(2)))\n"
     "c = net(ops.ones((2,)))\n"
     "h = x * 2\n"
     "h = h - 1\n"
     "y = net(h) * c\n"
     "g = ms.grad(lambda x: ops.sum((net(((x * 2) - 1)) * c)))(x)\n"),
])
INIT_PROCESS_GROUP = statement_rule(
    "MS210", "init_process_group", "Replace dist.init_process_group(...) with communication.init() + "
                                   "set_auto_parallel_context(DATA_PARALLEL, gradients_mean=True).", examples=[
    ("import torch.distributed as dist\n"
     'dist.init_process_group(backend="nccl", init_method="tcp://10.0.0.1:23456", world_size=4, rank=r)\n',
     "# Launch one process per device with msrun: msrun --worker_num=4 --local_worker_num=4 "
     "--master_addr=10.0.0.1 --master_port=23456 SCRIPT.py\n"
     "#   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N "
     "--local_worker_num=N --node_rank=R --master_addr=NODE0);\n"
     "#   on ms_core: python -m ms_core.launch --nproc 4 --master-addr 10.0.0.1 --master-port 23456 SCRIPT.py\n"
     "ms.communication.init()\n"
     "ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, "
     "gradients_mean=True)\n"),
])
DATASET_BASE = statement_rule(
    "MS211", "dataset_base",
    "Replace class D(torch.utils.data.Dataset) with class D (a GeneratorDataset source).", examples=[
    ("from torch.utils.data import IterableDataset\n"
     "class Stream(IterableDataset):\n"
     "    def __iter__(self):\n"
     "        yield 1.0, 2\n"
     "model.zero_grad()\n"
     "for x, y in loader:\n"
     "    model.zero_grad()\n"
     "    loss = criterion(model(x), y)\n"
     "    loss.backward()\n"
     "    optimizer.step()\n",
     "class Stream:\n"
     "    def __iter__(self):\n"
     "        yield 1.0, 2\n"
     "\n"
     "def forward_fn(x, y):\n"
     "    loss = criterion(model(x), y)\n"
     "    return loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "\n"
     "for x, y in loader:\n"
     "    loss, grads = grad_fn(x, y)\n"
     "    optimizer(grads)\n"),
])
SAMPLER_STATEMENTS = statement_rule(
    "MS212", "distributed_sampler_statements", "Replace sampler = DistributedSampler(...) / "
                                               "sampler.set_epoch(e) with dataset sharding.", examples=[
    ("from torch.utils.data import DataLoader, DistributedSampler\n"
     "sampler = DistributedSampler(ds)  # one shard per rank\n"
     "loader = DataLoader(ds, batch_size=4, sampler=sampler)\n",
     "# one shard per rank\n"
     'loader = ms.dataset.GeneratorDataset(ds, column_names=["data", "label"], '
     "num_shards=ms.communication.get_group_size(), "
     "shard_id=ms.communication.get_rank(), shuffle=True).batch(4)\n"),
])
CONDITIONAL_BACKWARD = statement_rule(
    "MS213", "conditional_backward", "Replace `loss = f(x); if C: loss.backward()` with the forward "
                                     "pass in `if C: grad_fn(...) else: f(x)`.", examples=[
    ("def train_model(model, criterion, optimizer, dataloaders):\n"
     "    for phase in ['train', 'val']:\n"
     "        for inputs, labels in dataloaders[phase]:\n"
     "            optimizer.zero_grad()\n"
     "            with torch.set_grad_enabled(phase == 'train'):\n"
     "                outputs = model(inputs)\n"
     "                loss = criterion(outputs, labels)\n"
     "                if phase == 'train':\n"
     "                    loss.backward()\n"
     "                    optimizer.step()\n"
     "            total += loss.item() * inputs.size(0)\n",
     "def train_model(model, criterion, optimizer, dataloaders):\n"
     "\n"
     "    def forward_fn(inputs, labels):\n"
     "        outputs = model(inputs)\n"
     "        loss = criterion(outputs, labels)\n"
     "        return loss\n"
     "\n"
     "    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "\n"
     "    for phase in ['train', 'val']:\n"
     "        for inputs, labels in dataloaders[phase]:\n"
     "            with TorchSetGradEnabled(phase == 'train'):\n"
     "                if phase == 'train':\n"
     "                    loss, grads = grad_fn(inputs, labels)\n"
     "                    optimizer(grads)\n"
     "                else:\n"
     "                    outputs = model(inputs)\n"
     "                    loss = criterion(outputs, labels)\n"
     "            total += loss.item() * inputs.shape[0]\n"),
])
LEN_LOADER = statement_rule(
    "MS214", "len_loader", "Replace len(loader) / len(loader.dataset) with get_dataset_size() of the "
                           "batched / unbatched dataset.", examples=[
    ("from torch.utils.data import DataLoader\n"
     "test_loader = DataLoader(test_set, batch_size=10)\n"
     "def report(correct, test_loader):\n"
     '    print(f"acc {correct / len(test_loader.dataset):.3f} of {len(test_loader)} batches")\n'
     "n = len(test_loader.dataset) + len(other)\n",
     'test_loader = ms.dataset.GeneratorDataset(test_set, column_names=["data", '
     '"label"], shuffle=False).batch(10)\n'
     "def report(correct, test_loader):\n"
     '    print(f"acc {correct / test_loader.children[0].get_dataset_size():.3f} of '
     '{test_loader.get_dataset_size()} batches")\n'
     "n = test_loader.children[0].get_dataset_size() + len(other)\n"),
])
GRAD_REDUCER = statement_rule(
    "MS215", "grad_reducer", "Replace DDP gradient averaging with nn.DistributedGradReducer on the grads.", examples=[
    ("import torch.distributed as dist\n"
     "from torch.nn.parallel import DistributedDataParallel as DDP\n"
     'dist.init_process_group("nccl")\n'
     "model = DDP(model)\n"
     "for x, y in loader:\n"
     "    optimizer.zero_grad()\n"
     "    loss = criterion(model(x), y)\n"
     "    loss.backward()\n"
     "    optimizer.step()\n",
     "# Launch one process per device with msrun: msrun --worker_num=N --local_worker_num=N "
     "--master_port=PORT SCRIPT.py\n"
     "#   (torchrun --nnodes=M --nproc-per-node=N --node-rank=R -> msrun --worker_num=M*N "
     "--local_worker_num=N --node_rank=R --master_addr=NODE0);\n"
     "#   on ms_core: python -m ms_core.launch --nproc N SCRIPT.py\n"
     "ms.communication.init()\n"
     "ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, "
     "gradients_mean=True)\n"
     "model = torch_distributed_data_parallel(model)\n"
     "\n"
     "def forward_fn(x, y):\n"
     "    loss = criterion(model(x), y)\n"
     "    return loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "grad_reducer = ms.nn.DistributedGradReducer(optimizer.parameters)\n"
     "\n"
     "for x, y in loader:\n"
     "    loss, grads = grad_fn(x, y)\n"
     "    grads = grad_reducer(grads)\n"
     "    optimizer(grads)\n"),
])
NO_GRAD_IN_FORWARD = statement_rule(
    "MS216", "no_grad_in_forward", "Replace `with torch.no_grad(): t = f(x)` inside forward_fn with "
                                   "t = f(x); t = ops.stop_gradient(t).", examples=[
    ("for s, r, s2 in loader:\n"
     "    q = policy(s).sum(1)\n"
     "    with torch.no_grad():\n"
     "        # bootstrap target\n"
     "        target = r + 0.99 * policy(s2).max(1)[0]\n"
     "    loss = F.mse_loss(q, target)\n"
     "    optimizer.zero_grad()\n"
     "    loss.backward()\n"
     "    optimizer.step()\n",
     "def forward_fn(s, r, s2):\n"
     "    q = ops.sum(policy(s), 1)\n"
     "    # bootstrap target\n"
     "    target = r + 0.99 * ops.max(policy(s2), 1)[0]\n"
     "    target = ops.stop_gradient(target)\n"
     "    loss = ops.mse_loss(q, target)\n"
     "    return loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)\n"
     "\n"
     "for s, r, s2 in loader:\n"
     "    loss, grads = grad_fn(s, r, s2)\n"
     "    optimizer(grads)\n"),
])
MANUAL_UPDATE = statement_rule(
    "MS217", "manual_update", "Replace backward() + `for p in net.parameters(): p.data.add_(-lr * p.grad)` "
                              "with value_and_grad over net.trainable_params() + `for p, p_grad in zip(...)`: "
                              "p.set_data(p - lr * p_grad).", examples=[
    ("net = nn.Linear(3, 1)\n"
     "for x, y in batches:\n"
     "    loss = F.mse_loss(net(x), y)\n"
     "    loss.backward()\n"
     "    with torch.no_grad():  # plain SGD\n"
     "        for w in net.parameters():\n"
     "            w -= 0.1 * w.grad\n"
     "            w.grad = None\n",
     "net = nn.Dense(3, 1, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(3)))\n"
     "net.set_train(True)\n"
     "\n"
     "def forward_fn(x, y):\n"
     "    loss = ops.mse_loss(net(x), y)\n"
     "    return loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params())\n"
     "\n"
     "for x, y in batches:\n"
     "    loss, grads = grad_fn(x, y)\n"
     "    # plain SGD\n"
     "    for w, w_grad in zip(net.trainable_params(), grads):\n"
     "        w.set_data(w - (0.1 * w_grad))\n"),
])
GRADIENT_COMPUTATION = statement_rule(
    "MS218", "gradient_computation", "Replace y.sum().backward() with no optimizer (x.grad read after it) "
                                     "with ms.value_and_grad over the networks' parameters (and x): x_grad.", examples=[
    ("x = torch.ones(3, requires_grad=True)\n"
     "y = f(x)\n"
     "y.backward()\n"
     "print(x.grad)\n",
     "x = ops.ones((3,))\n"
     "\n"
     "def forward_fn(x):\n"
     "    y = f(x)\n"
     "    return y\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, 0)\n"
     "y, x_grad = grad_fn(x)\n"
     "print(x_grad)\n"),
])
BACKWARD_CHAIN = statement_rule(
    "MS219", "backward_chain", "Replace several backward() calls (in one block, or one per loop iteration) "
                               "before one step with their value_and_grad grads summed in a tuple.", examples=[
    _ACCUMULATE_THEN_CLIP,
])
TRAIN_MODE = statement_rule(
    "MS229", "train_mode", "Replace net = Net() with net = Net(); net.set_train(True) for a network the file "
                           "trains and never switches with train()/eval() (torch modules start in training "
                           "mode).", examples=[
    _SIMPLE_LOOP,
])
VJP_THROUGH = statement_rule(
    "MS232", "vjp_through", "Replace fake = netG(z) read by a loss after another optimizer's step (a GAN "
                            "generator) with fake, fake_vjp = ms.vjp(...) and the loss's fake gradient "
                            "pulled back through fake_vjp.", examples=[
    ("for x, z in loader:\n"
     "    fake = G(z)\n"
     "    opt_d.zero_grad()\n"
     "    d_loss = D(x).mean() - D(fake.detach()).mean()\n"
     "    d_loss.backward()\n"
     "    opt_d.step()\n"
     "    opt_g.zero_grad()\n"
     "    g_loss = -D(fake).mean()\n"
     "    g_loss.backward()\n"
     "    opt_g.step()\n",
     "def forward_fn(x, fake):\n"
     "    d_loss = ops.mean(D(x)) - ops.mean(D(ops.stop_gradient(fake)))\n"
     "    return d_loss\n"
     "\n"
     "grad_fn = ms.value_and_grad(forward_fn, None, opt_d.parameters)\n"
     "\n"
     "def forward_fn_1(fake):\n"
     "    g_loss = -ops.mean(D(fake))\n"
     "    return g_loss\n"
     "\n"
     "grad_fn_1 = ms.value_and_grad(forward_fn_1, 0, opt_g.parameters)\n"
     "\n"
     "for x, z in loader:\n"
     "    fake, fake_vjp = ms.vjp(lambda: G(z), weights=opt_g.parameters)\n"
     "    d_loss, grads = grad_fn(x, fake)\n"
     "    opt_d(grads)\n"
     "    g_loss, (fake_grad, grads_1) = grad_fn_1(fake)\n"
     "    grads_1 = tuple(a + b for a, b in zip(grads_1, fake_vjp(fake_grad)[1]))\n"
     "    opt_g(grads_1)\n"),
])
PARAM_NAME_TESTS = statement_rule(
    "MS233", "param_name_tests", "Replace pn.endswith('weight') / pn == 'bias' on a named_parameters() name with "
                                 "tests that also accept gamma/embedding_table / beta (the converted layers' "
                                 "names).", examples=[
    ("for p in model.parameters():\n"
     "    p.data.mul_(0.5)\n"
     "    p.requires_grad = True\n"
     "for name, p in model.named_parameters():\n"
     "    if name.endswith('weight'):\n"
     "        with torch.no_grad():\n"
     "            p.add_(1.0)\n",
     "for p in torch_parameters(model):\n"
     "    p.set_data(p * 0.5)\n"
     "    p.requires_grad = True\n"
     "for name, p in torch_named_parameters(model):\n"
     "    if name.endswith(('weight', 'gamma', 'embedding_table')):\n"
     "        with torch_no_grad():\n"
     "            p.set_data(p + 1.0)\n"),
])
PARAM_INPLACE = statement_rule(
    "MS234", "param_inplace", "Replace in-place arithmetic on the parameter of a parameters() loop (p.mul_(c), "
                              "p.data.add_(x), p -= x) with p.set_data(...).", examples=[
    ("for p in model.parameters():\n"
     "    p.data.mul_(0.5)\n"
     "    p.requires_grad = True\n"
     "for name, p in model.named_parameters():\n"
     "    if name.endswith('weight'):\n"
     "        with torch.no_grad():\n"
     "            p.add_(1.0)\n",
     "for p in torch_parameters(model):\n"
     "    p.set_data(p * 0.5)\n"
     "    p.requires_grad = True\n"
     "for name, p in torch_named_parameters(model):\n"
     "    if name.endswith(('weight', 'gamma', 'embedding_table')):\n"
     "        with torch_no_grad():\n"
     "            p.set_data(p + 1.0)\n"),
])
LR_READS = statement_rule(
    "MS238", "lr_reads", "Replace a read of a parameter group's lr (opt.param_groups[0]['lr'], g['lr'] in a loop "
                         "over param_groups) with float(...): MindSpore keeps a Parameter there.", examples=[
    ("opt = torch.optim.SGD(params, lr=0.1)\nlr = opt.param_groups[0]['lr']\nfor g in opt.param_groups:\n"
     "    print(g['lr'])\n",
     "opt = ms.experimental.optim.SGD(params, lr=0.1)\nlr = float(opt.param_groups[0]['lr'])\n"
     "for g in opt.param_groups:\n    print(float(g['lr']))\n"),
])
