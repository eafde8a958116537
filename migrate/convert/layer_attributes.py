"""Torch attribute names of layers, read or written where the layer's class is known.

``bn.weight`` is ``bn.gamma`` in MindSpore, ``conv.groups`` is ``conv.group``, ``ln.eps`` is
``ln.epsilon`` (``mappings/attributes.toml``). The class is known for ``self`` in a subclass of a
torch layer (``class Conv2dSame(nn.Conv2d)``), for a sub-cell assigned in ``__init__``, and for a
name narrowed by ``isinstance(m, nn.BatchNorm2d)`` -- also when the class is held by a variable
(``isinstance(m, norm_layer)`` with ``norm_layer=nn.BatchNorm2d``). Instances of the generated
torch-signature classes answer torch's names by themselves (their properties), so these rewrites
matter for instances of the plain MindSpore classes.
"""
from __future__ import annotations

import libcst as cst

from mappings import load_attributes
from migrate.convert.package_layers import LAYER_ATTRIBUTES
from migrate.convert.receivers import constant_index, type_of
from migrate.convert.registry import node_rule
from migrate.convert.rules.norm_bases import NORM_BASES
from migrate.convert.torch_signature import signatures

PARAMETER_NAMES = node_rule(
    "MS108", "parameter_names",
    "Replace bn.weight / bn.running_mean / emb.weight with bn.gamma / bn.moving_mean / emb.embedding_table.", examples=[
    ("class M(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.bn = nn.BatchNorm2d(2)\n"
     "    def forward(self, x):\n"
     "        return x * self.bn.weight\n",
     "class M(nn.Cell):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.bn = nn.BatchNorm2d(2)\n"
     "    def construct(self, x):\n"
     "        return x * self.bn.gamma\n"),
])
LAYER_ATTRIBUTE = node_rule(
    "MS185", "layer_attribute",
    "Replace torch attribute names of layers with what the MindSpore layer holds (conv.groups -> "
    "conv.group, ln.eps -> ln.epsilon; in a subclass of a torch layer, self.padding -> "
    "self.torch_padding, torch's value kept by the torch-signature base).",
        needs=["torch_ntuple"], examples=[
    ("def f(m):\n"
     "    if isinstance(m, nn.Conv2d):\n"
     "        return m.groups\n",
     "def f(m):\n"
     "    if isinstance(m, nn.Conv2d):\n"
     "        return m.group\n"),
])
ATTENTION_WITHOUT_WEIGHTS = node_rule(
    "MS445", "attention_without_weights",
    "Replace self.attn(q, k, v, need_weights=False) (a known MultiheadAttention) with "
    "(self.attn(q, k, v, need_weights=False)[0], None): torch's (out, None) where MindSpore returns (out,) "
    "(out, _ = ... unpacks it plainly: out = self.attn(...)[0]).", examples=[
    ("class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.attn = nn.MultiheadAttention(8, 2)\n"
     "    def forward(self, x):\n        out, _ = self.attn(x, x, x, need_weights=False)\n        return out\n",
     "class A(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
     "        self.attn = torch_attention_init(nn.MultiheadAttention(8, 2))\n"
     "    def construct(self, x):\n        out = self.attn(x, x, x, need_weights=False)[0]\n"
     "        return out\n"),
])
ATTENTION_INPUTS = node_rule(
    "MS446", "attention_inputs_by_position",
    "Replace self.attn(q, k, value=v) (a known MultiheadAttention given query/key/value by keyword) with "
    "self.attn(q, k, v): MindSpore 2.10's MultiheadAttention reads a value keyword only after args[2], "
    "and raises IndexError without it.", examples=[
    ("class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.attn = nn.MultiheadAttention(8, 2)\n"
     "    def forward(self, x, m):\n        return self.attn(x, x, value=x, key_padding_mask=m)[0]\n",
     "class A(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
     "        self.attn = torch_attention_init(nn.MultiheadAttention(8, 2))\n"
     "    def construct(self, x, m):\n        return self.attn(x, x, x, key_padding_mask=m)[0]\n"),
])
FORWARD_KEYWORDS = node_rule(
    "MS154", "forward_keywords",
    "Replace torch's keywords in a call of a layer whose class is known (self.encoder(src, mask=m), "
    "self.encoder a TransformerEncoder, also the one a subclass of nn.Transformer inherits) with "
    "MindSpore's (src_mask=m).", examples=[
    ("class LM(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 2)\n"
     "    def forward(self, x, m):\n"
     "        return self.enc(x, mask=m)\n",
     "class LM(nn.Cell):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.enc = "
     "torch_attention_init(nn.TransformerEncoder(torch_attention_init(nn.TransformerEncoderLayer(8, 2)), 2))\n"
     "    def construct(self, x, m):\n"
     "        return self.enc(x, src_mask=m)\n"),
])
ATTRIBUTE_BY_CLASS = node_rule(
    "MS461", "layer_attribute_by_class",
    "Replace m.weight, where m may be any of several layer classes that name it differently in MindSpore "
    "(isinstance(m, (nn.Linear, nn.Embedding)): weight, embedding_table), with TorchLayerAttrs(m).weight: "
    "m's class decides when the code runs.", needs=["TorchLayerAttrs"], examples=[
    ("def init(m):\n"
     "    if isinstance(m, (nn.Linear, nn.Embedding)):\n"
     "        return m.weight\n",
     "def init(m):\n"
     "    if isinstance(m, (nn.Dense, nn.Embedding)):\n"
     "        return TorchLayerAttrs(m).weight\n"),
])
CONV_ATTRIBUTE = node_rule(
    "MS325", "conv_attribute",
    "Replace reads of conv.padding / kernel_size / stride / dilation / padding_mode, where MindSpore's "
    "layer keeps another form (pad_mode + (before, after) padding, (1, k) sizes of a 1-D layer), with "
    "torch_conv_attr(conv, name): torch's value.", needs=["torch_conv_attr"], examples=[
    ("def f(m):\n"
     "    if isinstance(m, nn.Conv2d):\n"
     "        return m.padding\n",
     "def f(m):\n"
     "    if isinstance(m, nn.Conv2d):\n"
     "        return torch_conv_attr(m, 'padding')\n"),
])
CONV_WRITE = node_rule(
    "MS150", "conv_geometry_write",
    "Replace conv.stride / conv.dilation / conv.padding = value on a built Conv2d with torch_conv_set(conv, "
    "name=value): the attribute in MindSpore's form and the convolution rebuilt (MindSpore's Conv2d builds its "
    "primitive once: a bare write changes nothing).", needs=["torch_conv_set"], examples=[
    ("def f(m):\n"
     "    if isinstance(m, nn.Conv2d):\n"
     "        m.padding = (2, 2)\n",
     "def f(m):\n"
     "    if isinstance(m, nn.Conv2d):\n"
     "        torch_conv_set(m, padding=(2, 2))\n"),
])
# a built Conv2d's geometry that torch_conv_set writes
_CONV_GEOMETRY = ("stride", "dilation", "padding")
_PARAMETERS = {"weight", "bias", "running_mean", "running_var"}
# a convolution's attributes torch_conv_attr answers in torch's form
CONV_ATTRS = {"padding", "kernel_size", "stride", "dilation", "padding_mode"}


