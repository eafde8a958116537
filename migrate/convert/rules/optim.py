"""Argument rules for optimizers: the ``rule`` names that mappings/training.toml gives its
torch.optim entries. Every rule has one signature, ``apply(edit) -> None``."""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import primary
from migrate.convert.registry import argument_rule


@argument_rule("MS220", "asgd_floats")
def asgd_floats(edit) -> None:
    """Replace ASGD's int lambd/t0 (t0=1) with floats (t0=1.0): MindSpore 2.10's ASGD refuses ints."""
    for key in ("lambd", "t0"):
        value = edit.get(key)
        if value is None or isinstance(value, cst.Float):
            continue
        if isinstance(value, cst.Integer):
            edit.set(key, f"{value.value}.0")
        else:
            edit.set(key, f"float({primary(value)})")


@argument_rule("MS236", "lbfgs")
def lbfgs(edit) -> None:
    """Replace optim.LBFGS(params, lr=...) with the generated TorchLBFGS(params, lr=...) (torch's
    algorithm without a line search; its step(closure) takes the closure the training pass writes,
    which returns (loss, grads))."""
    search = edit.get("line_search_fn")
    if search is not None and not (isinstance(search, cst.Name) and search.value == "None"):
        edit.unsupported("line_search_fn='strong_wolfe': the generated LBFGS steps by lr only (torch's default)")
        return
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in edit.call.args]
    edit.result = cst.Call(cst.Name(edit.helper("TorchLBFGS")), args)
