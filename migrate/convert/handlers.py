"""Node handlers of the walk: what the converter does at a reference, a call, a method call, an
attribute, an assignment, a class, a function, a ``with``, a ``for`` and an ``if``.

Calls of torch APIs are rewritten from their mapping-table entry (:func:`apply_entry`: generic
argument fates, then the entry's argument rule); the node rules described here handle what no
table can (``forward`` -> ``construct``, ``no_grad`` blocks, parameter renames...).
"""
from __future__ import annotations

import ast
import dataclasses
import re

import libcst as cst

from migrate.convert.call_edit import BindError, CallEdit
from migrate.convert.cst import ast_statements, attribute, code_of, dotted, parse_expr, python_ast
from migrate.convert import einops_calls
from migrate.convert.layer_attributes import (
    attention_inputs_by_position, attention_without_weights, conv_geometry_write, known_layer, layer_attribute,
    layer_base, layer_forward_call, narrowing_classes, note_layer_class, tree_items,
)
from migrate.convert.names import function_locals
from migrate.convert.package_classes import MODULE_BASES
from migrate.convert.module_state import module_iterator, parameter_paths
from migrate.convert.receivers import (
    installed_submodule, is_module, is_param, is_self, is_tensor, torch_keywords, torch_only_method,
    track_added_child, track_assign, type_of,
)
from migrate.runtime.values import LAYER_ATTR_NAMES, LAYER_GEOMETRY
from migrate.convert.owned import owned_tensors
from migrate.convert.rules.inplace import ALIASING_METHODS
from migrate.convert.probes import PROBE_FUNCTIONS, VERSION_NAMES, kwdefaults_reference, probe_call, version_reference
from migrate.convert.precedence import fit
from migrate.convert.registry import entry_id, node_rule
from migrate.convert.rules import argument_rule_named
from migrate.convert.rules.hub import load_into_module
from migrate.convert.rules.norm_bases import NORM_BASES, norm_base_classes
from migrate.convert.rules.optim import OPTIMIZER_BASES, optimizer_bases
from migrate.convert.rules.runtime import flag_assignment, flag_reading, removed_decorator
from migrate.convert.rules.torchfn import CONSTRAINTS, constraint_reference
from migrate.convert.rules.recompute import NOTHING, rewrite_block, rewrite_recomputed
from migrate.convert.rules.autograd_function import (
    AUTOGRAD_FUNCTION, FUNCTION_APPLY, function_apply, rewrite_function_class,
)
from migrate.convert.scopes import ClassScope, FunctionScope
from migrate.convert.tidy import tidy_function
from migrate.convert.tensor_methods import FUNCTION_METHODS as _TORCH_TENSOR_METHODS
from migrate.convert.torch_lookup import lookup_call
from migrate.convert.training.bindings import looks_optimizer
from migrate.convert.untyped import is_untyped_call, untyped_call
from migrate.convert.view_alias import NO_WRITE
from migrate.convert.torch_signature import (
    _CONTAINERS, container_call, is_layer_class, reference, runtime_call, runtime_value, translates,
)

TYPE_AS_DTYPE = node_rule(
    "MS327", "type_as_dtype",
    "Replace a.type(b.type()) / a.astype(b.type()) with a cast to b.dtype (MindSpore's "
    "b.type() names the type differently: 'Float32', not 'torch.FloatTensor').", examples=[
    ("def f(x, w):\n"
     "    return x.type(w.type())\n",
     "def f(x, w):\n"
     "    return x.astype(w.dtype)\n"),
])
ASSUMED_CELL = node_rule(
    "MS101", "assumed_cell",
    "Replace a class whose base comes from another file and that defines forward with a Cell "
    "subclass (forward -> construct); the base is assumed to be an nn.Module.", examples=[
    ("from .blocks import Base\n"
     "class Head(Base):\n"
     "    def forward(self, x):\n"
     "        return x\n",
     "class Head(Base):\n"
     "    def construct(self, x):\n"
     "        return x\n"),
])
FORWARD = node_rule(
    "MS102", "forward_to_construct",
    "Replace a Cell's def forward / super().forward(x) with def construct / super().construct(x), and "
    "net.forward(x) on a receiver the walk cannot type where no plain class of the file defines forward; "
    "a module's forward read or replaced as a value (orig = m.forward; m.forward = f; setattr(m, 'forward', f)) "
    "is its construct, which a Cell's call runs (MindSpore 2.10 PyNative honours an instance's construct).",
    examples=[
    ("class M(nn.Module):\n"
     "    def forward(self, x):\n"
     "        return x\n",
     "class M(nn.Cell):\n"
     "    def construct(self, x):\n"
     "        return x\n"),
    ("def features(net, x):\n"
     "    return net.forward(x)\n",
     "def features(net, x):\n"
     "    return net.construct(x)\n"),
    ("def traced(module):\n"
     "    original = module.forward\n"
     "    def forward(*args):\n"
     "        return original(*args) * 2\n"
     "    module.forward = forward\n",
     "def traced(module):\n"
     "    original = module.construct\n"
     "    def forward(*args):\n"
     "        return original(*args) * 2\n"
     "    module.construct = forward\n"),
])
MODULES_LOOP = node_rule(
    "MS104", "modules_loop", "Replace `for m in net.modules()` with `for _, m in net.cells_and_names()`.", examples=[
    ("for m in self.modules():\n"
     "    pass\n",
     "for _, m in self.cells_and_names():\n"
     "    pass\n"),
])
NO_GRAD = node_rule(
    "MS106", "no_grad",
    "Replace a bare grad-mode decorator @torch.no_grad / @torch.enable_grad with the call torch makes "
    "of it (@torch.no_grad(), which the tables convert to @torch_no_grad(), the runtime's).", examples=[
    ("@torch.no_grad\n"
     "def f(x):\n"
     "    return x\n",
     "@torch_no_grad()\n"
     "def f(x):\n"
     "    return x\n"),
])
LAYER_ATTR_AT_RUN_TIME = node_rule(
    "MS444", "layer_attribute_at_run_time",
    "Replace x.in_features / out_features / num_embeddings / embedding_dim / kernel_size / stride / dilation "
    "on a receiver of unknown class with TorchLayerAttrs(x).in_features...: x's own attribute, else the "
    "MindSpore layer's (in_channels...; a 1-D convolution's (k,) where MindSpore holds (1, k)).",
        needs=["TorchLayerAttrs"], examples=[
    ("def f(model):\n"
     "    return model.fc.in_features\n",
     "def f(model):\n"
     "    return TorchLayerAttrs(model.fc).in_features\n"),
])
MODULE_TABLES = node_rule(
    "MS443", "module_tables",
    "Replace m._modules with m._cells and m._parameters with m._params (a Cell's ordered tables of "
    "its children and its own parameters).", examples=[
    ("def f(m):\n"
     "    return list(m._modules.values()), len(m._parameters)\n",
     "def f(m):\n"
     "    return list(m._cells.values()), len(m._params)\n"),
])
# torch.nn.Module's private tables -> a MindSpore Cell's (both OrderedDicts by name, in the order
# the children/parameters were added; pytorchcv's containers iterate self._modules.values())
_MODULE_TABLES = {"_modules": "_cells", "_parameters": "_params"}
TENSOR_ATTRIBUTE = node_rule(
    "MS107", "tensor_attribute",
    "Replace t.data with t, t.device with None and t.is_cuda / t.is_xpu / ... with False (no tape "
    "and no devices on MindSpore tensors).", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.data, x.device\n",
     "def f(x: ms.Tensor):\n"
     "    return x, None\n"),
])
COMPLEX_PARTS = node_rule(
    "MS421", "complex_parts",
    "Replace t.real / t.imag of a tensor with ops.real(t) / ops.imag(t) (MindSpore 2.10's "
    "Tensor.real and Tensor.imag are methods, not attributes).", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return torch.fft.fft(x).real\n",
     "def f(x: ms.Tensor):\n"
     "    return ops.real(ops.fft(x))\n"),
])
DEVICE_CONTEXT = node_rule(
    "MS254", "device_context",
    "Replace `with torch.device(d): body` with body (tensors made inside need no default device).", examples=[
    ("with torch.device('cpu'):\n"
     "    y = torch.zeros(2)\n",
     "y = ops.zeros((2,))\n"),
])
DTYPE_INFO_NUMBER = node_rule(
    "MS354", "dtype_info_number",
    "Replace torch.finfo(dt).max (eps, min, tiny, smallest_normal, resolution) with float(np.finfo(...).max): "
    "torch's are Python floats, NumPy's are NumPy scalars, which MindSpore 2.10 refuses where it takes a "
    "number (x[i, j] = value).", examples=[
    ("y = -torch.finfo(torch.float32).max\n",
     "y = -float(np.finfo(ms.dtype_to_nptype(ms.float32)).max)\n"),
])
# torch.finfo's float fields (bits is an int on both sides; iinfo's fields are Python ints in NumPy too)
_FINFO_FLOATS = frozenset({"eps", "max", "min", "tiny", "smallest_normal", "resolution"})

