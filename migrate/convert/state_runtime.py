"""Generated code for torch's autograd state and run-time choices: activation checkpointing, the
grad mode, the ``torch._foreach_*`` list ops, attention whose options come at run time, the
transformer's activation by name.

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

# torch's _foreach_ ops, each on one tensor with torch's parameter names (other/scalar/scalars:
# the second operand's names across torch's overloads)
FOREACH_OPS = ("add", "sub", "mul", "div", "lerp", "addcmul", "addcdiv", "pow", "maximum", "minimum",
               "clamp_min", "clamp_max", "neg", "abs", "sqrt", "rsqrt", "exp", "log", "reciprocal",
               "sigmoid", "sign", "zero", "copy")
_FOREACH = '''
def _torch_foreach(op, tensors, *args, **kwargs):
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
'''

_IS_GRAD_ENABLED = '''
def _torch_is_grad_enabled():
    """torch.is_grad_enabled(): MindSpore's grad mode (False inside ms._no_grad, torch's no_grad
    converted, and after set_grad_enabled(False))."""
    return ms.common.api._pynative_executor.enable_grad()
'''

_SET_GRAD_ENABLED = '''
class _TorchSetGradEnabled:
    """torch.set_grad_enabled(mode): sets MindSpore's grad mode at once (the flag ms._no_grad
    sets), as torch's function does; used as a context, it restores the previous mode at exit."""

    def __init__(self, mode):
        self.prev, self.mode = ms.common.api._pynative_executor.enable_grad(), bool(mode)
        ms.common.api._pynative_executor.set_enable_grad(self.mode)

    def __call__(self, fn):  # as a decorator: the mode is set while fn runs only (torch's too)
        ms.common.api._pynative_executor.set_enable_grad(self.prev)

        def with_mode(*args, **kwargs):
            with _TorchSetGradEnabled(self.mode):
                return fn(*args, **kwargs)
        return with_mode

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        ms.common.api._pynative_executor.set_enable_grad(self.prev)
        return False
'''

_ENABLE_GRAD = '''
class _TorchEnableGrad:
    """torch.enable_grad(): a context (and decorator) that turns MindSpore's grad mode on while it
    is entered and restores the previous mode at exit (the counterpart of ms._no_grad)."""

    def __call__(self, fn):
        def enabled(*args, **kwargs):
            with _TorchEnableGrad():
                return fn(*args, **kwargs)
        return enabled

    def __enter__(self):
        self.prev = ms.common.api._pynative_executor.enable_grad()
        ms.common.api._pynative_executor.set_enable_grad(True)

    def __exit__(self, *exc):
        ms.common.api._pynative_executor.set_enable_grad(self.prev)
        return False
'''

_ACTIVATION_FN = '''
def _torch_activation_fn(activation):
    """torch.nn.modules.transformer._get_activation_fn: 'relu' -> relu, 'gelu' -> gelu (erf, torch's
    F.gelu default); any other name raises torch's RuntimeError."""
    if activation == "relu":
        return ops.relu
    if activation == "gelu":
        return lambda input: ops.gelu(input, approximate="none")
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")
'''

SOURCES = {"_torch_activation_fn": _ACTIVATION_FN, "_torch_is_grad_enabled": _IS_GRAD_ENABLED,
           "_TorchSetGradEnabled": _SET_GRAD_ENABLED, "_TorchEnableGrad": _ENABLE_GRAD,
           "_torch_checkpoint": _CHECKPOINT, "_torch_sdpa": _SDPA, "_torch_foreach": _FOREACH}
NEEDS: dict = {}
