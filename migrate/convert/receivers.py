"""Receiver typing: what an expression is known to be (a torch tensor, a module, a layer class).

Methods such as ``x.view`` or ``m.train`` are only rewritten on receivers known to be tensors or
modules; these functions answer from what the walk has seen so far (the scopes of the
:class:`~migrate.convert.walker.Converter`) and never guess from names alone.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import libcst as cst

from migrate.convert.cst import dotted
from migrate.convert.dtype_forms import dtype_by_form
from migrate.convert.inplace_layers import INPLACE_KEY, built_in_place
from migrate.convert.tensor_methods import FUNCTION_METHODS

# table areas whose calls return torch tensors
_TORCH_TENSOR_AREAS = {"torch", "functional", "tensor", "einops"}
# attributes that name a parameter (a receiver `.weight.data` is a tensor)
PARAM_ATTRS = {"data", "weight", "bias", "running_mean", "running_var", "gamma", "beta",
               "moving_mean", "moving_variance", "embedding_table"}
# torch layer parameters that MindSpore names differently, by layer class name prefix
_PARAM_RENAMES = {
    "BatchNorm": {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean",
                  "running_var": "moving_variance"},
    "LayerNorm": {"weight": "gamma", "bias": "beta"},
    "GroupNorm": {"weight": "gamma", "bias": "beta"},
    "Embedding": {"weight": "embedding_table"},
}


def is_self(converter, node) -> bool:
    """``self`` inside a class that becomes a Cell."""
    return isinstance(node, cst.Name) and node.value == "self" and converter.in_cell


def is_module(converter, node) -> bool:
    """True when ``node`` is known to be an nn.Module/Cell."""
    if is_self(converter, node):
        return True
    if isinstance(node, cst.Name) and (node.value in converter.walk_state.module_names
                                       or _module_in_scopes(converter, node.value)):
        return True
    if isinstance(node, cst.Attribute) and is_self(converter, node.value) and converter.class_scope:
        return node.attr.value in converter.class_scope.attrs
    if isinstance(node, cst.Name) and _narrowed_to_modules(converter, node.value):
        return True
    # a module built in place: `Resample(4, 3).to(x)(x)` (julius)
    return module_ctor(converter, node) is not None


def _narrowed_to_modules(converter, name: str) -> bool:
    """An enclosing ``isinstance(name, ...)`` test allows module classes only (``nn.Sequential``,
    ``nn.Module``, a Cell class of the file): inside it ``name.children()`` is a module's."""
    scope = converter.scope
    kinds = scope.narrow.get(name) if scope is not None else None
    return bool(kinds) and all(k in converter.walk_state.cell_classes or torch_module_class(k) for k in kinds)


def _module_in_scopes(converter, name: str) -> bool:
    """``name`` holds a module in the innermost scope that binds it (a function reads the
    module-level ``model = Net()`` of a script's ``if __name__ == '__main__':`` block)."""
    for scope in reversed(converter.walk_state.functions):
        if name in scope.modules:
            return True
        if scope.local_names is not None and name in scope.local_names:
            return False
    return False


def is_tensor(converter, node) -> bool:
    """True when ``node`` (original, unconverted) is known to evaluate to a torch tensor.

    Answers are kept in ``converter.walk_state.tensor_memo`` for the current statement, and a chain is followed
    with an explicit stack: asking at every level of ``x.abs().abs()...`` costs O(1) each, and a
    chain of any length never deepens Python's stack."""
    memo = converter.walk_state.tensor_memo
    stack = [node]
    while stack:
        top = stack[-1]
        if top in memo:
            stack.pop()
            continue
        known, parts = _tensor_step(converter, top)
        if known is None:  # the first part (left to right) that is a tensor decides, as `or` does
            for part in parts:
                if part not in memo:
                    stack.append(part)
                    break
                if memo[part]:
                    known = True
                    break
            else:
                known = False
            if known is None:
                continue  # back here once the part is known
        memo[top] = known
        stack.pop()
    return memo[node]


# attributes of a tensor that are tensors sharing its memory (an in-place op through one writes
# into the tensor: rules/inplace.py)
TENSOR_VIEW_ATTRS = frozenset({"data", "T", "mT", "H", "mH", "real", "imag"})