def layer_base(converter, node: cst.ClassDef) -> str | None:
    """The torch layer a class derives from (directly, or through a class of this file)."""
    for base in node.bases:
        q = converter.qual(base.value)
        if q is not None and q in load_attributes():
            return q
        if isinstance(base.value, cst.Name) and base.value.value in converter.walk_state.layer_bases:
            return converter.walk_state.layer_bases[base.value.value]
        if isinstance(base.value, cst.Name) and base.value.value in converter.facts.runtime_layers:
            return converter.facts.runtime_layers[base.value.value]  # converted code converted again
    return None


def _is_self_in_layer(converter, node) -> bool:
    scope = converter.class_scope
    return (isinstance(node, cst.Name) and node.value == "self" and scope is not None
            and scope.torch_base is not None)


def _kinds(converter, node) -> list[str] | None:
    """The torch layer classes ``node`` may be, or None when one of them is not known."""
    if _is_self_in_layer(converter, node):
        return [converter.class_scope.torch_base]
    kinds = type_of(converter, node) or _held_by_the_tree(node)
    out = []
    for kind in kinds:
        kind = converter.walk_state.layer_bases.get(kind, kind)
        if kind not in load_attributes():
            return None
        out.append(kind)
    return out or None


def _held_by_the_tree(node) -> list[str]:
    """``<untyped>.tok_embeddings``: the layer classes the tree's classes bind that attribute name
    to; ``<untyped>.tables[k]`` / ``.blocks[0]``: those of the items of the containers they bind it
    to (package_layers; nothing outside a directory run)."""
    if isinstance(node, cst.Attribute):
        return list(LAYER_ATTRIBUTES.get().get(node.attr.value, ()))
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute):
        return tree_items(node.value.attr.value, constant_index(node))
    return []


