"""The validator: every check's exact message for a bad value, and what a good value returns."""
import math

import numpy as np
import pytest

from ms_core import Tensor, nn
from ms_core import _checkparam as V
from ms_core.nn.cell import check_cell

F32 = Tensor(np.ones((2, 3), np.float32))
I64 = Tensor(np.ones((2, 3), np.int64))


@pytest.mark.parametrize("call,error,message", [
    (lambda: V.check_tensor("dropout", "input", [1.0]), TypeError,
     "For 'dropout', the 'input' must be a Tensor, but got list."),
    (lambda: V.check_tensor("all_reduce", None, 3), TypeError,
     "For 'all_reduce', the input must be a Tensor, but got int."),
    (lambda: V.check_tensor("NLLLoss", "weight", 1.0, allow_none=True), TypeError,
     "For 'NLLLoss', the 'weight' must be a Tensor or None, but got float."),
    (lambda: V.check_float_dtype("mse_loss", "input", I64), TypeError,
     "For 'mse_loss', the dtype of 'input' must be float16, float32 or float64, but got Int64."),
    (lambda: V.check_float_dtype("BatchNorm2d", None, I64), TypeError,
     "For 'BatchNorm2d', the input dtype must be float16, float32 or float64, but got Int64."),
    (lambda: V.check_rank("Conv2d", None, F32, (4,), "(N, C, H, W)"), ValueError,
     "For 'Conv2d', the input must be a 4-D Tensor (N, C, H, W), but got shape [2, 3]."),
    (lambda: V.check_rank("Dropout2d", None, F32, (3, 4)), ValueError,
     "For 'Dropout2d', the input must be a 3-D or 4-D Tensor, but got shape [2, 3]."),
    (lambda: V.check_float_tensor("conv2d", None, I64, (2,)), TypeError,
     "For 'conv2d', the input dtype must be float16, float32 or float64, but got Int64."),
    (lambda: V.check_same_float_dtype("LSTM", ["x", "hx"], [F32, Tensor(np.ones(2))]), TypeError,
     "For 'LSTM', the dtypes of ['x', 'hx'] must be the same, but got ['float32', 'float64']."),
    (lambda: V.check_same_shape("bce", "logits", F32, "labels", Tensor([1.0])), ValueError,
     "For 'bce', the 'labels' shape [1] must equal the 'logits' shape [2, 3]."),
    (lambda: V.check_bool("Dense", "has_bias", 1), TypeError,
     "For 'Dense', the 'has_bias' must be bool, but got int."),
    (lambda: V.check_is_str("init", "backend_name", 3), TypeError,
     "For 'init', the 'backend_name' must be a str, but got int."),
    (lambda: check_cell("WithLossCell", "backbone", "net"), TypeError,
     "For 'WithLossCell', the 'backbone' must be a Cell, but got str."),
    (lambda: V.check_string("mse_loss", "reduction", "avg", ["none", "mean", "sum"]), ValueError,
     "For 'mse_loss', the 'reduction' must be one of ['none', 'mean', 'sum'], but got 'avg'."),
    (lambda: V.check_value_type("LSTM", "has_bias", 1, (bool,)), TypeError,
     "For 'LSTM', the type of 'has_bias' should be 'bool', but got type 'int'."),
    (lambda: V.check_value_type("Dropout", "p", True, (float, int)), TypeError,
     "For 'Dropout', the type of 'p' should be one of '['float', 'int']', but got type 'bool'."),
    (lambda: V.check_int("StepLR", "step_size", 2.5, 1), TypeError,
     "For 'StepLR', the 'step_size' must be int, but got float."),
    (lambda: V.check_int("StepLR", "step_size", 0, 1), ValueError,
     "For 'StepLR', the 'step_size' must be >= 1, but got 0."),
    (lambda: V.check_int("WarmUpLR", "warmup_steps", 0, 0, inc="(]"), ValueError,
     "For 'WarmUpLR', the 'warmup_steps' must be > 0, but got 0."),
    (lambda: V.check_int("x", "k", 5, None, 4, inc="[)"), ValueError,
     "For 'x', the 'k' must be < 4, but got 5."),
    (lambda: V.check_positive_int("Dense", "in_channels", 0), ValueError,
     "For 'Dense', the 'in_channels' must be a positive int, but got 0."),
    (lambda: V.check_positive_int("Dense", "in_channels", True), ValueError,
     "For 'Dense', the 'in_channels' must be a positive int, but got True."),
    (lambda: V.check_int_relation("LSTM", "hidden_size", 0, ">", 0), ValueError,
     "For 'LSTM', the 'hidden_size' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: V.check_int_relation("LSTM", "hidden_size", 2.0, ">", 0), ValueError,
     "For 'LSTM', the 'hidden_size' must be int and must > 0, but got '2.0' with type 'float'."),
    (lambda: V.check_float("Momentum", "momentum", "x"), TypeError,
     "For 'Momentum', the 'momentum' must be float, but got str."),
    (lambda: V.check_float("ExponentialDecayLR", "decay_rate", 1, allow_int=False), TypeError,
     "For 'ExponentialDecayLR', the 'decay_rate' must be float, but got int."),
    (lambda: V.check_float("Adam", "beta1", 1.0, 0.0, 1.0, "()"), ValueError,
     "For 'Adam', the 'beta1' must be < 1.0, but got 1.0."),
    (lambda: V.check_float("SGD", "momentum", -1, low=0.0), ValueError,
     "For 'SGD', the 'momentum' must be >= 0.0, but got -1.0."),
    (lambda: V.check_float("Adam", "eps", math.nan, 0.0, inc="(]"), ValueError,
     "For 'Adam', the 'eps' must be > 0.0, but got nan."),
    (lambda: V.check_number("Uniform", "scale", "x"), TypeError,
     "For 'Uniform', the 'scale' must be a float or int, but got str."),
    (lambda: V.check_number("Normal", "sigma", math.inf, 0, finite=True), ValueError,
     "For 'Normal', the 'sigma' must be finite, but got inf."),
    (lambda: V.check_number("TruncatedNormal", "sigma", 0.0, 0, inc="(]"), ValueError,
     "For 'TruncatedNormal', the 'sigma' must be > 0, but got 0.0."),
    (lambda: V.check_non_negative_float("SGD", "lr", -0.1), ValueError,
     "For 'SGD', the 'lr' must be a non-negative number, but got -0.1."),
    (lambda: V.check_non_negative_float("SGD", "lr", math.nan), ValueError,
     "For 'SGD', the 'lr' must be a non-negative number, but got nan."),
    (lambda: V.check_number_range("dropout", "p", 1.5, 0.0, 1.0), ValueError,
     "For 'dropout', the 'p' must be in range [0.0, 1.0], but got 1.5."),
    (lambda: V.check_number_range("BatchNorm2d", "eps", 0, 0, 1, "(]", "a number in range"),
     ValueError, "For 'BatchNorm2d', the 'eps' must be a number in range (0, 1], but got 0."),
    (lambda: V.check_number_range("Adam", "betas[0]", 1.0, 0.0, 1.0, "[)", "in"), ValueError,
     "For 'Adam', the 'betas[0]' must be in [0.0, 1.0), but got 1.0."),
    (lambda: V.check_number_range("dropout", "p", None, 0.0, 1.0), TypeError,
     "For 'dropout', the 'p' must be a float or int, but got NoneType."),
    (lambda: V.check_dataset_type("batch_size", 2.0, (int,)), TypeError,
     "Argument batch_size with value 2.0 is not of type [<class 'int'>], but got "
     "<class 'float'>."),
    (lambda: V.check_dataset_type("count", True, (int,)), TypeError,
     "Argument count with value True is not of type [<class 'int'>], but got <class 'bool'>."),
    (lambda: V.check_dataset_type("columns", "", (list,)), TypeError,
     "Argument columns with value \"\" is not of type [<class 'list'>], but got <class 'str'>."),
    (lambda: V.check_dataset_range("batch_size", 0, 1, 2147483647), ValueError,
     "Input batch_size is not within the required interval of [1, 2147483647]."),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_value_message(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_good_values_are_returned_converted_as_documented():
    assert V.check_tensor("f", "x", F32) is F32 and V.check_tensor("f", "x", None, True) is None
    assert V.check_float_tensor("f", None, F32, (2,)) is F32
    assert V.check_bool("f", "b", False) is False
    got = V.check_int("f", "n", np.int64(3), 1)
    assert got == 3 and type(got) is int
    got = V.check_positive_int("f", "n", np.int32(2))
    assert got == 2 and type(got) is int
    got = V.check_float("f", "x", 2, 0.0)
    assert got == 2.0 and type(got) is float
    assert V.check_number("f", "x", 3) == 3 and type(V.check_number("f", "x", 3)) is int
    assert V.check_number_range("f", "p", 0, 0, 1) == 0.0
    assert V.check_non_negative_float("f", "lr", np.float32(0.5)) == 0.5
    assert V.check_int_relation("f", "n", 1, ">", 0) == 1
    assert V.check_string("f", "mode", "sum", ("none", "sum")) == "sum"
    assert V.check_value_type("f", "p", 1, (float, int)) == 1
    cell = nn.ReLU()
    assert check_cell("f", "net", cell) is cell
    assert V.check_dataset_type("shuffle", True, (bool,)) is True
