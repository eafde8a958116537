"""What the gradients of one ``backward()`` feed, found before its step is rewritten.

- ``step``: an optimizer step in the same block (or guarded by an ``if`` in it);
- ``chain``: another ``backward()`` comes first and the step follows it (a GAN discriminator
  trained on real and fake batches): the gradients of both are summed;
- ``loop``: the block is a loop body without a step and the step follows that loop (gradient
  accumulation over micro-batches, nanoGPT): the gradients of every iteration are summed;
- ``manual``: hand-written updates, ``for p in model.parameters(): p.data.add_(-lr * p.grad)``;
- ``closure``: the block is a function that the file gives an optimizer's ``step(f)`` (LBFGS
  re-evaluates the loss through it): the function returns the loss and the gradients;
- ``none``: nothing consumes the gradients in this file (a gradient smoke test,
  ``y.sum().backward()`` in a model file's ``__main__`` block): they are computed all the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from migrate.convert.cst import code_of, dotted, method_call
from migrate.convert.training.tree import Names, Refuse, at, block_at, blocks, walk_statements

_LOOPS = (cst.For, cst.While)


@dataclass
class Target:
    """Where the gradients of one backward() go."""

    kind: str                         # step, chain, loop, manual, closure, none
    opt: str | None = None            # the optimizer that steps (step, chain, loop)
    weights: str | None = None        # value_and_grad's weights (set later for ``none``)
    step_at: int | None = None        # block index of the step or of the `if` guarding it (step)
    guarded: bool = False
    manual: list[int] = field(default_factory=list)  # block indices of hand-written update loops
    network: str | None = None        # the module whose parameters a manual update walks
    outer_at: int | None = None       # loop kind: index of the loop in its parent block
    branch_loops: list = field(default_factory=list)  # update loops in the else of a guarded step
    leaves: list[str] = field(default_factory=list)  # tensors trained by hand (their .grad read)

    def manual_ids(self, block: list) -> set[int]:
        """ids of every hand-written update loop of this target (in ``block`` or in a branch)."""
        return {id(block[j]) for j in self.manual} | {id(loop) for loop in self.branch_loops}

    def unmanaged(self, block: list, stmts: list) -> list:
        """``stmts`` without this target's hand-written update loops (at any depth)."""
        ids = self.manual_ids(block)
        if not ids:
            return list(stmts)
        return [st.visit(_Without(ids)) for st in stmts if id(st) not in ids]


class _Without(cst.CSTTransformer):
    """Remove the statements whose ids are given (a copy for reading, never written out)."""

    def __init__(self, ids: set[int]):
        self.ids = ids

    def on_leave(self, original, updated):
        if id(original) in self.ids:
            return cst.RemovalSentinel.REMOVE
        return updated


def find_target(tp, body: list, path: list, block: list, k: int, next_backward: int) -> Target:
    """The target of the backward() at ``block[k]`` (scope ``body``, statement ``path``).

    Raises:
        Refuse: when the gradients go somewhere the pass cannot follow.
    """
    step = tp.find_step(block, k)
    if step is not None:
        j, inner, opt = step
        if j < next_backward:
            if inner is not None and has_else_loops(tp, block[j]):
                return _branch_updates(tp, block[j], opt, j)
            return Target("step", opt, f"{opt}.parameters", j, inner is not None)
        if any(tp.is_zero_grad(st, opt) for st in block[k + 1:next_backward]):
            raise Refuse("MS953", f"{opt}.zero_grad() between two backward() calls: drop the first "
                                  "loss or accumulate its grads by hand")
        return Target("chain", opt, f"{opt}.parameters")
    manual = manual_updates(tp, block, k, next_backward)
    if manual:
        return manual
    outer = _step_after_loop(tp, body, path)
    if outer is not None:
        return outer
    opt = tp.closure_optimizer()
    if opt is not None and len(path) == 1:
        return Target("closure", opt, f"{opt}.parameters")
    if tp.has_optimizer_steps() and not _reads_leaf_grads(tp, block[k + 1:next_backward]):
        raise Refuse("MS953", "no optimizer.step() follows backward() in the same block: "
                              "compute grads with ms.value_and_grad and apply optimizer(grads)")
    return Target("none")


def _reads_leaf_grads(tp, stmts: list) -> bool:
    """Whether ``stmts`` read the ``.grad`` of a tensor trained by hand (the file's other steps
    use an optimizer: this one updates its leaves itself)."""
    leaves = tp.leaf_tensors()
    return bool(leaves) and any(a.attr.value == "grad" and isinstance(a.value, cst.Name) and a.value.value in leaves
                                for a in Names.of(stmts).attrs)


