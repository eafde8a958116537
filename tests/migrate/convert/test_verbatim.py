"""The converted module's text with kept top-level statements copied from the input
(verbatim.py) is the text libcst prints for it."""
from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from migrate import convert_source
from migrate.convert.verbatim import _same_layout, _text_lines, module_code, statement_starts

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

LAYOUTS = {
    "header comments and blanks": "#!/usr/bin/env python\n# a header\n\n\nimport os\n\n\nx = 1\n",
    "blank lines first": "\n\n\nimport os\nx = 1\n",
    "decorated, comments between decorators": (
        "import functools\n\n\n# about f\n@functools.lru_cache()\n# between\n\n@staticmethod\n"
        "def f(a):\n    return a\n\n\n@dataclass\nclass A:\n    x: int = 0\n"),
    "deeper comments after a body": (
        "def f():\n    return 1\n    # deeper, after the body\n\n        # deeper still\n# at column 0\n"
        "\n\ndef g():\n    pass\n    # at the end of the file\n\n"),
    "semicolons and one-line blocks": "a = 1; b = 2\nif a: b = 3\nfor i in range(2): pass\nc = 4;\n",
    "continuation lines": "x = 1 + \\\n    2\ny = (1,\n     2)\ns = '''a\nb'''\n",
    "form feed": "import os\n\x0c\ndef f():\n    pass\n\x0c\nx = 1\n",
    "classes": (
        "class A(Base):\n    \"doc\"\n\n    # about f\n    @property\n    # between\n    def f(self):\n"
        "        return 1\n        # deeper\n    # at the members' indentation\n\n    x = 1; y = 2\n"
        "# at column 0, inside\n    def g(self): pass\n    # a comment that ends the class body\n\n\n"
        "class B:\n\tdef h(self):\n\t\tpass\n\n\tz = 3\n\n\nclass C: pass\n"
        "class D:\n    x = 1 + \\\n        2\n    y = 3\n    @\\\n    deco\n    def e(self):\n        pass\n"),
    "async, with, try, match": (
        "async def f():\n    async with a as b:\n        pass\n\n\ntry:\n    import numpy\nexcept ImportError:\n"
        "    numpy = None\nelse:\n    pass\nfinally:\n    pass\nmatch x:\n    case 1:\n        pass\n"),
    "comment tail": "x = 1\n\n# a comment at the end\n# another\n",
    "no newline at the end": "x = 1\ny = 2",
    "CR LF line ends": "x = 1\r\n\r\ndef f():\r\n    return 2\r\n",
    "a decorator continued with a backslash": "@\\\ndeco\ndef f():\n    pass\nx = 1\n",
    "a line continued into the next statement": "x = 1\n\\\ny = 2\nz = 3\n",
    "a parenthesized decorator": "@(\n    deco\n)\ndef f():\n    pass\nx = 1\n",
    "only comments": "# nothing\n\n# else\n",
    "empty": "",
}


def _texts() -> dict[str, str]:
    texts = dict(LAYOUTS)
    for p in sorted(FIXTURES.rglob("*.py")):
        try:
            texts[str(p.relative_to(FIXTURES))] = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # (fixtures of undecodable input)
            continue
    return texts


TEXTS = _texts()


def _parsed(code):
    try:
        return ast.parse(code), cst.parse_module(code)
    except (SyntaxError, ValueError, RecursionError, cst.ParserSyntaxError):
        return None, None


