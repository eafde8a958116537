"""Recurrent layers: RNN, LSTM, GRU and their single-step cells RNNCell, LSTMCell, GRUCell.

Signatures, parameter names and shapes, gate order, return structure and default initialisation
follow MindSpore 2.10 (`mindspore/nn/layer/rnns.py`, `rnn_cells.py`), which in turn match torch:

- Parameters of the multi-layer layers: ``weight_ih_l{k}`` (gates*hidden, in_k),
  ``weight_hh_l{k}`` (gates*hidden, hidden), ``bias_ih_l{k}``, ``bias_hh_l{k}`` (gates*hidden,),
  with the ``_reverse`` suffix for the backward direction of a bidirectional layer. The names,
  shapes and layouts are torch's, so torch weights copy 1:1 by name (no transposition).
  Cells: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``, as torch.
- Gate order: LSTM (i, f, g, o); GRU (r, z, n) with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
  both as torch.
- Default initialisation U(-1/sqrt(hidden), 1/sqrt(hidden)) for every weight and bias, as torch
  (drawn from ms_core's global generator, so `ms.set_seed` makes it reproducible).
- ``layer(x, hx=None, seq_length=None)`` with x (seq, batch, in) or (batch, seq, in) when
  ``batch_first``; returns ``output, h_n`` (RNN/GRU) or ``output, (h_n, c_n)`` (LSTM), h_n of
  shape (num_layers * num_directions, batch, hidden). ``seq_length`` (int tensor, (batch,)):
  steps at or after a sequence's length leave the state unchanged and give zero outputs, and
  the backward direction starts at each sequence's last valid step (MindSpore's
  ReverseSequence) -- the same results as torch's packed sequences.
- Dropout (``nn.Dropout(p=dropout)``, sub-cell ``dropout_op``) on the output of every layer but
  the last, in training mode only.

Differences from torch: the keyword is ``has_bias`` (torch ``bias``); ``dropout`` must be a float
(MindSpore 2.10 raises TypeError for an int such as ``0``); the RNN ``nonlinearity`` is
keyword-only (torch's 4th positional argument); no ``proj_size``; no unbatched (2-D) input for
the multi-layer layers; Cells start in inference mode, so dropout is off until ``set_train()``.

The time loop runs in Python over ms_core ops: one matmul projects the inputs of all steps at
once, then one matmul per step for the hidden state; everything is differentiable (also twice).
"""
import math

import numpy as np

from ..cell import Cell
from ..._checkparam import (check_int_relation, check_same_float_dtype, check_tensor,
                           check_value_type)
from .dropout import Dropout
from ...common import dtype as mstype
from ...common.initializer import initializer, Uniform
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor
from ...ops import functional as F

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_hx(cls_name, hx, is_lstm, shape):
    """The initial state: a Tensor of `shape` (for LSTM a pair (h, c) of them)."""
    if is_lstm:
        if not isinstance(hx, (tuple, list)):
            raise TypeError(f"For '{cls_name}', the 'hx' must be a tuple (h, c), but got "
                            f"'{type(hx).__name__}'.")
        if len(hx) != 2:
            raise TypeError(f"For '{cls_name}', the length of 'hx' must be '2', but got "
                            f"'{len(hx)}'")
        parts = (("hx[0]", hx[0]), ("hx[1]", hx[1]))
    else:
        parts = (("hx", hx),)
    for name, h in parts:
        check_tensor(cls_name, name, h)
        if shape is not None and tuple(h.shape) != tuple(shape):
            raise ValueError(f"For '{cls_name}', the shape of '{name}' must be {tuple(shape)}, "
                             f"but got {tuple(h.shape)}.")


# --- the step functions (shared by the layers and the cells) ------------------------------------

