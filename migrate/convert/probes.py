"""Capability and version probes on torch, answered when converting (issue 10 class A).

Model code asks torch what it has and takes a path by the answer::

    self.flash = hasattr(torch.nn.functional, 'scaled_dot_product_attention')   # nanoGPT
    _has_silu = 'silu' in dir(torch.nn.functional)                              # geffnet
    if torch.__version__ < '1.5': ...                                           # resnest

The answer decides the model's structure (nanoGPT registers a causal-mask buffer only when the
probe says no), so the converted code must take the path torch took, and may only where the
conversion provides what that path uses: a probe is answered True when torch 2.13 has the name
(mappings/torch_names.txt) and the tables map it; False when torch lacks it; when torch has it
but the tables do not map it, False with a marker (the converted code takes the other branch).
``torch.__version__`` is the version the mappings follow; comparisons with a literal are
evaluated as torch's own version objects compare (``'2.13.0' > '2.2'``).
"""
from __future__ import annotations

import operator
import re

import libcst as cst

from migrate.convert.cst import dotted
from migrate.convert.registry import node_rule
from migrate.convert.torch_names import has_attr, is_module, torch_version

CAPABILITY_PROBE = node_rule(
    "MS190", "capability_probe",
    "Replace hasattr(torch.nn.functional, 'silu') / 'silu' in dir(F) / getattr(nn, 'SiLU', None) "
    "with the answer for torch 2.13 and the mapping tables (True, False, nn.SiLU).", examples=[
    ("ok = hasattr(F, 'silu')\n",
     "ok = True\n"),
])
VERSION_PROBE = node_rule(
    "MS191", "version_probe",
    "Replace torch.__version__ with the version the mappings follow, and compare it with a "
    "literal as torch's version objects do (torch.__version__ < '1.5' -> False).", examples=[
    ("old = torch.__version__ < '1.5'\n",
     "old = False\n"),
])

PROBE_FUNCTIONS = ("hasattr", "getattr")
def _companion_versions() -> dict[str, str]:
    """The version strings of torch and its libraries the mappings follow: torch's, and the
    torchvision / torchaudio released with it (torchvision 0.15 came with torch 2.0)."""
    major, minor = (int(p) for p in torch_version().split(".")[:2])
    return {"torch.__version__": torch_version(), "torch.version.__version__": torch_version(),
            "torchvision.__version__": f"0.{minor + 15}.0" if major == 2 else torch_version(),
            "torchaudio.__version__": torch_version()}


VERSION_NAMES = _companion_versions()
_TORCH_VERSIONS = ("torch.__version__", "torch.version.__version__")
_COMPARE = {cst.LessThan: operator.lt, cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt,
            cst.GreaterThanEqual: operator.ge, cst.Equal: operator.eq, cst.NotEqual: operator.ne}


def _string(node) -> str | None:
    return node.evaluated_value if isinstance(node, cst.SimpleString) else None


def _answer(converter, module: str, name: str) -> tuple[bool, str | None] | None:
    """(answer, reason to mark it or None) for "does torch's ``module`` have ``name``"; None
    when the module is not one the names file describes."""
    return probe_answer(converter.facts.tables, module, name)


def probe_answer(tables, module: str, name: str) -> tuple[bool, str | None] | None:
    """:func:`_answer` from the mapping ``tables`` alone (the package pre-pass reads probes too)."""
    has = has_attr(module, name)
    if has is None:
        return None
    if not has:
        return False, None
    qual = f"Tensor.{name}" if module == "torch.Tensor" else f"{module}.{name}"
    entry = tables.get(qual)
    if entry is not None and entry.label != "unsupported" and (entry.target or entry.rule):
        return True, None
    return False, (f"{qual} has no mapping: the probe is answered False, so the converted code "
                   "takes the branch torch 2.13 does not take")


def probe_call(converter, node: cst.Call):
    """``hasattr(M, 'X')`` / ``getattr(M, 'X'[, default])`` on a torch module, answered; None when
    ``node`` is not such a probe."""
    args = node.args
    if len(args) not in (2, 3) or any(a.keyword is not None or a.star for a in args) \
            or not converter.allows(CAPABILITY_PROBE.id):
        return None
    module, name = converter.qual(args[0].value), _string(args[1].value)
    if module is None or name is None or (node.func.value == "hasattr" and len(args) != 2):
        return None
    answer = _answer(converter, module, name)
    if answer is None:
        return None
    value, reason = answer
    if reason is not None:
        converter.mark(node, "MS901", reason)
    if node.func.value == "hasattr":
        new = cst.Name(str(value))
    elif value:
        new = converter.walk(cst.Attribute(args[0].value, cst.Name(name)))
    elif len(args) == 3:
        new = converter.walk(args[2].value)
    else:
        return None  # getattr without a default on a missing name raises: leave it (marked)
    converter.record(node, new, CAPABILITY_PROBE.id, "exact" if reason is None else "unsupported",
                f"torch 2.13 {'has' if has_attr(module, name) else 'has no'} {module}.{name}")
    return new


