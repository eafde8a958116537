"""In-place tensor methods (``x.add_(y)``, ``x.clamp_(0, 1)``, ``p.data.mul_(0.5)``).

MindSpore 2.10 has many of torch's in-place methods, but on its CPU backend they leave the tensor
unchanged (they return the result), several have no CPU kernel, and their gradients ignore the
update. ``copy_`` is the exception: it writes into the tensor, and gradients flow through it. So
an in-place call is written as the out-of-place method computed on a copy and written back:

    x.add_(y, alpha=2)   ->   x.copy_(x.copy().add(y, alpha=2))

(``x.copy()`` first: an op that saved ``x`` for its backward would otherwise see ``x`` change
under it). The value of the expression is ``x``, as torch's. The out-of-place form is the
in-place entry's own target (``.add``, ``ops.relu``), built by the generic table machinery.

What the receiver is decides the form:

- a name or attribute chain (``x``, ``self.w``, ``m.weight.data``): ``x.copy_(x.copy().op(...))``;
- an in-place call itself (``x.add_(y).clamp_(0, 1)``, converted to ``x.copy_(...)``): the chain
  writes into its root once more, ``x.copy_(<inner>.copy().clamp(0, 1))``;
- a new tensor (``torch.zeros(3).fill_(1)``, ``(a + b).clamp_(0, 1)``): nobody else sees it, so
  the out-of-place result is the same thing (``ops.zeros(3).fill(1)``);
- an indexed tensor or a view (``x[:, 0].mul_(2)``, ``x.view(-1).add_(1)``, ``x.float().div_(2)``):
  torch writes through into ``x``; MindSpore does not. Marked (MS905), unless the call is a whole
  statement on ``x[i]``, which becomes ``x[i] = x[i].op(...)`` (see :func:`subscript_statement`).
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import as_argument, attribute, code_of, is_primary
from migrate.convert.receivers import TENSOR_VIEW_ATTRS, is_param, is_tensor, state_dict_item
from migrate.convert.registry import argument_rule, node_rule
from migrate.convert.template import render

INPLACE_SUBSCRIPT = node_rule(
    "MS171", "inplace_subscript",
    "Replace the statement x[i].op_(args) with x[i] = x[i].op(args) (torch writes through the "
    "indexed view; MindSpore tensors are updated by item assignment).", examples=[
    ("def f(x):\n"
     "    x[0].mul_(2)\n",
     "def f(x):\n"
     "    x[0] = x[0].mul(2)\n"),
])

# torch methods whose result may share memory with the receiver (a view, or the receiver itself
# when nothing changes): an in-place update of the result also changes the receiver in torch
ALIASING_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "transpose", "permute",
    "t", "T", "mT", "narrow", "select", "squeeze", "unsqueeze", "expand", "expand_as", "diagonal",
    "movedim", "moveaxis", "swapaxes", "swapdims", "unfold", "as_strided", "detach", "contiguous",
    "float", "double", "half", "int", "long", "bool", "byte", "short", "to", "type", "type_as",
    "cpu", "cuda", "real", "imag", "view_as_real", "view_as_complex", "unbind", "split", "chunk",
    "tensor_split", "data", "requires_grad_",
})




def _aliasing_targets() -> frozenset:
    """What the tables write for the aliasing methods (``x.float()`` -> ``x.astype(...)``,
    ``x.expand(...)`` -> ``ops.broadcast_to(x, ...)``): a converted receiver aliases as the
    torch one did, so converting converted code decides as the first conversion did."""
    from mappings import load_tables
    tables = load_tables()
    names = {"astype", "torch_unfold_windows"}  # rules' own output: casts (float, to, type_as), unfold
    for method in ALIASING_METHODS:
        for entry in (tables.get("Tensor." + method), tables.get("torch." + method)):
            if entry is not None and entry.target and "(" not in entry.target:
                names.add(entry.target.rsplit(".", 1)[-1])
    return frozenset(names - {"", "bool_", "float32", "float64", "float16", "int32", "int64", "int16"})


ALIASING = ALIASING_METHODS | _aliasing_targets()


def _aliasing_call(node) -> bool:
    """``x.view(...)``, ``ops.broadcast_to(x, ...)``, ``torch_unfold_windows(x, ...)``: a call
    whose result may share memory with its receiver or first argument."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in ALIASING


