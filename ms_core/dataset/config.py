"""`ms_core.dataset.config`: the dataset pipeline's global settings (seed, workers, prefetch).

The seed drives every shuffle in the pipelines (`shuffle=True`, `.shuffle()`, samplers). As in
MindSpore, `ms.set_seed(s)` also sets it (whichever of the two was called last wins), and when
neither was called it is std::mt19937's default seed 5489: shuffles are reproducible from run to
run unless a seed says otherwise (torch's DataLoader draws a fresh order per run instead).
"""
import random

import numpy as np

from .. import _random
from .._checkparam import check_dataset_range, check_dataset_type

DEFAULT_SEED = 5489  # std::mt19937::default_seed, MindSpore's dataset default
_CONFIG = {"seed": None, "seed_generator": None, "num_parallel_workers": 8, "prefetch_size": 16,
           "monitor_sampling_interval": 1000}
_UINT32_MAX = 4294967295  # the upper bound MindSpore states for every config value


def set_seed(seed):
    """Seed the shuffles of every dataset pipeline created or iterated afterwards.

    Raises:
        TypeError: seed is not an int.
        ValueError: seed is outside [0, 4294967295].
    """
    check_dataset_type("seed", seed, (int,))
    check_dataset_range("seed", seed, 0, _UINT32_MAX)
    _CONFIG["seed"] = seed
    # ms.set_seed replaces the global generator: remembering the current one tells get_seed
    # whether ms.set_seed ran after this call
    _CONFIG["seed_generator"] = _random.generator()
    random.seed(seed)  # MindSpore seeds Python's and NumPy's global generators here too
    np.random.seed(seed)


def get_seed():
    """The dataset seed: the last of `ds.config.set_seed` / `ms.set_seed`, else 5489."""
    global_seed = _random.get_seed()
    if _CONFIG["seed"] is not None and (global_seed is None
                                        or _CONFIG["seed_generator"] is _random.generator()):
        return _CONFIG["seed"]
    return global_seed if global_seed is not None else DEFAULT_SEED


def set_num_parallel_workers(num):
    """Accepted for compatibility: ms_core pipelines run in the calling thread."""
    check_dataset_type("num_parallel_workers", num, (int,))
    check_dataset_range("num_parallel_workers", num, 1, _UINT32_MAX)
    _CONFIG["num_parallel_workers"] = num


def get_num_parallel_workers():
    return _CONFIG["num_parallel_workers"]


def set_prefetch_size(size):
    """Accepted for compatibility: ms_core pipelines produce rows on demand."""
    check_dataset_type("size", size, (int,))
    check_dataset_range("size", size, 1, _UINT32_MAX)
    _CONFIG["prefetch_size"] = size


def get_prefetch_size():
    return _CONFIG["prefetch_size"]