def has_else_loops(tp, guard) -> bool:
    """Whether the ``else`` of the ``if`` that guards a step holds hand-written update loops."""
    return isinstance(guard, cst.If) and isinstance(guard.orelse, cst.Else) \
        and any(param_loop(tp, st) is not None for st in guard.orelse.body.body)


def _branch_updates(tp, guard: cst.If, opt: str, j: int) -> Target:
    """``if C: opt.step()`` / ``else: for p in net.parameters(): p.data.add_(-lr * p.grad)``:
    one step whose gradients feed either branch. Both need the gradients of the same parameters
    in the same order, and the optimizer may not exist when C is false: value_and_grad takes
    ``net.trainable_params()``, which the optimizer was built from."""
    loops = [st for st in guard.orelse.body.body if param_loop(tp, st) is not None]
    nets = {code_of(param_loop(tp, st).iter.func.value) for st in loops}
    net = nets.pop() if len(nets) == 1 else None
    if net is None or tp.bindings.opt_params.get(opt) != net:
        raise Refuse("MS951", f"{opt}.step() in one branch and hand-written updates in the other: "
                              f"differentiate with respect to the parameters {opt} was built from "
                              "(net.trainable_params()) and use the same grads in both branches by hand")
    return Target("step", opt, f"{net}.trainable_params()", j, True, network=net, branch_loops=loops)


def _step_after_loop(tp, body: list, path: list) -> Target | None:
    """``for micro in range(k): ...; loss.backward()`` followed by ``optimizer.step()``."""
    if len(path) < 2 or path[-2][1] != "body" or not isinstance(at(body, path[:-1]), _LOOPS):
        return None
    parent = block_at(body, path[:-2])
    i = path[-2][0]
    step = tp.find_step(parent, i)
    if step is None:
        return None
    j, inner, opt = step
    if any(method_call(st, "backward") is not None for st in walk_statements(parent[i + 1:j + 1])):
        return None
    return Target("loop", opt, f"{opt}.parameters", j, inner is not None, outer_at=i)


# --------------------------------------------------------------------------------------------
# hand-written updates
# --------------------------------------------------------------------------------------------
def manual_updates(tp, block: list, k: int, end: int) -> Target | None:
    """``for p in net.parameters(): ... p.grad ...`` loops after ``block[k]`` (also inside a
    ``with torch.no_grad():``): a ``manual`` target over ``net``'s parameters, or None."""
    found, nets = [], set()
    for j in range(k + 1, end):
        loop = param_loop(tp, block[j])
        if loop is not None:
            found.append(j)
            nets.add(code_of(loop.iter.func.value))
    if not found:
        return None
    if len(nets) != 1:
        raise Refuse("MS951", f"hand-written updates over the parameters of {', '.join(sorted(nets))}: "
                              "differentiate each network with its own value_and_grad by hand")
    net = nets.pop()
    return Target("manual", weights=f"{net}.trainable_params()", manual=found, network=net)


def param_loop(tp, st) -> cst.For | None:
    """The ``for p in net.parameters():`` loop that reads ``p.grad`` in ``st`` (``st`` itself,
    or the loop of a ``with torch.no_grad():`` block whose other statements clear the network's
    gradients, ``net.zero_grad()``), or None."""
    if isinstance(st, cst.With) and isinstance(st.body, cst.IndentedBlock) \
            and all(isinstance(it.item, cst.Call) and tp.qual(it.item.func) in
                    ("torch.no_grad", "torch.autograd.no_grad") for it in st.items):
        loops = [x for x in st.body.body if isinstance(x, cst.For)]
        if len(loops) != 1:
            return None
        loop = param_loop(tp, loops[0])
        net = dotted(loop.iter.func.value) if loop is not None else None
        rest = [x for x in st.body.body if x is not loops[0]]
        return loop if all(clears_grads(x, net) for x in rest) else None
    if not (isinstance(st, cst.For) and isinstance(st.iter, cst.Call) and not st.iter.args
            and isinstance(st.iter.func, cst.Attribute) and st.iter.func.attr.value == "parameters"
            and isinstance(st.target, cst.Name) and dotted(st.iter.func.value) is not None):
        return None
    p = st.target.value
    if not any(a.attr.value == "grad" and dotted(a.value) == p for a in Names.of(st.body).attrs):
        return None
    return st