NAMED_TUPLE_FIELD = node_rule(
    "MS137", "named_tuple_field", "Replace torch.max(x, d).values / .indices with ops.max(x, d)[0] / [1].", examples=[
    ("y = torch.max(x, 1).values\n",
     "y = ops.max(x, 1)[0]\n"),
])

FREE_CONTEXT = node_rule(
    "MS169", "value_free_context",
    "Replace `with torch.backends.cuda.sdp_kernel(...): body` (attention-kernel choice) and "
    "`with autocast(enabled=False)` / @autocast(enabled=False) with body: they change no value of "
    "the converted code.", examples=[
    ("with torch.backends.cuda.sdp_kernel(enable_math=True):\n"
     "    y = x\n",
     "y = x\n"),
])
DEVICE_CLASS = node_rule(
    "MS162", "device_class",
    "Replace torch.device used as a value (isinstance(d, torch.device), Union[str, torch.device, "
    "None]) with type(None): a converted device is None, as torch.device(...) calls become None.", examples=[
    ("ok = isinstance(d, torch.device)\n",
     "ok = isinstance(d, type(None))\n"),
])

# attention-kernel selection: every kernel computes the same attention (up to rounding)
_KERNEL_CONTEXTS = {"torch.backends.cuda.sdp_kernel", "torch.nn.attention.sdpa_kernel"}
_UNPICKLING_CONTEXTS = {"torch.serialization.safe_globals"}
_AUTOCAST = {"torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast"}

NO_GRAD_CALLS = {"torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.autograd.no_grad",
                 "torch.autograd.enable_grad", "torch.autograd.inference_mode"}
# the grad-mode contexts that turn recording off (``inference_mode(False)`` keeps it as it was)
_GRAD_OFF_CALLS = {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.inference_mode"}
_FUNCTION_BASES = ("torch.autograd.Function", "torch.autograd.function.Function")
# torch functions and methods whose result is a (values, indices) named tuple; MindSpore's
# counterparts return a plain tuple
_VALUES_INDICES = {"max", "min", "sort", "topk", "kthvalue", "median", "mode", "cummax", "cummin"}


# --------------------------------------------------------------------------------------------
# references and calls
# --------------------------------------------------------------------------------------------
def on_reference(converter, node, q: str):
    """A torch name used as a value (base class, isinstance, dtype, ...), not called."""
    if einops_calls.is_einops(q):
        return einops_calls.reference(converter, node, q)
    if q in VERSION_NAMES:
        new = version_reference(converter, node, q)
        if new is not None:
            return new
    elif isinstance(node, cst.Attribute) and q.rsplit(".", 1)[0] in VERSION_NAMES:
        return node.with_changes(value=converter.walk(node.value))  # torch.__version__.split
    elif q.endswith(".__kwdefaults__"):
        new = kwdefaults_reference(converter, node, q)
        if new is not None:
            return new
    if converter.walk_state.in_isinstance and not converter.walk_state.in_annotation and q in NORM_BASES:
        new = norm_base_classes(converter, node, q)  # isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
        if new is not None:
            return new
    if q == "torch.device" and converter.allows(DEVICE_CLASS.id):
        # `_builtins.type` when shadowed
        new = cst.Call(parse_expr(converter.builtin("type")), [cst.Arg(cst.Name("None"))])
        converter.record(node, new, DEVICE_CLASS.id, "transformed", "a converted device is None")
        return new
    entry = converter.facts.tables.get(q)
    if entry is not None and entry.rule == "backend_flag" or q.startswith(CONSTRAINTS):
        new = flag_reading(converter, node, q) if entry is not None and entry.rule == "backend_flag" else \
            constraint_reference(converter, node, q)
        if new is not None:
            return new
    if entry is not None and entry.target and entry.label != "unsupported" \
            and not entry.target.startswith("."):
        if not converter.allows(entry_id(entry)):
            converter.uses_alias(node)
            return node
        if not converter.walk_state.in_isinstance and (translates(entry) or q in _CONTAINERS):
            # a value or a base: calls through it get torch's arguments (MS180/MS182)
            return reference(converter, node, q, entry)
        new = converter.target(entry.target)
        # a class named in isinstance keeps its label only if it has no arguments to translate
        # (nn.Module -> nn.Cell is "transformed": Cells start in inference mode)
        label = "exact" if entry.params is not None else entry.label
        converter.record(node, new, entry_id(entry), label, entry.note)
        return new
    if entry is not None and not entry.target and entry.rule is not None and entry.label != "unsupported" \
            and not converter.walk_state.in_isinstance \
            and (entry.rule == "grad_mode" or q.rsplit(".", 1)[-1].islower()):
        # a function whose calls a rule writes, as a value (ctx = torch.no_grad, op = torch.max):
        # the runtime's function with torch's signature, where there is one (else marked; a class
        # stays marked: a value of it may be a base class, which a runtime function cannot be)
        new = runtime_value(converter, node, q)
        if new is not None:
            return new
    converter.uses_alias(node)
    converter.mark(node, "MS901", f"{q} has no mapping" + (f" ({entry.note})" if entry and entry.note else ""))
    return node


def on_call(converter, node: cst.Call):
    """A call: a torch API (from its table entry), a method, isinstance, or anything else."""
    func = node.func
    q = converter.qual(func)
    if q is None:
        new = einops_calls.import_by_name(converter, node)
        if new is not None:
            return new
        if isinstance(func, cst.Attribute):
            return on_method(converter, node)
        if isinstance(func, cst.Name) and func.value in ("isinstance", "issubclass"):
            node = _without_single_process_wrappers(converter, node)
            if not isinstance(node, cst.Call):
                return node
            with converter.naming_classes():
                return converter.generic(node)
        if isinstance(func, cst.Name) and func.value in PROBE_FUNCTIONS and converter.walk_state.aliases:
            new = probe_call(converter, node)  # hasattr(torch.nn.functional, 'silu')
            if new is not None:
                return new
        if isinstance(func, cst.Name) and func.value == "getattr":
            new = lookup_call(converter, node)
            if new is not None:
                return new
        if isinstance(func, cst.Name) and func.value in _ATTRIBUTE_FUNCTIONS:
            node = _forward_by_name(converter, node)
        walked = converter.generic(node)
        return module_iterator(converter, node, walked) or walked
    if q.rsplit(".", 1)[0] in VERSION_NAMES:
        return converter.generic(node)  # torch.__version__.split('.'): a method of the version string
    start = converter.checkpoint()
    args = _walk_arguments(converter, node, q)
    walked = node if args is node.args else node.with_changes(args=args)
    entry = converter.facts.tables.get(q)
    method = constraint_reference(converter, node.func, q) if entry is None and q.startswith(CONSTRAINTS) else None
    if method is not None:
        return walked.with_changes(func=method)  # constraints.positive.check(x)
    if entry is None:
        return keep_original(converter, node, start, "MS901", f"{q} has no mapping")
    new = container_call(converter, node, walked, q)
    if new is not None:
        return new
    if entry.label != "unsupported" and not converter.allows(entry_id(entry)):
        # not selected: the call stays as written, whole (no half-converted torch calls)
        converter.rollback_to(start)
        converter.keep_aliases_in(node)
        return node
    if einops_calls.is_einops(q) and entry.label != "unsupported":
        return walked.with_changes(func=einops_calls.reference(converter, node.func, q))
    before_call = converter.checkpoint()
    new = apply_entry(converter, walked, entry, q, original=node)
    if new is walked and walked is not node:
        # marked, so the call stays as written: so do its arguments (no half-converted torch
        # calls); marked again on the original call so that the marker quotes the code as written
        converter.rollback_to(before_call, keep_markers=False)
        converter.rollback_to(start)
        converter.keep_aliases_in(node)
        return apply_entry(converter, node, entry, q)
    return new


def _without_single_process_wrappers(converter, node: cst.Call):
    """``isinstance(m, nn.DataParallel)`` -> ``False``; ``(nn.DataParallel, Other)`` -> ``(Other,)``:
    the conversion makes ``DataParallel(model)`` the model itself, so no converted object is one
    (an EMA helper's ``if isinstance(module, nn.DataParallel): module = module.module``). Only
    where the object is a name or an attribute (nothing is evaluated for it)."""
    if len(node.args) != 2 or node.args[0].star or node.args[1].star \
            or not isinstance(node.args[0].value, (cst.Name, cst.Attribute)):
        return node
    def wrapper(cls) -> bool:
        entry = converter.facts.tables.get(converter.qual(cls) or "")
        return entry is not None and entry.rule == "data_parallel_module"
    cls = node.args[1].value
    elements = cls.elements if isinstance(cls, cst.Tuple) else None
    if not (wrapper(cls) or elements is not None and any(wrapper(e.value) for e in elements)):
        return node
    rest = [e for e in elements if not wrapper(e.value)] if elements is not None else []
    if rest:
        rest[-1] = rest[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace("")))
        new = node.with_changes(args=[node.args[0], node.args[1].with_changes(value=cls.with_changes(elements=rest))])
    else:
        new = cst.Name("False")
    converter.record(node, new, "MS160", "exact", "DataParallel(model) is the model itself in the conversion: "
                                                 "no object is a DataParallel")
    return new


