"""Proofs of mappings/training.toml (optimizers, lr schedulers, GradScaler, torch.utils.data,
torch.distributed): see tests/mappings/proof.py. Each case is a small training-script snippet
defining ``run``; the snippet and its conversion run on the same arrays and return what the entry
decides: parameters after each optimizer step, the learning rates of each epoch, the loss scale and
skipped steps, the batches, the ranks.

Optimizer snippets use a loss linear in the parameters, ``sum(w * g[i])``, so both sides get
exactly the gradient ``g[i]`` at step ``i`` and any difference comes from the update rule.
"""
import pytest

from tests.mappings.proof import Marked, Program, ProvenBy, case_id, run, starts_process_group

pytest.importorskip("torch")

GRADS = (("gm", "rs.randn(3, 3, 4).astype(np.float32)"), ("gv", "rs.randn(3, 5).astype(np.float32)"))

_NET = """
class Net(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.w1 = nn.Parameter(a.clone())
        self.w2 = nn.Parameter(b.clone())

    def forward(self, g, h):
        return (self.w1 * g).sum() + (self.w2 * h).sum()
"""

_STEPS = """
def run(m, v, gm, gv):
    net = Net(m, v)
    opt = {ctor}
    out = []
    for i in range(3):
        opt.zero_grad()
        loss = net(gm[i], gv[i])
        loss.backward()
        opt.step()
        out += [net.w1.detach().clone(), net.w2.detach().clone()]
    return out
"""

GROUPS = '[{"params": [net.w1]}, {"params": [net.w2], "lr": 0.05, "weight_decay": 0.02}]'


def optimizer(api: str, ctor: str) -> Program:
    """Three steps of ``ctor`` (an optimizer over ``net``'s parameters) on both sides; ``ctor``
    may start with the full name of a submodule alias (``torch.optim.sgd.SGD(...)``): the snippet
    then imports the class from it, as code does."""
    head, _, name = api.rpartition(".")
    imports = f"from {head} import {name}\n" if ctor.startswith(api + "(") and head.count(".") > 1 else ""
    ctor = ctor.replace(api + "(", name + "(", 1) if imports else ctor
    return Program(api, imports + _NET + _STEPS.format(ctor=ctor), inputs=("m", "v", "gm", "gv"),
                   arrays=GRADS, uses="ms.experimental.optim.")


