"""torch functions whose MindSpore counterpart differs or is missing on a backend, written with the
target's ``ops`` (differentiable like any op): layer_norm through the LayerNorm primitive,
einsum as batched matmuls, multi-head attention's functional forward, local response norm,
``x.unfold`` windows, batch statistics without running ones, linspace in torch's dtypes,
scaled dot-product attention with run-time options, the ``_foreach_*`` list ops, the
transformer's activation by name, and sparse COO tensors as the dense tensors they stand for.
"""
import numpy as np

from .arguments import torch_ntuple
from .backend import ms, ops


def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """torch.nn.functional.layer_norm through the ops.LayerNorm primitive (what nn.LayerNorm
    runs): MindSpore 2.10's CPU backend has no kernel for ops.layer_norm (LayerNormExt)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    weight = ops.ones(shape, input.dtype) if weight is None else weight
    bias = ops.zeros(shape, input.dtype) if bias is None else bias
    return ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)(input, weight, bias)[0]


def torch_unfold_windows(x, dimension, size, step):
    """torch's x.unfold(dimension, size, step): the windows of `size` elements every `step` along
    `dimension`, in a new last axis (MindSpore's Tensor.unfold is im2col); one gather of the
    windows' indices, differentiable."""
    dim = dimension % x.ndim
    count = (x.shape[dim] - size) // step + 1
    if size < 1 or step < 1 or count < 1:
        raise ValueError(f"For 'unfold', windows of size {size} every {step} do not fit dimension "
                         f"{dim} of size {x.shape[dim]}.")
    index = (ops.arange(count, dtype=ms.int32).reshape(-1, 1) * step
             + ops.arange(size, dtype=ms.int32).reshape(1, -1)).reshape(-1)
    out = ops.gather(x, index, dim).reshape(x.shape[:dim] + (count, size) + x.shape[dim + 1:])
    return ops.transpose(out, tuple(range(dim + 1)) + tuple(range(dim + 2, out.ndim)) + (dim + 1,))


def torch_batch_stats_norm(input, weight=None, bias=None, training=False, eps=1e-05):
    """torch.nn.functional.batch_norm without running statistics (weight standardization): the
    batch's mean and biased variance over every axis but 1, then weight and bias per channel."""
    if not training:
        raise ValueError("For 'batch_norm', running_mean and running_var must be given when "
                         "training is False.")
    axes = (0,) + tuple(range(2, input.ndim))
    centred = input - ops.mean(input, axes, True)
    out = centred / ops.sqrt(ops.mean(centred * centred, axes, True) + eps)
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def torch_einsum(equation, *operands):
    """torch.einsum as sums and batched matmuls of the operands, two at a time (MindSpore 2.10's
    CPU backend has no Einsum kernel); a label repeated in one operand (a diagonal) goes to
    ops.einsum."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    specs = inputs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"For 'einsum', the equation {equation!r} names {len(specs)} operands, but got "
                         f"{len(operands)}.")
    dots = max([op.ndim - len(s) + 3 for s, op in zip(specs, operands) if "..." in s] or [0])

    def labels(spec, ndim):  # the axes of '...' are the labels '0', '1', ... (right-aligned)
        head, _, tail = spec.partition("...")
        n = ndim - len(head) - len(tail) if "..." in spec else 0
        return list(head) + [str(dots - n + i) for i in range(n)] + list(tail)

    terms = [(labels(s, op.ndim), op) for s, op in zip(specs, operands)]
    if any(len(set(names)) != len(names) or len(names) != op.ndim for names, op in terms):
        return ops.einsum(equation, *operands)
    every = [n for names, _ in terms for n in names]
    out = (labels(output, dots + len(output.replace("...", ""))) if arrow
           else [str(i) for i in range(dots)]
           + sorted(n for n in set(every) if every.count(n) == 1 and not n.isdigit()))
    sizes = {}
    for names, op in terms:
        for n, size in zip(names, op.shape):
            sizes[n] = max(size, sizes.get(n, 1))

    def total(names):
        size = 1
        for n in names:
            size *= sizes[n]
        return size

    def keep_only(names, x, keep):
        axes = tuple(i for i, n in enumerate(names) if n not in keep)
        return ([n for n in names if n in keep], ops.sum(x, axes)) if axes else (names, x)

    def arrange(names, x, order):  # axes in this order, broadcast to every operand's lengths
        x = ops.transpose(x, tuple(names.index(n) for n in order)) if names != order else x
        shape = tuple(sizes[n] for n in order)
        return x if tuple(x.shape) == shape else ops.broadcast_to(x, shape)

    names, x = terms[0]
    for k in range(len(terms)):
        later = set(out).union(*[set(t[0]) for t in terms[k + 1:]])
        if k == 0:
            names, x = keep_only(names, x, later)
            continue
        other, y = keep_only(*terms[k], later | set(names))
        batch = [n for n in names if n in other and n in later]
        summed = [n for n in names if n in other and n not in later]
        left, right = [n for n in names if n not in other], [n for n in other if n not in names]
        x = ops.reshape(arrange(names, x, batch + left + summed), (total(batch), total(left), total(summed)))
        y = ops.reshape(arrange(other, y, batch + summed + right), (total(batch), total(summed), total(right)))
        names = batch + left + right
        x = ops.reshape(ops.matmul(x, y), tuple(sizes[n] for n in names))
    names, x = keep_only(names, x, set(out))
    return arrange(names, x, out)


def _linear(x, w, b):
    y = ops.matmul(x, ops.transpose(w, (1, 0)))
    return y if b is None else y + b


def _as_float_mask(mask, dtype):
    """A bool mask (True: masked) as the float one torch adds (-inf where masked)."""
    if mask is None or mask.dtype != ms.bool_:
        return mask
    return ops.masked_fill(ops.zeros(mask.shape, dtype), mask, float("-inf"))


def _one_more_column(mask):
    return None if mask is None else ops.cat([mask, ops.zeros(mask.shape[:-1] + (1,), mask.dtype)], axis=-1)


def _in_projections(query, key, value, embed_dim, in_proj_weight, in_proj_bias, separate):
    """q, k, v: the inputs through torch's packed in_proj (or the three separate weights)."""
    e = embed_dim
    wq, wk, wv = separate if separate is not None else \
        (in_proj_weight[:e], in_proj_weight[e:2 * e], in_proj_weight[2 * e:])
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias[:e], in_proj_bias[e:2 * e], in_proj_bias[2 * e:]
    return _linear(query, wq, bq), _linear(key, wk, bk), _linear(value, wv, bv)


def _attention_masks(attn_mask, key_padding_mask, dtype, is_causal, need_weights):
    """torch's masks as float masks to add (attn_mask with a batch axis)."""
    if is_causal and key_padding_mask is None and not need_weights:
        n, s = attn_mask.shape[-2], attn_mask.shape[-1]
        attn_mask = ops.triu(ops.ones((n, s), ms.bool_), 1)  # torch runs SDPA with is_causal=True
    attn_mask = _as_float_mask(attn_mask, dtype)
    key_padding_mask = _as_float_mask(key_padding_mask, dtype)
    if attn_mask is not None and attn_mask.ndim == 2:
        attn_mask = attn_mask.unsqueeze(0)
    return attn_mask, key_padding_mask


def torch_multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
        add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None,
        need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
        k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
        is_causal=False):
    """torch.nn.functional.multi_head_attention_forward in ops, with torch's signature, inputs
    (L, N, E) or unbatched (L, E) and result (output, weights or None)."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise ValueError(f"For 'multi_head_attention_forward', the query's last dimension must be "
                         f"embed_dim_to_check={embed_dim_to_check}, but got {embed_dim}.")
    head_dim = embed_dim // num_heads
    if is_causal and attn_mask is None:
        raise RuntimeError("For 'multi_head_attention_forward', is_causal=True needs attn_mask.")
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _in_projections(query, key, value, embed_dim, in_proj_weight, in_proj_bias, separate)
    attn_mask, key_padding_mask = _attention_masks(attn_mask, key_padding_mask, q.dtype, is_causal, need_weights)
    if bias_k is not None and bias_v is not None:
        k = ops.cat([k, ops.tile(bias_k, (1, bsz, 1))], axis=0)
        v = ops.cat([v, ops.tile(bias_v, (1, bsz, 1))], axis=0)
        attn_mask, key_padding_mask = _one_more_column(attn_mask), _one_more_column(key_padding_mask)
    q = ops.transpose(q.reshape(tgt_len, bsz * num_heads, head_dim), (1, 0, 2))
    k = static_k if static_k is not None else ops.transpose(k.reshape(k.shape[0], bsz * num_heads, head_dim), (1, 0, 2))
    v = static_v if static_v is not None else ops.transpose(v.reshape(v.shape[0], bsz * num_heads, head_dim), (1, 0, 2))
    if add_zero_attn:
        k = ops.cat([k, ops.zeros((k.shape[0], 1, head_dim), k.dtype)], axis=1)
        v = ops.cat([v, ops.zeros((v.shape[0], 1, head_dim), v.dtype)], axis=1)
        attn_mask, key_padding_mask = _one_more_column(attn_mask), _one_more_column(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = ops.tile(key_padding_mask.reshape(bsz, 1, 1, src_len), (1, num_heads, 1, 1))
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    scores = ops.matmul(q * (1.0 / head_dim) ** 0.5, ops.transpose(k, (0, 2, 1)))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = ops.softmax(scores, axis=-1)
    if training and dropout_p > 0.0:
        weights = ops.dropout(weights, p=dropout_p)
    out = ops.matmul(weights, v)
    out = ops.transpose(out, (1, 0, 2)).reshape(tgt_len * bsz, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if need_weights:
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(axis=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    return (out if batched else out.squeeze(1)), None


def torch_local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    """torch.nn.functional.local_response_norm in ops: x / (k + alpha / size * sum of x**2 over
    `size` channels, zero-padded size // 2 before and (size - 1) // 2 after) ** beta, any rank >= 3."""
    if input.ndim < 3:
        raise ValueError(f"For 'local_response_norm', the input must have 3 or more dimensions, "
                         f"but got {input.ndim}.")
    n, c = input.shape[0], input.shape[1]
    sq = (input * input).reshape(n, c, -1)
    before, after = size // 2, (size - 1) // 2
    padded = ops.cat([ops.zeros((n, before, sq.shape[2]), sq.dtype), sq,
                      ops.zeros((n, after, sq.shape[2]), sq.dtype)], axis=1)
    total = padded[:, 0:c]
    for j in range(1, size):
        total = total + padded[:, j:j + c]
    div = (total * (alpha / size) + k) ** beta
    return input / div.reshape(input.shape)


def torch_linspace(start, end, steps, dtype=None):
    """torch.linspace(start, end, steps, dtype=dtype): computed in float64 for float64 (else in
    float32), then cast to dtype; an integer dtype takes start and end as integers first and
    truncates, as torch's does."""
    if dtype is None:
        return ops.linspace(start, end, steps)
    if dtype in (ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8):
        start, end = int(start), int(end)
    wide = ms.float64 if dtype == ms.float64 else ms.float32
    return ops.linspace(ms.Tensor(start, wide), ms.Tensor(end, wide), steps).astype(dtype)


def torch_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """torch's F.scaled_dot_product_attention with options known at run time: softmax(q @ k^T *
    scale + masks) @ v; the causal mask keeps key j <= query i, a Bool attn_mask keeps where True,
    a float one adds (both apply when both are given, as torch 2.13 on CPU)."""
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    scores = ops.matmul(query, ops.swapaxes(key, -2, -1)) * scale
    if is_causal:
        upper = ops.triu(ops.ones((query.shape[-2], key.shape[-2]), ms.bool_), 1)
        scores = ops.masked_fill(scores, upper, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == ms.bool_:
            scores = ops.masked_fill(scores, ops.logical_not(attn_mask), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = ops.softmax(scores, -1)
    if dropout_p > 0:
        weights = ops.dropout(weights, p=float(dropout_p))
    return ops.matmul(weights, value)


def torch_foreach(op, tensors, *args, **kwargs):
    """torch._foreach_<op>(tensors, ...): the op on each tensor of the list with the matching
    element of each list argument (a scalar or a tensor is shared); ``op`` ending in ``_`` is the
    in-place form, which writes each result into its tensor (copy_) and returns None."""
    def operand(other=None, scalar=None, scalars=None, exponent=None):
        return next(v for v in (other, scalar, scalars, exponent) if v is not None)  # torch's names

    table = {
        "add": lambda t, *o, alpha=1, **k: t + operand(*o, **k) * alpha,
        "sub": lambda t, *o, alpha=1, **k: t - operand(*o, **k) * alpha,
        "mul": lambda t, *o, **k: t * operand(*o, **k),
        "div": lambda t, *o, **k: t / operand(*o, **k),
        "pow": lambda t, *o, **k: t ** operand(*o, **k),
        "maximum": lambda t, *o, **k: ops.maximum(t, operand(*o, **k)),
        "minimum": lambda t, *o, **k: ops.minimum(t, operand(*o, **k)),
        "clamp_min": lambda t, *o, **k: ops.clamp(t, min=operand(*o, **k)),
        "clamp_max": lambda t, *o, **k: ops.clamp(t, max=operand(*o, **k)),
        "lerp": lambda t, tensors1, weight=None, weights=None:
            t + (weight if weights is None else weights) * (tensors1 - t),
        "addcmul": lambda t, tensor1, tensor2, value=1, scalars=None:
            t + (value if scalars is None else scalars) * tensor1 * tensor2,
        "addcdiv": lambda t, tensor1, tensor2, value=1, scalars=None:
            t + (value if scalars is None else scalars) * tensor1 / tensor2,
        "neg": lambda t: -t, "abs": ops.abs, "sqrt": ops.sqrt, "rsqrt": ops.rsqrt, "exp": ops.exp,
        "log": ops.log, "reciprocal": ops.reciprocal, "sigmoid": ops.sigmoid, "sign": ops.sign,
        "zero": ops.zeros_like, "copy": lambda t, src, non_blocking=False: src,
    }
    fn, results = table[op.rstrip("_")], []
    for i, t in enumerate(tensors):
        pick = [a[i] if isinstance(a, (list, tuple)) else a for a in args]
        result = fn(t, *pick, **{k: v[i] if isinstance(v, (list, tuple)) else v for k, v in kwargs.items()})
        if not op.endswith("_"):
            results.append(result)
        elif result is not t:
            t.copy_(result.astype(t.dtype) if hasattr(result, "astype") else result)
    return results if not op.endswith("_") else None


def torch_activation_fn(activation):
    """torch.nn.modules.transformer._get_activation_fn: 'relu' -> relu, 'gelu' -> gelu (erf, torch's
    F.gelu default); any other name raises torch's RuntimeError."""
    if activation == "relu":
        return ops.relu
    if activation == "gelu":
        return lambda input: ops.gelu(input, approximate="none")
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def torch_sparse_coo_tensor(indices, values, size=None, dtype=None, device=None, pin_memory=None,
                             requires_grad=False, check_invariants=None, is_coalesced=None):
    """torch.sparse_coo_tensor as a dense Tensor (memory is dense): the values summed at their
    indices (duplicates add up, as coalesce() and to_dense() do); differentiable in values."""
    indices = indices if isinstance(indices, ms.Tensor) else ms.Tensor(indices)
    values = values if isinstance(values, ms.Tensor) else ms.Tensor(values)
    if dtype is not None:
        values = ops.cast(values, dtype)
    if size is None:  # torch: one past the largest index of each sparse axis, then the dense axes
        size = tuple(int(n) + 1 for n in indices.asnumpy().max(axis=1)) + tuple(values.shape[1:])
    return ops.scatter_nd(ops.cast(indices, ms.int64).T, values, tuple(size))


def torch_generate_square_subsequent_mask(sz, device=None, dtype=None):
    """torch.nn.Transformer.generate_square_subsequent_mask(sz): the (sz, sz) causal mask, 0.0 on
    and below the diagonal and -inf above it (float32 unless ``dtype``), as an additive
    attention mask."""
    del device
    full = ops.full((sz, sz), float("-inf"), dtype=ms.float32 if dtype is None else dtype)
    return ops.triu(full, diagonal=1)


def torch_as_strided(input, size, stride, storage_offset=0):
    """torch's x.as_strided(size, stride, storage_offset) of a contiguous tensor (MindSpore has
    none): the elements at storage_offset + sum(i_k * stride_k) of the flattened tensor, gathered
    (differentiable; frames of a signal, sliding windows)."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise ValueError(f"For 'as_strided', 'size' and 'stride' must have the same length, but got "
                         f"{len(size)} and {len(stride)}.")
    index = ops.full(size, storage_offset, dtype=ms.int32)
    for axis, (n, step) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        index = index + ops.arange(n, dtype=ms.int32).reshape(shape) * step
    return ops.gather(input.reshape(-1), index.reshape(-1), 0).reshape(size)


def torch_pad_crop(input, pad, mode="constant", value=None):
    """torch's F.pad where an amount may be negative (a crop): the negative amounts crop by
    slicing, the others pad with ops.pad (MindSpore 2.10's CPU ops.pad gives wrong values for a
    negative amount once it has run before). ``pad`` lists (before, after) pairs from the last axis."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError(f"For 'pad', 'pad' must hold (before, after) pairs for at most {input.ndim} axes, "
                         f"but got {pad}.")
    index = [slice(None)] * input.ndim
    for i in range(len(pad) // 2):
        axis, before, after = input.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        index[axis] = slice(max(-before, 0), input.shape[axis] - max(-after, 0))
    out = input[tuple(index)] if min(pad, default=0) < 0 else input
    rest = tuple(max(p, 0) for p in pad)
    if not any(rest):
        return out
    return ops.pad(out, rest, mode, value if mode == "constant" else None)


def torch_fill_diagonal(input, fill_value, wrap=False):
    """torch's x.fill_diagonal_(fill_value, wrap) out of place, differentiable: ops.where over a mask of the
    diagonal (MindSpore 2.10's FillDiagonal has no gradient). A matrix's (i, i), ``wrap`` continuing below a
    tall matrix's first square every ``cols + 1`` elements; a tensor of more dimensions, all of one size,
    its (i, i, ..., i)."""
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise ValueError(f"For 'fill_diagonal', the dimension of 'input' must be at least 2, but got {len(shape)}.")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"For 'fill_diagonal', when the dimension of 'input' is greater than 2, all its "
                         f"dimensions must have the same length, but got {shape}.")
    size = 1
    for n in shape:
        size *= n
    # the flat index of (i, i, ..., i) is i times the sum of the row-major strides
    step = sum(size // n ** (k + 1) for k, n in enumerate(shape)) if len(shape) > 2 else shape[1] + 1
    end = size if wrap or len(shape) > 2 else min(shape) * step
    flat = ops.arange(size, dtype=ms.int32)
    mask = ops.logical_and(flat % step == 0, flat < end).reshape(shape)
    return ops.where(mask, ms.Tensor(fill_value, input.dtype), input)


# torch's type promotion of tensors: the highest category wins (bool < integer < floating < complex),
# then the widest type of it; float16 with bfloat16 gives float32, uint8 with int8 gives int16
_CATEGORY = {"Bool": 0, "UInt8": 1, "Int8": 1, "Int16": 1, "Int32": 1, "Int64": 1, "Float16": 2, "BFloat16": 2,
             "Float32": 2, "Float64": 2, "Complex64": 3, "Complex128": 3}
_WIDTH = {"Bool": 1, "UInt8": 1, "Int8": 1, "Int16": 2, "Int32": 4, "Int64": 8, "Float16": 2, "BFloat16": 2,
          "Float32": 4, "Float64": 8, "Complex64": 8, "Complex128": 16}


def torch_promote_types(dtypes):
    """The dtype torch promotes tensors of ``dtypes`` to (torch.result_type of tensors of one rank)."""
    dtypes = list(dtypes)
    names = [str(d) for d in dtypes]
    top = max(_CATEGORY[n] for n in names)
    kinds = {n: d for n, d in zip(names, dtypes) if _CATEGORY[n] == top}
    if {"Float16", "BFloat16"} <= set(kinds) and not {"Float32", "Float64"} & set(kinds):
        return ms.float32
    if set(kinds) == {"UInt8", "Int8"}:
        return ms.int16
    return kinds[max(kinds, key=lambda n: _WIDTH[n])]


def _promoted(tensors, api):
    tensors = tuple(tensors)
    if not tensors:
        raise ValueError(f"For '{api}', 'tensors' must hold at least one tensor, but got none.")
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) == 1:
        return tensors
    dtype = torch_promote_types(t.dtype for t in tensors)
    return tuple(t if t.dtype == dtype else t.astype(dtype) for t in tensors)


def cat_promoted(tensors, axis=0):
    """ops.cat after torch's type promotion of the tensors (torch.cat promotes; MindSpore 2.10's Concat
    takes one dtype: an int64 tensor with a float32 one has no kernel)."""
    return ops.cat(_promoted(tensors, "cat"), axis)


def stack_promoted(tensors, axis=0):
    """ops.stack after torch's type promotion of the tensors (torch.stack promotes; MindSpore 2.10's Stack
    takes one dtype)."""
    return ops.stack(_promoted(tensors, "stack"), axis)


def torch_unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: the distinct elements (``dim``: the distinct slices along ``dim``), sorted, as torch gives
    them on CPU whatever ``sorted`` says; with ``return_inverse`` where each element (slice) went, with
    ``return_counts`` how often each occurs (int64). Flags and ``dim`` may be run-time values. torch has no
    gradient for it; this is computed on the values (MindSpore 2.10's Unique2 has no CPU kernel)."""
    values = input.asnumpy()
    if dim is not None:
        if not -values.ndim <= dim < max(values.ndim, 1):
            raise ValueError(f"For 'unique', 'dim' must be in [{-values.ndim}, {values.ndim}), but got {dim}.")
        dim = dim % values.ndim
    out, inverse, counts = np.unique(values, return_inverse=True, return_counts=True, axis=dim)
    inverse = inverse.reshape(values.shape if dim is None else (values.shape[dim],))
    result = [ms.Tensor(out)]
    if return_inverse:
        result.append(ms.Tensor(inverse.astype(np.int64)))
    if return_counts:
        result.append(ms.Tensor(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


def torch_angle(input):
    """torch.angle: the argument of each complex element (atan2 of its parts); for a real tensor,
    pi where an element is negative, 0 elsewhere, NaN kept (MindSpore 2.10's ops.angle has no
    kernel for a real input)."""
    if input.dtype in (ms.complex64, ms.complex128):
        return ops.atan2(ops.imag(input), ops.real(input))
    return ops.where(ops.isnan(input), input, (input < 0).astype(input.dtype) * np.pi)


def torch_conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch.nn.functional.conv_transpose2d through the Conv2DTranspose primitive (what nn.Conv2dTranspose
    runs): MindSpore 2.10's CPU backend has no kernel for the functional ops.conv_transpose2d. Input (N, C_in,
    H, W), weight (C_in, C_out / groups, kH, kW), torch's output size (in - 1)*s - 2p + d(k - 1) + out_pad + 1."""
    stride, padding, extra, dilation = (torch_ntuple(v, 2) for v in (stride, padding, output_padding, dilation))
    if input.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"For 'conv_transpose2d', the input and weight must be 4-D, but got {input.ndim}-D and "
                         f"{weight.ndim}-D.")
    sizes, pads, zeros = [], [], []
    for a in range(2):
        full = (input.shape[2 + a] - 1) * stride[a] + dilation[a] * (weight.shape[2 + a] - 1) + 1
        # output_padding adds rows at the end: less of them cropped there; past the full result, zeros
        after = padding[a] - extra[a]
        zeros.append(max(-after, 0))
        pads += [padding[a], max(after, 0)]
        sizes.append(full - padding[a] - max(after, 0))
    prim = ops.Conv2DTranspose(out_channel=weight.shape[0], kernel_size=tuple(weight.shape[2:]), pad_mode="pad",
                               pad=tuple(pads), stride=stride, dilation=dilation, group=groups)
    out = prim(input, weight, (input.shape[0], weight.shape[1] * groups, *sizes))
    if any(zeros):
        out = ops.pad(out, (0, zeros[1], 0, zeros[0]))
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


def torch_conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch.nn.functional.conv_transpose1d: :func:`torch_conv_transpose2d` over a unit height (input (N, C_in,
    L), weight (C_in, C_out / groups, k)); MindSpore has no functional 1-D transposed convolution."""
    if input.ndim != 3 or weight.ndim != 3:
        raise ValueError(f"For 'conv_transpose1d', the input and weight must be 3-D, but got {input.ndim}-D and "
                         f"{weight.ndim}-D.")
    def wide(v):
        return (1, torch_ntuple(v, 1)[0])
    out = torch_conv_transpose2d(input.expand_dims(2), weight.expand_dims(2), bias, wide(stride),
                                 (0, torch_ntuple(padding, 1)[0]), (0, torch_ntuple(output_padding, 1)[0]), groups,
                                 wide(dilation))
    return out.squeeze(2)


def softmax_guarded(input, axis=-1, dtype=None):
    """ops.softmax, except over an axis of length 1, where the result (ones) is written input - input + 1 (NaN kept,
    gradient zero, as torch's): MindSpore 2.10's CPU Softmax over a length-1 axis makes the gradient of another
    softmax in the same backward pass wrong (segformer's attention over a 1x1 map)."""
    if dtype is not None:
        input = input.astype(dtype)
    if input.ndim and input.shape[axis] == 1:
        return input - input + 1
    return ops.softmax(input, axis)


def torch_roll(input, shifts, dims=None):
    """torch.roll as slices joined by ops.cat (MindSpore 2.10's CPU backend has no Roll kernel):
    each axis of ``dims`` shifted by its ``shifts``; without dims, the flattened tensor."""
    if dims is None:
        return torch_roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have the same length, but got "
                         f"{len(shifts)} and {len(dims)}.")
    out = input
    for shift, dim in zip(shifts, dims):
        n = out.shape[dim]
        k = shift % n if n else 0
        if k:
            index = [slice(None)] * out.ndim
            index[dim] = slice(n - k, None)
            tail = out[tuple(index)]
            index[dim] = slice(0, n - k)
            out = ops.cat((tail, out[tuple(index)]), dim)
    return out


def _stft_window(window, win_length, n_fft, dtype):
    """torch's window for a frame of ``n_fft`` samples: ``window`` (ones when None) of
    ``win_length`` samples, zero-padded on both sides to ``n_fft``."""
    if window is None:
        window = ops.ones((win_length,), dtype)
    if window.shape[0] != win_length:
        raise ValueError(f"For 'stft', the window must have win_length={win_length} samples, but got "
                         f"{window.shape[0]}.")
    left = (n_fft - win_length) // 2
    return ops.pad(window, (left, n_fft - win_length - left)) if win_length < n_fft else window


def torch_stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
               pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """torch.stft of a real signal (L,) or (B, L): frames of ``n_fft`` samples every
    ``hop_length``, windowed, their rfft as (B, n_fft // 2 + 1, frames), complex (torch's
    view_as_real layout with return_complex=False). Gathered frames and ops.rfft: differentiable
    on either backend, where MindSpore 2.10's ops.stft returns complex128 and has no istft."""
    if onesided is False:
        raise ValueError("For 'stft', onesided=False (both halves of the spectrum) is not supported "
                         "for a real input: take ops.fft of the frames.")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    single = input.ndim == 1
    x = input.reshape(1, -1) if single else input
    if center:
        if pad_mode not in ("reflect", "constant", "replicate", "circular"):
            raise ValueError(f"For 'stft', the 'pad_mode' must be one of ['reflect', 'constant', 'replicate', "
                             f"'circular'], but got {pad_mode!r}.")
        x = ops.pad(x.reshape(x.shape[0], 1, -1), (n_fft // 2, n_fft // 2), mode=pad_mode).reshape(x.shape[0], -1)
    count = 1 + (x.shape[-1] - n_fft) // hop_length
    frames = torch_unfold_windows(x, 1, n_fft, hop_length)[:, :count]  # (B, frames, n_fft)
    w = _stft_window(window, win_length, n_fft, x.dtype)
    if normalized:  # scaled before the transform: MindSpore 2.10 does not differentiate a complex Mul
        w = w * (n_fft ** -0.5)
    spectrum = ops.transpose(ops.rfft(frames * w, dim=-1), (0, 2, 1))
    if not return_complex:
        spectrum = ops.view_as_real(spectrum)
    return spectrum[0] if single else spectrum


def _overlap_add(frames, hop_length):
    """Frames (B, T, n) placed every ``hop_length`` samples and summed: (B, n + hop * (T - 1)).
    Each frame is cut in blocks of ``hop_length``; block i of frame t lands on output block t + i."""
    batch, count, n = frames.shape
    blocks = -(-n // hop_length)
    if blocks * hop_length != n:
        frames = ops.pad(frames, (0, blocks * hop_length - n))
    frames = frames.reshape(batch, count, blocks, hop_length)
    out = None
    for i in range(blocks):
        placed = ops.pad(frames[:, :, i], (0, 0, i, blocks - 1 - i))  # (B, T + blocks - 1, hop)
        out = placed if out is None else out + placed
    return out.reshape(batch, -1)[:, :n + hop_length * (count - 1)]


def torch_istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
                normalized=False, onesided=None, length=None, return_complex=False):
    """torch.istft of a complex spectrum (F, T) or (B, F, T), F = n_fft // 2 + 1: the irfft of
    each frame, windowed, overlap-added and divided by the summed squared window (torch's
    least-squares inverse); ``center`` trims n_fft // 2 samples at the start, ``length`` sets the
    output's. In ops (irfft, pads, sums): differentiable; MindSpore 2.10 has no istft."""
    if return_complex or onesided is False:
        raise ValueError("For 'istft', only a onesided spectrum back to a real signal is supported "
                         "(return_complex=False, onesided=None or True).")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    single = input.ndim == 2
    z = input.reshape((1,) + tuple(input.shape)) if single else input
    frames = ops.irfft(ops.transpose(z, (0, 2, 1)), n_fft, dim=-1)  # (B, T, n_fft)
    w = _stft_window(window, win_length, n_fft, frames.dtype)
    # scaled after the transform: MindSpore 2.10 does not differentiate a complex Mul
    signal = _overlap_add(frames * (w * n_fft ** 0.5 if normalized else w), hop_length)
    envelope = _overlap_add(ops.broadcast_to(w * w, (1, frames.shape[1], n_fft)), hop_length)
    start = n_fft // 2 if center else 0
    end = signal.shape[-1] - (n_fft // 2 if center else 0)
    if length is not None:
        end = start + length
    kept = envelope[:, start:end]
    if bool((ops.abs(kept) < 1e-11).any()):
        raise ValueError("For 'istft', the window's overlap-add is zero somewhere in the output: the "
                         "window, hop_length and n_fft do not satisfy the NOLA condition.")
    out = signal[:, start:end] / kept
    if length is not None and out.shape[-1] < length:
        out = ops.pad(out, (0, length - out.shape[-1]))
    return out[0] if single else out


class TorchReduction(tuple):
    """torch's (values, indices) result of a reduction along a dim (torch.return_types)."""

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def _torch_extreme(input, dim, keepdim, whole, along, elementwise):
    """torch.max / torch.min's three forms: the extreme element (``whole``); with an int ``dim``
    (values, indices) along it (``along``); with a tensor, the elementwise extreme (``elementwise``)."""
    if dim is None:
        return whole(input)
    if isinstance(dim, int):
        return TorchReduction(along(input, dim, keepdims=keepdim))
    return elementwise(input, dim)


def torch_max(input, dim=None, keepdim=False):
    """torch.max as a value (``op = torch.max``; the converter writes a direct call idiomatically):
    the largest element; with an int ``dim`` (values, indices) along it; with a tensor, the
    elementwise maximum of the two."""
    return _torch_extreme(input, dim, keepdim, ops.amax, ops.max, ops.maximum)


def torch_min(input, dim=None, keepdim=False):
    """torch.min as a value: the smallest element; with an int ``dim`` (values, indices) along
    it; with a tensor, the elementwise minimum of the two."""
    return _torch_extreme(input, dim, keepdim, ops.amin, ops.min, ops.minimum)


def _is_tensor(value) -> bool:
    return hasattr(value, "asnumpy") and hasattr(value, "dtype")


def _complex_operands(a, b):
    """``a`` and ``b`` as MindSpore 2.10's CPU kernels take them when one is complex, as torch
    promotes: a Python complex becomes a complex tensor and a real tensor (or number) beside a
    complex one is cast (complex128 when a float64/complex128 tensor is among them, else
    complex64). Plain numbers, and two real operands, are left as they are."""
    if not (_is_tensor(a) or _is_tensor(b)):
        return a, b
    dtypes = [v.dtype for v in (a, b) if _is_tensor(v)]
    complex_dtypes = (ms.complex64, ms.complex128)
    if not any(isinstance(v, complex) for v in (a, b)) and not any(d in complex_dtypes for d in dtypes):
        return a, b
    wide = any(d in (ms.float64, ms.complex128) for d in dtypes)
    dtype, np_dtype = (ms.complex128, np.complex128) if wide else (ms.complex64, np.complex64)

    def promoted(v):
        if _is_tensor(v):
            return v if v.dtype == dtype else v.astype(dtype)
        return ms.Tensor(np.array(v, np_dtype))

    return promoted(a), promoted(b)


def complex_mul(a, b):
    """torch's ``a * b`` where one side is complex (``mag * (x + 1j * y)``): MindSpore 2.10's
    CPU Mul refuses a Python complex and a real tensor beside a complex one (see _complex_operands)."""
    a, b = _complex_operands(a, b)
    return a * b


def complex_div(a, b):
    """torch's ``a / b`` where one side is complex (see complex_mul)."""
    a, b = _complex_operands(a, b)
    return a / b


def complex_add(a, b):
    """torch's ``a + b`` with a Python complex beside a tensor (``x + 1j``): refused by MindSpore 2.10's Add."""
    a, b = _complex_operands(a, b)
    return a + b


def complex_sub(a, b):
    """torch's ``a - b`` with a Python complex beside a tensor (see complex_add)."""
    a, b = _complex_operands(a, b)
    return a - b
