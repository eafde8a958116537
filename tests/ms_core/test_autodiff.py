"""Transforms: result structures, accumulation, broadcasting, higher order, errors."""
import numpy as np
import pytest
import torch

import ms_core as ms
from ms_core import Parameter, ParameterTuple, Tensor, nn, ops
from ms_core.ops import GradOperation

TOL = dict(rtol=1e-5, atol=1e-6)


def np_(t):
    return t.asnumpy()


def test_shared_subexpressions_accumulate():
    def f(x):
        y = x * x
        return (y + y * x + ops.exp(y)).sum()
    x = np.array([0.5, -1.0, 2.0], np.float32)
    xt = torch.tensor(x, requires_grad=True)
    y = xt * xt
    (y + y * xt + torch.exp(y)).sum().backward()
    np.testing.assert_allclose(np_(ms.grad(f)(Tensor(x))), xt.grad.numpy(), **TOL)


def test_broadcast_operand_grads_are_reduced_to_operand_shape():
    a = Tensor(np.ones((4, 3), np.float32))
    b = Tensor(np.ones((3,), np.float32))
    c = Tensor(np.ones((4, 1), np.float32))
    ga, gb, gc = ms.grad(lambda a, b, c: (a * b + c).sum(), (0, 1, 2))(a, b, c)
    assert ga.shape == (4, 3) and gb.shape == (3,) and gc.shape == (4, 1)
    assert np_(gb).tolist() == [4, 4, 4] and np_(gc).ravel().tolist() == [3, 3, 3, 3]
    assert gb.dtype == ms.float32


def test_higher_order_derivatives():
    x = Tensor([0.3, 1.2], ms.float64)
    def f(t):
        return (ops.sin(t) * t).sum()

    d1 = ms.grad(f)
    d2 = ms.grad(lambda t: d1(t).sum())
    d3 = ms.grad(lambda t: d2(t).sum())
    xv = x.asnumpy()
    np.testing.assert_allclose(np_(d1(x)), np.cos(xv) * xv + np.sin(xv), rtol=1e-12)
    np.testing.assert_allclose(np_(d2(x)), 2 * np.cos(xv) - xv * np.sin(xv), rtol=1e-12)
    np.testing.assert_allclose(np_(d3(x)), -3 * np.sin(xv) - xv * np.cos(xv), rtol=1e-12)


def test_grad_of_grad_in_a_cell_seed_004_style():
    class Net(nn.Cell):
        def construct(self, x, y):
            return x * x * y

    class GradNetWrtX(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, x, y):
            return ms.grad(self.net)(x, y)

    x, y = Tensor([2.0]), Tensor([3.0])
    assert np_(GradNetWrtX(Net())(x, y)).tolist() == [12.0]  # 2xy
    assert np_(ms.grad(GradNetWrtX(Net()))(x, y)).tolist() == [6.0]  # 2y


def test_mixed_second_derivative_wrt_weights_gradient_penalty():
    w = Parameter(Tensor(np.array([[0.5, -1.0], [2.0, 0.3]], np.float32)), name="w")
    x = Tensor(np.array([[1.0, 2.0]], np.float32))

    def penalty(x):
        gx = ms.grad(lambda t: ops.tanh(ops.matmul(t, w)).sum())(x)
        return (gx * gx).sum()

    g = ms.grad(penalty, None, weights=w)(x)
    wt = torch.tensor(w.asnumpy(), requires_grad=True)
    xt = torch.tensor(x.asnumpy(), requires_grad=True)
    (gxt,) = torch.autograd.grad(torch.tanh(xt @ wt).sum(), xt, create_graph=True)
    (gwt,) = torch.autograd.grad((gxt * gxt).sum(), wt)
    np.testing.assert_allclose(np_(g), gwt.numpy(), rtol=1e-5, atol=1e-6)


def test_weights_forms_single_list_parametertuple():
    w = Parameter(Tensor([2.0]), name="w")
    b = Parameter(Tensor([1.0]), name="b")
    def f(x):
        return (x * w + b).sum()

    x = Tensor([3.0])
    single = ms.grad(f, None, w)(x)
    assert isinstance(single, Tensor) and np_(single).tolist() == [3.0]
    as_list = ms.grad(f, None, [w, b])(x)
    as_tuple = ms.grad(f, None, ParameterTuple([w, b]))(x)
    assert [np_(g).tolist() for g in as_list] == [[3.0], [1.0]] == [np_(g).tolist() for g in as_tuple]


