"""Tensor and Parameter: dtype inference, printing, methods, indexing."""
import numpy as np
import pytest

import ms_core as ms
from ms_core import Parameter, ParameterTuple, Tensor


@pytest.mark.parametrize("data,dtype", [
    (1, ms.int64), (1.0, ms.float32), (True, ms.bool_), ([1, 2], ms.int64), ([1.0, 2], ms.float32),
    ([[True, False]], ms.bool_), (np.array([1.0]), ms.float64), (np.array([1], np.int32), ms.int32),
    (np.float32(2.0), ms.float32),
])
def test_dtype_inference(data, dtype):
    assert Tensor(data).dtype == dtype


def test_explicit_dtype_and_astype():
    t = Tensor([1, 2], ms.float32)
    assert t.dtype == ms.float32 and t.asnumpy().dtype == np.float32
    assert t.astype(ms.int32).dtype == ms.int32
    assert str(ms.float32) == "Float32" and str(ms.int64) == "Int64"
    assert repr(ms.float32) == "mindspore.float32" and repr([ms.bool_]) == "[mindspore.bool]"


def test_tensor_copies_numpy_input():
    a = np.ones(3, np.float32)
    t = Tensor(a)
    a[0] = 5
    assert t.asnumpy()[0] == 1


def test_properties_and_item():
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6 and len(t) == 2
    assert Tensor(3.5).item() == 3.5
    with pytest.raises(ValueError, match="exactly one element"):
        t.item()


def test_device_is_the_cpu_as_mindspore_2_10():
    # MindSpore 2.10 CPU: Tensor(...).device == 'CPU', also for a Parameter (checked there)
    assert Tensor([1.0]).device == "CPU"
    assert Parameter(Tensor([1.0]), name="p").device == "CPU"


def test_str_and_repr_as_mindspore():
    assert str(Tensor(1.0)) == "1.0"
    assert str(Tensor([[1.5, 2.0]])) == "[[1.5 2. ]]"
    assert repr(Tensor([[1.5, 2.0]])) == ("Tensor(shape=[1, 2], dtype=Float32, value=\n"
                                          "[[ 1.50000000e+00,  2.00000000e+00]])")
    assert repr(Tensor(3.0)) == "Tensor(shape=[], dtype=Float32, value= 3)"
    assert repr(Tensor(-2.0)) == "Tensor(shape=[], dtype=Float32, value= -2)"
    # as MindSpore 2.10 prints them: 1-D on the header line, N-D below it, long ones elided
    assert repr(Tensor([1, 2])) == "Tensor(shape=[2], dtype=Int64, value= [1, 2])"
    assert repr(Tensor([True, False])) == "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert repr(Tensor([[1, 2], [3, 4]])) == "Tensor(shape=[2, 2], dtype=Int64, value=\n[[1, 2],\n [3, 4]])"
    assert repr(Tensor(np.arange(2000, dtype=np.float32))) == (
        "Tensor(shape=[2000], dtype=Float32, value= [ 0.00000000e+00,  1.00000000e+00,  "
        "2.00000000e+00 ...  1.99700000e+03,  1.99800000e+03,  1.99900000e+03])")
    assert repr(Tensor(float("nan"))) == "Tensor(shape=[], dtype=Float32, value= nan)"
    assert repr(Tensor(1e-5)) == "Tensor(shape=[], dtype=Float32, value= 1e-05)"


def test_arithmetic_and_dtype_rules():
    x = Tensor([1.0, 2.0], ms.float32)
    assert (x + 1).dtype == ms.float32
    assert (x * 2.5).dtype == ms.float32
    assert (x + np.float64(1.0)).dtype == ms.float32  # NumPy scalars are weak, as Python ones
    i = Tensor([1, 2])
    assert (i + 0.5).dtype == ms.float32  # int tensor with a Python float -> Float32
    assert (i + x).dtype == ms.float32
    assert (i / 2).dtype == ms.float32
    assert (2 - x).asnumpy().tolist() == [1.0, 0.0]
    assert (2 / x).asnumpy().tolist() == [2.0, 1.0]
    assert (x ** 2).asnumpy().tolist() == [1.0, 4.0]
    assert (-x).asnumpy().tolist() == [-1.0, -2.0]
    assert (Tensor([[1.0, 2.0]]) @ Tensor([[1.0], [1.0]])).asnumpy().tolist() == [[3.0]]
    assert (x > 1).asnumpy().tolist() == [False, True]
    assert (x == Tensor([1.0, 0.0])).asnumpy().tolist() == [True, False]


