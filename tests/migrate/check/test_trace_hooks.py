"""The pieces the script and data-parallel trace hooks share (migrate/check/trace_hooks.py)."""
import types

import numpy as np
import pytest

from migrate.check import trace_hooks


def _trace(random=()):
    return types.SimpleNamespace(networks=0, random=list(random), notes=[], losses=[],
                                 from_script=lambda depth=2: True,
                                 record_loss=lambda v: None)


def test_initial_values_one_stream_per_network_with_fan_in_bounds():
    t = _trace()
    first = trace_hooks.initial_values(t, [(4, 3, 2), (5,)])
    second = trace_hooks.initial_values(t, [(4, 3, 2), (5,)])
    assert t.networks == 2
    assert first[0].dtype == np.float32 and first[0].shape == (4, 3, 2)
    assert np.abs(first[0]).max() <= 1 / np.sqrt(6) and np.abs(first[1]).max() <= 0.1
    assert not np.array_equal(first[0], second[0])   # a new stream per network
    again = trace_hooks.initial_values(_trace(), [(4, 3, 2), (5,)])
    np.testing.assert_array_equal(first[0], again[0])  # the same stream for the same index


def test_next_recorded_stops_at_a_shape_mismatch_and_says_so():
    t = _trace([np.zeros((2, 3)), np.ones((4,)), np.ones((4,))])
    assert trace_hooks.next_recorded(t, "ops.randn", (2, 3)).shape == (2, 3)
    assert trace_hooks.next_recorded(t, "ops.rand", (5,)) is None
    assert t.random == [] and "ops.rand: shape (5,), recorded (4,): replay stopped" in t.notes
    assert trace_hooks.next_recorded(t, "ops.rand", (4,)) is None
    assert t.notes[-1] == "ops.rand: nothing recorded left to replay"


def test_replay_random_answers_with_the_recorded_draws_in_their_dtype():
    ms = pytest.importorskip("ms_core")
    recorded = np.arange(6, dtype=np.float64).reshape(2, 3)
    ops = types.SimpleNamespace(randn=lambda *shape: ms.Tensor(np.zeros(shape, np.float32)))
    t = _trace([recorded])
    trace_hooks.replay_random(t, ops, ms.Tensor)
    out = ops.randn(2, 3)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), recorded.astype(np.float32))
    assert ops.randn(2, 3).asnumpy().sum() == 0 and t.notes   # nothing left: the op's own draw


def test_value_and_grad_losses_record_the_first_value():
    ms = pytest.importorskip("ms_core")
    seen = []
    t = _trace()
    t.record_loss = seen.append
    namespace = types.SimpleNamespace(value_and_grad=ms.value_and_grad)
    trace_hooks.record_value_and_grad_losses(t, namespace)
    w = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="w")
    fn = namespace.value_and_grad(lambda x: ((w * x).sum(), x), None, [w], has_aux=True)
    fn(ms.Tensor(np.array([3.0], np.float32)))
    assert len(seen) == 1 and float(np.asarray(seen[0])) == 6.0
