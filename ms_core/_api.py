"""Function transforms: one core (`_value_and_grads`: `_record` the forward, then `_backprop`),
`value_and_grad` and `grad` on it, `GradOperation` as a thin adapter, and `vjp`, which records
once and backpropagates on every `vjp_fn` call (layered as in JAX's api.py)."""
import numpy as np

from . import _engine
from ._registry import ops
from .common.parameter import Parameter, ParameterTuple
from .common.tensor import Tensor


def _normalize_positions(grad_position, fn_name):
    """None -> None; int -> (int,); tuple of ints -> itself; anything else -> TypeError."""
    if grad_position is None:
        return None
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, list)):
        raise TypeError(f"For '{fn_name}', the 'grad_position' must be an int, a tuple of ints or "
                        f"None, but got {type(grad_position).__name__}.")
    positions = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    if not positions:
        raise ValueError(f"For '{fn_name}', the 'grad_position' must not be an empty tuple.")
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            raise TypeError(f"For '{fn_name}', every element of 'grad_position' must be a "
                            f"non-negative int, but got {p!r}.")
    return positions


def _normalize_weights(weights, fn_name):
    """None -> None; a Parameter -> (p,); list / tuple / ParameterTuple -> tuple of Parameters."""
    if weights is None:
        return None
    items = (weights,) if isinstance(weights, Parameter) else weights
    if not isinstance(items, (list, tuple, ParameterTuple)):
        raise TypeError(f"For '{fn_name}', the 'weights' must be a Parameter, a list or tuple of "
                        f"Parameters, or a ParameterTuple, but got {type(weights).__name__}.")
    items = tuple(items)
    for i, w in enumerate(items):
        if not isinstance(w, Parameter):
            raise TypeError(f"For '{fn_name}', every element of 'weights' must be a Parameter, but "
                            f"element {i} is {type(w).__name__}. Pass net.trainable_params().")
    return items


def _leaf_for(x):
    """A fresh tracked stand-in for input x: an identity node if x is tracked (nested
    transforms, so gradients keep flowing to the outer level), else a new tracked leaf."""
    if _engine.is_tracked(x):
        return ops.identity(x)
    leaf = Tensor._wrap(x._data)
    leaf._track = True
    return leaf


def _detach_tree(x):
    if isinstance(x, Tensor):
        return Tensor._wrap(x._data) if x._node is not None or x._track else x
    if isinstance(x, tuple):
        return tuple(_detach_tree(i) for i in x)
    if isinstance(x, list):
        return [_detach_tree(i) for i in x]
    return x


def _differentiable_outputs(out, has_aux, fn_name):
    """The outputs to differentiate, and the auxiliary outputs (for has_aux)."""
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 1:
            raise TypeError(f"For '{fn_name}' with has_aux=True, the function must return a tuple "
                            f"(loss, *aux), but got {type(out).__name__}.")
        return [out[0]], tuple(out[1:])
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return outs, ()


def _record(fn, args, positions, fn_name):
    """Run fn once while recording, with a tracked leaf for each differentiated input.

    Returns fn's output (connected to the recorded graph) and the leaves, in `positions` order."""
    if not _engine.state.grad_enabled:
        raise RuntimeError("In no_grad context, you can not calculate gradient")
    args = list(args)
    for p in positions:
        if p >= len(args):
            raise IndexError(f"For '{fn_name}', the 'grad_position' {p} is out of range: the "
                             f"function was called with {len(args)} positional argument(s).")
        if not isinstance(args[p], Tensor):
            raise TypeError(f"For '{fn_name}', the input at grad_position {p} must be a Tensor, "
                            f"but got {type(args[p]).__name__}.")
    # One leaf per distinct Tensor object, used wherever that object is passed: like MindSpore
    # (checked on 2.10), f(a, a) differentiated at position 0 gives the total derivative in a.
    leaves = {}
    _engine.state.depth += 1
    try:
        for p in positions:
            if id(args[p]) not in leaves:
                leaves[id(args[p])] = _leaf_for(args[p])
        targets_in = [leaves[id(args[p])] for p in positions]
        args = [leaves.get(id(a), a) if isinstance(a, Tensor) else a for a in args]
        out = fn(*args)
    finally:
        _engine.state.depth -= 1
    return out, targets_in


def _backprop(roots, sens, targets, fn_name):
    """Gradients of sum(root * sens) over the float roots w.r.t. each target (zeros where none).

    Only reads the recorded graph, so it can run again on the same graph with other `sens`."""
    roots = [r for r in roots if isinstance(r, Tensor) and r._data.dtype.kind == "f"]
    if sens is None:
        sens_list = [Tensor._wrap(np.ones_like(r._data)) for r in roots]
    else:
        sens_list = list(sens) if isinstance(sens, (tuple, list)) else [sens]
        if len(sens_list) != len(roots):
            raise ValueError(f"For '{fn_name}', 'sens' must have one Tensor per output: the "
                             f"function returned {len(roots)} output(s), but got {len(sens_list)}.")
        for r, s in zip(roots, sens_list):
            if not isinstance(s, Tensor) or s.shape != r.shape:
                raise ValueError(f"For '{fn_name}', each 'sens' must be a Tensor with its output's "
                                 f"shape {list(r.shape)}, but got "
                                 f"{list(s.shape) if isinstance(s, Tensor) else type(s).__name__}.")
    grads = _engine.backward(roots, sens_list, targets) if roots else [None] * len(targets)
    return [g if g is not None else Tensor._wrap(np.zeros_like(t._data))
            for g, t in zip(grads, targets)]


