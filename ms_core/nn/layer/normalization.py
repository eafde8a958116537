"""BatchNorm1d/2d/3d, LayerNorm, GroupNorm, InstanceNorm1d/2d/3d, LRN with MindSpore 2.x
semantics."""
import numpy as np

from ..cell import Cell
from ..._checkparam import (check_float_tensor, check_number_range, check_positive_int,
                           check_tensor)
from ... import context
from ..._engine import apply
from ..._prims.nn import Normalize
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...communication import management as comm
from ...communication.management import comm_group
from ...ops import functional as F
from ...ops import layer_ops as LO
from ...ops import nn_ops as NF
from ...ops.comm_ops import AllReduce

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm", "GroupNorm",
           "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LRN"]


def _param(cls_name, init, shape, dtype, name, requires_grad=True):
    if isinstance(init, Tensor) and tuple(init.shape) != tuple(shape):
        raise ValueError(f"For '{cls_name}', the shape of '{name}' init must be {list(shape)}, "
                         f"but got {list(init.shape)}.")
    return Parameter(initializer(init, shape, dtype).init_data(), name=name,
                     requires_grad=requires_grad)


class _BatchNorm(Cell):
    """Batch normalisation over axis 1 (channels) with MindSpore's conventions.

    y = (x - mean) / sqrt(var + eps) * gamma + beta.

    * Parameters `gamma`, `beta` (trainable unless affine=False) and `moving_mean`,
      `moving_variance` (requires_grad=False) — torch's weight / bias / running_mean /
      running_var; there is no `num_batches_tracked`.
    * the `momentum` argument is the weight of the OLD value: moving = momentum * moving +
      (1 - momentum) * batch (default 0.9). torch's momentum m_t is the weight of the new value:
      m_ms = 1 - m_t. As in MindSpore, the attribute `self.momentum` then holds 1 - momentum.
    * The moving variance is updated with the unbiased batch variance; the output is normalised
      with the biased one (both as torch).
    * `use_batch_statistics`: None follows `training` (Cells start in inference mode: call
      `set_train()`); True always uses batch statistics and updates the moving ones; False always
      uses the moving statistics.
    """

    _ndims = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.num_features = check_positive_int(name, "num_features", num_features)
        self.eps = check_number_range(name, "eps", eps, 0, 1, "(]", phrase="a number in range")
        # MindSpore keeps the operator's convention in the attribute: `self.momentum` is the
        # weight of the NEW statistics (0.1 for the default 0.9), as its repr shows
        self._keep_old = check_number_range(name, "momentum", momentum, 0, 1,
                                            phrase="a number in range")
        self.momentum = 1.0 - self._keep_old
        if not isinstance(affine, bool):
            raise TypeError(f"For '{name}', the 'affine' must be bool, but got "
                            f"{type(affine).__name__}.")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"For '{name}', the 'use_batch_statistics' must be a boolean value "
                             f"or None, but got {use_batch_statistics}.")
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For '{name}', the 'data_format' must be one of ['NCHW', 'NHWC'], "
                             f"but got {data_format!r}.")
        if data_format == "NHWC":
            raise ValueError(f"For '{name}', the 'NHWC' format only support in GPU target, but got "
                             f"device target {context.get_context('device_target')}.")
        self.affine = affine
        self.use_batch_statistics = use_batch_statistics
        self.format = data_format
        c = (num_features,)
        self.moving_mean = _param(name, moving_mean_init, c, dtype, "moving_mean", False)
        self.moving_variance = _param(name, moving_var_init, c, dtype, "moving_variance", False)
        self.gamma = _param(name, gamma_init, c, dtype, "gamma", affine)
        self.beta = _param(name, beta_init, c, dtype, "beta", affine)

    def _check_input(self, x):
        name = type(self).__name__
        check_float_tensor(name, None, x, self._ndims)
        if x.shape[1] != self.num_features:
            raise ValueError(f"For '{name}', the input's channel dimension (axis 1) must equal "
                             f"num_features={self.num_features}, but got shape {list(x.shape)}.")

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        return NF._batch_norm(type(self).__name__, x, self.moving_mean, self.moving_variance,
                              self.gamma, self.beta, use_batch, use_batch, self._keep_old,
                              self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}, moving_mean={self.moving_mean!r}, "
                f"moving_variance={self.moving_variance!r}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of an (N, C) or (N, C, L) input; see `_BatchNorm` for the
    MindSpore-vs-torch differences (momentum = 1 - torch momentum, parameter names)."""

    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of an (N, C, H, W) input; see `_BatchNorm` for the
    MindSpore-vs-torch differences (momentum = 1 - torch momentum, parameter names, inference
    mode by default)."""

    _ndims = (4,)


