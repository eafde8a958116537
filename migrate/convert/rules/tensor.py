"""Argument rules for tensor methods and torch functions on tensors: shapes, dtypes, devices,
reductions, constructors.

Every rule has one signature, ``apply(edit) -> None`` (see :mod:`migrate.convert.rules.layers`).
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.call_edit import is_literal, literal
from migrate.convert.cst import attribute, code_of, parse_expr
from migrate.convert.receivers import is_module, is_tensor
from migrate.convert.registry import argument_rule


@argument_rule("MS138", "norm_p", examples=[
    ("y = torch.norm(x, 2, dim=1)\n",
     "y = ops.norm(x, dim=1)\n"),
    ("y = x.norm(p=1, dim=-1, keepdim=True)\n",
     "y = ops.vector_norm(x, 1, -1, True)\n"),
])
def norm_p(edit) -> None:
    """Replace x.norm(p='fro' or 2, dim) with x.norm(dim=dim) (the 2-norm); x.norm(p, dim, keepdim) for another
    number p (1, 3.5, 0, inf, -inf) with ops.vector_norm(x, p, dim, keepdim), torch's vector norm over dim (over
    all elements when dim is None: MindSpore's ops.norm with an ord is a matrix norm of a 2-D input); mark 'nuc'
    and a p known at run time only."""
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
    number = isinstance(value, (int, float)) and not isinstance(value, bool) or _INFINITY.match(code_of(p))
    if number:
        x = edit.method_receiver if edit.method_receiver is not None else edit.bound.get("input")
        if edit.bound.get("dtype") is not None:  # torch casts the input first
            x = cst.Call(cst.Attribute(x, cst.Name("astype")), [cst.Arg(edit.bound["dtype"])])
        args = [x, p, edit.bound.get("dim") or cst.Name("None"), edit.bound.get("keepdim") or cst.Name("False")]
        edit.result = cst.Call(edit.converter.target("ops.vector_norm"), [cst.Arg(a) for a in args])
        edit.note(f"p={code_of(p)}: torch's vector norm over dim (over all elements when dim is None)")
        return
    edit.unsupported(f"p={code_of(p)}: only the 2-norm and numeric p are translated (MindSpore's ord is a matrix "
                     "norm for some values); write ops.norm(x, ord, dim) by hand")


# an infinite p written with a module's constant (math.inf, -np.inf) or float('inf')
_INFINITY = re.compile(r"^-?\s*((math|np|numpy|torch)\.inf|float\(\s*['\"][+-]?inf['\"]\s*\))$")


@argument_rule("MS134", "positional_reduction", examples=[
    ("y = torch.sum(x, dim=1)\n",
     "y = ops.sum(x, 1)\n"),
])
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


@argument_rule("MS135", "one_hot", examples=[
    ("y = F.one_hot(t, 3)\n",
     "y = ops.one_hot(t, 3).astype(ms.int64)\n"),
])
def one_hot(edit) -> None:
    """Replace F.one_hot(t, n) with ops.one_hot(t, n).astype(ms.int64) (MindSpore's is float)."""
    converter = edit.converter
    n = edit.bound.get("num_classes")
    if n is None or (is_literal(n) and literal(n) == -1):
        edit.unsupported("num_classes=-1 (inferred from the data) has no MindSpore equivalent")
        return
    call = cst.Call(converter.target("ops.one_hot"), [cst.Arg(edit.bound["tensor"]), cst.Arg(n)])
    edit.result = cst.Call(attribute(call, "astype"), [cst.Arg(converter.target("ms.int64"))])


@argument_rule("MS117", "size", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.size()\n",
     "def f(x: ms.Tensor):\n"
     "    return x.shape\n"),
])
def size(edit) -> None:
    """Replace x.size() / x.size(i) with x.shape / x.shape[i]."""
    recv = edit.method_receiver
    shape = attribute(recv, "shape")
    dim = edit.bound.get("dim")
    edit.result = shape if dim is None else cst.Subscript(shape, [cst.SubscriptElement(cst.Index(dim))])


@argument_rule("MS118", "identity_method", examples=[
    ("def f(x):\n"
     "    return x.contiguous()\n",
     "def f(x):\n"
     "    return x\n"),
])
def identity_method(edit) -> None:
    """Replace x.contiguous() / x.cuda() / x.cpu() with x (no memory layout or device in MindSpore)."""
    edit.result = edit.method_receiver


