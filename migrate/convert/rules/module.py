"""Argument rules for module methods and checkpoints: train/eval, modules(), named_children(),
load_state_dict, register_buffer, torch.save.

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import literal, primary
from migrate.convert.cst import attribute, code_of, parse_expr
from migrate.convert.registry import argument_rule
from migrate.convert.rules.hub import checkpoint_path


@argument_rule("MS124", "save", examples=[
    ("torch.save(net.state_dict(), 'x.ckpt')\n",
     "ms.save_checkpoint(net, 'x.ckpt')\n"),
])
def save(edit) -> None:
    """Replace torch.save(net.state_dict(), f) with ms.save_checkpoint(net, f), and torch.save of
    any other object (a dict of state dicts, optimizer and scheduler state, numbers) with
    ms.hub.save(obj, f) on ms_core (a checkpoint at f, never a pickle; ms.hub.load reads it)."""
    obj = edit.bound.get("obj")
    f = edit.bound.get("f")
    converter = edit.converter
    converter.output.used.add("ms")
    from migrate.convert.receivers import is_module  # (the rules load before the receivers)
    # the state_dict() call was already rewritten to parameters_dict(): save the cell itself; a
    # whole module (torch.save(model, f)) saves its parameters, which torch_load_into loads back
    if isinstance(obj, cst.Call) and isinstance(obj.func, cst.Attribute) and \
            obj.func.attr.value == "parameters_dict" and not obj.args:
        obj = obj.func.value
    elif not is_module(converter, obj):
        obj = None
    if obj is not None:
        edit.result = cst.Call(converter.target("ms.save_checkpoint"),
                               [cst.Arg(obj), cst.Arg(checkpoint_path(edit, f))])
        return
    obj = edit.bound.get("obj")
    if converter.facts.target_name == "mindspore":
        edit.unsupported("torch.save of an object other than a state_dict: MindSpore's save_checkpoint takes a "
                         "Cell or a list of parameters (convert with the ms_core target, whose ms.hub.save "
                         "writes nested checkpoints)", "MS901")
        return
    edit.note("the object is written as a checkpoint (its arrays as entries, the rest as one JSON entry), "
              "never pickled; ms.hub.load gives it back")
    edit.result = cst.Call(converter.target("ms.hub.save"), [cst.Arg(obj), cst.Arg(checkpoint_path(edit, f))])


def _is_tensor(converter, node) -> bool:
    from migrate.convert.receivers import is_tensor  # (the rules load before the receivers)
    return is_tensor(converter, node)


@argument_rule("MS126", "register_buffer", examples=[
    ("net.register_buffer('b', torch.ones(1))\n",
     "net.b = ms.Parameter(ops.ones((1,)), name='b', requires_grad=False)\n"),
])
def register_buffer(edit) -> None:
    """Replace self.register_buffer('n', t) with self.n = ms.Parameter(t, name='n', requires_grad=False)
    (self.n = None for a None buffer; ``None if t is None else ...`` for a name that may hold None;
    setattr(self, 'n', ...) where the call is not a statement of its own)."""
    name = edit.bound.get("name")
    t = edit.bound.get("tensor")
    if not isinstance(name, cst.SimpleString) or t is None:
        edit.unsupported("register_buffer needs a literal name and a tensor")
        return
    converter = edit.converter
    n = literal(name)
    value = f"{converter.tname('ms.Parameter')}({code_of(t)}, name={name.value}, requires_grad=False)"
    if isinstance(t, cst.Name) and t.value == "None":
        value = "None"  # torch keeps the name, holding None
    elif isinstance(t, (cst.Name, cst.Attribute)) and not _is_tensor(converter, t):
        value = f"None if {code_of(t)} is None else {value}"  # a buffer that may be None
    edit.result = parse_expr(f"{converter.builtin('setattr')}({code_of(edit.method_receiver)}, {name.value}, {value})")
    if not n.isidentifier():
        edit.unsupported("buffer name is not an identifier")


@argument_rule("MS127", "train", examples=[
    ("net = nn.ReLU()\n"
     "net.eval()\n",
     "net = nn.ReLU()\n"
     "net.set_train(False)\n"),
])
def train(edit) -> None:
    """Replace net.train(mode) / net.eval() with net.set_train(mode) / net.set_train(False)."""
    recv = edit.method_receiver
    if edit.entry.torch == "Module.eval":
        mode = parse_expr("False")
    else:
        mode = edit.bound.get("mode") or parse_expr("True")
    edit.result = cst.Call(attribute(recv, "set_train"), [cst.Arg(mode)])


@argument_rule("MS128", "modules_gen", examples=[
    ("net = nn.ReLU()\n"
     "ms_ = list(net.modules())\n",
     "net = nn.ReLU()\n"
     "ms_ = list((c for _, c in net.cells_and_names()))\n"),
])
def modules_gen(edit) -> None:
    """Replace net.modules() with (c for _, c in net.cells_and_names())."""
    recv = primary(edit.method_receiver)
    edit.result = parse_expr(f"(c for _, c in {recv}.cells_and_names())")


@argument_rule("MS129", "named_children", examples=[
    ("kids = net.named_children()\n",
     "kids = net.name_cells().items()\n"),
])
def named_children(edit) -> None:
    """Replace net.named_children() with net.name_cells().items()."""
    recv = edit.method_receiver
    edit.result = parse_expr(f"{primary(recv)}.name_cells().items()")




@argument_rule("MS177", "register_parameter", examples=[
    ("class S(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.register_parameter('b', None)\n",
     "class S(nn.Cell):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.b = None\n"),
])
def register_parameter(edit) -> None:
    """Replace self.register_parameter('n', p) with setattr(self, 'n', p) (a Cell registers the
    Parameters, or None, assigned to its attributes)."""
    name, param = edit.bound.get("name"), edit.bound.get("param")
    setattr_ = parse_expr(edit.converter.builtin("setattr"))
    edit.result = cst.Call(setattr_, [cst.Arg(edit.method_receiver), cst.Arg(name), cst.Arg(param)])


@argument_rule("MS178", "named_parameters", examples=[
    ("def f(net):\n"
     "    return net.named_parameters()\n",
     "def f(net):\n"
     "    return ((n, p) for n, p in net.parameters_and_names() if p.requires_grad)\n"),
])
def named_parameters(edit) -> None:
    """Replace net.named_parameters() with the (name, Parameter) pairs of
    net.parameters_and_names() that require grad (buffers became Parameters that do not)."""
    recv = primary(edit.method_receiver)
    edit.result = parse_expr(f"((n, p) for n, p in {recv}.parameters_and_names() if p.requires_grad)")


@argument_rule("MS159", "named_buffers", examples=[
    ("def f(net):\n"
     "    return net.named_buffers()\n",
     "def f(net):\n"
     "    return ((n, p) for n, p in net.parameters_and_names() if not p.requires_grad)\n"),
])
def named_buffers(edit) -> None:
    """Replace net.named_buffers() with the (name, Parameter) pairs of net.parameters_and_names()
    that do not require grad (converted buffers are Parameters with requires_grad=False)."""
    recv = primary(edit.method_receiver)
    edit.result = parse_expr(f"((n, p) for n, p in {recv}.parameters_and_names() if not p.requires_grad)")