def test_methods():
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.reshape(3, 2).shape == (3, 2) and t.reshape((6,)).shape == (6,)
    assert t.transpose().shape == (3, 2) and t.transpose(1, 0).shape == (3, 2)
    assert t.expand_dims(0).shape == (1, 2, 3) and t.expand_dims(0).squeeze().shape == (2, 3)
    assert t.sum().item() == 15 and t.sum(axis=1).asnumpy().tolist() == [3, 12]
    assert t.mean(axis=0, keep_dims=True).shape == (1, 3)
    assert t.max().item() == 5 and t.min(axis=1).asnumpy().tolist() == [0, 3]
    assert t.argmax(axis=1).asnumpy().tolist() == [2, 2]
    assert t.abs().sum().item() == 15
    np.testing.assert_allclose(t.exp().log().asnumpy(), t.asnumpy(), rtol=1e-6, atol=1e-6)
    assert t.sqrt().dtype == ms.float32 and t.pow(2).sum().item() == 55
    assert t.clip(1, 3).asnumpy().tolist() == [[1, 1, 2], [3, 3, 3]]


def test_indexing_is_differentiable():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    g = ms.grad(lambda t: (t[0, 1:] * 2).sum() + t[Tensor(np.array([1, 1]))].sum())(x)
    assert g.asnumpy().tolist() == [[0, 2, 2], [2, 2, 2]]


def test_setitem_is_functional_and_differentiable():
    def f(t):
        y = t * 1
        y[0] = t[1] * 3
        return y.sum()
    g = ms.grad(f)(Tensor([1.0, 2.0, 4.0]))
    assert g.asnumpy().tolist() == [0.0, 4.0, 1.0]


def test_parameter():
    p = Parameter(Tensor(np.ones((2, 3)), ms.float32), name="w")
    assert p.name == "w" and p.requires_grad and p.shape == (2, 3)
    assert repr(p) == "Parameter (name=w, shape=(2, 3), dtype=Float32, requires_grad=True)"
    p.set_data(Tensor(np.zeros((2, 3)), ms.float32))
    assert p.asnumpy().sum() == 0 and p.data is p
    with pytest.raises(ValueError, match="shape of the new data must equal the parameter 'w' shape"):
        p.set_data(Tensor(np.zeros((3, 2)), ms.float32))
    c = p.clone()
    c.set_data(Tensor(np.ones((2, 3)), ms.float32))
    assert p.asnumpy().sum() == 0 and c.name == "w"
    q = Parameter(Tensor([1.0]), name="q", requires_grad=False)
    assert not q.requires_grad
    with pytest.raises(TypeError, match="every element must be a Parameter"):
        ParameterTuple([p, Tensor([1.0])])
    assert len(ParameterTuple([p, q])) == 2


def test_set_data_does_not_alias_the_source():
    src = Tensor([1.0, 2.0])
    p = Parameter(Tensor([0.0, 0.0]), name="p")
    p.set_data(src)
    p.asnumpy()[0] = 9
    assert src.asnumpy()[0] == 1.0


def test_bad_construction_is_a_clear_error():
    with pytest.raises(TypeError, match="For 'Tensor', the input_data must be"):
        Tensor({"a": 1})
    with pytest.raises(TypeError, match="ragged or mixed"):
        Tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="product of the new shape"):
        Tensor([1.0, 2.0, 3.0]).reshape(2, 2)


def test_ms_dtype_is_the_dtype_module():
    assert ms.dtype.float32 is ms.float32 and isinstance(ms.int64, ms.dtype.Type)


def test_repr_never_wraps_rows():
    assert repr(Tensor(np.arange(12, dtype=np.float32).reshape(2, 6))) == (
        "Tensor(shape=[2, 6], dtype=Float32, value=\n"
        "[[ 0.00000000e+00,  1.00000000e+00,  2.00000000e+00,  3.00000000e+00,  4.00000000e+00,  5.00000000e+00],\n"
        " [ 6.00000000e+00,  7.00000000e+00,  8.00000000e+00,  9.00000000e+00,  1.00000000e+01,  1.10000000e+01]])")


def test_ops_max_returns_values_and_indices_as_mindspore_2_10():
    t = Tensor([[1.0, 3.0], [2.0, 0.0]])
    values, indices = ms.ops.max(t, axis=1)
    assert values.asnumpy().tolist() == [3.0, 2.0] and indices.asnumpy().tolist() == [1, 0]
    value, index = ms.ops.max(t)
    # without an axis MindSpore 2.10 returns index 0 by construction (its source returns a constant)
    assert value.item() == 3.0 and index.item() == 0
    assert t.max().item() == 3.0  # the Tensor method gives values only


def test_format_spec_on_one_element_tensors():
    assert f"{Tensor(0.123456):.3f}" == "0.123" and f"{Tensor([2]):03d}" == "002"
    assert f"{Tensor([1.0, 2.0])}" == "[1. 2.]"


def test_reduction_conventions_as_mindspore_2_10():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    values, indices = x.max(1)  # lone positional axis: torch's overload, (values, indices)
    assert values.asnumpy().tolist() == [2, 5] and indices.asnumpy().tolist() == [2, 2]
    assert x.max(axis=1).asnumpy().tolist() == [2, 5]
    assert x.min(1, keepdims=True).shape == (2, 1)
    assert ms.ops.argmin(x, 1).dtype == ms.int32 and ms.ops.argmax(x, 1).dtype == ms.int64
    assert ms.ops.min(x, 1)[1].dtype == ms.int64
    assert Tensor([1, 2, 3, 4]).mean().item() == 2 and ms.ops.mean(Tensor([-1, -2])).item() == -1