_CELL_DTYPES = {"double": "float64", "half": "float16", "bfloat16": "bfloat16"}


@argument_rule("MS237", "cast_cell", needs=["torch_cast_cell"], examples=[
    ("net = nn.Linear(2, 2)\n"
     "net = net.double()\n",
     "net = nn.Dense(2, 2, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(2)))\n"
     "net = torch_cast_cell(net, ms.float64)\n"),
])
def cast_cell(edit) -> None:
    """Replace net.double() / net.half() / net.bfloat16() (a module) with
    torch_cast_cell(net, ms.float64) (generated: Parameter.set_dtype on each floating-point one)."""
    dtype = _CELL_DTYPES[edit.entry.torch.rsplit(".", 1)[-1]]
    edit.converter.output.used.add("ms")
    edit.result = cst.Call(cst.Name(edit.helper("torch_cast_cell")),
                           [cst.Arg(edit.method_receiver), cst.Arg(parse_expr(f"ms.{dtype}"))])


@argument_rule("MS147", "to", needs=["torch_to"], examples=[
    ("def f(x):\n"
     "    return x.to('cuda')\n",
     "def f(x):\n"
     "    return x\n"),
])
def to(edit) -> None:
    """Replace x.to(device) with x, x.to(torch.float32) with x.astype(ms.float32), and module.to(dtype) with
    torch_to(module, dtype) (its floating-point parameters cast in place)."""
    converter = edit.converter
    args = list(edit.call.args)
    if any(a.star for a in args):  # a dtype may be among them: decided at run time
        _to_at_run_time(edit)
        return
    dtype = None
    positional = [a.value for a in args if a.keyword is None and not a.star]
    for a in args:
        if a.keyword is not None and a.keyword.value == "dtype":
            dtype = a.value
        elif a.keyword is None and _is_dtype(converter, a.value, edit):
            dtype = a.value
    if dtype is None and len(positional) >= 2 and not _is_bool(positional[1]):
        dtype = positional[1]  # x.to(device, dtype): torch's second positional is the dtype
    if dtype is None and positional and is_tensor(converter, positional[0]):
        dtype = cst.Attribute(positional[0], cst.Name("dtype"))  # x.to(y): y's dtype (and device)
    if dtype is not None:
        edit.result = cst.Call(attribute(edit.method_receiver, "astype"), [cst.Arg(dtype)])
        edit.worse("exact", "")
    elif all(_is_device(a) for a in args):
        edit.result = edit.method_receiver
        edit.note("device moves removed: MindSpore places tensors by context")
    else:
        _to_at_run_time(edit)
        return
    if dtype is not None and (edit.entry.torch.startswith("Module.") or is_module(converter, edit.receiver_before)):
        _to_at_run_time(edit)  # a Cell's floating-point parameters are cast in place


def _to_at_run_time(edit) -> None:
    """``x.to(v)`` where ``v`` may be a dtype, a tensor or a device: the generated ``torch_to``
    decides when it runs (a cast, or nothing)."""
    local = edit.converter.output.signatures.helper("torch_to")
    edit.result = cst.Call(cst.Name(local), [cst.Arg(edit.method_receiver), *edit.call.args])
    edit.note("the argument may be a dtype or a device: torch_to casts or passes at run time")


_DEVICE_WORDS = ("device", "dev", "cpu", "cuda", "gpu", "rank", "mps", "xpu", "npu")


def _is_device(arg: cst.Arg) -> bool:
    """An argument of x.to(...) that is a device (or an option) by its form: a string, None, an
    int (a GPU index), ``non_blocking=``/``device=``/``copy=``, a name like ``device``/``local_rank``."""
    if arg.keyword is not None:
        return arg.keyword.value in ("device", "non_blocking", "copy", "memory_format")
    node = arg.value
    if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Integer)) \
            or _is_bool(node) or isinstance(node, cst.Name) and node.value == "None":
        return True
    last = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return any(w in last.lower() for w in _DEVICE_WORDS)


