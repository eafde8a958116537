"""The converter: PyTorch source -> ms_core / MindSpore source.

Layout (see the README, "How the converter is built"):

- ``walker``: the :class:`Converter` (one cheap walk over a libcst tree) and
  :func:`convert_source`; ``handlers``: what happens at each kind of node; ``imports``: torch
  aliases and the rewrite of import statements; ``receivers``: what an expression is known to be;
  ``scopes``: what is known inside a function or class.
- ``call_edit``: one call rewritten from its mapping-table entry; ``rules/``: the argument rules
  that table entries name, by area; ``registry``: the rule records (distinct IDs, markers,
  ``--select``/``--disable``).
- ``training/``: the training-loop pass that runs before the walk.
- ``changes``: the records of what was done; ``project``: files and directories; ``report``:
  the terminal summary and rule lines, Markdown and JSON reports; ``cst``: libcst helpers.
"""
from migrate.convert.changes import Change, ConvertResult
from migrate.convert.registry import RuleSelection
from migrate.convert.walker import Converter, convert_source

__all__ = ["Change", "ConvertResult", "Converter", "RuleSelection", "convert_source"]
