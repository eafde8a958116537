"""bench/prescan_reach.py: which function and class bodies an ast pre-scan keeps away from libcst,
and that the conversion through its placeholders is byte-identical to convert_source's."""
import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from migrate import convert_source
from migrate.convert import walker
from migrate.convert.registry import RULES

_PATH = Path(__file__).resolve().parents[2] / "bench" / "prescan_reach.py"
_spec = importlib.util.spec_from_file_location("bench_prescan_reach", _PATH)
prescan = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = prescan  # dataclasses look their module up there
_spec.loader.exec_module(prescan)


def kept(code: str, target: str = "ms_core") -> list[str]:
    """The bodies (text) the pre-scan keeps away from libcst."""
    tree = ast.parse(code)
    found = prescan.reduce_source(code, tree, walker._rule_words(target), walker._RULE_WORDS,
                                  walker._interesting(tuple(sorted(prescan.torch_imports(tree))), target), (),
                                  target == "mindspore")
    return [] if found is None else [body for _, body in found.bodies]


def same_as_whole(code: str, target: str = "ms_core") -> bool:
    """The conversion through placeholders happened and equals convert_source's, changes too."""
    reduced, whole = prescan.convert_reduced(code, target), convert_source(code, target)
    assert reduced is not None, "nothing was kept (or a check declined)"
    assert reduced.code == whole.code
    assert [(c.line, c.rule, c.before, c.after) for c in reduced.changes] == \
        [(c.line, c.rule, c.before, c.after) for c in whole.changes]
    assert sorted(reduced.runtime) == sorted(whole.runtime)
    return True


MODEL = '''\
import os
import torch
import torch.nn as nn


def cache_dir(name):
    # where the files go
    base = os.environ.get("CACHE", "/tmp")

    return os.path.join(base, name)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Names(object):
    def __init__(self, prefix):
        self.prefix = prefix

    def describe(self, prefix):
        """Prints what the torch model is."""
        return prefix + ": a small net"

    def build(self):
        return Net()
'''


def test_a_body_with_torch_names_is_converted_and_a_plain_one_copied():
    bodies = kept(MODEL)
    # (a comment above a body's first statement stays in the text libcst reads)
    # (Net's methods go with their class; Names.build reads Net)
    assert bodies == ['    base = os.environ.get("CACHE", "/tmp")\n\n    return os.path.join(base, name)',
                      '        self.prefix = prefix',
                      '        """Prints what the torch model is."""\n        return prefix + ": a small net"']
    assert same_as_whole(MODEL)
    assert same_as_whole(MODEL, "mindspore")


def test_comments_blank_lines_and_line_ends_are_kept():
    code = MODEL.replace("    return os.path.join", "    # between statements\n\n    return os.path.join")
    assert same_as_whole(code)
    assert same_as_whole(code.replace("\n", "\r\n"))


@pytest.mark.parametrize("head, use", [
    ("import torch as T", "T.zeros(3)"),                 # a torch alias
    ("from torch import zeros as z", "z(3)"),           # a name imported from torch under another name
    ("from .layers import make_block", "make_block()"),  # a name from the package: what it is is not known here
    ("import timm", "timm.create_model('x')"),          # another package's
])
def test_a_body_that_reads_an_imported_name_is_converted(head, use):
    code = f"{head}\nimport torch\n\n\ndef f():\n    return {use}\n\n\ndef g():\n    return 1\n"
    assert kept(code) == ["    return 1"]


def test_a_star_import_turns_the_pre_scan_off():
    code = "from torch import *\n\n\ndef f():\n    return zeros(3)\n\n\ndef g():\n    return 1\n"
    assert kept(code) == []


def test_a_name_the_torch_code_binds_makes_its_readers_converted():
    code = ("import torch.nn as nn\n\n\nclass Block(nn.Module):\n    pass\n\n\n"
            "def build(n):\n    return [Block() for _ in range(n)]\n\n\n"
            "def halve(n):\n    return n // 2\n")
    assert kept(code) == ["    return n // 2"]
    assert same_as_whole(code)


