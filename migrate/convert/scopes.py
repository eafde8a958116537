"""What the walker knows inside one function or one class: typed scopes instead of dicts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FunctionScope:
    """Names known inside one function body (the module body is a scope too).

    Attributes:
        tensors: names bound to torch tensors (parameters of a Cell's forward, annotated
            ``torch.Tensor``, results of tensor operations).
        modules: names bound to modules (``m = nn.Linear(...)``, ``m = Net()``).
        narrow: name -> the classes an enclosing ``isinstance(name, ...)`` test allows.
        forward: this is a Cell's ``forward``/``construct`` (calling a sub-cell gives a tensor).
        layer_classes: name -> the torch layer classes it holds (``norm_layer=nn.BatchNorm2d``).
        layers: name -> the torch layer class of the instance it was last assigned
            (``bn = nn.BatchNorm2d(c)``: ``bn.weight`` is ``bn.gamma``).
        shadowed: module-level imports this function binds as locals (``def batchify(data)``
            in a file that does ``import data``): inside it those names are not modules.
        local_names: every name the function binds (None for the module body): a name it does
            not bind is looked up in the enclosing scopes, as Python does.
        owned: local tensors no alias can see (:mod:`migrate.convert.owned`): an in-place update
            of one is a rebinding.
        settled: the walk made an assignment of the function ``name = None``
            (:mod:`migrate.convert.tidy`).
        dtypes: name -> the dtype its last assignment has by form (:mod:`migrate.convert.dtype_forms`),
            None when only run time knows.
        state_dicts: names whose last assignment is ``x.state_dict()``: their items are the
            module's own tensors (torch's share storage with them), written into by copy_.
        node: the function's node (None for the module body).
        name_counts: name -> how often the function's body reads it (computed when first asked).
        grad_off: the statement being walked runs with torch's grad mode off (inside ``with
            torch.no_grad():``, or a function decorated ``@torch.no_grad()``): nothing it
            computes is recorded for a backward.
    """

    tensors: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    narrow: dict[str, list[str]] = field(default_factory=dict)
    forward: bool = False
    layer_classes: dict[str, list[str]] = field(default_factory=dict)
    layers: dict[str, str] = field(default_factory=dict)
    shadowed: set[str] = field(default_factory=set)
    local_names: set[str] | None = None
    owned: frozenset = frozenset()
    settled: bool = False  # holds a SettledNone (migrate.convert.tidy)
    dtypes: dict[str, str | None] = field(default_factory=dict)
    state_dicts: set[str] = field(default_factory=set)
    grad_off: bool = False
    node: Any = None
    name_counts: dict[str, int] | None = None


@dataclass
class ClassScope:
    """One class being walked.

    Attributes:
        name: the class name.
        cell: it becomes a Cell (it derives from an nn.Module, or is assumed to).
        function: it derives from torch.autograd.Function.
        attrs: ``self.<attr>`` (or ``<attr>.<key>`` of a ModuleDict) -> the layer class
            assigned to it (a torch qualname or a Cell class of this file); shared by every
            walk of the same class name.
        torch_base: the torch layer class it derives from (``class Conv2dSame(nn.Conv2d)``),
            directly or through a class of the same file, or None.
        converted: it derives from the target's ``nn.Cell`` (an earlier conversion's output):
            that conversion decided how its reads of its layers' attributes are written.
        optimizer: it derives from ``torch.optim.Optimizer``: its methods update tensors with
            nothing recorded for a backward (torch's own run under no_grad).
    """

    name: str
    cell: bool
    function: bool
    attrs: dict[str, str]
    torch_base: str | None = None
    converted: bool = False
    optimizer: bool = False
