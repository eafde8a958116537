"""The torch side of `migrate check-ddp` (see :mod:`migrate.check.ddp_hooks`): the original
script under torch DDP, with the weights set, random numbers, dropout masks and sampler
permutations recorded, losses and steps recorded; a CPU stand-in for CUDA-written scripts and
for `nn.SyncBatchNorm`."""
from __future__ import annotations

import os

from migrate.check import trace_hooks


def install_torch(trace) -> None:
    """Every torch-side hook, for the whole process."""
    import torch
    import torch.distributed as dist
    trace.rank_of = lambda: dist.get_rank() if dist.is_available() and dist.is_initialized() \
        else int(os.environ.get("RANK", "0"))
    trace.state_of = lambda: _final_state(trace)
    _weights(trace, torch)
    _losses_and_steps(trace, torch)
    trace_hooks.record_torch_random(trace, torch)
    _dropout(trace)
    _samplers(trace, torch)
    cpu_for_cuda_scripts(int(os.environ.get("MIGRATE_DDP_NPROC", "1")))
    sync_batchnorm_on_cpu()


def _network_of(module):
    """The network a DDP wrapper trains (the wrapper itself otherwise)."""
    return getattr(module, "module", module) if type(module).__name__ == "DistributedDataParallel" else module


def _weights(trace, torch) -> None:
    """At a network's first top-level call, its parameters from the trace's stream."""
    original_call = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        if trace.depth == 0:
            params = list(self.parameters())
            if params and any(id(p) not in trace.done for p in params):
                with torch.no_grad():
                    for p, v in zip(params, trace.values([tuple(p.shape) for p in params])):
                        if id(p) not in trace.done:
                            p.copy_(torch.from_numpy(v))
                            trace.done.add(id(p))
                if trace.network is None:
                    trace.network = _network_of(self)
        trace.depth += 1
        try:
            return original_call(self, *args, **kwargs)
        finally:
            trace.depth -= 1

    torch.nn.Module.__call__ = call


def _final_state(trace) -> dict:
    """The trained network's parameters and buffers, by MindSpore name."""
    if trace.network is None:
        return {}
    from migrate.check.weights import state_dict_to_ms
    state = {k: v.detach().cpu().numpy() for k, v in trace.network.state_dict().items()}
    out, _ = state_dict_to_ms(state, torch_module=trace.network)
    return out


def _losses_and_steps(trace, torch) -> None:
    original_backward = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        if self.numel() == 1:
            trace.record_loss(self.detach().double().cpu().numpy())
        return original_backward(self, *args, **kwargs)

    torch.Tensor.backward = backward

    def after_step(optimizer, args, kwargs):
        trace.record_step([p.detach().double().cpu().numpy() for g in optimizer.param_groups
                           for p in g["params"]])

    from torch.optim.optimizer import register_optimizer_step_post_hook
    register_optimizer_step_post_hook(after_step)


def _dropout(trace) -> None:
    """Record the keep-mask of every training-mode dropout (torch's own draw, on ones)."""
    import torch
    import torch.nn.functional as F

    from migrate.check.randomness import explicit_attention_dropout

    def recorder(fn):
        def wrapped(input, p=0.5, training=True, inplace=False):
            if not training or p == 0.0:
                return fn(input, p, training, inplace)
            scale = fn(torch.ones_like(input), p, True, False)
            trace.masks.append((scale != 0).cpu().numpy())
            return input.mul_(scale) if inplace else input * scale
        return wrapped

    for name in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
        setattr(F, name, recorder(getattr(F, name)))
    explicit_attention_dropout().__enter__()  # for the whole run


def _samplers(trace, torch) -> None:
    """DistributedSampler: record each epoch's permutation (computed as torch does, from its
    own generator, so nothing else is drawn); RandomSampler: read in order."""
    import torch.utils.data.sampler as samplers
    from torch.utils.data import distributed
    original_iter = distributed.DistributedSampler.__iter__

    def dist_iter(self):
        n = len(self.dataset)
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            trace.perms.append(torch.randperm(n, generator=g).numpy())
        return original_iter(self)

    distributed.DistributedSampler.__iter__ = dist_iter
    samplers.RandomSampler.__iter__ = lambda self: iter(range(len(self.data_source)))


