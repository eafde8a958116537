"""Argument rules for torchvision data pipelines (``mappings/vision.toml``): datasets become
generated functions with torchvision's signature over ``mindspore.dataset``
(:mod:`~migrate.convert.vision_runtime`), transforms MindSpore's ``dataset.vision`` ops.
"""
from __future__ import annotations

import ast

import libcst as cst

from migrate.convert.cst import code_of, parse_expr
from migrate.convert.registry import argument_rule
from migrate.convert.rules.data import _safe_rule
from migrate.convert.rules.vision_uses import SAMPLE_READS, dataset_helper, torchvision_uses


@_safe_rule("MS260", "vision_dataset",
    needs=["CIFAR100Torch", "CIFAR10Torch", "FakeDataTorch", "FashionMNISTTorch", "KMNISTTorch", "MNISTTorch",
           "TorchVisionSamples"],
    examples=[
    ("from torchvision import datasets\n"
     "d = datasets.MNIST('x')\n",
     "d = MNISTTorch('x')\n"),
])
def vision_dataset(edit) -> None:
    """Replace torchvision.datasets.MNIST(root, train, transform, ...) with MNISTTorch(...), an ms.dataset pipeline."""
    helper = dataset_helper(edit.entry.torch)
    if helper is None:
        edit.unsupported(f"{edit.entry.torch} has no generated dataset function")
        return
    read = torchvision_uses(edit.converter).reads.get(code_of(edit.original))
    if read is not None and read not in SAMPLE_READS:
        edit.unsupported(f"the dataset is read as torchvision's object ({read}): the MindSpore "
                         f"pipeline it becomes (and TorchVisionSamples over it) has no {read}", "MS901")
        return
    edit.result = edit.call.with_changes(func=cst.Name(edit.helper(helper)))
    if read is not None:  # ds[i], len(ds), ds.targets...: torchvision's object, its samples read per index
        edit.result = cst.Call(cst.Name(edit.helper("TorchVisionSamples")), [cst.Arg(edit.result)])
        edit.note(f"read as torchvision's object ({read}): TorchVisionSamples, the samples through the "
                  f"transforms when read, as torchvision's dataset")
    if any(a.keyword is not None and a.keyword.value == "download" for a in edit.call.args):
        edit.note("download: MindSpore downloads no dataset; missing files raise a RuntimeError "
                  "naming them and the folder torchvision keeps them in")


@argument_rule("MS262", "vision_normalize", needs=["torch_channel_values"], examples=[
    ("from torchvision import datasets, transforms\n"
     "t = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), "
     "(0.5,), inplace=True)])\n",
     "t = ms.dataset.transforms.Compose([ms.dataset.vision.ToTensor(), "
     "ms.dataset.vision.Normalize((0.5,), (0.5,), is_hwc=False)])\n"),
    ("from torchvision import transforms\n"
     "def f(data):\n"
     "    return transforms.Normalize(data.mean(dim=(0, 2, 3)), std=data.std(dim=(0, 2, 3)))\n",
     "def f(data):\n"
     "    return ms.dataset.vision.Normalize(torch_channel_values(ops.mean(data, axis=(0, 2, 3))), "
     "std=torch_channel_values(data.std(axis=(0, 2, 3), ddof=1)), is_hwc=False)\n"),
])
def vision_normalize(edit) -> None:
    """Replace transforms.Normalize(mean, std) with ms.dataset.vision.Normalize(mean, std, is_hwc=False);
    a mean or std that is not written as numbers (a Tensor of the data's statistics, a variable)
    goes through torch_channel_values: MindSpore's Normalize takes a list of floats."""
    edit.set("is_hwc", "False")
    for name in ("mean", "std"):
        value = edit.get(name)
        if value is not None and not _numbers(value):
            edit.set(name, cst.Call(cst.Name(edit.helper("torch_channel_values")), [cst.Arg(value)]))


