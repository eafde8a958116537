"""Records of what the converter did: one :class:`Change` per rewrite or marker."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from migrate.convert.cst import code_of

MARKER_PREFIX = "# migrate: "
# A snippet shows at most this many levels of a receiver chain (calls, attributes, subscripts):
# what lies below is written "…". Generating the code of a 500-call chain for each of its 500
# changes would cost seconds, and its first 120 characters would say nothing about the change.
SNIPPET_DEPTH = 32
_SPINE = {cst.Call: "func", cst.Attribute: "value", cst.Subscript: "value"}
_ELIDED = "migrate_elided_receiver"


def marker_text(rule: str, reason: str) -> str:
    """The marker comment for ``rule``: always one line, whatever the reason quotes (a receiver
    that spans lines, with comments inside: a comment node cannot hold a line break).

    Example:
        >>> marker_text("MS905", "in-place add_() on x.view(\\n    -1\\n)")
        '# migrate: MS905 in-place add_() on x.view( -1 )'
    """
    return f"{MARKER_PREFIX}{rule} {' '.join(reason.split())}"


def marker_line(rule: str, reason: str) -> cst.EmptyLine:
    """:func:`marker_text` as a line of its own, to put in a statement's ``leading_lines``."""
    return cst.EmptyLine(comment=cst.Comment(marker_text(rule, reason)))


class Change:
    """One rewrite (or one marker) at one line.

    ``label`` is exact, transformed, approximate or unsupported; ``rule`` a stable ID such as
    ``MS110``; ``before``/``after`` short source snippets (after is empty for markers).
    The snippets are generated from the nodes only when first read: generating code is the most
    expensive step of a conversion, and a run without a report never needs most of them.
    """

    __slots__ = ("line", "rule", "label", "_before", "_after", "note")
    FIELDS = ("line", "rule", "label", "before", "after", "note")

    def __init__(self, line: int, rule: str, label: str, before, after, note: str = ""):
        self.line, self.rule, self.label, self.note = line, rule, label, note
        self._before, self._after = before, after

    @property
    def before(self) -> str:
        if not isinstance(self._before, str):
            self._before = _snippet(self._before)
        return self._before

    @property
    def after(self) -> str:
        if not isinstance(self._after, str):
            self._after = _snippet(self._after)
        return self._after

    def to_dict(self) -> dict:
        """Return the JSON-ready form."""
        return {k: getattr(self, k) for k in self.FIELDS}

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, state):
        self.__init__(**state)

    def __eq__(self, other):
        return isinstance(other, Change) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return "Change(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.FIELDS) + ")"


def _snippet(node, limit: int = 120) -> str:
    text = " ".join(code_of(_elide_deep_receiver(node)).split()).replace(_ELIDED, "…")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _elide_deep_receiver(node, depth: int = SNIPPET_DEPTH):
    """``node`` with the part of its receiver chain deeper than ``depth`` levels replaced by a
    placeholder name (the same node when the chain is shorter): bounded code generation."""
    path, inner = [], node
    for _ in range(depth):
        field_name = _SPINE.get(type(inner))
        if field_name is None:
            return node
        path.append((inner, field_name))
        inner = getattr(inner, field_name)
    if type(inner) not in _SPINE:
        return node
    new = cst.Name(_ELIDED)
    for parent, field_name in reversed(path):
        new = parent.with_changes(**{field_name: new})
    return new


@dataclass
class ConvertResult:
    """The outcome of converting one source text.

    Attributes:
        code: the converted source (the input unchanged when ``error`` is set).
        changes: every rewrite and marker, in source order.
        torch_sites: torch references found (calls, names, tensor/module methods).
        error: a one-line message when the input could not be parsed, else None.
        runtime: the names the converted code takes from the runtime (``TorchConv2d``,
            ``torch_size``), imported or inlined; empty when it needs none.
    """

    code: str
    changes: list[Change] = field(default_factory=list)
    torch_sites: int = 0
    error: str | None = None
    runtime: tuple = ()

    def count(self, label: str) -> int:
        """Return how many changes carry ``label``."""
        return sum(1 for c in self.changes if c.label == label)

    @property
    def converted(self) -> int:
        """Torch sites rewritten (any label but unsupported)."""
        return sum(1 for c in self.changes if c.label != "unsupported")

    @property
    def unsupported(self) -> int:
        """Sites left in place with a marker comment."""
        return self.count("unsupported")