def _is_dtype(converter, node, edit) -> bool:
    """``ms.float16``, or a torch dtype the tables do not map (kept, with its marker)."""
    if isinstance(node, cst.Attribute) and node.attr.value == "dtype":
        return True  # x.to(y.dtype)
    code = code_of(node)
    head, _, rest = code.partition(".")
    if head == converter.facts.names["ms"] and rest in _DTYPES:
        return True
    qual = converter.qual(node)
    return qual is not None and qual.startswith("torch.") and qual[len("torch."):] in _TORCH_DTYPES


def _is_bool(node) -> bool:
    """``True`` / ``False``: the ``non_blocking`` of ``x.to(dtype, True)``."""
    return isinstance(node, cst.Name) and node.value in ("True", "False")


_DTYPES = {"float32", "float16", "float64", "int64", "int32", "int8", "uint8", "bool_", "bfloat16",
           "int16", "complex64"}
_TORCH_DTYPES = {"float32", "float", "float16", "half", "bfloat16", "float64", "double", "int64", "long",
                 "int32", "int", "int16", "short", "int8", "uint8", "bool", "complex64", "cfloat",
                 "complex128", "cdouble", "float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64"}


@argument_rule("MS119", "astype", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.float()\n",
     "def f(x: ms.Tensor):\n"
     "    return x.astype(ms.float32)\n"),
])
def astype(edit) -> None:
    """Replace x.float() / x.long() / ... with x.astype(ms.float32) / x.astype(ms.int64)."""
    converter = edit.converter
    converter.output.used.add("ms")
    dtype = {".float": "float32", ".double": "float64", ".half": "float16", ".long": "int64",
             ".int": "int32", ".bool": "bool_", ".byte": "uint8", ".short": "int16",
             ".char": "int8"}[edit.entry.target]
    edit.result = cst.Call(attribute(edit.method_receiver, "astype"),
                           [cst.Arg(converter.target(f"ms.{dtype}"))])


@argument_rule("MS123", "device", examples=[
    ("d = torch.device('cpu')\n",
     "d = None\n"),
])
def device(edit) -> None:
    """Replace torch.device(...) with None (MindSpore places tensors by context)."""
    edit.result = parse_expr("None")


@argument_rule("MS151", "false", examples=[
    ("ok = torch.cuda.is_available()\n",
     "ok = False\n"),
])
def false(edit) -> None:
    """Replace torch.cuda.is_available() with False (no CUDA on the target; set_context decides)."""
    edit.result = parse_expr("False")


@argument_rule("MS130", "max_min", examples=[
    ("y = torch.max(x)\n",
     "y = ops.amax(x)\n"),
])
def max_min(edit) -> None:
    """Replace torch.max(x) / torch.max(x, dim) / torch.max(a, b) with ops.amax / ops.max / ops.maximum."""
    converter = edit.converter
    op = edit.entry.torch.rsplit(".", 1)[-1]
    other = edit.bound.get("dim")
    x = edit.bound.get("input") if edit.method_receiver is None else edit.method_receiver
    converter.output.used.add("ops")
    if other is not None and not isinstance(other, (cst.Integer, cst.UnaryOperation)) and \
            "dim" not in {a.keyword.value for a in edit.call.args if a.keyword is not None}:
        if is_tensor(converter, other) or not is_literal(other):
            fn = "maximum" if op == "max" else "minimum"
            edit.result = parse_expr(f"{converter.tname('ops.' + fn)}({code_of(x)}, {code_of(other)})")
            edit.worse("approximate", "second argument assumed to be a tensor (elementwise)")
            return
    if other is None:
        edit.result = parse_expr(f"{converter.tname('ops.amax' if op == 'max' else 'ops.amin')}({code_of(x)})")
        return
    keep = edit.bound.get("keepdim")
    kd = f", keepdims={code_of(keep)}" if keep is not None else ""
    edit.result = parse_expr(f"{converter.tname('ops.' + op)}({code_of(x)}, {code_of(other)}{kd})")
    edit.note("returns (values, indices) as torch does")


@argument_rule("MS148", "type_as", examples=[
    ("def f(x):\n"
     "    return x.type_as(y)\n",
     "def f(x):\n"
     "    return x.astype(y.dtype)\n"),
])
def type_as(edit) -> None:
    """Replace x.type_as(y) with x.astype(y.dtype)."""
    other = edit.bound["other"]
    edit.result = cst.Call(attribute(edit.method_receiver, "astype"),
                           [cst.Arg(attribute(other, "dtype"))])