@argument_rule("MS261", "vision_rotation", examples=[
    ("from torchvision import transforms\n"
     "t = transforms.RandomRotation(15, center=(16, 16), fill=(3, 5, 9))\n",
     "t = ms.dataset.vision.RandomRotation(15, center=(15.5, 15.5), fill_value=(9, 5, 3))\n"),
])
def vision_rotation(edit) -> None:
    """Replace transforms.RandomRotation(degrees, interpolation, expand, center, fill) with
    ms.dataset.vision.RandomRotation(degrees, center=, fill_value=): the same rotation where
    MindSpore computes torchvision's (nearest neighbour, the canvas kept); its centre in pixel
    indices (torchvision's minus 0.5); a 3-tuple fill reversed (MindSpore 2.10 writes fill_value
    into the channels in reverse order). Marked: bilinear or bicubic (MindSpore blends the fill
    at the border otherwise), expand=True (MindSpore's canvas is another size), values known at
    run time only."""
    b = edit.bound
    interpolation = b.get("interpolation")
    if interpolation is not None and code_of(interpolation) != "None" \
            and not code_of(interpolation).endswith("NEAREST") and code_of(interpolation) != "0":
        edit.unsupported(f"interpolation={code_of(interpolation)}: MindSpore's RandomRotation blends the fill "
                         f"at the border otherwise than torchvision (nearest neighbour only)")
        return
    expand = b.get("expand")
    if expand is not None and code_of(expand) != "False":
        edit.unsupported("expand=True: MindSpore's expanded canvas is another size than torchvision's")
        return
    args = [cst.Arg(b["degrees"])]
    center = b.get("center")
    if center is not None and code_of(center) != "None":
        xy = _literal_pair(center)
        if xy is None:
            edit.unsupported(f"center={code_of(center)}: a centre known at run time only (MindSpore's is "
                             f"torchvision's minus 0.5)")
            return
        args.append(_keyword("center", f"({xy[0] - 0.5}, {xy[1] - 0.5})"))
    fill = b.get("fill")
    if fill is not None and code_of(fill) not in ("0", "None"):
        value = _literal_fill(fill)
        if value is None:
            edit.unsupported(f"fill={code_of(fill)}: a fill known at run time only (MindSpore takes an int "
                             f"or a 3-tuple, written in reverse channel order)")
            return
        args.append(_keyword("fill_value", value))
    edit.converter.output.used.add("ms")
    edit.result = cst.Call(parse_expr("ms.dataset.vision.RandomRotation"), args)


def _keyword(name: str, text: str) -> cst.Arg:
    return cst.Arg(parse_expr(text), keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def _literal_pair(node):
    """(x, y) of a literal sequence of two numbers, or None."""
    try:
        value = ast.literal_eval(code_of(node))
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return float(value[0]), float(value[1])
    return None


def _literal_fill(node) -> str | None:
    """MindSpore's fill_value for torchvision's literal fill: an int as it is, a 1-sequence its
    value, a 3-sequence reversed (MindSpore 2.10 writes it into the channels in reverse order)."""
    try:
        value = ast.literal_eval(code_of(node))
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == int(value):
        return str(int(value))
    if isinstance(value, (tuple, list)) and len(value) == 3 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v == int(v) for v in value):
        return "(" + ", ".join(str(int(v)) for v in reversed(value)) + ")"
    return None


def _numbers(node) -> bool:
    """A number, or a tuple or list of numbers, as written."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(_numbers(el.value) for el in node.elements)
    if isinstance(node, cst.UnaryOperation):
        return _numbers(node.expression)
    return isinstance(node, (cst.Integer, cst.Float))


# torchvision callables whose MindSpore form is generated code, by their last name
_GENERATED = {"Lambda": "LambdaTorch", "save_image": "save_image_torch", "make_grid": "make_grid_torch",
              "Resize": "ResizeTorch"}


@_safe_rule("MS263", "vision_generated", needs=["LambdaTorch", "save_image_torch", "make_grid_torch", "ResizeTorch"],
           examples=[
    ("from torchvision.utils import save_image\n"
     "\n"
     "\n"
     "def write(x, path, **kwargs):\n"
     "    save_image(torch.tensor(x), path, **kwargs)\n",
     "def write(x, path, **kwargs):\n"
     "    save_image_torch(ms.Tensor(x), path, **kwargs)\n"),
])
def vision_generated(edit) -> None:
    """Replace transforms.Lambda(fn) / transforms.Resize(size) / utils.save_image(t, fp) /
    utils.make_grid(t) with the runtime's LambdaTorch / ResizeTorch / save_image_torch / make_grid_torch."""
    helper = _GENERATED[edit.entry.torch.rsplit(".", 1)[-1]]
    edit.result = edit.call.with_changes(func=cst.Name(edit.helper(helper)))
