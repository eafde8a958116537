"""Generated PyTorch programs, and the properties every conversion must have.

`torch_programs()` is a hypothesis strategy over a small grammar of our own whose leaves are the
mapping tables themselves (`mappings.load_tables()`): every call, layer, optimizer and tensor
method the converter knows, referenced through every import style (`import torch`,
`import torch.nn as nn`, `from torch import nn`, `from torch.nn import Linear`, `import torch as T`),
with arguments drawn from the table's signature (required ones, a random subset of the optional
ones by position or keyword, odd values, `*args`, unknown keywords), inside functions, classes,
loops, `with torch.no_grad()` blocks and training loops, and with a uniquely numbered comment
on many lines (own lines, line ends, inside multi-line calls).

`examine(src)` converts a program and returns the broken properties: the output parses (and
its generated code reads no builtin that the file binds), converting twice equals converting
once, a file without a torch import is byte-identical, every comment is kept, no exception
escapes. Used by tests/migrate/test_properties.py and
bench/fuzz.py.
"""
from __future__ import annotations

import ast
import io
import keyword
import tokenize
from collections import Counter

from hypothesis import strategies as st

from mappings import load_tables

ENTRIES = load_tables()
CALLABLES = sorted(k for k in ENTRIES if k.startswith("torch."))
TENSOR_METHODS = sorted(k for k in ENTRIES if k.startswith("Tensor."))
MODULE_METHODS = sorted(k for k in ENTRIES if k.startswith("Module."))
LAYERS = sorted(k for k in CALLABLES if k.startswith("torch.nn.") and k.split(".")[-1][:1].isupper()
                and ".functional." not in k and ".init." not in k and ".parallel" not in k)

# Import styles: (import line, {qualified prefix: local name}) and from-imports of single names.
MODULE_IMPORTS = [
    ("import torch", {"torch": "torch"}),
    ("import torch as T", {"torch": "T"}),
    ("import torch.nn as nn", {"torch.nn": "nn"}),
    ("from torch import nn", {"torch.nn": "nn"}),
    ("import torch.nn.functional as F", {"torch.nn.functional": "F"}),
    ("from torch.nn import functional as F", {"torch.nn.functional": "F"}),
    ("import torch.optim as optim", {"torch.optim": "optim"}),
    ("from torch import optim", {"torch.optim": "optim"}),
    ("from torch.nn import init", {"torch.nn.init": "init"}),
    ("import torch.nn", {"torch": "torch"}),
]
# user code that binds names of builtins which the converter's generated code may call
SHADOWING = ["list = [n]", "max = n", "tuple = None", "def len(v):\n    return 0", "zip = dict",
             "isinstance = print", "from torch import any, all, sum, abs, round, pow"]
SCALARS = ["0", "1", "2", "3", "-1", "0.5", "0.1", "1e-3", "True", "False", "None", "'mean'", "'same'",
           "'valid'", "'zeros'", "'sum'", "'none'", "n", "k * 2", "1 - p", "(2, 3)", "[1, 2]", "x", "-x",
           "cfg['lr']", "lambda e: 0.9 ** e", "f(1)", "'cuda'", "torch.float32", "x.shape[0]"]


class Names:
    """Comment numbers for one program."""

    def __init__(self):
        self.counter = 0

    def comment(self) -> str:
        self.counter += 1
        return f"# c{self.counter} note"


@st.composite
def _value(draw, param_default=None):
    if param_default is not None and draw(st.integers(0, 3)) == 0:
        return param_default
    return draw(st.sampled_from(SCALARS))


