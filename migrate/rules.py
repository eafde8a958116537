"""Named rewrite rules: the irregular cases the tables cannot express, one function each.

Every rule is registered with a stable ID (``MS1xx`` rewrites, ``MS9xx`` markers) and a one-line
docstring "Replace A with B" that ``migrate mappings`` and the reports show. Table entries name
their argument rules through their ``rule`` key.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import libcst as cst

from migrate.calls import BindError, CallEdit, is_literal, literal, operand, render
from migrate.convert import _NO_GRAD, code_of, dotted, parse_expr


@dataclass(frozen=True)
class Rule:
    """A registered rule: stable ID, qualified name, the function, its one-line summary."""

    id: str
    name: str
    func: Callable
    doc: str


RULES: dict[str, Rule] = {}
MARKERS = {
    "MS900": "torch import kept because unconverted code still uses it",
    "MS901": "torch API with no mapping",
    "MS902": "argument value with no MindSpore equivalent",
    "MS903": "arguments that cannot be matched to the torch signature (*args, unknown keywords)",
    "MS904": "module.zero_grad(): gradients are returned by ms.grad / value_and_grad, not accumulated",
    "MS905": "in-place tensor operation",
    "MS906": "torch API referenced without a call: arguments are not translated",
}


def rule(rule_id: str, name: str):
    """Register a rule function under ``name`` with ID ``rule_id``."""
    def deco(fn):
        RULES[name] = Rule(rule_id, name, fn, (fn.__doc__ or "").strip().splitlines()[0])
        return fn
    return deco


# --------------------------------------------------------------------------------------------
# receivers: what is known to be a tensor or a module
# --------------------------------------------------------------------------------------------
_TORCH_TENSOR_AREAS = {"torch", "functional", "tensor"}


def _func_ctx(conv) -> dict | None:
    return conv.func_stack[-1] if conv.func_stack else None


def is_self(conv, node) -> bool:
    return isinstance(node, cst.Name) and node.value == "self" and conv.in_cell


def is_module(conv, node) -> bool:
    """True when ``node`` is known to be an nn.Module/Cell."""
    if is_self(conv, node):
        return True
    ctx = _func_ctx(conv)
    if isinstance(node, cst.Name) and (ctx is not None and node.value in ctx["modules"]
                                       or node.value in conv.module_names):
        return True
    if isinstance(node, cst.Attribute) and is_self(conv, node.value) and conv.class_stack:
        return node.attr.value in conv.class_stack[-1]["attrs"]
    return False


def is_tensor(conv, node) -> bool:
    """True when ``node`` (original, unconverted) is known to evaluate to a torch tensor."""
    ctx = _func_ctx(conv)
    if isinstance(node, cst.Name):
        # training_tensors: batches, losses and forward outputs the training pass identified
        return ctx is not None and node.value in ctx["tensors"] or \
            node.value in getattr(conv, "training_tensors", ())
    if isinstance(node, cst.Call):
        q = conv.qual(node.func)
        if q is not None:
            e = conv.tables.get(q)
            return e is not None and e.table in _TORCH_TENSOR_AREAS
        f = node.func
        if isinstance(f, cst.Attribute):
            if is_module(conv, f) or (is_self(conv, f.value) and ctx is not None and ctx.get("forward")):
                return True  # calling a sub-cell returns a tensor
            e = conv.tables.get("Tensor." + f.attr.value)
            return e is not None and e.target not in (".item", ".tolist") and is_tensor(conv, f.value)
        return is_module(conv, f)
    if isinstance(node, cst.Subscript):
        return is_tensor(conv, node.value)
    if isinstance(node, cst.BinaryOperation):
        return is_tensor(conv, node.left) or is_tensor(conv, node.right)
    if isinstance(node, cst.UnaryOperation):
        return is_tensor(conv, node.expression)
    return False


def _module_ctor(conv, node) -> str | None:
    """The class a call constructs when it is a module: torch qualname or a local Cell class."""
    if not isinstance(node, cst.Call):
        return None
    q = conv.qual(node.func)
    if q is not None and q.startswith("torch.nn.") and q[9:10].isupper():
        return q
    if isinstance(node.func, cst.Name) and node.func.value in conv.cell_classes:
        return node.func.value
    return None


# --------------------------------------------------------------------------------------------
# references, calls, methods
# --------------------------------------------------------------------------------------------
def on_reference(conv, node, q: str):
    """A torch name used as a value (base class, isinstance, dtype, ...), not called."""
    entry = conv.tables.get(q)
    if entry is not None and entry.target and entry.label != "unsupported" \
            and not entry.target.startswith("."):
        new = conv.target(entry.target)
        # a class named in isinstance or as a base keeps its label only if it has no arguments
        # to translate (nn.Module -> nn.Cell is "transformed": Cells start in inference mode)
        label, note = ("exact" if entry.params is not None else entry.label), entry.note
        if entry.params and entry.args and not conv.in_isinstance:
            label = "approximate"
            note = f"{q} referenced without a call: its arguments are not translated where it is called"
        conv.record(node, new, entry.id, label, note)
        return new
    conv.uses_alias(node)
    conv.mark(node, "MS901", f"{q} has no mapping" + (f" ({entry.note})" if entry and entry.note else ""))
    return node


def on_call(conv, node: cst.Call):
    func = node.func
    q = conv.qual(func)
    if q is not None:
        start = len(conv.changes)
        args = conv._walk_seq(node.args)
        walked = node if args is node.args else node.with_changes(args=args)
        entry = conv.tables.get(q)
        if entry is None:
            return keep_original(conv, node, start, "MS901", f"{q} has no mapping")
        new = apply_entry(conv, walked, entry, q, original=node)
        if new is walked and walked is not node and conv.changes and conv.changes[-1].label == "unsupported":
            # the call stays as written: so do its arguments (no half-converted torch calls)
            # re-run on the original call so the marker quotes the code as written
            conv.changes.pop()
            if conv.markers and conv.markers[-1]:
                conv.markers[-1].pop()
            inner = conv.changes[start:]
            del conv.changes[start:]
            conv.changes.extend(c for c in inner if c.label == "unsupported")
            _count_aliases(conv, node)
            return apply_entry(conv, node, entry, q)
        return new
    if isinstance(func, cst.Attribute):
        return on_method(conv, node)
    if isinstance(func, cst.Name) and func.value in ("isinstance", "issubclass"):
        saved, conv.in_isinstance = conv.in_isinstance, True
        try:
            return conv.generic(node)
        finally:
            conv.in_isinstance = saved
    return conv.generic(node)


def keep_original(conv, node, start: int, rule_id: str, reason: str):
    """Leave ``node`` exactly as written, drop the rewrites recorded inside it, and mark it."""
    inner = conv.changes[start:]
    del conv.changes[start:]
    conv.changes.extend(c for c in inner if c.label == "unsupported")
    _count_aliases(conv, node)
    conv.mark(node, rule_id, reason)
    return node


def _count_aliases(conv, node) -> None:
    """Every torch alias used inside ``node`` stays in the output, so its import must stay."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            if n.value in conv.aliases:
                conv.alias_uses[n.value] = conv.alias_uses.get(n.value, 0) + 1
            continue
        stack.extend(n.children)


