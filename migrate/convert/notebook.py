"""Jupyter notebooks: convert the code cells, keep everything else (markdown, outputs, metadata).

The code cells are converted together, as one program, because a notebook is one: the imports of
the first cell bind the names the later cells use. Each cell is preceded in that program by a
statement of its own (``__migrate_cell_3__``), a boundary the converter leaves alone, and the
result is cut back into cells at those statements. Markers land in the cell as comments.

IPython syntax that is not Python (``%magic``, ``!shell``, ``x = !cmd``, ``obj?``, automagics
such as ``pip install x``) is replaced by a placeholder statement for the conversion and put
back as it was. Cell magics whose body is Python (``%%time``) are converted; others
(``%%bash``, ``%%writefile``) are left as they are.

Notebooks are read and written with ``nbformat`` (Jupyter's own library, the optional extra
``notebook``): without it a notebook is refused with a message saying how to install it.
"""
from __future__ import annotations

import ast
import re

from migrate.convert.changes import Change, ConvertResult
from migrate.convert.registry import EVERYTHING, RuleSelection
from migrate.convert.runtime_files import RUNTIME_NAME

INSTALL_HINT = "converting notebooks needs nbformat: pip install 'ms-migrate[notebook]' (or nbformat)"
# Cell magics whose body is Python code.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
# Line magics IPython runs without the % (automagic), as they appear in notebooks.
AUTOMAGICS = {"pip", "conda", "cd", "pwd", "ls", "env", "load_ext", "reload_ext", "matplotlib",
              "autoreload", "who", "whos", "run", "timeit", "time", "pylab", "mkdir", "cat", "rm"}
_CELL = "__migrate_cell_{}__"
_MAGIC = "__migrate_magic_{}__"
_CELL_LINE = re.compile(r"^__migrate_cell_(\d+)__\n", re.M)
_CONT = "  # continued"
_MAGIC_LINE = re.compile(r"^([ \t]*)__migrate_magic_(\d+)__(  # continued)?[ \t]*$")
_MAGIC_ASSIGN = re.compile(r"^[\w\s,.\[\]()*]+?=\s*[%!]")


class _NotPython(ValueError):
    """A code cell that is neither Python nor IPython syntax we can keep."""


def _is_magic_line(stripped: str) -> bool:
    if stripped.startswith(("%", "!")) or _MAGIC_ASSIGN.match(stripped):
        return True
    if stripped.endswith("?") and "#" not in stripped:
        return True  # obj? / obj?? (help)
    word, _, rest = stripped.partition(" ")
    return word in AUTOMAGICS and bool(rest) and rest[0] not in "=([.,:+-*/%<>!&|^@"


def mask_magics(source: str, magics: list[str]) -> str | None:
    """Replace IPython-only lines of a cell by placeholder statements (appending their text to
    ``magics``); return the Python text, or None for a cell that is not Python at all.

    Raises:
        _NotPython: the cell does not parse even with its IPython lines masked.
    """
    lines = source.split("\n")
    start = 0
    if lines and lines[0].startswith("%%"):
        name = lines[0][2:].split(" ", 1)[0]
        if name not in PYTHON_CELL_MAGICS:
            return None
        magics.append(lines[0])
        lines[0] = _MAGIC.format(len(magics) - 1)
        start = 1
    text = "\n".join(lines)
    try:
        ast.parse(text)
        return text
    except SyntaxError:
        pass
    except (RecursionError, MemoryError, ValueError):
        raise _NotPython("too deeply nested or not text") from None
    i = start
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped and _is_magic_line(stripped):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            k = i
            while True:  # a magic continued with backslashes: one placeholder per physical line
                magics.append(lines[k])
                lines[k] = indent + _MAGIC.format(len(magics) - 1) + ("" if k == i else _CONT)
                if not magics[-1].endswith("\\") or k + 1 >= len(lines):
                    break
                k += 1
            i = k
        i += 1
    text = "\n".join(lines)
    try:
        ast.parse(text)
    except SyntaxError as exc:
        raise _NotPython(f"line {exc.lineno}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise _NotPython("too deeply nested or not text") from None
    return text


def _unmask(text: str, magics: list[str], used: set) -> str:
    """Put the IPython lines back in place of their placeholders (recording which in ``used``)."""
    out = []
    for line in text.split("\n"):
        m = _MAGIC_LINE.match(line)
        if m is None:
            out.append(line)
            continue
        k = int(m.group(2))
        used.add(k)
        original = magics[k]
        # the first line of a magic takes the placeholder's indentation (the converter may have
        # moved it into a block); continuation lines and cell magics stay exactly as they were
        out.append(original if m.group(3) or original.startswith("%%") else m.group(1) + original.lstrip())
    return "\n".join(out)


def convert_notebook(raw: bytes, target: str = "ms_core", rules: RuleSelection = EVERYTHING,
                     runtime: str = RUNTIME_NAME):
    """Convert a notebook's code cells.

    Args:
        raw: the ``.ipynb`` file's bytes.
        target: ``"ms_core"`` or ``"mindspore"``.
        rules: which rewrites run (``--select``/``--disable``).
        runtime: the module the cells import the runtime from (a copy beside the notebook), or
            "" to write the definitions into the first cell (see ``convert_source``).

    Returns:
        (text before, ConvertResult, bytes to write): the result's ``code`` is the notebook's
        JSON text, its changes carry cell-relative line numbers (the note names the cell);
        the bytes are ``raw`` itself when no cell changed or on any error.

    Example:
        >>> before, res, data = convert_notebook(open("train.ipynb", "rb").read())  # doctest: +SKIP
    """
    try:
        import nbformat
    except ImportError:
        return None, ConvertResult("", error=INSTALL_HINT), raw
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, ConvertResult("", error=f"not a notebook: not UTF-8 JSON (byte {exc.start})"), raw
    fail = lambda msg: (text, ConvertResult(text, error=msg), raw)  # noqa: E731
    try:
        nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT, capture_validation_error={})
    except RecursionError:
        return fail("not a valid notebook (JSON nested too deeply)")
    except Exception as exc:  # nbformat raises NotJSONError, KeyError, ... on broken files
        return fail(f"not a valid notebook ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})")
    if isinstance(nb, dict) and nb.get("nbformat") != 4:
        return fail(f"notebook format {nb.get('nbformat')}: open and save it in Jupyter (format 4) first")
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return fail("not a valid notebook: it has no 'cells' list")
    language = (nb.get("metadata", {}).get("kernelspec", {}).get("language")
                or nb.get("metadata", {}).get("language_info", {}).get("name") or "python")
    if str(language).lower() != "python":
        return text, ConvertResult(text), raw  # nothing of torch's in an R or Julia notebook
    return _convert_cells(nbformat, nb, text, raw, target, rules, runtime)