def tree_items(attr: str, index: int | None = None) -> list[str]:
    """The layer classes of the items (the item at ``index``, else any item) of the containers the
    tree's classes bind the attribute name ``attr`` to (package_layers); [] when not known."""
    held = LAYER_ATTRIBUTES.get()
    found = held.get(f"{attr}[{index}]") if index is not None else None
    return list(found or held.get(f"{attr}[]", ()))


def known_layer(converter, node) -> bool:
    """Whether the torch layer classes ``node`` may be are all known (layer_attribute decides)."""
    return bool(_kinds(converter, node))


def layer_attribute(converter, node: cst.Attribute, value):
    """``x.<torch attribute>`` rewritten for x's known layer classes, or None (nothing to do).

    ``value`` is ``node.value`` converted. A name MindSpore keeps in another form (``padding``)
    or not at all (``num_batches_tracked``) is marked unless ``x`` is ``self`` in a subclass of a
    torch-signature class, which keeps torch's value.
    """
    attr = node.attr.value
    kinds = _kinds(converter, node.value)
    if not kinds:
        return None
    in_subclass = _is_self_in_layer(converter, node.value)
    if attr in CONV_ATTRS and not in_subclass and not converter.walk_state.storing \
            and all(k.rsplit(".", 1)[-1].startswith("Conv") for k in kinds) and converter.allows(CONV_ATTRIBUTE.id):
        return conv_attribute(converter, node, value, kinds)
    targets, why = set(), None
    for kind in kinds:
        table = load_attributes()[kind]
        if attr in table.rename:
            targets.add(table.rename[attr])
        elif (attr in table.shadow or attr in table.counter) and in_subclass:
            targets.add(f"torch_{attr}")
        elif attr in table.shadow or attr in table.absent:
            why = table.absent.get(attr) or f"MindSpore's layer keeps {attr} in another form"
        else:
            targets.add(attr)
    rule = PARAMETER_NAMES if attr in _PARAMETERS else LAYER_ATTRIBUTE
    if why is not None:
        converter.mark(node, "MS918", f"{short_kinds(kinds)}.{attr}: {why}")
        return None
    if len(targets) > 1:
        return _attribute_by_class(converter, node, value, kinds, targets)
    if len(targets) != 1 or attr in targets or not converter.allows(rule.id):
        return None
    new_attr = targets.pop()
    *owners, last = new_attr.split(".")  # a child's attribute: bn3d.weight -> bn3d.bn2d.gamma
    for owner in owners:
        value = cst.Attribute(value=value, attr=cst.Name(owner))
    new = node.with_changes(value=value, attr=cst.Name(last))
    converter.record(node, new, rule.id, "exact", f"{short_kinds(kinds)}.{attr} is {new_attr} in MindSpore"
                + (" (kept by the torch-signature base)" if new_attr.startswith("torch_") else ""))
    return new


def _attribute_by_class(converter, node: cst.Attribute, value, kinds, targets):
    """``m.weight`` where ``m`` may be any of several layer classes that MindSpore names the
    attribute differently in (``isinstance(m, (nn.Linear, nn.Embedding))``: ``weight``,
    ``embedding_table``): read through the runtime's TorchLayerAttrs, which answers by m's class
    when the code runs; a write is marked (the class decides which attribute it must set)."""
    where = f"{short_kinds(kinds)}.{node.attr.value} is " + " / ".join(sorted(targets)) + " in MindSpore"
    if converter.walk_state.storing:
        converter.mark(node, "MS918", f"{where}: a write cannot tell which; assign per class")
        return None
    if not converter.allows(ATTRIBUTE_BY_CLASS.id):
        return None
    helper = signatures(converter).helper("TorchLayerAttrs")
    new = cst.Attribute(cst.Call(cst.Name(helper), [cst.Arg(value)]), node.attr)
    converter.record(node, new, ATTRIBUTE_BY_CLASS.id, "transformed", f"{where}: decided by the class at run time")
    return new