def _tensor_step(converter, node) -> tuple[bool | None, tuple]:
    """One step of :func:`is_tensor`: ``(answer, ())`` when ``node`` alone decides, else
    ``(None, parts)``: ``node`` is a tensor when one of ``parts`` is."""
    scope = converter.scope
    if isinstance(node, cst.Name):
        # training_tensors: batches, losses and forward outputs the training pass identified
        return (scope is not None and node.value in scope.tensors or node.value in converter.facts.training_tensors), ()
    if isinstance(node, cst.Attribute) and is_self(converter, node.value) and node.attr.value in PARAM_ATTRS \
            and converter.class_scope.torch_base is not None:
        return True, ()  # self.weight in a subclass of a torch layer is its parameter
    if isinstance(node, cst.Call):
        q = converter.qual(node.func)
        if q is not None:
            e = converter.facts.tables.get(q)
            # (torch.device(...) is in the torch table but makes a device, not a tensor)
            return e is not None and e.table in _TORCH_TENSOR_AREAS and e.rule != "device", ()
        f = node.func
        if isinstance(f, cst.Attribute):
            if is_module(converter, f) or (is_self(converter, f.value) and scope is not None and scope.forward):
                return True, ()  # calling a sub-cell returns a tensor
            name = f.attr.value
            e = converter.facts.tables.get("Tensor." + name)
            if e is None and name in FUNCTION_METHODS:
                e = converter.facts.tables.get("torch." + name)  # x.cumprod(0): torch.cumprod(x, 0)
                if e is not None and e.table not in _TORCH_TENSOR_AREAS:
                    e = None
            if e is None or e.target in (".item", ".tolist"):
                return False, ()
            return None, (f.value,)
        return is_module(converter, f), ()
    if isinstance(node, cst.Subscript):
        return None, (node.value,)
    if isinstance(node, cst.Attribute) and node.attr.value in TENSOR_VIEW_ATTRS:
        return None, (node.value,)  # x.data, x.T: a tensor when x is one
    if isinstance(node, cst.BinaryOperation):
        return None, (node.left, node.right)
    if isinstance(node, cst.UnaryOperation):
        return None, (node.expression,)
    if isinstance(node, cst.IfExp):  # x.to(d) if g is not None else x: either branch's value
        return None, (node.body, node.orelse)
    return False, ()


def is_param(node) -> bool:
    """An attribute chain ending in a parameter name (``m.weight``, ``self.fc.bias.data``)."""
    return isinstance(node, cst.Attribute) and node.attr.value in PARAM_ATTRS


# torch.nn names that start with a capital but make tensors, not modules (CLIP's
# `self.class_embedding = nn.Parameter(...)` then `self.class_embedding.to(x.dtype)` is a tensor cast)
NOT_MODULES = frozenset({"torch.nn.Parameter", "torch.nn.UninitializedParameter", "torch.nn.Buffer",
                         "torch.nn.UninitializedBuffer", "torch.nn.parameter.Parameter",
                         "torch.nn.parameter.Buffer", "torch.nn.parameter.UninitializedParameter"})


def torch_module_class(q: str) -> bool:
    """``q`` names a class of ``torch.nn`` that makes modules (``torch.nn.Conv2d``; not
    ``torch.nn.Parameter``)."""
    return q.startswith("torch.nn.") and q[9:10].isupper() and q not in NOT_MODULES


def module_ctor(converter, node) -> str | None:
    """The class a call constructs when it is a module: torch qualname or a local Cell class."""
    if not isinstance(node, cst.Call):
        return None
    q = converter.qual(node.func)
    if q is not None and torch_module_class(q):
        return q
    if isinstance(node.func, cst.Name) and node.func.value in converter.walk_state.cell_classes:
        return node.func.value
    return None


