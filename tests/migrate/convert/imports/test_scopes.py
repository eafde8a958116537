"""Scopes (issue 10 class 6): only what is bound to torch is rewritten, and the names the
output imports never take a name the user's code binds."""
import re
import textwrap

import pytest

from migrate import convert_source
from migrate.convert.names import all_bindings, choose_names, function_locals, maybe_bound


def convert(src: str, target: str = "ms_core") -> str:
    res = convert_source(textwrap.dedent(src), target)
    assert res.error is None
    assert convert_source(res.code, target).code == res.code  # idempotent
    return res.code


def test_a_parameter_named_torch_is_not_torch():
    out = convert("""\
        import torch
        def f(torch):
            return torch.zeros(3)
        def g():
            return torch.zeros(3)
        """)
    assert out == textwrap.dedent("""\
        import ms_core as ms
        from ms_core import ops
        def f(torch):
            return torch.zeros(3)
        def g():
            return ops.zeros((3,))
        """)


def test_a_local_rebinding_an_alias_shadows_it_in_that_function_only():
    out = convert("""\
        import torch.nn as nn
        def build(spec):
            nn = spec.builder()
            return nn.Linear(3)
        def relu():
            return nn.ReLU()
        """)
    assert "    nn = spec.builder()\n    return nn.Linear(3)\n" in out
    assert "    return ms_nn.ReLU()\n" in out  # the user's `nn` takes the name: ours is ms_nn
    assert "from ms_core import nn as ms_nn\n" in out


def test_a_global_declaration_is_not_a_local():
    out = convert("""\
        import torch
        def f():
            global torch
            return torch.zeros(2)
        """)
    assert "return ops.zeros((2,))" in out


def test_rebinding_at_module_level_ends_the_alias_there():
    out = convert("""\
        import torch.nn as nn
        a = nn.ReLU()
        nn = Registry()
        b = nn.ReLU()
        """)
    assert out == textwrap.dedent("""\
        import ms_core as ms
        from ms_core import nn as ms_nn
        a = ms_nn.ReLU()
        nn = Registry()
        b = nn.ReLU()
        """)


def test_a_fallback_binding_under_try_keeps_the_alias():
    out = convert("""\
        try:
            import torch.nn.functional as F
        except ImportError:
            F = None
        y = F.relu(x)
        """)
    assert "y = ops.relu(x)" in out and not re.search(r"^\s*import torch\b", out, re.M)


@pytest.mark.parametrize("user,target,expect", [
    ("ops = [1, 2]\n", "ms_core", ("from ms_core import ops as ms_ops", "ms_ops.zeros((3,))")),
    ("ms = 5\n", "ms_core", ("import ms_core\n", "ms_core.float32")),
    ("ms = 5\n", "mindspore", ("import mindspore\n", "mindspore.float32")),
    ("def ops():\n    pass\n", "ms_core", ("ops as ms_ops", "ms_ops.zeros((3,))")),
    ("for ops in range(2):\n    pass\n", "ms_core", ("ops as ms_ops", "ms_ops.zeros((3,))")),
    ("import numpy as ops\n", "ms_core", ("ops as ms_ops", "ms_ops.zeros((3,))")),
    ("class Net:\n    def f(self, ops):\n        return ops\n", "ms_core", ("ops as ms_ops",)),
])
def test_injected_names_never_take_a_user_name(user, target, expect):
    out = convert("import torch\n" + user + "y = torch.zeros(3)\nt = torch.float32\n", target)
    for text in expect:
        assert text in out, out
    assert user in out  # the user's code is untouched


def test_a_method_named_like_a_target_module_is_no_clash():
    out = convert("import torch\nclass Net:\n    def ops(self):\n        return 1\ny = torch.zeros(3)\n")
    assert "from ms_core import ops\n" in out and "ops.zeros((3,))" in out


def test_user_class_named_like_an_initializer_and_a_math_variable():
    out = convert("""\
        import torch.nn as nn
        class Uniform:
            pass
        math = 3
        fc = nn.Linear(2, 3)
        """)
    assert "import math as py_math\n" in out
    assert "from ms_core.common import initializer as ms_init\n" in out
    assert ("fc = nn.Dense(2, 3, has_bias=True, weight_init=ms_init.HeUniform(negative_slope=py_math.sqrt(5)), "
            "bias_init=ms_init.Uniform(scale=1 / py_math.sqrt(2)))") in out


def test_templates_numpy_name_avoids_a_users_np_and_reuses_their_numpy():
    # torch.broadcast_tensors is written with np.broadcast_shapes (a table template)
    out = convert("import torch\nimport jax.numpy as np\ny = torch.broadcast_tensors(a, b)\n")
    assert "import numpy as numpy_np\n" in out and "numpy_np.broadcast_shapes(" in out
    assert "import jax.numpy as np\n" in out
    out = convert("import torch\nimport numpy as np\ny = torch.broadcast_tensors(a, b), np.ones(2)\n")
    assert out.count("import numpy as np\n") == 1 and "numpy_np" not in out and " np.broadcast_shapes(" in out


def test_names_helpers():
    import libcst as cst
    module = cst.parse_module(textwrap.dedent("""\
        import os as ops
        x, (y, *z) = 1, (2, 3)
        class A:
            k = 1
            def method(self, a, *args, b=1, **kw):
                global g
                with open(p) as fh:
                    pass
                try:
                    pass
                except E as err:
                    pass
        """))
    assert all_bindings(module) == {"ops", "x", "y", "z", "A", "k", "self", "a", "args", "b", "kw",
                                    "fh", "err"}
    method = module.body[2].body.body[1]
    assert function_locals(method) == {"self", "a", "args", "b", "kw", "fh", "err"}
    assert maybe_bound("nn.Linear(2)\nimport torch.nn as nn\nf(nn)\n", ["nn"]) == {"nn"}
    assert maybe_bound("nn.Linear(2)\nimport torch.nn as nn\ny = nn.ReLU()\n", ["nn"]) == set()
    assert choose_names({"nn"}, {"nn", "ms_nn"}, "ms_core", {"nn": "nn"})["nn"] == "ms_nn_"
