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


@argument_rule("MS126", "register_buffer", needs=["torch_register_buffer"], examples=[
    ("net.register_buffer('b', torch.ones(1))\n",
     "torch_register_buffer(net, 'b', ops.ones((1,)))\n"),
])
def register_buffer(edit) -> None:
    """Replace net.register_buffer('n', t) with torch_register_buffer(net, 'n', t): a Parameter that
    does not require grad (None stays None), remembered as a buffer, so that parameters() and
    buffers() answer as torch's (a frozen parameter is a Parameter that does not require grad too)."""
    name = edit.bound.get("name")
    if not isinstance(name, cst.SimpleString) or edit.bound.get("tensor") is None:
        edit.unsupported("register_buffer needs a literal name and a tensor")
        return
    if not literal(name).isidentifier():
        edit.unsupported("buffer name is not an identifier")
        return
    _torch_meaning(edit, "torch_register_buffer")


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


def _torch_meaning(edit, helper: str) -> None:
    """``helper(module, <the call's arguments>)``: the runtime's answer to torch's question."""
    edit.result = cst.Call(parse_expr(edit.helper(helper)),
                           [cst.Arg(edit.method_receiver), *edit.call.args])


def _recurse_keyword(edit) -> str:
    recurse = edit.bound.get("recurse")
    return "" if recurse is None or code_of(recurse) == "True" else f"recurse={code_of(recurse)}"


@argument_rule("MS163", "parameters", needs=["torch_parameters"], examples=[
    ("n = sum(p.numel() for p in net.parameters())\n",
     "n = sum(p.size for p in torch_parameters(net))\n"),
    ("opt = torch.optim.SGD(net.parameters(), lr=0.1)\n",
     "opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)\n"),
    ("class N(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.head = nn.Embedding(4, 2)\n"
     "        for p in self.head.parameters():\n"
     "            p.requires_grad = False\n",
     "class N(nn.Cell):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.head = nn.Embedding(4, 2, embedding_table=Normal(sigma=1.0))\n"
     "        for p in self.head.get_parameters():\n"
     "            p.requires_grad = False\n"),
])
def parameters(edit) -> None:
    """Replace net.parameters() with torch_parameters(net) (every parameter, frozen ones too, no
    buffer: MindSpore's trainable_params() leaves out a frozen copy's parameters and
    get_parameters() lists the running statistics), with net.get_parameters() where net is a layer
    that holds parameters only, and with net.trainable_params() in a torch optimizer's arguments:
    torch's optimizer never updates a parameter that gets no gradient."""
    if edit.converter.walk_state.optimizer_args:
        edit.result = parse_expr(f"{primary(edit.method_receiver)}.trainable_params({_recurse_keyword(edit)})")
        edit.note("given to an optimizer: the parameters that require grad when it is built (a "
                  "parameter unfrozen later is not in it)")
        return
    if _holds_parameters_only(edit):
        edit.result = parse_expr(f"{primary(edit.method_receiver)}.get_parameters()")
        edit.note("a layer with parameters only: get_parameters() lists them all, frozen ones too")
        return
    _torch_meaning(edit, "torch_parameters")


def _holds_parameters_only(edit) -> bool:
    """The receiver is a torch layer (of known class) that the layer tables give no buffer and no
    child, and not a norm layer (whose MindSpore form keeps a constant gamma/beta where torch has
    no parameter): MindSpore's get_parameters() is torch's parameters() there."""
    from mappings import load_attributes
    from migrate.convert.receivers import type_of  # (the rules load before the receivers)
    if edit.receiver_before is None or "recurse" in edit.bound:
        return False
    kinds, tables = type_of(edit.converter, edit.receiver_before), load_attributes()
    return bool(kinds) and all(k in tables and not tables[k].buffers and not tables[k].children
                               and "Norm" not in k for k in kinds)


@argument_rule("MS164", "buffers", needs=["torch_buffers"], examples=[
    ("for b, m in zip(ema.buffers(), net.buffers()):\n"
     "    b.copy_(m)\n",
     "for b, m in zip(torch_buffers(ema), torch_buffers(net)):\n"
     "    b.copy_(m)\n"),
])
def buffers(edit) -> None:
    """Replace net.buffers() with torch_buffers(net): the running statistics and registered
    buffers (MindSpore's untrainable_params() also lists frozen parameters)."""
    _torch_meaning(edit, "torch_buffers")


@argument_rule("MS178", "named_parameters", needs=["torch_named_parameters"], examples=[
    ("def f(net):\n"
     "    return net.named_parameters()\n",
     "def f(net):\n"
     "    return torch_named_parameters(net)\n"),
])
def named_parameters(edit) -> None:
    """Replace net.named_parameters() with torch_named_parameters(net) (every parameter, frozen ones
    too, no buffer), and in a torch optimizer's arguments with the (name, Parameter) pairs of
    net.parameters_and_names() that require grad."""
    if edit.converter.walk_state.optimizer_args:
        if code_of(edit.bound.get("remove_duplicate") or parse_expr("True")) != "True":
            edit.unsupported("remove_duplicate=False: MindSpore yields each Parameter once")
            return
        keywords = [f"{to}={code_of(edit.bound[name])}" for name, to in (("prefix", "name_prefix"),
                                                                       ("recurse", "expand")) if name in edit.bound]
        pairs = f"{primary(edit.method_receiver)}.parameters_and_names({', '.join(keywords)})"
        edit.result = parse_expr(f"((n, p) for n, p in {pairs} if p.requires_grad)")
        return
    _torch_meaning(edit, "torch_named_parameters")


@argument_rule("MS159", "named_buffers", needs=["torch_named_buffers"], examples=[
    ("def f(net):\n"
     "    return net.named_buffers()\n",
     "def f(net):\n"
     "    return torch_named_buffers(net)\n"),
])
def named_buffers(edit) -> None:
    """Replace net.named_buffers() with torch_named_buffers(net): the running statistics and
    registered buffers, by MindSpore's names."""
    _torch_meaning(edit, "torch_named_buffers")


@argument_rule("MS165", "module_requires_grad", needs=["torch_requires_grad"], examples=[
    ("net = nn.Linear(2, 2)\n"
     "net.requires_grad_(False)\n",
     "net = nn.Dense(2, 2, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), "
     "bias_init=Uniform(scale=1 / math.sqrt(2)))\n"
     "torch_requires_grad(net, False)\n"),
])
def module_requires_grad(edit) -> None:
    """Replace net.requires_grad_(flag) with torch_requires_grad(net, flag): every parameter's flag,
    no buffer's (a Cell has no requires_grad_; its buffers are Parameters that must stay frozen)."""
    _torch_meaning(edit, "torch_requires_grad")
