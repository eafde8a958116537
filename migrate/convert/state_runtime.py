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

SOURCES = {"_torch_checkpoint": _CHECKPOINT}
NEEDS: dict = {}
