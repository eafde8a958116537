"""Faults planted into the live conversion of tests/fixtures/check/resnet50.py, each with the
culprit the checker must name. Shared by the in-suite variant (test_faults_resnet50.py: a
one-block-per-stage ResNet-50 at 64x64) and bench/check_faults.py (the full ResNet-50 at
224x224)."""
from dataclasses import dataclass, field
from pathlib import Path

RESNET50 = Path(__file__).parents[2] / "fixtures" / "check" / "resnet50.py"


@dataclass(frozen=True)
class Fault:
    """A text edit of the converted file, the check options that can see it, and what the
    culprit must say: its kind, its layer, and a phrase of its message."""

    name: str
    old: str
    new: str
    options: dict = field(default_factory=dict)
    kind: str = ""
    layer: str = ""
    phrase: str = ""


FAULTS = [
    Fault("momentum not inverted", "self.bn1 = nn.BatchNorm2d(width)",
          "self.bn1 = nn.BatchNorm2d(width, momentum=0.1)", {"mode": "both", "train_steps": 2},
          "training-steps", "bn1", "needs momentum=0.9, but has 0.1"),
    Fault("p as keep_prob", "self.drop = nn.Dropout(keep_prob=1.0 - dropout)",
          "self.drop = nn.Dropout(keep_prob=dropout)", {"mode": "train"},
          "train", "drop", "needs keep_prob=0.8"),
    Fault("torch padding on a stride-2 'same' conv",
          "self.conv1 = nn.Conv2d(3, width, 7, stride=2, pad_mode='pad', padding=3,",
          "self.conv1 = nn.Conv2d(3, width, 7, stride=2, pad_mode='same',", {"mode": "eval"},
          "eval", "conv1", "use pad_mode='pad', padding=3"),
    Fault("default init", "self.fc = nn.Dense(cin, num_classes, "
                          "weight_init=HeUniform(negative_slope=math.sqrt(5)), ",
          "self.fc = nn.Dense(cin, num_classes, ",
          {"mode": "eval", "init_check": True}, "init", "fc", "MindSpore's default 'normal'"),
    Fault("transposed weight", "return x @ self.weight.T + self.bias",
          "return x @ self.weight + self.bias", {"mode": "eval"}, "eval", "proj",
          "first layer whose own output differs"),
]


def plant(code: str, fault: Fault) -> str:
    """The converted code with the fault planted (the edit must apply exactly once)."""
    if code.count(fault.old) != 1:
        raise AssertionError(f"{fault.name}: the edit target is not in the conversion once: "
                             f"{fault.old!r}")
    return code.replace(fault.old, fault.new)


def culprit_problems(result, fault: Fault) -> list:
    """What is wrong with the check's verdict on `fault` (empty: the right culprit)."""
    c = result.culprit
    if result.passed or c is None:
        return [f"{fault.name}: passed"]
    out = []
    if (c.kind, c.layer) != (fault.kind, fault.layer):
        out.append(f"{fault.name}: culprit {c.kind} {c.layer}, expected {fault.kind} "
                   f"{fault.layer}: {c.message}")
    if fault.phrase not in c.message:
        out.append(f"{fault.name}: {fault.phrase!r} not in {c.message!r}")
    return out
