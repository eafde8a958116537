"""Records of what the converter did: one :class:`Change` per rewrite or marker."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

MARKER_PREFIX = "# migrate: "


@dataclass
class Change:
    """One rewrite (or one marker) at one line.

    ``label`` is exact, transformed, approximate or unsupported; ``rule`` a stable ID such as
    ``MS110``; ``before``/``after`` short source snippets (after is empty for markers).
    """

    line: int
    rule: str
    label: str
    before: str
    after: str
    note: str = ""

    def to_dict(self) -> dict:
        """Return the JSON-ready form."""
        return asdict(self)


@dataclass
class ConvertResult:
    """The outcome of converting one source text.

    Attributes:
        code: the converted source (the input unchanged when ``error`` is set).
        changes: every rewrite and marker, in source order.
        torch_sites: torch references found (calls, names, tensor/module methods).
        error: a one-line message when the input could not be parsed, else None.
    """

    code: str
    changes: list[Change] = field(default_factory=list)
    torch_sites: int = 0
    error: str | None = None

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