@pytest.mark.parametrize("name", list(TEXTS))
def test_each_statement_text_is_what_libcst_prints(name):
    code = TEXTS[name]
    tree, module = _parsed(code)
    if tree is None:
        pytest.skip("not Python: nothing is printed")
    try:
        module.code
    except RecursionError:
        pytest.skip("nested too deeply for libcst to print")
    starts = statement_starts(tree)
    lines = code.split("\n")
    bounds = _text_lines(module.body, starts.top, lines, len(module.header) + 1, len(lines) - len(module.footer)) \
        if _same_layout(module, module, code) else None
    if bounds is not None:
        for i, st in enumerate(module.body):
            assert "\n".join(lines[bounds[i] - 1:bounds[i + 1] - 1]) + "\n" == module.code_for_node(st), (name, i)
    # every statement kept, one replaced, one dropped, one added: what libcst prints
    kept = module.with_changes(body=list(module.body))
    assert module_code(kept, module, code, starts) == kept.code  # (libcst drops a lone `\\` line)
    for k in range(min(len(module.body), 12)):
        body = list(module.body)
        body[k] = cst.parse_statement("replaced = 1\n")
        new = module.with_changes(body=[cst.parse_statement("import ms_core as ms\n"), *body[:-1]])
        assert module_code(new, module, code, starts) == new.code, (name, k)
    _members_replaced(name, code, module, starts)


def _members_replaced(name, code, module, starts):
    """A class with one member replaced, one dropped, one added prints as libcst prints it."""
    for k, st in enumerate(module.body):
        if not isinstance(st, cst.ClassDef) or not isinstance(st.body, cst.IndentedBlock):
            continue
        for j in range(min(len(st.body.body), 8)):
            members = list(st.body.body)
            members[j] = cst.parse_statement("replaced = 1\n")
            cls = st.with_changes(body=st.body.with_changes(body=[*members[:-1], cst.parse_statement("x = 2\n")]))
            new = module.with_changes(body=[*module.body[:k], cls, *module.body[k + 1:]])
            assert module_code(new, module, code, starts) == new.code, (name, k, j)
        # the same members under another indentation are printed, not copied
        other = st.with_changes(body=st.body.with_changes(body=[cst.parse_statement("y = 1\n"), *st.body.body],
                                                          indent="\t"))
        new = module.with_changes(body=[*module.body[:k], other, *module.body[k + 1:]])
        assert module_code(new, module, code, starts) == new.code, (name, k, "indent")


def test_a_layout_that_cannot_be_counted_is_printed_whole():
    for name in ("no newline at the end", "CR LF line ends", "a decorator continued with a backslash",
                 "a line continued into the next statement", "a parenthesized decorator"):
        code = LAYOUTS[name]
        tree, module = _parsed(code)
        lines = code.split("\n")
        assert not _same_layout(module, module, code) or _text_lines(
            module.body, statement_starts(tree).top, lines, len(module.header) + 1, len(lines)) is None, name


def test_conversion_keeps_the_untouched_statements_text():
    code = ("import torch\nimport torch.nn as nn\n\n\n# a helper\ndef helper(a, b):  # adds\n    return a + b\n"
            "    # deeper comment\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"
            "\n\nVALUE = helper(1, 2) ;  OTHER = 3\n")
    out = convert_source(code).code
    assert "# a helper\ndef helper(a, b):  # adds\n    return a + b\n    # deeper comment\n\n\n" in out
    assert "VALUE = helper(1, 2) ;  OTHER = 3\n" in out
    assert "torch" not in out and "ops.relu(x)" in out


def test_parse_without_checks_builds_the_same_tree_and_checks_again_after():
    from libcst._nodes.base import CSTNode

    from migrate.convert.cst import parse_source
    for name in ("header comments and blanks", "decorated, comments between decorators",
                 "deeper comments after a body", "async, with, try, match"):
        code = LAYOUTS[name]
        assert parse_source(code).deep_equals(cst.parse_module(code)) and parse_source(code).code == code
    checked = CSTNode.__post_init__
    with pytest.raises(cst.ParserSyntaxError):
        parse_source("def f(:\n")
    assert CSTNode.__post_init__ is checked
    with pytest.raises(cst.CSTValidationError):  # nodes built by hand are checked as before
        cst.Name("not a name")