@argument_rule("MS149", "new_full", examples=[
    ("def f(x):\n"
     "    return x.new_zeros(2, 3)\n",
     "def f(x):\n"
     "    return ops.zeros((2, 3), x.dtype)\n"),
])
def new_full(edit) -> None:
    """Replace x.new_zeros(shape) / x.new_ones(shape) / x.new_empty(shape) / x.new_full(shape, v)
    with ops.zeros(shape, x.dtype) / ops.ones(...) / ops.zeros(...) / ops.full(shape, v, dtype=x.dtype)."""
    converter = edit.converter
    kind = edit.entry.torch.rsplit("_", 1)[1]
    dtype = edit.bound.get("dtype") or attribute(edit.method_receiver, "dtype")
    size = edit.bound.get("size") or parse_expr("()")
    if kind == "full":
        edit.result = cst.Call(converter.target("ops.full"), [
            cst.Arg(size), cst.Arg(edit.bound["fill_value"]), cst.Arg(dtype, keyword=cst.Name("dtype"), equal=_EQ)])
        return
    if kind == "empty":
        edit.worse("approximate", "zeros: torch leaves the memory uninitialised")
    fn = "ops.ones" if kind == "ones" else "ops.zeros"
    edit.result = cst.Call(converter.target(fn), [cst.Arg(size), cst.Arg(dtype)])


@argument_rule("MS156", "new_tensor", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.new_tensor([1, 2])\n",
     "def f(x: ms.Tensor):\n"
     "    return ms.Tensor([1, 2], x.dtype)\n"),
])
def new_tensor(edit) -> None:
    """Replace x.new_tensor(data) / x.new_tensor(data, dtype=d) with ms.Tensor(data, x.dtype) /
    ms.Tensor(data, d) (a new tensor of x's dtype; MindSpore 2.10's Tensor has no new_tensor)."""
    dtype = edit.bound.get("dtype") or attribute(edit.method_receiver, "dtype")
    edit.result = cst.Call(edit.converter.target("ms.Tensor"), [cst.Arg(edit.bound["data"]), cst.Arg(dtype)])


@argument_rule("MS157", "unflatten", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.unflatten(1, (2, 3))\n",
     "def f(x: ms.Tensor):\n"
     "    return ops.reshape(x, x.shape[:1] + (2, 3) + x.shape[2:])\n"),
])
def unflatten(edit) -> None:
    """Replace x.unflatten(d, sizes) with ops.reshape(x, x.shape[:d] + sizes + x.shape[d + 1:])
    (MindSpore 2.10 has no unflatten); d must be a literal and x a name or an attribute (it is
    written twice)."""
    recv, dim, sizes = edit.method_receiver, edit.bound["dim"], edit.bound["sizes"]
    try:
        d = literal(dim)
    except (ValueError, SyntaxError):
        d = None
    if not isinstance(d, int) or isinstance(d, bool):
        edit.unsupported(f"dim={code_of(dim)} is not a literal int: write ops.reshape(x, ...) by hand")
        return
    if not _is_plain_reference(recv):
        edit.unsupported(f"the receiver {code_of(recv)} would be evaluated twice: assign it to a name first")
        return
    shape = code_of(attribute(recv, "shape"))
    if isinstance(sizes, (cst.Tuple, cst.List)):
        parts = code_of(cst.Tuple(sizes.elements))
    else:
        parts = f"{edit.converter.builtin('tuple')}({code_of(sizes)})"
    tail = "" if d == -1 else f" + {shape}[{d + 1}:]"
    edit.result = parse_expr(f"{edit.converter.tname('ops.reshape')}({code_of(recv)}, {shape}[:{d}] + {parts}{tail})")


def _is_plain_reference(node) -> bool:
    """A name or an attribute chain of names (no call, no subscript): cheap and the same each time."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


@argument_rule("MS158", "median", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.median()\n",
     "def f(x: ms.Tensor):\n"
     "    return x.reshape(-1).median(0)[0]\n"),
])
def median(edit) -> None:
    """Replace x.median() with x.reshape(-1).median(0)[0] (torch's median of all elements;
    MindSpore 2.10's median() is along the last axis, with indices); x.median(dim) stays."""
    if edit.bound.get("dim") is not None:
        return
    flat = cst.Call(attribute(edit.method_receiver, "reshape"), [cst.Arg(parse_expr("-1"))])
    values_indices = cst.Call(attribute(flat, "median"), [cst.Arg(cst.Integer("0"))])
    edit.result = cst.Subscript(values_indices, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])