def test_a_file_the_training_pass_reads_is_converted_whole():
    """The pass's rules read whole functions, by text: torchrun's environment by name anywhere
    once the file holds one of the pass's triggers (found converting timm/utils/distributed.py)."""
    code = ('import os\nimport torch\n\n\ndef world():\n    return int(os.environ["WORLD_SIZE"])\n\n\n'
            'def rank():\n    return int(os.environ["LOCAL_RANK"])\n')
    assert kept(code) == []
    assert kept(code.replace("LOCAL_RANK", "HOME")) == ['    return int(os.environ["WORLD_SIZE"])',
                                                        '    return int(os.environ["HOME"])']


def test_a_method_of_a_torch_class_is_converted_with_its_class():
    """An autograd Function's backward returns bprop's tuple once converted (found converting
    pytorchcv's wrn1bit_cifar.py), though `return dy` names nothing of torch's."""
    code = ("import torch\n\n\nclass Sign(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        return x.sign()\n\n    @staticmethod\n    def backward(ctx, dy):\n        return dy\n\n\n"
            "class Plain:\n    def backward(self, dy):\n        return dy\n")
    assert kept(code) == ["    def backward(self, dy):\n        return dy"]  # the plain class's body only
    assert same_as_whole(code)


def test_the_training_pass_sees_every_training_step():
    code = ("import torch\n\n\ndef train(model, opt, loader):\n    for x, y in loader:\n"
            "        opt.zero_grad()\n        loss = model(x).sum()\n        loss.backward()\n        opt.step()\n\n\n"
            "def run(model, opt, loader, epochs):\n    for _ in range(epochs):\n        train(model, opt, loader)\n")
    assert kept(code) == []  # `run` reads `train`, which the training pass converts


@pytest.mark.parametrize("decorator, is_kept", [
    ("@torch.no_grad()", False),
    ("@functools.lru_cache(maxsize=None)", True),
])
def test_decorators_are_read(decorator, is_kept):
    code = f"import functools\nimport torch\n\n\n{decorator}\ndef f(n):\n    return n + 1\n"
    assert kept(code) == (["    return n + 1"] if is_kept else [])


@pytest.mark.parametrize("body, is_kept", [
    ('    return "torch.float32"', False),                   # a string a rule could read
    ('    """What torch calls a step."""\n    return 1', True),  # a docstring: no rule reads it
    ("    list = [1]\n    return list", False),                # binds a builtin (generated code may read it)
    ("    ops = [1]\n    return ops", False),                  # binds a name the target's modules may take
    ("    return lambda n: n", False),
    ("    return 1 << 3", False),                              # a shift: rewritten for tensors
])
def test_what_keeps_a_body_with_the_converter(body, is_kept):
    code = f"import torch\n\n\ndef f():\n{body}\n"
    assert kept(code) == ([body] if is_kept else [])


def test_a_file_with_a_form_feed_is_converted_whole():
    """str.splitlines breaks lines at a form feed, the ast does not: no line numbers to trust."""
    assert kept("import torch\n\n\ndef f():\n    return 1\n") == ["    return 1"]
    assert kept("import torch\n\x0c\n\ndef f():\n    return 1\n") == []


def test_a_body_on_the_header_line_is_converted_as_a_whole():
    assert kept("import torch\n\n\ndef f(): return 1\n") == []


def _wrapped(before: str) -> str:
    """A rule example's statements as the body of a function, after the examples' header and
    their own imports."""
    lines = before.splitlines()
    imports = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    imports += [ln for ln in lines if ln.startswith(("import ", "from "))]
    rest = [ln for ln in lines if not ln.startswith(("import ", "from "))]
    return "\n".join(imports) + "\n\n\ndef wrapper():\n" + "".join(f"    {ln}\n" if ln else "\n" for ln in rest)


EXAMPLES = [pytest.param(rule, example, id=f"{rule.id}-{rule.name}-{i}")
            for rule in sorted(RULES.values(), key=lambda r: r.id) for i, example in enumerate(rule.examples)]


@pytest.mark.parametrize("rule,example", EXAMPLES)
def test_no_rule_example_is_kept_away_from_the_converter(rule, example):
    """What a rule rewrites, the pre-scan leaves to the converter (its words come from the
    tables and the rules' registry: a new rule's example is checked here with no list to edit)."""
    code = _wrapped(example.before)
    ast.parse(code)
    assert kept(code, example.target) == []