def type_of(converter, node) -> list[str]:
    """Possible classes of ``node``: torch qualnames or local Cell class names ([] if unknown)."""
    if isinstance(node, cst.Name):
        if node.value == "self" and converter.class_scope:
            return [converter.class_scope.name]
        scope = converter.scope
        if scope is not None and node.value in scope.narrow:
            return list(scope.narrow[node.value])
        if scope is not None and node.value in scope.layers:
            return [scope.layers[node.value]]
        return []
    if isinstance(node, cst.Attribute):
        inner = node.value  # self.d.key, with self.d a ModuleDict whose items are known
        if isinstance(inner, cst.Attribute) and is_self(converter, inner.value) and converter.class_scope:
            kind = converter.walk_state.class_attrs.get(converter.class_scope.name, {}).get(
                f"{inner.attr.value}.{node.attr.value}")
            if kind is not None:
                return [kind]
        out = []
        for owner in type_of(converter, node.value):
            kind = converter.walk_state.class_attrs.get(owner, {}).get(node.attr.value)
            if kind is None:
                return []
            out.append(kind)
        return out
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and converter.scope is not None:
        # net[0], with net = nn.Sequential(nn.Embedding(...), ..., nn.Linear(...)) in this function; d["a"], with
        # d a ModuleDict whose values are all one class
        index = constant_index(node)
        layers = converter.scope.layers
        kind = layers.get(f"{node.value.value}[{index}]") if index is not None else None
        kind = kind or layers.get(f"{node.value.value}[]")
        return [kind] if kind is not None else []
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) \
            and is_self(converter, node.value.value) and converter.class_scope:
        # self.pe[i], with self.pe a ModuleList of one layer class; self.net[-1], an item of a
        # container written out item by item
        attrs = converter.walk_state.class_attrs.get(converter.class_scope.name, {})
        index = constant_index(node)
        kind = attrs.get(f"{node.value.attr.value}[{index}]") if index is not None else None
        kind = kind or attrs.get(f"{node.value.attr.value}[]")
        return [kind] if kind is not None else []
    return []


def param_renames(qual: str | None) -> dict | None:
    """torch parameter name -> MindSpore's, for a layer class (None: class unknown)."""
    if not qual:
        return None
    if not qual.startswith("torch."):
        return {}  # a local class, even one named LayerNorm (nanoGPT's), keeps its own names
    short = qual.rsplit(".", 1)[-1]
    for key, mapping in _PARAM_RENAMES.items():
        if short.startswith(key):
            return mapping
    return {}


def is_sequential(converter, node) -> bool:
    """``node`` is an nn.Sequential: self in a Sequential subclass, or an attribute assigned one."""
    kinds = type_of(converter, node)
    if not kinds:
        return False
    return all(k == "torch.nn.Sequential" or k in converter.walk_state.sequential_classes for k in kinds)


def torch_keywords(call: cst.Call) -> bool:
    """`x.norm(dim=1)`, `x.max(dim=0, keepdim=True)`: `dim=`/`keepdim=` are torch's spelling
    (NumPy and pandas say axis), so in a file that imports torch the receiver is a tensor."""
    return any(a.keyword is not None and a.keyword.value in ("dim", "keepdim") for a in call.args)


def torch_only_method(name: str, call: cst.Call) -> bool:
    """Calls that only a torch tensor answers: `.size(i)` with an axis (NumPy's and pandas'
    size is an attribute; pandas' groupby .size() takes no argument), `.dim()`, `.numel()`."""
    if name == "size":
        return len(call.args) == 1 and call.args[0].keyword is None
    return name in ("dim", "numel", "ndimension", "nelement") and not call.args


def _module_copy(converter, node) -> bool:
    """``copy.deepcopy(model)`` of a module (a model EMA's copy) is a module."""
    return isinstance(node, cst.Call) and len(node.args) == 1 and dotted(node.func) in ("copy.deepcopy", "deepcopy") \
        and is_module(converter, node.args[0].value)


def track_assign(converter, node: cst.Assign) -> None:
    """Note what an assignment binds: a tensor, a module, or a sub-cell of self (by class); each
    target of ``a = self.a = value`` binds the same value."""
    for target in node.targets:
        _track_target(converter, target.target, node.value)


