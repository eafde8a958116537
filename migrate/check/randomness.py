"""Random numbers a torch forward draws outside dropout (``torch.rand`` in a stochastic-depth or
drop-connect helper, say, or inside a fused attention kernel with dropout_p > 0).

The checker replays dropout masks, module and functional, in the converted model; other random
draws are not replayed, so in the modes where the model draws them the two sides compute with
different random numbers. :class:`RandomDraws` notes every such draw (function and call site)
while a torch run is recorded, so that a difference there is reported with its cause instead of
being taken for a conversion fault.
"""
from __future__ import annotations

import os
import sys

FUNCTIONS = ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like", "bernoulli",
             "normal", "multinomial", "randperm", "poisson")
_HERE = os.path.dirname(os.path.abspath(__file__))


class RandomDraws:
    """Context manager: while entered, calls of torch's random functions are recorded in
    `draws` as (function, 'file:line') in call order; the functions still run as before."""

    def __init__(self):
        self.draws: list = []
        self._saved: dict = {}

    def __enter__(self):
        import torch
        for name in FUNCTIONS:
            orig = getattr(torch, name, None)
            if orig is None:
                continue
            self._saved[name] = orig

            def wrapper(*args, _orig=orig, _name=name, **kwargs):
                self.draws.append((f"torch.{_name}", _call_site()))
                return _orig(*args, **kwargs)
            setattr(torch, name, wrapper)
        self._spy_fused_attention()
        return self

    def _spy_fused_attention(self):
        """F.scaled_dot_product_attention with dropout_p > 0 drops inside its kernel."""
        import torch.nn.functional as TF
        orig = getattr(TF, "scaled_dot_product_attention", None)
        if orig is None:
            return
        self._saved_sdpa = orig

        def wrapper(*args, _orig=orig, **kwargs):
            p = kwargs.get("dropout_p", args[4] if len(args) > 4 else 0.0)
            if p:
                self.draws.append((f"F.scaled_dot_product_attention(dropout_p={p:g})",
                                   _call_site()))
            return _orig(*args, **kwargs)
        TF.scaled_dot_product_attention = wrapper

    def __exit__(self, *exc):
        import torch
        for name, orig in self._saved.items():
            setattr(torch, name, orig)
        self._saved = {}
        if getattr(self, "_saved_sdpa", None) is not None:
            import torch.nn.functional as TF
            TF.scaled_dot_product_attention = self._saved_sdpa
            self._saved_sdpa = None

    def summary(self, limit: int = 3) -> str:
        """'torch.rand at utils.py:150 (x16)' for the most frequent sites, or ''."""
        counts: dict = {}
        for draw in self.draws:
            counts[draw] = counts.get(draw, 0) + 1
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:limit]
        return ", ".join(f"{name} at {site} (x{n})" for (name, site), n in top)


def _call_site() -> str:
    """The innermost caller outside torch and this package: the model's own line."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if os.sep + "torch" + os.sep not in path and not path.startswith(_HERE):
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"
