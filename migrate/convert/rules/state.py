"""Rules for torch's autograd state and list ops: activation checkpointing, the grad mode,
``torch._foreach_*``.

``torch.utils.checkpoint.checkpoint(fn, *args, **kwargs)`` trades memory for recomputation: the
values and gradients are those of ``fn(*args, **kwargs)``, which is what the converted code calls.
torch 2.13 passes keywords through to ``fn`` only with ``use_reentrant=False`` (``None``, the
default, means True and refuses them with a ValueError): the generated ``torch_checkpoint``
keeps that check when ``use_reentrant`` is not written as False.

``torch._foreach_<op>(tensors, ...)`` becomes the generated ``torch_foreach("<op>", tensors, ...)``
(arguments as written: the helper reads torch's parameter names), which loops over the list with
the one-tensor op; the in-place forms write back with ``copy_`` (Parameters too).

Every rule has one signature, ``apply(edit) -> None``.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import code_of
from migrate.convert.registry import argument_rule


def _plain_args(args: list) -> list:
    """``args`` (cst.Arg) as arguments of a new call: commas and spacing of the new call's own."""
    return [cst.Arg(a.value, keyword=a.keyword, star=a.star,
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace(""))
                    if a.keyword is not None else cst.MaybeSentinel.DEFAULT)
            for a in args]


@argument_rule("MS350", "checkpoint_keywords", needs=["torch_checkpoint"], examples=[
    ("y = torch.utils.checkpoint.checkpoint(f, x, b=1)\n",
     "y = torch_checkpoint(f, x, b=1)\n"),
])
def checkpoint_keywords(edit) -> None:
    """Replace torch.utils.checkpoint.checkpoint(fn, *args, k=v) with fn(*args, k=v) when
    use_reentrant=False, else with torch_checkpoint(fn, *args, k=v) (torch's check of the keywords)."""
    if not edit.kwargs_args:
        return  # fn(*args): the entry's template
    reentrant = edit.bound.get("use_reentrant")
    if reentrant is not None and code_of(reentrant) == "False" \
            and not any(a.star == "**" for a in edit.kwargs_args):
        function = edit.bound["function"]
        edit.result = cst.Call(function, _plain_args([*edit.star_args, *edit.kwargs_args]))
        edit.note("keyword arguments passed through to the function (use_reentrant=False)")
        return
    edit.result = cst.Call(cst.Name(edit.helper("torch_checkpoint")), _plain_args(list(edit.call.args)))
    edit.note("torch_checkpoint: torch 2.13 refuses keywords for the function unless use_reentrant=False")


@argument_rule("MS351", "foreach", needs=["torch_foreach"], examples=[
    ("torch._foreach_mul_(ps, 0.5)\n",
     "torch_foreach('mul_', ps, 0.5)\n"),
])
def foreach(edit) -> None:
    """Replace torch._foreach_<op>(tensors, ...) with torch_foreach('<op>', tensors, ...) (the op on
    each tensor of the list; the in-place form writes each result back)."""
    qual = edit.converter.qual(edit.call.func) or ""
    op = qual.rpartition("._foreach_")[2]
    edit.result = cst.Call(cst.Name(edit.helper("torch_foreach")),
                           [cst.Arg(cst.SimpleString(repr(op))), *_plain_args(list(edit.call.args))])


# torch's grad-mode functions -> the generated helper over MindSpore's grad mode
_GRAD_MODE_HELPERS = {"no_grad": "torch_no_grad", "enable_grad": "TorchEnableGrad",
                      "set_grad_enabled": "TorchSetGradEnabled",
                      "_set_grad_enabled": "TorchSetGradEnabled", "is_grad_enabled": "torch_is_grad_enabled"}


@argument_rule("MS352", "grad_mode",
    needs=["TorchEnableGrad", "TorchSetGradEnabled", "torch_is_grad_enabled", "torch_no_grad"], examples=[
    ("on = torch.is_grad_enabled()\n",
     "on = torch_is_grad_enabled()\n"),
    ("with torch.no_grad():\n"
     "    y = x * 2\n",
     "with torch_no_grad():\n"
     "    y = x * 2\n"),
])
def grad_mode(edit) -> None:
    """Replace torch.no_grad() / torch.set_grad_enabled(m) / torch.enable_grad() /
    torch.is_grad_enabled() with the runtime's torch_no_grad() / TorchSetGradEnabled(m) /
    TorchEnableGrad() / torch_is_grad_enabled(), which read and set MindSpore's grad mode (a flag
    MindSpore 2.10 keeps private: the runtime is the one place that reaches it), and
    torch.inference_mode() with torch_no_grad()."""
    if "orig_func" in edit.bound:
        edit.unsupported("enable_grad(function): decorate with @torch.enable_grad() instead")
        return
    if edit.entry.torch.endswith("inference_mode"):
        if code_of(edit.value("mode")) != "True":
            edit.unsupported("inference_mode(mode) with mode other than True")
            return
        edit.result = cst.Call(cst.Name(edit.helper("torch_no_grad")), [])
        return
    args = [cst.Arg(edit.bound["mode"])] if "mode" in edit.bound else []
    edit.result = cst.Call(cst.Name(edit.helper(_GRAD_MODE_HELPERS[edit.entry.torch.rsplit(".", 1)[1]])), args)


@argument_rule("MS353", "activation_fn", needs=["torch_activation_fn"], examples=[
    ("f = torch.nn.modules.transformer._get_activation_fn('gelu')\n",
     "f = torch_activation_fn('gelu')\n"),
])
def activation_fn(edit) -> None:
    """Replace torch.nn.modules.transformer._get_activation_fn(name) with the generated
    torch_activation_fn(name) ('relu' / 'gelu' -> the MindSpore function, torch's error otherwise)."""
    edit.result = cst.Call(cst.Name(edit.helper("torch_activation_fn")), [cst.Arg(edit.bound["activation"])])
