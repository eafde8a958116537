"""The checker's tests run torch on one thread: on a loaded machine torch's OpenMP threads spin
against each other (the check suite took 207 s at load 10 on 2 cores with two threads, 30 s with
one). The setting is restored after each module."""
import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    import torch
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