class BatchNorm3d(Cell):
    """Batch normalisation of an (N, C, D, H, W) input, built as MindSpore 2.10 builds it: a
    BatchNorm2d child named `bn2d` run on the input reshaped to (N, C, D*H, W), so the
    parameters are `bn2d.gamma`, `bn2d.beta`, `bn2d.moving_mean`, `bn2d.moving_variance` (the
    names MindSpore's checkpoints use). See `_BatchNorm` for the arguments."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                "NCHW", dtype)

    def construct(self, x):
        check_float_tensor("BatchNorm3d", None, x, (5,), "(N, C, D, H, W)")
        n, c, d, h, w = x.shape
        out = self.bn2d(F.reshape(x, (n, c, d * h, w)))
        return F.reshape(out, x.shape)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose training statistics are those of the whole batch across the
    processes of a group: the per-channel sums, then the sums of squared deviations, are
    all-reduced (differentiable, so each rank's input gradient is that of every rank's loss, as
    torch's SyncBatchNorm computes it), and the moving statistics follow the global batch (the
    moving variance with the unbiased global variance). In a group of one, or in inference, it is
    BatchNorm over (N, C, ...) inputs.

    Args:
        process_groups (list[list[int]]): sync groups of world ranks (this rank's group is used);
            None: the world. Other arguments as `BatchNorm2d`.

    Raises:
        TypeError: process_groups is not a list of lists; ValueError: a rank out of range or
            given twice.
    """

    _ndims = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, "NCHW", dtype)
        if process_groups is not None and not (isinstance(process_groups, list) and all(
                isinstance(g, list) for g in process_groups)):
            raise TypeError(f"For 'SyncBatchNorm', the 'process_groups' must be a list of lists of "
                            f"ranks, but got {process_groups!r}.")
        self.process_groups = process_groups
        self._group = None  # the communication group's name, made at the first synced forward

    def _sync_group(self):
        """The name of the group this rank's statistics are shared in, or None (no one to share with)."""
        if self._group is not None:
            return self._group or None
        self._group = ""
        if self.process_groups is None:
            if comm.get_group_size() > 1:
                self._group = comm.GlobalComm.WORLD_COMM_GROUP
            return self._group or None
        size, rank, seen = comm.get_group_size(), comm.get_rank(), set()
        for rid in (r for g in self.process_groups for r in g):
            if isinstance(rid, bool) or not isinstance(rid, int) or not 0 <= rid < size or rid in seen:
                raise ValueError(f"For 'SyncBatchNorm', the rank ids in 'process_groups' must be "
                                 f"distinct ints in [0, {size}), but got {self.process_groups}.")
            seen.add(rid)
        for ranks in self.process_groups:
            if rank in ranks and len(ranks) > 1:
                self._group = "sync_bn_" + "_".join(str(r) for r in sorted(ranks))
                if self._group not in comm._GROUPS:
                    comm.create_group(self._group, ranks)
        return self._group or None

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        group = self._sync_group() if use_batch else None
        if group is None:
            return super().construct(x)
        return _sync_batch_norm(self, x, group)