@argument_rule("MS152", "view_as", examples=[
    ("def f(x):\n"
     "    return x.view_as(y)\n",
     "def f(x):\n"
     "    return ops.reshape(x, y.shape)\n"),
])
def view_as(edit) -> None:
    """Replace x.view_as(y) with ops.reshape(x, y.shape)."""
    other = edit.bound["other"]
    edit.result = cst.Call(edit.converter.target("ops.reshape"),
                           [cst.Arg(edit.method_receiver), cst.Arg(attribute(other, "shape"))])


@argument_rule("MS136", "tensor_ctor", examples=[
    ("y = torch.Tensor([1, 2])\n",
     "y = ms.Tensor([1, 2], ms.float32)\n"),
])
def tensor_ctor(edit) -> None:
    """Replace torch.Tensor(data) / torch.Tensor(2, 3) with ms.Tensor(data, ms.float32) / ops.zeros((2, 3),
    ms.float32)."""
    converter = edit.converter
    dtype = converter.target("ms.int64" if edit.entry.torch.endswith("LongTensor") else "ms.float32")
    args = list(edit.call.args)
    positional = [a for a in args if a.keyword is None and a.star != "**"]
    if any(a.star == "*" for a in positional) and len(positional) == len(args) \
            and (sum(not a.star for a in positional) >= 2
                 or not positional[0].star and isinstance(positional[0].value, cst.Integer)):
        # torch.Tensor(c, k, *kernel_size) / torch.Tensor(2, *s): two plain values, or an int
        # first, so sizes (the data form takes one sequence)
        shape = cst.Tuple([cst.StarredElement(a.value) if a.star else cst.Element(a.value) for a in positional])
        edit.result = cst.Call(converter.target("ops.zeros"), [cst.Arg(shape), cst.Arg(dtype)])
        edit.worse("approximate", "uninitialised memory in torch; zeros here")
        return
    # `device=` is the one keyword the legacy constructors take: placement only (no effect here)
    if any(a.star or a.keyword is not None and a.keyword.value != "device" for a in args):
        edit.unsupported("keyword or star arguments to the legacy tensor constructor")
        return
    if any(a.keyword is not None for a in args):
        edit.note("device= dropped: MindSpore places tensors by ms.set_context")
    values = [a.value for a in args if a.keyword is None]
    if len(values) == 1 and isinstance(values[0], (cst.Name, cst.Attribute)):
        # torch decides by the value: an int is a size, anything else the data
        v, d = code_of(values[0]), code_of(dtype)
        edit.result = parse_expr(f"({converter.tname('ops.zeros')}(({v},), {d}) if isinstance({v}, int) "
                                 f"else {converter.tname('ms.Tensor')}({v}, {d}))")
        return
    if len(values) == 1 and not isinstance(values[0], (cst.Integer, cst.UnaryOperation)):
        edit.result = cst.Call(converter.target("ms.Tensor"), [cst.Arg(values[0]), cst.Arg(dtype)])
        return
    # sizes: torch leaves the memory uninitialised; zeros is one valid such content
    if not values:
        values = [cst.Integer("0")]  # torch.Tensor() is an empty 1-d tensor
    shape = cst.Tuple([cst.Element(v) for v in values]) if len(values) != 1 else \
        cst.Tuple([cst.Element(values[0], comma=cst.Comma())])
    edit.result = cst.Call(converter.target("ops.zeros"), [cst.Arg(shape), cst.Arg(dtype)])
    edit.worse("approximate", "uninitialised memory in torch; zeros here")


@argument_rule("MS145", "ndim", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.dim()\n",
     "def f(x: ms.Tensor):\n"
     "    return x.ndim\n"),
])
def ndim(edit) -> None:
    """Replace x.dim() with x.ndim."""
    edit.result = attribute(edit.method_receiver, "ndim")


