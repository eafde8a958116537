"""The target's module names kept plain when a torch alias of the same name stays.

A torch name the conversion cannot translate stays with a marker (``nn.AlphaDropout``), so
torch's ``nn`` stays bound in the file (to the guard's stand-in), and the target's ``nn`` had to
take another name: ``ms_nn.Dense`` on every converted line for one marked line. The converted file
reads as MindSpore code when the names are swapped: the target's module is ``nn`` again and the
torch alias that stays for marked code is ``torch_nn`` (``torch_nn.AlphaDropout``, next to its
marker; ``torch_nn = TorchMissing('torch.nn', ...)``).

The swap renames every occurrence of the two names in the finished output (not an attribute's
name, a call's keyword or the module part of an import), which is a renaming of the whole file;
it is done only when nothing else binds the torch alias's name (no user variable, parameter or
other import of it) and the new name occurs nowhere in the file.
"""
from __future__ import annotations

import re

import libcst as cst

from migrate.convert.cst import children

# target module heads whose torch alias of the same name may stay
SWAPPABLE = ("nn", "ops")


def torch_local(head: str) -> str:
    """The name the torch alias ``head`` takes when the target's module takes ``head`` back."""
    return f"torch_{head}"


def swap_names(module: cst.Module, renames: dict[str, str]) -> cst.Module:
    """``module`` with each name of ``renames`` (old -> new) renamed everywhere it is a name:
    expressions, assignment targets, ``global`` lists, what an import binds, words of string
    annotations. Only the statements that hold one of the names (or a string with one of them)
    are visited: the others stay the same objects, so that their text can be copied from the
    input (:mod:`migrate.convert.verbatim`); renaming the whole module did the same."""
    rename = _Rename(renames)
    body = [st.visit(rename) if _mentions(st, renames, rename.words) else st for st in module.body]
    return module.with_changes(body=body)


def _mentions(node, renames: dict[str, str], words: re.Pattern) -> bool:
    """Whether ``node`` holds a name of ``renames`` or a string in which ``words`` finds one."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Name:
            if n.value in renames:
                return True
        elif t is cst.SimpleString:
            if words.search(n.value):
                return True
        else:
            stack.extend(children(n))
    return False


class _Rename(cst.CSTTransformer):
    def __init__(self, renames: dict[str, str]):
        self.renames = renames
        self.words = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, renames)) + r")\b")
        self.annotations = 0

    def leave_Name(self, original, updated):
        new = self.renames.get(updated.value)
        return updated if new is None else updated.with_changes(value=new)

    # names that are not the file's variables: an attribute's name, a call's keyword
    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_ImportFrom(self, original, updated):
        return updated.with_changes(module=original.module)

    def leave_Arg(self, original, updated):
        return updated if updated.keyword is None else updated.with_changes(keyword=original.keyword)

    def leave_ImportAlias(self, original, updated):
        """``import torch.nn as nn`` -> ``as torch_nn``; ``from ms_core import nn as ms_nn`` ->
        ``from ms_core import nn``: the module part stays, what the import binds is renamed."""
        name = original.name
        bound = original.asname.name.value if original.asname else (name.value if isinstance(name, cst.Name) else None)
        new = self.renames.get(bound) if bound else None
        if new is None:
            return original
        if isinstance(name, cst.Name) and name.value == new:
            return original.with_changes(asname=None)
        return original.with_changes(asname=cst.AsName(name=cst.Name(new)))

    def visit_Annotation(self, node) -> None:
        self.annotations += 1

    def leave_Annotation(self, original, updated):
        self.annotations -= 1
        return updated

    def leave_SimpleString(self, original, updated):
        if not self.annotations:
            return updated
        value = self.words.sub(lambda m: self.renames[m.group(1)], updated.value)
        return updated if value == updated.value else updated.with_changes(value=value)