def apply_entry(conv, call: cst.Call, entry, q: str, receiver=None, receiver_before=None, original=None):
    """Rewrite one call with its table entry (generic argument fates, then the entry's rule).

    ``call`` has its arguments (and receiver) converted already; ``original`` is the call as
    written, which the report shows as "before"."""
    shown = original if original is not None else call
    if entry.label == "unsupported":
        conv.uses_alias(call.func)
        conv.mark(call, entry.id, entry.note or f"{q} has no MindSpore equivalent")
        return call
    if entry.rule and entry.rule not in RULES:
        conv.uses_alias(call.func)
        conv.mark(call, "MS901", f"{q}: rule {entry.rule!r} is not available")
        return call
    edit = CallEdit(conv, call, entry)
    edit.receiver_before = receiver_before
    target = entry.target
    if receiver is not None and target.startswith("."):
        edit.func = cst.Attribute(value=receiver, attr=cst.Name(target[1:]))
    elif target:
        edit.func = conv.target(target)
        if receiver is not None:
            edit.receiver = receiver
    edit.method_receiver = receiver
    if entry.params is None:
        if entry.rule:
            RULES[entry.rule].func(edit)
        if edit.problems:
            return _keep(conv, call, entry, edit)
        new = edit.result if edit.result is not None else call.with_changes(
            func=edit.func, args=([cst.Arg(receiver)] if edit.receiver is not None else []) + list(call.args))
        conv.record(shown, new, _rule_id(entry), edit.label, "; ".join(edit.notes))
        return new
    try:
        edit.bind()
    except BindError as exc:
        conv.uses_alias(call.func)
        conv.mark(call, "MS903", f"{q}: {exc}")
        return call
    edit.apply_fates()
    if entry.rule and not edit.problems:
        RULES[entry.rule].func(edit)
    if edit.problems:
        return _keep(conv, call, entry, edit)
    new = edit.build()
    conv.record(shown, new, _rule_id(entry), edit.label, "; ".join(edit.notes))
    return new


def _rule_id(entry) -> str:
    """A change made by a named rule carries the rule's ID; a plain table rewrite the entry's."""
    return RULES[entry.rule].id if entry.rule in RULES else entry.id


def _keep(conv, call, entry, edit):
    conv.uses_alias(call.func)
    conv.mark(call, "MS902", f"{entry.torch}: " + "; ".join(edit.problems))
    return call


