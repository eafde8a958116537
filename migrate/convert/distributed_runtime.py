"""Generated code for data parallelism: the classes and functions of ``migrate/runtime/distributed.py``
(DDP's broadcasts, torch's SyncBatchNorm over ``ops.AllReduce``, ``convert_sync_batchnorm``).

Their source is read from that module's text, not imported (the converter loads no framework),
so the converted file's generated block and the runtime package hold the same code; ``ms``,
``nn`` and ``ops`` are the file's target modules there as in the runtime's ``backend``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

_MODULE = Path(__file__).resolve().parents[1] / "runtime" / "distributed.py"


def _definitions() -> dict[str, str]:
    """Each top-level class and function of the runtime module -> its source."""
    text = _MODULE.read_text(encoding="utf-8")
    return {node.name: ast.get_source_segment(text, node) for node in ast.parse(text).body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


SOURCES = _definitions()
# what each definition calls of the others (the generated block gets those too)
NEEDS = {name: tuple(other for other in SOURCES if other != name and re.search(rf"\b{other}\b", source))
         for name, source in SOURCES.items()}
