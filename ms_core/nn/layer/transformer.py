"""MultiheadAttention and the Transformer layers, with MindSpore 2.10's signatures, names and
semantics (which follow torch 2.0's modules).

Parameter names (MindSpore 2.10) and their torch counterparts; shapes are identical, so weights
copy 1:1 after renaming:

    MultiheadAttention        in_proj_weight (3E, E), in_proj_bias (3E,), out_proj.weight (E, E),
                              out_proj.bias (E,); with kdim/vdim != E: q_proj_weight (E, E),
                              k_proj_weight (E, kdim), v_proj_weight (E, vdim) instead of
                              in_proj_weight; add_bias_kv: bias_k, bias_v (1, 1, E)   -- same as torch
    TransformerEncoderLayer   self_attn.*, dense1.*, dense2.*, norm1.gamma/beta, norm2.gamma/beta
                              torch: self_attn.*, linear1.*, linear2.*, norm1.weight/bias, ...
    TransformerDecoderLayer   as the encoder layer plus multihead_attn.* and norm3.gamma/beta
    TransformerEncoder/Decoder  layers.<i>.<layer names>, norm.gamma/beta (when a LayerNorm norm)

i.e. torch -> MindSpore: `linear1` -> `dense1`, `linear2` -> `dense2`, LayerNorm `weight` ->
`gamma`, `bias` -> `beta`; everything else keeps its name.

Masks have torch's meaning: a bool mask is True where attention is NOT allowed (-inf is added);
a float mask is added to the attention scores. `attn_mask` is (L, S) or (N*num_heads, L, S);
`key_padding_mask` is (N, S) (or (S,) for unbatched input). Masks of different kinds (bool and
float) are combined by adding them as float masks, as torch does.

Dropout (on the attention weights and in the layers) acts only in training mode
(`set_train(True)`); Cells start in inference mode.
"""
import copy
import math

import numpy as np

from ..cell import Cell
from ..._checkparam import check_float, check_number_range, check_positive_int
from ...common import dtype as mstype
from ...common.initializer import initializer, XavierNormal, XavierUniform, HeUniform, Uniform
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops import functional as F
from ...ops import nn_ops as NF
from .basic import Dense
from .dropout import Dropout
from .normalization import LayerNorm
from .container import CellList

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _param(init, shape, dtype, name):
    return Parameter(initializer(init, shape, dtype).init_data(), name=name)


def _is_bool(t):
    return t._data.dtype == np.bool_


def _float_mask(mask, dtype, name):
    """bool (or uint8) -> 0 / -inf float constant; float -> itself (differentiable)."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        mask = Tensor(np.asarray(mask))
    kind = mask._data.dtype.kind
    if kind == "b" or mask._data.dtype == np.uint8:
        return Tensor(np.where(mask._data.astype(bool), -np.inf, 0).astype(dtype))
    if kind != "f":
        raise ValueError(f"For 'MultiheadAttention', only bool and floating types of {name} are "
                         f"supported, but got {mask.dtype}.")
    return mask


def _pad_last(mask):
    """Append one zero (= 'attend') column to a mask's last axis."""
    if mask is None:
        return None
    return F.pad(mask, (0, 1), value=0)