def _step(mode, gi, h, w_hh, b_hh):
    """One recurrent step given the input projection gi = x_t @ W_ih.T + b_ih.

    h is the hidden state (a tuple (h, c) for LSTM); returns the new state.
    """
    if mode == "LSTM":
        hx, cx = h
        gates = gi + F.dense(hx, w_hh, b_hh)
        i, f, g, o = F.split(gates, gates.shape[-1] // 4, axis=-1)
        cy = F.sigmoid(f) * cx + F.sigmoid(i) * F.tanh(g)
        hy = F.sigmoid(o) * F.tanh(cy)
        return hy, cy
    gh = F.dense(h, w_hh, b_hh)
    if mode == "GRU":
        n3 = gi.shape[-1] // 3
        i_r, i_z, i_n = F.split(gi, n3, axis=-1)
        h_r, h_z, h_n = F.split(gh, n3, axis=-1)
        r = F.sigmoid(i_r + h_r)
        z = F.sigmoid(i_z + h_z)
        n = F.tanh(i_n + r * h_n)
        return n + z * (h - n)
    pre = gi + gh
    return F.tanh(pre) if mode == "RNN_TANH" else F.relu(pre)


def _reverse_index(seq_length, time_steps, batch):
    """Index arrays (t, b) that reverse the first seq_length[b] steps of each sequence."""
    t = np.arange(time_steps)[:, None]
    lens = seq_length[None, :]
    rev_t = np.where(t < lens, lens - 1 - t, t)
    return rev_t, np.broadcast_to(np.arange(batch)[None, :], rev_t.shape)


def _run_direction(mode, x, h0, w_ih, w_hh, b_ih, b_hh, reverse, seq_length):
    """Run one direction of one layer over x (T, B, I). Returns output (T, B, H) and final state."""
    steps = x.shape[0]
    is_lstm = mode == "LSTM"
    rev_index = None
    if reverse and seq_length is not None:
        rev_index = _reverse_index(seq_length, steps, x.shape[1])
        x = F.getitem(x, rev_index)
    gi_all = F.dense(x, w_ih, b_ih)          # every step's input projection in one matmul
    order = range(steps - 1, -1, -1) if reverse and seq_length is None else range(steps)
    h = h0
    outs = [None] * steps
    for t in order:
        h_new = _step(mode, F.getitem(gi_all, t), h, w_hh, b_hh)
        out_t = h_new[0] if is_lstm else h_new
        if seq_length is not None:
            keep = Tensor((t < seq_length)[:, None])
            if is_lstm:
                h = (F.where(keep, h_new[0], h[0]), F.where(keep, h_new[1], h[1]))
            else:
                h = F.where(keep, h_new, h)
            out_t = F.where(keep, out_t, F.zeros_like(out_t))
        else:
            h = h_new
        outs[t] = out_t
    output = F.stack(outs, axis=0)
    if rev_index is not None:
        output = F.getitem(output, rev_index)
    return output, h


# --- the multi-layer layers ---------------------------------------------------------------------

class _RNNBase(Cell):
    """Shared body of RNN, LSTM and GRU (MindSpore's `_RNNBase`)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0., bidirectional=False, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        check_int_relation(name, "hidden_size", hidden_size, ">", 0)
        check_int_relation(name, "input_size", input_size, ">", 0)
        check_int_relation(name, "num_layers", num_layers, ">", 0)
        if isinstance(dropout, bool) or not isinstance(dropout, float):
            raise TypeError(f"For '{name}', the type of 'dropout' must be 'float', but got "
                            f"'{type(dropout).__name__}'.")
        check_value_type(name, "has_bias", has_bias, (bool,))
        check_value_type(name, "batch_first", batch_first, (bool,))
        check_value_type(name, "bidirectional", bidirectional, (bool,))
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{name}', the 'dropout' must be a number in range [0, 1) "
                             f"representing the probability of an element being zeroed, but got "
                             f"{dropout}.")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.has_bias = has_bias
        self.batch_first = batch_first
        self.dropout = dropout
        self.bidirectional = bidirectional
        self.is_lstm = mode == "LSTM"
        self.dropout_op = Dropout(p=float(dropout))
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        stdv = 1 / math.sqrt(hidden_size)
        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                w_ih.append(Parameter(initializer(Uniform(stdv), (gate_size, layer_input), dtype),
                                      name=f"weight_ih_l{layer}{suffix}"))
                w_hh.append(Parameter(initializer(Uniform(stdv), (gate_size, hidden_size), dtype),
                                      name=f"weight_hh_l{layer}{suffix}"))
                if has_bias:
                    b_ih.append(Parameter(initializer(Uniform(stdv), (gate_size,), dtype),
                                          name=f"bias_ih_l{layer}{suffix}"))
                    b_hh.append(Parameter(initializer(Uniform(stdv), (gate_size,), dtype),
                                          name=f"bias_hh_l{layer}{suffix}"))
        # registered under their own names (weight_ih_l0, ...), as in MindSpore
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    def construct(self, x, hx=None, seq_length=None):
        name = type(self).__name__
        check_tensor(name, "x", x)
        if x.ndim != 3:
            raise ValueError(f"For '{name}', the 'x' must be a 3-D Tensor (seq, batch, feature) "
                             f"or (batch, seq, feature) with batch_first, but got shape "
                             f"{tuple(x.shape)}.")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"For '{name}', the last dimension of 'x' must be input_size="
                             f"{self.input_size}, but got shape {tuple(x.shape)}.")
        batch = x.shape[0] if self.batch_first else x.shape[1]
        num_directions = 2 if self.bidirectional else 1
        state_shape = (self.num_layers * num_directions, batch, self.hidden_size)
        if hx is None:
            zeros = F.zeros(state_shape, x.dtype)
            hx = (zeros, F.zeros(state_shape, x.dtype)) if self.is_lstm else zeros
        else:
            _check_hx(name, hx, self.is_lstm, state_shape)
            check_same_float_dtype(name, ["x", "hx[0]", "hx[1]"] if self.is_lstm else ["x", "hx"],
                               [x, hx[0], hx[1]] if self.is_lstm else [x, hx])
        lengths = None
        if seq_length is not None:
            lengths = np.asarray(seq_length.asnumpy() if isinstance(seq_length, Tensor)
                                 else seq_length)
            if lengths.dtype.kind not in "iu":
                raise TypeError(f"For '{name}', the dtype of 'seq_length' must be int32 or int64, "
                                f"but got {lengths.dtype}.")
            if lengths.shape != (batch,):
                raise ValueError(f"For '{name}' batch size of x and seq_length must be equal, "
                                 f"but got {batch} of x and {lengths.shape[0] if lengths.ndim else 0} "
                                 f"of seq_length.")
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        layer_in = x
        h_n, c_n = [], []
        output = x
        for layer in range(self.num_layers):
            dir_outs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                b_ih = self.b_ih_list[k] if self.has_bias else None
                b_hh = self.b_hh_list[k] if self.has_bias else None
                h0 = (F.getitem(hx[0], k), F.getitem(hx[1], k)) if self.is_lstm \
                    else F.getitem(hx, k)
                out, h = _run_direction(self.mode, layer_in, h0, self.w_ih_list[k],
                                        self.w_hh_list[k], b_ih, b_hh, direction == 1, lengths)
                dir_outs.append(out)
                if self.is_lstm:
                    h_n.append(h[0])
                    c_n.append(h[1])
                else:
                    h_n.append(h)
            output = dir_outs[0] if num_directions == 1 else F.concat(dir_outs, axis=2)
            if self.dropout != 0 and layer < self.num_layers - 1:
                layer_in = self.dropout_op(output)
            else:
                layer_in = output
        if self.batch_first:
            output = F.transpose(output, (1, 0, 2))
        if self.is_lstm:
            return output, (F.stack(h_n, axis=0), F.stack(c_n, axis=0))
        return output, F.stack(h_n, axis=0)

    def extend_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.mode == "RNN_RELU":
            s += ", nonlinearity='relu'"
        if not self.has_bias:
            s += ", has_bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """Elman RNN: h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh), act tanh or relu.

    ``RNN(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, dtype=float32, *, nonlinearity='tanh')``; returns ``output, h_n``.
    Parameter names/shapes as torch's ``nn.RNN`` (see the module docstring).
    """

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], but got "
                             f"{nonlinearity}.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Long short-term memory; gates (i, f, g, o) as torch.

    ``LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, dtype=float32)``; ``lstm(x, hx=None, seq_length=None)`` with
    ``hx = (h_0, c_0)``; returns ``output, (h_n, c_n)``. Parameter names/shapes as torch's
    ``nn.LSTM`` (weight_ih_l0 of shape (4*hidden, input), ...); no ``proj_size``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """Gated recurrent unit; gates (r, z, n) as torch, n = tanh(W_in x + b_in + r*(W_hn h + b_hn)).

    ``GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, dtype=float32)``; returns ``output, h_n``. Parameter names/shapes as
    torch's ``nn.GRU``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


