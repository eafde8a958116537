"""Boolean operations over the constants a probe leaves (``torch.cuda.is_available()`` ->
``False``) are folded: anywhere where Python's value does not depend on the other operand, in a
test also by truth, and never where an operand's evaluation would be lost. Before/after pairs,
then every case run on all inputs against the torch original with torch's answers."""
import itertools
import textwrap
import types

import pytest

from migrate import convert_source
from tests.migrate.convert.helpers import HEADER, check


def test_a_constant_on_the_left_folds_anywhere():
    check("""\
        def f(x, a):
            flash = hasattr(F, 'scaled_dot_product_attention') and a
            amp = torch.cuda.is_available() and a
            gpu = torch.cuda.is_available() or a
            cpu = not torch.cuda.is_available()
            return flash, amp, gpu, cpu
        """, """\
        def f(x, a):
            flash = a
            amp = False
            gpu = a
            cpu = True
            return flash, amp, gpu, cpu
        """)


def test_a_constant_on_the_right_folds_only_where_truth_counts():
    check("""\
        def f(x, a):
            amp = a and torch.cuda.is_available()
            if a and not torch.cuda.is_available():
                x = x + 1
            return amp, x
        """, """\
        def f(x, a):
            amp = a and False
            if a:
                x = x + 1
            return amp, x
        """)  # (`a and False` is `a` when a is falsy: 0, '', [])


def test_settled_tests_keep_their_branch():
    check("""\
        def f(x, use_flash, n):
            if not torch.is_autocast_enabled() or not use_flash:
                x = x + 1
            if use_flash and torch.cuda.is_available():
                x = x + 2
            else:
                x = x + 3
            if n > 1 or torch.cuda.is_available():
                x = x + 4
            y = 1 if torch.cuda.is_available() and use_flash else 2
            while use_flash and not torch.cuda.is_available():
                break
            z = [a for a in x if use_flash or torch.cuda.is_available()]
            return x, y, z
        """, """\
        def f(x, use_flash, n):
            x = x + 1
            x = x + 3
            if n > 1:
                x = x + 4
            y = 2
            while use_flash:
                break
            z = [a for a in x if use_flash]
            return x, y, z
        """)


def test_an_operand_that_calls_keeps_its_call():
    check("""\
        def f(x, g):
            if g() and torch.cuda.is_available():
                x = x + 1
            if g() or not torch.cuda.is_available():
                x = x + 2
            return x
        """, """\
        def f(x, g):
            if g() and False:
                x = x + 1
            if g() or True:
                x = x + 2
            return x
        """)


def test_constants_the_user_wrote_stay():
    check("""\
        def f(x, a, done):
            while True and not done():
                x = x + 1
            if DEBUG and False:
                x = 0
            if a and False or torch.cuda.is_available():
                x = 2
            return x
        """, """\
        def f(x, a, done):
            while True and not done():
                x = x + 1
            if DEBUG and False:
                x = 0
            if a and False or False:
                x = 2
            return x
        """)


def test_parentheses_stay_where_precedence_needs_them():
    check("""\
        def f(a, b, c):
            u = (torch.cuda.is_available() or a or b) and c
            v = not (a or torch.cuda.is_available())
            w = a and (torch.cuda.is_available() or b)
            return u, v, w
        """, """\
        def f(a, b, c):
            u = (a or b) and c
            v = not a
            w = a and (b)
            return u, v, w
        """)


# --- the same values as torch's, on every input ----------------------------------------------------

PROGRAM = """\
def f(a, b, g):
    r = []
    r.append(torch.cuda.is_available() and a)
    r.append(torch.cuda.is_available() or a)
    r.append(not torch.cuda.is_available() and a)
    r.append(a and not torch.cuda.is_available())
    r.append(a or torch.cuda.is_available())
    if a and not torch.cuda.is_available() or b:
        r.append('t1')
    if g(a) and torch.cuda.is_available():
        r.append('t2')
    if g(b) or not torch.cuda.is_available():
        r.append('t3')
    if not (a or torch.cuda.is_available()) and (b or not torch.cuda.is_available()):
        r.append('t4')
    r.append(1 if b and torch.cuda.is_available() else 2)
    r.append([v for v in (a, b) if v or torch.cuda.is_available()])
    return r
"""


def _run(code: str, torch_stub=None):
    namespace = {"torch": torch_stub} if torch_stub is not None else {}
    exec(compile(code, "<converted>", "exec"), namespace)
    return namespace["f"]


def test_folded_code_computes_what_torch_code_computes_on_every_input():
    """Torch's side runs with torch's answers on a machine without CUDA (the converted code's
    assumption); the calls an operand makes are counted on both sides."""
    res = convert_source(HEADER + PROGRAM)
    assert res.error is None, res.error
    converted = res.code
    assert "torch" not in converted
    stub = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False))
    original, folded = _run(textwrap.dedent(PROGRAM), stub), _run(converted)
    values = (0, 1, "", "s", [], None, True, False)
    for a, b in itertools.product(values, repeat=2):
        calls = {"torch": [], "ms": []}

        def counting(side):
            return lambda v: calls[side].append(v) or v
        want = original(a, b, counting("torch"))
        got = folded(a, b, counting("ms"))
        assert got == want, (a, b)
        assert calls["ms"] == calls["torch"], (a, b)


@pytest.mark.parametrize("target", ["ms_core", "mindspore"])
def test_converting_again_changes_nothing(target):
    code = convert_source(HEADER + PROGRAM, target).code
    assert convert_source(code, target).code == code