def _walk_arguments(converter, node: cst.Call, q: str):
    """The call's arguments, converted; a torch optimizer's with ``walk_state.optimizer_args`` set
    (``model.parameters()`` given to an optimizer is what it can update, see rules/module.py)."""
    state = converter.walk_state
    optimizer = q.startswith("torch.optim.") and q.rsplit(".", 1)[-1][:1].isupper() \
        and ".lr_scheduler." not in q and ".swa_utils." not in q
    before, state.optimizer_args = state.optimizer_args, optimizer or state.optimizer_args
    try:
        return converter.walk_seq(node.args)
    finally:
        state.optimizer_args = before


def keep_original(converter, node, start, rule_id: str, reason: str):
    """Leave ``node`` exactly as written, drop the rewrites recorded inside it since ``start``
    (a :meth:`~migrate.convert.walker.Converter.checkpoint`), and mark it."""
    converter.rollback_to(start)
    converter.keep_aliases_in(node)
    converter.mark(node, rule_id, reason)
    return node


# keywords a rule writes that torch's method does not take (x.std(0) -> x.std(axis=0, ddof=1)),
# and the one its output always has
_RULE_KEYWORDS = {"std_var": {"axis", "ddof", "keepdims"}}
_RULE_ALWAYS = {"std_var": "ddof"}


def _in_target_form(entry, q: str, call: cst.Call) -> bool:
    """A same-named method called with the target's keyword names, which torch's does not take:
    the output of an earlier conversion (``.softmax(dim=1)`` became ``.softmax(axis=1)``)."""
    method = q.rsplit(".", 1)[-1]
    if not entry.params or not (entry.target == "." + method or entry.rule in _RULE_KEYWORDS):
        return False
    torch_names = {p.name for p in entry.params}
    renamed = {f.to for name, f in entry.args.items() if f.to and f.to != name}
    renamed |= _RULE_KEYWORDS.get(entry.rule, set())
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    unknown = keywords - torch_names
    return bool(unknown) and unknown <= renamed and _RULE_ALWAYS.get(entry.rule, "") in keywords | {""}


def apply_entry(converter, call: cst.Call, entry, q: str, receiver=None, receiver_before=None, original=None):
    """Rewrite one call with its table entry (generic argument fates, then the entry's rule).

    ``call`` has its arguments (and receiver) converted already; ``original`` is the call as
    written, which the report shows as "before"."""
    shown = original if original is not None else call
    if entry.label == "unsupported":
        converter.uses_alias(call.func)
        converter.mark(call, entry.id, entry.note or f"{q} has no MindSpore equivalent")
        return call
    rule = argument_rule_named(entry.rule)
    if entry.rule and rule is None:
        converter.uses_alias(call.func)
        converter.mark(call, "MS901", f"{q}: rule {entry.rule!r} is not available")
        return call
    if not converter.allows(entry_id(entry)):
        converter.uses_alias(call.func)
        return call
    edit = _edit_for(converter, call, entry, receiver, receiver_before)
    edit.original = shown
    if entry.params is None:
        if rule is not None:
            rule.apply(edit)
        if edit.problems:
            return _keep(converter, call, entry, edit)
        new = edit.result if edit.result is not None else call.with_changes(
            func=edit.func, args=([cst.Arg(receiver)] if edit.receiver is not None else []) + list(call.args))
        converter.record(shown, new, entry_id(entry), edit.label, "; ".join(edit.notes))
        return new
    try:
        edit.bind()
    except BindError as exc:
        new = runtime_call(converter, call, entry, q, shown, f"{exc}") \
            if receiver is None and str(exc).startswith("cannot translate") else None
        if new is not None:
            return new
        if _in_target_form(entry, q, call):
            return call  # `x.softmax(axis=-1)`: converted by an earlier run (the file kept torch)
        if q.startswith("Module.") and not str(exc).startswith("cannot translate") \
                and (entry.receiver == "any" or _defines_method(converter, q[7:])):
            # not torch's signature, so not torch's method: one the user's class defines
            # (`def train(self, x_pos, x_neg)` called as `net.train(x_pos, x_neg)`)
            return call
        converter.uses_alias(call.func)
        converter.mark(call, "MS903", f"{q}: {exc}")
        return call
    edit.apply_fates()
    if rule is not None and not edit.problems:
        rule.apply(edit)
    if edit.runtime_reasons and receiver is None:
        new = runtime_call(converter, call, entry, q, shown, "; ".join(edit.runtime_reasons))
        if new is not None:
            return new
    edit.problems.extend(edit.unless_runtime)
    if edit.problems:
        return _keep(converter, call, entry, edit)
    new = edit.build()
    if new is call:
        return call  # the rule kept the call as written (it means the same on MindSpore)
    converter.record(shown, new, entry_id(entry), edit.label, "; ".join(edit.notes))
    return new


def _defines_method(converter, name: str) -> bool:
    """Whether a class of the file being converted defines a method ``name`` (``def name(self``)."""
    code = converter.output.signatures.code if converter.output.signatures is not None else ""
    return re.search(rf"^[ \t]+def {re.escape(name)}\(\s*self\b", code, re.M) is not None


def _edit_for(converter, call, entry, receiver, receiver_before) -> CallEdit:
    """The CallEdit of one call, with its target function (a method keeps its receiver)."""
    edit = CallEdit(converter, call, entry)
    if entry.mindspore_note and converter.facts.target_name == "mindspore":
        edit.note(entry.mindspore_note)
    edit.receiver_before = receiver_before
    target = entry.target
    if receiver is not None and target.startswith("."):
        edit.func = attribute(receiver, target[1:])
    elif target:
        edit.func = converter.target(target)
        if receiver is not None:
            edit.receiver = receiver
    edit.method_receiver = receiver
    return edit


def _keep(converter, call, entry, edit):
    converter.uses_alias(call.func)
    converter.mark(call, edit.marker, f"{entry.torch}: " + "; ".join(edit.problems))
    return call


def _in_target_module(converter, recv) -> bool:
    """``ms.hub`` in ``ms.hub.load_state_dict(...)``: a submodule of the target package (its
    functions are never torch methods, also when the file still imports torch)."""
    if not isinstance(recv, cst.Attribute):
        return False
    while isinstance(recv, cst.Attribute):
        recv = recv.value
    return isinstance(recv, cst.Name) and recv.value == converter.facts.names.get("ms") \
        and recv.value in converter.facts.imported and recv.value not in converter.walk_state.aliases


# (not `to`: torch's a.to('torch.FloatTensor') takes the string for a device and raises)
_CASTS = ("type", "astype")


