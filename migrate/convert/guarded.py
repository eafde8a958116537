"""`convert_source` behind guards: no exception escapes, and the output is always code CPython compiles.

- Deeply nested input must first pass ``ast.parse``, CPython's own parser with its limits (200
  nested brackets, ~3000 nested expressions): what CPython rejects there never reaches libcst,
  whose native parser crashes on some of it (2000 nested parentheses overflow its stack). Other
  input is parsed by CPython only when the conversion changed it or recursed too deep.
- A RecursionError is retried once in a thread with a large stack and a high recursion limit,
  so any file CPython compiles converts, however deep its expressions.
- The output must compile (CPython's compiler refuses more than its parser: a parameter named twice), and code nested
deeper than ``DEEP_BRACKETS`` levels
  of brackets never gets deeper: a conversion that would take deeply nested code towards
  CPython's limit of 200 (199 nested parentheses becoming 200), or is otherwise invalid, leaves
  the file unchanged with an error instead.
"""
from __future__ import annotations

import ast
import sys
import contextvars
import threading
import warnings

import migrate.convert
from migrate.convert.changes import ConvertResult
from migrate.convert.cst import DEEP_BRACKETS, bracket_depth
from migrate.convert.registry import EVERYTHING, RuleSelection
from migrate.convert.runtime_files import RUNTIME_NAME

# Enough for the deepest code ast.parse accepts (~3000 nested expressions); C frames of libcst's
# code generation take a few kB each, so the stack is sized for the limit, not the other way round.
DEEP_RECURSION_LIMIT = 60_000
DEEP_STACK_BYTES = 1 << 30
TARGETS = ("ms_core", "mindspore")
def python_error(code: str, compiled: bool = False) -> str | None:
    """Return why CPython cannot parse ``code`` (one line), or None when it can. With
    ``compiled``, why it cannot compile it: the compiler also refuses what parses (a duplicate
    parameter name, ``nonlocal`` of nothing), and takes less time than building an AST."""
    try:
        if compiled:
            with warnings.catch_warnings():  # (invalid escapes in the user's strings: not ours to say)
                warnings.simplefilter("ignore")
                compile(code, "<converted>", "exec", dont_inherit=True)
        else:
            ast.parse(code)
    except SyntaxError as exc:
        return f"syntax error at line {exc.lineno}: {exc.msg}" if exc.lineno else f"cannot parse: {exc.msg}"
    except (RecursionError, MemoryError):
        return "too deeply nested for Python to compile"
    except ValueError as exc:  # null bytes
        return f"cannot parse: {exc}"
    return None


def run_deep(fn, *args):
    """Call ``fn(*args)`` in a thread with a 1 GiB stack and a high recursion limit; return its
    result or raise its exception."""
    box: dict = {}
    context = contextvars.copy_context()  # the run's facts (star_imports.OWN_PACKAGES) go along

    def target():
        try:
            box["value"] = context.run(fn, *args)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    threading.stack_size(DEEP_STACK_BYTES)
    try:
        sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        worker = threading.Thread(target=target, name="migrate-deep")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]
    return box["value"]


def convert_text(code: str, target: str = "ms_core", rules: RuleSelection = EVERYTHING,
                 inherited: dict | None = None, named_modules=frozenset(),
                 runtime: str = RUNTIME_NAME) -> ConvertResult:
    """Convert source text; never raise for any input, never return code CPython cannot parse.

    Args:
        code: Python source.
        target: ``"ms_core"`` or ``"mindspore"``.
        rules: which rewrites run (``--select``/``--disable``).
        inherited: torch aliases the file gets from a sibling by ``import *`` or by name.
        named_modules: replaced modules its package names in strings (see convert_source).
        runtime: the module the output imports the runtime from, or "" to inline it (see
            convert_source).

    Returns:
        The :class:`ConvertResult`; on any failure ``error`` holds one line and ``code`` is the
        input, unchanged.

    Raises:
        ValueError: for an unknown target (a usage error, not a property of the input).

    Example:
        >>> convert_text("import torch\\nx = " + "(" * 300 + "1" + ")" * 300 + "\\n").error
        'syntax error at line 2: too many nested parentheses'
    """
    def convert_source(text, target):  # looked up at call time: the package's public entry point
        # (validate=False: the output is compiled below, which checks more than its parse there)
        return migrate.convert.convert_source(text, target, select=rules.select, disable=rules.disable,
                                              inherited=inherited, named_modules=named_modules, runtime=runtime,
                                              validate=False)

    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: choose one of {list(TARGETS)}")
    # Deeply nested input is checked by CPython's parser before libcst sees it (libcst's native
    # parser overflows its stack on some of what CPython rejects). Other input is checked only if
    # the conversion changes it or recurses too deep: one parse fewer on the common path.
    checked = bracket_depth(code, fast=True) >= DEEP_BRACKETS
    if checked and (error := python_error(code)) is not None:
        return ConvertResult(code, error=error)
    try:
        try:
            result = convert_source(code, target)
        except RecursionError:
            if not checked and (error := python_error(code)) is not None:
                return ConvertResult(code, error=error)
            checked = True
            result = run_deep(_with_snippets, convert_source, code, target)
    except RecursionError:
        return ConvertResult(code, error="too deeply nested for the converter; file left unchanged")
    except MemoryError:
        return ConvertResult(code, error="out of memory while converting; file left unchanged")
    except Exception as exc:  # a converter bug must cost one file, not the run
        return ConvertResult(code, error=f"internal error: {type(exc).__name__}: {_one_line(exc)}; "
                                         f"file left unchanged")
    if result.error is None and result.code != code:
        if code.endswith(("\n", "\r")) and not result.code.endswith(("\n", "\r")):
            # libcst drops the last line ending of a file that uses old Mac line endings ('\r')
            result.code += "\r\n" if code.endswith("\r\n") else code[-1]
        error = python_error(result.code, compiled=True)
        if error is not None and python_error(code, compiled=True) is not None:
            # the input does not compile either (`await` outside a function): it parses
            error = python_error(result.code)
        if error is not None:
            if not checked and (input_error := python_error(code)) is not None:
                return ConvertResult(code, error=input_error)  # libcst accepted what CPython does not
            return ConvertResult(code, error=f"the converted code would not compile ({error}); "
                                             f"file left unchanged")
        if bracket_depth(result.code, fast=True) > DEEP_BRACKETS:
            before, after = bracket_depth(code), bracket_depth(result.code)
            if after > max(before, DEEP_BRACKETS):
                return ConvertResult(code, error=f"the conversion would nest brackets deeper than the "
                                                 f"input ({after} levels where it has {before}; "
                                                 f"CPython stops at 200); file left unchanged")
    return result


def _with_snippets(convert_source, code: str, target: str) -> ConvertResult:
    """Convert, and generate the report's snippets at once: on deep code, generating them later
    (when the result is pickled to the parent process) would recurse too deep outside this
    thread."""
    result = convert_source(code, target)
    for change in result.changes:
        change.to_dict()
    return result


def _one_line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
