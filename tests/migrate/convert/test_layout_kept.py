"""Layout the rewrites keep (fuzz findings F1, F3, F4, F6 of issue 13): receivers built as text
keep their meaning, comments inside rebuilt or trimmed calls and at the end of a file are kept.
Before/after pairs, and the converted code run against torch."""
import numpy as np
import pytest
import torch

import libcst as cst
import ms_core as ms
from migrate import convert_source
from migrate.convert.call_edit import primary
from migrate.convert.comments import own_comments, split_comment_tail
from migrate.convert.precedence import fit
from tests.migrate.convert.helpers import HEADER, after, check
from tests.migrate.convert.torch_programs import comments


# ---- receivers built as text (F3) ------------------------------------------------------------
@pytest.mark.parametrize("expr,expected", [
    ("w", "w"), ("m.weight", "m.weight"), ("ws[0]", "ws[0]"), ("f(w)", "f(w)"), ("0.5", "0.5"),
    ("'s'", "'s'"), ("(a, b)", "(a, b)"), ("[a]", "[a]"), ("(a + b)", "(a + b)"),
    ("0", "(0)"), ("-1", "(-1)"), ("-w", "(-w)"), ("a + b", "(a + b)"), ("a if c else b", "(a if c else b)"),
    ("lambda: w", "(lambda: w)"), ("not w", "(not w)"), ("a < b", "(a < b)"), ("await w", "(await w)"),
])
def test_primary_parenthesises_what_an_attribute_cannot_follow(expr, expected):
    assert primary(cst.parse_expression(expr)) == expected
    # the attribute applies to the whole expression
    assert cst.ensure_type(cst.parse_expression(f"{primary(cst.parse_expression(expr))}.shape"),
                           cst.Attribute).attr.value == "shape"


@pytest.mark.parametrize("before,expected", [
    ("nn.init.zeros_(0)", "(0).assign_value(initializer(Zero(), (0).shape, (0).dtype).init_data())"),
    ("nn.init.orthogonal_(-1)", "(-1).assign_value(initializer(Orthogonal(), (-1).shape, (-1).dtype).init_data())"),
    ("nn.init.ones_(a if c else b)",
     "(a if c else b).assign_value(initializer(One(), (a if c else b).shape, (a if c else b).dtype).init_data())"),
    ("nn.init.normal_(ws[0], 0, 1)",
     "ws[0].assign_value(initializer(Normal(mean=0, sigma=1), ws[0].shape, ws[0].dtype).init_data())"),
    ("nn.init.normal_(m.weight, 0, 1)",
     "m.weight.set_data(initializer(Normal(mean=0, sigma=1), m.weight.shape, m.weight.dtype))"),
])
def test_init_on_any_expression_keeps_its_receiver(before, expected):
    check(f"{before}\n", f"{expected}\n")


def test_init_on_a_conditional_fills_the_chosen_parameter_as_torch_does():
    code = ("def f(a, b, c):\n    nn.init.constant_(a if c else b, 0.5)\n"
            "    nn.init.normal_(b if c else a, 0, 0)\n    return a, b\n")
    res = convert_source(HEADER + code)
    assert res.error is None and "# migrate: MS9" not in res.code, res.code
    t_ns, m_ns = {}, {}
    exec(compile(HEADER + code, "<torch>", "exec"), t_ns)
    exec(compile(res.code, "<converted>", "exec"), m_ns)
    for c in (True, False):
        t_out = t_ns["f"](*(torch.nn.Parameter(torch.ones(3)) for _ in "ab"), c)
        m_out = m_ns["f"](*(ms.Parameter(ms.Tensor(np.ones(3, np.float32))) for _ in "ab"), c)
        for t, m in zip(t_out, m_out):
            np.testing.assert_array_equal(m.asnumpy(), t.detach().numpy())


# ---- comments inside calls a rule rebuilds or trims (F4, F6) ----------------------------------
def test_comments_of_a_call_rebuilt_from_text_go_above_it():
    check("nn.init.xavier_normal_(\n    w,  # the weight\n    gain=2,  # for relu\n)\n",
          "# the weight\n# for relu\nw.assign_value(initializer(XavierNormal(gain=2), w.shape, w.dtype).init_data())\n")


def test_comment_on_a_dropped_argument_goes_above_the_call_and_the_call_closes_cleanly():
    check("act = nn.ReLU(\n    True,  # in place\n)\n", "# in place\nact = nn.ReLU()\n")
    check("drop = nn.Dropout(\n    0.2,  # rate\n    True,  # in place\n)\n",
          "# in place\ndrop = nn.Dropout(\n    keep_prob=0.8,  # rate\n)\n")
    check("drop = nn.Dropout(0.2,\n                  True)  # in place\n",
          "drop = nn.Dropout(keep_prob=0.8)  # in place\n")


def test_comments_lost_inside_a_block_stay_in_the_block_in_order():
    out = after("def f(w):  # head\n    if w:\n        nn.init.zeros_(  # a\n            w,  # b\n        )  # c\n")
    assert out == ("def f(w):  # head\n    if w:\n        # a\n        # b\n"
                   "        w.assign_value(initializer(Zero(), w.shape, w.dtype).init_data())  # c\n")


