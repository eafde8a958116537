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


# the state as MindSpore's get_rng_state gives it (ops.random_ops wraps it in a uint8 Tensor): PCG64's
# 128-bit state and increment, then its buffered 32-bit half (a flag and the value), little-endian
STATE_BYTES = 16 + 16 + 1 + 4


def state_bytes():
    """The global generator's state as STATE_BYTES uint8 values."""
    st = _GEN[0].bit_generator.state
    raw = (st["state"]["state"].to_bytes(16, "little") + st["state"]["inc"].to_bytes(16, "little")
           + bytes([st["has_uint32"]]) + int(st["uinteger"]).to_bytes(4, "little"))
    return np.frombuffer(raw, np.uint8).copy()


def set_state_bytes(arr):
    """Restore the global generator to what :func:`state_bytes` gave."""
    raw = arr.tobytes()
    gen = np.random.default_rng()
    gen.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": int.from_bytes(raw[:16], "little"),
                                         "inc": int.from_bytes(raw[16:32], "little")},
                               "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")}
    _GEN[0] = gen