@st.composite
def _arguments(draw, entry, multiline_comments=None):
    """The argument list of a call to ``entry``, from its signature when the table has one.
    ``multiline_comments`` (a :class:`Names`) allows one argument per line with comments."""
    args = []
    params = entry.params or ()
    if not params:
        args = [draw(_value()) for _ in range(draw(st.integers(0, 2)))]
    else:
        by_keyword = False
        for p in params:
            if p.kwargs:
                continue  # **kwargs: the unknown keyword below stands for it
            if p.star:
                if not by_keyword:  # positional values never follow a keyword
                    args += [draw(st.sampled_from(["2", "3", "n", "4"])) for _ in range(draw(st.integers(0, 3)))]
                by_keyword = True
                continue
            if p.default is None and not by_keyword:
                args.append(draw(_value()))
                continue
            choice = draw(st.integers(0, 4))
            if choice == 0 and not by_keyword:
                args.append(draw(_value(p.default)))
            elif choice == 1:
                args.append(f"{p.name}={draw(_value(p.default))}")
                by_keyword = True
            elif p.default is None:
                args.append(f"{p.name}={draw(_value())}")
                by_keyword = True
    extra = draw(st.integers(0, 12))
    if extra == 0:
        args.append("*args")
    elif extra == 1:
        args.append("**kwargs")
    elif extra == 2:
        args.append("unknown_kw=1")
    if multiline_comments is not None and args and draw(st.booleans()):
        # one argument per line, some with a comment: the rewrite must keep them
        lines = [f"{a},  {multiline_comments.comment()}" if draw(st.booleans()) else f"{a},"
                 for a in args]
        return "\n" + "".join(f"    {ln}\n" for ln in lines)
    return ", ".join(args)


def _reference(draw, qualname, aliases, from_names):
    """How the program names ``qualname``, given its imports (adds a from-import if chosen)."""
    options = []
    for prefix, local in aliases.items():
        if qualname == prefix:
            options.append(local)
        elif qualname.startswith(prefix + "."):
            options.append(local + qualname[len(prefix):])
    module, _, name = qualname.rpartition(".")
    if module and not keyword.iskeyword(name) and name not in ("x", "y", "n", "k", "p", "f", "model", "opt"):
        options.append(("from", module, name))
    choice = draw(st.sampled_from(options))
    if isinstance(choice, tuple):
        from_names.add((choice[1], choice[2]))
        return choice[2]
    return choice


@st.composite
def _call(draw, aliases, from_names, names, pool=None):
    pool = pool or CALLABLES
    qualname = draw(st.sampled_from(pool))
    ref = _reference(draw, qualname, aliases, from_names)
    entry = ENTRIES[qualname]
    return f"{ref}({draw(_arguments(entry, names))})"


@st.composite
def _simple(draw, aliases, from_names, names):
    """One simple statement (maybe several lines, for multi-line calls)."""
    kind = draw(st.integers(0, 9))
    if kind == 8:
        return draw(_in_fstring(aliases, from_names, names))
    if kind == 9:
        return draw(_multiline_receiver(names))
    if kind <= 2:
        target = draw(st.sampled_from(['y', 'z', 'layer', 'out']))
        call = draw(_call(aliases, from_names, names))
        return f"{target} = {call}"
    if kind == 3:
        method = draw(st.sampled_from(TENSOR_METHODS)).split(".", 1)[1]
        return f"y = x.{method}({draw(_arguments(ENTRIES['Tensor.' + method]))})"
    if kind == 4:
        method = draw(st.sampled_from(MODULE_METHODS)).split(".", 1)[1]
        return f"r = model.{method}({draw(_arguments(ENTRIES['Module.' + method]))})"
    if kind == 5:
        return draw(_call(aliases, from_names, names))
    if kind == 6:
        return f"x = x.{draw(st.sampled_from(['add_', 'mul_', 'clamp_', 'zero_', 'abs']))}(1)"
    return draw(st.sampled_from(["n = 3", "k = n + 1", "s = 'torch.nn.Linear is text'", "pass",
                                 "print(x.shape)", "del y", "assert n > 0", "x = x + 1", *SHADOWING]))