def test_unused_input_and_frozen_parameter_get_zero_gradients():
    frozen = Parameter(Tensor([5.0]), name="frozen", requires_grad=False)
    gx, gy = ms.grad(lambda x, y: (x * frozen).sum(), (0, 1))(Tensor([1.0]), Tensor([[1.0, 2.0]]))
    assert np_(gx).tolist() == [5.0] and np_(gy).tolist() == [[0.0, 0.0]]
    (gf,) = ms.grad(lambda x: (x * frozen).sum(), None, [frozen])(Tensor([1.0]))
    assert np_(gf).tolist() == [0.0]


def test_non_scalar_output_uses_ones_sensitivity():
    g = ms.grad(lambda x: x * x)(Tensor([1.0, 2.0]))
    assert np_(g).tolist() == [2.0, 4.0]


def test_grad_operation_variants():
    w = Parameter(Tensor([2.0]), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x, y):
            return x * y * self.w

    net = Net()
    x, y = Tensor([3.0]), Tensor([4.0])
    params = ParameterTuple(net.trainable_params())
    assert np_(GradOperation()(net)(x, y)).tolist() == [8.0]
    assert [np_(g).tolist() for g in GradOperation(get_all=True)(net)(x, y)] == [[8.0], [6.0]]
    assert [np_(g).tolist() for g in GradOperation(get_by_list=True)(net, params)(x, y)] == [[12.0]]
    (gi, gw) = GradOperation(get_all=True, get_by_list=True)(net, params)(x, y)
    assert [np_(g).tolist() for g in gi] == [[8.0], [6.0]] and np_(gw[0]).tolist() == [12.0]
    sens = Tensor([0.5])
    assert np_(GradOperation(sens_param=True)(net)(x, y, sens)).tolist() == [4.0]


def test_grad_operation_sens_errors():
    def f(x):
        return x * 2

    with pytest.raises(ValueError, match="each 'sens' must be a Tensor with its output's shape"):
        GradOperation(sens_param=True)(f)(Tensor([1.0, 2.0]), Tensor([1.0]))
    with pytest.raises(TypeError, match="the last argument must be the sensitivity"):
        GradOperation(sens_param=True)(f)()
    with pytest.raises(ValueError, match="pass the weights"):
        GradOperation(get_by_list=True)(f)


def test_value_and_grad_returns_detached_values():
    value, g = ms.value_and_grad(lambda x: (x * x).sum())(Tensor([3.0]))
    assert value._node is None and g._node is None and value.item() == 9.0


def test_vjp():
    out, vjp_fn = ms.vjp(lambda x, y: x * y, Tensor([2.0]), Tensor([5.0]))
    gx, gy = vjp_fn(Tensor([1.0]))
    assert np_(out).tolist() == [10.0] and np_(gx).tolist() == [5.0] and np_(gy).tolist() == [2.0]
    assert out._node is None and gx._node is None


def test_vjp_runs_the_forward_once_and_vjp_fn_can_be_called_again():
    calls = []

    def f(x):
        calls.append(1)
        return x * x * x

    x = np.array([1.0, -2.0, 0.5], np.float32)
    out, vjp_fn = ms.vjp(f, Tensor(x))
    (g1,) = vjp_fn(Tensor(np.ones(3, np.float32)))
    (g2,) = vjp_fn(Tensor(np.array([3.0, -1.0, 2.0], np.float32)))
    assert len(calls) == 1
    xt = torch.tensor(x, requires_grad=True)
    yt = xt ** 3
    (g1t,) = torch.autograd.grad(yt, xt, torch.ones(3), retain_graph=True)
    (g2t,) = torch.autograd.grad(yt, xt, torch.tensor([3.0, -1.0, 2.0]))
    np.testing.assert_allclose(np_(out), yt.detach().numpy(), **TOL)
    np.testing.assert_allclose(np_(g1), g1t.numpy(), **TOL)
    np.testing.assert_allclose(np_(g2), g2t.numpy(), **TOL)


