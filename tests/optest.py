"""The op test base: forward against torch, first derivatives against torch, second derivatives
against central finite differences in float64.

    check_op(ms_fn, torch_fn, [x, w])                  # forward + grads of every input
    check_double_backward(ms_fn, [x, w])               # grad(grad) vs finite differences

`ms_fn` takes ms_core Tensors, `torch_fn` takes torch tensors; inputs are NumPy arrays. Outputs may
be a Tensor or a tuple; gradients are those of sum(out * cotangent) with a fixed random cotangent,
so every output element is exercised with a distinct weight.
"""
import numpy as np
import torch

import ms_core as ms

F32_TOL = dict(rtol=1e-5, atol=1e-6)
F64_TOL = dict(rtol=1e-10, atol=1e-12)


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _cotangents(outs, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(o.shape).astype(o.dtype) for o in outs]


def _ms_value_and_grads(ms_fn, arrays, grad_idx):
    tensors = [ms.Tensor(a) for a in arrays]
    outs_np = [o.asnumpy() for o in _tuple(ms_fn(*tensors))]
    cots = _cotangents(outs_np)

    def scalar_fn(*ts):
        outs = _tuple(ms_fn(*ts))
        total = None
        for o, c in zip(outs, cots):
            term = (o * ms.Tensor(c)).sum()
            total = term if total is None else total + term
        return total

    grads = _tuple(ms.grad(scalar_fn, grad_position=tuple(grad_idx))(*tensors)) if grad_idx else ()
    return outs_np, [g.asnumpy() for g in grads]


def _torch_value_and_grads(torch_fn, arrays, grad_idx):
    tensors = [torch.tensor(a, requires_grad=(i in grad_idx)) for i, a in enumerate(arrays)]
    outs = _tuple(torch_fn(*tensors))
    cots = _cotangents([o.detach().numpy() for o in outs])
    total = sum((o * torch.tensor(c)).sum() for o, c in zip(outs, cots))
    grads = torch.autograd.grad(total, [tensors[i] for i in grad_idx], allow_unused=True) \
        if grad_idx else ()
    grads = [np.zeros_like(arrays[i]) if g is None else g.numpy() for i, g in zip(grad_idx, grads)]
    return [o.detach().numpy() for o in outs], grads


def check_op(ms_fn, torch_fn, arrays, grad_idx=None, rtol=None, atol=None):
    """Forward and first derivatives of ms_fn match torch_fn (float inputs differentiated)."""
    if grad_idx is None:
        grad_idx = [i for i, a in enumerate(arrays) if np.asarray(a).dtype.kind == "f"]
    is64 = all(np.asarray(a).dtype != np.float32 for a in arrays)
    tol = dict(F64_TOL if is64 else F32_TOL)
    if rtol is not None:
        tol["rtol"] = rtol
    if atol is not None:
        tol["atol"] = atol
    ms_out, ms_grads = _ms_value_and_grads(ms_fn, arrays, grad_idx)
    t_out, t_grads = _torch_value_and_grads(torch_fn, arrays, grad_idx)
    assert len(ms_out) == len(t_out)
    for m, t in zip(ms_out, t_out):
        assert m.shape == t.shape, f"output shape {m.shape} != torch {t.shape}"
        assert m.dtype == t.dtype, f"output dtype {m.dtype} != torch {t.dtype}"
        np.testing.assert_allclose(m, t, err_msg="forward", **tol)
    for i, m, t in zip(grad_idx, ms_grads, t_grads):
        assert m.shape == np.shape(arrays[i]), f"grad {i} shape {m.shape} != input {np.shape(arrays[i])}"
        assert m.dtype == np.asarray(arrays[i]).dtype, f"grad {i} dtype {m.dtype}"
        np.testing.assert_allclose(m, t, err_msg=f"grad of input {i}", **tol)


def check_double_backward(ms_fn, arrays, grad_idx=None, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Second derivatives of ms_fn (float64) match central finite differences of its gradient.

    Checks d/dx_j <grad_x f, v> for a fixed direction cotangent, i.e. Hessian-vector products.
    """
    arrays = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
              for a in arrays]
    if grad_idx is None:
        grad_idx = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    outs = [o.asnumpy() for o in _tuple(ms_fn(*[ms.Tensor(a) for a in arrays]))]
    cots = _cotangents(outs, seed=1)
    rng = np.random.default_rng(2)
    vs = [rng.standard_normal(arrays[i].shape) for i in grad_idx]

    def first(*ts):
        """<grad f, v> as a scalar function of the inputs (itself differentiable)."""
        def scalar_fn(*inner):
            total = None
            for o, c in zip(_tuple(ms_fn(*inner)), cots):
                term = (o * ms.Tensor(c)).sum()
                total = term if total is None else total + term
            return total
        grads = _tuple(ms.grad(scalar_fn, grad_position=tuple(grad_idx))(*ts))
        total = None
        for g, v in zip(grads, vs):
            term = (g * ms.Tensor(v)).sum()
            total = term if total is None else total + term
        return total

    analytic = _tuple(ms.grad(first, grad_position=tuple(grad_idx))(*[ms.Tensor(a) for a in arrays]))
    for k, i in enumerate(grad_idx):
        numeric = np.zeros_like(arrays[i])
        flat = numeric.reshape(-1)
        for j in range(flat.size):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            fp = first(*[ms.Tensor(a) for a in plus]).asnumpy()
            fm = first(*[ms.Tensor(a) for a in minus]).asnumpy()
            flat[j] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(analytic[k].asnumpy(), numeric, rtol=rtol, atol=atol,
                                   err_msg=f"second derivative w.r.t. input {i}")
