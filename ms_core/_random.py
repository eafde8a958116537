"""The global random generator behind initializers and random ops (`ms.set_seed`)."""
import numpy as np

_GEN = [np.random.default_rng()]
_SEED = [None]


def set_seed(seed):
    """Seed every ms_core random draw (initializers, dropout, random ops)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"For 'set_seed', the 'seed' must be a non-negative int, but got {seed!r}.")
    _SEED[0] = seed
    _GEN[0] = np.random.default_rng(seed)
    np.random.seed(seed)


def get_seed():
    return _SEED[0]


def generator():
    return _GEN[0]
