"""ms.get_rng_state / ms.set_rng_state (MindSpore's names): the global generator's state as a uint8
Tensor, restored so that the random ops after it repeat; and the runtime's torch_fork_rng over it."""
import numpy as np
import pytest

import ms_core as ms
from ms_core import nn, ops
from migrate.runtime.autograd import torch_fork_rng


def test_a_restored_state_repeats_random_ops_and_dropout():
    ms.set_seed(3)
    state = ms.get_rng_state()
    assert state.dtype == ms.uint8 and state.shape == (37,)
    drop = nn.Dropout(p=0.5)
    drop.set_train(True)
    x = ops.ones((64,), ms.float32)
    first = (ops.rand(5).asnumpy(), drop(x).asnumpy(), ops.randn(3).asnumpy())
    ms.set_rng_state(state)
    again = (ops.rand(5).asnumpy(), drop(x).asnumpy(), ops.randn(3).asnumpy())
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(ops.rand(5).asnumpy(), first[0])  # the stream goes on from there


def test_a_state_survives_a_draw_of_an_odd_number_of_32_bit_halves():
    ops.randint(0, 7, (3,))  # PCG64 keeps half of a 64-bit draw buffered: part of the state
    state = ms.get_rng_state()
    a = ops.randint(0, 1000, (5,)).asnumpy()
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ops.randint(0, 1000, (5,)).asnumpy(), a)


@pytest.mark.parametrize("bad", [3, ms.Tensor(np.zeros(37, np.float32)), ms.Tensor(np.zeros(36, np.uint8))])
def test_set_rng_state_refuses_what_get_rng_state_did_not_give(bad):
    with pytest.raises(TypeError, match=r"For 'set_rng_state', the 'state' must be a uint8 Tensor of shape \(37,\)"):
        ms.set_rng_state(bad)


def test_fork_rng_restores_the_state_at_exit_unless_disabled():
    with torch_fork_rng(devices=[]):
        inside = ops.rand(4).asnumpy()
    np.testing.assert_array_equal(ops.rand(4).asnumpy(), inside)  # as if the block had not drawn
    before = ms.get_rng_state().asnumpy()
    with torch_fork_rng(enabled=False):
        ops.rand(4)
    assert not np.array_equal(ms.get_rng_state().asnumpy(), before)  # the draw inside counted