def test_the_text_filter_finds_what_one_alternation_finds():
    import re

    from migrate.convert.walker import _interesting, _rule_words
    for target in ("ms_core", "mindspore"):
        rules = _rule_words(target)
        words = rules.pattern
        aliases = ("nn", "F", "torch")
        whole = re.compile(r"\b(?:" + "|".join(aliases) + r")\b|" + words)
        for text in ("x = nn.Linear(2, 3)", "y = helper(a)", "z = F", "a.view(2)", "w = x[:, :]",
                     "attn(q, k, value=v)", "b.add_(1)", "c = value == 2", "torch_like = 1", "Fx = 2"):
            assert (_interesting(aliases, target).search(text) is None) == (whole.search(text) is None), text
        assert _interesting((), target).search("y = helper(a)") is None


def test_members_of_a_class_are_found_where_their_lines_can_be_told():
    from migrate.convert.verbatim import _Input
    code = LAYOUTS["classes"]
    source = _Input(cst.parse_module(code), code, statement_starts(ast.parse(code)))
    assert source.bounds == [1, 16, 23, 26, 34]
    # A's members: the docstring, f (its comments above), `x = 1; y = 2`, g; the class's footer comment after
    assert source.member_bounds(0) == [2, 3, 10, 13, 15]
    assert source.member_bounds(1) == [19, 21, 23]
    assert source.member_bounds(2) is None  # `class C: pass`: no block
    assert source.member_bounds(3) is None  # a decorator continued with a backslash


class _Reshape(cst.CSTTransformer):
    """Every indented block changed one way: its last statement replaced, or its first, or a new
    indentation, or each `if`'s body put in the place of the `if` (one level out)."""

    def __init__(self, how: str):
        self.how = how

    def leave_IndentedBlock(self, original, updated):
        body = list(updated.body)
        if self.how == "last":
            body[-1] = cst.parse_statement("replaced = 1\n")
        elif self.how == "first":
            body[0] = cst.parse_statement("replaced = 1\n")
        elif self.how == "indent":
            return updated.with_changes(indent="\t")
        return updated.with_changes(body=body)

    def leave_If(self, original, updated):
        if self.how != "hoist" or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        return cst.FlattenSentinel(updated.body.body)


@pytest.mark.parametrize("name", list(TEXTS))
def test_statements_kept_inside_changed_ones_are_what_libcst_prints(name):
    from migrate.convert.cst import statement_spans
    code = TEXTS[name]
    tree, module = _parsed(code)
    if tree is None:
        pytest.skip("not Python: nothing is printed")
    try:
        module.code
    except RecursionError:
        pytest.skip("nested too deeply for libcst to print")
    starts = statement_starts(tree)._replace(lines=tuple(statement_spans(code)[0]))
    for how in ("last", "first", "indent", "hoist"):
        try:
            new = module.visit(_Reshape(how))
        except (cst.CSTValidationError, TypeError, ValueError):  # (an `if` where one statement must be)
            continue
        assert module_code(new, module, code, starts) == new.code, (name, how)


def test_statements_inside_a_changed_function_are_copied_from_the_input():
    from migrate.convert.cst import statement_spans
    from migrate.convert.verbatim import _Input
    code = ("def f(a):\n    x = a  +  1   # spaced\n\n    # about y\n    if x:\n        y = 2\n    else:\n"
            "        y = 3\n    return y\n")
    module = cst.parse_module(code)
    source = _Input(module, code, statement_starts(ast.parse(code))._replace(lines=tuple(statement_spans(code)[0])))
    fn = module.body[0]
    assert source.nested(fn.body.body[0], "    ") == "    x = a  +  1   # spaced\n"
    assert source.nested(fn.body.body[1], "    ") == "\n    # about y\n    if x:\n        y = 2\n    else:\n" \
                                                    "        y = 3\n"
    assert source.nested(fn.body.body[1], "  ") is None  # printed elsewhere at another indentation
    assert source.nested(fn.body.body[2], "    ") is None  # the last of its block: its end is not counted
    assert source.nested(fn.body.body[1].body.body[0], "        ") is None  # the only one of its block
