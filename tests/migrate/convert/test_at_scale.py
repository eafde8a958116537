"""What converting 1.5 million lines of torch code nobody here wrote found (bench/corpus.py), each
class with a fixture of our own: no crash, valid output, converting twice equals converting once,
every comment kept, files without torch unchanged."""
import ast
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import ms_core as ms
from migrate.convert.cst import bracket_depth
from migrate.convert.guarded import convert_text
from tests.migrate.convert.helpers import REPO, check
from tests.migrate.convert.torch_programs import examine

TARGETS = ("ms_core", "mindspore")


def converted(src: str, target: str = "ms_core") -> str:
    """``src`` converted (no error, every property kept on both targets)."""
    src = textwrap.dedent(src)
    for t in TARGETS:
        assert examine(src, t) == [], t
    res = convert_text(src, target)
    assert res.error is None, res.error
    return res.code


# ---- crashes ------------------------------------------------------------------------------------
def test_a_marker_quoting_a_receiver_that_spans_lines_is_one_line():
    """libcst refused the marker (a comment holding a line break): the file was left unconverted."""
    code = converted("""\
        import torch


        def f(p, eps, ds):
            q = p / p.norm(dim=1).view(
                -1  # rows
            ).add_(eps)
            return q
        """)
    assert "    # migrate: MS905 Tensor.add_: in-place add_() on p.norm(dim=1).view( -1 # rows ):" in code
    assert "    q = p / p.norm(dim=1).view(\n        -1  # rows\n    ).add_(eps)\n" in code


def test_torch_names_inside_f_strings_keep_the_quotes_valid():
    """``torch.__version__`` became ``'2.13.0'`` inside ``f'...'``: invalid before Python 3.12."""
    code = converted("""\
        import torch
        a = f'{torch.__version__}'
        b = f"{torch.ones(2, 3).shape}"
        c = f'''{torch.__version__}'''
        """)
    assert "a = f'{\"2.13.0\"}'\n" in code and "b = f\"{ops.ones((2, 3)).shape}\"\n" in code
    assert "c = f'''{\"2.13.0\"}'''\n" in code
    namespace = {}
    exec(code, namespace)
    assert namespace["a"] == namespace["c"] == "2.13.0" and namespace["b"] == "(2, 3)"


def test_an_f_string_expression_no_quote_fits_is_kept_and_marked():
    """Inside f'...' inside f"...", a string literal has no quote left: the expression stays as
    written (torch kept behind its guard) and is marked MS919."""
    code = converted("""\
        import torch
        s = f"<{f'{torch.__version__}'}>"
        """)
    assert "# migrate: MS919 torch.__version__ inside an f-string" in code
    assert "s = f\"<{f'{torch.__version__}'}>\"" in code and "    import torch\n" in code


def test_a_builtin_shadowed_by_a_parameter_is_read_through_builtins():
    """``def __exit__(self, type, ...)`` binds ``type``: the device class became the invalid
    name ``_builtins.type`` (CSTValidationError)."""
    code = converted("""\
        import torch


        class Ctx:
            def __exit__(self, type, value, traceback):
                return isinstance(value, torch.device)
        """)
    assert "import builtins as _builtins\n" in code
    assert "return isinstance(value, _builtins.type(None))" in code
    namespace = {}
    exec(code, namespace)
    assert namespace["Ctx"]().__exit__(int, None, None) is True  # a converted device is None


def test_a_method_call_missing_torch_arguments_is_not_torchs():
    """``ola.unfold(y)`` (another class's method) raised KeyError: 'size' in the Tensor.unfold rule."""
    check("""\
        def f(ola, x):
            y = x.unfold(1, 4, 2)
            return ola.unfold(y)
        """, """\
        def f(ola, x):
            y = torch_unfold_windows(x, 1, 4, 2)
            # migrate: MS903 Tensor.unfold: missing argument size
            return ola.unfold(y)
        """)