# --- single-step cells --------------------------------------------------------------------------

class _RNNCellBase(Cell):
    """Shared body of the cells: weight_ih, weight_hh, bias_ih, bias_hh, all U(±1/sqrt(hidden))."""

    def __init__(self, input_size, hidden_size, has_bias, num_chunks, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        check_value_type(name, "has_bias", has_bias, (bool,))
        check_int_relation(name, "hidden_size", hidden_size, ">", 0)
        check_int_relation(name, "input_size", input_size, ">", 0)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.has_bias = has_bias
        stdv = 1 / math.sqrt(hidden_size)
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(initializer(Uniform(stdv), (gates, input_size), dtype),
                                   name="weight_ih")
        self.weight_hh = Parameter(initializer(Uniform(stdv), (gates, hidden_size), dtype),
                                   name="weight_hh")
        if has_bias:
            self.bias_ih = Parameter(initializer(Uniform(stdv), (gates,), dtype), name="bias_ih")
            self.bias_hh = Parameter(initializer(Uniform(stdv), (gates,), dtype), name="bias_hh")
        else:
            self.bias_ih = None
            self.bias_hh = None

    def _check_inputs(self, x, hs, names):
        name = type(self).__name__
        check_tensor(name, "x", x)
        for n, h in zip(names, hs):
            check_tensor(name, n, h)
        check_same_float_dtype(name, ["x"] + names, [x] + list(hs))
        if x.shape[-1] != self.input_size:
            raise ValueError(f"For '{name}', the last dimension of 'x' must be input_size="
                             f"{self.input_size}, but got shape {tuple(x.shape)}.")

    def _step(self, mode, x, h):
        gi = F.dense(x, self.weight_ih, self.bias_ih)
        return _step(mode, gi, h, self.weight_hh, self.bias_hh)

    def extend_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.has_bias:
            s += ", has_bias=False"
        return s


class RNNCell(_RNNCellBase):
    """One Elman RNN step: ``cell(x, hx) -> h'`` (x (batch, in), hx (batch, hidden))."""

    _non_linearity = ["tanh", "relu"]

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, num_chunks=1, dtype=dtype)
        check_value_type("RNNCell", "nonlinearity", nonlinearity, (str,))
        if nonlinearity not in self._non_linearity:
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' should be in ['tanh', 'relu'], "
                             f"but got '{nonlinearity}'.")
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        self._check_inputs(x, [hx], ["hx"])
        return self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", x, hx)

    def extend_repr(self):
        s = super().extend_repr()
        return s + (", nonlinearity='relu'" if self.nonlinearity == "relu" else "")


class LSTMCell(_RNNCellBase):
    """One LSTM step: ``cell(x, (h, c)) -> (h', c')``; gates (i, f, g, o) as torch."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, num_chunks=4, dtype=dtype)

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)):
            raise TypeError(f"For 'LSTMCell', the 'hx' must be a tuple (h, c), but got "
                            f"'{type(hx).__name__}'.")
        if len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', the length of 'hx' must be '2', but got "
                            f"'{len(hx)}'")
        self._check_inputs(x, list(hx), ["hx[0]", "hx[1]"])
        return self._step("LSTM", x, tuple(hx))


class GRUCell(_RNNCellBase):
    """One GRU step: ``cell(x, hx) -> h'``; gates (r, z, n) as torch."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, num_chunks=3, dtype=dtype)

    def construct(self, x, hx):
        self._check_inputs(x, [hx], ["hx"])
        return self._step("GRU", x, hx)
