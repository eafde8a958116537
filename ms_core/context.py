"""`ms.set_context` / `ms.get_context` and the execution-mode constants."""
GRAPH_MODE = 0
PYNATIVE_MODE = 1

_CONTEXT = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0}
_VALID = {"mode", "device_target", "device_id", "save_graphs", "save_graphs_path", "max_call_depth",
          "enable_graph_kernel", "jit_config", "pynative_synchronize", "max_device_memory",
          "runtime_num_threads", "deterministic", "jit_level"}


def set_context(**kwargs):
    """Record context options. ms_core always executes eagerly on NumPy (CPU); GRAPH_MODE is
    accepted and runs the same code, as it gives the same numbers."""
    for key, value in kwargs.items():
        if key not in _VALID:
            raise ValueError(f"For 'set_context', the keyword '{key}' is not recognized; valid "
                             f"keywords are {sorted(_VALID)}.")
        if key == "mode" and value not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(f"For 'set_context', the 'mode' must be ms.GRAPH_MODE or "
                             f"ms.PYNATIVE_MODE, but got {value!r}.")
        if key == "device_target" and value not in ("CPU", "GPU", "Ascend"):
            raise ValueError(f"For 'set_context', the 'device_target' must be one of "
                             f"['CPU', 'GPU', 'Ascend'], but got {value!r}.")
        _CONTEXT[key] = value


def get_context(attr_key):
    if attr_key not in _CONTEXT:
        raise ValueError(f"For 'get_context', the key '{attr_key}' is not set.")
    return _CONTEXT[attr_key]


ParallelMode = type("ParallelMode", (), {"STAND_ALONE": "stand_alone", "DATA_PARALLEL": "data_parallel",
                                          "SEMI_AUTO_PARALLEL": "semi_auto_parallel",
                                          "AUTO_PARALLEL": "auto_parallel",
                                          "HYBRID_PARALLEL": "hybrid_parallel"})
_PARALLEL_DEFAULTS = {"parallel_mode": "stand_alone", "gradients_mean": False, "device_num": 1,
                      "global_rank": 0, "parameter_broadcast": False}
_AUTO_PARALLEL = dict(_PARALLEL_DEFAULTS)
_SET = set()  # the keys set since the last reset (MindSpore's device_num_is_set)


def set_auto_parallel_context(**kwargs):
    """Record data-parallel settings (`parallel_mode`, `gradients_mean`, `device_num`, ...).

    Raises:
        ValueError: an unknown parallel_mode.
    """
    mode = kwargs.get("parallel_mode")
    modes = [v for k, v in vars(ParallelMode).items() if k.isupper()]
    if mode is not None and mode not in modes:
        raise ValueError(f"For 'set_auto_parallel_context', the 'parallel_mode' must be one of "
                         f"{modes}, but got {mode!r}.")
    _AUTO_PARALLEL.update(kwargs)
    _SET.update(kwargs)


def get_auto_parallel_context(key):
    return _AUTO_PARALLEL[key]


def reset_auto_parallel_context():
    _AUTO_PARALLEL.clear()
    _AUTO_PARALLEL.update(_PARALLEL_DEFAULTS)
    _SET.clear()


def device_num_is_set():
    """Whether `device_num` was set since the last reset (MindSpore's get_device_num_is_set); the
    data-parallel divisor is communication.management.device_num()."""
    return "device_num" in _SET
