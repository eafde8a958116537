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