_O = "torch.optim"
OPTIMIZERS = [
    optimizer(f"{_O}.SGD", f"{_O}.SGD(net.parameters())"),  # torch's default lr, made explicit
    optimizer(f"{_O}.SGD", f"{_O}.SGD({GROUPS}, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, "
                           "foreach=None)"),
    optimizer(f"{_O}.sgd.SGD", f"{_O}.sgd.SGD(net.parameters(), 0.1, 0.8, 0.3, 0.01, maximize=True, "
                               "fused=None)"),
    optimizer(f"{_O}.Adam", f"{_O}.Adam({GROUPS}, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, "
                            "amsgrad=True, foreach=None, capturable=False)"),
    optimizer(f"{_O}.Adam", f"{_O}.Adam({GROUPS}, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, "
                            "amsgrad=False)"),
    optimizer(f"{_O}.adam.Adam", f"{_O}.adam.Adam(net.parameters(), 0.02, maximize=True, fused=None)"),
    optimizer(f"{_O}.AdamW", f"{_O}.AdamW({GROUPS}, lr=0.01, betas=(0.85, 0.95), eps=1e-7, "
                             "weight_decay=0.3, amsgrad=True, foreach=None)"),
    optimizer(f"{_O}.adamw.AdamW", f"{_O}.adamw.AdamW(net.parameters(), lr=0.05)"),
    optimizer(f"{_O}.RMSprop", f"{_O}.RMSprop({GROUPS}, lr=0.005, alpha=0.9, eps=1e-6, weight_decay=0.01, "
                               "momentum=0.5, centered=True, foreach=None)"),
    optimizer(f"{_O}.rmsprop.RMSprop", f"{_O}.rmsprop.RMSprop(net.parameters(), lr=0.01, maximize=True)"),
    optimizer(f"{_O}.Adagrad", f"{_O}.Adagrad({GROUPS}, lr=0.1, lr_decay=0.05, weight_decay=0.01, "
                               "initial_accumulator_value=0.1, eps=1e-8, foreach=None)"),
    optimizer(f"{_O}.adagrad.Adagrad", f"{_O}.adagrad.Adagrad(net.parameters(), 0.2, maximize=True)"),
    optimizer(f"{_O}.Adadelta", f"{_O}.Adadelta({GROUPS}, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, "
                                "foreach=None)"),
    optimizer(f"{_O}.adadelta.Adadelta", f"{_O}.adadelta.Adadelta(net.parameters(), maximize=True)"),
    optimizer(f"{_O}.NAdam", f"{_O}.NAdam({GROUPS}, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, "
                             "momentum_decay=0.01, foreach=None)"),
    optimizer(f"{_O}.nadam.NAdam", f"{_O}.nadam.NAdam(net.parameters(), lr=0.01, weight_decay=0.1, "
                                   "decoupled_weight_decay=True)"),
    optimizer(f"{_O}.RAdam", f"{_O}.RAdam({GROUPS}, lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1, "
                             "foreach=None)"),
    optimizer(f"{_O}.radam.RAdam", f"{_O}.radam.RAdam(net.parameters(), lr=0.01, weight_decay=0.1, "
                                   "decoupled_weight_decay=True)"),
    optimizer(f"{_O}.Adamax", f"{_O}.Adamax({GROUPS}, lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1, "
                              "foreach=None)"),
    optimizer(f"{_O}.adamax.Adamax", f"{_O}.adamax.Adamax(net.parameters(), maximize=True)"),
    optimizer(f"{_O}.ASGD", f"{_O}.ASGD({GROUPS}, lr=0.05, lambd=0.01, alpha=0.5, t0=1, weight_decay=0.01, "
                            "foreach=None)"),
    optimizer(f"{_O}.asgd.ASGD", f"{_O}.asgd.ASGD(net.parameters(), 0.02, maximize=True)"),
    optimizer(f"{_O}.Rprop", f"{_O}.Rprop({GROUPS}, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1), "
                             "foreach=None)"),
    optimizer(f"{_O}.rprop.Rprop", f"{_O}.rprop.Rprop(net.parameters(), 0.02, maximize=True)"),
    ProvenBy(f"{_O}.LBFGS", "tests/migrate/convert/training/test_lbfgs.py::test_lbfgs_steps_match_torch_in_float64"),
    ProvenBy(f"{_O}.lbfgs.LBFGS",
             "tests/migrate/convert/training/test_lbfgs.py::test_lbfgs_steps_match_torch_in_float64"),
    Marked(f"{_O}.SparseAdam", "opt = torch.optim.SparseAdam([w], lr=0.01)", id="MS901"),
]

# ---- learning-rate schedules -------------------------------------------------------------------
_EPOCHS = """
def run(m):
    w = nn.Parameter(m.clone())
    v = nn.Parameter(m.clone() * 2)
    opt = torch.optim.SGD([{{"params": [w]}}, {{"params": [v], "lr": 0.5}}], lr=0.1, momentum=0.9)
    sched = {ctor}
    out = []
    for epoch in range(12):
        out += [float(group["lr"]) for group in opt.param_groups] + [opt.param_groups[0]["momentum"]]
        sched.step({metric})
    return out + [float(lr) for lr in sched.get_last_lr()]
"""
_LS = "torch.optim.lr_scheduler"
# float(group["lr"]): MindSpore's group lr is a Parameter that the scheduler assigns in place, so a
# list of the Parameters themselves would show the last value 12 times
# a validation loss that improves, stalls and improves again (ReduceLROnPlateau's input)
METRIC = "[1.0, 0.9, 0.9, 0.95, 0.92, 0.91, 0.93, 0.5, 0.6, 0.6, 0.7, 0.65][epoch]"


def schedule(api: str, ctor: str, metric: str = "") -> Program:
    """Twelve epochs of the scheduler ``ctor`` over a two-group SGD: every group's lr each epoch."""
    return Program(api, _EPOCHS.format(ctor=ctor, metric=metric), inputs=("m",),
                   uses="ms.experimental.optim.lr_scheduler.")