@argument_rule("MS146", "numel", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.numel()\n",
     "def f(x: ms.Tensor):\n"
     "    return x.size\n"),
])
def numel(edit) -> None:
    """Replace x.numel() with x.size (MindSpore's Tensor.size is the element count)."""
    edit.result = attribute(edit.method_receiver, "size")


@argument_rule("MS173", "std_var", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.std(1)\n",
     "def f(x: ms.Tensor):\n"
     "    return x.std(axis=1, ddof=1)\n"),
])
def std_var(edit) -> None:
    """Replace x.std(dim, unbiased=True, keepdim) / x.var(..., correction=c) with
    x.std(axis=dim, ddof=1, keepdims=keepdim) (MindSpore's default ddof is 0, torch's 1)."""
    b = edit.bound
    dim, unbiased = b.get("dim"), b.get("unbiased")
    if dim is not None and is_literal(dim) and isinstance(literal(dim), bool):
        dim, unbiased = None, dim  # x.std(False): torch's first positional is then `unbiased`
    if b.get("correction") is not None and unbiased is not None:
        edit.unsupported("both unbiased= and correction=")
        return
    if b.get("correction") is not None:
        ddof = b["correction"]
    elif unbiased is None:
        ddof = parse_expr("1")
    elif is_literal(unbiased):
        ddof = parse_expr("1" if literal(unbiased) else "0")
    else:
        ddof = parse_expr(f"{edit.converter.builtin('int')}({code_of(unbiased)})")
    args = ([cst.Arg(dim, keyword=cst.Name("axis"), equal=_EQ)] if dim is not None else [])
    args.append(cst.Arg(ddof, keyword=cst.Name("ddof"), equal=_EQ))
    if b.get("keepdim") is not None:
        args.append(cst.Arg(b["keepdim"], keyword=cst.Name("keepdims"), equal=_EQ))
    name = edit.entry.torch.rsplit(".", 1)[1]
    edit.result = cst.Call(attribute(edit.method_receiver, name), args)


_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
# legacy tensor type names torch's x.type(name) takes, as strings
_TYPE_NAMES = {f"torch.{k}Tensor": v for k, v in (
    ("Float", "float32"), ("Double", "float64"), ("Half", "float16"), ("Long", "int64"), ("Int", "int32"),
    ("Short", "int16"), ("Byte", "uint8"), ("Char", "int8"), ("Bool", "bool_"))}
_TYPE_NAMES.update({k.replace("torch.", "torch.cuda."): v for k, v in list(_TYPE_NAMES.items())})


@argument_rule("MS174", "tensor_type", examples=[
    ("def f(x):\n"
     "    return x.type(torch.float16)\n",
     "def f(x):\n"
     "    return x.astype(ms.float16)\n"),
])
def tensor_type(edit) -> None:
    """Replace x.type(dtype) / x.type('torch.FloatTensor') with x.astype(ms.float32); mark
    x.type() (MindSpore returns 'Float32', torch 'torch.FloatTensor')."""
    converter = edit.converter
    dtype = edit.bound.get("dtype")
    if dtype is None:
        edit.unsupported("x.type() names the type differently in MindSpore ('Float32', not "
                         "'torch.FloatTensor'); compare x.dtype instead", marker="MS915")
        return
    if isinstance(dtype, cst.SimpleString):
        name = _TYPE_NAMES.get(literal(dtype))
        if name is None:
            edit.unsupported(f"type name {dtype.value}")
            return
        dtype = converter.target(f"ms.{name}")
    elif code_of(dtype) == converter.tname("ms.Tensor"):
        edit.unsupported("a legacy tensor type (torch.FloatTensor ...): pass a dtype (ms.float32)")
        return
    edit.result = cst.Call(attribute(edit.method_receiver, "astype"), [cst.Arg(dtype)])


@argument_rule("MS328", "unfold_windows", needs=["torch_unfold_windows"], examples=[
    ("def f(x):\n"
     "    return x.unfold(1, 2, 1)\n",
     "def f(x):\n"
     "    return torch_unfold_windows(x, 1, 2, 1)\n"),
])
def unfold_windows(edit) -> None:
    """Replace x.unfold(dimension, size, step) (torch's sliding windows) with
    torch_unfold_windows(x, dimension, size, step) (MindSpore's Tensor.unfold is im2col)."""
    args = [cst.Arg(edit.method_receiver)] + [cst.Arg(edit.bound[name]) for name in ("dimension", "size", "step")]
    edit.result = cst.Call(cst.Name(edit.helper("torch_unfold_windows")), args)


