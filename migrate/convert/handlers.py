"""Node handlers of the walk: what the converter does at a reference, a call, a method call, an
attribute, an assignment, a class, a function, a ``with``, a ``for`` and an ``if``.

Calls of torch APIs are rewritten from their mapping-table entry (:func:`apply_entry`: generic
argument fates, then the entry's argument rule); the node rules described here handle what no
table can (``forward`` -> ``construct``, ``no_grad`` blocks, parameter renames...).
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.call_edit import BindError, CallEdit
from migrate.convert.cst import code_of, dotted
from migrate.convert.receivers import (
    is_module, is_param, is_sequential, is_tensor, param_renames, torch_keywords,
    torch_only_method, track_assign, type_of,
)
from migrate.convert.registry import node_rule
from migrate.convert.rules import argument_rule_named
from migrate.convert.rules.autograd_function import (
    AUTOGRAD_FUNCTION, FUNCTION_APPLY, function_apply, rewrite_function_class,
)
from migrate.convert.scopes import ClassScope, FunctionScope

ASSUMED_CELL = node_rule(
    "MS101", "assumed_cell",
    "Replace a class whose base comes from another file and that defines forward with a Cell "
    "subclass (forward -> construct); the base is assumed to be an nn.Module.")
FORWARD = node_rule(
    "MS102", "forward_to_construct",
    "Replace a Cell's def forward / super().forward(x) with def construct / super().construct(x).")
MODULES_LOOP = node_rule(
    "MS104", "modules_loop", "Replace `for m in net.modules()` with `for _, m in net.cells_and_names()`.")
NO_GRAD = node_rule(
    "MS106", "no_grad",
    "Replace `with torch.no_grad(): body` / @torch.no_grad() with body (nothing is recorded outside grad).")
TENSOR_ATTRIBUTE = node_rule(
    "MS107", "tensor_attribute",
    "Replace t.data with t and t.device with None (no tape and no devices on MindSpore tensors).")
PARAMETER_NAMES = node_rule(
    "MS108", "parameter_names",
    "Replace bn.weight / bn.running_mean / emb.weight with bn.gamma / bn.moving_mean / emb.embedding_table.")
SEQUENTIAL_ADD_MODULE = node_rule(
    "MS133", "sequential_add_module",
    "Replace seq.add_module(n, m) with seq.insert_child_to_cell(n, m) plus a rebuilt seq.cell_list.")
NAMED_TUPLE_FIELD = node_rule(
    "MS137", "named_tuple_field", "Replace torch.max(x, d).values / .indices with ops.max(x, d)[0] / [1].")

NO_GRAD_CALLS = {"torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled",
                 "torch.autograd.no_grad"}
_FUNCTION_BASES = ("torch.autograd.Function", "torch.autograd.function.Function")
# torch functions and methods whose result is a (values, indices) named tuple; MindSpore's
# counterparts return a plain tuple
_VALUES_INDICES = {"max", "min", "sort", "topk", "kthvalue", "median", "mode", "cummax", "cummin"}


# --------------------------------------------------------------------------------------------
# references and calls
# --------------------------------------------------------------------------------------------
def on_reference(conv, node, q: str):
    """A torch name used as a value (base class, isinstance, dtype, ...), not called."""
    entry = conv.tables.get(q)
    if entry is not None and entry.target and entry.label != "unsupported" \
            and not entry.target.startswith("."):
        if not conv.allows(entry.id):
            conv.uses_alias(node)
            return node
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
    """A call: a torch API (from its table entry), a method, isinstance, or anything else."""
    func = node.func
    q = conv.qual(func)
    if q is None:
        if isinstance(func, cst.Attribute):
            return on_method(conv, node)
        if isinstance(func, cst.Name) and func.value in ("isinstance", "issubclass"):
            with conv.naming_classes():
                return conv.generic(node)
        return conv.generic(node)
    start = conv.checkpoint()
    args = conv.walk_seq(node.args)
    walked = node if args is node.args else node.with_changes(args=args)
    entry = conv.tables.get(q)
    if entry is None:
        return keep_original(conv, node, start, "MS901", f"{q} has no mapping")
    if entry.label != "unsupported" and not conv.allows(rule_id_of(entry)):
        # not selected: the call stays as written, whole (no half-converted torch calls)
        conv.rollback_to(start)
        conv.keep_aliases_in(node)
        return node
    before_call = conv.checkpoint()
    new = apply_entry(conv, walked, entry, q, original=node)
    if new is walked and walked is not node:
        # marked, so the call stays as written: so do its arguments (no half-converted torch
        # calls); marked again on the original call so that the marker quotes the code as written
        conv.rollback_to(before_call, keep_markers=False)
        conv.rollback_to(start)
        conv.keep_aliases_in(node)
        return apply_entry(conv, node, entry, q)
    return new


def keep_original(conv, node, start, rule_id: str, reason: str):
    """Leave ``node`` exactly as written, drop the rewrites recorded inside it since ``start``
    (a :meth:`~migrate.convert.walker.Converter.checkpoint`), and mark it."""
    conv.rollback_to(start)
    conv.keep_aliases_in(node)
    conv.mark(node, rule_id, reason)
    return node


def rule_id_of(entry) -> str:
    """A change made by a named rule carries the rule's ID; a plain table rewrite the entry's."""
    rule = argument_rule_named(entry.rule)
    return rule.id if rule is not None else entry.id


def apply_entry(conv, call: cst.Call, entry, q: str, receiver=None, receiver_before=None, original=None):
    """Rewrite one call with its table entry (generic argument fates, then the entry's rule).

    ``call`` has its arguments (and receiver) converted already; ``original`` is the call as
    written, which the report shows as "before"."""
    shown = original if original is not None else call
    if entry.label == "unsupported":
        conv.uses_alias(call.func)
        conv.mark(call, entry.id, entry.note or f"{q} has no MindSpore equivalent")
        return call
    rule = argument_rule_named(entry.rule)
    if entry.rule and rule is None:
        conv.uses_alias(call.func)
        conv.mark(call, "MS901", f"{q}: rule {entry.rule!r} is not available")
        return call
    if not conv.allows(rule.id if rule is not None else entry.id):
        conv.uses_alias(call.func)
        return call
    edit = _edit_for(conv, call, entry, receiver, receiver_before)
    if entry.params is None:
        if rule is not None:
            rule.apply(edit)
        if edit.problems:
            return _keep(conv, call, entry, edit)
        new = edit.result if edit.result is not None else call.with_changes(
            func=edit.func, args=([cst.Arg(receiver)] if edit.receiver is not None else []) + list(call.args))
        conv.record(shown, new, rule_id_of(entry), edit.label, "; ".join(edit.notes))
        return new
    try:
        edit.bind()
    except BindError as exc:
        conv.uses_alias(call.func)
        conv.mark(call, "MS903", f"{q}: {exc}")
        return call
    edit.apply_fates()
    if rule is not None and not edit.problems:
        rule.apply(edit)
    if edit.problems:
        return _keep(conv, call, entry, edit)
    new = edit.build()
    conv.record(shown, new, rule_id_of(entry), edit.label, "; ".join(edit.notes))
    return new


def _edit_for(conv, call, entry, receiver, receiver_before) -> CallEdit:
    """The CallEdit of one call, with its target function (a method keeps its receiver)."""
    edit = CallEdit(conv, call, entry)
    if entry.mindspore_note and conv.target_name == "mindspore":
        edit.note(entry.mindspore_note)
    edit.receiver_before = receiver_before
    target = entry.target
    if receiver is not None and target.startswith("."):
        edit.func = cst.Attribute(value=receiver, attr=cst.Name(target[1:]))
    elif target:
        edit.func = conv.target(target)
        if receiver is not None:
            edit.receiver = receiver
    edit.method_receiver = receiver
    return edit


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
    args = conv.walk_seq(node.args)
    walked = node
    if recv is not recv0 or args is not node.args:
        walked = node.with_changes(func=func.with_changes(value=recv), args=args)
    if name == "apply" and isinstance(recv0, cst.Name) and recv0.value in conv.function_classes \
            and conv.allows(FUNCTION_APPLY.id):
        return function_apply(conv, node, walked)
    if isinstance(recv0, cst.Name) and recv0.value in conv.imported:
        return walked  # `ops.unsqueeze(...)`, `np.split(...)`: a module's function, not a method
    if name == "forward" and conv.in_cell and isinstance(recv0, cst.Call) and \
            isinstance(recv0.func, cst.Name) and recv0.func.value == "super" and conv.allows(FORWARD.id):
        new = walked.with_changes(func=walked.func.with_changes(attr=cst.Name("construct")))
        conv.record(node, new, FORWARD.id, "exact", "a Cell's forward is construct")
        return new
    if name == "add_module" and conv.can_add_after and is_sequential(conv, recv0) \
            and conv.allows(SEQUENTIAL_ADD_MODULE.id):
        return sequential_add_module(conv, node, walked)
    entry = conv.tables.get("Module." + name)
    if entry is not None and (entry.receiver == "any" or is_module(conv, recv0)):
        return apply_entry(conv, walked, entry, "Module." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    entry = conv.tables.get("Tensor." + name)
    if entry is not None and (entry.receiver == "any" or is_tensor(conv, recv0)
                              or entry.receiver == "param" and is_param(recv0)
                              or conv.aliases and (torch_keywords(node)
                                                   or torch_only_method(name, node))):
        return apply_entry(conv, walked, entry, "Tensor." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    if name.endswith("_") and not name.startswith("_") and is_tensor(conv, recv0):
        conv.mark(node, "MS905", f"in-place tensor method {name}(): MindSpore tensors are "
                                 "rewritten functionally; assign the result instead")
        return walked
    return walked


def sequential_add_module(conv, node: cst.Call, walked: cst.Call):
    """Apply MS133: ``walked`` is ``node`` (``seq.add_module(n, m)``) with its parts converted."""
    new = walked.with_changes(func=walked.func.with_changes(attr=cst.Name("insert_child_to_cell")))
    recv = code_of(walked.func.value)
    conv.add_after(f"{recv}.cell_list = list({recv}.name_cells().values())")
    conv.record(node, new, SEQUENTIAL_ADD_MODULE.id, "transformed",
                "a SequentialCell runs cell_list, which insert_child_to_cell does not update: "
                "rebuilt after the insertion so the named child runs, as with torch's add_module")
    return new


# --------------------------------------------------------------------------------------------
# attributes
# --------------------------------------------------------------------------------------------
def on_plain_attribute(conv, node: cst.Attribute):
    """``x.weight`` where x is a known BatchNorm/LayerNorm/Embedding: MindSpore parameter names;
    ``.values``/``.indices`` of torch's named tuples; a tensor's ``.data``/``.device``."""
    value = conv.walk(node.value)
    attr = node.attr.value
    if attr in ("weight", "bias", "running_mean", "running_var") and conv.allows(PARAMETER_NAMES.id):
        kinds = type_of(conv, node.value)
        names = {(param_renames(k) or {}).get(attr, attr) for k in kinds}
        if kinds and len(names) == 1 and attr not in names:
            new_attr = names.pop()
            new = node.with_changes(value=value, attr=cst.Name(new_attr))
            short = "/".join(sorted(k.rsplit(".", 1)[-1] for k in kinds))
            conv.record(node, new, PARAMETER_NAMES.id, "exact",
                        f"{short} parameters are named {new_attr} in MindSpore")
            return new
    if attr in ("values", "indices") and isinstance(node.value, cst.Call) \
            and conv.allows(NAMED_TUPLE_FIELD.id):
        new = named_tuple_field(conv, node, value)
        if new is not None:
            return new
    if attr in ("device", "data") and conv.aliases and conv.allows(TENSOR_ATTRIBUTE.id) \
            and is_tensor(conv, node.value):
        if attr == "device":
            new = cst.Name("None")
            conv.record(node, new, TENSOR_ATTRIBUTE.id, "exact", "tensors have no device in MindSpore: "
                                                                 "set_context(device_target=...) decides")
            return new
        conv.record(node, value, TENSOR_ATTRIBUTE.id, "exact",
                    "`.data` is not needed: nothing is recorded outside grad")
        return value
    return node if value is node.value else node.with_changes(value=value)


def named_tuple_field(conv, node: cst.Attribute, value):
    """Apply MS137 to ``call(...).values``/``.indices`` (``value``: the call converted), or None."""
    func = node.value.func
    q = conv.qual(func)
    name = q.rsplit(".", 1)[-1] if q else (func.attr.value if isinstance(func, cst.Attribute) else None)
    converted = value is not node.value
    if name not in _VALUES_INDICES or not converted:  # an unconverted torch call keeps .values
        return None
    index = "0" if node.attr.value == "values" else "1"
    new = cst.Subscript(value=value, slice=[cst.SubscriptElement(cst.Index(cst.Integer(index)))])
    conv.record(node, new, NAMED_TUPLE_FIELD.id, "exact",
                f"MindSpore's {name} returns a plain tuple (values, indices)")
    return new


# --------------------------------------------------------------------------------------------
# statements
# --------------------------------------------------------------------------------------------
def on_assign(conv, node: cst.Assign):
    """Note what the assignment binds, then convert it."""
    track_assign(conv, node)
    # ``self.x = nn.Parameter(...)`` keeps its name; register_buffer etc. are method rules
    return conv.generic(node)


def on_class(conv, node: cst.ClassDef):
    """A class: a Cell when it derives from a module; an autograd.Function becomes one (MS131)."""
    cell = any(_is_cell_base(conv, b.value) for b in node.bases)
    fn = any(conv.qual(b.value) in _FUNCTION_BASES for b in node.bases)
    if not cell and not fn and _defines_forward(node) and conv.allows(ASSUMED_CELL.id) and any(
            isinstance(b.value, (cst.Name, cst.Attribute)) and conv.qual(b.value) is None
            and dotted(b.value) not in ("object", None) for b in node.bases):
        # a subclass of a class from another file (`class Head(ConvBN)`) that defines forward:
        # in a torch file that is a module; say so, since the base is not visible here
        cell = True
        conv.record(node.bases[0].value, node.bases[0].value, ASSUMED_CELL.id, "approximate",
                    f"{node.name.value} assumed to be an nn.Module subclass (defines forward; "
                    "its base is defined elsewhere)")
    if cell:
        conv.cell_classes.add(node.name.value)
    if any(conv.qual(b.value) == "torch.nn.Sequential" or
           (isinstance(b.value, cst.Name) and b.value.value in conv.sequential_classes) for b in node.bases):
        conv.sequential_classes.add(node.name.value)
    attrs = conv.class_attrs.setdefault(node.name.value, {})
    with conv.in_class(ClassScope(node.name.value, cell, fn, attrs)):
        if fn and conv.allows(AUTOGRAD_FUNCTION.id):
            return rewrite_function_class(conv, node)
        return conv.generic(node)


def _is_cell_base(conv, base) -> bool:
    q = conv.qual(base)
    if q is None:
        return isinstance(base, cst.Name) and base.value in conv.cell_classes
    return q.startswith("torch.nn.") and q[9:10].isupper() or q == "torch.nn.Module"


def _defines_forward(node: cst.ClassDef) -> bool:
    return isinstance(node.body, cst.IndentedBlock) and any(
        isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in node.body.body)


def on_function(conv, node: cst.FunctionDef):
    """A function: its own scope (a Cell's forward knows its inputs are tensors)."""
    scope = FunctionScope()
    params = [p.name.value for p in node.params.params]
    if conv.in_cell and node.name.value in ("forward", "construct"):
        scope.tensors.update(params[1:])
        scope.forward = True
    for p in list(node.params.params) + list(node.params.kwonly_params):
        ann = p.annotation
        if ann is not None and conv.qual(ann.annotation) == "torch.Tensor":
            scope.tensors.add(p.name.value)
    decorators = [d for d in node.decorators if not _is_no_grad(conv, d)]
    if len(decorators) != len(node.decorators):
        node = node.with_changes(decorators=decorators)
        conv.reshaped = True
    with conv.in_function(scope):
        new = conv.generic(node)
    body = conv.drop_nested_imports(new.body)
    if body is not new.body:
        new = new.with_changes(body=body)
    if conv.in_cell and node.name.value == "forward" and conv.allows(FORWARD.id):
        new = new.with_changes(name=cst.Name("construct"))
        conv.record("def forward", "def construct", FORWARD.id, "exact", "a Cell's forward is construct")
    return new


def _is_no_grad(conv, dec: cst.Decorator) -> bool:
    """A grad-mode decorator (``@torch.no_grad()``): recorded as removed."""
    expr = dec.decorator
    q = conv.qual(expr.func if isinstance(expr, cst.Call) else expr)
    if q in NO_GRAD_CALLS and conv.allows(NO_GRAD.id):
        conv.record(dec.decorator, "", NO_GRAD.id, "exact",
                    "no_grad removed: nothing is recorded outside a grad transform")
        return True
    return False


def on_with(conv, node: cst.With):
    """Apply MS106 to ``with torch.no_grad():`` (the block is unwrapped: a list of statements)."""
    keep = []
    for item in node.items:
        e = item.item
        q = conv.qual(e.func) if isinstance(e, cst.Call) else None
        if q in NO_GRAD_CALLS and item.asname is None and conv.allows(NO_GRAD.id):
            conv.record(e, "", NO_GRAD.id, "exact", "grad-mode block unwrapped: nothing is recorded "
                                                    "outside a grad transform")
            continue
        keep.append(item)
    if keep:
        new = conv.generic(node.with_changes(items=keep))
        if len(keep) != len(node.items):
            new = new.with_changes(items=[*new.items[:-1], new.items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        return new
    body = conv.walk(node.body)
    if isinstance(body, cst.SimpleStatementSuite):
        stmts = [cst.SimpleStatementLine(list(body.body))]
    else:
        stmts = list(body.body)
    if node.leading_lines:
        stmts[0] = stmts[0].with_changes(leading_lines=[*node.leading_lines, *stmts[0].leading_lines])
    conv.reshaped = True
    return stmts


def on_for(conv, node: cst.For):
    """Apply MS104 to ``for m in net.modules():``."""
    it = node.iter
    if (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args
            and it.func.attr.value == "modules" and isinstance(node.target, cst.Name)
            and (is_module(conv, it.func.value) or conv.aliases) and conv.allows(MODULES_LOOP.id)):
        recv = conv.walk(it.func.value)
        new_iter = it.with_changes(func=it.func.with_changes(value=recv, attr=cst.Name("cells_and_names")))
        new_target = cst.Tuple([cst.Element(cst.Name("_")), cst.Element(node.target)], lpar=[], rpar=[])
        conv.record(it, new_iter, MODULES_LOOP.id, "exact", "cells_and_names() yields (name, cell) pairs")
        node = node.with_changes(iter=new_iter, target=new_target)
        return node.with_changes(body=conv.walk(node.body),
                                 orelse=conv.walk(node.orelse) if node.orelse else None)
    return conv.generic(node)


def on_if(conv, node: cst.If):
    """Track ``isinstance(m, nn.BatchNorm2d)`` so ``m.weight`` becomes ``m.gamma`` inside."""
    test = node.test
    scope = conv.scope
    narrowed = old = None
    if (scope is not None and isinstance(test, cst.Call) and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance" and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)):
        kinds = test.args[1].value
        elems = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        quals = [conv.qual(e) or (e.value if isinstance(e, cst.Name) and e.value in conv.cell_classes
                                  else None) for e in elems]
        if quals and all(q is not None for q in quals):
            narrowed = test.args[0].value.value
            old = scope.narrow.get(narrowed)
            scope.narrow[narrowed] = quals
    try:
        new_test = conv.walk(node.test)
        new_body = conv.walk(node.body)
    finally:
        if narrowed is not None:
            if old is None:
                scope.narrow.pop(narrowed, None)
            else:
                scope.narrow[narrowed] = old
    new_else = conv.walk(node.orelse) if node.orelse is not None else None
    if new_test is not node.test or new_body is not node.body or new_else is not node.orelse:
        return node.with_changes(test=new_test, body=new_body, orelse=new_else)
    return node