SCHEDULES = [
    schedule(f"{_LS}.StepLR", f"{_LS}.StepLR(opt, 3, gamma=0.5)"),
    schedule(f"{_LS}.MultiStepLR", f"{_LS}.MultiStepLR(opt, milestones=[2, 5, 9], gamma=0.3)"),
    schedule(f"{_LS}.ExponentialLR", f"{_LS}.ExponentialLR(opt, 0.8)"),
    schedule(f"{_LS}.CosineAnnealingLR", f"{_LS}.CosineAnnealingLR(opt, T_max=5, eta_min=0.01)"),
    schedule(f"{_LS}.CosineAnnealingWarmRestarts",
             f"{_LS}.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)"),
    schedule(f"{_LS}.LambdaLR", f"{_LS}.LambdaLR(opt, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)])"),
    schedule(f"{_LS}.MultiplicativeLR", f"{_LS}.MultiplicativeLR(opt, lambda e: 0.95 if e < 5 else 0.5)"),
    schedule(f"{_LS}.LinearLR", f"{_LS}.LinearLR(opt, start_factor=0.2, end_factor=0.9, total_iters=6)"),
    schedule(f"{_LS}.ConstantLR", f"{_LS}.ConstantLR(opt, factor=0.25, total_iters=4)"),
    schedule(f"{_LS}.PolynomialLR", f"{_LS}.PolynomialLR(opt, total_iters=8, power=2.0)"),
    schedule(f"{_LS}.OneCycleLR", f"{_LS}.OneCycleLR(opt, max_lr=[1.0, 2.0], total_steps=13, pct_start=0.25, "
                                  "div_factor=10.0, final_div_factor=100.0, base_momentum=0.8, max_momentum=0.9)"),
    schedule(f"{_LS}.OneCycleLR", f"{_LS}.OneCycleLR(opt, max_lr=1.0, epochs=2, steps_per_epoch=7, "
                                  "anneal_strategy='linear', three_phase=True)"),
    schedule(f"{_LS}.CyclicLR", f"{_LS}.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, "
                                "step_size_down=2, mode='triangular2', base_momentum=0.7, max_momentum=0.95)"),
    schedule(f"{_LS}.CyclicLR", f"{_LS}.CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=0.2, step_size_up=2, "
                                "mode='exp_range', gamma=0.9, cycle_momentum=False)"),
    schedule(f"{_LS}.SequentialLR", f"{_LS}.SequentialLR(opt, schedulers=[{_LS}.LinearLR(opt, start_factor=0.1, "
                                    f"total_iters=3), {_LS}.ExponentialLR(opt, gamma=0.9)], milestones=[4])"),
    schedule(f"{_LS}.ChainedScheduler", f"{_LS}.ChainedScheduler([{_LS}.ConstantLR(opt, factor=0.5, "
                                        f"total_iters=3), {_LS}.ExponentialLR(opt, gamma=0.9)])"),
    schedule(f"{_LS}.ReduceLROnPlateau", f"{_LS}.ReduceLROnPlateau(opt, mode='min', factor=0.5, patience=1, "
                                         "threshold=0.01, cooldown=1, min_lr=[0.02, 0.1])", metric=METRIC),
    schedule(f"{_LS}.ReduceLROnPlateau", f"{_LS}.ReduceLROnPlateau(opt, 'max', factor=0.3, patience=0, "
                                         "threshold=0.05, threshold_mode='abs', eps=1e-3)", metric=METRIC),
]

CASES = OPTIMIZERS + SCHEDULES



@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)

# ---- loss scaling ------------------------------------------------------------------------------
_SCALED = """
def run(m, v, gs, gv):
    net = Net(m, v)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.5)
    scaler = {ctor}
    out = []
    for i in range(6):
        opt.zero_grad()
        loss = net(gs[i], gv[i])
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        out += [net.w1.detach().clone(), net.w2.detach().clone(), scaler.get_scale(),
                scaler.scale(torch.tensor(1.0))]
    return out
"""
# step 1's gradient holds an inf, step 3's a nan: both steps are skipped and the scale backs off;
# two finite steps in a row (growth_interval=2) grow it, at step 5
SCALER_GRADS = (("gs", "np.where(np.arange(72).reshape(6, 3, 4) == 17, np.inf, np.where(np.arange(72)"
                       ".reshape(6, 3, 4) == 41, np.nan, rs.randn(6, 3, 4))).astype(np.float32)"),
                ("gv", "rs.randn(6, 5).astype(np.float32)"))


FINITE_GRADS = (("gs", "rs.randn(6, 3, 4).astype(np.float32)"), ("gv", "rs.randn(6, 5).astype(np.float32)"))


