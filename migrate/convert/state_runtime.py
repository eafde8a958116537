"""Generated code for torch's autograd and random state: activation checkpointing, the grad mode,
the ``torch._foreach_*`` list ops, attention whose options come at run time, ``fork_rng``.

Each template is copied into the converted file that needs it (through
:meth:`~migrate.convert.torch_signature.TorchSignatures.helper`); ``ms`` and ``ops`` are the
file's target modules (MindSpore 2.10 or ms_core).

The grad mode is the framework's own: MindSpore 2.10's ``ms._no_grad`` switches the PyNative
executor's ``enable_grad`` flag off (ops run inside record nothing, also inside ``ms.grad``, as
torch's no_grad), and ms_core mirrors it. ``_torch_is_grad_enabled`` reads that flag and
``_torch_set_grad_enabled`` sets it, so torch's ``is_grad_enabled()`` answers as torch's does
under the converted ``no_grad`` / ``set_grad_enabled``, in every converted file alike.
"""
from __future__ import annotations

_CHECKPOINT = '''
def _torch_checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
                      debug=False, early_stop=True, **kwargs):
    """torch.utils.checkpoint.checkpoint(function, *args, **kwargs) without the recomputation (a
    memory trade: same values and gradients), with torch 2.13's checks of its arguments: keywords
    for the function need use_reentrant=False (None means True)."""
    kwargs.pop("preserve_rng_state", None)
    if use_reentrant is None or use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if context_fn is not None:
        raise ValueError("For 'checkpoint', context_fn (custom recomputation contexts) has no counterpart.")
    return function(*args, **kwargs)
'''

_SDPA = '''
def _torch_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
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
'''

SOURCES = {"_torch_checkpoint": _CHECKPOINT, "_torch_sdpa": _SDPA}
NEEDS: dict = {}
