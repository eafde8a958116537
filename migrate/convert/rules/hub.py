"""Argument rules for pretrained torch weights: downloading a torch checkpoint and loading a
state dict into a converted model (ms_core's ``ms.hub``; MindSpore 2.10 has no counterpart).

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import code_of
from migrate.convert.registry import argument_rule

_NO_MINDSPORE = ("MindSpore 2.10 cannot read a torch checkpoint: convert it once with `migrate "
                 "weights` and load it with ms.load_checkpoint + ms.load_param_into_net (or convert "
                 "with the ms_core target, whose ms.hub reads torch checkpoints without torch)")


@argument_rule("MS168", "torch_checkpoint")
def torch_checkpoint(edit) -> None:
    """Replace torch.hub.load_state_dict_from_url / model_zoo.load_url with ms.hub.load_state_dict_from_url (ms_core: reads the torch file without torch; marked for --target mindspore)."""
    if edit.conv.target_name == "mindspore":
        edit.unsupported(_NO_MINDSPORE, "MS901")


@argument_rule("MS139", "torch_load")
def torch_load(edit) -> None:
    """Replace torch.load(f) with ms.hub.load(f) on ms_core (torch files and the checkpoints converted code saves), ms.load_checkpoint(f) for --target mindspore."""
    if edit.conv.target_name != "mindspore":
        edit.func = edit.conv.target("ms.hub.load")


@argument_rule("MS125", "load_state_dict")
def load_state_dict(edit) -> None:
    """Replace net.load_state_dict(sd, strict) with ms.hub.load_state_dict(net, sd, strict) (torch names mapped, torch's strict rules) on ms_core, ms.load_param_into_net(net, sd) for --target mindspore."""
    conv = edit.conv
    conv.used.add("ms")
    sd = edit.bound.get("state_dict")
    strict = edit.bound.get("strict")
    if conv.target_name != "mindspore":
        args = [cst.Arg(edit.method_receiver), cst.Arg(sd)]
        if strict is not None:
            args.append(cst.Arg(strict, keyword=cst.Name("strict"),
                                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        edit.result = cst.Call(conv.target("ms.hub.load_state_dict"), args)
        return
    if strict is not None:
        edit.worse("approximate", f"strict={code_of(strict)} dropped: load_param_into_net "
                                  "never raises on missing keys; it returns (param_not_load, ckpt_not_load)")
    edit.result = cst.Call(conv.target("ms.load_param_into_net"), [cst.Arg(edit.method_receiver), cst.Arg(sd)])