def _sync_batch_norm(bn, x, group):
    """SyncBatchNorm's training forward over `group` (see SyncBatchNorm)."""
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    bs = (1, c) + (1,) * (x.ndim - 2)
    count = np.array([x.size // c], np.int64)
    comm_group("SyncBatchNorm", group).all_reduce_(count, "sum")  # ranks' batches may differ
    n = int(count[0])
    if n < 2:
        raise ValueError(f"For 'SyncBatchNorm', expected more than 1 value per channel when "
                         f"training, but got {n} across the group.")
    total = AllReduce("sum", group)
    count = x._data.dtype.type(n)
    mean = total(F._sum(x, axes)) / count
    xc = x - F.reshape(mean, bs)
    var = total(F._sum(xc * xc, axes)) / count
    y = xc * F.reshape(bn.gamma * F.rsqrt(var + bn.eps), bs) + F.reshape(bn.beta, bs)
    keep = bn._keep_old
    NF._update_running(bn.moving_mean, keep * bn.moving_mean._data + (1.0 - keep) * mean._data)
    NF._update_running(bn.moving_variance, keep * bn.moving_variance._data
                       + (1.0 - keep) * var._data * (n / (n - 1)))
    return y


class LayerNorm(Cell):
    """Layer normalisation: statistics over axes begin_norm_axis..end, then gamma / beta of
    shape `normalized_shape` (broadcast from begin_params_axis).

    MindSpore-vs-torch: the default `epsilon` is 1e-7 (torch's eps is 1e-5); parameters are
    `gamma` / `beta` (torch: weight / bias); axes are given by `begin_norm_axis` rather than
    implied by `normalized_shape`.
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] "
                            f"or list[int], but got {normalized_shape} and the type is "
                            f"{type(normalized_shape)}.")
        for arg, v in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNorm', the '{arg}' must be int, but got "
                                f"{type(v).__name__}.")
        if isinstance(epsilon, bool) or not isinstance(epsilon, float):
            raise TypeError(f"For 'LayerNorm', the 'epsilon' must be float, but got "
                            f"{type(epsilon).__name__}.")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon
        self.gamma = _param("LayerNorm", gamma_init, self.normalized_shape, dtype, "gamma")
        self.beta = _param("LayerNorm", beta_init, self.normalized_shape, dtype, "beta")

    def construct(self, input_x):
        check_tensor("LayerNorm", None, input_x)
        nd = input_x.ndim
        for arg, v in (("begin_norm_axis", self.begin_norm_axis),
                       ("begin_params_axis", self.begin_params_axis)):
            # MindSpore 2.10's operator takes [-1, rank) only (checked: -2 on a rank-3 input
            # raises), so a multi-axis normalized_shape needs non-negative axes
            if not -1 <= v < nd:
                raise RuntimeError(f"For primitive[LayerNorm], input_x's rank is {nd}, while the "
                                 f"'{arg}' value should be in the range [-1, {nd}), but got {v}.")
        bna = self.begin_norm_axis % nd
        bpa = self.begin_params_axis % nd
        if tuple(input_x.shape[bpa:]) != self.normalized_shape:
            raise ValueError(f"For 'LayerNorm', the input shape from 'begin_params_axis' {bpa} on "
                             f"must equal 'normalized_shape' {list(self.normalized_shape)}, but "
                             f"got input shape {list(input_x.shape)}.")
        out = apply(Normalize(tuple(range(bna, nd)), self.epsilon), input_x)
        return out * self.gamma + self.beta

    def extend_repr(self):
        return (f"normalized_shape={list(self.normalized_shape)}, "
                f"begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma!r}, "
                f"beta={self.beta!r}")


class GroupNorm(Cell):
    """Group normalisation of (N, C, ...) inputs: per sample, statistics over groups of
    num_channels / num_groups channels; per-channel `gamma` / `beta` (torch: weight / bias).
    Same eps default (1e-5) and semantics as torch's GroupNorm.
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        self.num_groups = check_positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = check_positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divided by "
                             f"'num_groups', but got 'num_channels': {num_channels}, "
                             f"'num_groups': {num_groups}.")
        self.eps = check_number_range("GroupNorm", "eps", eps, 0, 1, "(]",
                                      phrase="a number in range")
        if not isinstance(affine, bool):
            raise TypeError(f"For 'GroupNorm', the 'affine' must be bool, but got "
                            f"{type(affine).__name__}.")
        self.affine = affine
        self.gamma = _param("GroupNorm", gamma_init, (num_channels,), dtype, "gamma", affine)
        self.beta = _param("GroupNorm", beta_init, (num_channels,), dtype, "beta", affine)

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim < 2 or x.shape[1] != self.num_channels:
            shape = list(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"For 'GroupNorm', the input must be a Tensor of shape (N, "
                             f"{self.num_channels}, ...), but got {shape}.")
        return NF.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    """Per-sample, per-channel normalisation over the spatial axes with `gamma` / `beta`.

    Like torch's InstanceNorm with affine=True and no running statistics (MindSpore's
    InstanceNorm2d has affine gamma/beta; running statistics are not tracked here).
    """

    _ndims = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros"):
        super().__init__()
        name = type(self).__name__
        self.num_features = check_positive_int(name, "num_features", num_features)
        self.eps = check_number_range(name, "eps", eps, 0, 1, "(]", phrase="a number in range")
        self.momentum = check_number_range(name, "momentum", momentum, 0, 1,
                                           phrase="a number in range")
        self.affine = affine
        c = (num_features,)
        self.gamma = _param(name, gamma_init, c, mstype.float32, "gamma", affine)
        self.beta = _param(name, beta_init, c, mstype.float32, "beta", affine)

    def construct(self, x):
        name = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim not in self._ndims or x.shape[1] != self.num_features:
            shape = list(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"For '{name}', the input must be a {self._ndims[0]}-D Tensor with "
                             f"{self.num_features} channels, but got {shape}.")
        return NF.instance_norm(x, self.gamma, self.beta, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) inputs."""

    _ndims = (3,)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) inputs."""

    _ndims = (4,)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) inputs."""

    _ndims = (5,)


class LRN(Cell):
    """Local response normalisation across channels, `mindspore.nn.LRN` (TensorFlow's form):
    x / (bias + alpha * sum_{|c' - c| <= depth_radius} x_c'^2) ^ beta.

    MindSpore-vs-torch: torch's LocalResponseNorm(size, alpha, beta, k) divides alpha by the
    window size and centres the window; for an odd size it is LRN(depth_radius=(size - 1) // 2,
    bias=k, alpha=alpha / size, beta=beta).
    """

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
            raise ValueError(f"For 'LRN', the 'depth_radius' must be a non-negative int, but got "
                             f"{depth_radius!r}.")
        for arg, value in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For 'LRN', the '{arg}' must be float, but got "
                                f"{type(value).__name__}.")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', the 'norm_region' must be 'ACROSS_CHANNELS', but got "
                             f"{norm_region!r}.")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return LO.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta,
                      self.norm_region)
