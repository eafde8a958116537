"""torch's private norm and convolution base classes named in ``isinstance`` / ``issubclass``
(``torch.nn.modules.batchnorm._BatchNorm``, ``_NormBase``, ``torch.nn.modules.instancenorm._InstanceNorm``,
``torch.nn.modules.conv._ConvNd``, ``_ConvTransposeNd``):
model zoos walk a model and pick its norm layers by them (timm's convert_splitbn_model and
convert_sync_batchnorm). MindSpore's own bases do not line up (its BatchNorm3d is no
``_BatchNorm``), so the check names the MindSpore classes of the base's torch subclasses.
"""
from __future__ import annotations

import libcst as cst

from migrate.convert.registry import node_rule

PRIVATE_NORM_BASE = node_rule(
    "MS420", "private_norm_base",
    "Replace torch's private norm base (torch.nn.modules.batchnorm._BatchNorm / _NormBase, "
    "torch.nn.modules.instancenorm._InstanceNorm, torch.nn.modules.conv._ConvNd / _ConvTransposeNd) named in "
    "isinstance/issubclass with the tuple of the MindSpore classes of its torch subclasses.", examples=[
    ("y = isinstance(m, torch.nn.modules.batchnorm._BatchNorm)\n",
     "y = isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm))\n"),
])

_BATCH_NORMS = ("torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d", "torch.nn.SyncBatchNorm")
_INSTANCE_NORMS = ("torch.nn.InstanceNorm1d", "torch.nn.InstanceNorm2d", "torch.nn.InstanceNorm3d")
# torch's private base -> its public torch subclasses (data: the classes the check stands for)
_CONVS = ("torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d")
_CONV_TRANSPOSES = ("torch.nn.ConvTranspose1d", "torch.nn.ConvTranspose2d", "torch.nn.ConvTranspose3d")
NORM_BASES = {
    "torch.nn.modules.batchnorm._BatchNorm": _BATCH_NORMS,
    "torch.nn.modules.batchnorm._NormBase": _BATCH_NORMS + _INSTANCE_NORMS,
    "torch.nn.modules.instancenorm._InstanceNorm": _INSTANCE_NORMS,
    # the convolutions' (encodec asserts `isinstance(module, nn.modules.conv._ConvNd)`)
    "torch.nn.modules.conv._ConvNd": _CONVS + _CONV_TRANSPOSES,
    "torch.nn.modules.conv._ConvTransposeNd": _CONV_TRANSPOSES,
}


def norm_base_classes(converter, node, qual: str):
    """Apply MS420 to ``qual`` (a key of :data:`NORM_BASES`) named inside isinstance/issubclass:
    the tuple of its subclasses' MindSpore classes, or None (then it is marked as unmapped)."""
    if not converter.allows(PRIVATE_NORM_BASE.id):
        return None
    entries = [converter.facts.tables.get(name) for name in NORM_BASES[qual]]
    if any(e is None or not e.target or e.label == "unsupported" for e in entries):
        return None
    new = cst.Tuple([cst.Element(converter.target(e.target)) for e in entries])
    converter.record(node, new, PRIVATE_NORM_BASE.id, "exact",
                f"{qual.rsplit('.', 1)[-1]}: one of the MindSpore classes of its torch subclasses "
                f"({', '.join(n.rsplit('.', 1)[-1] for n in NORM_BASES[qual])})")
    return new