def test_a_statement_199_brackets_deep_converts_marked_and_the_rest_of_the_file_too(tmp_path):
    """Converting it would nest 200 deep (CPython's limit): the statement is kept as written and
    marked, the file converts (it was refused whole, exit 1)."""
    deep = "x = " + "torch.abs(" * 198 + "torch.ones(2, 3)" + ")" * 198 + "\n"
    src = "import torch\n" + deep + "y = torch.zeros(2, 3)\n"
    code = converted(src)
    assert "# migrate: MS920 converting this statement would nest brackets 200 deep where it has 199" in code
    assert deep in code and "y = ops.zeros((2, 3))\n" in code
    path = tmp_path / "deep.py"
    path.write_text(src)
    proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "convert", str(path), "-o", str(tmp_path / "o.py")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr


# ---- lost comments and files without torch ------------------------------------------------------
def test_comments_of_a_removed_try_of_torch_imports_are_kept():
    code = converted("""\
        import torch

        # prefer the newer name
        try:
            from torch.nn.utils import clip_grad_norm_

        # older torch
        except ImportError:
            from torch.nn.utils import clip_grad_norm as clip_grad_norm_
        """)
    assert "# prefer the newer name\n# older torch\n" in code and "try" not in code


def test_comments_above_the_else_or_elif_of_a_settled_test_are_kept():
    """speechbrain's core.py: `if not torch.distributed.is_initialized(): return ...` settles to its
    else part, whose comments stood above `else:`."""
    code = converted("""\
        import torch

        def f(decision):
            # not distributed: return
            if not torch.distributed.is_initialized():
                return decision

            # otherwise broadcast it
            else:
                return [decision][0]

        def g(d):
            if not torch.distributed.is_initialized():
                return d
            # above the elif
            elif d > 1:
                return 1
        """)
    assert "# not distributed: return\n\n    # otherwise broadcast it\n    return [decision][0]" in code, code
    assert "# above the elif\n    if d > 1:" in code, code


def test_einops_on_numpy_without_torch_is_left_as_it_is():
    src = textwrap.dedent("""\
        import numpy as np
        from einops import rearrange


        def f(a):
            return rearrange(np.asarray(a), "b c -> c b")
        """)
    for t in TARGETS:
        assert convert_text(src, t).code == src
    layers = "from einops.layers.torch import Rearrange\nr = Rearrange('b c -> c b')\n"
    assert convert_text(layers).code != layers  # einops' torch layers are torch code


# ---- idempotence: a second conversion finds nothing the first left -----------------------------
def test_in_place_after_a_cast_decides_the_same_on_the_converted_cast():
    """``x.float().sub_(m)`` is marked (float() may return x itself); its conversion
    ``x.astype(ms.float32).sub_(m)`` was converted to ``.sub(m)`` the second time. The chain's
    next op writes into the same tensor: marked too, not computed out of place."""
    code = converted("""\
        import torch


        def f(m, s):
            x = torch.ones(2, 3)
            return x.float().sub_(m).div_(s)
        """)
    assert "# migrate: MS905 Tensor.sub_: in-place sub_() on x.astype(ms.float32)" in code
    assert "# migrate: MS905 Tensor.div_: in-place div_() on x.astype(ms.float32).sub_(m)" in code
    assert "return x.astype(ms.float32).sub_(m).div_(s)" in code


