"""Converter bugs found by fuzzing (issue 13, bench/fuzz.py), each as its minimal repro written
as the behaviour we want (before/after). The grammar of tests/migrate/convert/torch_programs.py
draws every one of these cases, so the property tests cover their whole class too.
"""
from migrate import convert_source
from migrate.convert.guarded import convert_text
from tests.migrate.convert.torch_programs import comments


def kept(src: str) -> bool:
    return not comments(src) - comments(convert_source(src).code)


def test_item6_comment_on_a_replaced_training_call_is_kept():
    src = ("import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nfor x, y in data:\n"
           "    opt.zero_grad()\n    loss = torch.nn.functional.mse_loss(model(x), y)\n"
           "    loss.backward()\n    opt.step()  # one step per batch\n")
    assert kept(src)


def test_item6_comment_above_a_removed_torch_import_is_kept():
    assert kept("import torch.nn\n# the init helpers\nfrom torch.nn import init\n")


def test_f1_indented_comment_at_the_end_of_the_file_is_kept():
    assert kept("import torch\nx = torch.ones(2)\n    # tail\n")


def test_f2_type_as_of_an_expression_keeps_its_meaning():
    assert "(b + c).dtype" in convert_source("import torch\ny = a.type_as(b + c)\n").code


def test_f3_init_function_on_a_literal_converts():
    assert convert_text("from torch import nn\ny = nn.init.zeros_(0)\n").error is None


def test_f4_comment_between_arguments_of_a_rebuilt_call_is_kept():
    assert kept("from torch.nn.init import xavier_normal_\nxavier_normal_(\n    w,  # the weight\n)\n")


def test_f5_comment_on_a_removed_no_grad_block_is_kept():
    assert kept("import torch\nwith torch.no_grad():  # evaluation\n    y = f(x)\n")


def test_f6_comment_on_a_dropped_argument_is_kept():
    assert kept("import torch.nn as nn\nact = nn.ReLU(\n    True,  # in place\n)\n")


def test_f7_comment_on_a_statement_a_rule_removes_is_kept():
    assert kept("import torch\nsampler = torch.utils.data.DistributedSampler(ds)  # one shard per rank\n")


def test_f8_a_name_rebound_after_a_removed_object_keeps_its_assignment():
    code = convert_source("import torch\ns = torch.utils.data.DistributedSampler(ds)\ns = 3\nprint(s)\n").code
    assert "s = 3" in code


# ---- F11: generated code means Python's builtins, whatever the file binds ------------------
def _run(code: str, **names) -> dict:
    scope = dict(names)
    exec(compile(code, "<converted>", "exec"), scope)
    return scope


def test_f11_generated_helpers_reach_builtins_a_kept_torch_import_shadows():
    # `from torch.hub import list` stays (guarded) and binds `list` where the helpers ran
    # `isinstance(value, (list, tuple))`: the second conversion marked them as torch.hub.list
    # (the runtime's code in the file: a file written to stdout inlines it)
    once = convert_source("from torch.hub import list\nfrom torch.nn import Conv1d\nm = Conv1d(*args)\n"
                          "y = list()\n", runtime="").code
    assert "import builtins as _builtins\n" in once
    assert "isinstance(value, (_builtins.list, tuple))" in once and "y = list()" in once
    assert convert_source(once, runtime="").code == once
    imported = convert_source("from torch.hub import list\nfrom torch.nn import Conv1d\nm = Conv1d(*args)\n").code
    assert "_builtins" not in imported  # imported, the runtime's code is in its own module
    scope = _run(once.replace("y = list()\n", ""), args=(2, 3, [3]))
    assert scope["torch_ms_tuple"]([3], 1) == 3 and scope["m"].kernel_size == (1, 3)


def test_f11_a_module_level_def_of_a_builtin_name_does_not_reach_the_helpers():
    src = "import torch.nn as nn\ndef len(v):\n    return 0\nm = nn.Conv2d(3, 4, 3, padding=p)\n"
    once = convert_source(src, runtime="").code
    assert "if _builtins.len(pads) == 1:" in once and "def len(v):" in once
    assert convert_source(once, runtime="").code == once
    assert _run(once, p=(1, 2))["m"].padding == (1, 1, 2, 2)


