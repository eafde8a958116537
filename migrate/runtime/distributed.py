"""torch.distributed's data-parallel semantics that MindSpore has no call for, over the target's
communication group (a group of one without a launcher: then each is the identity).

- ``torch_distributed_data_parallel(module)``: what ``DistributedDataParallel(module)`` does
  besides averaging gradients (the converted step's ``nn.DistributedGradReducer`` does that):
  rank 0's parameters and buffers copied to every rank at once, and rank 0's buffers (BatchNorm's
  moving statistics) before every forward, so every rank normalises with the statistics DDP
  gives it;
- ``TorchSyncBatchNormAllReduce``: torch's ``nn.SyncBatchNorm`` (statistics of the whole batch across
  the group) built from ``ops.AllReduce``, which MindSpore runs on every device (its own
  ``nn.SyncBatchNorm`` is Ascend-only);
- ``torch_convert_sync_batchnorm(module)``: ``nn.SyncBatchNorm.convert_sync_batchnorm``.

The collectives are ``mint.distributed``'s in place and statistics are written with
``ops.assign`` (a Parameter keeps its identity: on MindSpore, ``set_data`` inside a
differentiated forward loses the update BatchNorm makes to it) and ``ops.AllReduce``
(differentiable).
"""
from .backend import ms, nn, ops

__all__ = ["TorchSyncBatchNormAllReduce", "torch_convert_sync_batchnorm", "torch_distributed_data_parallel"]


def _group_size() -> int:
    return ms.communication.get_group_size()


def _buffers(module) -> list:
    """The parameters no optimizer trains (BatchNorm's moving statistics): torch's buffers."""
    return [p for p in module.get_parameters() if not p.requires_grad]


def _broadcast_from_rank0(params) -> None:
    for p in params:
        ms.mint.distributed.broadcast(p, src=0)


def torch_distributed_data_parallel(module, broadcast_buffers=True):
    """torch's ``DistributedDataParallel(module, broadcast_buffers=...)`` as far as it concerns
    the network: rank 0's parameters and buffers are copied to every rank now, and with
    `broadcast_buffers` rank 0's buffers before every forward (DDP's default). Returns `module`
    itself (MindSpore wraps nothing: `ddp.module` is the network)."""
    if _group_size() == 1:
        return module
    _broadcast_from_rank0(list(module.get_parameters()))
    buffers = _buffers(module)
    if broadcast_buffers and buffers:
        module.register_forward_pre_hook(lambda cell, inputs: _broadcast_from_rank0(buffers))
    return module


class TorchSyncBatchNormAllReduce(nn.Cell):
    """torch's ``nn.SyncBatchNorm(num_features, eps, momentum, affine, track_running_stats)``: in
    training, the mean and variance of the whole batch across the group (two all-reduces of
    per-channel sums, differentiable, so each rank's input gradient is that of every rank's
    loss); the running statistics follow the global batch, the variance unbiased. In inference,
    or in a group of one, BatchNorm. Parameter names are MindSpore's BatchNorm ones (gamma, beta,
    moving_mean, moving_variance).

    Raises:
        ValueError: momentum=None (torch's cumulative average) or an input of fewer than 2 dims.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__()
        if momentum is None:
            raise ValueError("For 'SyncBatchNorm', momentum=None (a cumulative moving average) has "
                             "no counterpart here: give a momentum.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.group = ms.communication.GlobalComm.WORLD_COMM_GROUP if process_group is None else process_group
        c = (num_features,)
        self.gamma = ms.Parameter(ops.ones(c, ms.float32), name="gamma", requires_grad=affine)
        self.beta = ms.Parameter(ops.zeros(c, ms.float32), name="beta", requires_grad=affine)
        self.moving_mean = ms.Parameter(ops.zeros(c, ms.float32), name="moving_mean", requires_grad=False)
        self.moving_variance = ms.Parameter(ops.ones(c, ms.float32), name="moving_variance", requires_grad=False)

    def construct(self, x):
        if x.ndim < 2:
            raise ValueError(f"For 'SyncBatchNorm', the input must have at least 2 dims (N, C, ...), "
                             f"but got shape {tuple(x.shape)}.")
        shape = (1, self.num_features) + (1,) * (x.ndim - 2)
        if self.training or not self.track_running_stats:
            mean, var = self._batch_statistics(x)
        else:
            mean, var = self.moving_mean, self.moving_variance
        y = (x - mean.reshape(shape)) * ops.rsqrt(var.reshape(shape) + self.eps)
        return y * self.gamma.reshape(shape) + self.beta.reshape(shape)

    def _batch_statistics(self, x):
        axes = tuple(i for i in range(x.ndim) if i != 1)
        local = x.size // x.shape[1]
        synced = _group_size() > 1
        total = ops.AllReduce(group=self.group) if synced else (lambda t: t)
        n = float(total(ms.Tensor([local], ms.float32)).asnumpy()[0]) if synced else float(local)
        if n < 2:
            raise ValueError(f"For 'SyncBatchNorm', expected more than 1 value per channel when "
                             f"training, but got {int(n)}.")
        mean = total(x.sum(axes)) / n
        xc = x - mean.reshape((1, -1) + (1,) * (x.ndim - 2))
        var = total((xc * xc).sum(axes)) / n
        if self.training and self.track_running_stats:
            m = self.momentum
            ops.assign(self.moving_mean, (1 - m) * self.moving_mean + m * ops.stop_gradient(mean))
            ops.assign(self.moving_variance, (1 - m) * self.moving_variance
                       + m * ops.stop_gradient(var) * (n / (n - 1)))
        return mean, var


def torch_convert_sync_batchnorm(module, process_group=None):
    """torch's ``nn.SyncBatchNorm.convert_sync_batchnorm(module)``: every BatchNorm1d/2d/3d child
    (at any depth) replaced by a TorchSyncBatchNormAllReduce holding its parameters and statistics; a
    BatchNorm passed itself comes back converted. Returns the module."""
    if _is_batchnorm(module):
        return _synced(module, process_group)
    for name, child in list(module.name_cells().items()):
        converted = torch_convert_sync_batchnorm(child, process_group)
        if converted is child:
            continue
        if name.isdigit() and hasattr(module, "__setitem__"):  # SequentialCell / CellList
            module[int(name)] = converted
        else:
            setattr(module, name, converted)
    return module


def _is_batchnorm(cell) -> bool:
    return type(cell).__name__ in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d") and hasattr(cell, "moving_mean")


def _synced(bn, process_group):
    """A TorchSyncBatchNormAllReduce with `bn`'s settings, parameters and statistics."""
    sync = TorchSyncBatchNormAllReduce(bn.num_features, bn.eps, float(bn.momentum), affine=bn.gamma.requires_grad,
                              process_group=process_group)
    for name in ("gamma", "beta", "moving_mean", "moving_variance"):
        getattr(sync, name).set_data(ms.Tensor(getattr(bn, name).asnumpy()))
    sync.set_train(bn.training)
    return sync
