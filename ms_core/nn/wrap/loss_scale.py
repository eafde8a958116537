"""Loss scaling for training: `TrainOneStepWithLossScaleCell` and the scale update cells."""
import numpy as np

from ..cell import Cell
from ..._checkparam import check_number, check_positive_int
from .cell_wrapper import TrainOneStepCell, _loss_and_grads
from ...common.parameter import Parameter
from ...common.tensor import Tensor

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]


class DynamicLossScaleUpdateCell(Cell):
    """Dynamic loss scale: on overflow, scale = max(scale / scale_factor, 1); after `scale_window`
    steps since the last overflow or increase, scale *= scale_factor (MindSpore's counters:
    `cur_iter` starts at 1, `last_overflow_iter` at 0).

    Called as `cell(loss_scale_parameter, overflow)`: updates the Parameter in place and returns
    `overflow`. torch's `GradScaler` (growth_factor=2, backoff_factor=0.5, growth_interval=2000)
    is the counterpart with scale_factor=2, scale_window=2000, except that torch has no floor of 1.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        name = "DynamicLossScaleUpdateCell"
        self.loss_scale_value = check_number(name, "loss_scale_value", loss_scale_value, 0.0,
                                             inc="(]")
        self.scale_factor = check_number(name, "scale_factor", scale_factor, 1.0, inc="(]")
        self.scale_window = check_positive_int(name, "scale_window", scale_window)
        self.cur_iter = Parameter(Tensor._wrap(np.ones((1,), np.int32)), name="current_iterator_step",
                                  requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor._wrap(np.zeros((1,), np.int32)),
                                            name="last_overflow_iterator_step", requires_grad=False)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        overflow = bool(np.asarray(overflow._data if isinstance(overflow, Tensor) else overflow).all())
        scale = loss_scale._data
        cur, last = int(self.cur_iter._data[0]), int(self.last_overflow_iter._data[0])
        on_overflow = np.maximum(scale / scale.dtype.type(self.scale_factor), scale.dtype.type(1)) \
            if overflow else scale
        should_inc = cur - last >= self.scale_window
        if overflow or should_inc:
            self.last_overflow_iter._data = np.array([cur], np.int32)
        new = on_overflow * scale.dtype.type(self.scale_factor) if should_inc and not overflow \
            else on_overflow
        loss_scale._data = np.asarray(new, scale.dtype).reshape(scale.shape)
        self.cur_iter._data = np.array([cur + 1], np.int32)
        return Tensor._wrap(np.asarray(overflow))


class FixedLossScaleUpdateCell(Cell):
    """Fixed loss scale: the scale never changes; overflowed steps are still skipped."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = check_number("FixedLossScaleUpdateCell", "loss_scale_value",
                                             loss_scale_value, 0.0, inc="(]")

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow if isinstance(overflow, Tensor) else Tensor._wrap(np.asarray(bool(overflow)))


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling: backward from `scale` (instead of 1), gradients divided by
    `scale`, the update skipped when any gradient is inf/NaN, the scale updated by the manager.

    Args:
        network: a Cell returning the loss.
        optimizer: an `nn.Optimizer`.
        scale_sense: a Tensor of shape () or (1,) (a fixed scale; overflowed steps are skipped), or
            a `DynamicLossScaleUpdateCell` / `FixedLossScaleUpdateCell`.

    Returns (from a call):
        (loss, overflow, scale): the unscaled loss, a bool Tensor (True when the gradients
        overflowed and the update was skipped), and the scale used for this step.

    torch equivalent: `GradScaler.scale(loss).backward(); scaler.step(opt); scaler.update()`.

    The overflow check is "any gradient not finite" after unscaling (MindSpore's GPU path; its
    Ascend path reads the NPU status registers, and MindSpore 2.10's CPU build cannot run this
    cell at all). The returned scale is the one used for this step, before the manager's update.

    Example:
        >>> manager = nn.DynamicLossScaleUpdateCell(2**12, 2, 1000)
        >>> step = nn.TrainOneStepWithLossScaleCell(net_with_loss, opt, manager)
        >>> loss, overflow, scale = step(x, y)
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            if not hasattr(scale_sense, "get_loss_scale"):
                raise TypeError("For 'TrainOneStepWithLossScaleCell', a Cell 'scale_sense' must be "
                                "a DynamicLossScaleUpdateCell or FixedLossScaleUpdateCell.")
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor._wrap(np.asarray(scale_sense.get_loss_scale(),
                                                                 np.float32)),
                                         name="scale_sense", requires_grad=False)
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(f"For 'TrainOneStepWithLossScaleCell', the shape of 'scale_sense' "
                                 f"must be (1,) or (), but got {scale_sense.shape}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense", requires_grad=False)
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be a "
                            f"Cell or a Tensor, but got {type(scale_sense).__name__}.")

    def set_sense_scale(self, sens):
        """Replace the current scale (a Tensor of the same shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"For 'set_sense_scale', the 'sens' must be a Tensor, but got "
                            f"{type(sens).__name__}.")
        self.scale_sense.set_data(sens)

    def get_overflow_status(self, grads):
        """True (bool Tensor) when any gradient has an inf or NaN."""
        bad = any(not np.isfinite(g._data).all() for g in grads)
        return Tensor._wrap(np.asarray(bad))

    def process_loss_scale(self, overflow):
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

    def construct(self, *inputs):
        scale = Tensor._wrap(self.scale_sense._data.copy())
        # inf/NaN from a too-large scale is the expected signal here, not a warning
        with np.errstate(over="ignore", invalid="ignore"):
            loss, grads = _loss_and_grads(self.network, inputs, self.weights,
                                          Tensor._wrap(scale._data.reshape(())),
                                          "TrainOneStepWithLossScaleCell")
            grads = tuple(Tensor._wrap(g._data / g._data.dtype.type(scale._data.reshape(())))
                          for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(grads)
        overflow = self.process_loss_scale(cond)
        if not bool(np.asarray(overflow._data).all()):
            self.optimizer(grads)
        return loss, cond, scale
