"""migrate: convert PyTorch code to ms_core / MindSpore code, and check the result.

Library use::

    from migrate import convert_source
    res = convert_source(open("model.py").read(), target="ms_core")   # or "mindspore"
    res.code        # the converted source (valid Python, comments kept)
    res.changes     # [Change(line, rule, label, before, after, note), ...]
    res.error       # None, or "syntax error at line N: ..." (then res.code is the input)

Command line: ``migrate convert PATH [-o OUT] [--target ms_core|mindspore] [--diff]
[--report FILE.md|FILE.json] [--jobs N] [--in-place]`` and ``migrate mappings [--search TEXT]``.

How it works (see ``migrate/convert.py``): one libcst parse, our own import-alias resolution,
one walk that rewrites only the nodes on the path to a change; calls are rewritten from the
mapping tables in ``mappings/`` (argument fates: rename, expression, explicit default, drop,
unsupported) plus named rules in ``migrate/rules.py``. Every change has a label (exact,
transformed, approximate, unsupported) and a rule ID: ``MS1xx`` rewrites, ``MS9xx`` markers,
which stay in the output as ``# migrate: MS9xx <reason>`` comments above code left as written.
Converting converted output changes nothing.
"""
from migrate.changes import Change, ConvertResult
from migrate.convert import Converter, convert_source

__all__ = ["Change", "ConvertResult", "Converter", "convert_source"]
from migrate.check import check  # noqa: E402,F401  (the differential checker: migrate.check(torch_net, ms_net, inputs))