def _track_target(converter, t, value0) -> None:
    """Note what one target of an assignment binds (see :func:`track_assign`)."""
    scope = converter.scope
    if isinstance(t, (cst.Tuple, cst.List)) and scope is not None:
        for el in t.elements:
            if isinstance(el.value, cst.Name):
                scope.dtypes.pop(el.value.value, None)
                if is_tensor(converter, value0):
                    # q, k, v = qkv.split(n, dim=2): every name unpacked from a tensor result is a tensor
                    scope.tensors.add(el.value.value)
    if isinstance(t, cst.Name) and scope is not None:
        scope.dtypes[t.value] = dtype_by_form(converter, value0)
        if _state_dict_call(value0):
            scope.state_dicts.add(t.value)
        else:
            scope.state_dicts.discard(t.value)
        _track_layer_list(converter, scope, t.value, value0)
        kind = module_ctor(converter, value0)
        if kind is not None and kind.startswith("torch."):
            scope.layers[t.value] = kind
        else:
            scope.layers.pop(t.value, None)
        if kind in _CONTAINERS or f"{t.value}[*]" in scope.layers:
            _track_container_items(converter, scope.layers, t.value, value0 if kind in _CONTAINERS else None)
        if is_tensor(converter, value0):
            scope.tensors.add(t.value)
        elif kind or _module_copy(converter, value0):
            scope.modules.add(t.value)
    elif isinstance(t, cst.Name) and module_ctor(converter, value0):
        converter.walk_state.module_names.add(t.value)
    elif isinstance(t, cst.Attribute) and is_self(converter, t.value) and converter.class_scope:
        _track_sub_cell(converter, t.attr.value, value0)
    if scope is not None:
        _track_layer_aliases(converter, scope, t, value0)


def _state_dict_call(node) -> bool:
    """``model.state_dict()`` (keywords only, as torch's method takes them)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
        node.func.attr.value == "state_dict" and all(a.keyword is not None for a in node.args)


def state_dict_item(converter, node) -> bool:
    """``sd[key]`` / ``sd['fc.weight'].data`` / ``sd[k].detach()`` where ``sd`` was assigned
    ``model.state_dict()`` in this scope: a tensor the module holds (torch's state_dict shares
    storage with it; the converted ``parameters_dict()`` holds the Parameters themselves), so an
    in-place write into it writes the module's, on both sides."""
    while True:
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            node = node.value
        elif isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "detach":
            node = node.func.value
        else:
            break
    scope = converter.scope
    return scope is not None and isinstance(node, cst.Subscript) and len(node.slice) == 1 \
        and isinstance(node.slice[0].slice, cst.Index) \
        and isinstance(node.slice[0].slice.value, (cst.Name, cst.SimpleString)) \
        and isinstance(node.value, cst.Name) and node.value.value in scope.state_dicts


def _track_layer_aliases(converter, scope, target, value) -> None:
    """``bn = self.bn`` / ``c, bn = self.c, self.bn``: the local name holds the layer whose class
    is known (fuse methods read ``bn.weight``, ``c.padding``); any other value forgets it."""
    pairs = [(target, value)]
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) \
            and len(target.elements) == len(value.elements):
        pairs = [(a.value, b.value) for a, b in zip(target.elements, value.elements)]
    for name, held in pairs:
        if not isinstance(name, cst.Name):
            continue
        kinds = type_of(converter, held) if isinstance(held, (cst.Attribute, cst.Name)) else []
        if len(kinds) == 1 and kinds[0].startswith("torch."):
            scope.layers[name.value] = kinds[0]
        elif held is not value:
            scope.layers.pop(name.value, None)  # unpacked from a tuple: anything else


def track_added_child(converter, call: cst.Call) -> None:
    """``self.add_module('bn', nn.BatchNorm2d(c))`` (or torch's alias register_module): ``self.bn``
    is known as an assigned one is."""
    args = call.args
    if converter.class_scope and is_self(converter, call.func.value) and len(args) == 2 \
            and not any(a.star or a.keyword for a in args) and isinstance(args[0].value, cst.SimpleString):
        name = args[0].value.evaluated_value
        if isinstance(name, str) and name.isidentifier():
            _track_sub_cell(converter, name, args[1].value)


