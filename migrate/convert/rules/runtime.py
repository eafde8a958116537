"""Rules for torch's run-time plumbing (mappings/runtime.toml): TorchScript and compilation,
device queries and settings, backend flags.

Argument rules have the one signature ``apply(edit) -> None``; the node rules here are applied by
handlers: decorators that are removed, ``torch.jit.Final[T]`` annotations, assignments to backend
flags.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import parse_expr
from migrate.convert.registry import argument_rule, node_rule

REMOVED_DECORATOR = node_rule(
    "MS188", "removed_decorator",
    "Replace @torch.jit.script / @torch.compile / @torch.jit.ignore ... def f with def f (runs as Python).", examples=[
    ("@torch.jit.script\n"
     "def f(x):\n"
     "    return x\n",
     "def f(x):\n"
     "    return x\n"),
])

# the rules whose entries are removed when used as decorators
_DECORATOR_RULES = ("passthrough", "registration")

# torch namespaces whose decorators only register the function with torch's own machinery (ONNX
# export, custom-op libraries, TorchDynamo, FX tracing, TorchScript): the function runs as Python,
# so a decorator from them that no table entry names is removed too (``@parse_args("v", "f")`` on
# torchvision's ONNX symbolics, ``@torch.fx._compatibility.compatibility(...)``)
REGISTRATION_NAMESPACES = {
    "torch.onnx.": "ONNX export", "torch.library.": "torch's custom-op library",
    "torch._library.": "torch's custom-op library", "torch._custom_ops.": "torch's custom-op library",
    "torch.fx.": "FX symbolic tracing", "torch._dynamo.": "TorchDynamo", "torch.compiler.": "torch.compile",
    "torch.jit.": "TorchScript", "torch._jit_internal.": "TorchScript",
}


@argument_rule("MS193", "passthrough", examples=[
    ("y = torch.jit.script(f)\n",
     "y = f\n"),
    ("torch.fx.wrap('roi_align')\n",
     "\n"),
])
def passthrough(edit) -> None:
    """Replace torch.jit.script(f) / torch.compile(m) / torch.jit.trace(f, x) with f / m (a
    statement of its own, ``torch.fx.wrap("name")``, goes)."""
    if edit.converter.walk_state.statement_call is edit.original:
        edit.result = cst.Name("None")  # the statement goes
        return
    first = next((a for a in edit.call.args if a.keyword is None and not a.star), None)
    if first is None:
        edit.unsupported("no function or module given to it (decorator arguments?)")
        return
    edit.result = first.value


@argument_rule("MS239", "registration", examples=[
    ("torch.onnx.register_custom_op_symbolic('torchvision::nms', f, 11)\n",
     "\n"),
    ("torch._C._log_api_usage_once('mypkg.models')\n",
     "\n"),
])
def registration(edit) -> None:
    """Replace torch.onnx.register_custom_op_symbolic(...) / torch.library.register_autograd(...) /
    torch._C._log_api_usage_once(...) (a registration with torch's own machinery, run at import)
    with nothing: the statement goes, as a decorator it is removed; a value it returns is marked."""
    if edit.converter.walk_state.statement_call is edit.original:
        edit.result = cst.Name("None")
        return
    edit.unsupported("the value a registration with torch's machinery returns has no MindSpore "
                     "counterpart (as a statement or a decorator it is removed)", "MS901")


@argument_rule("MS194", "no_op", examples=[
    ("torch.cuda.synchronize()\n",
     "\n"),
])
def no_op(edit) -> None:
    """Replace torch.cuda.manual_seed_all(s) / torch.cuda.synchronize() with nothing (the
    statement goes; used as a value: None)."""
    edit.result = cst.Name("None")


@argument_rule("MS195", "zero", examples=[
    ("n = torch.cuda.device_count()\n",
     "n = 0\n"),
])
def zero(edit) -> None:
    """Replace torch.cuda.device_count() with 0 (no torch device on the target)."""
    edit.result = cst.Integer("0")


@argument_rule("MS235", "no_cuda_device", needs=["torch_no_cuda"], examples=[
    ("name = torch.cuda.get_device_name(0)\n",
     "name = torch_no_cuda('torch.cuda.get_device_name', 0)\n"),
])
def no_cuda_device(edit) -> None:
    """Replace torch.cuda.get_device_properties(d) / get_device_name() / current_device() with
    torch_no_cuda('torch.cuda.get_device_properties', d), which raises as torch does without a
    CUDA device (torch.cuda.is_available() is False on the target)."""
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in edit.call.args]
    edit.result = cst.Call(cst.Name(edit.helper("torch_no_cuda")),
                           [cst.Arg(cst.SimpleString(repr(edit.entry.torch))), *args])


@argument_rule("MS197", "none_value", examples=[
    ("d = torch.accelerator.current_accelerator()\n",
     "d = None\n"),
])
def none_value(edit) -> None:
    """Replace torch.accelerator.current_accelerator() with None (as torch.device(...) becomes None)."""
    edit.result = cst.Name("None")


@argument_rule("MS198", "annotated_value", examples=[
    ("y = torch.jit.annotate(int, 3)\n",
     "y = 3\n"),
])
def annotated_value(edit) -> None:
    """Replace torch.jit.annotate(T, value) with value."""
    args = [a for a in edit.call.args if not a.star]
    value = next((a.value for a in args if a.keyword is not None and a.keyword.value == "the_value"), None)
    positional = [a.value for a in args if a.keyword is None]
    if value is None and len(positional) == 2:
        value = positional[1]
    if value is None:
        edit.unsupported("torch.jit.annotate without its value")
        return
    edit.result = value


@argument_rule("MS196", "final_annotation", examples=[
    ("class A:\n"
     "    k: torch.jit.Final[int] = 1\n",
     "class A:\n"
     "    k: int = 1\n"),
])
def final_annotation_call(edit) -> None:
    """Replace the annotation torch.jit.Final[T] with T (see :func:`final_annotation`; a call is marked)."""
    edit.unsupported("torch.jit.Final is an annotation, not a function")


@argument_rule("MS189", "backend_flag", examples=[
    ("torch.backends.cudnn.benchmark = True\n",
     "\n"),
])
def backend_flag(edit) -> None:
    """Replace `torch.backends.cudnn.benchmark = True` (a cuDNN/CUDA flag set) with nothing (see
    :func:`flag_assignment`; a call is marked)."""
    edit.unsupported("a backend flag is a value, not a function")


# torch 2.13's values of the flags (the same on a CPU-only build), read where a flag is read
BACKEND_FLAG_DEFAULTS = {
    "torch.backends.cudnn.benchmark": False, "torch.backends.cudnn.deterministic": False,
    "torch.backends.cudnn.allow_tf32": True, "torch.backends.cudnn.enabled": True,
    "torch.backends.cuda.matmul.allow_tf32": False,
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction": True,
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction": True,
    "torch.cuda._initialized": False,  # CUDA never initialised: the converted code runs without it
}


def flag_reading(converter, node, q: str):
    """Replace a read of ``torch.backends.cudnn.deterministic`` (a flag the conversion removes
    where it is set) with torch's default value; None for other names."""
    if q not in BACKEND_FLAG_DEFAULTS or not converter.allows("MS189"):
        return None
    new = cst.Name(str(BACKEND_FLAG_DEFAULTS[q]))
    converter.record(node, new, "MS189", "approximate",
                "a cuDNN/CUDA flag read: torch's default value (setting it is removed: no effect on CPU numbers)")
    return new


@argument_rule("MS184", "builtin_isinstance", examples=[
    ("ok = torch.jit.isinstance(x, list)\n",
     "ok = isinstance(x, list)\n"),
])
def builtin_isinstance(edit) -> None:
    """Replace torch.jit.isinstance(x, T) with isinstance(x, T)."""
    edit.result = edit.call.with_changes(func=parse_expr(edit.converter.builtin("isinstance")))


def removed_decorator(converter, dec: cst.Decorator) -> bool:
    """``@torch.jit.script``, ``@torch.compile(...)``, ``@torch.jit.ignore(drop=True)``: True (and
    recorded) when the decorator goes."""
    expr = dec.decorator
    q = converter.qual(expr.func if isinstance(expr, cst.Call) else expr)
    entry = converter.facts.tables.get(q) if q else None
    if not converter.allows(REMOVED_DECORATOR.id):
        return False
    if entry is None:
        machinery = next((m for ns, m in REGISTRATION_NAMESPACES.items() if q and q.startswith(ns)), None)
        if machinery is None:
            return False
        converter.record(expr, "", REMOVED_DECORATOR.id, "exact",
                         f"{q} registers the function with {machinery}: it runs as Python (decorator removed)")
        return True
    if entry.rule not in _DECORATOR_RULES:
        return False
    converter.record(expr, "", REMOVED_DECORATOR.id, entry.label, entry.note)
    return True


def final_annotation(converter, node: cst.Subscript):
    """``torch.jit.Final[T]`` -> ``T`` (walked); None when ``node`` is another subscript."""
    if converter.qual(node.value) != "torch.jit.Final" or len(node.slice) != 1 \
            or not isinstance(node.slice[0].slice, cst.Index) or not converter.allows("MS196"):
        return None
    inner = converter.walk(node.slice[0].slice.value)
    converter.record(node, inner, "MS196", "exact", "torch.jit.Final marks a TorchScript constant")
    return inner


def flag_assignment(converter, node: cst.Assign) -> bool:
    """``torch.backends.cudnn.benchmark = True``: True (and recorded) when the statement goes."""
    if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Attribute):
        return False
    q = converter.qual(node.targets[0].target)
    entry = converter.facts.tables.get(q) if q else None
    if entry is None or entry.rule != "backend_flag" or not converter.allows("MS189"):
        return False
    converter.record(node, "", "MS189", entry.label, entry.note)
    return True


@argument_rule("MS167", "summary_writer", needs=["TorchSummaryWriter"], examples=[
    ("from torch.utils.tensorboard import SummaryWriter\n"
     "writer = SummaryWriter(log_dir='out')\n",
     "writer = TorchSummaryWriter(log_dir='out')\n"),
])
def summary_writer(edit) -> None:
    """Replace torch.utils.tensorboard.SummaryWriter(...) with the runtime's TorchSummaryWriter(...):
    the scalars and text a script logs, in CSV files under log_dir (no TensorBoard event files)."""
    edit.result = edit.call.with_changes(func=cst.Name(edit.helper("TorchSummaryWriter")))