def scaler(api: str, ctor: str, reference: str = "", finite: bool = False) -> Program:
    """Six scaled steps (with an inf and a nan gradient unless ``finite``): parameters and scale after each."""
    ref = _NET + _SCALED.format(ctor=reference) if reference else ""
    why = ("torch.cuda.amp.GradScaler(args) is torch.amp.GradScaler('cuda', args) (torch's docs); on this "
           "CPU-only machine it disables itself, so torch's CPU scaler with the same arguments is the "
           "reference" if reference else "")
    if finite:
        why = ("a 'cuda' scaler on this CPU-only machine: torch disables it (scale 1.0), and so does the "
               "conversion on a CPU backend; finite gradients, because a disabled torch scaler applies a "
               "non-finite step that the converted step (all_finite) skips")
    return Program(api, _NET + _SCALED.format(ctor=ctor), inputs=("m", "v", "gs", "gv"),
                   arrays=FINITE_GRADS if finite else SCALER_GRADS, uses="ms.amp.DynamicLossScaler(",
                   reference=ref, why=why)


_SC = "init_scale=1024.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2"
SCALERS = [
    scaler("torch.amp.GradScaler", f"torch.amp.GradScaler('cpu', {_SC})"),
    scaler("torch.amp.GradScaler", "torch.amp.GradScaler('cpu', init_scale=96.0, growth_factor=4.0, "
                                   "backoff_factor=0.25, growth_interval=1)"),
    scaler("torch.amp.grad_scaler.GradScaler", f"torch.amp.grad_scaler.GradScaler('cpu', {_SC})"),
    scaler("torch.cpu.amp.GradScaler", f"torch.cpu.amp.GradScaler({_SC})"),
    scaler("torch.cuda.amp.GradScaler", f"torch.cuda.amp.GradScaler({_SC})", finite=True),
    scaler("torch.amp.GradScaler", f"torch.amp.GradScaler({_SC})", finite=True),
    scaler("torch.amp.GradScaler", f"torch.amp.GradScaler('cuda', {_SC})", finite=True),
    Marked("torch.amp.GradScaler", "scaler = torch.amp.GradScaler('cuda', backoff_factor=0.25)", id="MS902"),
    Marked("torch.cuda.amp.GradScaler", "scaler = torch.cuda.amp.GradScaler(growth_factor=4.0)", id="MS902"),
]

CASES += SCALERS

# ---- data --------------------------------------------------------------------------------------
LABELS = (("lab", "np.array([2, 0, 1, 1, 0, 2, 0], dtype=np.int64)"),
          ("rows", "rs.randn(7, 3).astype(np.float32)"))
_PAIRS = """
class Pairs(torch.utils.data.Dataset):
    def __init__(self, x, y):
        self.x = x.numpy()
        self.y = y.numpy()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
"""


def data(api: str, code: str, uses: str = "ms.dataset.") -> Program:
    """A data snippet over 7 rows of 3 features and their int64 labels."""
    return Program(api, code, inputs=("rows", "lab"), arrays=LABELS, uses=uses)