def _value_and_grads(fn, args, positions, weights, has_aux, sens, fn_name):
    """The core: run fn recording, backprop sens, return (out, aux, input_grads, weight_grads)."""
    out, targets_in = _record(fn, args, positions, fn_name)
    roots, aux = _differentiable_outputs(out, has_aux, fn_name)
    grads = _backprop(roots, sens, targets_in + list(weights), fn_name)
    if _engine.state.depth == 0:  # nothing outside will differentiate: release the graph
        out, aux = _detach_tree(out), _detach_tree(aux)
        grads = [_detach_tree(g) for g in grads]
    return out, aux, grads[:len(positions)], grads[len(positions):]


def _pack(grad_position, weights, input_grads, weight_grads, single_weight):
    """Shape the result as MindSpore does (int or 1-tuple -> Tensor, longer tuple -> tuple, with
    weights -> pair)."""
    if grad_position is None:
        inputs_part = None
    elif isinstance(grad_position, int) or len(input_grads) == 1:
        # a one-element tuple of positions unwraps too (MindSpore 2.10: grad_position=(1,) -> Tensor)
        inputs_part = input_grads[0]
    else:
        inputs_part = tuple(input_grads)
    if weights is None:
        return inputs_part
    weights_part = weight_grads[0] if single_weight else tuple(weight_grads)
    if inputs_part is None:
        return weights_part
    return inputs_part, weights_part


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False):
    """Transform `fn` into a function returning `(fn's outputs, gradients)`.

    Args:
        fn: a function or Cell returning a Tensor, or a tuple of Tensors.
        grad_position: int, tuple of ints, or None — which positional inputs to differentiate.
        weights: None, a Parameter, or a list/tuple/ParameterTuple of Parameters.
        has_aux: if True, only the first output is differentiated; the others are returned as
            auxiliary data.

    Returns:
        A function. Gradients are one Tensor for an int position or a one-element tuple (as
        MindSpore 2.10), a tuple for a tuple of several positions, `(input_grads, weight_grads)`
        when both are asked, the weight grads alone when `grad_position` is None. Without
        `has_aux`, several outputs are differentiated as their sum.

    Raises:
        ValueError: `grad_position` and `weights` are both None.

    Example:
        >>> loss, grads = ms.value_and_grad(forward_fn, None, model.trainable_params())(x, y)
    """
    return _transform(fn, grad_position, weights, has_aux, "value_and_grad", with_value=True)


def grad(fn, grad_position=0, weights=None, has_aux=False):
    """Transform `fn` into a function returning its gradients (and aux outputs if has_aux).

    Same arguments and gradient structure as `value_and_grad`; with `has_aux=True` the result is
    `(grads, aux_tuple)`.

    Example:
        >>> ms.grad(lambda x: (x * x).sum())(Tensor([1.0, 2.0]))
        Tensor(shape=[2], dtype=Float32, value=
        [ 2.00000000e+00,  4.00000000e+00])
    """
    return _transform(fn, grad_position, weights, has_aux, "grad", with_value=False)