def test_in_place_on_a_new_tensor_is_the_out_of_place_call_as_converted():
    """``torch.rsqrt(u).mul_(g)``: its result was ``ops.rsqrt(u).mul(g)``, which a second
    conversion turned into ``ops.mul(...)`` where the receiver is a known tensor."""
    code = converted("""\
        import torch


        def f(u, g):
            return torch.rsqrt(u).mul_(g)
        """)
    assert "return ops.mul(ops.rsqrt(u), g)" in code
    namespace = {}
    exec(code, namespace)
    u = np.random.default_rng(0).uniform(0.5, 2.0, (3, 4)).astype(np.float32)
    g = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    got = namespace["f"](ms.Tensor(u), ms.Tensor(g)).asnumpy()
    want = torch.rsqrt(torch.tensor(u)).mul_(torch.tensor(g)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_an_init_method_through_an_identity_method_is_converted_the_first_time():
    """``data.cpu().normal_(...)``: the first conversion left ``data.normal_(...)`` (cpu() gone),
    which the second converted."""
    code = converted("""\
        import torch


        def init(data):
            data.copy_(data.cpu().normal_(mean=0.0, std=0.02).to(data.device))
        """)
    assert "data.normal_(" not in code and "Normal(mean=0.0, sigma=0.02)" in code


def test_a_name_ms_bound_by_the_file_is_never_imported_by_a_second_conversion():
    """A parameter named ``ms`` and a torch import that stays (guarded): the second conversion
    added ``import ms_core as ms``."""
    code = converted("""\
        from torch import Tensor


        def f(ms: Tensor) -> Tensor:
            from torchvision.transforms.functional import resize
            return resize(ms, size=ms.shape[-2:])
        """)
    assert "import ms_core\n" in code and "import ms_core as ms" not in code


@pytest.mark.parametrize("target", TARGETS)
def test_a_package_re_exporting_a_capability_probe_converts_once(tmp_path, target):
    """``f = getattr(torch.jit, "script_if_tracing", torch.jit.script)`` in one module, ``@f`` in
    another: the first conversion answers the probe (``torch.jit.script_if_tracing``), and the
    second, reading that answer, removed the decorator the first had kept."""
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text(textwrap.dedent("""\
        import torch

        jit_if_tracing = getattr(torch.jit, "script_if_tracing", getattr(torch.jit, "_script_if_tracing", torch.jit.script))
        """))  # noqa: E501 (the long line is the input under test)
    (pkg / "ops.py").write_text(textwrap.dedent("""\
        import torch

        from .util import jit_if_tracing


        @jit_if_tracing
        def double(x):
            return torch.abs(x) * 2
        """))
    outs = []
    for src, out in ((tmp_path / "src", tmp_path / "o1"), (tmp_path / "o1", tmp_path / "o2")):
        proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "convert", str(src), "-o", str(out), "-q",
                               "--target", target], capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr
        outs.append({p.name: p.read_text() for p in (out / "pkg").glob("*.py")})
    assert outs[0] == outs[1]
    assert "@jit_if_tracing" not in outs[0]["ops.py"] and "ops.abs(x) * 2" in outs[0]["ops.py"]


def test_an_autograd_function_whose_names_clash_with_bprops_gets_a_free_output_name():
    """``forward(ctx, x1, out)`` became ``bprop(self, x1, out, out, grad_out)``: it parses, but
    does not compile (the guard now compiles the output; it only parsed it)."""
    src = textwrap.dedent("""\
        import torch


        class Stitch(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x1, out):
                return out

            @staticmethod
            def backward(ctx, grad_out):
                return grad_out, None


        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 3

            @staticmethod
            def backward(ctx, out):
                return out * 2
        """)
    code = converted(src)
    assert "def bprop(self, x1, out, out_1, grad_out):" in code and "def bprop(self, x, out_1, out):" in code
    tns, cns = {}, {}
    exec(src, tns)
    exec(code, cns)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    t = torch.tensor(x, requires_grad=True)
    tns["Twice"].apply(t).sum().backward()  # a made-up backward (2, not 3): bprop must be the one used
    got = ms.grad(lambda a: cns["Twice"]()(a).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cns["Stitch"]()(ms.Tensor(x), ms.Tensor(2 * x)).asnumpy(), 2 * x, rtol=1e-5, atol=1e-6)


def test_a_parameter_annotated_with_a_legacy_tensor_type_is_a_tensor():
    """``pivot: LongTensor`` (converted to ``ms.Tensor``) was typed by the second conversion only."""
    code = converted("""\
        import torch
        from torch import LongTensor


        def f(pivot: LongTensor, t: torch.FloatTensor):
            return pivot.view(-1, 1), t.view(-1)
        """)
    assert "def f(pivot: ms.Tensor, t: ms.Tensor):" in code
    assert "return ops.reshape(pivot, (-1, 1)), ops.reshape(t, (-1,))" in code


