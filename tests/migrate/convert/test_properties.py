"""Properties of every conversion, on generated programs (issue 13).

Whatever the program: no exception escapes, what comes out parses, converting twice equals
converting once, a file without a torch import comes back byte-identical, and every comment is
kept. Programs come from hypothesmith (arbitrary Python) and from our grammar over the mapping
tables (tests/migrate/convert/torch_programs.py). The budget is a few seconds with a fixed derandomised
seed; bench/fuzz.py runs the same properties for minutes.
"""
import ast

import hypothesmith
from hypothesis import HealthCheck, assume, given, settings

from migrate.convert.guarded import convert_text
from tests.migrate.convert.torch_programs import comments, examine, torch_programs

SMALL = settings(max_examples=25, derandomize=True, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.filter_too_much])
TINY = settings(SMALL, max_examples=6)


def _parses(src: str) -> bool:
    try:
        ast.parse(src)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


@SMALL
@given(torch_programs())
def test_generated_torch_programs_keep_every_property(src):
    assert _parses(src)
    assert examine(src, caught=False) == []


@TINY
@given(hypothesmith.from_grammar())
def test_generated_python_without_torch_is_byte_identical(src):
    assume(_parses(src) and "torch" not in src)
    res = convert_text(src)
    assert res.error is None and res.code == src


@TINY
@given(hypothesmith.from_grammar())
def test_generated_python_with_a_torch_import_keeps_every_property(src):
    src = "import torch\n" + src
    assume(_parses(src))
    assert examine(src, caught=False) == []


def test_examine_sees_each_broken_property(monkeypatch):
    """The properties can fail: a converter that drops comments, or that is not idempotent, or
    that returns invalid code, is caught."""
    import migrate.convert as mc
    src = "import torch\nx = torch.ones(2)  # keep\n"
    assert examine(src) == [] and comments(src) == {"keep": 1}
    real = mc.convert_source

    def drops_comments(code, target="ms_core", **selection):
        res = real(code, target, **selection)
        res.code = res.code.replace("  # keep", "")
        return res
    monkeypatch.setattr(mc, "convert_source", drops_comments)
    assert [k for k, _ in examine(src)] == ["lost comment"]

    def grows(code, target="ms_core", **selection):
        res = real(code, target, **selection)
        res.code += "y = 1\n"
        return res
    monkeypatch.setattr(mc, "convert_source", grows)
    assert [k for k, _ in examine(src)] == ["non-idempotent"]

    def breaks(code, target="ms_core", **selection):
        res = real(code, target, **selection)
        res.code += "def (:\n"
        return res
    monkeypatch.setattr(mc, "convert_source", breaks)
    assert [k for k, _ in examine(src)] == ["invalid output"]
    assert examine(src, caught=False) == []  # the guard left the file as it was


def test_examine_sees_generated_code_reading_a_builtin_the_file_binds(monkeypatch):
    import migrate.convert as mc
    src = "import torch.nn as nn\ndef len(v):\n    return 0\nm = nn.Conv2d(3, 4, 3, padding=p)\n"
    assert examine(src) == []
    real = mc.convert_source

    def bare(code, target="ms_core", **selection):  # the helpers as they were before F11's fix
        res = real(code, target, **selection)
        res.code = res.code.replace("_builtins.", "")
        return res
    monkeypatch.setattr(mc, "convert_source", bare)
    assert ("invalid output", "inlined runtime code reads len, which the file binds") in examine(src)