@st.composite
def _in_fstring(draw, aliases, from_names, names):
    """A torch expression inside an f-string (its replacement must not need the f-string's
    quotes), maybe inside a second f-string with the other quote."""
    if "torch" in aliases and draw(st.booleans()):
        attr = draw(st.sampled_from(["__version__", "float32", "ones(2, 3)", "cuda.is_available()"]))
        inner = f"{aliases['torch']}.{attr}"
    elif draw(st.booleans()):
        method = draw(st.sampled_from(TENSOR_METHODS)).split(".", 1)[1]
        inner = f"x.{method}({draw(_arguments(ENTRIES['Tensor.' + method]))})"
    else:
        inner = draw(_call(aliases, from_names, None))
    # before Python 3.12 an f-string's expressions cannot hold its own quote
    quote = draw(st.sampled_from([q for q in ("'", '"') if q not in inner] + ["'" * 3]))
    text = f"f{quote}v={{{inner}}}{quote}"
    other = "'" if quote == '"' else '"'
    if len(quote) == 1 and other not in inner and draw(st.booleans()):
        text = f"f{other}<{{{text}}}>{other}"
    return f"s = {text}"


@st.composite
def _multiline_receiver(draw, names):
    """A method call whose receiver spans lines, with comments inside (what a marker quotes of
    it must stay one line)."""
    method = draw(st.sampled_from(["add_", "mul_", "clamp_", "zero_", "copy_", "abs", "float", "min", "sum"]))
    arg = "" if method in ("zero_", "abs", "float", "min", "sum") else "1"
    receiver = draw(st.sampled_from([
        "x.view(\n        -1\n    )",
        "x[\n        0  " + names.comment() + "\n    ]",
        "(x  " + names.comment() + "\n     .norm(dim=1))",
        "x.data",
    ]))
    return f"y = {receiver}.{method}({arg})"


def _indent(block: str, level: int = 1) -> str:
    pad = "    " * level
    return "".join(pad + ln + "\n" if ln.strip() else "\n" for ln in block.splitlines())