def _track_sub_cell(converter, attr: str, value) -> None:
    """``self.<attr> = <module>(...)``: remember its class (and the items of a ModuleDict)."""
    kind = module_ctor(converter, value)
    attrs = converter.class_scope.attrs
    if kind:
        attrs[attr] = kind
    if kind and kind.startswith("torch.nn.") and built_in_place(value):
        attrs[INPLACE_KEY.format(attr)] = kind  # self.act = nn.SiLU(inplace=True)
    else:
        attrs.pop(INPLACE_KEY.format(attr), None)
    if kind == "torch.nn.ModuleDict":
        # self.d = nn.ModuleDict(dict(wte=nn.Embedding(...))): remember what each key holds
        for key, item in _dict_items(value.args[0].value if value.args else None):
            item_kind = module_ctor(converter, item)
            if item_kind:
                attrs[f"{attr}.{key}"] = item_kind
    if kind in ("torch.nn.ModuleList", "torch.nn.Sequential"):
        _track_items_by_index(converter, attrs, attr, value)
    elif f"{attr}[*]" in attrs:
        _track_items_by_index(converter, attrs, attr, None)
    if kind == "torch.nn.ModuleDict":
        # self.d = nn.ModuleDict({k: nn.Embedding(...) for k in keys}): every value one class
        values = {module_ctor(converter, v) for v in _dict_values(value.args[0].value if value.args else None)}
        if len(values) == 1 and None not in values:
            attrs[f"{attr}[]"] = values.pop()
    if kind in ("torch.nn.ModuleList", "torch.nn.Sequential"):
        # self.pe = nn.ModuleList([nn.Embedding(1, d) for _ in range(4)]): every item one class,
        # so self.pe[i] (and a loop over it) is known as that class
        kinds = {module_ctor(converter, item) for item in _list_items(value)}
        if len(kinds) == 1 and None not in kinds:
            attrs[f"{attr}[]"] = kinds.pop()
        elif kind == "torch.nn.ModuleList" and len(value.args) == 1 and isinstance(value.args[0].value, cst.Name) \
                and converter.scope is not None and not value.args[0].star and not value.args[0].keyword:
            # pe = [nn.Embedding(1, d) for _ in range(4)]; self.pe = nn.ModuleList(pe)
            item = converter.scope.layers.get(f"{value.args[0].value.value}[]")
            if item is not None:
                attrs[f"{attr}[]"] = item


def constant_index(node: cst.Subscript) -> int | None:
    """The integer written as ``node``'s one index (``x[2]``, ``x[-1]``), else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value, sign = node.slice[0].slice.value, 1
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value, sign = value.expression, -1
    return sign * int(value.value, 0) if isinstance(value, cst.Integer) else None


_JOINED: list = [None, ""]  # (the lines of the file being converted, them joined)


def _source_text(converter) -> str:
    """The file's lines joined, once a file (the scans of each layer container joined them again)."""
    lines = converter.facts.src_lines
    if _JOINED[0] is not lines:
        _JOINED[:] = [lines, "\n".join(lines)]
    return _JOINED[1]


def _track_items_by_index(converter, attrs: dict, attr: str, value) -> None:
    """``self.net = nn.Sequential(conv, bn, act)``: ``self.net[1]`` / ``self.net[-2]`` is a
    BatchNorm2d. Kept under ``attrs["net[1]"]`` / ``attrs["net[-2]"]`` when the container is
    written out item by item, is assigned once in the class and never grows or changes
    (``self.net.append(...)``, ``self.net[i] = ...``) in the file; ``value`` None: another
    assignment of the attribute, which forgets them."""
    for key in [k for k in attrs if k.startswith(f"{attr}[") and k != f"{attr}[]"]:
        del attrs[key]
    if f"{attr}[*]" in attrs or value is None:
        attrs[f"{attr}[*]"] = "assigned again"  # two assignments: the items are not known
        return
    attrs[f"{attr}[*]"] = "assigned"
    first = value.args[0].value if value.args else None
    if isinstance(first, cst.ListComp):
        return
    grows = re.compile(rf"\bself\.{re.escape(attr)}\s*(\.\s*(append|extend|insert|add_module|register_module|pop)\s*\("
                       rf"|\+=|\[[^\]]*\]\s*=(?!=))|\bdel\s+self\.{re.escape(attr)}\[")
    if grows.search(_source_text(converter)) is not None:
        return
    items = _list_items(value)
    for i, item in enumerate(items):
        item_kind = module_ctor(converter, item)
        if item_kind is not None:
            attrs[f"{attr}[{i}]"] = attrs[f"{attr}[{i - len(items)}]"] = item_kind