def is_pure(node) -> bool:
    """A name or an attribute chain of names: evaluating it twice is free and has no effect. A
    layer read by its class at run time (``TorchLayerAttrs(m).weight``) is one too."""
    while isinstance(node, cst.Attribute):
        node = node.value
        if _layer_attrs_read(node):
            node = node.args[0].value
    return isinstance(node, cst.Name)


def _layer_attrs_read(node) -> bool:
    """``TorchLayerAttrs(x)``: the runtime's view of a layer's torch attributes (no effect)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and len(node.args) == 1 \
        and node.func.value.startswith("TorchLayerAttrs")


def written_root(node):
    """The tensor an already converted in-place call writes into (``x`` in ``x.copy_(...)``),
    or None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "copy_":
        root = node.func.value
        if is_pure(root) or _held(root) or _mapping_item(root):
            return root
    return None


def receiver_kind(before, after) -> str:
    """How an in-place call's receiver is held: ``pure`` (a name or attribute chain), ``chain``
    (an in-place call, converted to ``root.copy_(...)``), ``fresh`` (a new tensor nobody else
    sees, a literal included) or ``view`` (an indexed tensor or a result that may share memory with another)."""
    if is_pure(before) or _held(before) or _mapping_item(before):
        return "pure"
    if written_root(after) is not None:
        return "chain"
    if inplace_method_call(before):
        # a chain whose first op was not written back (marked): a new tensor only if its receiver is
        return "fresh" if receiver_kind(before.func.value, None) == "fresh" else "view"
    if isinstance(before, cst.Subscript):
        return "view"
    if isinstance(before, cst.Attribute):
        return "view"  # f(x).weight: an attribute of a call's result
    if _aliasing_call(before):
        return "view"
    if isinstance(before, cst.Call) and isinstance(before.func, cst.Name) and \
            before.func.value.rstrip("_") == "torch_to":
        return "view"  # the generated x.to(v): torch's to() returns x itself when nothing changes
    if isinstance(before, (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Integer, cst.Float,
                           cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
        return "fresh"  # (a literal too: `(2).copy_(...)`, which a template may write)
    return "view"


def inplace_method_call(node) -> bool:
    """``x.mul_(d)``: a call of a torch in-place method (a name ending in one underscore)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value.endswith("_") and not node.func.attr.value.endswith("__")


def _state_dict_kind(converter, before, after) -> str | None:
    """``pure`` for an item of a state_dict (a tensor the module holds), ``chain`` for an in-place
    call already written back into one (``sd[k].copy_(...)``, the first op of ``sd[k].mul_(d).add_(p)``)."""
    if state_dict_item(converter, before):
        return "pure"
    if isinstance(after, cst.Call) and isinstance(after.func, cst.Attribute) and after.func.attr.value == "copy_" \
            and state_dict_item(converter, after.func.value):
        return "chain"
    return None


def _mapping_item(node) -> bool:
    """``state["exp_avg"]``, ``self.state[p]["mu"]``: an item of a dict by a string (no tensor is
    indexed by a string), reached through names, attributes and subscripts by a name or a
    literal: the tensor the dict holds, not a view; evaluating it twice is free."""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))):
        return False
    node = node.value
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Subscript) and not all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Name, cst.Integer, cst.SimpleString))
                for e in node.slice):
            return False
        node = node.value
    return isinstance(node, cst.Name)


def _held(node) -> bool:
    """``self.blocks[0].conv.weight``, ``getattr(block, f'conv{i}').weight``: an attribute (not a
    tensor's view attribute) reached through names, attributes, subscripts by a name or a literal
    and ``getattr`` reads: a tensor an object holds, not a view; evaluating it twice is free."""
    if not isinstance(node, cst.Attribute) or node.attr.value in TENSOR_VIEW_ATTRS:
        return False
    node = node.value
    while isinstance(node, (cst.Attribute, cst.Subscript)) or _getattr_read(node):
        if isinstance(node, cst.Call):
            node = node.args[0].value
            continue
        if isinstance(node, cst.Subscript) and not all(
                isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Name, cst.Integer, cst.SimpleString))
                for e in node.slice):
            return False
        node = node.value
    return isinstance(node, cst.Name)


_NAME_EXPRS = (cst.Name, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


def _getattr_read(node) -> bool:
    """``getattr(obj, 'name')`` / ``getattr(obj, f'conv{i}')`` (two positional arguments, the
    second a name or a string): reading an attribute, as ``obj.name`` does."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
        node.func.value == "getattr" and len(node.args) == 2 and \
        all(a.keyword is None and not a.star for a in node.args) and \
        isinstance(node.args[1].value, _NAME_EXPRS)


def _held_by_an_object(node) -> bool:
    """``make(m).weight``, ``getattr(m, n).bias``: an attribute other than a tensor's view
    attribute (``.T``, ``.data``, ...): the tensor the object holds, written into by copy_ as in
    torch, whatever expression gives the object."""
    return isinstance(node, cst.Attribute) and node.attr.value not in TENSOR_VIEW_ATTRS


def _reads_grad(node) -> bool:
    """An attribute chain through ``.grad`` (``p.grad.data``)."""
    while isinstance(node, cst.Attribute):
        if node.attr.value == "grad":
            return True
        node = node.value
    return False


def _copy_of(node) -> cst.Call:
    return cst.Call(attribute(node, "copy"))


def _chained_value(edit, after: cst.Call, root):
    """What the next op of an in-place chain takes (``x.mul_(d).add_(p)``, its first op converted to
    ``x.copy_(x.copy().mul(d))``): the value the first op computed, a new tensor, so that the chain
    is one write, ``x.copy_(x.copy().mul(d).add(p))``. Where the op's arguments read ``x`` (torch
    gives them ``x`` written) or the first write is not one of this rule's (``x.copy_(y)`` casts
    ``y`` to ``x``'s dtype and shape), the written tensor again: ``x.copy_(x.copy_(...).copy().add(x))``."""
    value = after.args[0].value if len(after.args) == 1 and after.args[0].keyword is None else None
    root_text = code_of(root)
    if value is None or f"{root_text}.copy()" not in code_of(value) \
            or _reads_name(root_text, [*edit.call.args, *(item[1] for item in edit.out)]):
        return _copy_of(after)
    return value


def _reads_name(text: str, args) -> bool:
    """Whether an argument's code names ``text`` (a name or attribute chain) or its root name."""
    root = re.escape(text.split(".", 1)[0])
    return any(re.search(rf"(?<![\w.]){root}(?!\w)", code_of(a.value if isinstance(a, cst.Arg) else a))
               for a in args)


def _view_reason(name: str, before) -> str:
    return (f"in-place {name}() on {code_of(before)}: torch also writes into the tensor it views "
            f"or indexes, MindSpore does not; update that tensor (x[i] = ...) or assign the result")


def _out_of_place_as_written(edit, op: str):
    """``recv.op(args)`` converted as that call written by hand would be (``ops.mul(recv, g)``
    on a receiver known to be a tensor), so that converting the result again changes nothing;
    None when the in-place entry's own target is that form already."""
    converter = edit.converter
    entry = converter.facts.tables.get("Tensor." + op)
    if entry is None or entry.receiver == "any" or entry.rule is not None or \
            not is_tensor(converter, edit.receiver_before):
        return None
    call = edit.call.with_changes(func=attribute(edit.method_receiver, op))
    return converter.apply_entry(call, entry, "Tensor." + op, receiver=edit.method_receiver,
                                 receiver_before=edit.receiver_before)


@argument_rule("MS170", "inplace", examples=[
    ("def f(x):\n"
     "    x.add_(1)\n",
     "def f(x):\n"
     "    x.copy_(x.copy().add(1))\n"),
])
def inplace(edit) -> None:
    """Replace x.op_(args) with x.copy_(x.copy().op(args)) (MindSpore 2.10 updates and
    differentiates through copy_ only); on a new tensor with its out-of-place op."""
    name = edit.entry.torch.split(".", 1)[1]
    before, after = edit.receiver_before, edit.method_receiver
    if _reads_grad(before):
        edit.result = edit.call  # p.grad: the training-step pass decides about gradients
        return
    kind = _state_dict_kind(edit.converter, before, after) or receiver_kind(before, after)
    if kind == "view":
        edit.unsupported(_view_reason(name, after), marker="MS905")  # the converted text: the same when converted again
        return
    if kind == "fresh":
        edit.note("in-place on a new tensor: the out-of-place result is the same")
        plain = _out_of_place_as_written(edit, name[:-1])
        if plain is not None:
            edit.result = plain
        return
    root = after if kind == "pure" else written_root(after) or after.func.value
    copied = _copy_of(after) if kind != "chain" else _chained_value(edit, after, root)
    if edit.receiver is not None:
        edit.receiver = copied            # ops.relu(x) -> ops.relu(x.copy())
    else:
        edit.func = edit.func.with_changes(value=copied)   # x.add(y) -> x.copy().add(y)
    inner = edit.build()
    edit.result = cst.Call(attribute(root, "copy_"), [cst.Arg(inner)])
    edit.note("written back with copy_: MindSpore 2.10's own in-place methods leave the tensor "
              "unchanged on CPU and their gradients ignore the update")


@argument_rule("MS334", "fill_diagonal", runtime=True, needs=["torch_fill_diagonal"], examples=[
    ("def f(x):\n"
     "    x.fill_diagonal_(0.5)\n",
     "def f(x):\n"
     "    x.copy_(x.copy().fill_diagonal(0.5))\n"),
])
def fill_diagonal(edit) -> None:
    """Replace x.fill_diagonal_(v, wrap) with x.copy_(x.copy().fill_diagonal(v, wrap)), or with --target mindspore
    with x.copy_(torch_fill_diagonal(x.copy(), v, wrap)): ops.where over a diagonal mask (MindSpore 2.10's
    FillDiagonal has no gradient)."""
    if edit.converter.facts.target_name == "mindspore":
        edit.func = cst.Name(edit.helper("torch_fill_diagonal"))
        edit.receiver = as_argument(edit.method_receiver)
        edit.worse("transformed")  # the entry's mindspore_note says why
    inplace(edit)


@argument_rule("MS166", "scatter_method", examples=[
    ("def f(x: torch.Tensor, i):\n"
     "    x.scatter_(1, i, value=0.5)\n",
     "def f(x: ms.Tensor, i):\n"
     "    x.copy_(x.copy().scatter(1, i, ops.full(i.shape, 0.5, dtype=x.dtype)))\n"),
    ("def f(x: torch.Tensor, i, s):\n"
     "    return x.scatter(dim=1, index=i, src=s)\n",
     "def f(x: ms.Tensor, i, s):\n"
     "    return x.scatter(1, i, s)\n"),
])
def scatter_method(edit) -> None:
    """Replace x.scatter(dim, index, src | value=v) with x.scatter(dim, index, src), a value (or a
    number given as src) as a tensor of index's shape in x's dtype (MindSpore's scatter takes a
    Tensor src, by position: its first parameter is named axis); x.scatter_ written back as any
    in-place method."""
    src, value = edit.bound.get("src"), edit.bound.get("value")
    if src is not None and isinstance(src, (cst.Integer, cst.Float, cst.UnaryOperation)):
        src, value = None, src  # scatter_(1, i, 0.5): torch's value overload
    if (src is None) == (value is None):
        edit.unsupported("scatter needs one of src and value")
        return
    if value is not None:
        src = render(edit.converter, "ops.full({index}.shape, {value}, dtype={input}.dtype)",
                     {"index": edit.bound["index"], "value": value, "input": edit.method_receiver})
    edit.out = [[name, v, True, None] for name, v in (("dim", edit.bound["dim"]), ("index", edit.bound["index"]),
                                                       ("src", src))]
    if edit.entry.torch == "Tensor.scatter_":
        inplace(edit)


@argument_rule("MS326", "inplace_compare", needs=["torch_compare_"], examples=[
    ("def f(x):\n"
     "    return x.ge_(0.5)\n",
     "def f(x):\n"
     "    return torch_compare_(ops.ge, x, 0.5)\n"),
])
def inplace_compare(edit) -> None:
    """Replace x.ge_(y) (gt_, le_, lt_, eq_, ne_) with torch_compare_(ops.ge, x, y): 1 or 0 in
    x's dtype written into x (torch keeps x's dtype; ops.ge gives bools); marked on a view."""
    name = edit.entry.torch.split(".", 1)[1]
    before, after = edit.receiver_before, edit.method_receiver
    if receiver_kind(before, after) == "view":
        edit.unsupported(_view_reason(name, after), marker="MS905")
        return
    built = edit.build()  # ops.ge(x, y)
    edit.result = cst.Call(cst.Name(edit.helper("torch_compare_")), [cst.Arg(built.func), *built.args])
    edit.note("the comparison's 1 or 0 in the receiver's dtype, written back with copy_ as torch's in-place method")


@argument_rule("MS172", "copy_into", examples=[
    ("def f(x):\n"
     "    x.copy_(y)\n",
     "def f(x):\n"
     "    x.copy_(y)\n"),
])
def copy_into(edit) -> None:
    """Replace x.copy_(src) with itself (MindSpore 2.10 has it; an attribute of any object, such
    as a layer's Parameter, included); mark it on an indexed tensor or a view, which torch writes
    through and MindSpore does not."""
    before, after = edit.receiver_before, edit.method_receiver
    if receiver_kind(before, after) == "view" and not _held_by_an_object(before) \
            and not state_dict_item(edit.converter, before):
        # the converted text: the same when converted again
        edit.unsupported(_view_reason("copy_", after), marker="MS905")


def _basic_index(sub: cst.Subscript, fill: bool = False) -> bool:
    """Indices torch resolves to a view (slices, ints, ..., None; names taken to hold ints): an in-place update
    of x[i] writes into x only then (x[mask] is a copy). For a fill (``zero_``, ``fill_``: the statement would
    write where torch's leaves a copy of x[mask] alone), an attribute chain (``module.padding_idx``) but not a
    bare name."""
    for el in sub.slice:
        index = el.slice
        if isinstance(index, cst.Slice):
            continue
        value = index.value
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        if fill and isinstance(value, cst.Attribute) and is_pure(value):
            continue
        if not isinstance(value, (cst.Integer, cst.Ellipsis) if fill else (cst.Integer, cst.Ellipsis, cst.Name)):
            return False
    return True


def subscript_statement(converter, stmt: cst.Expr):
    """The statement ``x[i].op_(args)`` (``x`` a name or attribute chain, ``i`` a basic index) as
    ``x[i] = x[i].op(args)`` (``x[i].copy_(src)``: ``x[i] = src``); None when ``stmt`` is not
    of that form, so that the call is converted (or marked) as usual."""
    call = stmt.value
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and inplace_method_call(call.func.value):
        return _subscript_chain(converter, stmt)
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Subscript) and is_pure(call.func.value.value)
            and _basic_index(call.func.value, fill=call.func.attr.value in _FILLS)) \
            or state_dict_item(converter, call.func.value):
        return None   # (an item of a state_dict is a tensor the module holds: written into, not rebound)
    name = call.func.attr.value
    entry = converter.facts.tables.get("Tensor." + name)
    if name in _FILLS and converter.allows(INPLACE_SUBSCRIPT.id):
        return _filled_item(converter, stmt, call)
    if entry is None or entry.rule not in ("inplace", "copy_into") or not converter.allows(INPLACE_SUBSCRIPT.id):
        return None
    if entry.rule == "copy_into":
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            return None
        value = converter.walk(call.args[0].value)
    else:
        if converter.facts.tables.get("Tensor." + name[:-1]) is None:
            return None
        value = converter.walk(call.with_changes(func=call.func.with_changes(attr=cst.Name(name[:-1]))))
    target = converter.walk(call.func.value)
    new = cst.Assign([cst.AssignTarget(target)], value)
    converter.record(stmt, new, INPLACE_SUBSCRIPT.id, "exact",
                "torch writes through the indexed view; here the item is assigned")
    return new


def _inplace_chain(node) -> tuple[list, object]:
    """(the in-place calls of ``x.sub_(c).neg_()``, outermost first; the tensor they write, ``x``)."""
    links = []
    while inplace_method_call(node):
        links.append(node)
        node = node.func.value
    return links, node


def chain_assignment(converter, stmt: cst.Assign):
    """``x[i] = x[i].sub_(c).neg_()`` (the chain's own write, assigned once more) as the in-place
    chain it assigns back (see :func:`_subscript_chain`); None for any other assignment."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Subscript) \
            or not inplace_method_call(stmt.value) \
            or code_of(_inplace_chain(stmt.value)[1]) != code_of(stmt.targets[0].target):
        return None
    return _subscript_chain(converter, cst.Expr(stmt.value, semicolon=stmt.semicolon), written=stmt)


def _subscript_chain(converter, stmt: cst.Expr, written=None):
    """The statement ``x[i].sub_(c).neg_()`` as ``x[i] = x[i].sub(c).neg()``: every op of the chain
    writes into the same indexed part, so the item takes the last value. None where an op after the
    first reads ``x`` in its arguments (torch gives it ``x`` partly written) or is no plain in-place op.
    ``written``: the statement as the input has it, where it is not ``stmt`` (an assignment)."""
    links, item = _inplace_chain(stmt.value)
    if not (isinstance(item, cst.Subscript) and is_pure(item.value) and _basic_index(item, fill=False)) \
            or state_dict_item(converter, item) or not converter.allows(INPLACE_SUBSCRIPT.id):
        return None
    root = code_of(item.value)
    value = item
    for depth, link in enumerate(reversed(links)):
        name = link.func.attr.value
        entry = converter.facts.tables.get("Tensor." + name)
        if entry is None or entry.rule != "inplace" or converter.facts.tables.get("Tensor." + name[:-1]) is None \
                or depth and _reads_name(root, link.args):
            return None
        value = link.with_changes(func=link.func.with_changes(value=value, attr=cst.Name(name[:-1])))
    new = cst.Assign([cst.AssignTarget(converter.walk(item))], converter.walk(value), semicolon=stmt.semicolon)
    converter.record(written or stmt, new, INPLACE_SUBSCRIPT.id, "exact",
                     "torch writes through the indexed view; here the item is assigned")
    return new


# the in-place initialisers that set every item to one value
_FILLS = ("zero_", "fill_")


def _filled_item(converter, stmt: cst.Expr, call: cst.Call):
    """``p.data[i].zero_()`` / ``x[i].fill_(v)`` (an Embedding's padding row) as ``p[i] = 0`` / ``x[i] = v``:
    torch writes the value into the indexed part of the tensor (``.data`` only hides that from autograd); MindSpore
    2.10 has no CPU kernel for InplaceZero / InplaceFillScalar, and its item assignment writes the tensor itself.
    None for another form (``fill_`` with a keyword)."""
    if call.func.attr.value == "fill_":
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        value = converter.walk(call.args[0].value)
    elif call.args:
        return None
    else:
        value = cst.Integer("0")
    item = call.func.value
    base = item.value
    while isinstance(base, cst.Attribute) and base.attr.value == "data":
        base = base.value
    target = converter.walk(item.with_changes(value=base))
    new = cst.Assign([cst.AssignTarget(target)], value)
    converter.record(stmt, new, INPLACE_SUBSCRIPT.id, "exact",
                     "torch fills the indexed part of the tensor; here the item is assigned the value")
    return new


INPLACE_DATA = node_rule(
    "MS199", "inplace_data_update",
    "Replace the statement x.data op= y (x a name or attribute chain) with x.copy_(x op y), and "
    "x.data = y (x known to be a tensor or a parameter) with x.copy_(y): copy_ writes into the tensor, "
    "which every holder of it sees, as torch's .data does.", examples=[
    ("def f(w):\n"
     "    w.data *= 0.5\n",
     "def f(w):\n"
     "    w.copy_(w * 0.5)\n"),
    ("def restore(m, saved):\n"
     "    m.weight.data = saved\n",
     "def restore(m, saved):\n"
     "    m.weight.copy_(saved)\n"),
])


def data_assignment(converter, stmt: cst.Assign):
    """The statement ``x.data = y`` as ``x.copy_(y)`` where ``x`` is known to be a tensor (typed,
    a parameter attribute such as ``m.weight``, or a parameter an optimizer class walks);
    None otherwise (``self.data = rows`` in a dataset, ``config.data = ...`` stay)."""
    if len(stmt.targets) != 1:
        return None
    target = stmt.targets[0].target
    if not (isinstance(target, cst.Attribute) and target.attr.value == "data" and is_pure(target.value)
            and converter.allows(INPLACE_DATA.id) and _tensor_owner(converter, target.value)):
        return None
    owner = converter.walk(target.value)
    new = cst.Expr(cst.Call(attribute(owner, "copy_"), [cst.Arg(converter.walk(stmt.value))]))
    converter.record(stmt, new, INPLACE_DATA.id, "exact",
                     "written into the tensor with copy_ (torch's .data = swaps the data of the same tensor; "
                     "a value of another shape raises)")
    return new


def _tensor_owner(converter, owner) -> bool:
    """Whether ``owner`` of ``owner.data = ...`` is a tensor: typed as one, an attribute named like
    a parameter (``m.weight``), or a name other than ``self`` inside an optimizer class (the
    parameters of its param_groups)."""
    if is_tensor(converter, owner) or is_param(owner):
        return True
    classes, facts = converter.walk_state.classes, converter.facts.training
    return isinstance(owner, cst.Name) and owner.value != "self" and bool(classes) and facts is not None \
        and classes[-1].name in facts.optimizer_classes


def data_statement(converter, stmt: cst.AugAssign):
    """The statement ``x.data *= y`` as ``x.copy_(x * y)``; None when ``stmt`` is not of that
    form (then it is converted as usual)."""
    target = stmt.target
    if not (isinstance(target, cst.Attribute) and target.attr.value == "data" and is_pure(target.value)
            and converter.allows(INPLACE_DATA.id)):
        return None
    op = getattr(cst, type(stmt.operator).__name__[:-len("Assign")], None)
    if op is None:
        return None
    owner = converter.walk(target.value)
    value = converter.walk(stmt.value)
    if not is_primary(value):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    new = cst.Expr(cst.Call(attribute(owner, "copy_"), [cst.Arg(cst.BinaryOperation(owner, op(), value))]))
    converter.record(stmt, new, INPLACE_DATA.id, "exact", "written into the tensor with copy_")
    return new
