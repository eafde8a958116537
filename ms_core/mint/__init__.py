"""`ms_core.mint`: MindSpore's torch-style interfaces; here only `mint.distributed`, the
in-place collectives that take torch.distributed's signatures (`all_reduce(tensor)` writes the
result into `tensor`), which MindSpore 2.10 runs on the CPU."""
from . import distributed  # noqa: F401