@st.composite
def _block(draw, aliases, from_names, names, depth=0):
    """A few statements, compound ones while ``depth`` allows."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9 if depth < 2 else 3))
        stmt = draw(_simple(aliases, from_names, names)) if kind <= 3 else None
        comment = names.comment() if draw(st.integers(0, 2)) == 0 else None
        if comment and draw(st.booleans()):
            out.append(comment)  # a comment on its own line
            comment = None
        if kind <= 3:
            lines = stmt.split("\n")
            if comment and not lines[0].rstrip().endswith(("(", ",")):
                lines[0] += "  " + comment
            out.append("\n".join(lines))
            continue
        body = draw(_block(aliases, from_names, names, depth + 1))
        torch_ref = _reference(draw, "torch", aliases, set()) if "torch" in aliases else None
        head = {
            4: "for i in range(2):",
            5: "if n > 1:",
            6: (f"with {torch_ref}.no_grad(" + (f"  {names.comment()}\n" if draw(st.booleans()) else "") + "):")
            if torch_ref else "with ctx():",
            7: "def step(x, y):",
            8: "while n < 0:",
            9: "try:",
        }[kind] + (f"  {comment}" if comment else "")
        text = head + "\n" + _indent(body)
        if kind == 9:
            text += "except Exception:  " + names.comment() + "\n    pass\n"
        out.append(text.rstrip("\n"))
    return "\n".join(out)


@st.composite
def _module_class(draw, aliases, from_names, names, index):
    base = _reference(draw, "torch.nn.Module", aliases, from_names)
    layers = [f"self.l{j} = {draw(_call(aliases, from_names, names, LAYERS))}"
              for j in range(draw(st.integers(1, 3)))]
    body = ["def __init__(self):", "    super().__init__()"] + ["    " + ln for ln in
                                                               "\n".join(layers).split("\n")]
    body += ["", "def forward(self, x):  " + names.comment()]
    body += ["    x = self.l0(x)", "    return x"]
    return f"class Net{index}({base}):\n" + _indent("\n".join(body))


@st.composite
def _training_loop(draw, aliases, from_names, names):
    opt = _reference(draw, draw(st.sampled_from(["torch.optim.SGD", "torch.optim.Adam", "torch.optim.AdamW"])),
                     aliases, from_names)
    loss = _reference(draw, "torch.nn.functional.mse_loss", aliases, from_names)
    c = [names.comment() if draw(st.booleans()) else "" for _ in range(4)]
    return "\n".join([
        f"opt = {opt}(model.parameters(), lr=0.1)",
        "for xb, yb in data:",
        f"    opt.zero_grad()  {c[0]}".rstrip() if not draw(st.booleans()) else "    opt.zero_grad()",
        f"    out = model(xb)  {c[1]}".rstrip(),
        f"    loss = {loss}(out, yb)  {c[2]}".rstrip(),
        "    loss.backward()",
        "    opt.step()" + ("" if draw(st.booleans()) else f"  {c[3]}".rstrip()),
    ])


def _from_import(draw, module: str, name: str, names: Names) -> str:
    """``from module import name``, on one line or in parentheses with comments inside."""
    if draw(st.integers(0, 3)):
        return f"from {module} import {name}"
    return f"from {module} import (  {names.comment()}\n    {name},  {names.comment()}\n)"


@st.composite
def torch_programs(draw):
    """A PyTorch program (valid Python) over the mapping tables; see the module docstring.
    Names that shadow builtins are drawn too (``from torch import max``, ``from torch.hub
    import list``): the converter's generated code must not depend on what the file binds."""
    names = Names()
    imports = draw(st.lists(st.sampled_from(MODULE_IMPORTS), min_size=1, max_size=4, unique_by=lambda i: i[0]))
    aliases = {}
    for _, alias in imports:
        aliases.update(alias)
    from_names: set = set()
    parts = []
    if draw(st.booleans()):
        parts.append('"""A generated module."""')
    if "torch" in aliases:
        parts.append(f"x = {aliases['torch']}.randn(2, 3)  {names.comment()}")
    else:
        parts.append("x = make_tensor()")
    parts.append("model = make_model()\nn = 2\np = 0.1")
    for k in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 5))
        if kind <= 2:
            parts.append(draw(_block(aliases, from_names, names)))
        elif kind == 3:
            parts.append(draw(_module_class(aliases, from_names, names, k)))
        elif kind == 4:
            parts.append(draw(_training_loop(aliases, from_names, names)))
        else:
            parts.append(names.comment())
    header = [line for line, _ in imports] + [_from_import(draw, m, n, names) for m, n in sorted(from_names)]
    if draw(st.booleans()):  # a comment among the imports is kept (issue 13 item 6, fixed)
        header.insert(draw(st.integers(0, len(header))), names.comment())
    text = "\n".join(header) + "\n\n" + "\n".join(parts) + "\n"
    style = draw(st.integers(0, 9))
    if style == 0:
        text = text.replace("\n", "\r\n")
    elif style == 1:
        text = text.replace("    ", "\t")
    return text


