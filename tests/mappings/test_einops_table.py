"""Proofs of mappings/einops.toml and einops_misc.toml (einops -> generated code): see
tests/mappings/proof.py. einops is not a test dependency, so the converted code is proven
against torch written by hand in tests/migrate/runtime/test_einops.py (forward and
gradients) and tests/migrate/convert/test_einops.py (before/after pairs, errors)."""
import pytest

from tests.mappings.proof import Marked, ProvenBy, case_id, run

NUMERIC = "tests/migrate/runtime/test_einops.py::"
PAIRS = "tests/migrate/convert/test_einops.py::"

CASES = [
    ProvenBy("einops.rearrange", NUMERIC + "test_forward_and_gradient_match_torch_by_hand"),
    ProvenBy("einops.reduce", NUMERIC + "test_forward_and_gradient_match_torch_by_hand"),
    ProvenBy("einops.repeat", NUMERIC + "test_forward_and_gradient_match_torch_by_hand"),
    ProvenBy("einops.einsum", NUMERIC + "test_einsum_names_axes_by_words"),
    ProvenBy("einops.pack", NUMERIC + "test_pack_and_unpack_match_cat_and_split"),
    ProvenBy("einops.unpack", NUMERIC + "test_pack_and_unpack_match_cat_and_split"),
    ProvenBy("einops.parse_shape", NUMERIC + "test_parse_shape_names_the_lengths"),
    ProvenBy("einops.asnumpy", NUMERIC + "test_asnumpy_gives_the_values"),
    ProvenBy("einops.layers.torch.Rearrange", NUMERIC + "test_layers_are_cells_that_match_torch"),
    ProvenBy("einops.layers.torch.Reduce", NUMERIC + "test_layers_are_cells_that_match_torch"),
    ProvenBy("einops.EinopsError", PAIRS + "test_pair"),
    *[ProvenBy(f"einops.einops.{name}", PAIRS + "test_pair")
      for name in ("rearrange", "reduce", "repeat", "einsum", "parse_shape", "asnumpy")],
    ProvenBy("einops.packing.pack", PAIRS + "test_pair"),
    ProvenBy("einops.packing.unpack", PAIRS + "test_pair"),
    Marked("einops.layers.torch.EinMix", "from einops.layers.torch import EinMix\n"
                                         "mix = EinMix('b n d -> b n e', weight_shape='d e', d=4, e=8)", id="MS901"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
