"""Proofs of the sampler entries of mappings/training.toml (see tests/mappings/proof.py)."""
from tests.mappings.proof import ProvenBy

_TEST = "tests/migrate/convert/test_script_classes.py::test_random_and_sequential_samplers_pass_to_the_dataset"
CASES = [ProvenBy(api, _TEST) for api in (
    "torch.utils.data.RandomSampler", "torch.utils.data.sampler.RandomSampler",
    "torch.utils.data.SequentialSampler", "torch.utils.data.sampler.SequentialSampler")]
