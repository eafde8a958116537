"""The script trace of a script that trains several networks one after the other (the tutorials'
"refactor" steps: a model dropped, another built): each network's parameters are drawn and named
as its own, and steps over networks of different sizes compare."""
import numpy as np

from migrate.check import script_trace


class _Param:
    def __init__(self, shape):
        self.value = np.zeros(shape, np.float32)
        self.shape = shape


def _assign(p, v):
    p.value = v


def test_a_network_built_after_another_is_dropped_is_drawn_and_named_as_its_own(tmp_path):
    trace = script_trace.Trace(str(tmp_path), str(tmp_path))
    first = [("lin.weight", _Param((2, 3))), ("lin.bias", _Param((2,)))]
    trace.draw(first, _assign, by_name=True)
    del first
    # new objects may take the addresses of dropped ones: none may count as drawn already
    later = [_Param((4, 4)) for _ in range(200)]
    assert not any(id(p) in trace.done for p in later)
    second = [("conv.weight", later[0]), ("conv.bias", later[1])]
    trace.draw(second, _assign, by_name=True)
    assert all(np.abs(p.value).sum() > 0 for _, p in second)   # drawn, not taken for set already
    assert [trace.names[id(p)] for _, p in second] == ["conv.weight", "conv.bias"]


def test_steps_over_networks_of_different_sizes_compare():
    torch_side = {"losses": [1.0, 0.5, 0.25], "steps": [{"a": [1.0, 2.0]}, {"b": [1.0, 2.0], "c": [3.0, 4.0]},
                                                     {"b": [1.5, 2.5], "c": [3.5, 4.5]}]}
    same = {"losses": [1.0, 0.5, 0.25], "steps": [dict(s) for s in torch_side["steps"]]}
    assert script_trace.compare(torch_side, same, 1e-6)["status"] == "agree"
    other = {"losses": [1.0, 0.5, 0.25], "steps": [{"a": [1.0, 2.0]}, {"b": [1.0, 2.0], "c": [3.0, 4.0]},
                                                 {"b": [1.5, 2.5], "c": [3.5, 4.6]}]}
    res = script_trace.compare(torch_side, other, 1e-6)
    assert res["status"] == "differ" and abs(res["param_err"] - 0.1 / 4.5) < 1e-12