def _transform(fn, grad_position, weights, has_aux, fn_name, with_value):
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weight` can not be None at the same time.")
    if not callable(fn):
        raise TypeError(f"For '{fn_name}', the 'fn' must be a function or a Cell, but got "
                        f"{type(fn).__name__}.")
    positions = _normalize_positions(grad_position, fn_name) or ()
    weight_tuple = _normalize_weights(weights, fn_name) or ()
    single_weight = isinstance(weights, Parameter)

    def transformed(*args):
        out, aux, g_in, g_w = _value_and_grads(fn, args, positions, weight_tuple, has_aux, None,
                                               fn_name)
        grads = _pack(grad_position, weights, g_in, g_w, single_weight)
        if with_value:
            return out, grads
        return (grads, aux) if has_aux else grads

    transformed.__name__ = f"{fn_name}_{getattr(fn, '__name__', type(fn).__name__)}"
    return transformed


def vjp(fn, *inputs, weights=None, has_aux=False):
    """Run `fn(*inputs)` once, recording, and return its outputs with a function that maps
    cotangents (one per output) to gradients: the vector-Jacobian product.

    `vjp_fn` backpropagates through the graph recorded by that one forward pass, so the gradients
    belong to the returned outputs (the same dropout masks) and `vjp_fn` can be called again with
    other cotangents without running `fn` again (MindSpore 2.10 runs the forward again, with a
    warning, from the second call on).

    Args:
        fn: a function or Cell taking Tensors and returning a Tensor or a tuple of Tensors.
        *inputs: the Tensors to call `fn` with; `vjp_fn` differentiates with respect to each.
        weights: None, a Parameter, or a list/tuple/ParameterTuple of Parameters whose
            gradients `vjp_fn` returns as well.
        has_aux: if True, `fn` returns `(output, *aux)`: only `output` is differentiated and the
            rest comes back as `aux` (the second output alone, or a tuple of the others).

    Returns:
        `(outputs, vjp_fn)`, or `(outputs, vjp_fn, aux)` with `has_aux`. `vjp_fn(*cotangents)`
        (Tensors shaped like the outputs, or one tuple of them) returns the tuple of input
        gradients, or `(input_grads, weight_grads)` when `weights` is given (one Tensor for a
        single Parameter).

    Raises:
        TypeError: an input or a cotangent is not a Tensor, or `has_aux` is not a bool.
        ValueError: with `has_aux`, `fn` returns fewer than two outputs; a cotangent's count or
            shape does not match the outputs.

    Example:
        >>> out, vjp_fn = ms.vjp(lambda x, y: x * y, Tensor([2.0]), Tensor([5.0]))
        >>> gx, gy = vjp_fn(Tensor([1.0]))
        >>> print(out, gx, gy)
        [10.] [5.] [2.]
    """
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'vjp', every input must be a Tensor, but input {i} is "
                            f"{type(x).__name__}.")
    if not isinstance(has_aux, bool):
        raise TypeError(f"For 'vjp', the 'has_aux' must be bool, but got {type(has_aux).__name__}.")
    if not callable(fn):
        raise TypeError(f"For 'vjp', the 'fn' must be a function or a Cell, but got "
                        f"{type(fn).__name__}.")
    weight_tuple = _normalize_weights(weights, "vjp") or ()
    out, leaves = _record(fn, inputs, tuple(range(len(inputs))), "vjp")
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            got = f"a tuple of {len(out)}" if isinstance(out, tuple) else type(out).__name__
            raise ValueError(f"For 'vjp' with has_aux=True, the function must return a tuple "
                             f"(output, *aux) of at least two outputs, but got {got}.")
        out, aux = out[0], (out[1] if len(out) == 2 else out[1:])
    roots = list(out) if isinstance(out, (tuple, list)) else [out]
    targets = leaves + list(weight_tuple)

    def vjp_fn(*cotangents):
        for c in cotangents:
            items = c if isinstance(c, (tuple, list)) else (c,)
            for item in items:
                if not isinstance(item, Tensor):
                    raise TypeError(f"For 'vjp', every cotangent must be a Tensor, but got "
                                    f"{type(item).__name__}.")
        sens = cotangents[0] if len(cotangents) == 1 else cotangents
        grads = _backprop(roots, sens, targets, "vjp")
        if _engine.state.depth == 0:  # nothing outside differentiates the gradients
            grads = [_detach_tree(g) for g in grads]
        input_grads = tuple(grads[:len(leaves)])
        if weights is None:
            return input_grads
        weight_grads = grads[len(leaves):]
        return input_grads, (weight_grads[0] if isinstance(weights, Parameter) else
                             tuple(weight_grads))

    if _engine.state.depth == 0:  # the caller gets plain Tensors; vjp_fn keeps the graph
        out = _detach_tree(out)
        if has_aux:
            aux = _detach_tree(aux)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


class GradOperation:
    """`ops.GradOperation(get_all, get_by_list, sens_param)`: the graph-mode gradient builder.

    `GradOperation()(fn)(*args)` gives the gradient w.r.t. the first input; `get_all=True` every
    input; `get_by_list=True` the weights passed as `GradOperation(...)(fn, weights)`; both give
    `(inputs_grads, weights_grads)`. With `sens_param=True` the last argument is the sensitivity.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, value in (("get_all", get_all), ("get_by_list", get_by_list),
                            ("sens_param", sens_param)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'GradOperation', the '{name}' must be bool, but got "
                                f"{type(value).__name__}.")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise ValueError("For 'GradOperation' with get_by_list=True, pass the weights: "
                             "GradOperation(get_by_list=True)(fn, net.trainable_params()).")
        weight_tuple = _normalize_weights(weights, "GradOperation") if self.get_by_list else ()

        def grad_fn(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise TypeError("For 'GradOperation' with sens_param=True, the last argument "
                                    "must be the sensitivity ('sens'), but no argument was given.")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            elif self.get_by_list:
                positions = ()
            else:
                if not args:
                    raise TypeError("For 'GradOperation', the function needs at least one input to "
                                    "differentiate with respect to.")
                positions = (0,)
            _, _, g_in, g_w = _value_and_grads(fn, args, positions, weight_tuple or (), False, sens,
                                               "GradOperation")
            if self.get_all and self.get_by_list:
                return tuple(g_in), tuple(g_w)
            if self.get_by_list:
                return tuple(g_w)
            if self.get_all:
                return tuple(g_in)
            return g_in[0]

        return grad_fn