def test_copy_into_a_detached_parameter_writes_the_parameter():
    """``d.detach().copy_(s)`` writes ``d`` (detach shares its memory), as ``d.data.copy_(s)``
    does: no marker, and a second conversion keeps it (the marker once quoted ``p.detach()`` and
    the second conversion ``ops.stop_gradient(p)``: two markers)."""
    code = converted("""\
        import torch


        def transfer(src, dst):
            for s, d in zip(src.parameters(), dst.parameters()):
                d.detach().copy_(s)
        """)
    assert "        d.data.copy_(s)\n" in code and "# migrate:" not in code, code


def test_a_function_kept_as_torch_function_has_its_forward_converted_as_a_cells():
    """ctx.index keeps the class a TorchFunction Cell; its forward was walked as a plain
    function (``scratch.data[i] = v`` kept), then as a Cell's by a second conversion."""
    code = converted("""\
        import torch


        class UncheckedAssign(torch.autograd.Function):
            @staticmethod
            def forward(ctx, scratch, value, index):
                ctx.index = index
                scratch.data[index] = value
                return scratch

            @staticmethod
            def backward(ctx, grad_scratch):
                return grad_scratch, grad_scratch[ctx.index], None
        """)
    assert "class UncheckedAssign(TorchFunction):" in code and "        scratch[index] = value\n" in code


def test_a_file_whose_strings_hold_torch_code_is_left_as_it_is():
    """A model-card template holds ``import torch`` in a string: the file imports nothing of
    torch's, yet ``len(dataloader)`` was rewritten as a DataLoader's length."""
    src = 'TEMPLATE = """\nimport torch\nwith torch.no_grad():\n    pass\n"""\n\n\n' \
          'def card(dataloader):\n    return TEMPLATE.format(len(dataloader))\n'
    for t in TARGETS:
        assert convert_text(src, t).code == src


def test_a_marked_call_through_torch_nn_keeps_no_import_of_the_nn_alias():
    """``torch.nn.LazyConvTranspose3d(...)`` left marked reads torch, not the file's ``nn`` alias: its
    attribute ``nn`` is no use of ``import torch.nn as nn`` (the first conversion kept that import as
    ``torch_nn`` and the second removed it)."""
    out = converted("""
        import torch
        import torch.nn as nn
        layer = torch.nn.LazyConvTranspose3d(torch.float32)
        m = nn.Linear(2, 2)
    """)
    assert "torch_nn" not in out and "# migrate: MS901" in out and "m = nn.Dense(2, 2" in out


def test_inlined_runtime_never_rebinds_the_initializer_function_the_file_imports():
    """A file given the runtime inlined (no runtime package beside it) that also calls the initializer
    function (``x.data.zero_()``) and needs a generated layer reading the initializer module: the
    module is imported under another name (it rebound ``initializer``, and a second conversion renamed it)."""
    src = textwrap.dedent("""
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, kw):
                super().__init__()
                self.up = nn.ConvTranspose3d(2, 2, 3, **kw)
                self.w = nn.Parameter(torch.ones(3))
                self.w.data.zero_()
    """)
    for target in TARGETS:
        assert examine(src, target) == [], target
    out = convert_text(src, "ms_core", runtime="").code
    assert "from ms_core.common import initializer as initializer_" in out
    ns: dict = {}
    exec(compile(out, "<converted>", "exec"), ns)  # noqa: S102 (running the converted code is the test)
    net = ns["Net"]({})
    np.testing.assert_array_equal(net.w.asnumpy(), np.zeros(3, np.float32))
    assert tuple(net.up.weight.shape) == (2, 2, 3, 3, 3)