def test_f11_expressions_written_into_user_code_name_the_builtin():
    # a template (torch.unflatten: `tuple({sizes})`), a table target (torch.Size -> tuple) and
    # rules' expressions (random_split: `list(sizes)`, next(m.named_children()): `iter(...)`), where
    # `tuple`, `list` and `iter` are the file's
    src = ("import torch\ntuple = list = iter = None\ny = torch.unflatten(x, 1, sizes)\n"
           "s = torch.Size([2, 3])\na, b = torch.utils.data.random_split(ds, sizes)\n"
           "p = next(model.named_children())\n")
    once = convert_source(src).code
    assert "_builtins.tuple(sizes)" in once and "s = _builtins.tuple([2, 3])" in once
    assert ".split(_builtins.list(sizes), randomize=True)" in once
    assert "p = next(_builtins.iter(model.name_cells().items()))" in once
    assert "tuple = list = iter = None" in once and convert_source(once).code == once


def test_f11_nothing_changes_where_the_builtins_are_free():
    # `from torch import max, list`... that the conversion removes binds nothing in the output
    once = convert_source("from torch.nn import Conv1d\nfrom torch import max\nm = Conv1d(*args)\n"
                          "y = max(x)\n", runtime="").code
    assert "_builtins" not in once and "isinstance(value, (list, tuple))" in once
    assert "y = ops.amax(x)" in once and convert_source(once, runtime="").code == once


def test_f11_a_file_that_binds_the_private_name_gets_another_one():
    src = "from torch.hub import list\nfrom torch.nn import Conv1d\n_builtins = 1\nm = Conv1d(*args)\ny = list()\n"
    once = convert_source(src, runtime="").code
    assert "import builtins as _builtins_\n" in once and "(_builtins_.list, tuple)" in once
    assert convert_source(once, runtime="").code == once


# ---- F12: a module method marked once stays marked once ------------------------------------
def test_f12_a_marked_module_method_in_a_file_with_a_training_loop_is_marked_once():
    # the training loop tells the first conversion that `model` is a module; the second one
    # no longer sees the loop and marked `model.cpu(*args)` as Tensor.cpu too
    src = ("import torch\nx = torch.randn(2, 3)\nmodel = make_model()\nr = model.cpu(*args)\n"
           "y = torch.FloatTensor(*args)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
           "for xb, yb in data:\n\topt.zero_grad()\n\tout = model(xb)\n"
           "\tloss = torch.nn.functional.mse_loss(out, yb)\n\tloss.backward()\n\topt.step()\n")
    once = convert_source(src).code
    assert once.count("# migrate: MS903 Module.cpu") == 1 and "MS903 Tensor.cpu" not in once
    assert convert_source(once).code == once


def test_f12_to_with_star_arguments_is_decided_at_run_time_not_dropped():
    # `.to(*a)` may carry a dtype: dropping it (as a device move) would change the computation;
    # the generated torch_to casts or passes when it runs
    once = convert_source("import torch\nx = torch.ones(2)\ny = x.to(*a, **k)\n").code
    assert "y = torch_to(x, *a, **k)" in once and "# migrate:" not in once
    assert convert_source(once).code == once


# ---- comments inside the arguments of a removed or replaced statement -----------------------
def test_comment_inside_a_removed_call_statement_is_kept():
    src = "import torch\ntorch.cuda.synchronize(  # wait for the GPU\n)\nx = 1\n"
    out = convert_source(src).code
    assert out.endswith("# wait for the GPU\nx = 1\n") and kept(src)


def test_comment_inside_a_removed_torch_import_is_kept():
    src = "import os\nfrom torch import (  # layers\n    nn,  # the module\n)\nm = nn.ReLU()\n"
    out = convert_source(src).code
    assert "# layers\n# the module\n" in out and kept(src) and convert_source(out).code == out


def test_comment_inside_a_removed_nested_torch_import_is_kept():
    src = "import torch\ndef f():\n    from torch import (  # inner\n        nn,\n    )\n    return nn.ReLU()\n"
    out = convert_source(src).code
    assert "    # inner\n    return nn.ReLU()" in out and kept(src)


def test_comment_inside_a_partly_kept_torch_import_is_kept():
    src = ("from torch import (  # what we use\n    nn,  # layers\n    fft,\n)\n"
           "y = fft.fftn(x, s=(2, 3), norm='forward', out=z)\nm = nn.ReLU()\n")
    out = convert_source(src).code
    assert kept(src) and convert_source(out).code == out