def conv_attribute(converter, node: cst.Attribute, value, kinds) -> cst.Call | None:
    """Apply MS325 to the read ``node`` (``conv.padding``; ``value``: its receiver converted)."""
    if all(node.attr.value not in load_attributes()[k].shadow for k in kinds) and node.attr.value != "padding_mode":
        return None  # (Conv2d.stride: the same on both sides)
    local = signatures(converter).helper("torch_conv_attr")
    new = cst.Call(cst.Name(local), [cst.Arg(value), cst.Arg(cst.SimpleString(repr(node.attr.value)))])
    converter.record(node, new, CONV_ATTRIBUTE.id, "exact",
                f"{short_kinds(kinds)}.{node.attr.value} in torch's form, from what the MindSpore layer holds")
    return new


def conv_geometry_write(converter, node: cst.Assign):
    """Apply MS150 to ``conv.stride = value`` (``dilation``, ``padding``) on a layer known to be a Conv2d: the call
    that replaces the statement, or None (another statement)."""
    if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Attribute):
        return None
    target = node.targets[0].target
    attr = target.attr.value
    if attr not in _CONV_GEOMETRY or _is_self_in_layer(converter, target.value) \
            or _kinds(converter, target.value) != ["torch.nn.Conv2d"] or not converter.allows(CONV_WRITE.id):
        return None
    local = signatures(converter).helper("torch_conv_set")
    equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    value = cst.Arg(converter.walk(node.value), keyword=cst.Name(attr), equal=equal)
    new = cst.Expr(cst.Call(cst.Name(local), [cst.Arg(converter.walk(target.value)), value]))
    converter.record(node, new, CONV_WRITE.id, "transformed",
                     f"Conv2d.{attr} written in MindSpore's form and the convolution rebuilt with it")
    return new


def call_kinds(converter, func) -> list[str] | None:
    """The torch layer classes a called expression may be: a sub-cell whose class is known, or a
    child the torch base class builds itself (``self.encoder`` in a subclass of nn.Transformer,
    unless the subclass assigns it); None when unknown."""
    kinds = _kinds(converter, func)
    if kinds is None and isinstance(func, cst.Attribute) and _is_self_in_layer(converter, func.value) \
            and not type_of(converter, func):
        child = load_attributes()[converter.class_scope.torch_base].children.get(func.attr.value)
        if child is not None and child in load_attributes():
            kinds = [child]
    return kinds


def layer_forward_call(converter, node: cst.Call, walked: cst.Call):
    """Apply MS154 to a call of a known layer with torch's keywords (``walked``: ``node`` with
    its parts converted); None when nothing changes."""
    kinds = call_kinds(converter, node.func)
    if not kinds or not converter.allows(FORWARD_KEYWORDS.id):
        return None
    renames = [load_attributes()[kind].forward for kind in kinds]
    if not renames[0] or any(r != renames[0] for r in renames):
        return None
    args = [a.with_changes(keyword=cst.Name(renames[0][a.keyword.value]))
            if a.keyword is not None and a.keyword.value in renames[0] else a for a in walked.args]
    if all(a is b for a, b in zip(args, walked.args)):
        return None
    new = walked.with_changes(args=args)
    converter.record(node, new, FORWARD_KEYWORDS.id, "exact",
                f"{short_kinds(kinds)}: torch's keywords are "
                + ", ".join(f"{t} -> {m}" for t, m in renames[0].items()) + " in MindSpore")
    return new


_ATTENTION_INPUTS = ("query", "key", "value")


def attention_inputs_by_position(converter, node: cst.Call, walked: cst.Call) -> cst.Call:
    """Apply MS446 to a call of a known MultiheadAttention (``walked``: converted) that gives
    query/key/value by keyword after the positional ones: those by position; ``walked`` itself
    when nothing changes."""
    if type_of(converter, node.func) != ["torch.nn.MultiheadAttention"] or not converter.allows(ATTENTION_INPUTS.id):
        return walked
    args = list(walked.args)
    n = next((i for i, a in enumerate(args) if a.keyword is not None or a.star), len(args))
    if n >= len(_ATTENTION_INPUTS) or any(a.star for a in args):
        return walked
    by_name = {a.keyword.value: a for a in args[n:] if a.keyword is not None}
    wanted = _ATTENTION_INPUTS[n:]
    if not all(name in by_name for name in wanted):
        return walked
    moved = [by_name[name].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT) for name in wanted]
    rest = [a for a in args[n:] if a.keyword is None or a.keyword.value not in wanted]
    new = walked.with_changes(args=[*args[:n], *moved, *rest])
    converter.record(node, new, ATTENTION_INPUTS.id, "exact",
                     "query/key/value by position: MindSpore 2.10's MultiheadAttention reads a value keyword "
                     "only after args[2]")
    return new