_DL = "torch.utils.data"
DATA = [
    data(f"{_DL}.TensorDataset", f"""
def run(rows, lab):
    ds = {_DL}.TensorDataset(rows, lab)
    out = [len(ds)]
    for x, y in ds:
        out += [x, y]
    return out
""", uses="NumpySlicesDataset((rows.asnumpy(), lab.asnumpy())"),
    data(f"{_DL}.dataset.TensorDataset", f"""
from {_DL}.dataset import TensorDataset

def run(rows, lab):
    out = []
    for (x,) in TensorDataset(rows * 2):
        out.append(x)
    return out
""", uses="NumpySlicesDataset(((rows * 2).asnumpy(),)"),
    data(f"{_DL}.DataLoader", f"""
def run(rows, lab):
    ds = {_DL}.TensorDataset(rows, lab)
    out = []
    for x, y in {_DL}.DataLoader(ds, batch_size=3, shuffle=False, num_workers=0, pin_memory=False):
        out += [x, y]
    for x, y in {_DL}.DataLoader(ds, batch_size=3, drop_last=True):
        out += [x, y]
    for x, y in {_DL}.DataLoader(ds):
        out += [x, y]
    return out
""", uses=".batch(3, drop_remainder=True)"),
    data(f"{_DL}.DataLoader", _PAIRS + f"""
def run(rows, lab):
    loader = {_DL}.DataLoader(Pairs(rows, lab), batch_size=2, drop_last=False)
    out = []
    for x, y in loader:
        out += [x, y]
    return out + [len(loader)]
""", uses="GeneratorDataset(Pairs(rows, lab)"),
    data(f"{_DL}.DataLoader", f"""
def run(rows, lab):
    loader = {_DL}.DataLoader({_DL}.TensorDataset(rows, lab), batch_size=2, shuffle=True)
    seen = []
    for x, y in loader:
        seen += [int(v) for v in y]
    # shuffled: another order than torch's generator (the entry says so), the same rows
    return [len(loader), sorted(seen)]
""", uses="shuffle=True"),
    data(f"{_DL}.dataloader.DataLoader", f"""
from {_DL}.dataloader import DataLoader

def run(rows, lab):
    return [x for x, y in DataLoader({_DL}.TensorDataset(rows, lab), batch_size=4)]
""", uses=".batch(4)"),
]
CASES += DATA
_SAMPLE2 = "tests/migrate/convert/training/test_recipe_sample2.py"
_WORKER = f"{_SAMPLE2}::test_a_worker_sharded_stream_reads_all_of_its_data"
CASES += [ProvenBy(name, _WORKER) for name in (
    "torch.utils.data.get_worker_info", "torch.utils.data._utils.worker.get_worker_info")]
_SUBCLASSES = f"{_SAMPLE2}::test_scheduler_subclasses_give_torchs_learning_rates"
CASES += [ProvenBy(f"torch.optim.lr_scheduler.{name}", _SUBCLASSES) for name in ("LRScheduler", "_LRScheduler")]

_SPLIT = """
def run(rows, lab):
    ds = {ds}
    parts = {split}
    rows_of = [sorted(int(y) for x, y in part) for part in parts]
    # another random assignment than torch's generator (the entry says so): the same sizes, and
    # the parts are disjoint and cover the dataset
    return [len(p) for p in parts] + [sorted(r for part in rows_of for r in part)]
"""
_IDX = "torch.tensor([0, 1, 2, 3, 4, 5, 6])"
SPLITS = [
    data(f"{_DL}.random_split", _SPLIT.format(ds=f"{_DL}.TensorDataset(rows, {_IDX})",
                                              split=f"{_DL}.random_split(ds, [4, 2, 1])"), uses=".split([4, 2, 1]"),
    data(f"{_DL}.random_split", _SPLIT.format(
        ds=f"{_DL}.TensorDataset(rows, {_IDX})",
        split=f"{_DL}.random_split(ds, [len(ds) - 2, 2], generator=None)"),
         uses=".split([len(ds) - 2, 2]"),
    data(f"{_DL}.dataset.random_split", "from torch.utils.data.dataset import random_split\n" + _SPLIT.format(
        ds=f"{_DL}.TensorDataset(rows, {_IDX})", split="random_split(ds, [3, 4])"), uses=".split([3, 4]"),
    Marked(f"{_DL}.random_split", "a, b = torch.utils.data.random_split(ds, [0.75, 0.25])", id="MS902"),
]
_SHARDS = """
def shard(rows, rank, shuffle):
    ds = {_DL}.TensorDataset(rows, {_IDX})
    sampler = {{sampler}}(ds, num_replicas=3, rank=rank, shuffle=shuffle)
    loader = {_DL}.DataLoader(ds, batch_size=2, sampler=sampler)
    return [int(y) for x, b in loader for y in b]


def run(rows, lab):
    out = [shard(rows, rank, {{shuffle}}) for rank in range(3)]
    # shuffled: another permutation than torch's (seeded by its own generator); the shards have
    # torch's sizes and cover the dataset (7 rows padded to 9 by repeating)
    return out if not {{shuffle}} else [len(o) for o in out] + [sorted(set(sum(out, [])))]
""".format(_DL=_DL, _IDX=_IDX)
SAMPLERS = [
    data(f"{_DL}.DistributedSampler", _SHARDS.format(sampler=f"{_DL}.DistributedSampler", shuffle=False),
         uses="num_shards=3, shard_id=rank, shuffle=shuffle"),
    data(f"{_DL}.DistributedSampler", _SHARDS.format(sampler=f"{_DL}.DistributedSampler", shuffle=True),
         uses="num_shards=3, shard_id=rank, shuffle=shuffle"),
    data(f"{_DL}.distributed.DistributedSampler",
         "from torch.utils.data.distributed import DistributedSampler\n"
         + _SHARDS.format(sampler="DistributedSampler", shuffle=False), uses="num_shards=3"),
]
CASES += SPLITS + SAMPLERS