def test_own_comments_leave_out_the_body_of_a_compound_statement():
    node = cst.parse_statement("if x:  # head\n    # inner\n    y = 1  # end\nelse:  # other\n    pass\n")
    assert own_comments(node) == ["# head", "# other"]


# ---- comments ending a file (F1) -------------------------------------------------------------
@pytest.mark.parametrize("tail", [
    "    # tail\n", "    # a\n# b\n\n", "\t# tab\n", "  # no newline", "    # crlf\r\n", "    # cr\r",
])
def test_comment_lines_ending_a_file_are_kept(tail):
    src = "import torch\nx = torch.ones(2)\n" + tail
    if "\r" in tail:
        src = src.replace("\n", tail[-2:] if tail.endswith("\r\n") else "\r").replace("\r\r", "\r")
    out = convert_source(src).code
    assert out.endswith(tail) and "ops.ones" in out
    assert not comments(src) - comments(out)
    assert convert_source(out).code == out


def test_a_comment_tail_inside_a_function_is_kept():
    src = "import torch\ndef f():\n    x = torch.ones(2)\n  # odd indent\n"
    out = convert_source(src).code
    assert out.endswith("    x = ops.ones((2,))\n  # odd indent\n"), out


@pytest.mark.parametrize("code", [
    's = """\n  # not a comment"""\n',     # inside a string
    "x = 1 \\\n  # continued\n",          # after a line continuation
    "x = 1\n# column 0 is kept by libcst\n",
])
def test_no_tail_is_split_off_where_the_lines_are_not_trailing_comments(code):
    assert split_comment_tail(code) == (code, "")


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_the_runtime_import_and_the_inlined_runtime_use_the_file_line_ending(newline):
    src = "from torch.nn import Parameter\nw = Parameter(None, **kwargs)\n".replace("\n", newline)
    for runtime, written in (("migrate_runtime", "import TorchParameter"), ("", "class TorchParameter")):
        out = convert_source(src, runtime=runtime).code
        assert written in out
        assert out.replace(newline, "").count("\n" if newline != "\n" else "\r") == 0
        assert convert_source(out, runtime=runtime).code == out


# ---- rule results put where a call was keep their meaning (F3, in general) ---------------------
@pytest.mark.parametrize("parent,field,child,expected", [
    ("f().real", "value", "0", "(0)"),
    ("f()[0]", "value", "a if c else b", "(a if c else b)"),
    ("-f()", "expression", "a + b", "(a + b)"),
    ("-f()", "expression", "a ** b", "a ** b"),
    ("2 * f()", "right", "a * b", "(a * b)"),       # a * b on the right of * regroups
    ("f() * 2", "left", "a * b", "a * b"),          # ... on the left it does not
    ("f() ** 2", "left", "-a", "(-a)"),
    ("2 ** f()", "right", "-a", "-a"),
    ("f() ** 2", "left", "a ** b", "(a ** b)"),
    ("not f()", "expression", "a and b", "(a and b)"),
    ("f() or g()", "right", "a or b", "(a or b)"),
    ("f() < 1", "left", "a < b", "(a < b)"),
    ("f() if c else g()", "test", "a if b else d", "(a if b else d)"),
    ("f() if c else g()", "orelse", "a if b else d", "a if b else d"),
    ("[f()]", "elements", "a + b", "a + b"),
])
def test_fit_parenthesises_a_replacement_that_would_not_bind(parent, field, child, expected):
    node = cst.parse_expression(parent)
    new = fit(node, field, cst.parse_expression(child))
    assert cst.Module([]).code_for_node(new) == expected


@pytest.mark.parametrize("before,expected", [
    ("z = torch.cuda.device_count().real", "z = (0).real"),
    ("z = -torch.cuda.device_count()", "z = -0"),
    ("s = torch.amp.GradScaler('cpu', enabled=flag).get_scale()",
     "s = (ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000) "
     "if flag else ms.amp.StaticLossScaler(1.0)).get_scale()"),
    ("m = 2 * torch.nn.parallel.DistributedDataParallel(a + b)", "m = 2 * torch_distributed_data_parallel(a + b)"),
])
def test_a_rule_result_keeps_its_meaning_where_the_call_was(before, expected):
    check(f"{before}\n", f"{expected}\n")


def test_a_template_slot_taking_an_attribute_parenthesises_an_integer():
    check("y = torch.diag(2)\n",
          "y = (ops.diag_embed((2), 0) if (2).ndim == 1 else ops.diagonal((2), 0))\n")


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_the_guard_stand_in_class_uses_the_file_line_ending(newline):
    src = "import torch\ny = torch.FloatTensor(*args)  # note\n".replace("\n", newline)
    out = convert_source(src, runtime="").code  # (inlined: imported, it is one line)
    assert "class TorchMissing" in out
    assert out.replace(newline, "").count("\n" if newline != "\n" else "\r") == 0
    assert convert_source(out, runtime="").code == out
