"""The model's constructor expression as the converted module would write it.

`--model 'PlainConvUNet(1, 3, (8, 16), nn.Conv2d, ..., norm_op=nn.InstanceNorm2d)'` names torch
classes: on the converted side, evaluating the same text would hand the package MindSpore's
`nn.Conv2d` (which it then calls with torch's keywords). The expression is converted instead, with
the same converter and the same facts as its module: it is appended to the module's text, the
whole is converted, and the expression is read back with the imports the conversion added for
it (the runtime's torch-signature classes, say). An expression the conversion leaves alone comes
back unchanged, with no imports.
"""
from __future__ import annotations

import ast
import os
import types
from dataclasses import dataclass, replace

from .loader import ModelSource, package_facts, source_files

MARK = "__migrate_check_model__"
_TORCH_PACKAGES = ("torch", "torchvision", "torchaudio", "torchtext")


@dataclass(frozen=True)
class ConvertedExpression:
    """`code`: the converted expression; `imports`: the import statements (source lines) that bind
    the names it reads which the conversion added, each narrowed to those names; `runtime`: the
    names it reads from the runtime; `runtime_copy`: the (directory, name) of the runtime copy
    its module imports, relative to the converted root (a module that needs no runtime has none
    written beside it)."""

    code: str
    imports: tuple = ()
    runtime: tuple = ()
    runtime_copy: tuple = ()


def convert_expression(text: str, expr: str, convert, options=None) -> ConvertedExpression:
    """Convert `expr` as it would be converted at the end of the module whose source is `text`.

    Args:
        text: the module's (torch) source.
        expr: the constructor expression evaluated in that module's namespace.
        convert: the converter (``convert(text, **options)`` -> object with ``code``, ``error``).
        options: the keyword arguments the module's own conversion gets (its package's facts).

    Returns:
        A :class:`ConvertedExpression`; the expression unchanged when either conversion fails or
        the expression cannot be found in the output.

    Example:
        >>> convert_expression("from torch import nn\\n", "nn.Conv2d", convert_source)  # doctest: +SKIP
        ConvertedExpression(code='TorchConv2d', imports=('from migrate_runtime import TorchConv2d',))
    """
    options = options or {}
    base = convert(text, **options)
    probe = convert(f"{text.rstrip()}\n\n{MARK} = (\n{expr}\n)\n", **options)
    if base.error or probe.error:
        return ConvertedExpression(expr)
    try:
        tree = ast.parse(probe.code)
        known = {ast.unparse(n) for n in ast.parse(base.code).body if isinstance(n, (ast.Import, ast.ImportFrom))}
    except SyntaxError:
        return ConvertedExpression(expr)
    value = next((n.value for n in reversed(tree.body) if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], ast.Name) and n.targets[0].id == MARK), None)
    code = ast.get_source_segment(probe.code, value) if value is not None else None
    if code is None:
        return ConvertedExpression(expr)
    if "\n" in code:
        code = f"({code})"  # a multi-line expression evaluates as one
    read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    added = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and ast.unparse(n) not in known]
    return ConvertedExpression(code, tuple(_narrowed(n, read) for n in added if _narrowed(n, read)),
                               tuple(sorted(set(getattr(probe, "runtime", ()) or ()) & read)))


def converted_expression(src: ModelSource, expr: str, convert, namespace=None) -> ConvertedExpression:
    """`expr` converted at the end of `src`'s module, with the facts its package gives it, when it
    reads one of torch's names there (in the torch module's `namespace`, else as the module's text
    imports them): otherwise its conversion is itself, and nothing is converted."""
    if namespace is not None and not reads_torch(expr, namespace):
        return ConvertedExpression(expr)
    path = os.path.join(src.root, os.path.relpath(src.file, src.root))
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return ConvertedExpression(expr)
    if namespace is None and not reads_torch_imports(expr, text):
        return ConvertedExpression(expr)
    facts = package_facts(src, source_files(src), convert)
    done = convert_expression(text, expr, convert, facts.options(path))
    return replace(done, runtime_copy=tuple(facts.copies.get(path, ())))


def reads_torch(expr: str, namespace: dict) -> bool:
    """Whether `expr` reads a name `namespace` binds to torch's (a torch module, or a class or
    function defined in one: `nn`, `nn.Conv2d`, `torch`), the names a conversion changes."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        return True  # (the conversion says what it makes of it)
    for name in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
        value = namespace.get(name)
        home = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        if isinstance(home, str) and home.split(".")[0] in _TORCH_PACKAGES:
            return True
    return False


def reads_torch_imports(expr: str, text: str) -> bool:
    """Whether `expr` reads a name the module source `text` binds by importing from torch (`nn`
    of `from torch import nn`, `torch`): :func:`reads_torch` read from the text, for a caller that
    has not imported the module (bench/realworld's parent); a module that re-exports torch's names
    without importing them (`from .layers import *`) answers True to be safe."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
        module = ast.parse(text)
    except SyntaxError:
        return True
    bound = set()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and (node.level or node.module is None) and \
                any(a.name == "*" for a in node.names):
            return True
        if isinstance(node, ast.Import):
            bound.update((a.asname or a.name.split(".")[0]) for a in node.names
                         if a.name.split(".")[0] in _TORCH_PACKAGES)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in _TORCH_PACKAGES:
            bound.update(a.asname or a.name for a in node.names)
    return any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(tree))


def write_runtime(root: str, converted: ConvertedExpression, convert) -> None:
    """Write the runtime copy `converted` imports under the converted tree `root`, if missing."""
    if converted.runtime and converted.runtime_copy and hasattr(convert, "write_runtime"):
        home, name = converted.runtime_copy
        if not os.path.exists(os.path.join(root, str(home), name)):
            convert.write_runtime(os.path.join(root, str(home)), name)


def _narrowed(node, names) -> str:
    """The import statement binding only those of `names` it binds ('' when none)."""
    aliases = [a for a in node.names if (a.asname or a.name.split(".")[0]) in names]
    if not aliases:
        return ""
    if isinstance(node, ast.Import):
        return ast.unparse(ast.Import(names=aliases))
    return ast.unparse(ast.ImportFrom(module=node.module, names=aliases, level=node.level))
