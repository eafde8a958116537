"""Proofs of the entries for torch's autograd state and list ops (mappings/torch.toml: grad mode,
torch._foreach_*, the transformer's activation by name, nn.Module.__init__): each foreach op out of
place and in place against torch (values and gradients); the grad-mode entries by the tests that
run them inside and outside ms.grad."""
import pytest

from tests.mappings.proof import Expr, ProvenBy, case_id, run

# (op, its arguments after the list, the inputs' bank names): pos/u keep sqrt, log, div defined
_FOREACH = [
    ("add", "[y, x], alpha=0.5", "xy"), ("sub", "0.25", "xy"), ("mul", "[y, x]", "xy"), ("div", "2.0", "xy"),
    ("pow", "2", "xy"), ("maximum", "[y, x]", "xy"), ("minimum", "[y, x]", "xy"),
    ("clamp_min", "0.1", "xy"), ("clamp_max", "0.1", "xy"), ("lerp", "[y, x], 0.3", "xy"),
    ("addcmul", "[y, x], [x, y], value=0.5", "xy"), ("addcdiv", "[y, x], [pos, u], value=0.5", "xy"),
    ("neg", "", "xy"), ("abs", "", "xy"), ("sqrt", "", "pos"), ("rsqrt", "", "pos"), ("exp", "", "xy"),
    ("log", "", "pos"), ("reciprocal", "", "pos"), ("sigmoid", "", "xy"), ("sign", "", "xy"),
]
_LISTS = {"xy": "[x, y]", "pos": "[pos, u]"}


def _cases(op, args, inputs):
    lst, comma = _LISTS[inputs], ", " if args else ""
    yield Expr(f"torch._foreach_{op}", f"torch.stack(torch._foreach_{op}({lst}{comma}{args}))")
    copies = lst.replace("x", "x * 1").replace("y", "y * 1").replace("pos", "pos * 1").replace("[u", "[u * 1")
    copies = copies.replace(", u]", ", u * 1]")
    yield Expr(f"torch._foreach_{op}_",
               f"(lambda l: (torch._foreach_{op}_(l{comma}{args}), torch.stack(l))[1])({copies})")


CASES = [c for spec in _FOREACH for c in _cases(*spec)] + [
    Expr("torch._foreach_zero_", "(lambda l: (torch._foreach_zero_(l), torch.stack(l))[1])([x * 1, y * 1])"),
    # torch has no derivative for _foreach_copy_: values only
    Expr("torch._foreach_copy_", "(lambda l: (torch._foreach_copy_(l, [y, x]), torch.stack(l))[1])([x * 1, y * 1])",
         grad=False),
    Expr("torch.nn.modules.transformer._get_activation_fn",
         "torch.nn.modules.transformer._get_activation_fn('gelu')(x)"),
    Expr("torch.nn.modules.transformer._get_activation_fn",
         "torch.nn.modules.transformer._get_activation_fn('relu')(x)"),
    ProvenBy("torch.nn.Module.__init__", "tests/migrate/convert/rules/test_state_runtime.py::"
                                         "test_activation_by_name_and_explicit_module_init_match_torch"),
]
_GRAD_MODE = "tests/migrate/convert/rules/test_grad_mode.py::test_grad_mode_matches_torch"
CASES += [ProvenBy(api, _GRAD_MODE) for api in (
    "torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad", "torch.enable_grad",
    "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad", "torch.set_grad_enabled",
    "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled", "torch._C._set_grad_enabled",
    "torch.is_grad_enabled", "torch._C.is_grad_enabled")]
CASES += [ProvenBy(api, "tests/migrate/convert/rules/test_grad_mode.py::test_inference_mode_matches_torch")
          for api in ("torch.inference_mode", "torch.autograd.inference_mode",
                      "torch.autograd.grad_mode.inference_mode")]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