def probe_comparison(converter, node: cst.Comparison):
    """``'X' in dir(M)`` and ``torch.__version__ < '1.5'``, answered; None for other comparisons."""
    if len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    op, right = target.operator, target.comparator
    if isinstance(op, (cst.In, cst.NotIn)) and isinstance(right, cst.Call) and \
            isinstance(right.func, cst.Name) and right.func.value == "dir" and len(right.args) == 1:
        return _in_dir(converter, node, _string(node.left), converter.qual(right.args[0].value),
                       isinstance(op, cst.NotIn))
    if isinstance(op, (cst.Is, cst.IsNot)) and isinstance(right, cst.Name) and right.value == "None":
        return _module_present(converter, node, isinstance(op, cst.IsNot))
    if isinstance(op, (cst.In, cst.NotIn)) and dotted(right) == "sys.modules":
        return _module_loaded(converter, node, _string(node.left), isinstance(op, cst.NotIn))
    compare = _COMPARE.get(type(op))
    if compare is None or not converter.allows(VERSION_PROBE.id):
        return None
    left_q, right_q = converter.qual(node.left), converter.qual(right)
    # torch's version is a TorchVersion (compared as versions); its libraries' are plain strings
    as_version = _version if left_q in _TORCH_VERSIONS or right_q in _TORCH_VERSIONS else str
    if left_q in VERSION_NAMES and _string(right) is not None:
        q = left_q
        value = compare(as_version(VERSION_NAMES[q]), as_version(_string(right)))
    elif right_q in VERSION_NAMES and _string(node.left) is not None:
        q = right_q
        value = compare(as_version(_string(node.left)), as_version(VERSION_NAMES[q]))
    else:
        return None
    new = cst.Name(str(value))
    converter.record(node, new, VERSION_PROBE.id, "approximate",
                f"{q} taken as {VERSION_NAMES[q]}, the version the mappings follow")
    return new


def _module_present(converter, node: cst.Comparison, negated: bool):
    """``fft is None`` where ``fft`` is a torch module bound by an import that may fail
    (``try: import torch.fft as fft / except ImportError: fft = None``): torch 2.13 has the
    module, so the answer is False (True for ``is not None``); the names used from it are
    converted, or marked, where they are used."""
    left = node.left
    q = converter.qual(left) if isinstance(left, cst.Name) else None
    if q is None or not q.startswith("torch.") or not is_module(q) or not converter.allows(CAPABILITY_PROBE.id):
        return None
    new = cst.Name(str(negated))
    converter.record(node, new, CAPABILITY_PROBE.id, "exact", f"torch 2.13 has the module {q}")
    return new


def _module_loaded(converter, node: cst.Comparison, name, negated: bool):
    """``"torch.fft" in sys.modules`` (a check that an import of torch's took place): the
    converted code never imports torch, so the probe is answered as torch 2.13 answers it after
    the file's own imports (True for a module torch has); the names used from it are converted,
    or marked, where they are used."""
    if name is None or (name != "torch" and not name.startswith("torch.")) or not is_module(name) \
            or not converter.allows(CAPABILITY_PROBE.id):
        return None
    new = cst.Name(str(not negated))
    converter.record(node, new, CAPABILITY_PROBE.id, "exact", f"torch 2.13 has the module {name}")
    return new


def _in_dir(converter, node, name, module, negated: bool):
    if name is None or module is None or not converter.allows(CAPABILITY_PROBE.id):
        return None
    answer = _answer(converter, module, name)
    if answer is None:
        return None
    value, reason = answer
    if reason is not None:
        converter.mark(node, "MS901", reason)
    new = cst.Name(str(value != negated))
    converter.record(node, new, CAPABILITY_PROBE.id, "exact" if reason is None else "unsupported",
                f"{name!r} {'not ' if negated else ''}in dir({module}) for torch 2.13 and the mappings")
    return new


# torch 2.13's keyword-only defaults of functions that model code probes (swin_unetr reads
# torch.meshgrid.__kwdefaults__ to learn whether meshgrid takes indexing=)
KW_DEFAULTS = {"torch.meshgrid": {"indexing": None}}


def kwdefaults_reference(converter, node, q: str):
    """``torch.meshgrid.__kwdefaults__``: torch 2.13's value, as a literal; None for other names."""
    base, _, attr = q.rpartition(".")
    if attr != "__kwdefaults__" or base not in KW_DEFAULTS or not converter.allows(CAPABILITY_PROBE.id):
        return None
    new = cst.parse_expression(repr(KW_DEFAULTS[base]))
    converter.record(node, new, CAPABILITY_PROBE.id, "exact", f"{q} of torch 2.13 (the converted function takes "
                                                         "the same keywords)")
    return new


def version_reference(converter, node, q: str = "torch.__version__"):
    """``torch.__version__`` (``torchvision.__version__``) used as a value: the version the
    mappings follow, as a literal."""
    if not converter.allows(VERSION_PROBE.id):
        return None
    new = cst.SimpleString(repr(VERSION_NAMES[q]))
    converter.record(node, new, VERSION_PROBE.id, "approximate",
                f"{q} taken as {VERSION_NAMES[q]}, the version the mappings follow")
    return new


def _version(text: str) -> tuple:
    """``'1.13.0+cu117'`` -> (1, 13, 0): numeric release parts, as torch's TorchVersion compares."""
    parts = []
    for piece in text.split("+")[0].split("."):
        m = re.match(r"\d+", piece)
        if m is None:
            break
        parts.append(int(m.group()))
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)
