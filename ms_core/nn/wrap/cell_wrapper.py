"""`WithLossCell`, `WithEvalCell`, `WithGradCell`, `TrainOneStepCell`: the training wrappers that
replace torch's hand-written `loss.backward(); optimizer.step()` loop."""
import numbers

import numpy as np

from ..cell import Cell, check_cell
from ..optim.optimizer import Optimizer
from ... import _api, _engine, context
from ..._prims.comm import check_comm_dtype
from ...common.tensor import Tensor
from ...communication.management import GlobalComm, comm_group, device_num, get_group_size
from ...ops.comm_ops import AllReduce

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "TrainOneStepCell", "ForwardValueAndGrad",
           "DistributedGradReducer"]


class WithLossCell(Cell):
    """loss_fn(backbone(data), label): a network with its loss, as one Cell.

    Parameter names are not prefixed (auto_prefix=False): the backbone's `fc.weight` stays
    `fc.weight`, so checkpoints of the wrapped and bare network match.

    Example:
        >>> net_with_loss = nn.WithLossCell(net, nn.MSELoss())
        >>> loss = net_with_loss(x, y)
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = check_cell("WithLossCell", "backbone", backbone)
        if not callable(loss_fn):
            raise TypeError(f"For 'WithLossCell', the 'loss_fn' must be a Cell or a function, but "
                            f"got {type(loss_fn).__name__}.")
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """(loss, outputs, label) for evaluation; `add_cast_fp32` casts outputs and label to float32."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = check_cell("WithEvalCell", "network", network)
        self._loss_fn = loss_fn
        self.add_cast_fp32 = bool(add_cast_fp32)

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            outputs = outputs.astype(np.float32)
            label = label.astype(np.float32)
        return self._loss_fn(outputs, label), outputs, label


def _scaled(fn, sens, holder):
    """fn(*inputs) * sens, keeping fn's own output in `holder`: differentiating the product from
    a ones cotangent starts backward from exactly `sens`, with a single forward pass."""
    def wrapped(*inputs):
        out = fn(*inputs)
        if not isinstance(out, Tensor):
            raise TypeError(f"For 'TrainOneStepCell', the network must return the loss as one "
                            f"Tensor, but got {type(out).__name__}. Wrap it with nn.WithLossCell.")
        holder.append(out)
        s = sens._data.astype(out._data.dtype) if isinstance(sens, Tensor) else sens
        return out * Tensor._wrap(np.broadcast_to(np.asarray(s, out._data.dtype), out.shape).copy())
    return wrapped


def _loss_and_grads(network, inputs, weights, sens, name):
    holder = []
    _, _, _, grads = _api._value_and_grads(_scaled(network, sens, holder), inputs, (), weights, False,
                                           None, name)
    loss = holder[0]
    return Tensor._wrap(loss._data), tuple(grads)


class WithGradCell(Cell):
    """The gradients of `network` (with `loss_fn` when given) w.r.t. its trainable parameters."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network = check_cell("WithGradCell", "network", network)
        self.loss_fn = loss_fn
        self.sens = 1.0 if sens is None else sens
        self.weights = tuple(network.trainable_params())
        self.network_with_loss = WithLossCell(network, loss_fn) if loss_fn is not None else network

    def construct(self, *inputs):
        _, grads = _loss_and_grads(self.network_with_loss, inputs, self.weights, self.sens,
                                   "WithGradCell")
        return grads


def _identity(grads):
    return grads


class TrainOneStepCell(Cell):
    """One training step: loss = network(*inputs); gradients of the loss w.r.t. the optimizer's
    parameters with sensitivity `sens`; optimizer(gradients); returns the loss.

    torch equivalent: `loss = net_with_loss(x, y); opt.zero_grad(); (loss * sens).backward();
    opt.step()`. The network runs forward once; set training mode yourself
    (`train_net.set_train()`), as in MindSpore.

    Args:
        network: a Cell returning the loss (typically `nn.WithLossCell`).
        optimizer: an `nn.Optimizer` over the network's parameters.
        sens: the scaling of the loss gradient (float; None means 1.0).
        return_grad: if True, a call returns (loss, gradients) (MindSpore ≥ 2.3).

    Example:
        >>> train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
        >>> loss = train_net(x, y)
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        # experimental.optim loads on first use, not with `import ms_core` (it costs ~16 ms CPU)
        from ...experimental.optim.optimizer import Optimizer as ExperimentalOptimizer
        self.network = check_cell("TrainOneStepCell", "network", network)
        if not isinstance(optimizer, (Optimizer, ExperimentalOptimizer)):  # MindSpore takes both
            raise TypeError(f"For 'TrainOneStepCell', the 'optimizer' must be an nn.Optimizer or an "
                            f"experimental.optim.Optimizer, but got {type(optimizer).__name__}.")
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        sens = 1.0 if sens is None else sens
        if isinstance(sens, bool) or not isinstance(sens, (numbers.Real, Tensor)):
            raise TypeError(f"For 'TrainOneStepCell', the 'sens' must be a float, but got "
                            f"{type(sens).__name__}.")
        self.sens = sens
        if not isinstance(return_grad, bool):
            raise TypeError(f"For 'TrainOneStepCell', the 'return_grad' must be bool, but got "
                            f"{type(return_grad).__name__}.")
        self.return_grad = return_grad
        self.reducer_flag = context.get_auto_parallel_context("parallel_mode") in (
            "data_parallel", "hybrid_parallel")
        self.grad_reducer = _identity
        if self.reducer_flag:  # as MindSpore: a reducer over the world group in data parallel
            self.grad_reducer = DistributedGradReducer(self.weights, context.get_auto_parallel_context(
                "gradients_mean"), device_num())

    def construct(self, *inputs):
        loss, grads = _loss_and_grads(self.network, inputs, self.weights, self.sens,
                                      "TrainOneStepCell")
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, grads
        return loss