def type_as_dtype(converter, node: cst.Call) -> cst.Call:
    """Apply MS327 to ``a.type(b.type())`` / ``a.astype(b.type())``: the
    argument is ``b.dtype``; ``node`` unchanged when it is not of that form."""
    if len(node.args) != 1 or node.args[0].star or not converter.allows(TYPE_AS_DTYPE.id):
        return node
    inner = node.args[0].value
    if not (isinstance(inner, cst.Call) and not inner.args and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == "type"):
        return node
    new_arg = attribute(inner.func.value, "dtype")
    converter.record(inner, new_arg, TYPE_AS_DTYPE.id, "exact", "b.type() given as a type to cast to: b's dtype")
    return node.with_changes(args=[node.args[0].with_changes(value=new_arg)])


def _written_through_detach(node: cst.Call):
    """``x.detach().mul_(d)`` as ``x.data.mul_(d)``: torch's ``detach()`` shares ``x``'s memory, so
    an in-place method on it writes ``x`` outside autograd, as one on ``x.data`` does (EMA updates,
    ``zero_module``); None for any other call (``x.detach().requires_grad_()`` marks a new leaf)."""
    func = node.func
    name = func.attr.value
    recv = func.value
    if not name.endswith("_") or name.startswith("_") or name in _NOT_WRITES or not isinstance(recv, cst.Call) \
            or recv.args or not isinstance(recv.func, cst.Attribute) or recv.func.attr.value != "detach":
        return None
    return node.with_changes(func=func.with_changes(value=attribute(recv.func.value, "data")))


_NOT_WRITES = NO_WRITE | {"detach_"}  # (detach_ on a detached alias changes no value either)


