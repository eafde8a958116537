"""The torch -> MindSpore mapping tables (TOML data) and their loader.

Each ``*.toml`` file in this package is one area (layers, functional, torch, tensor, init, ...).
A file holds ``[[entry]]`` tables with these keys:

``torch``      qualified torch name (``torch.nn.Linear``) or ``Tensor.view`` for tensor methods.
``target``     target name written with a prefix: ``ms.`` (the target package), ``nn.``,
               ``ops.``, ``init.`` (``<target>.common.initializer``); ``.name`` for a method
               rename; ``""`` when a named rule builds the result.
``label``      exact | transformed | approximate | unsupported.
``note``       one line shown in reports and ``migrate mappings``.
``params``     torch signature in order: ``"name"``, ``"name=default"``, ``"*name"``. Without
               it the call's arguments are passed through untouched.
``args``       per-parameter fate: a string renames; a table may hold ``to`` (new name),
               ``expr`` (template such as ``"1 - {p}"``), ``explicit`` (write the torch default
               even when omitted), ``keyword`` (always pass by keyword), ``drop`` (reason; the
               argument has no MindSpore meaning; ``label`` says how much that changes,
               approximate unless given), ``unsupported`` (reason; marks the call
               unless the value equals ``unless``, which defaults to the torch default),
               ``pack`` (a ``*name`` parameter: pass the values as one tuple, ``view(a, b)``),
               ``cast`` (a ``dtype=`` the target does not take: ``"result"`` casts the result,
               ``"input"`` the input first, whichever gives torch's numbers), ``tuple`` (a size
               MindSpore takes as an int or a tuple, never a list: a list literal becomes a tuple).
``rule``       name of an argument rule in ``migrate/convert/rules/`` run after the generic argument mapping.
``receiver``   methods only: ``"any"`` when the method name is unambiguous; ``"tensor"`` (the
               default) / ``"module"`` when the receiver must be known to be one; ``"param"``
               for a tensor or an attribute chain ending in a parameter name (``.weight.data``).
``untyped``    methods only: why the call, left as written, would mean something else on MindSpore
               (``x.std()`` divides by n there, by n - 1 in torch); where the receiver cannot be
               typed as a tensor the call is marked (MS915) with this reason instead of left.
``positional`` how many leading parameters keep their position in the target (default: up to
               the first parameter with a fate other than a rename).
``aliases``    other torch names for the same entry (``torch.nn.functional.relu`` / ``torch.relu``).
``id``         unsupported entries only: the marker ID it writes (``MS9xx``, default MS901).
               Other entries report their rule's ID, or the table's ``id`` (the file's top-level
               ``id``: one ``MS0xx`` ID per table, see ``migrate/convert/registry.py``).
``template``   an expression written instead of a call, for APIs MindSpore composes from several
               ops: ``{param}`` slots take the torch arguments (or their defaults), ``ops.``/``ms.``/
               ``nn.`` names are target names (``migrate/convert/template.py``). The argument fates
               still apply (drop, unsupported); ``target`` names the main op for listings.
``mindspore_note``  added to the change's note with ``--target mindspore`` only: what MindSpore
               2.10 itself does differently (a CPU kernel it lacks, a known kernel bug) and
               the advice; ms_core computes the entry as torch does.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

LABELS = ("exact", "transformed", "approximate", "unsupported")
_HERE = Path(__file__).parent


@dataclass(frozen=True)
class Param:
    """One torch parameter: name, default source text (None if required), star flag; ``kwargs``
    for ``**name`` (keyword arguments passed through as they are; star is set too)."""

    name: str
    default: str | None = None
    star: bool = False
    kwargs: bool = False


@dataclass(frozen=True)
class Fate:
    """What happens to one torch argument."""

    to: str | None = None
    expr: str | None = None
    explicit: bool = False
    keyword: bool = False
    drop: str | None = None
    unsupported: str | None = None
    unless: str | None = None
    pack: bool = False
    method: str | None = None  # pack with *-arguments: this tensor method takes them as given
    param_dtype: str | None = None  # a layer's dtype=: "pass" it as dtype=, or cast the "table"
    cast: str | None = None  # a dtype= the target lacks: cast the "result" or the "input"
    # --target mindspore: an int or bool literal is given as a tensor of the input's dtype
    # (MindSpore 2.10's CPU kernel wants a value of the input's kind: an int on a float32 tensor fails)
    input_dtype: bool = False
    # a size MindSpore takes as an int or a tuple and refuses as a list (torch takes either):
    # a list literal is written as a tuple
    tuple: bool = False
    # torch's generator=g: the target's seed= drawn from g's own stream, torch_seed(g, <seed>)
    # (<seed>: the text of the seed when no generator is given; nothing is passed then)
    seed: str | None = None
    label: str = "approximate"


@dataclass(frozen=True)
class Entry:
    """One mapping-table row."""

    torch: str
    target: str
    label: str
    note: str
    table: str
    id: str
    params: tuple[Param, ...] | None = None
    args: dict = field(default_factory=dict, hash=False, compare=False)
    rule: str | None = None
    receiver: str = "tensor"
    positional: int | None = None
    template: str | None = None
    mindspore_note: str = ""
    untyped: str | None = None

    def param(self, name: str) -> Param | None:
        """Return the torch parameter called ``name``."""
        for p in self.params or ():
            if p.name == name:
                return p
        return None


def _parse_param(text: str) -> Param:
    if text.startswith("**"):
        return Param(text[2:], None, True, kwargs=True)
    if text.startswith("*"):
        return Param(text[1:], None, True)
    name, eq, default = text.partition("=")
    return Param(name.strip(), default.strip() if eq else None)


def _parse_fate(value) -> Fate:
    if isinstance(value, str):
        return Fate(to=value)
    unknown = set(value) - set(Fate.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown argument-fate keys {sorted(unknown)}")
    return Fate(**value)


def _load_file(path: Path) -> list[Entry]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    table = path.stem
    default_id = data.get("id")
    if default_id is None and data.get("entry"):
        raise ValueError(f"{path.name}: a table needs its own id (id = \"MS0xx\" at the top)")
    out = []
    for raw in data.get("entry", []):
        label = raw.get("label", "exact")
        if label not in LABELS:
            raise ValueError(f"{path.name}: {raw.get('torch')}: bad label {label!r}")
        if "id" in raw and (label != "unsupported" or not str(raw["id"]).startswith("MS9")):
            raise ValueError(f"{path.name}: {raw.get('torch')}: an entry's id can only be the marker ID "
                             f"(MS9xx) of an unsupported entry, got {raw['id']!r}; the entry reports its "
                             f"rule's ID or the table's")
        params = raw.get("params")
        out.append(
            Entry(
                torch=raw["torch"],
                target=raw.get("target", ""),
                label=label,
                note=raw.get("note", ""),
                table=table,
                id=raw.get("id", "MS901") if label == "unsupported" else default_id,
                params=None if params is None else tuple(_parse_param(p) for p in params),
                args={k: _parse_fate(v) for k, v in raw.get("args", {}).items()},
                rule=raw.get("rule"),
                receiver=raw.get("receiver", "tensor"),
                positional=raw.get("positional"),
                template=raw.get("template"),
                mindspore_note=raw.get("mindspore_note", ""),
                untyped=raw.get("untyped"),
            )
        )
        for alias in raw.get("aliases", []):
            out.append(
                Entry(alias, out[-1].target, label, out[-1].note, table, out[-1].id,
                      out[-1].params, out[-1].args, out[-1].rule, out[-1].receiver,
                      out[-1].positional, out[-1].template, out[-1].mindspore_note, out[-1].untyped)
            )
    return out


@functools.lru_cache(maxsize=1)
def load_tables() -> dict[str, Entry]:
    """Load every mapping table in this package.

    Returns:
        A dict from torch name (``torch.nn.Linear``, ``Tensor.view``) to its :class:`Entry`.

    Raises:
        ValueError: when a table is malformed or two tables map the same torch name.

    Example:
        >>> load_tables()["torch.nn.Linear"].target
        'nn.Dense'
    """
    entries: dict[str, Entry] = {}
    for path in sorted(_HERE.glob("*.toml")):
        for e in _load_file(path):
            if e.torch in entries:
                raise ValueError(f"{e.torch} is mapped twice ({entries[e.torch].table}, {e.table})")
            entries[e.torch] = e
    return entries


def search(text: str = "") -> list[Entry]:
    """Return the entries whose torch name, target, label or note contains ``text``."""
    text = text.lower()
    return [
        e for e in load_tables().values()
        if not text or text in f"{e.torch} {e.target} {e.label} {e.note} {e.table}".lower()
    ]


@dataclass(frozen=True)
class LayerAttributes:
    """What a torch layer's attributes are on the MindSpore side (``attributes.toml``).

    ``rename``: torch name -> MindSpore name (same value). ``keep`` / ``shadow``: torch name ->
    torch's value as an expression of the constructor's torch arguments, kept by the generated
    torch-signature class under the torch name / as ``torch_<name>``. ``absent``: torch name ->
    why MindSpore has nothing like it. ``children``: sub-layer the class builds itself -> its
    torch class. ``forward``: torch keyword of a call of the layer -> MindSpore's. ``counter``:
    torch's step counter (``num_batches_tracked``) -> the constructor argument that keeps it; the
    torch-signature class keeps it as ``torch_<name>`` and advances it in each training call.
    ``buffers``: torch's buffer names of the class (state, not parameters). ``parameters``: torch's
    parameter names of the class that MindSpore names differently.
    """

    torch: str
    rename: dict = field(default_factory=dict, hash=False, compare=False)
    keep: dict = field(default_factory=dict, hash=False, compare=False)
    shadow: dict = field(default_factory=dict, hash=False, compare=False)
    absent: dict = field(default_factory=dict, hash=False, compare=False)
    children: dict = field(default_factory=dict, hash=False, compare=False)
    forward: dict = field(default_factory=dict, hash=False, compare=False)
    counter: dict = field(default_factory=dict, hash=False, compare=False)
    buffers: tuple = field(default=(), hash=False, compare=False)
    parameters: tuple = field(default=(), hash=False, compare=False)


@functools.lru_cache(maxsize=1)
def load_attributes() -> dict[str, LayerAttributes]:
    """Load ``attributes.toml``: torch layer class -> its :class:`LayerAttributes`.

    Raises:
        ValueError: when a class is listed twice or a group has an unknown key.

    Example:
        >>> load_attributes()["torch.nn.BatchNorm2d"].rename["weight"]
        'gamma'
    """
    data = tomllib.loads((_HERE / "attributes.toml").read_text(encoding="utf-8"))
    out: dict[str, LayerAttributes] = {}
    for raw in data.get("layer", []):
        unknown = set(raw) - {"torch", "rename", "keep", "shadow", "absent", "children", "forward", "counter",
                              "buffers", "parameters"}
        if unknown:
            raise ValueError(f"attributes.toml: unknown keys {sorted(unknown)}")
        for name in raw["torch"]:
            if name in out:
                raise ValueError(f"attributes.toml: {name} is listed twice")
            out[name] = LayerAttributes(name, *(dict(raw.get(key, {})) for key in (
                "rename", "keep", "shadow", "absent", "children", "forward", "counter")),
                tuple(raw.get("buffers", ())), tuple(raw.get("parameters", ())))
    return out
