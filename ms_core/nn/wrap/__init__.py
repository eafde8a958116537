"""Training wrappers (`nn.WithLossCell`, `nn.TrainOneStepCell`, loss scaling)."""
from .cell_wrapper import (WithLossCell, WithEvalCell, WithGradCell, TrainOneStepCell,
                           ForwardValueAndGrad, DistributedGradReducer)
from .loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,
                         TrainOneStepWithLossScaleCell)

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "TrainOneStepCell", "ForwardValueAndGrad",
           "DistributedGradReducer",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]