# ---- the properties -------------------------------------------------------------------------
def comments(code: str) -> Counter:
    """The comments of ``code`` (text after '#', stripped), without the converter's markers."""
    found = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT and not tok.string.startswith("# migrate:"):
                found[tok.string[1:].strip()] += 1
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def imports_torch(code: str) -> bool:
    """True when the program has an import of torch (or torchvision) anywhere."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in ("torch", "torchvision")
                                                for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and \
                (node.module or "").split(".")[0] in ("torch", "torchvision"):
            return True
    return False


KINDS = ("crash", "invalid output", "non-idempotent", "lost comment", "changed non-torch file")


def examine(src: str, target: str = "ms_core", caught: bool = True) -> list[tuple[str, str]]:
    """Convert ``src`` and return the broken properties as (kind, detail) pairs, ``kind`` one of
    :data:`KINDS`. ``src`` must be valid Python.

    Args:
        caught: also report the converter's failures that the guards of
            :func:`migrate.guarded.convert_text` catch (an exception, or output that would not
            compile, turned into "file left unchanged" with an error): the file was not converted
            (bench/fuzz.py). False checks the command's contract only: nothing escapes, whatever
            comes out parses (the test suite).
    """
    from migrate.convert.guarded import convert_text
    try:
        res = convert_text(src, target)
    except BaseException as exc:  # noqa: BLE001  (the property is that nothing escapes)
        return [("crash", f"{type(exc).__name__} escaped: {exc}")]
    if res.error is not None:
        if res.code != src:
            return [("crash", f"error set but the input was changed: {res.error}")]
        if caught and ("would not compile" in res.error or "not valid Python" in res.error):
            return [("invalid output", res.error)]
        if caught and res.error.startswith("internal error"):
            return [("crash", res.error)]
        return []  # a refusal with a reason (too deeply nested...), the file left as it was
    problems = []
    from migrate.convert.guarded import python_error
    # what compiles comes out compiling (a parameter named twice parses but does not compile)
    error = python_error(res.code, compiled=python_error(src, compiled=True) is None)
    if error is not None:
        return [("invalid output", error)]
    if res.runtime:  # the same file standing alone: the runtime's definitions inlined
        alone = convert_text(src, target, runtime="")
        shadowed = shadowed_in_generated(alone.code) if alone.error is None else []
        if shadowed:
            problems.append(("invalid output",
                             f"inlined runtime code reads {', '.join(shadowed)}, which the file binds"))
        if alone.error is None and convert_text(alone.code, target, runtime="").code != alone.code:
            problems.append(("non-idempotent", "a second conversion changed the output with the runtime inlined"))
    if not imports_torch(src) and res.code != src:
        problems.append(("changed non-torch file", "the output differs from the input"))
    again = convert_text(res.code, target)
    if (again.error is not None and caught) or again.code != res.code:
        problems.append(("non-idempotent", again.error or "a second conversion changed the output"))
    lost = comments(src) - comments(res.code)
    if lost:
        problems.append(("lost comment", ", ".join(sorted(lost))))
    return problems


def shadowed_in_generated(code: str) -> list[str]:
    """The builtins that the runtime's definitions inlined into the file read as bare names while
    the module binds them: they would run the file's names, not Python's."""
    import libcst as cst

    from migrate.convert.builtin_names import references
    from migrate.convert.names import block_bindings
    from migrate.convert.runtime_files import BEGIN
    from migrate.convert.torch_signature import runtime_statements
    if BEGIN not in code:
        return []  # no inlined block
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return []
    generated = runtime_statements(module.body)
    reads = {name for st in generated for name, _, _ in references(module.code_for_node(st).strip())}
    return sorted(reads & block_bindings(module.body)) if reads else []


_TRAINING_CALL = ("zero_grad(", ".step(", ".backward(", "unscale_(", ".update(", ".scale(")


def comment_place(src: str, comment: str) -> str:
    """Where a comment sits, as a category for grouping lost comments: 'above'/'on' + what the
    statement is (a torch import, a training-loop call the training rewrite replaces, a
    `with` block, a decorator...), or 'inside the arguments of a call'."""
    lines = io.StringIO(src).readlines()  # the lines tokenize numbers (not splitlines': \x1c...)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return "unknown"
    depth = 0
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.COMMENT and tok.string[1:].strip() == comment:
            row = tok.start[0] - 1
            if depth > 0:
                return "inside the arguments of a call"
            code = lines[row][: tok.start[1]].strip()
            where = "on"
            if not code:
                where = "above"
                nxt = row + 1
                while nxt < len(lines) and (not lines[nxt].strip() or lines[nxt].strip().startswith("#")):
                    nxt += 1
                code = lines[nxt].strip() if nxt < len(lines) else ""
                if not code:
                    return "at the end of the file"
            return f"{where} {_statement_kind(code)}"
    return "unknown"


def _statement_kind(code: str) -> str:
    if code.startswith(("import ", "from ")) and "torch" in code:
        return "a torch import"
    if code.startswith(("import ", "from ")):
        return "an import"
    if any(c in code for c in _TRAINING_CALL):
        return "a training-loop call (zero_grad/step/backward/scaler)"
    if code.startswith("with ") and "grad" in code:
        return "a no_grad block"
    words = code.split("(")[0].split("=")[0].split()
    head = words[0] if words else ""
    if head in ("def", "class", "for", "while", "if", "elif", "else:", "try:", "except", "with", "return"):
        return f"a {head.rstrip(':')} statement"
    return "a statement"
