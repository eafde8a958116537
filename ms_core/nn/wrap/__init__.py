"""Training wrappers (`nn.WithLossCell`, `nn.TrainOneStepCell`, loss scaling)."""
from .cell_wrapper import WithLossCell, WithEvalCell, WithGradCell, TrainOneStepCell
from .loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,
                         TrainOneStepWithLossScaleCell)

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "TrainOneStepCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]