def cpu_for_cuda_scripts(nproc: int) -> None:
    """Run a script written for N GPUs on the CPU: `nccl` -> `gloo`, CUDA devices and device
    indices -> the CPU, `set_device` and pinning do nothing, the device count is N, and DDP's
    `device_ids`/`output_device` are dropped."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    cpu = torch.device("cpu")

    def on_cpu(device):
        return isinstance(device, int) and not isinstance(device, bool) or \
            isinstance(device, (str, torch.device)) and str(device).split(":")[0] in ("cuda", "xpu", "hpu")

    def wrap_to(original):
        def to(self, *args, **kwargs):
            if args and on_cpu(args[0]):
                args = (cpu, *args[1:])
            if on_cpu(kwargs.get("device")):
                kwargs["device"] = cpu
            return original(self, *args, **kwargs)
        return to

    torch.Tensor.to = wrap_to(torch.Tensor.to)
    torch.nn.Module.to = wrap_to(torch.nn.Module.to)
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.Tensor.pin_memory = lambda self, *a, **k: self  # DataLoader(pin_memory=True)
    torch.nn.Module.cuda = lambda self, *a, **k: self
    torch.cuda.set_device = lambda device: None
    torch.cuda.device_count = lambda: nproc
    if hasattr(torch, "accelerator"):
        torch.accelerator.is_available = lambda: True
        torch.accelerator.device_count = lambda: nproc
        torch.accelerator.current_accelerator = lambda check_available=False: cpu
        torch.accelerator.set_device_index = lambda device: None
    original_init = dist.init_process_group

    def init_process_group(backend=None, *args, **kwargs):
        if backend in ("nccl", "cuda:nccl", "hccl", "xccl"):
            backend = "gloo"
        return original_init(backend, *args, **kwargs)

    dist.init_process_group = init_process_group
    original_ddp = DistributedDataParallel.__init__

    def ddp_init(self, module, device_ids=None, output_device=None, *args, **kwargs):
        return original_ddp(self, module, None, None, *args, **kwargs)

    DistributedDataParallel.__init__ = ddp_init


def sync_batchnorm_on_cpu() -> None:
    """`nn.SyncBatchNorm` in training on the CPU, over the default group: the global batch's
    per-channel mean, then its variance, by differentiable all-reduces of sums (torch's own
    kernel runs only on accelerators); the running statistics with the unbiased global variance."""
    import torch
    import torch.nn.functional as F
    original = torch.nn.SyncBatchNorm.forward

    def forward(self, input):
        import torch.distributed as dist
        if input.device.type != "cpu" or not (self.training and dist.is_initialized()) \
                or dist.get_world_size(self.process_group) == 1:
            return original(self, input)
        if self.momentum is None:
            raise NotImplementedError("the CPU SyncBatchNorm of migrate check-ddp needs a momentum")
        return _sync_bn(self, input, F)

    torch.nn.SyncBatchNorm.forward = forward
    # DDP refuses SyncBatchNorm on the CPU: the forward above is what makes it work there
    from torch.nn.parallel import DistributedDataParallel
    DistributedDataParallel._passing_sync_batchnorm_handle = lambda self, module: None


def _sync_bn(bn, x, F):
    import torch
    from torch.distributed.nn.functional import all_reduce
    group = bn.process_group or torch.distributed.group.WORLD
    axes = [0] + list(range(2, x.dim()))
    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
    count = torch.tensor([x.numel() // x.shape[1]], dtype=torch.float64)
    torch.distributed.all_reduce(count, group=group)
    n = float(count.item())
    mean = all_reduce(x.sum(axes), group=group) / n
    xc = x - mean.reshape(shape)
    var = all_reduce((xc * xc).sum(axes), group=group) / n
    y = xc * torch.rsqrt(var + bn.eps).reshape(shape)
    if bn.affine:
        y = y * bn.weight.reshape(shape) + bn.bias.reshape(shape)
    if bn.track_running_stats:
        with torch.no_grad():
            bn.num_batches_tracked.add_(1)
            m = bn.momentum
            bn.running_mean.mul_(1 - m).add_(mean.detach(), alpha=m)
            bn.running_var.mul_(1 - m).add_(var.detach() * (n / (n - 1)), alpha=m)
    return y
