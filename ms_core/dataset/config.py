"""`ms_core.dataset.config`: the dataset pipeline's global settings (seed, workers, prefetch).

The seed drives every shuffle in the pipelines (`shuffle=True`, `.shuffle()`, samplers). When it
is not set here, the global `ms.set_seed` seed is used; when neither is set, each pipeline draws
fresh entropy (a different order on every run, as in MindSpore).
"""
_CONFIG = {"seed": None, "num_parallel_workers": 8, "prefetch_size": 16, "monitor_sampling_interval": 1000}


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"Argument {name} with value {value} is not of type [<class 'int'>], but got "
                        f"{type(value)}.")
    if value < low:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, 4294967295].")


def set_seed(seed):
    """Seed the shuffles of every dataset pipeline created or iterated afterwards.

    Raises:
        TypeError: seed is not an int.
        ValueError: seed is negative.
    """
    _check_int("seed", seed, 0)
    _CONFIG["seed"] = seed


def get_seed():
    """The dataset seed: the one set here, else the global `ms.set_seed` seed, else None."""
    if _CONFIG["seed"] is not None:
        return _CONFIG["seed"]
    from .._random import get_seed as global_seed
    return global_seed()


def set_num_parallel_workers(num):
    """Accepted for compatibility: ms_core pipelines run in the calling thread."""
    _check_int("num_parallel_workers", num, 1)
    _CONFIG["num_parallel_workers"] = num


def get_num_parallel_workers():
    return _CONFIG["num_parallel_workers"]


def set_prefetch_size(size):
    """Accepted for compatibility: ms_core pipelines produce rows on demand."""
    _check_int("size", size, 1)
    _CONFIG["prefetch_size"] = size


def get_prefetch_size():
    return _CONFIG["prefetch_size"]