def multi_head_attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                                 out_proj_bias, training=True, key_padding_mask=None,
                                 attn_mask=None, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, average_attn_weights=True):
    """Sequence-first (L, N, E) multi-head attention; returns (output, weights)."""
    is_batched = query.ndim == 3
    if query.ndim not in (2, 3):
        raise ValueError(f"The `query` should be unbatched 2D or batched 3D tensor, but got "
                         f"`query` with {query.ndim}D.")
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise ValueError(f"For {'batched' if is_batched else 'unbatched'} `query`, the `key` and "
                         f"`value` must be {query.ndim}D tensor, but got `key` with {key.ndim}D "
                         f"and `value` with {value.ndim}D.")
    if not is_batched:
        query, key, value = (F.expand_dims(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = F.expand_dims(key_padding_mask, 0) \
                if isinstance(key_padding_mask, Tensor) else np.asarray(key_padding_mask)[None]
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    head_dim = embed_dim // num_heads
    dtype = query._data.dtype

    # in-projection
    if in_proj_weight is not None:
        if key.shape != value.shape:
            raise ValueError(f"The shape of `key` {key.shape} does not match `value` {value.shape}.")
        w_q, w_k, w_v = F.split(in_proj_weight, embed_dim, 0)
    else:
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(f"The sequence length and batch dims of `key`: {key.shape[:2]} do not "
                             f"match `value`: {value.shape[:2]}.")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = F.split(in_proj_bias, embed_dim, 0)
    q = F.dense(query, w_q, b_q)
    k = F.dense(key, w_k, b_k)
    v = F.dense(value, w_v, b_v)

    # masks, canonicalised to float (0 / -inf for bool)
    attn_mask = _float_mask(attn_mask, dtype, "attn_mask")
    key_padding_mask = _float_mask(key_padding_mask, dtype, "key_padding_mask")
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, "
                                 f"but got {tuple(attn_mask.shape)}.")
            attn_mask = F.expand_dims(attn_mask, 0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be "
                                 f"{(bsz * num_heads, tgt_len, src_len)}, but got "
                                 f"{tuple(attn_mask.shape)}.")
        else:
            raise ValueError(f"The ndim of `attn_mask` only support 2 or 3, but got "
                             f"{attn_mask.ndim}.")

    if bias_k is not None and bias_v is not None:
        k = F.concat([k, F.tile(bias_k, (1, bsz, 1))], 0)
        v = F.concat([v, F.tile(bias_v, (1, bsz, 1))], 0)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)

    # (L, N, E) -> (N*H, L, D)
    q = F.swapaxes(F.reshape(q, (tgt_len, bsz * num_heads, head_dim)), 0, 1)
    k = F.swapaxes(F.reshape(k, (k.shape[0], bsz * num_heads, head_dim)), 0, 1)
    v = F.swapaxes(F.reshape(v, (v.shape[0], bsz * num_heads, head_dim)), 0, 1)
    if add_zero_attn:
        zeros = Tensor(np.zeros((bsz * num_heads, 1, head_dim), dtype))
        k = F.concat([k, zeros], 1)
        v = F.concat([v, zeros], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise ValueError(f"The shape of `key_padding_mask` should be {(bsz, src_len)}, but "
                             f"got {tuple(key_padding_mask.shape)}.")
        kpm = F.reshape(F.tile(F.reshape(key_padding_mask, (bsz, 1, 1, src_len)),
                               (1, num_heads, 1, 1)), (bsz * num_heads, 1, src_len))
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    scores = F.matmul(q * float(1.0 / math.sqrt(head_dim)), F.swapaxes(k, 1, 2))
    if attn_mask is not None:
        scores = scores + attn_mask
    attn = F.softmax(scores, -1)
    if training and dropout_p > 0.0:
        attn = NF.dropout(attn, p=float(dropout_p), training=True)
    out = F.matmul(attn, v)  # (N*H, L, D)
    out = F.reshape(F.swapaxes(out, 0, 1), (tgt_len * bsz, embed_dim))
    out = F.reshape(F.dense(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, embed_dim))
    weights = F.reshape(attn, (bsz, num_heads, tgt_len, src_len))
    if average_attn_weights:
        weights = F.sum(weights, 1) / num_heads
    if not is_batched:
        out = F.squeeze(out, 1)
        weights = F.squeeze(weights, 0)
    return out, weights


class MultiheadAttention(Cell):
    """Multi-head attention (MindSpore 2.10 / torch semantics).

    `MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
    add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=mstype.float32)`;
    torch's `bias` is MindSpore's `has_bias`. Call with (query, key, value, key_padding_mask=None,
    need_weights=True, attn_mask=None, average_attn_weights=True). Returns
    `(attn_output, attn_weights)` when need_weights, else the 1-tuple `(attn_output,)`
    (MindSpore 2.10; torch returns `(attn_output, None)`).

    Parameters: in_proj_weight (3E, E) XavierUniform, in_proj_bias (3E,) zeros, out_proj (Dense:
    weight HeUniform(sqrt(5)), bias U(±1/sqrt(E))); kdim/vdim != embed_dim give q_proj_weight,
    k_proj_weight, v_proj_weight instead of in_proj_weight; add_bias_kv gives bias_k, bias_v
    (1, 1, E) XavierNormal. Names and shapes equal torch's.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
                 dtype=mstype.float32):
        super().__init__()
        for arg, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            check_positive_int("MultiheadAttention", arg, v)
        check_number_range("MultiheadAttention", "dropout", dropout, 0, 1)
        if dtype is None:
            dtype = mstype.float32
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = float(dropout)
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _param(XavierUniform(), (embed_dim, embed_dim), dtype, "q_proj_weight")
            self.k_proj_weight = _param(XavierUniform(), (embed_dim, self.kdim), dtype, "k_proj_weight")
            self.v_proj_weight = _param(XavierUniform(), (embed_dim, self.vdim), dtype, "v_proj_weight")
            self.in_proj_weight = None
        else:
            self.in_proj_weight = _param(XavierUniform(), (3 * embed_dim, embed_dim), dtype,
                                         "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        self.in_proj_bias = _param("zeros", (3 * embed_dim,), dtype, "in_proj_bias") \
            if has_bias else None
        bound = 1 / math.sqrt(embed_dim)
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias,
                              weight_init=HeUniform(math.sqrt(5)), bias_init=Uniform(bound),
                              dtype=dtype)
        if add_bias_kv:
            self.bias_k = _param(XavierNormal(), (1, 1, embed_dim), dtype, "bias_k")
            self.bias_v = _param(XavierNormal(), (1, 1, embed_dim), dtype, "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.has_bias = has_bias
        self.dtype = dtype

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        is_batched = query.ndim == 3
        if self.batch_first and is_batched:
            query, key, value = (F.swapaxes(t, 0, 1) for t in (query, key, value))
        if query.shape[-1] != self.embed_dim:
            raise ValueError(f"The `embed_dim` should be {self.embed_dim}, but got "
                             f"{query.shape[-1]}.")
        out, weights = multi_head_attention_forward(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
            self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
            attn_mask=attn_mask, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights)
        if self.batch_first and is_batched:
            out = F.swapaxes(out, 0, 1)
        if need_weights:
            return out, weights
        return (out,)


def _activation(name, activation):
    """'relu' / 'gelu' (exact, as MindSpore's ops.gelu) / a Cell / a callable."""
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return NF.gelu
        raise ValueError(f"The activation must be relu/gelu, but get {activation}")
    if isinstance(activation, Cell) or callable(activation):
        return activation
    raise ValueError(f"The argument 'activation' must be str, callable or Cell instance, but get "
                     f"{activation}.")


def _check_layer_args(name, d_model, nhead, dim_feedforward, dropout, layer_norm_eps):
    """The arguments the encoder and decoder layers share."""
    for arg, v in (("d_model", d_model), ("nhead", nhead), ("dim_feedforward", dim_feedforward)):
        check_positive_int(name, arg, v)
    check_number_range(name, "dropout", dropout, 0, 1, "[)")
    check_float(name, "layer_norm_eps", layer_norm_eps)


def _ffn(cell, d_model, dim_feedforward, dtype):
    cell.dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                        bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
    cell.dropout = Dropout(p=cell.dropout_num)
    cell.dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                        bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)


def _check_kpm(mask, name="key_padding_mask"):
    if mask is not None and isinstance(mask, Tensor) and mask._data.dtype != np.bool_ \
            and mask._data.dtype.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")


class TransformerEncoderLayer(Cell):
    """One encoder layer: self-attention + feed-forward, each with residual and LayerNorm
    (post-norm, or pre-norm with `norm_first=True`).

    MindSpore 2.10 signature: (d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation='relu', layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=mstype.float32); call (src, src_mask=None, src_key_padding_mask=None).

    Names vs torch: `dense1` / `dense2` are torch's `linear1` / `linear2`; `norm1`, `norm2` are
    LayerNorms with `gamma` / `beta` (torch: weight / bias); `self_attn.*` identical. MindSpore
    accepts only relu/gelu (str, nn.ReLU/nn.GELU, ops.relu/ops.gelu) as activation; ms_core
    accepts any Cell or callable.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        _check_layer_args("TransformerEncoderLayer", d_model, nhead, dim_feedforward, dropout,
                          layer_norm_eps)
        if dtype is None:
            dtype = mstype.float32
        self.dropout_num = dropout
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        _ffn(self, d_model, dim_feedforward, dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm((d_model,), epsilon=float(layer_norm_eps), dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=float(layer_norm_eps), dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation1 = activation
        self.activation = _activation("TransformerEncoderLayer", activation)
        self.d_model, self.nhead, self.dim_feedforward = d_model, nhead, dim_feedforward
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.dtype = dtype

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_kpm(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerDecoderLayer(Cell):
    """One decoder layer: self-attention, cross-attention over `memory`, feed-forward; each with
    residual and LayerNorm (post-norm, or pre-norm with `norm_first=True`).

    Signature as TransformerEncoderLayer; call (tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None).
    Names vs torch: `dense1` / `dense2` = torch's `linear1` / `linear2`; `norm1..3` have
    `gamma` / `beta`; `self_attn.*`, `multihead_attn.*` identical.
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        _check_layer_args("TransformerDecoderLayer", d_model, nhead, dim_feedforward, dropout,
                          layer_norm_eps)
        if dtype is None:
            dtype = mstype.float32
        self.dropout_num = dropout
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, dtype=dtype)
        _ffn(self, d_model, dim_feedforward, dtype)
        self.norm_first = norm_first
        eps = float(layer_norm_eps)
        self.norm1 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.activation1 = activation
        self.activation = _activation("TransformerDecoderLayer", activation)
        self.d_model, self.nhead, self.dim_feedforward = d_model, nhead, dim_feedforward
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.dtype = dtype

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))