# ---- a process group of one (world_size 1) -----------------------------------------------------
_GROUP = """
import os
import tempfile

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def start():
    # torch needs a rendezvous even for one process; MindSpore's launcher provides it
    store = "file://" + os.path.join(tempfile.mkdtemp(), "store")
    dist.init_process_group("gloo", init_method=store, rank=0, world_size=1)
"""
_QUERIES = _GROUP + """

def run(m):
    start()
    out = [dist.is_initialized(), dist.get_rank(), dist.get_world_size()]
    dist.barrier()
    out.append(dist.get_rank() + dist.get_world_size())
    dist.destroy_process_group()
    return out
"""
_DDP = _GROUP + """

class Net(nn.Module):
    def __init__(self, w):
        super().__init__()
        self.w = nn.Parameter(w.clone())

    def forward(self, x):
        return torch.tanh(x @ self.w.T)


def run(w, m):
    start()
    model = {wrap}(Net(w))
    opt = torch.optim.SGD(model.parameters(), lr=1.0)  # lr 1: each step subtracts the gradient
    out = []
    for i in range(2):
        opt.zero_grad()
        y = model(m * (i + 1))
        loss = (y ** 2).mean()
        loss.backward()
        opt.step()
        out += [y.detach(), model.module.w.detach().clone()]
    dist.destroy_process_group()
    return out
"""
_DIST = "torch.distributed"
DISTRIBUTED = [
    *[Program(f"{_DIST}.{name}", _QUERIES, inputs=("m",), uses=uses) for name, uses in [
        ("init_process_group", "ms.communication.init()"), ("is_initialized", "out = [True, "),
        ("get_rank", "ms.communication.get_rank()"), ("get_world_size", "ms.communication.get_group_size()"),
        ("barrier", "ms.mint.distributed.barrier()"), ("destroy_process_group", "ms.communication.release()")]],
    Program("torch.nn.parallel.DistributedDataParallel", _DDP.format(wrap="DistributedDataParallel"),
            inputs=("w", "m"), uses="model = torch_distributed_data_parallel(Net(w))"),
    Program("torch.nn.parallel.distributed.DistributedDataParallel",
            "from torch.nn.parallel.distributed import DistributedDataParallel as DDP\n"
            + _DDP.format(wrap="DDP"), inputs=("w", "m"), uses="model = torch_distributed_data_parallel(Net(w))"),
]
CASES += DISTRIBUTED

# collectives in a group of one: each leaves its tensors as torch's does (the values of several
# ranks: tests/ms_core/test_distributed.py and migrate check-ddp's runs, tests/migrate/check)
_COLLECTIVES = _GROUP + """

def run(m, v):
    start()
    t, u = m.clone(), v.clone()
    dist.all_reduce(t)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    dist.all_reduce(t, dist.ReduceOp.MIN)
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
    dist.all_reduce(u, dist.ReduceOp.SUM, async_op=False)
    dist.reduce(u, 0, op=dist.ReduceOp.SUM)
    parts = [torch.zeros_like(u) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, u)
    dist.broadcast(t, src=0)
    objs = [None] * dist.get_world_size()
    dist.all_gather_object(objs, {"rank": dist.get_rank()})
    sent = [3, "x"]
    dist.broadcast_object_list(sent, src=0)
    whole = torch.zeros(dist.get_world_size() * v.shape[0], *v.shape[1:])
    dist.all_gather_into_tensor(whole, u)
    part = torch.zeros_like(v)
    dist.reduce_scatter_tensor(part, whole)
    group = dist.new_group([0])
    dist.all_reduce(u, group=group)
    out = [t, u, *parts, objs[0]["rank"], sent[0], sent[1], whole, part, dist.is_available()]
    dist.destroy_process_group()
    return out
"""
_DIFFERENTIABLE = _GROUP + """
import {module} as dnn


def run(m):
    start()
    x = m * 2
    y = dnn.all_reduce(x)  # its gradient: tests/ms_core/test_distributed.py (two processes)
    dist.destroy_process_group()
    return [y]
"""
COLLECTIVE_USES = [
    ("all_reduce", "ms.mint.distributed.all_reduce(t)"), ("reduce", "ms.mint.distributed.all_reduce(u, op="),
    ("all_gather", "ms.mint.distributed.all_gather(parts, u)"),
    ("broadcast", "ms.mint.distributed.broadcast(t, src=0)"),
    ("all_gather_object", "ms.mint.distributed.all_gather_object(objs"),
    ("broadcast_object_list", "ms.mint.distributed.broadcast_object_list(sent, src=0)"),
    ("all_gather_into_tensor", "ms.mint.distributed.all_gather_into_tensor(whole, u)"),
    ("reduce_scatter_tensor", "ms.mint.distributed.reduce_scatter_tensor(part, whole)"),
    ("new_group", "ms.mint.distributed.new_group([0])"), ("is_available", ", True]"),
    ("ReduceOp.SUM", "ops.ReduceOp.SUM"), ("ReduceOp.MAX", "ops.ReduceOp.MAX"),
    ("ReduceOp.MIN", "ops.ReduceOp.MIN"), ("ReduceOp.PRODUCT", "ops.ReduceOp.PROD")]