_CONTAINERS = ("torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.ModuleDict")


def _track_container_items(converter, layers: dict, name: str, value) -> None:
    """``net = nn.Sequential(nn.Embedding(n, d), *blocks, nn.Linear(d, n))`` in a function: ``net[0]`` is an
    Embedding and ``net[-1]`` a Linear (items written before the first starred one count from the start, those
    after the last from the end); ``d = nn.ModuleDict({k: nn.Embedding(...) for k in keys})``: every item is an
    Embedding (``d[k]``, ``for e in d.values()``). Kept under ``layers["net[0]"]`` / ``layers["d[]"]`` when the
    name is assigned a container once in the file and it never grows or changes there; ``value`` None: another
    assignment, which forgets them."""
    for key in [k for k in layers if k.startswith(f"{name}[")]:
        del layers[key]
    if value is None or f"{name}[*]" in layers:
        layers[f"{name}[*]"] = "assigned again"
        return
    layers[f"{name}[*]"] = "assigned"
    grows = re.compile(rf"\b{re.escape(name)}\s*(\.\s*(append|extend|insert|add_module|update|pop)\s*\(|\+=|"
                       rf"\[[^\]]*\]\s*=(?!=))|\bdel\s+{re.escape(name)}\[")
    if any(grows.search(line) for line in converter.facts.src_lines if not line.lstrip().startswith("#")):
        return  # (a commented-out `d[k] = ...` changes nothing)
    first = value.args[0].value if len(value.args) == 1 and not value.args[0].star else None
    if module_ctor(converter, value) == "torch.nn.ModuleDict":
        kinds = {module_ctor(converter, v) for v in _dict_values(first)}
    else:
        indexed = _indexed_items(value)
        for i, item in indexed:
            kind = module_ctor(converter, item)
            if kind is not None:
                layers[f"{name}[{i}]"] = kind
        kinds = {module_ctor(converter, item) for item in _list_items(value)}
    if len(kinds) == 1 and None not in kinds:
        layers[f"{name}[]"] = kinds.pop()


def _indexed_items(call) -> list:
    """(index, item node) for the items of ``Sequential(a, *rest, b)`` / ``ModuleList([a, *rest, b])`` whose
    place is known: those before the first starred item from 0, those after the last from -1."""
    if not isinstance(call, cst.Call) or any(a.keyword for a in call.args):
        return []
    first = call.args[0].value if len(call.args) == 1 and not call.args[0].star else None
    if isinstance(first, (cst.List, cst.Tuple)):
        items = [(el.value, isinstance(el, cst.StarredElement)) for el in first.elements]
    elif first is not None:
        return []
    else:
        items = [(a.value, bool(a.star)) for a in call.args]
    starred = [i for i, (_, star) in enumerate(items) if star]
    if not starred:
        return [(i, v) for i, (v, _) in enumerate(items)]
    head = [(i, v) for i, (v, _) in enumerate(items[:starred[0]])]
    tail = items[starred[-1] + 1:]
    return head + [(i - len(tail), v) for i, (v, _) in enumerate(tail)]


def _dict_values(node) -> list:
    """The value nodes of a dict literal, ``dict(k=v)`` or a dict comprehension (its one value)."""
    if isinstance(node, cst.DictComp):
        return [node.value]
    if isinstance(node, cst.Dict):
        return [el.value for el in node.elements if isinstance(el, cst.DictElement)]
    return [v for _, v in _dict_items(node)]