def _clones(layer, num_layers, name):
    if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers < 0:
        raise ValueError(f"For '{name}', the 'num_layers' must be a non-negative int, but got "
                         f"{num_layers!r}.")
    return CellList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Cell):
    """A stack of `num_layers` copies of `encoder_layer` (then `norm` if given).

    MindSpore 2.10 builds a FRESH TransformerEncoderLayer with the given layer's arguments and
    deep-copies it (the given layer's weights are not reused; all copies start equal); ms_core
    does the same. Parameters: layers.<i>.*, norm.* .
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        el = encoder_layer
        fresh = TransformerEncoderLayer(el.d_model, el.nhead, el.dim_feedforward, el.dropout_num,
                                        el.activation1, el.layernorm_eps, el.batch_first,
                                        el.norm_first, dtype=el.dtype)
        self.layers = _clones(fresh, num_layers, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        _check_kpm(src_key_padding_mask)
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoder(Cell):
    """A stack of `num_layers` copies of `decoder_layer` (then `norm` if given); fresh layer as
    TransformerEncoder. Parameters: layers.<i>.*, norm.* ."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        dl = decoder_layer
        fresh = TransformerDecoderLayer(dl.d_model, dl.nhead, dl.dim_feedforward, dl.dropout_num,
                                        dl.activation1, dl.layernorm_eps, dl.batch_first,
                                        dl.norm_first, dtype=dl.dtype)
        self.layers = _clones(fresh, num_layers, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Cell):
    """Encoder-decoder Transformer (MindSpore 2.10 signature: d_model=512, nhead=8,
    num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048, dropout=0.1,
    activation='relu', custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
    batch_first=False, norm_first=False, dtype). Parameters: encoder.layers.<i>.*,
    encoder.norm.gamma/beta, decoder.layers.<i>.*, decoder.norm.gamma/beta (torch: the same with
    linear1/linear2 and weight/bias)."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        if dtype is None:
            dtype = mstype.float32
        eps = float(layer_norm_eps)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=eps, dtype=dtype))
        # as MindSpore 2.10 (and torch's _reset_parameters): every matrix, custom parts too,
        # drawn again Xavier-uniform
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        is_batched = src.ndim == 3
        if self.batch_first and is_batched and src.shape[0] != tgt.shape[0]:
            raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if not self.batch_first and is_batched and src.shape[1] != tgt.shape[1]:
            raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError("The number of features for 'src' and 'tgt' must be equal to "
                             "'d_model'.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