@argument_rule("MS333", "contiguous_stride", needs=["torch_stride"], examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.stride()\n",
     "def f(x: ms.Tensor):\n"
     "    return torch_stride(x)\n"),
])
def contiguous_stride(edit) -> None:
    """Replace x.stride() / x.stride(d) with torch_stride(x) / torch_stride(x, d): the strides of
    the tensor's contiguous layout (what torch_as_strided indexes; the conversion drops
    .contiguous(), and MindSpore 2.10's Tensor.stride reports a view's own)."""
    args = [cst.Arg(edit.method_receiver)]
    if edit.bound.get("dim") is not None:
        args.append(cst.Arg(edit.bound["dim"]))
    edit.result = cst.Call(cst.Name(edit.helper("torch_stride")), args)


@argument_rule("MS332", "as_strided", needs=["torch_as_strided"], examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.as_strided([3, 4], [2, 1])\n",
     "def f(x: ms.Tensor):\n"
     "    return torch_as_strided(x, [3, 4], [2, 1])\n"),
])
def as_strided(edit) -> None:
    """Replace x.as_strided(size, stride, offset) / torch.as_strided(x, ...) with
    torch_as_strided(x, size, stride, offset): the elements of the flattened tensor at those
    strides, gathered (MindSpore has no as_strided; its tensors are contiguous, as x.stride() says)."""
    x = edit.method_receiver if edit.entry.torch.startswith("Tensor.") else edit.bound["input"]
    args = [cst.Arg(x), cst.Arg(edit.bound["size"]), cst.Arg(edit.bound["stride"])]
    if edit.bound.get("storage_offset") is not None:
        args.append(cst.Arg(edit.bound["storage_offset"]))
    edit.worse("approximate", "as_strided reads the tensor's contiguous layout: the same as torch for a "
                              "contiguous tensor (the strides x.stride() gives), not for a view of another")
    edit.result = cst.Call(cst.Name(edit.helper("torch_as_strided")), args)


@argument_rule("MS175", "requires_grad", examples=[
    ("def f(x):\n"
     "    return torch.ones(2).requires_grad_()\n",
     "def f(x):\n"
     "    return ops.ones((2,))\n"),
])
def requires_grad(edit) -> None:
    """Replace y = x.requires_grad_() with y = x (ms.grad takes what it differentiates by
    position); keep the statement p.requires_grad_(flag) (it sets a Parameter's flag)."""
    if edit.converter.walk_state.statement_call is edit.original:
        edit.result = edit.call
        return
    edit.result = edit.method_receiver
    edit.worse("approximate", "requires_grad_ dropped where its value is used: MindSpore's returns "
                              "None, and ms.grad takes what it differentiates by position")


@argument_rule("MS176", "itemsize", examples=[
    ("def f(x):\n"
     "    return x.element_size()\n",
     "def f(x):\n"
     "    return x.itemsize\n"),
])
def itemsize(edit) -> None:
    """Replace x.element_size() with x.itemsize."""
    edit.result = attribute(edit.method_receiver, "itemsize")


@argument_rule("MS179", "select", examples=[
    ("def f(x: torch.Tensor):\n"
     "    return x.select(-2, 0)\n",
     "def f(x: ms.Tensor):\n"
     "    return x[..., :, 0]\n"),
])
def select(edit) -> None:
    """Replace x.select(1, i) with x[:, i] (MindSpore 2.10's Tensor.select has no CPU gradient);
    a dim that is not a literal int keeps x.select(dim, i)."""
    dim, index = edit.bound.get("dim"), edit.bound.get("index")
    try:
        d = literal(dim)
    except (ValueError, SyntaxError):
        return
    if isinstance(d, bool) or not isinstance(d, int):
        return
    lead = [cst.SubscriptElement(cst.Slice(None, None))] * d if d >= 0 else \
        [cst.SubscriptElement(cst.Index(cst.Ellipsis()))] + [cst.SubscriptElement(cst.Slice(None, None))] * (-d - 1)
    edit.result = cst.Subscript(edit.method_receiver, lead + [cst.SubscriptElement(cst.Index(index))])
