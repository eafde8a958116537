"""What a converted Cell's module API gives back: parameter names and iterators.

- Parameter names: MindSpore names a parameter by its path when its cell is assigned to an
  attribute; a cell added to a container that is already attached (``self.layers.append(b)``,
  ``self.features.add_module(n, m)``, ``self.heads[k] = m``) keeps a shorter name, and two parameters may end up with
  the
  same name, which breaks ``save_checkpoint`` + ``load_param_into_net`` (checked on MindSpore
  2.10). A Cell's ``__init__`` that adds children that way ends with a call naming every
  parameter by its path (:func:`~migrate.runtime.values.torch_param_names`).
- Iterators: ``next(model.parameters())`` -- torch's Module methods return iterators, MindSpore's
  ``trainable_params()`` a list.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.cst import children, parse_expr
from migrate.convert.registry import node_rule
from migrate.convert.torch_signature import signatures

PARAMETER_PATHS = node_rule(
    "MS186", "parameter_paths",
    "Replace the end of a Cell's __init__ that adds children to attached containers (append, "
    "add_module...) with the same plus torch_param_names(self): every Parameter.name is its "
    "path, as on torch.", needs=["torch_param_names"], examples=[
    ("class N(nn.Module):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.blocks = nn.ModuleList()\n"
     "        self.blocks.append(nn.Linear(2, 2))\n",
     "class N(nn.Cell):\n"
     "    def __init__(self):\n"
     "        super().__init__()\n"
     "        self.blocks = nn.CellList()\n"
     "        self.blocks.append(nn.Dense(2, 2, has_bias=True, "
     "weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / "
     "math.sqrt(2))))\n"
     "        torch_param_names(self)\n"),
])
MODULE_ITERATOR = node_rule(
    "MS187", "module_iterator",
    "Replace next(m.children()) with next(iter(m.cells())): torch's module methods "
    "return iterators, MindSpore's lists.", examples=[
    ("class N(nn.Module):\n"
     "    def f(self):\n"
     "        return next(self.children())\n",
     "class N(nn.Cell):\n"
     "    def f(self):\n"
     "        return next(iter(self.cells()))\n"),
])

# methods that add a child to a container (or to self)
_ADDS_CHILD = {"append", "extend", "insert", "add_module", "insert_child_to_cell", "register_module",
               "update"}
# torch Module methods whose result is an iterator
_ITERATORS = {"parameters", "named_parameters", "children", "named_children", "modules",
              "named_modules", "buffers", "named_buffers"}


def _rooted_at_self(node) -> bool:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.value if not isinstance(node, cst.Call) else node.func
    return isinstance(node, cst.Name) and node.value == "self"


def _adds_children(block) -> bool:
    """Whether a function body adds children through self (``self.x.append(...)``,
    ``self.x[key] = ...``, ``self.x.y = ...``)."""
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not block:
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in _ADDS_CHILD and _rooted_at_self(node.func.value):
            return True
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Subscript) \
                and _rooted_at_self(node.target.value):
            return True  # self.blocks[name] = cell
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Attribute) \
                and isinstance(node.target.value, cst.Attribute) and _rooted_at_self(node.target.value):
            return True  # self.seq.conv = cell: a child of an attached child
        stack.extend(children(node))  # code fields only: libcst's .children runs a visitor
    return False


def parameter_paths(converter, original: cst.FunctionDef, new: cst.FunctionDef) -> cst.FunctionDef:
    """Apply MS186 to a Cell's converted ``__init__`` (``original`` as written)."""
    body = new.body
    if not isinstance(body, cst.IndentedBlock) or not converter.allows(PARAMETER_PATHS.id) \
            or not _adds_children(original.body):
        return new
    name = signatures(converter).helper("torch_param_names")
    last = body.body[-1] if body.body else None
    text = f"{name}(self)"
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Expr) \
            and cst.Module([]).code_for_node(last.body[0]) == text:
        return new
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return):
        return new  # an __init__ ending in return: left as written
    converter.record(original.name, text, PARAMETER_PATHS.id, "transformed",
                "children are added to attached containers: parameters are named by their paths")
    converter.output.reshaped = True
    stmt = cst.parse_statement(text + "\n")
    return new.with_changes(body=body.with_changes(body=[*body.body, stmt]))


def module_iterator(converter, node: cst.Call, walked: cst.Call):
    """Apply MS187 to ``next(x.parameters())`` (``walked``: converted), or return None."""
    if not (isinstance(node.func, cst.Name) and node.func.value == "next" and node.args):
        return None
    arg = node.args[0].value
    if not (isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute)
            and arg.func.attr.value in _ITERATORS) or walked.args[0].value is arg \
            or not converter.allows(MODULE_ITERATOR.id):
        return None
    inner = walked.args[0].value
    if isinstance(inner, cst.GeneratorExp) or (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name)):
        return None  # already an iterator: (c for _, c in m.cells_and_names()), torch_parameters(m)
    wrapped = cst.Call(parse_expr(converter.builtin("iter")), [cst.Arg(inner)])
    new = walked.with_changes(args=[walked.args[0].with_changes(value=wrapped), *walked.args[1:]])
    converter.record(node, new, MODULE_ITERATOR.id, "exact", "MindSpore's module methods return lists")
    return new
