"""Argument rules for torchvision data pipelines (``mappings/vision.toml``): datasets become
generated functions with torchvision's signature over ``mindspore.dataset``
(:mod:`~migrate.convert.vision_runtime`), transforms MindSpore's ``dataset.vision`` ops.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.registry import argument_rule
from migrate.convert.rules.data import _safe_rule
from migrate.convert.vision_runtime import DATASET_HELPERS


def dataset_helper(qual: str) -> str | None:
    """The generated function that stands for the torchvision dataset class ``qual``
    (``torchvision.datasets.MNIST`` -> ``MNISTTorch``), or None."""
    name = qual.rsplit(".", 1)[-1] + "Torch"
    return name if qual.startswith("torchvision.datasets.") and name in DATASET_HELPERS else None


def is_dataset_helper_call(conv, node) -> bool:
    """Whether ``node`` (converted) calls a generated torchvision dataset function: a MindSpore
    dataset of (image, label) rows."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name) or conv.signatures is None:
        return False
    names = conv.signatures.names
    return node.func.value in {names[k] for k in DATASET_HELPERS if k in names}


@_safe_rule("MS260", "vision_dataset")
def vision_dataset(edit) -> None:
    """Replace torchvision.datasets.MNIST(root, train, transform, ...) with MNISTTorch(...), an ms.dataset pipeline."""
    helper = dataset_helper(edit.entry.torch)
    if helper is None:
        edit.unsupported(f"{edit.entry.torch} has no generated dataset function")
        return
    edit.result = edit.call.with_changes(func=cst.Name(edit.helper(helper)))
    if any(a.keyword is not None and a.keyword.value == "download" for a in edit.call.args):
        edit.note("download: MindSpore downloads no dataset; missing files raise a RuntimeError "
                  "naming them and the folder torchvision keeps them in")


@argument_rule("MS262", "vision_normalize")
def vision_normalize(edit) -> None:
    """Replace transforms.Normalize(mean, std) with ms.dataset.vision.Normalize(mean, std, is_hwc=False)."""
    edit.set("is_hwc", "False")


@_safe_rule("MS263", "vision_lambda")
def vision_lambda(edit) -> None:
    """Replace transforms.Lambda(fn) with LambdaTorch(fn), which hands fn a Tensor and returns NumPy."""
    edit.result = edit.call.with_changes(func=cst.Name(edit.helper("LambdaTorch")))
