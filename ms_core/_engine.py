"""Reverse-mode autodiff engine: nodes, recording state, and one backward pass.

Nothing is recorded outside a transform (`grad`, `value_and_grad`, `GradOperation`, `vjp`):
`state.depth` counts the transforms that are recording. A recorded op output points at its
`Node`; a node holds its inputs (as recorded, see `_as_recorded`) strongly, its output Tensors
weakly and their arrays strongly, so there are no reference cycles and in-place updates of a
Tensor after it was used never change what was recorded. Backward rules are written with
ms_core ops, so while an outer transform records, the backward pass of an inner one is itself
recorded and can be differentiated again.
"""
import weakref

import numpy as np

from ._axes import broadcast_message
from ._registry import ops


class _State:
    __slots__ = ("depth", "grad_enabled")

    def __init__(self):
        self.depth = 0
        self.grad_enabled = True  # MindSpore's PyNative executor flag, which ms._no_grad switches off


state = _State()


def recording():
    """True while a transform records and the grad mode is on (inside ms._no_grad nothing is
    recorded, also inside a transform: what is computed there is a constant to it)."""
    return state.depth > 0 and state.grad_enabled


class _NoCtx:
    """Stand-in context for forwards run while nothing records: stores nothing."""

    __slots__ = ()

    def __setattr__(self, name, value):
        pass


_NO_CTX = _NoCtx()


class Node:
    """One recorded application of a primitive."""

    __slots__ = ("prim", "inputs", "outs", "arrays", "needs", "__dict__", "__weakref__")

    def __init__(self, prim, inputs):
        self.prim = prim
        self.inputs = inputs
        self.outs = ()
        self.arrays = ()
        self.needs = None

    @property
    def out(self):
        """The (first) output Tensor, as the op produced it."""
        return self.output(0)

    def output(self, i):
        """Output `i` as the op produced it: the Tensor itself while it is alive and unchanged;
        after an in-place update rebound it (or once it is gone), an alias of the recorded values
        at this node's place in the graph (the node keeps the arrays, never the Tensors)."""
        t = self.outs[i]()
        if t is not None and t._node is self and t._index == i:
            return t
        alias = ops.Tensor._wrap(self.arrays[i])
        alias._node, alias._index = self, i
        return alias


class Primitive:
    """One differentiable operation: `forward` on NumPy arrays, `backward` with ms_core ops.

    `forward(ctx, *args)` receives arrays for Tensor arguments and the values of the others;
    it may stash what backward needs on `ctx`. `backward(ctx, dout)` returns one gradient per
    argument (None where there is none); `ctx.inputs` holds the original arguments and `ctx.out`
    the output Tensor. Primitives with `n_out > 1` return a tuple from forward and receive a
    tuple of output gradients (zeros where an output got none).
    """

    n_out = 1
    tuple_douts = False  # True: backward always receives a tuple of output gradients
    name = None
    # True: backward is dout times the analytic derivative (exp, sin, matmul, ...); of complex
    # values the gradient is then dout times its conjugate, torch's convention
    holomorphic = False

    def forward(self, ctx, *args):
        raise NotImplementedError

    def backward(self, ctx, dout):
        raise NotImplementedError(f"{type(self).__name__} is not differentiable.")

    def __call__(self, *args):
        return apply(self, *args)


def is_tracked(x):
    return isinstance(x, ops.Tensor) and (x._node is not None or x._track)


def _as_recorded(x):
    """What a node keeps of input `x`: a tracked leaf itself (gradients are matched to it by
    identity); any other Tensor as an alias frozen at its current values and graph position, so
    that a later in-place update of `x` (`x.add_(1)`, `x[0] = 5`, which rebind x's values and
    node) changes neither what this node's backward reads nor where its gradient goes."""
    if not isinstance(x, ops.Tensor) or x._node is None and x._track:
        return x
    alias = ops.Tensor._wrap(x._data)
    alias._node, alias._index = x._node, x._index
    return alias


def apply(prim, *args):
    """Run `prim` on `args`, recording a node when a transform records and an input is tracked."""
    Tensor = ops.Tensor
    record = recording() and any(is_tracked(a) for a in args)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if not record:
        out = _forward(prim, _NO_CTX, arrays)
        if prim.n_out == 1:
            return Tensor._wrap(out)
        return tuple(Tensor._wrap(o) for o in out)
    node = Node(prim, tuple(_as_recorded(a) for a in args))
    out = _forward(prim, node, arrays)
    tensors = _attach(node, (out,) if prim.n_out == 1 else out)
    return tensors[0] if prim.n_out == 1 else tuple(tensors)