def on_method(conv, node: cst.Call):
    """``recv.name(...)``: module methods, tensor methods, in-place ops."""
    func = node.func
    recv0 = func.value
    name = func.attr.value
    recv = conv.walk(recv0)
    args = conv._walk_seq(node.args)
    walked = node
    if recv is not recv0 or args is not node.args:
        walked = node.with_changes(func=func.with_changes(value=recv), args=args)
    if name == "apply" and isinstance(recv0, cst.Name) and recv0.value in conv.function_classes:
        return function_apply(conv, node, walked)
    if isinstance(recv0, cst.Name) and recv0.value in conv.imported:
        return walked  # `ops.unsqueeze(...)`, `np.split(...)`: a module's function, not a method
    if name == "forward" and conv.in_cell and isinstance(recv0, cst.Call) and \
            isinstance(recv0.func, cst.Name) and recv0.func.value == "super":
        new = walked.with_changes(func=walked.func.with_changes(attr=cst.Name("construct")))
        conv.record(node, new, "MS102", "exact", "a Cell's forward is construct")
        return new
    if name == "add_module" and conv.after and _is_sequential(conv, recv0):
        return sequential_add_module(conv, node, walked, recv0)
    entry = conv.tables.get("Module." + name)
    if entry is not None and (entry.receiver == "any" or is_module(conv, recv0)):
        return apply_entry(conv, walked, entry, "Module." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    entry = conv.tables.get("Tensor." + name)
    if entry is not None and (entry.receiver == "any" or is_tensor(conv, recv0)
                              or entry.receiver == "param" and _is_param(recv0)
                              or conv.aliases and (_torch_keywords(node)
                                                   or _torch_only_method(name, node))):
        return apply_entry(conv, walked, entry, "Tensor." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    if name.endswith("_") and not name.startswith("_") and is_tensor(conv, recv0):
        conv.mark(node, "MS905", f"in-place tensor method {name}(): MindSpore tensors are "
                                 "rewritten functionally; assign the result instead")
        return walked
    return walked


def _torch_keywords(call: cst.Call) -> bool:
    """`x.norm(dim=1)`, `x.max(dim=0, keepdim=True)`: `dim=`/`keepdim=` are torch's spelling
    (NumPy and pandas say axis), so in a file that imports torch the receiver is a tensor."""
    return any(a.keyword is not None and a.keyword.value in ("dim", "keepdim") for a in call.args)


def _torch_only_method(name: str, call: cst.Call) -> bool:
    """Calls that only a torch tensor answers: `.size(i)` with an axis (NumPy's and pandas'
    size is an attribute; pandas' groupby .size() takes no argument), `.dim()`, `.numel()`."""
    if name == "size":
        return len(call.args) == 1 and call.args[0].keyword is None
    return name in ("dim", "numel", "ndimension", "nelement") and not call.args


_PARAM_ATTRS = {"data", "weight", "bias", "running_mean", "running_var", "gamma", "beta",
                "moving_mean", "moving_variance", "embedding_table"}


def _is_param(node) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value in _PARAM_ATTRS


_PARAM_RENAMES = {
    "BatchNorm": {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean",
                  "running_var": "moving_variance"},
    "LayerNorm": {"weight": "gamma", "bias": "beta"},
    "GroupNorm": {"weight": "gamma", "bias": "beta"},
    "Embedding": {"weight": "embedding_table"},
}


def type_of(conv, node) -> list[str]:
    """Possible classes of ``node``: torch qualnames or local Cell class names ([] if unknown)."""
    if isinstance(node, cst.Name):
        if node.value == "self" and conv.class_stack:
            return [conv.class_stack[-1]["name"]]
        ctx = _func_ctx(conv)
        if ctx is not None and node.value in ctx["narrow"]:
            return list(ctx["narrow"][node.value])
        return []
    if isinstance(node, cst.Attribute):
        inner = node.value  # self.d.key, with self.d a ModuleDict whose items are known
        if isinstance(inner, cst.Attribute) and is_self(conv, inner.value) and conv.class_stack:
            kind = conv.class_attrs.get(conv.class_stack[-1]["name"], {}).get(
                f"{inner.attr.value}.{node.attr.value}")
            if kind is not None:
                return [kind]
        out = []
        for owner in type_of(conv, node.value):
            kind = conv.class_attrs.get(owner, {}).get(node.attr.value)
            if kind is None:
                return []
            out.append(kind)
        return out
    return []


def _renames_for(qual: str | None) -> dict | None:
    if not qual:
        return None
    if not qual.startswith("torch."):
        return {}  # a local class, even one named LayerNorm (nanoGPT's), keeps its own names
    short = qual.rsplit(".", 1)[-1]
    for key, mapping in _PARAM_RENAMES.items():
        if short.startswith(key):
            return mapping
    return {}


def on_plain_attribute(conv, node: cst.Attribute):
    """``x.weight`` where x is a known BatchNorm/LayerNorm/Embedding: MindSpore parameter names."""
    value = conv.walk(node.value)
    attr = node.attr.value
    if attr in ("weight", "bias", "running_mean", "running_var"):
        kinds = type_of(conv, node.value)
        names = {(_renames_for(k) or {}).get(attr, attr) for k in kinds}
        if kinds and len(names) == 1 and attr not in names:
            new_attr = names.pop()
            new = node.with_changes(value=value, attr=cst.Name(new_attr))
            short = "/".join(sorted(k.rsplit(".", 1)[-1] for k in kinds))
            conv.record(node, new, "MS108", "exact", f"{short} parameters are named {new_attr} in MindSpore")
            return new
    if attr in ("values", "indices") and isinstance(node.value, cst.Call):
        new = named_tuple_field(conv, node, value)
        if new is not None:
            return new
    if attr == "device" and conv.aliases and is_tensor(conv, node.value):
        new = cst.Name("None")
        conv.record(node, new, "MS107", "exact", "tensors have no device in MindSpore: "
                                                 "set_context(device_target=...) decides")
        return new
    if attr == "data" and conv.aliases and is_tensor(conv, node.value):
        conv.record(node, value, "MS107", "exact", "`.data` is not needed: nothing is recorded outside grad")
        return value
    return node if value is node.value else node.with_changes(value=value)


@rule("MS138", "norm_p")
def norm_p(edit) -> None:
    """Replace x.norm(p='fro' or 2, dim) with x.norm(dim=dim) (the 2-norm); mark other p."""
    p = edit.get("p")
    if p is None:
        return
    try:
        value = literal(p)
    except (ValueError, SyntaxError):
        value = None
    if value in ("fro", 2, 2.0):
        edit.drop("p")
        return
    edit.unsupported(f"p={code_of(p)}: only the 2-norm is translated (MindSpore's ord is a matrix "
                     "norm for some values); write ops.norm(x, ord, dim) by hand")


# torch functions and methods whose result is a (values, indices) named tuple; MindSpore's
# counterparts return a plain tuple
_VALUES_INDICES = {"max", "min", "sort", "topk", "kthvalue", "median", "mode", "cummax", "cummin"}


@rule("MS137", "named_tuple_field")
def named_tuple_field(conv, node: cst.Attribute, value):
    """Replace torch.max(x, d).values / .indices with ops.max(x, d)[0] / [1]."""
    func = node.value.func
    q = conv.qual(func)
    name = q.rsplit(".", 1)[-1] if q else (func.attr.value if isinstance(func, cst.Attribute) else None)
    converted = value is not node.value
    if name not in _VALUES_INDICES or not converted:  # an unconverted torch call keeps .values
        return None
    index = "0" if node.attr.value == "values" else "1"
    new = cst.Subscript(value=value, slice=[cst.SubscriptElement(cst.Index(cst.Integer(index)))])
    conv.record(node, new, "MS137", "exact", f"MindSpore's {name} returns a plain tuple (values, indices)")
    return new


# --------------------------------------------------------------------------------------------
# statements
# --------------------------------------------------------------------------------------------
def on_assign(conv, node: cst.Assign):
    track_assign(conv, node)
    # ``self.x = nn.Parameter(...)`` keeps its name; register_buffer etc. are method rules
    return conv.generic(node)


def track_assign(conv, node: cst.Assign) -> None:
    """Note what an assignment binds: a tensor, a module, or a sub-cell of self (by class)."""
    ctx = _func_ctx(conv)
    value0 = node.value
    if len(node.targets) == 1:
        t = node.targets[0].target
        if isinstance(t, (cst.Tuple, cst.List)) and ctx is not None and is_tensor(conv, value0):
            # q, k, v = qkv.split(n, dim=2): every name unpacked from a tensor result is a tensor
            for el in t.elements:
                if isinstance(el.value, cst.Name):
                    ctx["tensors"].add(el.value.value)
        if isinstance(t, cst.Name) and ctx is not None:
            if is_tensor(conv, value0):
                ctx["tensors"].add(t.value)
            elif _module_ctor(conv, value0):
                ctx["modules"].add(t.value)
        elif isinstance(t, cst.Name) and _module_ctor(conv, value0):
            conv.module_names.add(t.value)
        elif isinstance(t, cst.Attribute) and is_self(conv, t.value) and conv.class_stack:
            kind = _module_ctor(conv, value0)
            if kind:
                conv.class_stack[-1]["attrs"][t.attr.value] = kind
            if kind == "torch.nn.ModuleDict":
                # self.d = nn.ModuleDict(dict(wte=nn.Embedding(...))): remember what each key holds
                for key, item in _dict_items(value0.args[0].value if value0.args else None):
                    item_kind = _module_ctor(conv, item)
                    if item_kind:
                        conv.class_stack[-1]["attrs"][f"{t.attr.value}.{key}"] = item_kind


def _dict_items(node) -> list:
    """(key, value node) pairs of `dict(k=v, ...)` or a `{'k': v}` literal with string keys."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        return [(a.keyword.value, a.value) for a in node.args if a.keyword is not None]
    if isinstance(node, cst.Dict):
        return [(el.key.evaluated_value, el.value) for el in node.elements
                if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)]
    return []


def _is_cell_base(conv, base) -> bool:
    q = conv.qual(base)
    if q is None:
        return isinstance(base, cst.Name) and base.value in conv.cell_classes
    return q.startswith("torch.nn.") and q[9:10].isupper() or q == "torch.nn.Module"


def on_class(conv, node: cst.ClassDef):
    cell = any(_is_cell_base(conv, b.value) for b in node.bases)
    fn = any(conv.qual(b.value) in ("torch.autograd.Function", "torch.autograd.function.Function")
             for b in node.bases)
    if not cell and not fn and _defines_forward(node) and any(
            isinstance(b.value, (cst.Name, cst.Attribute)) and conv.qual(b.value) is None
            and dotted(b.value) not in ("object", None) for b in node.bases):
        # a subclass of a class from another file (`class Head(ConvBN)`) that defines forward:
        # in a torch file that is a module; say so, since the base is not visible here
        cell = True
        conv.record(node.bases[0].value, node.bases[0].value, "MS101", "approximate",
                    f"{node.name.value} assumed to be an nn.Module subclass (defines forward; "
                    "its base is defined elsewhere)")
    if cell:
        conv.cell_classes.add(node.name.value)
    if any(conv.qual(b.value) == "torch.nn.Sequential" or
           (isinstance(b.value, cst.Name) and b.value.value in conv.sequential_classes) for b in node.bases):
        conv.sequential_classes.add(node.name.value)
    attrs = conv.class_attrs.setdefault(node.name.value, {})
    conv.class_stack.append({"cell": cell, "attrs": attrs, "name": node.name.value, "function": fn})
    try:
        if fn:
            return autograd_function(conv, node)
        return conv.generic(node)
    finally:
        conv.class_stack.pop()


def _defines_forward(node: cst.ClassDef) -> bool:
    return isinstance(node.body, cst.IndentedBlock) and any(
        isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in node.body.body)


def on_function(conv, node: cst.FunctionDef):
    ctx = {"tensors": set(), "modules": set(), "narrow": {}}
    params = [p.name.value for p in node.params.params]
    if conv.in_cell and node.name.value in ("forward", "construct"):
        ctx["tensors"].update(params[1:])
        ctx["forward"] = True
    for p in list(node.params.params) + list(node.params.kwonly_params):
        ann = p.annotation
        if ann is not None and conv.qual(ann.annotation) == "torch.Tensor":
            ctx["tensors"].add(p.name.value)
    decorators = [d for d in node.decorators if not _is_no_grad(conv, node, d)]
    if len(decorators) != len(node.decorators):
        node = node.with_changes(decorators=decorators)
        conv.reshaped = True
    conv.func_stack.append(ctx)
    try:
        new = conv.generic(node)
    finally:
        conv.func_stack.pop()
    body = conv.drop_nested_imports(new.body)
    if body is not new.body:
        new = new.with_changes(body=body)
    if conv.in_cell and node.name.value == "forward":
        new = new.with_changes(name=cst.Name("construct"))
        conv.record("def forward", "def construct", "MS102", "exact", "a Cell's forward is construct")
    return new


def _is_no_grad(conv, node, dec: cst.Decorator) -> bool:
    expr = dec.decorator
    q = conv.qual(expr.func if isinstance(expr, cst.Call) else expr)
    if q in _NO_GRAD:
        conv.record(dec.decorator, "", "MS106", "exact",
                    "no_grad removed: nothing is recorded outside a grad transform")
        return True
    return False


@rule("MS106", "no_grad")
def on_with(conv, node: cst.With):
    """Replace `with torch.no_grad(): body` with body (nothing is recorded outside grad)."""
    keep = []
    for item in node.items:
        e = item.item
        q = conv.qual(e.func) if isinstance(e, cst.Call) else None
        if q in _NO_GRAD and item.asname is None:
            conv.record(e, "", "MS106", "exact", "grad-mode block unwrapped: nothing is recorded "
                                                  "outside a grad transform")
            continue
        keep.append(item)
    if not keep:
        new = node.with_changes(body=conv.walk(node.body))
    else:
        new = conv.generic(node.with_changes(items=keep))
    if keep:
        if len(keep) != len(node.items):
            new = new.with_changes(items=[*new.items[:-1], new.items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        return new
    body = new.body
    if isinstance(body, cst.SimpleStatementSuite):
        stmts = [cst.SimpleStatementLine(list(body.body))]
    else:
        stmts = list(body.body)
    if node.leading_lines:
        stmts[0] = stmts[0].with_changes(leading_lines=[*node.leading_lines, *stmts[0].leading_lines])
    conv.reshaped = True
    return stmts


@rule("MS104", "modules_loop")
def on_for(conv, node: cst.For):
    """Replace `for m in net.modules()` with `for _, m in net.cells_and_names()`."""
    it = node.iter
    if (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args
            and it.func.attr.value == "modules" and isinstance(node.target, cst.Name)
            and (is_module(conv, it.func.value) or conv.aliases)):
        recv = conv.walk(it.func.value)
        new_iter = it.with_changes(func=it.func.with_changes(value=recv, attr=cst.Name("cells_and_names")))
        new_target = cst.Tuple([cst.Element(cst.Name("_")), cst.Element(node.target)], lpar=[], rpar=[])
        conv.record(it, new_iter, "MS104", "exact", "cells_and_names() yields (name, cell) pairs")
        node = node.with_changes(iter=new_iter, target=new_target)
        return node.with_changes(body=conv.walk(node.body),
                                 orelse=conv.walk(node.orelse) if node.orelse else None)
    return conv.generic(node)


def on_if(conv, node: cst.If):
    """Track ``isinstance(m, nn.BatchNorm2d)`` so ``m.weight`` becomes ``m.gamma`` inside."""
    test = node.test
    ctx = _func_ctx(conv)
    narrowed = None
    if (ctx is not None and isinstance(test, cst.Call) and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance" and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)):
        kinds = test.args[1].value
        elems = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        quals = [conv.qual(e) or (e.value if isinstance(e, cst.Name) and e.value in conv.cell_classes
                                  else None) for e in elems]
        if quals and all(q is not None for q in quals):
            narrowed = test.args[0].value.value
            old = ctx["narrow"].get(narrowed)
            ctx["narrow"][narrowed] = quals
    conv._enter_stmt()
    try:
        new_test = conv.walk(node.test)
        new_body = conv.walk(node.body)
    finally:
        if narrowed is not None:
            if old is None:
                ctx["narrow"].pop(narrowed, None)
            else:
                ctx["narrow"][narrowed] = old
    new_else = conv.walk(node.orelse) if node.orelse is not None else None
    new = node
    if new_test is not node.test or new_body is not node.body or new_else is not node.orelse:
        new = node.with_changes(test=new_test, body=new_body, orelse=new_else)
    return conv._leave_stmt(node, new)


# --------------------------------------------------------------------------------------------
# argument rules named by table entries
# --------------------------------------------------------------------------------------------
def _math(edit) -> None:
    edit.conv.used.add("math")


def _kernel_area(edit, k, dims: int) -> str | None:
    """Source of prod(kernel_size), or None when it cannot be written without knowing k's type."""
    try:
        v = literal(k)
    except (ValueError, SyntaxError, TypeError):
        edit.worse("approximate", f"fan-in assumes an int kernel_size ({code_of(k)})")
        return " * ".join([operand(k)] * dims)
    if isinstance(v, int):
        return str(v ** dims)
    if isinstance(v, (tuple, list)) and all(isinstance(i, int) for i in v):
        n = 1
        for i in v:
            n *= i
        return str(n)
    return None


def torch_default_init(edit, fan_in: str | None) -> None:
    """Write weight_init/bias_init that reproduce torch's default (kaiming_uniform(a=sqrt 5))."""
    conv = edit.conv
    _math(edit)
    conv.init_names.update({"HeUniform"})
    edit.set("weight_init", "HeUniform(negative_slope=math.sqrt(5))")
    bias = edit.value("bias")
    if bias is not None and is_literal(bias) and literal(bias) is False:
        return
    if fan_in is None:
        edit.worse("approximate", "bias_init left at the target default: fan-in unknown")
        return
    conv.init_names.add("Uniform")
    edit.set("bias_init", f"Uniform(scale=1 / math.sqrt({fan_in}))")
    edit.worse("transformed", "explicit torch default initializers")


@rule("MS111", "dense")
def dense(edit) -> None:
    """Replace nn.Linear(in, out, bias) with nn.Dense(in, out, has_bias, torch-default inits)."""
    fan = edit.value("in_features")
    try:
        fan_text = repr(literal(fan))
    except (ValueError, SyntaxError):
        fan_text = code_of(fan)
    torch_default_init(edit, fan_text)


def _conv_padding(edit, dims: int, transpose: bool = False) -> None:
    pad = edit.bound.get("padding")
    if pad is None:
        edit.set("pad_mode", "'valid'")
        edit.drop("padding")
        return
    try:
        v = literal(pad)
    except (ValueError, SyntaxError):
        edit.set("pad_mode", "'pad'")
        edit.set("padding", pad)
        edit.worse("approximate", f"padding={code_of(pad)} assumed to be an int")
        return
    if v == "same" or v == "valid":
        edit.set("pad_mode", repr(v))
        edit.drop("padding")
        return
    if isinstance(v, int):
        if v == 0:
            edit.set("pad_mode", "'valid'")
            edit.drop("padding")
        else:
            edit.set("pad_mode", "'pad'")
            edit.set("padding", repr(v))
        return
    if isinstance(v, (tuple, list)) and len(v) == dims:
        if len(set(v)) == 1:
            edit.set("pad_mode", "'pad'" if v[0] else "'valid'")
            if v[0]:
                edit.set("padding", repr(v[0]))
            else:
                edit.drop("padding")
            return
        if dims == 2:
            edit.set("pad_mode", "'pad'")
            edit.set("padding", repr((v[0], v[0], v[1], v[1])))
            edit.worse("transformed", "padding (h, w) -> (top, bottom, left, right)")
            return
    edit.unsupported(f"padding={code_of(pad)} cannot be expressed")


def _order_conv(edit) -> None:
    # MindSpore's order: ..., stride, pad_mode, padding, dilation, group, has_bias, inits
    order = ["in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding",
             "output_padding", "dilation", "group", "has_bias", "weight_init", "bias_init"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


def _conv(edit, dims: int, transpose: bool = False) -> None:
    _conv_padding(edit, dims, transpose)
    cin = edit.value("out_channels" if transpose else "in_channels")
    groups = edit.value("groups")
    area = _kernel_area(edit, edit.value("kernel_size"), dims)
    fan = None
    if area is not None:
        c = operand(cin)
        try:
            g = literal(groups)
        except (ValueError, SyntaxError):
            g = None
        try:
            cval = literal(cin)
        except (ValueError, SyntaxError):
            cval = None
        if g == 1 and isinstance(cval, int) and area.isdigit():
            fan = str(cval * int(area))
        elif g == 1:
            fan = f"{c} * {area}"
        else:
            fan = f"{c} // {operand(groups)} * {area}"
    torch_default_init(edit, fan)
    _order_conv(edit)


@rule("MS110", "conv2d")
def conv2d(edit) -> None:
    """Replace nn.Conv2d(padding=p, groups, bias) with nn.Conv2d(pad_mode, padding, group, has_bias, torch inits)."""
    _conv(edit, 2)


@rule("MS110", "conv1d")
def conv1d(edit) -> None:
    """Replace nn.Conv1d(padding=p, groups, bias) with nn.Conv1d(pad_mode, padding, group, has_bias, torch inits)."""
    _conv(edit, 1)


@rule("MS110", "conv_transpose2d")
def conv_transpose2d(edit) -> None:
    """Replace nn.ConvTranspose2d(padding=p, ...) with nn.Conv2dTranspose(pad_mode='pad', padding=p, ...)."""
    _conv(edit, 2, transpose=True)


@rule("MS110", "conv_fn")
def conv_fn(edit) -> None:
    """Replace F.conv2d(x, w, b, stride, padding=p) with ops.conv2d(x, w, b, stride, pad_mode, padding)."""
    _conv_padding(edit, 2)
    order = ["input", "weight", "bias", "stride", "pad_mode", "padding", "dilation", "groups"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@rule("MS134", "positional_reduction")
def positional_reduction(edit) -> None:
    """Replace torch.sum(x, dim=d, keepdim=k) with ops.sum(x, d, k) (positional: the keyword names
    differ between MindSpore versions and ms_core, the order does not)."""
    names = [p.name for p in edit.entry.params or () if p.name not in ("dtype",)]
    given = [n for n in names if n in edit.bound]
    last = names.index(given[-1]) if given else -1
    out = []
    for n in names[: last + 1]:
        value = edit.bound.get(n)
        if value is None:
            value = parse_expr(edit.entry.param(n).default)
        out.append([n, value, True, edit.source_args.get(n)])
    out.extend(item for item in edit.out if item[0] not in names)
    edit.out = out


@rule("MS135", "one_hot")
def one_hot(edit) -> None:
    """Replace F.one_hot(t, n) with ops.one_hot(t, n).astype(ms.int64) (MindSpore's is float)."""
    conv = edit.conv
    n = edit.bound.get("num_classes")
    if n is None or (is_literal(n) and literal(n) == -1):
        edit.unsupported("num_classes=-1 (inferred from the data) has no MindSpore equivalent")
        return
    call = cst.Call(conv.target("ops.one_hot"), [cst.Arg(edit.bound["tensor"]), cst.Arg(n)])
    edit.result = cst.Call(cst.Attribute(call, cst.Name("astype")), [cst.Arg(conv.target("ms.int64"))])


@rule("MS112", "batchnorm")
def batchnorm(edit) -> None:
    """Replace BatchNorm momentum m and track_running_stats with momentum=1-m and use_batch_statistics."""
    m = edit.bound.get("momentum")
    if m is not None and code_of(m) == "None":
        edit.unsupported("momentum=None (cumulative average) has no MindSpore equivalent")
        return
    trs = edit.bound.get("track_running_stats")
    if trs is not None:
        if is_literal(trs) and literal(trs) is False:
            edit.set("use_batch_statistics", "True")
            edit.worse("approximate", "track_running_stats=False -> use_batch_statistics=True "
                                      "(moving statistics are still updated but never used)")
        elif not (is_literal(trs) and literal(trs) is True):
            edit.unsupported(f"track_running_stats={code_of(trs)} must be a literal")


@rule("MS113", "pool")
def pool(edit) -> None:
    """Replace MaxPool2d/AvgPool2d(stride=None, padding=p) with stride=kernel_size, pad_mode='pad', padding=p."""
    if edit.get("stride") is None or code_of(edit.get("stride")) == "None":
        edit.set("stride", edit.value("kernel_size"))
        edit.note("stride defaults to kernel_size in torch, to 1 in MindSpore: made explicit")
    pad = edit.bound.get("padding")
    try:
        v = literal(pad) if pad is not None else 0
    except (ValueError, SyntaxError):
        v = None
    needs_pad = any(edit.bound.get(k) is not None and code_of(edit.bound[k]) not in ("False", "1", "None")
                    for k in ("ceil_mode", "dilation", "return_indices", "divisor_override"))
    if (v == 0 or v == (0, 0)) and not needs_pad:
        edit.drop("padding")
        edit.set("pad_mode", "'valid'")
    elif v == 0 or v == (0, 0):
        edit.drop("padding")
        edit.set("pad_mode", "'pad'")
        edit.note("pad_mode='pad' (with zero padding) because ceil_mode/dilation need it")
    else:
        edit.set("pad_mode", "'pad'")
        edit.set("padding", pad)
        edit.worse("transformed", "explicit padding -> pad_mode='pad' (max pooling pads with -inf)")
    order = ["kernel_size", "stride", "pad_mode", "padding", "dilation", "return_indices",
             "ceil_mode", "count_include_pad", "divisor_override"]
    edit.out.sort(key=lambda i: order.index(i[0]) if i[0] in order else len(order))


@rule("MS113", "functional_pool_stride")
def functional_pool_stride(edit) -> None:
    """Replace F.avg_pool2d(x, k) with ops.avg_pool2d(x, k, stride=k) (MindSpore's stride defaults to 1)."""
    if edit.get("stride") is None or code_of(edit.get("stride")) == "None":
        edit.set("stride", edit.value("kernel_size"))
        edit.worse("transformed", "stride defaults to kernel_size in torch, to 1 in "
                                  "ops.avg_pool2d: made explicit")


@rule("MS114", "layernorm")
def layernorm(edit) -> None:
    """Replace nn.LayerNorm(n, eps) with nn.LayerNorm((n,), begin_norm_axis, begin_params_axis, epsilon)."""
    shape = edit.value("normalized_shape")
    try:
        v = literal(shape)
    except (ValueError, SyntaxError):
        v = None
    if isinstance(v, int):
        edit.set("normalized_shape", f"({v},)", keyword=False)
        n = 1
    elif isinstance(v, (tuple, list)):
        n = len(v)
    else:
        edit.set("normalized_shape", f"({operand(shape)},)", keyword=False)
        edit.worse("approximate", f"normalized_shape={code_of(shape)} assumed to be an int")
        n = 1
    edit.set("begin_norm_axis", str(-n))
    edit.set("begin_params_axis", str(-n))
    affine = edit.bound.get("elementwise_affine")
    if affine is not None and not (is_literal(affine) and literal(affine) is True):
        edit.unsupported("elementwise_affine=False has no MindSpore LayerNorm equivalent")


@rule("MS115", "embedding")
def embedding(edit) -> None:
    """Replace nn.Embedding(n, d) with nn.Embedding(n, d, embedding_table=Normal(sigma=1.0)) (torch's N(0, 1))."""
    edit.conv.init_names.add("Normal")
    edit.set("embedding_table", "Normal(sigma=1.0)")


@rule("MS117", "size")
def size(edit) -> None:
    """Replace x.size() / x.size(i) with x.shape / x.shape[i]."""
    recv = edit.method_receiver
    shape = cst.Attribute(value=recv, attr=cst.Name("shape"))
    dim = edit.bound.get("dim")
    edit.result = shape if dim is None else cst.Subscript(shape, [cst.SubscriptElement(cst.Index(dim))])


@rule("MS118", "identity_method")
def identity_method(edit) -> None:
    """Replace x.contiguous() / x.cuda() / x.cpu() with x (no memory layout or device in MindSpore)."""
    edit.result = edit.method_receiver


@rule("MS118", "to")
def to(edit) -> None:
    """Replace x.to(device) with x, and x.to(torch.float32) with x.astype(ms.float32)."""
    conv = edit.conv
    args = list(edit.call.args)
    dtype = None
    for a in args:
        if a.keyword is not None and a.keyword.value == "dtype":
            dtype = a.value
        elif a.keyword is None and _is_dtype(conv, a.value, edit):
            dtype = a.value
    if dtype is not None:
        edit.result = cst.Call(cst.Attribute(edit.method_receiver, cst.Name("astype")), [cst.Arg(dtype)])
        edit.worse("exact", "")
    else:
        edit.result = edit.method_receiver
        edit.note("device moves removed: MindSpore places tensors by context")
    if is_module(conv, edit.receiver_before) and dtype is not None:
        edit.unsupported("module.to(dtype): cast the parameters with ms.amp or Cell.to_float")


def _is_dtype(conv, node, edit) -> bool:
    code = code_of(node)
    head, _, rest = code.partition(".")
    return head == conv.names["ms"] and rest in _DTYPES


_DTYPES = {"float32", "float16", "float64", "int64", "int32", "int8", "uint8", "bool_", "bfloat16",
           "int16", "complex64"}


@rule("MS119", "astype")
def astype(edit) -> None:
    """Replace x.float() / x.long() / ... with x.astype(ms.float32) / x.astype(ms.int64)."""
    conv = edit.conv
    conv.used.add("ms")
    dtype = {".float": "float32", ".double": "float64", ".half": "float16", ".long": "int64",
             ".int": "int32", ".bool": "bool_", ".byte": "uint8"}[edit.entry.target]
    edit.result = cst.Call(cst.Attribute(edit.method_receiver, cst.Name("astype")),
                           [cst.Arg(conv.target(f"ms.{dtype}"))])


@rule("MS120", "init_call")
def init_call(edit) -> None:
    """Replace nn.init.kaiming_normal_(t, ...) with t.set_data(initializer(HeNormal(...), t.shape, t.dtype))."""
    conv = edit.conv
    t = edit.bound.get("tensor")
    conv.init_names.add("initializer")
    name = edit.entry.target.partition(".")[2]
    ctor = cst.Call(edit.func, [cst.Arg(v, keyword=None if p else cst.Name(k),
                                        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")) if not p else cst.MaybeSentinel.DEFAULT)
                                for k, v, p, _ in edit.out if k != "tensor"])
    t_code = operand(t)
    edit.result = parse_expr(f"{t_code}.set_data(initializer({code_of(ctor)}, {t_code}.shape, {t_code}.dtype))")


@rule("MS121", "init_uniform")
def init_uniform(edit) -> None:
    """Replace nn.init.uniform_(t, -s, s) with t.set_data(initializer(Uniform(scale=s), t.shape, t.dtype))."""
    a, b = edit.value("a"), edit.value("b")
    try:
        va, vb = literal(a), literal(b)
        symmetric = va == -vb
    except (ValueError, SyntaxError, TypeError):
        symmetric = code_of(a).lstrip("-").strip() == code_of(b).strip() and code_of(a).startswith("-")
    if not symmetric:
        edit.unsupported(f"uniform_({code_of(a)}, {code_of(b)}): MindSpore's Uniform is symmetric")
        return
    edit.out = [[k, v, p, l] for k, v, p, l in edit.out if k not in ("a", "b")]
    edit.out.append(["scale", b, False, None])
    init_call(edit)


@rule("MS122", "tensor_init_method")
def tensor_init_method(edit) -> None:
    """Replace t.data.normal_(m, s) / t.data.zero_() / t.data.fill_(v) with t.set_data(initializer(...))."""
    recv = edit.method_receiver
    if isinstance(recv, cst.Attribute) and recv.attr.value == "data":
        recv = recv.value  # `.data` only hides the write from autograd; set_data needs no such trick
    edit.bound["tensor"] = recv
    if edit.entry.torch == "Tensor.uniform_":
        init_uniform(edit)
    else:
        init_call(edit)


@rule("MS123", "device")
def device(edit) -> None:
    """Replace torch.device(...) with None (MindSpore places tensors by context)."""
    edit.result = parse_expr("None")


@rule("MS123", "false")
def false(edit) -> None:
    """Replace torch.cuda.is_available() with False (no CUDA on the target; set_context decides)."""
    edit.result = parse_expr("False")


@rule("MS124", "save")
def save(edit) -> None:
    """Replace torch.save(net.state_dict(), f) with ms.save_checkpoint(net, f)."""
    obj = edit.bound.get("obj")
    f = edit.bound.get("f")
    conv = edit.conv
    conv.used.add("ms")
    # the state_dict() call was already rewritten to parameters_dict(): save the cell itself
    if isinstance(obj, cst.Call) and isinstance(obj.func, cst.Attribute) and \
            obj.func.attr.value == "parameters_dict" and not obj.args:
        obj = obj.func.value
    else:
        edit.worse("approximate", "ms.save_checkpoint saves a Cell or a list of parameters")
    edit.result = cst.Call(conv.target("ms.save_checkpoint"), [cst.Arg(obj), cst.Arg(f)])


@rule("MS125", "load_state_dict")
def load_state_dict(edit) -> None:
    """Replace net.load_state_dict(sd) with ms.load_param_into_net(net, sd)."""
    conv = edit.conv
    conv.used.add("ms")
    sd = edit.bound.get("state_dict")
    if edit.bound.get("strict") is not None:
        edit.worse("approximate", f"strict={code_of(edit.bound['strict'])} dropped: load_param_into_net "
                                  "never raises on missing keys; it returns (param_not_load, ckpt_not_load)")
    edit.result = cst.Call(conv.target("ms.load_param_into_net"), [cst.Arg(edit.method_receiver), cst.Arg(sd)])


@rule("MS126", "register_buffer")
def register_buffer(edit) -> None:
    """Replace self.register_buffer('n', t) with self.n = ms.Parameter(t, name='n', requires_grad=False)."""
    name = edit.bound.get("name")
    t = edit.bound.get("tensor")
    if not isinstance(name, cst.SimpleString) or t is None:
        edit.unsupported("register_buffer needs a literal name and a tensor")
        return
    conv = edit.conv
    conv.used.add("ms")
    n = literal(name)
    edit.result = parse_expr(
        f"setattr({code_of(edit.method_receiver)}, {name.value}, "
        f"{conv.tname('ms.Parameter')}({code_of(t)}, name={name.value}, requires_grad=False))")
    if not n.isidentifier():
        edit.unsupported("buffer name is not an identifier")


@rule("MS127", "train")
def train(edit) -> None:
    """Replace net.train(mode) / net.eval() with net.set_train(mode) / net.set_train(False)."""
    recv = edit.method_receiver
    if edit.entry.torch == "Module.eval":
        mode = parse_expr("False")
    else:
        mode = edit.bound.get("mode") or parse_expr("True")
    edit.result = cst.Call(cst.Attribute(recv, cst.Name("set_train")), [cst.Arg(mode)])


@rule("MS128", "modules_gen")
def modules_gen(edit) -> None:
    """Replace net.modules() with (c for _, c in net.cells_and_names())."""
    recv = code_of(edit.method_receiver)
    edit.result = parse_expr(f"(c for _, c in {recv}.cells_and_names())")


@rule("MS129", "named_children")
def named_children(edit) -> None:
    """Replace net.named_children() with net.name_cells().items()."""
    recv = edit.method_receiver
    edit.result = parse_expr(f"{operand(recv)}.name_cells().items()")


@rule("MS130", "max_min")
def max_min(edit) -> None:
    """Replace torch.max(x) / torch.max(x, dim) / torch.max(a, b) with ops.amax / ops.max / ops.maximum."""
    conv = edit.conv
    op = edit.entry.torch.rsplit(".", 1)[-1]
    other = edit.bound.get("dim")
    x = edit.bound.get("input") if edit.method_receiver is None else edit.method_receiver
    conv.used.add("ops")
    if other is not None and not isinstance(other, (cst.Integer, cst.UnaryOperation)) and \
            "dim" not in {a.keyword.value for a in edit.call.args if a.keyword is not None}:
        if is_tensor(conv, other) or not is_literal(other):
            fn = "maximum" if op == "max" else "minimum"
            edit.result = parse_expr(f"{conv.tname('ops.' + fn)}({code_of(x)}, {code_of(other)})")
            edit.worse("approximate", "second argument assumed to be a tensor (elementwise)")
            return
    if other is None:
        edit.result = parse_expr(f"{conv.tname('ops.amax' if op == 'max' else 'ops.amin')}({code_of(x)})")
        return
    keep = edit.bound.get("keepdim")
    kd = f", keepdims={code_of(keep)}" if keep is not None else ""
    edit.result = parse_expr(f"{conv.tname('ops.' + op)}({code_of(x)}, {code_of(other)}{kd})")
    edit.note("returns (values, indices) as torch does")


@rule("MS131", "autograd_function")
def autograd_function(conv, node: cst.ClassDef):
    """Replace a torch.autograd.Function subclass with a Cell whose construct/bprop are its forward/backward."""
    # the class body is rewritten before it is walked: statement positions inside it no longer
    # follow the source, so walk it without skipping and resume counting after the class
    start, pattern = conv.stmt_index, conv.pattern
    conv.pattern, conv.freeze_line = None, True
    try:
        return _autograd_function(conv, node)
    finally:
        conv.pattern, conv.freeze_line = pattern, False
        conv.stmt_index = start + count_statements(node.body)


def count_statements(block) -> int:
    """Statements in ``block`` as the walker (and ast) count them."""
    if isinstance(block, cst.SimpleStatementSuite):
        return len(block.body)
    n = 0
    for st in getattr(block, "body", ()):
        if isinstance(st, cst.SimpleStatementLine):
            n += len(st.body)
            continue
        n += 1
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(st, field, None)
            if isinstance(sub, cst.If):  # elif
                n += count_statements(cst.IndentedBlock(body=[sub]))
            elif sub is not None:
                n += count_statements(sub.body if isinstance(sub, (cst.Else, cst.Finally)) else sub)
        for h in getattr(st, "handlers", ()):
            n += count_statements(h.body)
    return n


def _autograd_function(conv, node: cst.ClassDef):
    conv.reshaped = True
    body = node.body.body
    fwd = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"), None)
    bwd = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "backward"), None)
    base = node.bases[0].value
    if fwd is None or bwd is None or not _simple_ctx(fwd) or not _simple_ctx(bwd):
        conv.uses_alias(base)
        conv.mark(base, "MS901", "torch.autograd.Function needs static forward(ctx, ...) and backward(ctx, ...)")
        return node
    inputs = [p.name.value for p in fwd.params.params][1:]
    saved = _saved_names(fwd, inputs)
    if saved is None:
        conv.uses_alias(base)
        conv.mark(base, "MS901", "torch.autograd.Function: save_for_backward must save forward inputs "
                                 "or the returned value")
        return node
    conv.cell_classes.add(node.name.value)
    conv.function_classes.add(node.name.value)
    conv.class_stack[-1]["cell"] = True
    conv.used.add("nn")
    new_fwd = _strip_ctx(conv, fwd, "construct", ["self", *inputs], inputs, saved, False)
    grads = [p.name.value for p in bwd.params.params][1:]
    new_bwd = _strip_ctx(conv, bwd, "bprop", ["self", *inputs, "out", *grads], inputs, saved, True)
    if new_fwd is None or new_bwd is None:
        conv.uses_alias(base)
        conv.mark(base, "MS901", "torch.autograd.Function uses ctx for more than save_for_backward/saved_tensors")
        return node
    new_body = [new_fwd if s is fwd else new_bwd if s is bwd else conv.walk(s) for s in body]
    conv.record(base, "nn.Cell", "MS131", "transformed",
                "autograd.Function -> Cell with bprop(self, *inputs, out, dout); .apply(x) -> Cls()(x)")
    return node.with_changes(bases=[cst.Arg(conv.target("nn.Cell"))],
                             body=node.body.with_changes(body=new_body))


def _simple_ctx(fn: cst.FunctionDef) -> bool:
    decs = {dotted(d.decorator) for d in fn.decorators}
    return decs <= {"staticmethod"} and len(fn.params.params) >= 2 and fn.params.params[0].name.value == "ctx"


def _saved_names(fwd: cst.FunctionDef, inputs: list[str]) -> list[str] | None:
    """What ``ctx.saved_tensors`` holds, as names valid in bprop (inputs, or ``out``)."""
    returned = {code_of(s.value) for s in _walk_returns(fwd.body)}
    saved: list[str] = []
    for stmt in fwd.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                    and dotted(small.value.func) == "ctx.save_for_backward":
                for a in small.value.args:
                    n = code_of(a.value)
                    if n in inputs:
                        saved.append(n)
                    elif returned == {n}:
                        saved.append("out")
                    else:
                        return None
    return saved


def _walk_returns(block):
    for stmt in block.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Return) and small.value is not None:
                    yield small


class _CtxRewriter(cst.CSTTransformer):
    """In forward/backward: drop ctx.save_for_backward(...); ctx.saved_tensors -> the saved names;
    in bprop, a single returned gradient becomes a 1-tuple (MindSpore's bprop returns a tuple)."""

    def __init__(self, saved, is_bprop, n_inputs):
        self.saved = saved
        self.is_bprop = is_bprop
        self.n_inputs = n_inputs

    def leave_SimpleStatementLine(self, original, updated):
        body = [s for s in updated.body if not (
            isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)
            and dotted(s.value.func) == "ctx.save_for_backward") and not _self_assign(s)]
        if not body:
            return cst.RemoveFromParent()
        return updated.with_changes(body=body)

    def leave_Subscript(self, original, updated):
        if dotted(original.value) == "ctx.saved_tensors" and len(updated.slice) == 1:
            idx = updated.slice[0].slice
            if isinstance(idx, cst.Index) and isinstance(idx.value, cst.Integer):
                i = int(idx.value.value)
                if i < len(self.saved):
                    return cst.Name(self.saved[i])
        return updated

    def leave_Attribute(self, original, updated):
        if dotted(updated) == "ctx.saved_tensors":
            return parse_expr("(" + ", ".join(self.saved) + ("," if len(self.saved) == 1 else "") + ")")
        return updated

    def leave_Return(self, original, updated):
        if self.is_bprop and self.n_inputs == 1 and updated.value is not None \
                and not isinstance(updated.value, cst.Tuple):
            return updated.with_changes(value=cst.Tuple([cst.Element(updated.value, comma=cst.Comma())]))
        return updated


def _self_assign(s) -> bool:
    return (isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.value, cst.Name)
            and isinstance(s.targets[0].target, cst.Name) and s.targets[0].target.value == s.value.value)