def test_comments_inside_replaced_training_calls_are_kept():
    src = ("import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nfor x, y in data:\n"
           "    opt.zero_grad(  # reset\n    )\n    loss = torch.nn.functional.mse_loss(model(x), y)\n"
           "    loss.backward(  # grads\n    )\n    opt.step(  # update\n    )\n")
    out = convert_source(src).code
    assert "    # reset\n    pass\n" in out and "    # grads\n    loss, grads = grad_fn(x, y)\n" in out
    assert "    # update\n    opt(grads)\n" in out and kept(src) and convert_source(out).code == out


def test_comment_inside_a_call_in_a_one_line_block_is_kept():
    src = "import torch\nif x: torch.cuda.synchronize(  # wait\n    )\n"
    out = convert_source(src).code
    assert out.endswith("ms\n# wait\n") and kept(src)  # (the if did nothing once converted: it goes)


def test_f12_a_module_to_dtype_marked_once_is_not_cast_the_second_time():
    # the marker says Module.to: the second conversion must not turn it into Tensor.astype
    src = ("import torch\ny = torch.FloatTensor(*args)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
           "for xb, yb in data:\n    opt.zero_grad()\n    loss = torch.nn.functional.mse_loss(model(xb), yb)\n"
           "    loss.backward()\n    opt.step()\nr = model.to(0, 0)\n")
    once = convert_source(src).code
    assert once.endswith("r = torch_to(model, 0, 0)\n")  # a cast only if run time passes a dtype
    assert convert_source(once).code == once


def test_comment_inside_the_head_of_a_removed_device_block_is_kept():
    src = "import torch\nwith torch.device(  # evaluation\n'cpu'):\n    y = f(x)\n"
    out = convert_source(src).code
    assert out.endswith("# evaluation\ny = f(x)\n") and kept(src)


def test_an_in_place_functional_on_a_literal_converts_once():
    # F.hardtanh_(2) -> the runtime's torch_hardtanh_(2) (it was `(lambda _c: (2).copy_(...))((2).copy())`,
    # which with torch kept (a guard) a second conversion marked as an in-place update of a view)
    src = "from torch.nn import functional as F\nfrom torch import allow_tf32\nallow_tf32()\nF.hardtanh_(2)\n"
    once = convert_source(src).code
    assert once.endswith("\ntorch_hardtanh_(2)\n")
    assert convert_source(once).code == once


def test_an_indented_comment_ending_a_file_after_a_comment_with_a_backslash_is_kept():
    # the backslash ends a comment, it does not continue the line: the tail is a tail
    src = "import torch\nx = torch.ones(2)  # a path: C:\\\n    # tail\n"
    out = convert_source(src).code
    assert out.endswith("x = ops.ones((2,))  # a path: C:\\\n    # tail\n") and kept(src)


def test_the_inlined_runtime_is_not_converted_again():
    # `torch_eval(obj)` calls the object's own `eval`: walked again, the helper's own body
    # became `return torch_eval(obj)`
    once = convert_source("import torch\ny = torch.FloatTensor(*args)\nr = model.eval()\n", runtime="").code
    assert "def torch_eval(obj):" in once and "r = torch_eval(model)" in once
    assert once.count("torch_eval(") == 2  # the definition and the one call, nothing inside
    assert convert_source(once, runtime="").code == once


def test_calculate_gain_with_a_lambda_param_and_a_variable_name_converts():
    # the param went into `(0.01 if <param> is None else <param>)` unparenthesised
    res = convert_text("from torch.nn.init import calculate_gain\ng = calculate_gain(name, param=lambda e: 0.9 ** e)\n")
    assert res.error is None and "(0.01 if (lambda e: 0.9 ** e) is None else (lambda e: 0.9 ** e))" in res.code


def test_a_comment_inside_init_process_group_is_kept():
    # fuzz (bench/fuzz.py, 10 minutes on main): MS210 replaced the call by two statements and
    # dropped the comment written inside its arguments
    src = ("import torch\nimport torch.distributed as dist\n# set up\n"
           "dist.init_process_group(\n    backend='gloo',  # CPU\n)  # once\n")
    once = convert_source(src).code
    for comment in ("# set up", "# CPU", "# once"):
        assert comment in once, once
    assert "ms.communication.init()" in once
    assert convert_source(once).code == once
