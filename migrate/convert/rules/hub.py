"""Argument rules for pretrained torch weights: downloading a torch checkpoint and loading a
state dict into a converted model (ms_core's ``ms.hub``; MindSpore 2.10 has no counterpart).

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import code_of
from migrate.convert.registry import argument_rule, node_rule

LOAD_INTO = node_rule(
    "MS255", "load_module_into",
    "Replace net = torch.load(f) (a whole pickled module; net a module the script built) with "
    "net = torch_load_into(net, ms.hub.load(f)): a MindSpore checkpoint holds parameters only, "
    "loaded into the network already built.", needs=["torch_load_into"], examples=[
    ("net = nn.Linear(2, 2)\n"
     "net = torch.load('net.pt')\n",
     "net = nn.Dense(2, 2, has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(2)))\n"
     "net = torch_load_into(net, ms.hub.load('net.pt'))\n"),
])

_NO_MINDSPORE = ("MindSpore 2.10 cannot read a torch checkpoint: convert it once with `migrate "
                 "weights` and load it with ms.load_checkpoint + ms.load_param_into_net (or convert "
                 "with the ms_core target, whose ms.hub reads torch checkpoints without torch)")


@argument_rule("MS168", "torch_checkpoint", examples=[
    ("sd = torch.hub.load_state_dict_from_url(url, map_location='cpu')\n",
     "sd = ms.hub.load_state_dict_from_url(url, map_location='cpu')\n"),
])
def torch_checkpoint(edit) -> None:
    """Replace torch.hub.load_state_dict_from_url / model_zoo.load_url with ms.hub.load_state_dict_from_url (ms_core:
    reads the torch file without torch; marked for --target mindspore)."""
    if edit.converter.facts.target_name == "mindspore":
        edit.unsupported(_NO_MINDSPORE, "MS901")


@argument_rule("MS245", "torch_home", needs=["torch_home"], examples=[
    ("from torch.hub import _get_torch_home\n"
     "root = _get_torch_home()\n",
     "root = torch_home()\n"),
])
def torch_home(edit) -> None:
    """Replace torch.hub._get_torch_home() with torch_home() (torch's home directory, a path
    computation run at import by packages that cache data there), and torch.hub.get_dir() with
    torch_home('hub') for --target mindspore (ms_core: ms.hub.get_dir(), which follows set_dir)."""
    if edit.entry.torch == "torch.hub.get_dir":
        if edit.converter.facts.target_name != "mindspore":
            edit.func = edit.converter.target("ms.hub.get_dir")
            return
        edit.result = cst.Call(cst.Name(edit.helper("torch_home")), [cst.Arg(cst.SimpleString("'hub'"))])
        return
    edit.result = cst.Call(cst.Name(edit.helper("torch_home")), [])


_OPENED = re.compile(r"\bwith\s+open\([^\n]*?\)\s+as\s+([A-Za-z_]\w*)\s*[:,]")


def checkpoint_path(edit, f):
    """``f.name`` when ``f`` is a name this file binds only by ``with open(...) as f``, else ``f``:
    MindSpore's checkpoint functions take a path, and a file object's name is the path it was
    opened with (``with open(args.save, 'wb') as f: torch.save(model, f)``)."""
    code = edit.converter.output.signatures.code
    if not isinstance(f, cst.Name) or "open(" not in code or f.value not in _OPENED.findall(code) \
            or re.search(rf"^[ \t]*{re.escape(f.value)}[ \t]*=(?!=)", code, re.M):
        return f
    edit.note(f"{f.value} is a file opened by the script: the checkpoint goes to its path, {f.value}.name")
    return cst.Attribute(f, cst.Name("name"))


@argument_rule("MS139", "torch_load", examples=[
    ("sd = torch.load('m.pt')\n",
     "sd = ms.hub.load('m.pt')\n"),
])
def torch_load(edit) -> None:
    """Replace torch.load(f) with ms.hub.load(f) on ms_core (torch files and the checkpoints converted code saves),
    ms.load_checkpoint(f) for --target mindspore."""
    if edit.converter.facts.target_name != "mindspore":
        edit.func = edit.converter.target("ms.hub.load")
    f = edit.bound.get("f")
    path = checkpoint_path(edit, f)
    if path is not f:
        edit.set("f", path)


@argument_rule("MS125", "load_state_dict", examples=[
    ("net.load_state_dict(sd)\n",
     "ms.hub.load_state_dict(net, sd)\n"),
])
def load_state_dict(edit) -> None:
    """Replace net.load_state_dict(sd, strict) with ms.hub.load_state_dict(net, sd, strict) (torch names mapped,
    torch's strict rules) on ms_core, ms.load_param_into_net(net, sd) for --target mindspore."""
    converter = edit.converter
    converter.output.used.add("ms")
    sd = edit.bound.get("state_dict")
    strict = edit.bound.get("strict")
    if converter.facts.target_name != "mindspore":
        args = [cst.Arg(edit.method_receiver), cst.Arg(sd)]
        if strict is not None:
            args.append(cst.Arg(strict, keyword=cst.Name("strict"),
                                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        edit.result = cst.Call(converter.target("ms.hub.load_state_dict"), args)
        return
    if strict is not None:
        edit.worse("approximate", f"strict={code_of(strict)} dropped: load_param_into_net "
                                  "never raises on missing keys; it returns (param_not_load, ckpt_not_load)")
    edit.result = cst.Call(converter.target("ms.load_param_into_net"), [cst.Arg(edit.method_receiver), cst.Arg(sd)])


def load_into_module(converter, node: cst.Assign, value):
    """Apply MS255 to ``net = torch.load(f)`` whose target is a network: ``value`` is the call as
    converted. Returns the new value, or None when the rule does not apply."""
    from migrate.convert.receivers import is_module  # (the rules load before the receivers)
    t = node.targets[0].target if len(node.targets) == 1 else None
    if not isinstance(t, cst.Name) or not isinstance(node.value, cst.Call) \
            or converter.qual(node.value.func) != "torch.load" or not is_module(converter, t) \
            or not converter.allows(LOAD_INTO.id) or value is node.value:
        return None
    new = cst.Call(cst.Name(converter.output.signatures.helper("torch_load_into")), [cst.Arg(t), cst.Arg(value)])
    converter.record(node.value, new, LOAD_INTO.id, "transformed",
                f"{t.value} = torch.load(...) of a whole module: the checkpoint's parameters loaded into "
                f"the {t.value} the script built (the same class torch's pickle rebuilds)")
    return new
