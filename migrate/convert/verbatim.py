"""The converted module's text, with the top-level statements the conversion kept as they were
copied from the input instead of printed again.

libcst's printing of the result was about a tenth of a conversion, and many of a file's
top-level statements (helpers, constants, classes with nothing of torch's) come out of the walk
as the very nodes that were parsed. A node's text is the input's text there: libcst's round trip
is lossless, a statement owns the lines from its leading comments and blank lines to the line
before the next statement's, and a top-level statement prints at indentation 0 whatever module
holds it. So the text of input statement ``i`` is its lines, found from where ``ast`` says it
starts (its first decorator's line) less its ``leading_lines``, up to where the next one's text
starts (the last one's: up to the module's footer).

Where the lines could be counted differently (CR line ends, a backslash continuing a line into
the next statement, a decorator that does not start its line, no newline at the end, another
indentation or newline than the input's) the module is printed as a whole, as before.
"""
from __future__ import annotations

import ast

import libcst as cst
from libcst._nodes.internal import CodegenState


def top_statement_starts(tree: ast.Module) -> tuple[int, ...]:
    """The first line of each top-level statement of ``tree`` (its first decorator's, when it
    has decorators), in order."""
    return tuple(st.decorator_list[0].lineno if getattr(st, "decorator_list", None) else st.lineno
                 for st in tree.body)


def module_code(new: cst.Module, old: cst.Module, code: str, starts: tuple[int, ...]) -> str:
    """``new.code``: the code of ``new`` (a rewrite of ``old``, the parse of ``code``, whose
    top-level statements' first lines are ``starts``), with the statements of ``old`` it keeps
    copied from ``code``."""
    index = {id(st): i for i, st in enumerate(old.body)}
    if not starts or not any(id(st) in index for st in new.body) or not _same_layout(new, old, code):
        return new.code
    bounds = _statement_lines(old, code, starts)
    if bounds is None:
        return new.code
    lines = code.split("\n")
    state = CodegenState(default_indent=new.default_indent, default_newline=new.default_newline)
    for h in new.header:
        h._codegen(state)
    for st in new.body:
        i = index.get(id(st))
        if i is None:
            st._codegen(state)
        else:  # lines bounds[i] .. bounds[i + 1] - 1 (1-based), each with its newline
            state.add_token("\n".join(lines[bounds[i] - 1:bounds[i + 1] - 1]) + "\n")
    for f in new.footer:
        f._codegen(state)
    if not state.tokens:
        state.add_token(state.default_newline)  # as libcst: an empty module keeps its newline
    return "".join(state.tokens)


def _same_layout(new: cst.Module, old: cst.Module, code: str) -> bool:
    """Lines are counted alike by ``ast`` and here, and a statement prints as it did."""
    return (new.default_indent == old.default_indent and new.default_newline == old.default_newline == "\n"
            and new.has_trailing_newline and old.has_trailing_newline and code.endswith("\n")
            and "\r" not in code and not code.startswith("\ufeff"))


def _statement_lines(old: cst.Module, code: str, starts: tuple[int, ...]) -> list[int] | None:
    """The first line (1-based) of the text of each statement of ``old``, and one past the last
    one's; None when they cannot be told from ``starts``."""
    firsts, j = [], 0
    for st in old.body:
        if j >= len(starts):
            return None
        firsts.append(starts[j])
        j += len(st.body) if isinstance(st, cst.SimpleStatementLine) else 1  # `a = 1; b = 2`: one line
    if j != len(starts):
        return None
    lines = code.split("\n")  # ends with "" (the code ends with a newline)
    bounds = [first - len(st.leading_lines) for first, st in zip(firsts, old.body)]
    bounds.append(len(lines) - len(old.footer))
    if not old.body or bounds[0] != len(old.header) + 1:
        return None
    for k, st in enumerate(old.body):
        if bounds[k + 1] <= bounds[k] or bounds[k] > 1 and lines[bounds[k] - 2].endswith("\\"):
            return None
        if getattr(st, "decorators", None) and not lines[firsts[k] - 1].startswith("@"):
            return None
    return bounds
