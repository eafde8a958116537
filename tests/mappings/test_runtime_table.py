"""Proofs of mappings/runtime.toml (TorchScript, devices, backend flags, hub): see
tests/mappings/proof.py. The entries change no numbers, so most are proven by the whole-program
tests of tests/migrate/convert/imports/test_runtime.py, parametrized over every entry of a rule."""
import pytest

from mappings import load_tables
from tests.mappings.proof import Expr, Marked, Program, ProvenBy, case_id, run

pytest.importorskip("torch")

TESTS = "tests/migrate/convert/imports/test_runtime.py"
_BY_RULE = {
    "passthrough": "test_script_like_calls_return_their_argument",
    "registration": "test_registrations_with_torchs_machinery_go",
    "false": "test_device_and_tracing_queries_answer_for_a_target_without_torch_devices",
    "zero": "test_device_and_tracing_queries_answer_for_a_target_without_torch_devices",
    "none_value": "test_device_and_tracing_queries_answer_for_a_target_without_torch_devices",
    "no_op": "test_device_settings_and_device_seeding_are_removed",
    "backend_flag": "test_backend_flags_set_are_removed_and_read_give_torch_default",
    "final_annotation": "test_jit_isinstance_and_final_names",
    "builtin_isinstance": "test_jit_isinstance_and_final_names",
}
_RUNTIME = {name: e for name, e in load_tables().items() if e.table == "runtime"}

CASES = [
    *[ProvenBy(f"torch.cuda.{name}", "tests/migrate/convert/rules/test_cuda_queries.py::"
               "test_a_cuda_query_raises_where_torch_without_cuda_raises")
      for name in ("get_device_properties", "get_device_name", "get_device_capability", "current_device",
                   "mem_get_info")],
    Expr("torch.jit.annotate", "torch.jit.annotate(torch.Tensor, x) * 2"),
    ProvenBy("torch.jit.script", f"{TESTS}::test_torchscript_runs_as_python_and_matches"),
    ProvenBy("torch.jit.is_scripting", f"{TESTS}::test_torchscript_runs_as_python_and_matches"),
    ProvenBy("torch.hub.load_state_dict_from_url",
             "tests/migrate/convert/rules/test_hub.py::test_load_url_then_load_state_dict_gives_torch_outputs_without_torch"),
    ProvenBy("torch.utils.model_zoo.load_url",
             "tests/migrate/convert/rules/test_hub.py::test_load_url_then_load_state_dict_gives_torch_outputs_without_torch"),
    ProvenBy("torch.hub.get_dir", "tests/ms_core/test_hub.py::test_download_is_cached_and_hash_checked"),
    ProvenBy("torch.hub.set_dir", "tests/ms_core/test_hub.py::test_download_is_cached_and_hash_checked"),
    ProvenBy("torch.hub._get_torch_home", "tests/migrate/convert/test_first_pass_classes.py::"
             "test_torchs_home_directory_is_computed_without_torch"),
    *[Marked(name, f"import torch.jit\nimport torch.hub\ny = {name}(a)")
      for name, e in sorted(_RUNTIME.items()) if e.label == "unsupported"],
    *[ProvenBy(name, f"{TESTS}::{_BY_RULE[e.rule]}")
      for name, e in sorted(_RUNTIME.items()) if e.rule in _BY_RULE],
    *[Program(name, """
import tempfile


def run(m):
    before = torch.hub.get_dir()
    d = tempfile.mkdtemp()
    torch.hub.set_dir(d)
    got = torch.hub.get_dir() == d
    torch.hub.set_dir(before)
    return [got, torch.hub.get_dir() == before]
""", inputs=("m",), uses="ms.hub.set_dir(d)") for name in ("torch.hub.get_dir", "torch.hub.set_dir")],
]


CASES += [ProvenBy(q, "tests/migrate/convert/training/test_recipe_gaps.py::"
                      "test_summary_writer_keeps_the_scalars_a_script_logs")
          for q in ("torch.utils.tensorboard.SummaryWriter", "torch.utils.tensorboard.writer.SummaryWriter")]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