def _convert_cells(nbformat, nb, text: str, raw: bytes, target: str, rules: RuleSelection, runtime: str):
    from migrate.convert.guarded import convert_text

    def fail(msg):
        return text, ConvertResult(text, error=msg), raw

    magics: list[str] = []
    parts, cells, where = [], [], []  # program pieces; (cell index, masked source); line map
    line = 1
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code" or not isinstance(cell.get("source"), str):
            continue
        try:
            masked = mask_magics(cell["source"], magics)
        except _NotPython as exc:
            return fail(f"cell {index + 1}, {exc}: not Python nor IPython syntax; notebook left unchanged")
        if masked is None:
            continue
        parts.append(f"{_CELL.format(len(cells))}\n{masked}\n")
        cells.append((index, masked))
        where.append(line + 1)  # program line of the cell's first line
        line += 2 + masked.count("\n")
    if not cells:
        return text, ConvertResult(text), raw
    program = "".join(parts)
    result = convert_text(program, target, rules, runtime=runtime)
    if result.error is not None:
        return fail(_cell_error(result.error, where, cells))
    if result.code == program:
        return text, ConvertResult(text, _cell_changes(result.changes, where, cells), result.torch_sites,
                                   runtime=result.runtime), raw
    pieces = _CELL_LINE.split(result.code)
    # pieces: [text before cell 0, "0", cell 0, "1", cell 1, ...]
    if [int(k) for k in pieces[1::2]] != list(range(len(cells))):
        return fail("internal error: the conversion moved code across cells; notebook left unchanged")
    chunks = pieces[2::2]
    chunks[0] = pieces[0] + chunks[0]  # imports the converter put above the first cell
    used: set = set()
    for (index, masked), chunk in zip(cells, chunks):
        body = chunk[:-1] if chunk.endswith("\n") else chunk
        new = _unmask(body, magics, used)
        if body == masked:
            continue  # nothing converted in this cell: keep its text exactly
        if not nb["cells"][index]["source"].endswith("\n"):
            new = new.rstrip("\n")
        nb["cells"][index]["source"] = new
    if used != set(range(len(magics))):
        return fail("internal error: the conversion lost an IPython line; notebook left unchanged")
    out = nbformat.writes(nb, version=nbformat.NO_CONVERT, capture_validation_error={})
    if not out.endswith("\n"):
        out += "\n"
    changes = _cell_changes(result.changes, where, cells)
    return text, ConvertResult(out, changes, result.torch_sites, runtime=result.runtime), out.encode("utf-8")


def _cell_of(line: int, where: list[int]) -> int:
    k = 0
    for i, first in enumerate(where):
        if first <= line:
            k = i
    return k


def _cell_changes(changes, where, cells) -> list[Change]:
    out = []
    for c in changes:
        k = _cell_of(c.line, where)
        note = f"cell {cells[k][0] + 1}" + (f": {c.note}" if c.note else "")
        out.append(Change(max(1, c.line - where[k] + 1), c.rule, c.label, c._before, c._after, note))
    return out


def _cell_error(error: str, where, cells) -> str:
    m = re.match(r"(.*?)line (\d+)(.*)", error)
    if m is None:
        return error + "; notebook left unchanged"
    k = _cell_of(int(m.group(2)), where)
    return f"{m.group(1)}cell {cells[k][0] + 1}, line {int(m.group(2)) - where[k] + 1}{m.group(3)}; " \
           f"notebook left unchanged"