def test_vjp_gradients_use_the_dropout_mask_of_the_returned_output():
    # dropout draws a new mask on every forward: output and gradients must come from one forward
    x = Tensor(np.full((2000,), 3.0, np.float32))
    out, vjp_fn = ms.vjp(lambda t: ops.dropout(t, p=0.5), x)
    kept = np_(out) != 0  # the mask, recovered from the output (x has no zeros)
    assert 0 < kept.sum() < kept.size
    for _ in range(2):  # a second call must not draw a new mask either
        (gx,) = vjp_fn(Tensor(np.ones(2000, np.float32)))
        np.testing.assert_array_equal(np_(gx), kept.astype(np.float32) / 0.5)


def test_vjp_has_aux_and_weights_structures():
    w = Parameter(Tensor([2.0, -1.0]), name="w")
    x = Tensor([1.0, 3.0])
    out, vjp_fn, aux = ms.vjp(lambda t: (t * w, t + 1.0), x, weights=w, has_aux=True)
    assert np_(out).tolist() == [2.0, -3.0] and np_(aux).tolist() == [2.0, 4.0]
    (gx,), gw = vjp_fn(Tensor([1.0, 10.0]))
    assert np_(gx).tolist() == [2.0, -10.0] and np_(gw).tolist() == [1.0, 30.0]
    out, vjp_fn, aux = ms.vjp(lambda t: (t * w, t + 1.0, t - 1.0), x, weights=[w], has_aux=True)
    assert isinstance(aux, tuple) and np_(aux[1]).tolist() == [0.0, 2.0]
    (gx,), (gw,) = vjp_fn(Tensor([1.0, 1.0]))
    assert np_(gw).tolist() == [1.0, 3.0]
    out, vjp_fn = ms.vjp(lambda a, b: (a * b, a + b), x, Tensor([5.0, 7.0]))
    ga, gb = vjp_fn(Tensor([1.0, 1.0]), Tensor([2.0, 2.0]))
    assert np_(ga).tolist() == [7.0, 9.0] and np_(gb).tolist() == [3.0, 5.0]
    ga, gb = vjp_fn((Tensor([1.0, 1.0]), Tensor([2.0, 2.0])))  # one tuple of cotangents
    assert np_(ga).tolist() == [7.0, 9.0]


def test_vjp_inside_grad_is_differentiable():
    x = np.array([0.5, -1.5], np.float32)
    v = np.array([2.0, 3.0], np.float32)

    def vjp_sum(t, cot):
        _, vjp_fn = ms.vjp(lambda a: a * a * a, t)
        return vjp_fn(cot)[0].sum()

    gx, gv = ms.grad(vjp_sum, (0, 1))(Tensor(x), Tensor(v))
    xt = torch.tensor(x, requires_grad=True)
    vt = torch.tensor(v, requires_grad=True)
    (inner,) = torch.autograd.grad(xt ** 3, xt, vt, create_graph=True)
    gxt, gvt = torch.autograd.grad(inner.sum(), (xt, vt))
    np.testing.assert_allclose(np_(gx), gxt.numpy(), **TOL)
    np.testing.assert_allclose(np_(gv), gvt.numpy(), **TOL)
    # a vjp_fn made outside a transform, called inside one: differentiable in the cotangent
    _, vjp_fn = ms.vjp(lambda a: a * a * a, Tensor(x))
    gv2 = ms.grad(lambda cot: vjp_fn(cot)[0].sum())(Tensor(v))
    np.testing.assert_allclose(np_(gv2), gvt.numpy(), **TOL)


@pytest.mark.parametrize("call,error,match", [
    (lambda: ms.vjp(lambda a, n: a * n, Tensor([1.0]), 2.0), TypeError,
     "For 'vjp', every input must be a Tensor, but input 1 is float."),
    (lambda: ms.vjp(lambda a: a, Tensor([1.0]), has_aux=1), TypeError,
     "For 'vjp', the 'has_aux' must be bool, but got int."),
    (lambda: ms.vjp(lambda a: a, Tensor([1.0]), has_aux=True), ValueError,
     r"the function must return a tuple \(output, \*aux\) of at least two outputs, but got Tensor"),
    (lambda: ms.vjp(lambda a: a * a, Tensor([1.0]))[1](2.0), TypeError,
     "For 'vjp', every cotangent must be a Tensor, but got float."),
    (lambda: ms.vjp(lambda a: a * a, Tensor([1.0]))[1](Tensor([1.0, 2.0])), ValueError,
     r"each 'sens' must be a Tensor with its output's shape \[1\], but got \[2\]"),
    (lambda: ms.vjp(lambda a: (a, a), Tensor([1.0]))[1](Tensor([1.0])), ValueError,
     "the function returned 2 output\\(s\\), but got 1"),
])
def test_vjp_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_stop_gradient_inside_transform():
    g = ms.grad(lambda x: (x * ops.stop_gradient(x)).sum())(Tensor([3.0]))
    assert np_(g).tolist() == [3.0]