def _strip_ctx(conv, fn, name, params, inputs, saved, is_bprop):
    body = fn.body.visit(_CtxRewriter(saved, is_bprop, len(inputs)))
    params_node = cst.Parameters([cst.Param(cst.Name(p)) for p in params])
    new = fn.with_changes(name=cst.Name(name), params=params_node, decorators=[], body=body)
    import re
    if re.search(r"\bctx\b", code_of(body)):
        return None
    ctx = {"tensors": set(params[1:]), "modules": set(), "narrow": {}}
    conv.func_stack.append(ctx)
    try:
        return new.with_changes(body=conv.walk(new.body))
    finally:
        conv.func_stack.pop()


def _is_sequential(conv, node) -> bool:
    """``node`` is an nn.Sequential: self in a Sequential subclass, or an attribute assigned one."""
    kinds = type_of(conv, node)
    if not kinds:
        return False
    return all(k == "torch.nn.Sequential" or k in conv.sequential_classes for k in kinds)


@rule("MS133", "sequential_add_module")
def sequential_add_module(conv, node, walked, recv0):
    """Replace seq.add_module(n, m) with seq.insert_child_to_cell(n, m) plus a rebuilt seq.cell_list."""
    new = walked.with_changes(func=walked.func.with_changes(attr=cst.Name("insert_child_to_cell")))
    recv = code_of(walked.func.value)
    conv.after[-1].append(f"{recv}.cell_list = list({recv}.name_cells().values())")
    conv.record(node, new, "MS133", "transformed",
                "a SequentialCell runs cell_list, which insert_child_to_cell does not update: "
                "rebuilt after the insertion so the named child runs, as with torch's add_module")
    return new