def test_the_runtime_import_of_a_file_without_target_imports_goes_below_its_docstring_and_future_import(tmp_path):
    """A file that imports nothing of torch but imports modules by name, in a package that names
    einops modules in strings (monai's utils/aliases.py), gains only the runtime's
    torch_import_module: with no target import to follow, its import went above the docstring and
    ``from __future__``, and the output would not compile (the file left unconverted)."""
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "optional.py").write_text('EINOPS = "einops"\n')
    (pkg / "aliases.py").write_text(textwrap.dedent('''\
        """Names resolved at run time."""

        from __future__ import annotations

        import importlib


        def resolve(name):
            return importlib.import_module(name)
        '''))
    outs = []
    for src, out in ((tmp_path / "src", tmp_path / "o1"), (tmp_path / "o1", tmp_path / "o2")):
        proc = subprocess.run([sys.executable, str(REPO / "cli.py"), "convert", str(src), "-o", str(out), "-q"],
                              capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr + proc.stdout
        outs.append((out / "pkg" / "aliases.py").read_text())
    assert outs[0] == outs[1]
    assert outs[0].startswith('"""Names resolved at run time."""\n\nfrom __future__ import annotations\n\n'
                              'import importlib\nfrom .migrate_runtime import torch_import_module\n')
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    run = ("import numpy as np, ms_core as ms\nfrom pkg.aliases import resolve\n"
           "x = np.arange(6, dtype=np.float32).reshape(2, 3)\n"
           "print(resolve('einops').rearrange(ms.Tensor(x), 'a b -> b a').asnumpy().tolist())\n")
    proc = subprocess.run([sys.executable, "-c", run], cwd=tmp_path / "o1", capture_output=True, text=True,
                          timeout=300, check=False, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.array(eval(proc.stdout)), x.T)


def test_a_star_import_of_any_public_torch_module_is_resolved_and_guarded():
    """``from torch.distributions.transforms import *`` (zuko): the names file listed the star
    names of 19 torch modules only, so the import of any other stayed as written, unguarded, and
    the converted package imported torch. Every public torch module is listed now: the names it
    binds are translated (``Softplus``) or stood in for (``ExpTransform``)."""
    src = textwrap.dedent("""\
        import torch
        from torch.nn.modules.activation import *  # noqa: F403
        from torch.distributions.transforms import *  # noqa: F403


        def f(x):
            return Softplus(beta=2.0)(x) + Tanh()(x)


        def g(x):
            return ExpTransform()(x)
        """)
    code = converted(src)
    run_time = ast.parse(code)
    for node in ast.walk(run_time):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            node.body = [ast.Pass()]  # imports for type checkers only
    for node in ast.walk(run_time):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            assert not any(n.split(".")[0] == "torch" for n in names), ast.unparse(node)
    assert "    return nn.Softplus(beta=2.0)(x) + nn.Tanh()(x)\n" in code
    torch_ns, ms_ns = {}, {}
    exec(src, torch_ns)
    exec(code, ms_ns)
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    expected = torch_ns["f"](torch.from_numpy(x)).numpy()
    got = ms_ns["f"](ms.Tensor(x)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ImportError, match="torch.distributions.transforms.ExpTransform"):
        ms_ns["g"](ms.Tensor(x))


@pytest.mark.parametrize("target", TARGETS)
def test_a_tensor_of_lists_199_deep_converts_whole_and_stays_199_deep(target):
    """CPython compiles 199 nested brackets: ``torch.tensor([[...]])`` 199 deep converts whole (no
    statement kept as written; no tensor has 198 dimensions, torch's or NumPy's, so it is not run)."""
    src = "import torch\n\nt = torch.tensor(" + "[" * 198 + "-1.5" + "]" * 198 + ")\n"
    res = convert_text(src, target)
    assert res.error is None and "MS920" not in res.code, res.error
    assert bracket_depth(src) == bracket_depth(res.code) == 199
    assert "t = ms.Tensor(" + "[" * 198 + "-1.5" + "]" * 198 + ")\n" in res.code


def test_199_nested_calls_convert_whole_on_mindspore():
    """The same on --target mindspore for calls (tests/migrate/convert/test_reliability.py has
    ms_core's, through the command line)."""
    src = "import torch\n\n\ndef f(y):\n    return " + "torch.abs(" * 199 + "y" + ")" * 199 + "\n"
    res = convert_text(src, "mindspore")
    assert res.error is None and "MS920" not in res.code, res.error
    assert bracket_depth(src) == bracket_depth(res.code) == 199
    assert "    return " + "ops.abs(" * 199 + "y" + ")" * 199 + "\n" in res.code


def test_a_write_through_data_is_a_write_of_the_tensor_for_its_named_views():
    """fairseq's cpu_adam.py: ``kept = p.data`` then ``p.data = p.data.to(torch.float32)``, which
    the conversion writes as ``p.copy_(...)``: the first conversion did not take ``p.data = v`` for
    an in-place write of ``p``, and the second, reading ``p.copy_``, added MS907 (not idempotent).
    ``t.data = v``, ``t.data[i] = v``, ``t.data += v`` and ``t.data.mul_(s)`` write ``t``."""
    code = converted("""\
        import torch


        class Keep32(torch.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, dict(lr=lr))
                for group in self.param_groups:
                    for p in group["params"]:
                        kept = p.data
                        p.data = p.data.to(dtype=torch.float32)
                        if kept.dtype != p.dtype:
                            kept.copy_(p.data)
        """)
    assert ("                kept = p.data\n"
            "                # migrate: MS907 in-place update of p while kept is a view of p and kept is read after it"
            ) in code
    assert "                p.copy_(p.data.astype(ms.float32))\n" in code
    for write in ("t.data[0] = 1.0", "t.data += 1.0", "t.data.mul_(2.0)"):
        code = converted(f"""\
            import torch


            def f(t: torch.Tensor):
                v = t.detach()  # (a copy on ms_core: every write of t is missed there)
                {write}
                return v
            """)
        assert "    # migrate: MS907 in-place update of t while v is a view of t and v is read after it" in code, write


CHECKPOINTED = """\
import torch


class Checkpointed(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, x):
        ctx.run_function = run_function
        ctx.save_for_backward(x)
        with torch.no_grad():
            out = run_function(x)  # not recorded
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        # recompute with grad on
        x = x.detach().requires_grad_(True)
        with torch.enable_grad():
            out = ctx.run_function(x)
        # then differentiate
        (gx,) = torch.autograd.grad(out, x, grad)
        return None, gx
"""


def test_the_comments_of_a_recomputing_backward_that_goes_are_kept():
    """fairseq's checkpoint_activations.py: a gradient-checkpoint Function becomes a plain class
    (its forward as apply, differentiated directly) and its backward goes, with the comments
    written in it (4 lost comments); they stay where the method was."""
    code = converted(CHECKPOINTED)
    assert code.endswith("        return out\n    # recompute with grad on\n    # then differentiate\n")
    torch_ns, ms_ns = {}, {}
    exec(CHECKPOINTED, torch_ns)
    exec(code, ms_ns)
    x = np.array([0.5, -1.0, 2.0], np.float32)
    xt = torch.tensor(x, requires_grad=True)
    torch_ns["Checkpointed"].apply(torch.sin, xt).sum().backward()
    g = ms.grad(lambda v: ms_ns["Checkpointed"].apply(ms.ops.sin, v).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_conditional_of_tensors_is_a_tensor_the_first_time():
    """diffusers' scheduling_amused.py: ``p = probs.to(g.device) if g is not None else probs``;
    the first conversion made it ``p = probs`` but did not take the conditional for a tensor, so
    ``p.float()`` was converted by the second conversion only."""
    code = converted("""\
        import torch


        def sample(logits: torch.Tensor, g=None):
            probs = logits.softmax(dim=-1)
            p = probs.to(g.device) if g is not None else probs
            return p.float()
        """)
    assert "    return p.astype(ms.float32)\n" in code
    ns = {}
    exec(code, ns)
    x = np.array([[1.0, 2.0, 0.5]], np.float32)
    expected = torch.tensor(x).softmax(dim=-1).float().numpy()
    got = ns["sample"](ms.Tensor(x)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