def test_nothing_is_recorded_outside_a_transform():
    w = Parameter(Tensor([1.0]), name="w")
    y = w * 2 + 1
    assert y._node is None


@pytest.mark.parametrize("position,error,match", [
    (5, IndexError, "'grad_position' 5 is out of range: the function was called with 2"),
    ((0, -1), TypeError, "every element of 'grad_position' must be a non-negative int"),
    ("0", TypeError, "'grad_position' must be an int, a tuple of ints or None"),
    (1, TypeError, "the input at grad_position 1 must be a Tensor, but got float"),
])
def test_bad_grad_position(position, error, match):
    with pytest.raises(error, match=match):
        ms.grad(lambda x, y: x * y, position)(Tensor([1.0]), 2.0)


def test_weight_that_is_not_a_parameter():
    with pytest.raises(TypeError, match="element 0 is Tensor. Pass net.trainable_params()"):
        ms.grad(lambda x: x, None, [Tensor([1.0])])
    with pytest.raises(TypeError, match="'weights' must be a Parameter, a list or tuple"):
        ms.grad(lambda x: x, None, "w")


def test_has_aux_needs_a_tuple():
    with pytest.raises(TypeError, match="has_aux=True, the function must return a tuple"):
        ms.grad(lambda x: x * 2, has_aux=True)(Tensor([1.0]))


def test_fn_must_be_callable():
    with pytest.raises(TypeError, match="the 'fn' must be a function or a Cell"):
        ms.grad(3)


def test_the_same_tensor_at_two_positions_gets_the_total_derivative_as_mindspore():
    # MindSpore 2.10 identifies inputs by object: grad(f, 0)(a, a) = d/da f(a, a)
    a, b = Tensor([1.0]), Tensor([1.0])
    def f(x, y):
        return x * 3 + y * 5

    assert np_(ms.grad(f, 0)(a, a)).tolist() == [8.0]
    assert [np_(g).tolist() for g in ms.grad(f, (0, 1))(a, a)] == [[8.0], [8.0]]
    assert [np_(g).tolist() for g in ms.grad(f, (0, 1))(a, b)] == [[3.0], [5.0]]


def test_maximum_minimum_split_ties_in_half_as_mindspore_and_torch():
    x, y = Tensor([1.0, 2.0]), Tensor([1.0, 1.0])
    gx, gy = ms.grad(lambda a, b: ops.maximum(a, b).sum(), (0, 1))(x, y)
    assert np_(gx).tolist() == [0.5, 1.0] and np_(gy).tolist() == [0.5, 0.0]
    gx, gy = ms.grad(lambda a, b: ops.minimum(a, b).sum(), (0, 1))(x, y)
    assert np_(gx).tolist() == [0.5, 0.0] and np_(gy).tolist() == [0.5, 1.0]


def test_gradient_conventions_at_ties_and_bounds_as_mindspore_2_10():
    # the values MindSpore 2.10 prints for the same code (tests/oracle/snippets/grad_conventions.py)
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
    assert np_(ms.grad(lambda t: ops.amax(t, 1).sum())(x)).tolist() == [[0, 0.5, 0.5], [0.5, 0, 0.5]]
    assert np_(ms.grad(lambda t: ops.max(t, 1)[0].sum())(x)).tolist() == [[0, 1, 0], [1, 0, 0]]
    # without an axis ops.max is (amax, Tensor(0)): the gradient is shared among ties
    assert np_(ms.grad(lambda t: ops.max(t)[0])(x)).tolist() == [[0, 0.5, 0.5], [0, 0, 0]]
    values, index = ops.max(x)
    assert float(values) == 3.0 and int(index) == 0 and index.dtype == ms.int64
    assert np_(ms.grad(lambda t: ops.clip_by_value(t, 0.0, 1.0).sum())(
        Tensor([0.0, 1.0, 0.5, 2.0]))).tolist() == [0.5, 0.5, 1.0, 0.0]
    assert np_(ms.grad(lambda t: ops.relu(t).sum())(Tensor([0.0, -1.0, 1.0]))).tolist() == [0, 0, 1]