def test_sort_topk_cumsum_and_friends_match_torch():
    from optest import check_op
    a = np.array([[3.0, 1.0, 2.0], [0.5, 2.5, 1.5]], np.float32)
    check_op(lambda x: x.sort(axis=1)[0], lambda x: x.sort(dim=1)[0], [a])
    check_op(lambda x: x.sort(axis=0, descending=True)[0], lambda x: x.sort(dim=0, descending=True)[0], [a])
    check_op(lambda x: x.topk(2)[0], lambda x: x.topk(2)[0], [a])
    check_op(lambda x: x.cumsum(1), lambda x: x.cumsum(1), [a])
    check_op(lambda x: x.narrow(1, 1, 2), lambda x: x.narrow(1, 1, 2), [a])
    check_op(lambda x: x.unbind(0), lambda x: x.unbind(0), [a])
    check_op(lambda x: x.masked_select(x > 1.0), lambda x: x.masked_select(x > 1.0), [a])
    t = Tensor(a)
    assert t.sort()[1].dtype == ms.int32 and t.topk(1)[1].asnumpy().ravel().tolist() == [0, 1]
    assert t.t().shape == (3, 2) and t.type() == "Float32" and t.type(ms.int32).dtype == ms.int32
    assert t.new_ones(2).dtype == ms.float32 and t.expand((2, 2, 3)).shape == (2, 2, 3)


def test_norm_and_gather_elements_match_torch():
    from optest import check_op
    import torch
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    idx = np.array([[0, 1], [3, 3], [2, 0]])
    check_op(lambda x: ms.ops.norm(x, dim=1), lambda x: torch.norm(x, dim=1), [a])
    check_op(lambda x: x.norm(), lambda x: x.norm(), [a])
    check_op(lambda x: ms.ops.norm(x, 3, 0, True), lambda x: torch.linalg.vector_norm(x, 3, 0, True), [a])
    check_op(lambda x: ms.ops.gather_elements(x, 1, Tensor(idx)),
             lambda x: torch.gather(x, 1, torch.tensor(idx)), [a])
    # a matrix ord on a 2-D input is a matrix norm (MindSpore 2.10: ops.norm(A, 'nuc') is the nuclear norm)
    np.testing.assert_allclose(ms.ops.norm(Tensor(a), "nuc").asnumpy(), np.linalg.norm(a, "nuc"), rtol=1e-5)
    with pytest.raises(ValueError, match="For 'norm', the 'ord' must be"):
        ms.ops.norm(Tensor(a[0]), "nuc")


def test_tril_triu_match_torch():
    from optest import check_op
    import torch
    a = np.random.default_rng(1).standard_normal((2, 4, 5)).astype(np.float32)
    check_op(lambda x: ms.ops.tril(x), lambda x: torch.tril(x), [a])
    check_op(lambda x: ms.ops.triu(x, 1), lambda x: torch.triu(x, 1), [a])
    check_op(lambda x: x.tril(-1), lambda x: x.tril(-1), [a])


def test_bfloat16_is_named_but_not_computed_in():
    """ms.bfloat16 exists (nanoGPT builds {'bfloat16': torch.bfloat16, ...}); NumPy has no bfloat16,
    so making a tensor of it raises a clear error rather than rounding silently otherwise."""
    import ms_core as ms
    table = {"float32": ms.float32, "bfloat16": ms.bfloat16}
    assert str(ms.bfloat16) == "BFloat16" and repr(ms.bfloat16) == "mindspore.bfloat16"
    assert table["bfloat16"] == ms.bfloat16 and ms.bfloat16 != ms.float32 and ms.float32 != ms.bfloat16
    assert ms.bfloat16.is_floating_point
    x = ms.Tensor(np.ones(2, np.float32))
    for make in (lambda: x.astype(ms.bfloat16), lambda: ms.Tensor(np.ones(2), ms.bfloat16),
                 lambda: ms.ops.zeros((2,), ms.bfloat16)):
        with pytest.raises(TypeError, match="ms_core computes with NumPy, which has no bfloat16"):
            make()
    assert (x.astype(table["float32"]) + 1).asnumpy().tolist() == [2.0, 2.0]


def test_parameter_set_dtype_converts_in_place_as_mindspore():
    # MindSpore 2.10: the values are converted in place and the new dtype is returned
    p = Parameter(Tensor(np.array([0.1, 2.5], np.float32)), name="w")
    assert p.set_dtype(ms.float64) == ms.float64 and p.dtype == ms.float64
    np.testing.assert_array_equal(p.asnumpy(), np.array([0.1, 2.5], np.float32).astype(np.float64))
    p.set_data(Tensor(np.array([1.0, 2.0], np.float32)))  # set_data keeps the new dtype
    assert p.asnumpy().dtype == np.float64
    with pytest.raises(TypeError, match="For 'Parameter.set_dtype', the 'dtype' must be a mindspore type"):
        p.set_dtype("float64")
