"""What a file does with the torchvision datasets it builds: which become MindSpore pipelines
(functions of the runtime's :mod:`~migrate.runtime.vision`), which are read as torchvision's
objects, which names hold them. Read by the dataset rule and the DataLoader rule."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from migrate.convert.cst import children, code_of, dotted

# the runtime's functions that stand for torchvision dataset classes (torchvision's name + Torch)
DATASET_HELPERS = ("MNISTTorch", "FashionMNISTTorch", "KMNISTTorch", "CIFAR10Torch", "CIFAR100Torch",
                   "FakeDataTorch")

def dataset_helper(qual: str) -> str | None:
    """The runtime's function that stands for the torchvision dataset class ``qual``
    (``torchvision.datasets.MNIST`` -> ``MNISTTorch``), or None."""
    name = qual.rsplit(".", 1)[-1] + "Torch"
    return name if qual.startswith("torchvision.datasets.") and name in DATASET_HELPERS else None


def is_dataset_helper_call(converter, node) -> bool:
    """Whether ``node`` (converted) calls the runtime's torchvision dataset function: a MindSpore
    dataset of (image, label) rows."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name) or converter.output.signatures is None:
        return False
    names = converter.output.signatures.names
    return node.func.value in {names[k] for k in DATASET_HELPERS if k in names}


# what a MindSpore pipeline has of the dataset object a torchvision dataset's name holds
_PIPELINE_ATTRS = frozenset({"map", "batch", "shuffle", "repeat", "take", "skip", "project", "rename",
                             "split", "concat", "zip", "get_dataset_size", "get_col_names",
                             "create_tuple_iterator", "create_dict_iterator"})
# what the runtime's TorchVisionSamples reads as torchvision's object does
SAMPLE_READS = frozenset({"indexing", "len()", ".data", ".targets", ".classes", ".transform",
                          ".target_transform"})
_LAST_SCAN: list = [None, None]  # (module, TorchvisionUses) of the last file scanned


@dataclass
class TorchvisionUses:
    """How a file uses the torchvision datasets it builds.

    ``reads``: source of a dataset call -> what the file reads of its result as torchvision's
    object (``ds.data``, ``ds.targets``, ``ds[i]``, ``len(ds)``: a MindSpore pipeline has none).
    ``pipelines``: names every assignment of which is a translated dataset call (a MindSpore
    pipeline). ``mixed``: names bound to a torchvision dataset and to something else.
    """

    reads: dict[str, str] = field(default_factory=dict)
    pipelines: set[str] = field(default_factory=set)
    mixed: set[str] = field(default_factory=set)


def torchvision_uses(converter) -> TorchvisionUses:
    """The :class:`TorchvisionUses` of the file ``converter`` converts (scanned once per file)."""
    module = converter.output.signatures.module if converter.output.signatures is not None else None
    if module is None:
        return TorchvisionUses()
    if _LAST_SCAN[0] is not module:
        _LAST_SCAN[:] = [module, _scan_uses(converter, module)]
    return _LAST_SCAN[1]


def _scan_uses(converter, module) -> TorchvisionUses:
    bound: dict[str, list[cst.Call]] = {}  # name -> torchvision dataset calls bound to it
    other: set[str] = set()                 # names bound to anything else too
    nodes = list(_walk(module))
    for n in nodes:
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and dotted(n.targets[0].target):
            name = dotted(n.targets[0].target)
            called = converter.qual(n.value.func) if isinstance(n.value, cst.Call) else None
            if (called or "").startswith("torchvision.datasets."):
                bound.setdefault(name, []).append(n.value)
            else:
                other.add(name)
    uses = TorchvisionUses()
    for n in nodes:
        name, what = _object_read(n)
        if name in bound:
            for call in bound[name]:  # a read the runtime's TorchVisionSamples lacks is the one kept
                if what not in SAMPLE_READS or code_of(call) not in uses.reads:
                    uses.reads[code_of(call)] = what
    for name, calls in bound.items():
        translated = all(dataset_helper(converter.qual(c.func) or "") and code_of(c) not in uses.reads
                         for c in calls)
        (uses.pipelines if translated and name not in other else uses.mixed).add(name)
    return uses


def _walk(node):
    yield node
    for c in children(node):
        yield from _walk(c)


def _object_read(node) -> tuple[str | None, str]:
    """(receiver, what) when ``node`` reads a dataset as torchvision's object, else (None, "")."""
    if isinstance(node, cst.Attribute) and node.attr.value not in _PIPELINE_ATTRS:
        return dotted(node.value), f".{node.attr.value}"
    if isinstance(node, cst.Subscript):
        return dotted(node.value), "indexing"
    if isinstance(node, cst.Call) and dotted(node.func) == "len" and len(node.args) == 1:
        return dotted(node.args[0].value), "len()"
    return None, ""