def _forward(prim, ctx, arrays):
    """``prim.forward``, with NumPy's shape errors told in MindSpore's words: an axis out of
    range, operands that do not broadcast."""
    try:
        return prim.forward(ctx, *arrays)
    except np.exceptions.AxisError as exc:
        n = max(exc.ndim, 1)
        raise ValueError(f"For '{type(prim).__name__}', the 'axis' must be in [{-n}, {n}), but got "
                         f"{exc.axis}.") from None
    except ValueError as exc:
        if "could not be broadcast" not in str(exc):  # NumPy's words only: ours pass through
            raise
        shapes = [np.shape(a) for a in arrays if isinstance(a, np.ndarray)]
        raise ValueError(broadcast_message(type(prim).__name__, shapes)) from None


def _attach(node, out_arrays):
    """Wrap a node's output arrays as Tensors pointing at it (the node keeps weak references)."""
    tensors = []
    for i, o in enumerate(out_arrays):
        t = ops.Tensor._wrap(o)
        t._node = node
        t._index = i
        tensors.append(t)
    node.outs = tuple(weakref.ref(t) for t in tensors)
    node.arrays = tuple(t._data for t in tensors)
    return tensors


def _key(t):
    return (id(t._node), t._index) if t._node is not None else id(t)


def _topo_order(roots):
    """Nodes reachable from `roots`, inputs before consumers (iterative DFS)."""
    order, seen = [], set()
    stack = [(t._node, False) for t in roots if t._node is not None]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for inp in node.inputs:
            if isinstance(inp, ops.Tensor) and inp._node is not None and id(inp._node) not in seen:
                stack.append((inp._node, False))
    return order


def _sum_to_shape(g, shape):
    """Reduce a broadcast gradient to the operand's shape (with ms_core ops, so it records)."""
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and g.shape[i + lead] != 1)
    if axes:
        g = ops._sum(g, axis=axes, keep_dims=True)
    if lead:
        g = ops.reshape(g, tuple(shape))
    return g


def _backward_one(node, dout):
    """A one-output node's input gradients; a holomorphic primitive on complex values gives
    conj(backward(conj(dout))), that is dout * conj(f'(z))."""
    if not (node.prim.holomorphic and any(a.dtype.kind == "c" for a in node.arrays)):
        return node.prim.backward(node, dout)
    grads = node.prim.backward(node, ops.conj(dout))
    return tuple(None if g is None else ops.conj(g) for g in grads)


def _as_input_dtype(g, inp):
    """A gradient in its input's dtype, as torch's engine gives it: the real part for a real input
    that met a complex operand (``x * 1j``), a float input's own precision after promotion
    (``float32 * complex128``, ``float32 * float64``)."""
    want = inp._data.dtype
    if g._data.dtype == want or want.kind not in "fc":
        return g
    if want.kind == "f" and g._data.dtype.kind == "c":
        g = ops.real(g)
    return ops.cast(g, want) if g._data.dtype != want else g


def backward(roots, sens, targets):
    """Gradients of sum(root * sens) with respect to each target (None where unreachable)."""
    target_keys = {_key(t) for t in targets}
    order = _topo_order(roots)
    relevant = set()
    for node in order:
        needs = tuple(isinstance(a, ops.Tensor) and (_key(a) in target_keys or
                                                 (a._node is not None and id(a._node) in relevant))
                      for a in node.inputs)
        if any(needs):
            node.needs = needs
            relevant.add(id(node))
    acc = {}

    def accumulate(key, g):
        acc[key] = g if key not in acc else acc[key] + g

    for r, s in zip(roots, sens):
        accumulate(_key(r), s)
    for node in reversed(order):
        if id(node) not in relevant:
            continue
        n_out = len(node.outs)
        keys = [(id(node), i) for i in range(n_out)]
        douts = [acc.get(k) if k in target_keys else acc.pop(k, None) for k in keys]
        if all(d is None for d in douts):
            continue
        if n_out == 1 and not node.prim.tuple_douts:
            grads = _backward_one(node, douts[0])
        else:
            douts = tuple(d if d is not None else ops.Tensor._wrap(np.zeros_like(node.output(i)._data))
                          for i, d in enumerate(douts))
            grads = node.prim.backward(node, douts)
        for inp, need, g in zip(node.inputs, node.needs, grads):
            if need and g is not None:
                if not isinstance(g, ops.Tensor):
                    g = ops.Tensor._wrap(np.asarray(g, dtype=inp._data.dtype))
                if g.shape != inp.shape:
                    g = _sum_to_shape(g, inp.shape)
                accumulate(_key(inp), _as_input_dtype(g, inp))
        node.needs = None
    return [acc.get(_key(t)) for t in targets]


def record(prim, inputs, out_arrays):
    """Record a node for `prim` unconditionally (custom bprop, hook entries) and wrap outputs."""
    return _attach(Node(prim, tuple(inputs)), out_arrays)