@rule("MS132", "function_apply")
def function_apply(conv, node, walked):
    """Replace MyFunction.apply(x) with MyFunction()(x) (the Function became a Cell with bprop)."""
    new = walked.with_changes(func=cst.Call(walked.func.value))
    conv.record(node, new, "MS132", "exact", "a Cell with bprop is called, not applied")
    return new


@rule("MS119", "type_as")
def type_as(edit) -> None:
    """Replace x.type_as(y) with x.astype(y.dtype)."""
    other = edit.bound["other"]
    edit.result = cst.Call(cst.Attribute(edit.method_receiver, cst.Name("astype")),
                           [cst.Arg(cst.Attribute(other, cst.Name("dtype")))])


@rule("MS119", "new_full")
def new_full(edit) -> None:
    """Replace x.new_zeros(shape) / x.new_ones(shape) with ops.zeros(shape, x.dtype) / ops.ones(...)."""
    conv = edit.conv
    fn = "ops.zeros" if edit.entry.torch.endswith("zeros") else "ops.ones"
    dtype = edit.bound.get("dtype") or cst.Attribute(edit.method_receiver, cst.Name("dtype"))
    edit.result = cst.Call(conv.target(fn), [cst.Arg(edit.bound.get("size") or parse_expr("()")), cst.Arg(dtype)])