def on_method(converter, node: cst.Call):
    """``recv.name(...)``: module methods, tensor methods, in-place ops."""
    node = _written_through_detach(node) or node
    func = node.func
    recv0 = func.value
    name = func.attr.value
    recv = fit(func, "value", converter.walk(recv0))  # `(0).abs()`, not `0.abs()`
    if name in _CASTS and converter.walk_state.aliases:
        node = type_as_dtype(converter, node)
    args = converter.walk_seq(node.args)
    walked = node
    if recv is not recv0 or args is not node.args:
        walked = node.with_changes(func=func.with_changes(value=recv), args=args)
    walked = attention_inputs_by_position(converter, node, walked)
    new = layer_forward_call(converter, node, walked)
    new = attention_without_weights(converter, node, new or walked) or new
    if new is not None:
        return new
    if name == "apply" and isinstance(recv0, cst.Name) and recv0.value in converter.walk_state.function_classes \
            and converter.allows(FUNCTION_APPLY.id):
        return function_apply(converter, node, walked)
    if isinstance(recv0, cst.Name) and recv0.value in converter.facts.imported \
            and not (converter.scope is not None and recv0.value in converter.scope.shadowed) \
            or _in_target_module(converter, recv0) or installed_submodule(converter, recv0):
        return walked  # `ops.unsqueeze(...)`, `np.split(...)`, `np.linalg.norm(...)`: a module's function
    if name == "forward" and converter.in_cell and isinstance(recv0, cst.Call) and \
            isinstance(recv0.func, cst.Name) and recv0.func.value == "super" and converter.allows(FORWARD.id):
        new = walked.with_changes(func=walked.func.with_changes(attr=cst.Name("construct")))
        converter.record(node, new, FORWARD.id, "exact", "a Cell's forward is construct")
        return new
    if name in ("add_module", "register_module"):  # (register_module: torch's alias)
        track_added_child(converter, node)
    earlier = converter.earlier_receiver(name)  # converting converted code: what the first time found
    if name in _STATE_METHODS and _optimizer_like(converter, recv0):
        return walked  # an optimizer's / LR scheduler's state_dict(): MindSpore's take torch's layout
    entry = converter.facts.tables.get("Module." + name)
    if entry is not None and earlier != "Tensor" and (entry.receiver == "any" or earlier == "Module"
                                                       or is_module(converter, recv0)):
        return apply_entry(converter, walked, entry, "Module." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    if name == "forward" and _forward_of_a_module(converter, recv0, earlier) and converter.allows(FORWARD.id):
        new = walked.with_changes(func=walked.func.with_changes(attr=cst.Name("construct")))
        converter.record(node, new, FORWARD.id, "approximate",
                         f"{code_of(recv0)}.forward(...): no class of this file but a module defines forward; "
                         "a module's forward is its Cell's construct")
        return new
    if is_untyped_call(converter, node, recv0, name):
        return untyped_call(converter, node, walked, name)
    entry = converter.facts.tables.get("Tensor." + name)
    if entry is not None and entry.receiver == "any" and (earlier == "Module" or _names_a_cell(converter, recv0)):
        entry = None  # self.relu(x), self.flip(x): a sub-cell or the class's own method
    if entry is not None and (entry.receiver == "any" or earlier == "Tensor" or is_tensor(converter, recv0)
                              or entry.receiver == "param" and _param_receiver(converter, recv0, recv)
                              or converter.walk_state.aliases and (torch_keywords(node)
                                                   or torch_only_method(name, node))):
        return apply_entry(converter, walked, entry, "Tensor." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    if entry is not None and entry.untyped and not _names_a_cell(converter, recv0) \
            and not _in_target_form(entry, "Tensor." + name, node) and not _foreign_keywords(node, entry):
        converter.mark(node, "MS915", f"{name}() on {code_of(recv0)}: {entry.untyped}")
        return walked
    derived = _method_of_function(converter, name)
    if derived is not None and is_tensor(converter, recv0):
        return apply_entry(converter, walked, derived, "Tensor." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    derived = _inplace_of_out_of_place(converter, name)
    if derived is not None and (is_tensor(converter, recv0) or _untyped_name(converter, recv0)):
        return apply_entry(converter, walked, derived, "Tensor." + name, receiver=recv, receiver_before=recv0,
                           original=node)
    if name.endswith("_") and not name.startswith("_") and is_tensor(converter, recv0):
        converter.mark(node, "MS905", f"in-place tensor method {name}() has no mapping: MindSpore 2.10's "
                                 "in-place methods leave the tensor unchanged on CPU; write "
                                 f"x.copy_(x.copy().{name[:-1]}(...))")
        return walked
    return walked


_STATE_METHODS = ("state_dict", "load_state_dict")
_SCHEDULER_NAMES = ("sched", "scheduler", "lr_scheduler")


def _optimizer_like(converter, recv) -> bool:
    """An optimizer or an LR scheduler: a name the file binds to one (``opt = torch.optim.AdamW(...)``),
    or named like one (``optimizer``, ``self.opt_g``, ``lr_scheduler``, ``self.scheduler``)."""
    text = dotted(recv)
    if text is None:
        return False
    bound = converter.facts.training
    if bound is not None and text in (bound.optimizers | bound.schedulers):
        return True
    last = text.split(".")[-1].lower()
    return looks_optimizer(last) or last in _SCHEDULER_NAMES or last.endswith(("_sched", "_scheduler"))


def _param_receiver(converter, recv0, recv) -> bool:
    """A receiver that may be a Parameter: as written, or once converted (``data.cpu()`` is
    ``data``: torch's identity methods return the tensor itself, and converting the converted
    code must decide as the first conversion did)."""
    return any(is_param(r) or _untyped_name(converter, r) for r in (recv0, recv))


def _inplace_of_out_of_place(converter, name: str):
    """The in-place entry of ``x.op_(...)`` derived from the table's ``Tensor.op`` when that is a
    plain mapping (a target and argument fates, no rule): torch's ``op_`` is ``op`` written into
    the receiver, so the ``inplace`` rule (MS170) writes ``x.copy_(x.copy().op(...))`` with it.
    None when the name is not such a method or ``op`` needs a rule of its own."""
    if not name.endswith("_") or name.startswith("_") or name.endswith("__"):
        return None
    plain = converter.facts.tables.get("Tensor." + name[:-1])
    if plain is None or plain.rule is not None or plain.template is not None or not plain.target \
            or plain.label == "unsupported":
        return None
    return dataclasses.replace(plain, torch="Tensor." + name, rule="inplace", id="MS170")


def _method_of_function(converter, name: str):
    """The entry of a tensor method ``x.op(...)`` that the tables map only as the function
    ``torch.op(input, ...)`` (``alphas.cumprod(dim=0)``): torch documents each such method as the
    function with the tensor as ``input``, so the function's plain mapping (a target and argument
    fates, no rule) serves with the receiver in the first place. None when torch has no such
    method, the tables map the method themselves, or the function needs a rule."""
    tables = converter.facts.tables
    if name.startswith("_") or "Tensor." + name in tables or name not in _TORCH_TENSOR_METHODS:
        return None
    plain = tables.get("torch." + name)
    if plain is None or plain.rule is not None or plain.template is not None or not plain.target \
            or plain.label == "unsupported" or not plain.params or plain.params[0].name != "input":
        return None
    args = {k: v for k, v in plain.args.items() if k != "input"}
    return dataclasses.replace(plain, torch="Tensor." + name, params=plain.params[1:], args=args, receiver="tensor")


def _layer_attrs_view(node) -> bool:
    """``TorchLayerAttrs(x)``: an earlier conversion's run-time read (converting again keeps it)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
        and node.func.value.startswith("TorchLayerAttrs")


def _decided_by_earlier_conversion(converter, node) -> bool:
    """``self.<layer>`` in a class an earlier conversion made a Cell: that conversion knew the
    layers the class assigns and wrote their attribute reads (converting again keeps them)."""
    scope = converter.class_scope
    return scope is not None and scope.converted and isinstance(node, cst.Attribute) \
        and isinstance(node.value, cst.Name) and node.value.value == "self"


def _untyped_name(converter, node) -> bool:
    """A plain name of no known type (``def init_(t): t.uniform_(-1, 1)``). The tensor
    initialisers (``uniform_``, ``normal_``, ``zero_``, ``fill_``) and in-place methods such as
    ``triu_`` are read as written on a tensor there: torch's names, and MindSpore 2.10's own
    methods of those names have no CPU kernel or leave the tensor unchanged."""
    return isinstance(node, cst.Name) and not type_of(converter, node) and not _names_a_cell(converter, node)


def _foreign_keywords(call: cst.Call, entry) -> bool:
    """Whether ``call`` passes a keyword torch's method does not take (``x.std(ddof=1)``): a
    converted call, or another library's method, not torch's."""
    torch_names = {p.name for p in entry.params or ()}
    return any(a.keyword is not None and a.keyword.value not in torch_names for a in call.args)


def _names_a_cell(converter, node) -> bool:
    """``self``, or a name or attribute known to hold a module."""
    return isinstance(node, cst.Name) and node.value == "self" or is_module(converter, node)


# --------------------------------------------------------------------------------------------
# attributes
# --------------------------------------------------------------------------------------------
# torch tensors' "am I on this accelerator" attributes
_ACCELERATOR_QUERIES = ("is_cuda", "is_xpu", "is_mps", "is_xla", "is_ipu", "is_mtia", "is_maia")


def _finfo_number(converter, node: cst.Attribute, value):
    """Apply MS354 to ``torch.finfo(dt).max`` (``value``: the converted ``torch.finfo(dt)``), or None."""
    attr = node.attr.value
    if attr not in _FINFO_FLOATS or not isinstance(node.value, cst.Call) \
            or converter.qual(node.value.func) != "torch.finfo" or not converter.allows(DTYPE_INFO_NUMBER.id):
        return None
    new = cst.Call(parse_expr(converter.builtin("float")), [cst.Arg(node.with_changes(value=value))])
    converter.record(node, new, DTYPE_INFO_NUMBER.id, "exact", f"torch.finfo(...).{attr} is a Python float")
    return new


def on_plain_attribute(converter, node: cst.Attribute):
    """``x.weight`` where x is a known BatchNorm/LayerNorm/Embedding: MindSpore parameter names;
    ``.values``/``.indices`` of torch's named tuples; a tensor's ``.data``/``.device``."""
    value = fit(node, "value", converter.walk(node.value))
    attr = node.attr.value
    new = layer_attribute(converter, node, value) or _forward_as_value(converter, node, value) \
        or _finfo_number(converter, node, value)
    if new is not None:
        return new
    if attr == "apply" and isinstance(node.value, cst.Name) \
            and node.value.value in converter.walk_state.function_classes \
            and converter.allows(FUNCTION_APPLY.id):  # `sparsemax = Sparsemax.apply`: a Cell instance calls alike
        new = cst.Call(value)
        converter.record(node, new, FUNCTION_APPLY.id, "exact", "a Cell with bprop is called, not applied")
        return new
    walk = converter.walk_state
    if (attr in LAYER_ATTR_NAMES or attr in LAYER_GEOMETRY and not known_layer(converter, node.value)) \
            and walk.aliases and not walk.storing \
            and converter.allows(LAYER_ATTR_AT_RUN_TIME.id) \
            and not (isinstance(node.value, cst.Name) and node.value.value == "self") \
            and not is_tensor(converter, node.value) \
            and not _layer_attrs_view(node.value) \
            and not _decided_by_earlier_conversion(converter, node.value):
        # a layer of a class unknown here (model.fc.in_features): the name is torch's, decided
        # at run time (a user's own in_features is kept)
        helper = converter.output.signatures.helper("TorchLayerAttrs")
        new = cst.Attribute(cst.Call(cst.Name(helper), [cst.Arg(value)]), cst.Name(attr))
        held = (f"as {LAYER_ATTR_NAMES[attr]}" if attr in LAYER_ATTR_NAMES
                else "2-D in a 1-D convolution, (1, k)")
        converter.record(node, new, LAYER_ATTR_AT_RUN_TIME.id, "transformed",
                         f"{attr}: MindSpore's layer holds it {held}; the receiver's class is known at run "
                         f"time only")
        return new
    if attr in _MODULE_TABLES and converter.walk_state.aliases and converter.allows(MODULE_TABLES.id) \
            and not is_tensor(converter, node.value):
        # the names are torch.nn.Module's own (private): any receiver with them is a module
        new = node.with_changes(value=value, attr=cst.Name(_MODULE_TABLES[attr]))
        converter.record(node, new, MODULE_TABLES.id, "exact",
                    f"a Cell keeps its {'children' if attr == '_modules' else 'parameters'} in "
                    f"{_MODULE_TABLES[attr]} (an OrderedDict by name, in the order they were added)")
        return new
    if attr in ("values", "indices") and isinstance(node.value, cst.Call) \
            and converter.allows(NAMED_TUPLE_FIELD.id):
        new = named_tuple_field(converter, node, value)
        if new is not None:
            return new
    if attr in ("real", "imag") and walk.aliases and converter.allows(COMPLEX_PARTS.id) \
            and is_tensor(converter, node.value):
        new = cst.Call(converter.target(f"ops.{attr}"), [cst.Arg(value)])
        converter.record(node, new, COMPLEX_PARTS.id, "exact",
                         f"a tensor's .{attr} is ops.{attr} (a method in MindSpore)")
        return new
    if attr == "type" and isinstance(node.value, cst.Attribute) and node.value.attr.value == "device" \
            and walk.aliases and not walk.storing and converter.allows(TENSOR_ATTRIBUTE.id):
        # x.device.type == "mps" (demucs): a torch device's kind; MindSpore tensors have no torch
        # device (x.device is a string there), and the converted code runs where a CPU torch would
        new = cst.SimpleString('"cpu"')
        converter.record(node, new, TENSOR_ATTRIBUTE.id, "transformed",
                         "a torch device's type: 'cpu' (MindSpore places tensors by its context, not by torch "
                         "devices: code that branches on cuda/mps takes the CPU path)")
        return new
    if attr in ("device", "data", *_ACCELERATOR_QUERIES) and converter.walk_state.aliases \
            and converter.allows(TENSOR_ATTRIBUTE.id) and is_tensor(converter, node.value):
        if attr in _ACCELERATOR_QUERIES:
            new = cst.Name("False")
            converter.record(node, new, TENSOR_ATTRIBUTE.id, "transformed",
                        f"`.{attr}` is False: MindSpore tensors live on the context's device, not on "
                        "a torch accelerator (as torch.cuda.is_available() is translated)")
            return new
        if attr == "device":
            new = cst.Name("None")
            converter.record(node, new, TENSOR_ATTRIBUTE.id, "exact", "tensors have no device in MindSpore: "
                                                                 "set_context(device_target=...) decides")
            return new
        converter.record(node, value, TENSOR_ATTRIBUTE.id, "exact",
                    "`.data` is not needed: nothing is recorded outside grad")
        return value
    return node if value is node.value else node.with_changes(value=value)


def removed_parameter(converter, node: cst.Del) -> None:
    """Mark (MS921) ``del m._parameters[k]`` in a torch file: torch code removes a parameter to set a
    computed tensor under its name (torchnlp's weight drop: ``setattr(m, 'weight_hh_l0', dropout(raw))``
    before each forward), which torch's RNN layers read through their flat-weights list; MindSpore's
    RNN layers read their ParameterTuples and an Embedding its embedding_table, so the tensor is not
    used there and the model computes with the removed parameter, silently."""
    target = node.target
    if converter.walk_state.aliases and isinstance(target, cst.Subscript) \
            and isinstance(target.value, cst.Attribute) and target.value.attr.value == "_parameters":
        converter.mark(node, "MS921", f"del {code_of(target)}: a tensor set in the parameter's place is read by "
                                      "torch's layers; MindSpore's RNN layers read their weights from "
                                      "w_ih_list / w_hh_list, an Embedding from embedding_table (nn.Dense and "
                                      "nn.Conv2d read self.weight): check that the layer reads it, or compute with "
                                      "the tensor explicitly")


def named_tuple_field(converter, node: cst.Attribute, value):
    """Apply MS137 to ``call(...).values``/``.indices`` (``value``: the call converted), or None."""
    func = node.value.func
    q = converter.qual(func)
    name = q.rsplit(".", 1)[-1] if q else (func.attr.value if isinstance(func, cst.Attribute) else None)
    converted = value is not node.value
    if name not in _VALUES_INDICES or not converted:  # an unconverted torch call keeps .values
        return None
    index = "0" if node.attr.value == "values" else "1"
    new = cst.Subscript(value=value, slice=[cst.SubscriptElement(cst.Index(cst.Integer(index)))])
    converter.record(node, new, NAMED_TUPLE_FIELD.id, "exact",
                f"MindSpore's {name} returns a plain tuple (values, indices)")
    return new


# --------------------------------------------------------------------------------------------
# statements
# --------------------------------------------------------------------------------------------
def complex_part_target(converter, node, targets) -> bool:
    """Mark (MS905) an assignment to ``t.real`` / ``t.imag`` of a tensor (torch writes into the
    complex tensor; MindSpore's real/imag are methods, and ops.real(t) is a copy): True when
    marked, and the statement is then left as written."""
    for target in targets:
        if isinstance(target, cst.Attribute) and target.attr.value in ("real", "imag") \
                and converter.walk_state.aliases and is_tensor(converter, target.value):
            converter.mark(node, "MS905", f"assigning to {code_of(target)}: torch writes into the complex "
                                     "tensor, MindSpore has no such view; build it with ops.Complex(real, imag)")
            return True
    return False


def on_assign(converter, node: cst.Assign):
    """Note what the assignment binds, then convert it."""
    track_assign(converter, node)
    if complex_part_target(converter, node, [t.target for t in node.targets]):
        return node
    if converter.walk_state.aliases and flag_assignment(converter, node):
        return None  # `torch.backends.cudnn.benchmark = True`: no meaning on the target
    geometry = conv_geometry_write(converter, node)
    if geometry is not None:
        return geometry
    if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        note_layer_class(converter, node.targets[0].target.value, node.value)
    # ``self.x = nn.Parameter(...)`` keeps its name; register_buffer etc. are method rules
    if not any(_binds_names_only(t.target) for t in node.targets):
        return converter.generic(node)
    # `nn = Net()`: a name that is a torch alias is bound here, not read
    value = converter.walk(node.value)
    value = load_into_module(converter, node, value) or value
    targets = [t if _binds_names_only(t.target) else converter.walk(t) for t in node.targets]
    if converter.facts.may_rebind and converter.at_module_top:
        converter.rebind_at_module_top(node)
    if value is node.value and all(a is b for a, b in zip(targets, node.targets)):
        return node
    return node.with_changes(targets=targets, value=value)


def _binds_names_only(target) -> bool:
    """``a`` or ``a, (b, *c)``: names only (no attribute or subscript to read)."""
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_binds_names_only(el.value) for el in target.elements)
    return isinstance(target, cst.StarredElement) and _binds_names_only(target.value)


def _annotated_kind(converter, annotation) -> str | None:
    """The torch type an annotation names; the target's ``nn.Cell`` / ``ms.Tensor`` (already
    converted code) count as torch's ``nn.Module`` / ``torch.Tensor``, so a second conversion
    types the parameter as the first did."""
    kind = converter.qual(annotation)
    entry = converter.facts.tables.get(kind) if kind is not None else None
    if entry is not None and entry.target == "ms.Tensor":
        return "torch.Tensor"  # torch.LongTensor, torch.FloatTensor...: converted to ms.Tensor as well
    if kind is None:
        text = code_of(annotation)
        if text == f"{converter.facts.names['nn']}.Cell" and converter.facts.names["nn"] in converter.facts.imported:
            return "torch.nn.Module"
        if text == f"{converter.facts.names['ms']}.Tensor" and converter.facts.names["ms"] in converter.facts.imported:
            return "torch.Tensor"
    return kind


def generic_origin(base):
    """``Base`` for a base written ``Base[T]`` (a generic class: ``class Encoder(EncoderModule[C])``,
    ``class M(nn.Module, Generic[T])``): the subscript parametrises the class, it is still ``Base``."""
    return base.value if isinstance(base, cst.Subscript) else base


def on_class(converter, node: cst.ClassDef):
    """A class: a Cell when it derives from a module; an autograd.Function becomes one (MS131)."""
    bases = [generic_origin(b.value) for b in node.bases]
    cell = any(_is_cell_base(converter, b) for b in bases)
    fn = any(converter.qual(b.value) in _FUNCTION_BASES for b in node.bases)
    if not cell and not fn and _defines_forward(node) and converter.allows(ASSUMED_CELL.id) and any(
            isinstance(b, (cst.Name, cst.Attribute)) and converter.qual(b) is None
            and dotted(b) not in ("object", "Generic", "typing.Generic", "Protocol", "typing.Protocol", None)
            and not _outside_target_nn(converter, b)
            for b in bases):
        # a subclass of a class from another file (`class Head(ConvBN)`) that defines forward:
        # in a torch file that is a module; say so, since the base is not visible here
        cell = True
        converter.record(node.bases[0].value, node.bases[0].value, ASSUMED_CELL.id, "approximate",
                    f"{node.name.value} assumed to be an nn.Module subclass (defines forward; "
                    "its base is defined elsewhere)")
    if cell:
        converter.walk_state.cell_classes.add(node.name.value)
    if any(converter.qual(b.value) == "torch.nn.Sequential" or
           (isinstance(b.value, cst.Name) and b.value.value in converter.walk_state.sequential_classes)
           for b in node.bases):
        converter.walk_state.sequential_classes.add(node.name.value)
    attrs = converter.walk_state.class_attrs.setdefault(node.name.value, {})
    decorators = [d for d in node.decorators if not removed_decorator(converter, d)]
    if len(decorators) != len(node.decorators):
        node = node.with_changes(decorators=decorators)  # @torch.jit.script / @torch.jit.interface
        converter.output.reshaped = True
    optimizer = any(converter.qual(b.value) in OPTIMIZER_BASES for b in node.bases)
    if optimizer:
        node = optimizer_bases(converter, node)
    torch_base = layer_base(converter, node)
    if torch_base is not None:
        converter.walk_state.layer_bases[node.name.value] = torch_base
    converted = any(_is_target_cell(converter, b.value) for b in node.bases)
    recompute = converter.facts.recompute or NOTHING
    with converter.in_class(ClassScope(node.name.value, cell, fn, attrs, torch_base, converted, optimizer)):
        if fn and node.name.value in recompute.functions:
            new = rewrite_recomputed(converter, node)
            if new is not None:
                return new
        if fn and converter.allows(AUTOGRAD_FUNCTION.id):
            return rewrite_function_class(converter, node)
        if cell and node.name.value in recompute.blocks:
            return rewrite_block(converter, node) or converter.generic(node)
        return converter.generic(node)


def _is_cell_base(converter, base) -> bool:
    q = converter.qual(base)
    if q is None:
        if dotted(base) in MODULE_BASES.get():
            return True  # a module class of another file of the tree (package_classes)
        # a class of this file, or the runtime's torch-signature layer (converted code converted again)
        return isinstance(base, cst.Name) and (base.value in converter.walk_state.cell_classes
                                               or base.value in converter.facts.runtime_layers)
    return is_layer_class(q) or q == "torch.nn.Module" or q in einops_calls.LAYERS


def _forward_of_a_module(converter, recv0, earlier) -> bool:
    """``recv0.forward(...)`` on a receiver the walk cannot type (``self.net`` chosen from a
    variable) in a torch file: in torch code an object with a forward is a module, unless a class
    of the file that is not one defines forward, or the receiver is a tensor or an autograd
    Function (its forward is a static method: rules.autograd_function)."""
    if not converter.walk_state.aliases or converter.facts.plain_forwards or earlier == "Tensor":
        return False
    if isinstance(recv0, cst.Name) and recv0.value in converter.walk_state.function_classes:
        return False
    return not is_tensor(converter, recv0)


def _forward_of_a_module_as_value(converter, recv0) -> bool:
    """``recv0.forward`` read or assigned (not called) where ``recv0`` is a module: known to be
    one, or untyped in a torch file where no plain class defines forward (as for a call)."""
    if not converter.walk_state.aliases or not converter.allows(FORWARD.id):
        return False
    if is_module(converter, recv0):
        return True
    if isinstance(recv0, cst.Name) and recv0.value == "self":
        return False  # self of a plain class
    return _forward_of_a_module(converter, recv0, None)


def _forward_as_value(converter, node: cst.Attribute, value) -> cst.Attribute | None:
    """``m.forward`` read or assigned, not called, on a module (``value``: ``m`` converted):
    ``m.construct``; None otherwise."""
    if node.attr.value != "forward" or not _forward_of_a_module_as_value(converter, node.value):
        return None
    new = node.with_changes(value=value, attr=cst.Name("construct"))
    converter.record(node, new, FORWARD.id, "exact" if is_module(converter, node.value) else "approximate",
                     f"{code_of(node)} as a value: a Cell's forward is its construct, which its call runs")
    return new


# builtins that name an attribute by a string: setattr(m, 'forward', f) is m.forward = f
_ATTRIBUTE_FUNCTIONS = ("setattr", "getattr", "hasattr", "delattr")


def _forward_by_name(converter, node: cst.Call) -> cst.Call:
    """``setattr(m, 'forward', f)`` / ``getattr(m, 'forward')`` on a module (see
    :func:`_forward_of_a_module_as_value`): the name ``'construct'``; ``node`` itself otherwise."""
    args = node.args
    if len(args) < 2 or any(a.keyword is not None or a.star for a in args[:2]) \
            or not isinstance(args[1].value, cst.SimpleString) or args[1].value.evaluated_value != "forward" \
            or not _forward_of_a_module_as_value(converter, args[0].value):
        return node
    quote = args[1].value.quote
    new = node.with_changes(args=[args[0], args[1].with_changes(value=cst.SimpleString(f"{quote}construct{quote}")),
                                  *args[2:]])
    converter.record(node, new, FORWARD.id, "exact" if is_module(converter, args[0].value) else "approximate",
                     f"{node.func.value}(..., 'forward'): a Cell's forward is its construct, which its call runs")
    return new


_PLAIN_CLASS = re.compile(r"^[ \t]*class[ \t]+\w+[ \t]*(?:\([ \t]*(?:object[ \t]*)?\)[ \t]*)?:", re.M)


def defines_plain_forward(module: cst.Module, code: str) -> bool:
    """Whether a class of the file (at any depth) that names no base, or only ``object``,
    defines forward: such a class stays a plain class, and its forward keeps its name."""
    if "forward" not in code or not _PLAIN_CLASS.search(code):
        return False  # the text settles it without a walk of the tree
    try:
        # the input's ast, parsed already for the statement spans: its statements alone are
        # walked (a libcst visitor over the whole tree was 8 % of a conversion)
        return any(_plain_with_forward(st) for st in ast_statements(python_ast(code).body)
                   if isinstance(st, ast.ClassDef))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass  # what CPython's parser refuses and libcst's accepts
    found = False

    class _Visitor(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            nonlocal found
            if all(dotted(b.value) == "object" for b in node.bases) and _defines_forward(node):
                found = True

    module.visit(_Visitor())
    return found


def _plain_with_forward(node: ast.ClassDef) -> bool:
    """``node`` names no base but ``object`` (keywords aside) and defines forward in its body."""
    return all(isinstance(b, ast.Name) and b.id == "object" for b in node.bases) and any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "forward" for s in node.body)


def _is_target_cell(converter, base) -> bool:
    """``nn.Cell`` / ``ms_nn.Cell`` / ``ms.nn.Cell``: a Cell of a module the file imports that is
    not torch's (torch has no Cell), so the target's: converted code."""
    text = dotted(base)
    if text is None or not text.endswith(".Cell"):
        return False
    root = text.split(".", 1)[0]
    return root in converter.facts.imported and root not in converter.walk_state.aliases


def _outside_target_nn(converter, base) -> bool:
    """``ms.dataset.vision.RandomHorizontalFlip``: a class the file reaches through its import of
    the target, outside the target's nn (what a first conversion wrote for torchvision's
    transform): known not to be a Cell, never a class of another file assumed to be one."""
    text, ms = dotted(base), converter.facts.names.get("ms")
    return bool(text) and bool(ms) and ms in converter.facts.imported and ms not in converter.walk_state.aliases \
        and text.startswith(f"{ms}.") and not text.startswith(f"{ms}.nn.")


def _defines_forward(node: cst.ClassDef) -> bool:
    return isinstance(node.body, cst.IndentedBlock) and any(
        isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in node.body.body)


def on_function(converter, node: cst.FunctionDef):
    """A function: its own scope (a Cell's forward knows its inputs are tensors)."""
    scope = FunctionScope(local_names=function_locals(node), node=node)
    scope.owned = owned_tensors(node, ALIASING_METHODS, converter.qual)
    scope.shadowed = converter.facts.imported & scope.local_names
    params = [p.name.value for p in node.params.params]
    if converter.in_cell and node.name.value in ("forward", "construct"):
        scope.tensors.update(params[1:])
        scope.forward = True
    for p in list(node.params.params) + list(node.params.kwonly_params):
        ann = p.annotation
        kind = _annotated_kind(converter, ann.annotation) if ann is not None else None
        if kind == "torch.Tensor":
            scope.tensors.add(p.name.value)
        elif kind == "torch.nn.Module":
            scope.modules.add(p.name.value)  # def f(net: nn.Module): net.eval()
        if p.default is not None:
            with converter.in_function(scope):
                note_layer_class(converter, p.name.value, p.default)
    owner = converter.class_scope if converter.in_class_body else None
    scope.grad_off = owner is not None and owner.optimizer or \
        any(turns_grad_off(converter, d.decorator) for d in node.decorators)
    decorators = [_grad_mode_decorator(converter, d) for d in node.decorators
                  if not (_value_free(converter, d.decorator) or removed_decorator(converter, d))]
    if len(decorators) != len(node.decorators) or any(a is not b for a, b in zip(decorators, node.decorators)):
        node = node.with_changes(decorators=decorators)
        converter.output.reshaped = True
    with converter.in_function(scope), converter.without_aliases(converter.rebound_in(node)):
        new = converter.generic(node)
    if scope.settled:  # `device = None` where a device was: gone if nothing reads it
        new = tidy_function(new, converter.facts.shadowed)
    body = converter.drop_nested_imports(new.body)
    if body is not new.body:
        new = new.with_changes(body=body)
    if converter.in_cell and node.name.value == "__init__":
        new = parameter_paths(converter, node, new)
    if converter.in_cell and node.name.value == "forward" and converter.allows(FORWARD.id) and \
            not any(dotted(d.decorator) == "staticmethod" for d in node.decorators):
        # (a static forward(ctx, ...) is an autograd.Function's, kept by a TorchFunction Cell)
        new = new.with_changes(name=cst.Name("construct"))
        converter.record("def forward", "def construct", FORWARD.id, "exact", "a Cell's forward is construct")
    return new


def _grad_mode_decorator(converter, dec: cst.Decorator) -> cst.Decorator:
    """Apply MS106: a grad-mode class used bare as a decorator (``@torch.no_grad``) is called, as
    torch does (``@torch.no_grad()``); the tables convert the call (``@torch_no_grad()``), a context
    decorator on MindSpore too."""
    expr = dec.decorator
    if isinstance(expr, cst.Call) or converter.qual(expr) not in NO_GRAD_CALLS or not converter.allows(NO_GRAD.id):
        return dec
    new = dec.with_changes(decorator=cst.Call(expr))
    converter.record(expr, new.decorator, NO_GRAD.id, "exact", "the grad-mode context torch makes of a bare decorator")
    return new


def turns_grad_off(converter, expr) -> bool:
    """``expr`` (a ``with`` item or a decorator, as written) is a grad-mode context that turns
    recording off: ``torch.no_grad()``, ``@torch.no_grad``, ``torch.inference_mode()``,
    ``torch.set_grad_enabled(False)``."""
    call = expr if isinstance(expr, cst.Call) else None
    q = converter.qual(call.func if call is not None else expr)
    args = call.args if call is not None else ()
    if q in _GRAD_OFF_CALLS:
        return all(code_of(a.value) == "True" for a in args)
    return q in ("torch.set_grad_enabled", "torch.autograd.set_grad_enabled") and len(args) == 1 \
        and code_of(args[0].value) == "False"


def _value_free(converter, expr) -> bool:
    """A context that changes no value of the converted code: recorded as removed (MS169).

    ``safe_globals`` lists the classes ``torch.load`` may unpickle (checkpoints hold no code).
    ``sdp_kernel``/``sdpa_kernel`` pick which kernel computes scaled-dot-product attention (flash,
    memory-efficient, math): the same function, rounding apart. ``autocast(enabled=False)`` runs
    its block in the inputs' own dtypes, which converted code always does: torch's autocast
    regions are not translated (they stay marked), so there is none to switch off.
    """
    if not isinstance(expr, cst.Call) or not converter.allows(FREE_CONTEXT.id):
        return False
    q = converter.qual(expr.func)
    if q in _KERNEL_CONTEXTS:
        converter.record(expr, "", FREE_CONTEXT.id, "approximate",
                    "attention-kernel choice removed: every kernel computes the same attention "
                    "(up to float rounding)")
        return True
    if q in _UNPICKLING_CONTEXTS:
        converter.record(expr, "", FREE_CONTEXT.id, "exact",
                    "the classes torch.load may unpickle: checkpoints hold parameters only, no code")
        return True
    disabled = any(a.keyword is not None and a.keyword.value == "enabled" and code_of(a.value) == "False"
                   for a in expr.args)
    if q in _AUTOCAST and disabled:
        converter.record(expr, "", FREE_CONTEXT.id, "exact",
                    "autocast(enabled=False) removed: the block runs in its inputs' dtypes, as all "
                    "converted code does")
        return True
    return False


def on_with(converter, node: cst.With):
    """Apply MS169 to value-free contexts and MS254 to ``with torch.device(d):`` (the block is
    unwrapped: a list of statements). Grad-mode contexts (``torch.no_grad()``) stay: the tables
    convert them (``torch_no_grad()``, the runtime's: MindSpore's grad mode, which stops gradients
    inside ms.grad)."""
    keep = []
    for item in node.items:
        e = item.item
        q = converter.qual(e.func) if isinstance(e, cst.Call) else None
        if item.asname is None and _value_free(converter, e):
            continue
        if q == "torch.device" and item.asname is None and converter.allows(DEVICE_CONTEXT.id):
            converter.record(e, "", DEVICE_CONTEXT.id, "exact", "device block unwrapped: MindSpore places "
                                                           "tensors by set_context(device_target=...)")
            continue
        keep.append(item)
    if keep:
        scope = converter.scope
        grad_off = scope is not None and scope.grad_off
        if scope is not None and any(turns_grad_off(converter, item.item) for item in keep):
            scope.grad_off = True
        try:
            new = converter.generic(node.with_changes(items=keep))
        finally:
            if scope is not None:
                scope.grad_off = grad_off
        if len(keep) != len(node.items):
            new = new.with_changes(items=[*new.items[:-1], new.items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        return new
    body = converter.walk(node.body)
    if isinstance(body, cst.SimpleStatementSuite):
        stmts = [cst.SimpleStatementLine(list(body.body))]
    else:
        stmts = list(body.body)
    header = node.body.header.comment if isinstance(node.body, cst.IndentedBlock) else None
    lead = [*node.leading_lines, *([cst.EmptyLine(comment=header)] if header is not None else [])]
    if lead:  # (the comment on the `with` line too: `with torch.no_grad():  # evaluation`)
        stmts[0] = stmts[0].with_changes(leading_lines=[*lead, *stmts[0].leading_lines])
    converter.output.reshaped = True
    return stmts


def on_for(converter, node: cst.For):
    """Apply MS104 to ``for m in net.modules():``."""
    it = node.iter
    if (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and not it.args
            and it.func.attr.value == "modules" and isinstance(node.target, cst.Name)
            and (is_module(converter, it.func.value) or converter.walk_state.aliases)
            and converter.allows(MODULES_LOOP.id)):
        recv = converter.walk(it.func.value)
        new_iter = it.with_changes(func=it.func.with_changes(value=recv, attr=cst.Name("cells_and_names")))
        new_target = cst.Tuple([cst.Element(cst.Name("_")), cst.Element(node.target)], lpar=[], rpar=[])
        converter.record(it, new_iter, MODULES_LOOP.id, "exact", "cells_and_names() yields (name, cell) pairs")
        node = node.with_changes(iter=new_iter, target=new_target)
        return node.with_changes(body=converter.walk(node.body),
                                 orelse=converter.walk(node.orelse) if node.orelse else None)
    name, kinds = _loop_item(converter, node)
    scope = converter.scope
    if kinds is None or scope is None:
        return converter.generic(node)
    old = scope.narrow.get(name)
    scope.narrow[name] = kinds  # `for m in self.blocks: m.weight`: m is an item of the container
    try:
        return converter.generic(node)
    finally:
        if old is None:
            scope.narrow.pop(name, None)
        else:
            scope.narrow[name] = old


def _loop_item(converter, node: cst.For) -> tuple[str | None, list | None]:
    """(the loop variable, its torch layer classes) for ``for m in self.items``, ``for i, m in
    enumerate(self.items)`` or ``for m in self.table.values()`` over a container whose items are all one class,
    the container an attribute of self or a local (``tables = nn.ModuleDict({...})``); (None, None) else."""
    it, target = node.iter, node.target
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate" \
            and len(it.args) == 1 and isinstance(target, cst.Tuple) and len(target.elements) == 2:
        it, target = it.args[0].value, target.elements[1].value
    if isinstance(it, cst.Call) and not it.args and isinstance(it.func, cst.Attribute) \
            and it.func.attr.value == "values":
        it = it.func.value  # a ModuleDict's values
    if not isinstance(target, cst.Name):
        return None, None
    if isinstance(it, cst.Name) and converter.scope is not None:
        kind = converter.scope.layers.get(f"{it.value}[]")
    elif isinstance(it, cst.Attribute) and is_self(converter, it.value) and converter.class_scope:
        kind = converter.walk_state.class_attrs.get(converter.class_scope.name, {}).get(f"{it.attr.value}[]")
    else:
        kind = None
    kinds = [kind] if kind is not None else None
    if kinds is None and isinstance(it, cst.Attribute):
        # self.tables, bound to another module's function's ModuleDict of Embeddings (the tree's classes)
        kinds = tree_items(it.attr.value) or None
    return (target.value, kinds) if kinds is not None else (None, None)


def on_if(converter, node: cst.If):
    """Track ``isinstance(m, nn.BatchNorm2d)`` so ``m.weight`` becomes ``m.gamma`` inside."""
    test = node.test
    scope = converter.scope
    narrowed = old = None
    if (scope is not None and isinstance(test, cst.Call) and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance" and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)):
        quals = narrowing_classes(converter, test.args[1].value)
        if quals:
            narrowed = test.args[0].value.value
            old = scope.narrow.get(narrowed)
            scope.narrow[narrowed] = quals
    try:
        new_test = converter.walk(node.test)
        new_body = converter.walk(node.body)
    finally:
        if narrowed is not None:
            if old is None:
                scope.narrow.pop(narrowed, None)
            else:
                scope.narrow[narrowed] = old
    new_else = converter.walk(node.orelse) if node.orelse is not None else None
    if isinstance(new_else, list):  # an elif whose test the conversion settled: the branch that runs
        new_else = cst.Else(body=cst.IndentedBlock(body=new_else)) if new_else else None
    if new_test is not node.test or new_body is not node.body or new_else is not node.orelse:
        return node.with_changes(test=new_test, body=new_body, orelse=new_else)
    return node