def attention_without_weights(converter, node: cst.Call, walked: cst.Call):
    """Apply MS445 to ``self.attn(q, k, v, need_weights=False)`` with ``self.attn`` a known
    MultiheadAttention (``walked``: the call converted): torch returns ``(out, None)`` there,
    MindSpore 2.10 (and ms_core) ``(out,)``; None when nothing changes."""
    if type_of(converter, node.func) != ["torch.nn.MultiheadAttention"] \
            or not converter.allows(ATTENTION_WITHOUT_WEIGHTS.id):
        return None
    flag = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "need_weights"), None)
    if not (isinstance(flag, cst.Name) and flag.value == "False"):
        return None
    first = cst.Subscript(walked, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])
    new = cst.Tuple([cst.Element(first), cst.Element(cst.Name("None"))])
    converter.record(node, new, ATTENTION_WITHOUT_WEIGHTS.id, "exact",
                     "need_weights=False: torch returns (attn_output, None), MindSpore (attn_output,)")
    return new


def short_kinds(kinds) -> str:
    return "/".join(sorted({k.rsplit(".", 1)[-1] for k in kinds}))


def narrowing_classes(converter, expr) -> list[str] | None:
    """The torch layer classes a class expression of isinstance names: ``nn.Conv2d``, a local
    Cell class, or a variable known to hold a layer class; None when one is unknown."""
    elems = [e.value for e in expr.elements] if isinstance(expr, cst.Tuple) else [expr]
    out = []
    scope = converter.scope
    for e in elems:
        q = converter.qual(e) or _torch_layer_of_target(converter, e)
        if q is None and isinstance(e, cst.Name):
            if e.value in converter.walk_state.cell_classes:
                q = e.value
            elif scope is not None and e.value in scope.layer_classes:
                out.extend(scope.layer_classes[e.value])
                continue
        if q is None:
            return None
        out.extend(NORM_BASES.get(q, (q,)))  # a private base: its public layers, as the target's tuple names them
    return out or None


def _torch_layer_of_target(converter, expr) -> str | None:
    """``nn.Conv2d`` read through the target's own ``nn`` (converting converted code): the torch
    layer the tables write as it (``torch.nn.Conv2d``), so that a second conversion narrows an
    ``isinstance`` as the first did; None for anything else, or a target more than one torch
    layer becomes (unless one of them is the common one: ``nn.Dense`` is ``torch.nn.Linear``)."""
    if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
            and expr.value.value in converter.facts.target_nn and expr.value.value not in converter.walk_state.aliases):
        return None
    return _target_layers(converter.facts.tables).get("nn." + expr.attr.value)


_REVERSED: dict = {}


def _target_layers(tables) -> dict[str, str]:
    """{target layer class: the torch layer class it is written from}, built once per tables."""
    key = id(tables)
    if key not in _REVERSED:
        sources: dict[str, list[str]] = {}
        for name, entry in tables.items():
            if name.startswith("torch.nn.") and name[9:10].isupper() and "." not in name[9:] \
                    and (entry.target or "").startswith("nn."):
                sources.setdefault(entry.target, []).append(name)
        _REVERSED.clear()
        _REVERSED[key] = {t: ("torch.nn.Linear" if "torch.nn.Linear" in names else names[0])
                          for t, names in sources.items() if len(names) == 1 or "torch.nn.Linear" in names}
    return _REVERSED[key]


def note_layer_class(converter, name: str, value) -> None:
    """``name`` is bound to ``value``: remember it when that is a torch layer class (a parameter
    default ``norm_layer=nn.BatchNorm2d``, an assignment ``conv_layer = nn.Conv2d``)."""
    scope = converter.scope
    if scope is None:
        return
    q = converter.qual(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
    if q is not None and q in converter.facts.tables and q.startswith("torch.nn.") and q[9:10].isupper():
        scope.layer_classes[name] = [q]
    else:
        scope.layer_classes.pop(name, None)