@rule("MS160", "view_as")
def view_as(edit) -> None:
    """Replace x.view_as(y) with ops.reshape(x, y.shape)."""
    other = edit.bound["other"]
    edit.result = cst.Call(edit.conv.target("ops.reshape"),
                           [cst.Arg(edit.method_receiver), cst.Arg(cst.Attribute(other, cst.Name("shape")))])


@rule("MS136", "tensor_ctor")
def tensor_ctor(edit) -> None:
    """Replace torch.Tensor(data) / torch.Tensor(2, 3) with ms.Tensor(data, ms.float32) / ops.zeros((2, 3), ms.float32)."""
    conv = edit.conv
    dtype = conv.target("ms.int64" if edit.entry.torch.endswith("LongTensor") else "ms.float32")
    args = list(edit.call.args)
    if any(a.keyword is not None or a.star for a in args):
        edit.unsupported("keyword or star arguments to the legacy tensor constructor")
        return
    values = [a.value for a in args]
    if len(values) == 1 and not isinstance(values[0], (cst.Integer, cst.UnaryOperation)):
        edit.result = cst.Call(conv.target("ms.Tensor"), [cst.Arg(values[0]), cst.Arg(dtype)])
        return
    # sizes: torch leaves the memory uninitialised; zeros is one valid such content
    if not values:
        values = [cst.Integer("0")]  # torch.Tensor() is an empty 1-d tensor
    shape = cst.Tuple([cst.Element(v) for v in values]) if len(values) != 1 else \
        cst.Tuple([cst.Element(values[0], comma=cst.Comma())])
    edit.result = cst.Call(conv.target("ops.zeros"), [cst.Arg(shape), cst.Arg(dtype)])
    edit.worse("approximate", "uninitialised memory in torch; zeros here")


@rule("MS117", "ndim")
def ndim(edit) -> None:
    """Replace x.dim() with x.ndim."""
    edit.result = cst.Attribute(edit.method_receiver, cst.Name("ndim"))


@rule("MS117", "numel")
def numel(edit) -> None:
    """Replace x.numel() with x.size (MindSpore's Tensor.size is the element count)."""
    edit.result = cst.Attribute(edit.method_receiver, cst.Name("size"))