# one program (one child process) proves them all
_COLLECTIVES_TEST = "tests/mappings/test_training_table.py::test_collectives_of_one_process"
CASES += [ProvenBy(f"{_DIST}.{name}", _COLLECTIVES_TEST) for name, _ in COLLECTIVE_USES]


def test_collectives_of_one_process():
    """Every collective's conversion leaves the tensors as torch's does in a group of one (the
    values of several ranks: tests/ms_core/test_distributed.py and migrate check-ddp's runs)."""
    run(Program(f"{_DIST}.all_reduce", _COLLECTIVES, inputs=("m", "v"), uses=COLLECTIVE_USES[0][1]))
    from migrate import convert_source
    code = convert_source(_COLLECTIVES).code
    for name, uses in COLLECTIVE_USES:
        assert uses in code, (name, uses, code)


CASES += [Program(f"{_DIST}.{m}.all_reduce", _DIFFERENTIABLE.format(module=f"{_DIST}.{m}"), inputs=("m",),
                  uses="ops.AllReduce()(x)") for m in ("nn.functional", "nn")]
# a spawn statement is rewritten by the training pass (tests/migrate/convert/training); the table
# entry marks a spawn whose result is used
CASES += [Marked(f"torch.multiprocessing.{name}", f"import torch.multiprocessing as mp\n"
                 f"ctx = mp.{name}(print, nprocs=2, join=False)\n", id="MS901")
          for name in ("spawn", "spawn.spawn", "start_processes", "spawn.start_processes")]
# the backend's name is MindSpore's own ('mccl' on CPU where torch says 'gloo'): proven against
# MindSpore's init(None) per device target, not torch's name
_BACKEND_TEST = ("tests/migrate/convert/training/test_training_rules.py"
                 "::test_backend_names_are_mindspores_communication_backend")
# the helper against torch: tests/migrate/runtime/test_distributed.py; converted in a DDP script
CASES += [ProvenBy(name, "tests/migrate/check/test_ddp_run.py"
                         "::test_the_sync_batchnorm_cnn_agrees_rank_by_rank_with_torch_ddp")
          for name in ("torch.nn.SyncBatchNorm.convert_sync_batchnorm",
                       "torch.nn.modules.batchnorm.SyncBatchNorm.convert_sync_batchnorm")]
CASES += [ProvenBy(f"{_DIST}.get_backend", _BACKEND_TEST),
          ProvenBy(f"{_DIST}.get_default_backend_for_device", _BACKEND_TEST)]


def test_a_process_group_proof_never_starts_the_group_in_this_process(monkeypatch):
    """The DDP and process-group proofs run in a child process (proof.starts_process_group):
    torch's gloo threads once blocked the pytest process forever in their teardown."""
    import torch.distributed as dist

    def refuse(*args, **kwargs):
        raise AssertionError("a process group was started in the pytest process")
    monkeypatch.setattr(dist, "init_process_group", refuse)
    ddp = [c for c in DISTRIBUTED if c.api == "torch.nn.parallel.DistributedDataParallel"]
    assert ddp and all(starts_process_group(c) for c in DISTRIBUTED)
    run(ddp[0])