class ForwardValueAndGrad(Cell):
    """(network(*inputs), gradients) in one call: GradOperation's gradient choice with the
    forward value returned too (one forward pass).

    Args:
        network: the Cell to differentiate.
        weights: the Parameters for `get_by_list` (a ParameterTuple or list).
        get_all: gradients w.r.t. every Tensor input.
        get_by_list: gradients w.r.t. `weights` (both flags: `(input_grads, weight_grads)`).
        sens_param: the last input is the sensitivity (the cotangent of the output).

    With neither flag the gradient is w.r.t. the first input, as `GradOperation()` gives.

    Example:
        >>> fvg = nn.ForwardValueAndGrad(net_with_loss, weights=opt.parameters, get_by_list=True)
        >>> loss, grads = fvg(x, y)
    """

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        self.network = check_cell("ForwardValueAndGrad", "network", network)
        for name, value in (("get_all", get_all), ("get_by_list", get_by_list),
                            ("sens_param", sens_param)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'ForwardValueAndGrad', the '{name}' must be bool, but got "
                                f"{type(value).__name__}.")
        if get_by_list and weights is None:
            raise TypeError("For 'ForwardValueAndGrad', when 'get_by_list' is True, the 'weights' "
                            "must be given (e.g. net.trainable_params()).")
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self.weights = tuple(weights) if get_by_list else ()

    def construct(self, *inputs):
        sens = None
        if self.sens_param:
            if not inputs:
                raise TypeError("For 'ForwardValueAndGrad' with sens_param=True, the last input "
                                "must be the sensitivity, but no input was given.")
            inputs, sens = inputs[:-1], inputs[-1]
        if self.get_all:
            positions = tuple(i for i, a in enumerate(inputs) if isinstance(a, Tensor))
        elif self.get_by_list:
            positions = ()
        else:
            positions = (0,)
        out, _, g_in, g_w = _api._value_and_grads(self.network, inputs, positions, self.weights,
                                                  False, sens, "ForwardValueAndGrad")
        if self.get_all and self.get_by_list:
            grads = (tuple(g_in), tuple(g_w))
        elif self.get_by_list:
            grads = tuple(g_w)
        elif self.get_all:
            grads = tuple(g_in)
        else:
            grads = g_in[0]
        return out, grads


class DistributedGradReducer(Cell):
    """Sums each gradient over the data-parallel group and, with `mean`, divides by `degree`
    (MindSpore multiplies the sum by 1/degree, as here), so every rank updates with the same
    averaged gradients. In a group of one the gradients come back unchanged.

    Args:
        parameters: the Parameters the gradients belong to (their order is the gradients').
        mean (bool): average the sums; None takes the context's `gradients_mean`.
        degree (int): the divisor of the mean; None takes the group size.
        fusion_type (int): accepted for MindSpore's signature (all gradients of one dtype go
            in one fused all-reduce here, as MindSpore's fusion does).
        group (str): the communication group.

    Raises:
        ValueError: degree is not a positive int.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        self.mean = context.get_auto_parallel_context("gradients_mean") if mean is None else mean
        if degree is None:
            degree = get_group_size(group)
        elif isinstance(degree, bool) or not isinstance(degree, int) or degree <= 0:
            raise ValueError(f"For 'DistributedGradReducer', parameter 'degree' in "
                             f"DistributedGradReducer should large than 0 and be int, degree: {degree}.")
        self.degree, self.group = degree, group
        self.parameters = list(parameters)

    def construct(self, grads):
        single = isinstance(grads, Tensor)
        grads = (grads,) if single else tuple(grads)
        if _engine.recording():  # differentiated again: the collective primitive, recorded
            out = tuple(self._reduce_recorded(g) for g in grads)
        else:
            out = _fused_all_reduce(grads, self.group, 1.0 / self.degree if self.mean else None)
        return out[0] if single else out

    def _reduce_recorded(self, g):
        g = AllReduce("sum", self.group)(g)
        return g * Tensor(1.0 / self.degree, g.dtype) if self.mean else g


def _fused_all_reduce(grads, group, scale):
    """Each gradient summed over `group` (and scaled), with one collective per dtype: the
    gradients are packed into one flat buffer (float16 in float32, as MindSpore casts them), the
    buffer is reduced in place, and the results are views of it."""
    g = comm_group("DistributedGradReducer", group)
    out = [None] * len(grads)
    by_dtype = {}
    for i, grad in enumerate(grads):
        check_comm_dtype("DistributedGradReducer", grad._data)
        wide = np.float32 if grad._data.dtype == np.float16 else grad._data.dtype
        by_dtype.setdefault(np.dtype(wide), []).append(i)
    for dtype, idx in by_dtype.items():
        flat = np.concatenate([grads[i]._data.astype(dtype, copy=False).ravel() for i in idx])
        g.all_reduce_(flat, "sum")
        if scale is not None:
            flat *= dtype.type(scale)
        start = 0
        for i in idx:
            n = grads[i]._data.size
            out[i] = Tensor._wrap(flat[start:start + n].reshape(grads[i].shape)
                                  .astype(grads[i]._data.dtype, copy=False))
            start += n
    return tuple(out)
