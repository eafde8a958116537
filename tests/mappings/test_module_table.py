"""Proofs of mappings/module.toml (nn.Module methods -> Cell methods): see tests/mappings/proof.py.

Module methods need a module class on both sides, so most are proven by the numeric tests of
tests/migrate/convert/test_module_methods.py (the same module source built by torch and, converted,
by ms_core, torch's weights copied in, each method's result compared)."""
import pytest

from tests.mappings.proof import Layer, ProvenBy, case_id, run

pytest.importorskip("torch")

T = "tests/migrate/convert/test_module_methods.py::"
RUNS = T + "test_registered_parameters_buffers_and_children_run_as_torch"
LISTS = T + "test_listing_methods_name_the_same_things"
USES = T + "test_apply_get_submodule_train_eval_and_forward"
HOOKS = T + "test_forward_hooks_and_full_backward_hook"

CASES = [
    *[ProvenBy(f"Module.{m}", "tests/migrate/convert/rules/test_cast_cell.py::"
               + ("test_double_casts_parameters_and_buffers_and_matches_torch_in_float64" if m == "double"
                  else "test_half_precision_casts")) for m in ("double", "half", "bfloat16")],
    ProvenBy("Module.register_buffer", RUNS), ProvenBy("Module.register_parameter", RUNS),
    ProvenBy("Module.add_module", RUNS),
    ProvenBy("Module.register_module", "tests/migrate/convert/test_first_pass_third_sample.py::"
                                       "test_registered_modules_and_softplus_match_torch"),
    ProvenBy("Module.generate_square_subsequent_mask",
             "tests/migrate/convert/training/test_recipe_rules.py::test_square_subsequent_masks_are_torchs"),
    ProvenBy("Module.named_parameters", LISTS), ProvenBy("Module.parameters", LISTS),
    ProvenBy("Module.requires_grad_", "tests/migrate/convert/training/test_recipe_gaps.py::"
                                      "test_a_frozen_ema_with_batchnorm_and_a_buffer_moves_and_pairs_as_torch"),
    ProvenBy("Module.named_modules", LISTS), ProvenBy("Module.modules", LISTS),
    ProvenBy("Module.named_children", LISTS), ProvenBy("Module.children", LISTS),
    ProvenBy("Module.buffers", LISTS), ProvenBy("Module.named_buffers", LISTS), ProvenBy("Module.state_dict", LISTS),
    ProvenBy("Module.apply", USES), ProvenBy("Module.get_submodule", USES), ProvenBy("Module.train", USES),
    ProvenBy("Module.eval", USES), ProvenBy("Module.forward", USES), ProvenBy("Module.cpu", USES),
    ProvenBy("Module.cuda", T + "test_device_moves_of_a_module_are_dropped"),
    ProvenBy("Module.to", T + "test_device_moves_of_a_module_are_dropped"),
    ProvenBy("Module.load_state_dict", T + "test_load_state_dict_round_trip"),
    ProvenBy("Module.register_forward_hook", HOOKS), ProvenBy("Module.register_forward_pre_hook", HOOKS),
    ProvenBy("Module.register_full_backward_hook", HOOKS),
    ProvenBy("Module.zero_grad", "tests/migrate/convert/test_module_methods.py::test_zero_grad_of_a_module_is_removed"),
    ProvenBy("Module.flatten_parameters", "tests/migrate/convert/test_whole_module_checkpoint.py::"
                                          "test_reloaded_module_gives_the_saved_outputs_like_torch"),
    # an expression form as well: apply returns the module, here a Sequential built in place
    Layer("Module.apply", "nn.Sequential(nn.Linear(4, 3), nn.Tanh()).apply(lambda m: None)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