def clears_grads(st, net: str | None) -> bool:
    """``net.zero_grad(...)``: a statement that only clears the gradients of ``net``."""
    m = method_call(st, "zero_grad")
    return net is not None and m is not None and dotted(m[0]) == net


# --------------------------------------------------------------------------------------------
# the networks of a forward pass (the weights of a gradient computation)
# --------------------------------------------------------------------------------------------
def network_weights(tp, segment: list, exclude: frozenset = frozenset()) -> str | None:
    """``net.trainable_params()`` (joined with ``+``) for the networks the forward segment
    calls: names bound to an instance of a class (of this file, imported, or torch.nn), except
    ``exclude``."""
    built = tp.constructed_names() | tp.mode_switched()  # (net.eval() makes net a module)
    nets = []
    for c in Names.of(segment).calls:
        name = dotted(c.func)
        if name in built and name not in nets and name not in exclude:
            nets.append(name)
    if not nets:
        return None
    return " + ".join(f"{n}.trainable_params()" for n in nets)


def constructed_names(tp, body: list) -> set[str]:
    """Names bound in the file to ``Class(...)`` (a class of this file, an imported CamelCase
    class, a torch.nn layer), also through ``.to(device)``/``.cuda()``/``.train()``."""
    out = set()
    for st in walk_statements(body):
        if not isinstance(st, cst.SimpleStatementLine):
            continue
        for small in st.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            value = small.value
            while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                    and value.func.attr.value in ("to", "cuda", "cpu", "train", "eval", "float", "double"):
                value = value.func.value
            name = dotted(small.targets[0].target)
            if name is not None and isinstance(value, cst.Call) and _is_network_class(tp, value.func):
                out.add(name)
    return out


_WRAPPERS = ("torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
             "torch.nn.parallel.distributed.DistributedDataParallel")


def _is_network_class(tp, func) -> bool:
    q = tp.qual(func)
    if q is not None:  # (a data-parallel wrapper keeps the mode of the module it wraps)
        return q.startswith("torch.nn.") and q.rsplit(".", 1)[-1][:1].isupper() and q not in _WRAPPERS
    return isinstance(func, cst.Name) and tp.is_class(func.value)


def has_steps(tp, body: list) -> bool:
    """Whether any statement of the file is an optimizer step (``opt.step()``, ``scaler.step(opt)``)."""
    return bool(tp.bindings.optimizers) or any(tp.is_step(st) for st in walk_statements(body)
                                               if isinstance(st, cst.SimpleStatementLine))



def switched_names(body: list) -> set[str]:
    """Receivers of ``.train(...)``, ``.eval()`` and ``.set_train(...)`` anywhere in the file."""
    out = set()
    for st in walk_statements(body):
        if isinstance(st, cst.SimpleStatementLine):
            for c in Names.of(st).calls:
                if isinstance(c.func, cst.Attribute) and c.func.attr.value in ("train", "eval", "set_train"):
                    name = dotted(c.func.value)
                    if name is not None:
                        out.add(name)
    return out


def switch_statements(body: list) -> tuple[set[str], dict]:
    """(the receivers of ``.train()`` / ``.train(<not False>)`` / ``.set_train(<not False>)``
    anywhere, {receiver: the statements outside functions that call ``.eval()`` / ``.train(False)``
    / ``.set_train(False)`` on it}): the networks the file puts in training mode itself, and
    where the script's own flow (not a function, whose calls may come anywhere) leaves it."""
    to_train, to_eval = set(), {}
    top = {id(st) for st in _outside_functions(body)}
    for st in walk_statements(body):
        if not isinstance(st, cst.SimpleStatementLine):
            continue
        for c in Names.of(st).calls:
            if not (isinstance(c.func, cst.Attribute) and c.func.attr.value in ("train", "eval", "set_train")):
                continue
            name = dotted(c.func.value)
            mode = c.args[0].value if c.args else None
            off = c.func.attr.value == "eval" or (isinstance(mode, cst.Name) and mode.value == "False")
            if name is None:
                continue
            if not off:
                to_train.add(name)
            elif id(st) in top:
                to_eval.setdefault(name, []).append(st)
    return to_train, to_eval


def _outside_functions(body: list):
    for st in body:
        if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
            continue
        yield st
        for _, stmts in blocks(st):
            yield from _outside_functions(stmts)
