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
                                          "AUTO_PARALLEL": "auto_parallel"})
_AUTO_PARALLEL = {"parallel_mode": "stand_alone", "gradients_mean": False, "device_num": 1}


def set_auto_parallel_context(**kwargs):
    _AUTO_PARALLEL.update(kwargs)


def get_auto_parallel_context(key):
    return _AUTO_PARALLEL[key]


def reset_auto_parallel_context():
    _AUTO_PARALLEL.update({"parallel_mode": "stand_alone", "gradients_mean": False, "device_num": 1})