def _track_layer_list(converter, scope, name: str, value) -> None:
    """``pe = [nn.Embedding(1, d) for _ in range(4)]``: a local list of layers of one torch class
    (kept as ``scope.layers["pe[]"]``), unless the file ever grows or changes a list of that name
    (``pe.append(...)``, ``pe += ...``, ``pe[i] = ...``); any other value forgets it."""
    scope.layers.pop(f"{name}[]", None)
    if not isinstance(value, (cst.List, cst.ListComp)):
        return
    kinds = {module_ctor(converter, item) for item in _list_items(cst.Call(cst.Name("list"), [cst.Arg(value)]))}
    if len(kinds) != 1 or None in kinds or not next(iter(kinds)).startswith("torch."):
        return
    grows = re.compile(rf"\b{re.escape(name)}\s*(\.\s*(append|extend|insert)\s*\(|\+=|\[[^\]]*\]\s*=(?!=))")
    if grows.search(_source_text(converter)) is None:
        scope.layers[f"{name}[]"] = kinds.pop()


def _list_items(call) -> list:
    """The item nodes of `ModuleList([a, b])` / `ModuleList([f(i) for i in ...])` /
    `Sequential(a, b)` ([] when they cannot be read)."""
    if not isinstance(call, cst.Call) or not call.args or any(a.keyword or a.star for a in call.args):
        return []
    first = call.args[0].value
    if len(call.args) == 1 and isinstance(first, (cst.List, cst.Tuple)):
        return [el.value for el in first.elements if not isinstance(el, cst.StarredElement)] \
            if all(not isinstance(el, cst.StarredElement) for el in first.elements) else []
    if len(call.args) == 1 and isinstance(first, cst.ListComp):
        return [first.elt]
    return [a.value for a in call.args]


def _dict_items(node) -> list:
    """(key, value node) pairs of `dict(k=v, ...)` or a `{'k': v}` literal with string keys."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        return [(a.keyword.value, a.value) for a in node.args if a.keyword is not None]
    if isinstance(node, cst.Dict):
        return [(el.key.evaluated_value, el.value) for el in node.elements
                if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)]
    return []


_PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*(?:#.*)?$")
_PLAIN_IMPORTS: list = [None, {}]  # (the lines of the file being converted, {local name: module})


def _plain_imports(converter) -> dict[str, str]:
    """{local name: module} of the file's one-module ``import numpy as np`` / ``import scipy`` lines
    (a name bound to a module, never to a value), once a file."""
    lines = converter.facts.src_lines
    if _PLAIN_IMPORTS[0] is not lines:
        found = {}
        for line in lines:
            m = _PLAIN_IMPORT.match(line)
            if m is not None:
                module, local = m.group(1), m.group(2)
                found[local or module.split(".")[0]] = module if local else module.split(".")[0]
        _PLAIN_IMPORTS[:] = [lines, found]
    return _PLAIN_IMPORTS[1]


def installed_submodule(converter, recv) -> bool:
    """``np.linalg`` in ``np.linalg.norm(x)``: a submodule, found on disk, of an installed package that the file
    imports whole (``import numpy as np``); its functions are never tensor methods (piq's
    ``np.linalg.norm(v, axis=0)`` was taken for Tensor.norm and marked). Nothing is imported to decide."""
    chain = dotted(recv) if isinstance(recv, cst.Attribute) else None
    if chain is None:
        return False
    root, *parts = chain.split(".")
    module = _plain_imports(converter).get(root)
    if module is None or root in converter.walk_state.aliases or root not in converter.facts.imported \
            or converter.scope is not None and root in converter.scope.shadowed:
        return False
    return _is_submodule(module, tuple(parts))


@functools.lru_cache(maxsize=256)
def _is_submodule(package: str, parts: tuple) -> bool:
    """Whether ``package.<parts>`` is a module of the installed ``package`` (its files looked up
    from the package's spec; the package itself is not imported)."""
    import importlib.util
    try:
        spec = importlib.util.find_spec(package) if "." not in package else None
    except (ImportError, ValueError):
        return False
    where = list(spec.submodule_search_locations or ()) if spec is not None else []
    for part in parts:
        found = []
        for base in where:
            folder = Path(base) / part
            if folder.is_dir():
                found.append(str(folder))
            elif any(Path(base).glob(f"{part}.py")) or any(Path(base).glob(f"{part}.*.so")) \
                    or any(Path(base).glob(f"{part}.*.pyd")):
                return part == parts[-1]  # a module file: nothing below it is a module
        where = found
    return bool(where) and bool(parts)
