"""torch methods on receivers the converter cannot type, whose name MindSpore's Tensor or Cell
holds with another meaning or not at all.

``x.size()`` is torch's shape; MindSpore's ``Tensor.size`` is the element count, an int property,
so ``x.size()`` left as written raises "'int' object is not callable" and ``x.size`` would be a
wrong number. Where ``x`` is a function parameter, an attribute, a call result or a loop variable
the walk cannot tell a tensor from a user object with a ``size()`` method of its own, so the call
goes through a generated helper that decides at run time
(:func:`~migrate.runtime.values.torch_size`).

The other names checked (MindSpore 2.10 and ms_core alike): ``dim()``, ``numel()``,
``nelement()``, ``ndimension()`` mean what torch's do and are left as written; ``view(*shape)``
and ``view(dtype)`` (a bit reinterpretation) too; ``type()`` is handled by its table entry on any
receiver (MS174), ``stride()`` gives the contiguous layout's strides (MS333).

``m.train()`` / ``m.eval()`` on a value not known to be a module (``model = GPT(cfg)`` with GPT
imported from another file) would raise on a Cell, which has ``set_train`` only: the generated
``torch_train`` / ``torch_eval`` call ``set_train`` on a Cell, the object's own method otherwise.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.receivers import is_module, is_tensor
from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import signatures

UNTYPED_SIZE = node_rule(
    "MS250", "untyped_size",
    "Replace x.size() / x.size(d) / x.size(dim=d) on a receiver not known to be a tensor with "
    "torch_size(x) / torch_size(x, d): a tensor's shape (MindSpore's Tensor.size is the element "
    "count), any other object's own size().", needs=["torch_size"], examples=[
    ("def f(self, o):\n"
     "    return o.size()\n",
     "def f(self, o):\n"
     "    return torch_size(o)\n"),
])
UNTYPED_MODE = node_rule(
    "MS253", "untyped_train_mode",
    "Replace m.train() / m.train(mode) / m.eval() on a receiver not known to be a module with "
    "torch_train(m) / torch_eval(m): a Cell's set_train (a MindSpore Cell has no train/eval), any "
    "other object's own method.", needs=["torch_eval", "torch_train"], examples=[
    ("def f(job):\n"
     "    job.train()\n"
     "    job.eval()\n",
     "def f(job):\n"
     "    torch_train(job)\n"
     "    torch_eval(job)\n"),
])

UNTYPED_REPEAT = node_rule(
    "MS246", "untyped_repeat",
    "Replace x.repeat(*sizes) on a receiver not known to be a tensor with torch_repeat(x, *sizes): "
    "a tensor tiled (torch's repeat; MindSpore 2.10's Tensor.repeat has no CPU kernel for it), any other "
    "object's own repeat().", needs=["torch_repeat"], examples=[
    ("def f(w, c):\n"
     "    return w.repeat([c, 1])\n",
     "def f(w, c):\n"
     "    return torch_repeat(w, [c, 1])\n"),
])

# method -> (rule, helper, the torch keyword of its one optional argument; "*": any positional ones)
_METHODS = {"size": (UNTYPED_SIZE, "torch_size", "dim"), "train": (UNTYPED_MODE, "torch_train", "mode"),
            "eval": (UNTYPED_MODE, "torch_eval", None), "repeat": (UNTYPED_REPEAT, "torch_repeat", "*")}
_NOTES = {"size": "the receiver may be a tensor (shape) or another object (its own size())",
          "repeat": "the receiver may be a tensor (tiled, as torch's repeat does) or another object (its own "
                    "repeat())",
          "train": "the receiver may be a Cell (set_train) or another object (its own method)",
          "eval": "the receiver may be a Cell (set_train(False)) or another object (its own method)"}


def is_untyped_call(converter, node: cst.Call, recv0, name: str) -> bool:
    """``recv0.<name>(...)`` (size, train, eval) called with torch's signature on a receiver the
    walk does not know, in a file that imports torch."""
    if name not in _METHODS or not converter.walk_state.aliases or not converter.allows(_METHODS[name][0].id):
        return False
    keyword = _METHODS[name][2]
    args = node.args
    if keyword == "*":
        if not args or any(a.keyword is not None or a.star == "**" for a in args):
            return False
    elif len(args) > (1 if keyword else 0) or any(a.star for a in args):
        return False
    elif args and args[0].keyword is not None and args[0].keyword.value != keyword:
        return False
    if isinstance(recv0, cst.Name) and recv0.value == "self" or is_module(converter, recv0):
        return False  # a Cell's own method, or a module the tables translate
    # a torch tensor has no train()/eval(): a receiver typed as one (`model = torch.load(f)`) is not
    return name not in ("size", "repeat") or not is_tensor(converter, recv0)


def untyped_call(converter, node: cst.Call, walked: cst.Call, name: str) -> cst.Call:
    """Apply MS250 / MS253: ``walked`` is ``node`` (``x.size(...)``) with its parts converted."""
    rule, helper, _ = _METHODS[name]
    local = signatures(converter).helper(helper)
    args = [cst.Arg(walked.func.value), *(cst.Arg(a.value, star=a.star) for a in walked.args)]
    new = cst.Call(cst.Name(local), args)
    converter.record(node, new, rule.id, "exact", _NOTES[name])
    return new
