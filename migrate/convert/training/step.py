"""One training step: ``zero_grad(); loss = f(x); loss.backward(); step()`` -> ``forward_fn`` +
``ms.value_and_grad`` (built once) + ``optimizer(grads)``.

A :class:`StepRewrite` first finds the step's parts and proves the rewrite safe, filling a
:class:`StepPlan` (every check that fails raises :class:`~migrate.convert.training.tree.Refuse`
with what to do by hand), then writes the new statements from the plan:

1. the ``backward()`` call and its loss (``loss.backward()``, ``scaler.scale(loss).backward()``);
2. the optimizer step that consumes it (in the same block, or guarded by an ``if``);
3. the forward segment: the backward slice of the loss in that block, bounded by an earlier
   step, without the data preparation at its head;
4. where ``forward_fn`` goes (before the outermost loop around the step that does not create
   the optimizer), its parameters (names the loop rebinds) and auxiliary outputs (names the
   code after the step reads);
5. the new statements: ``forward_fn``, ``grad_fn`` and the call that replaces segment +
   ``backward()``, then the statements after it (:mod:`~migrate.convert.training.update`).
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import libcst as cst

from migrate.convert.cst import code_of, dotted, method_call, new_statement, parse_expr, removed, short, single_assign
from migrate.convert.training.rules import (
    BACKWARD_CHAIN, CONDITIONAL_BACKWARD, GRAD_ACCUMULATION, GRAD_REDUCER, GRADIENT_COMPUTATION, MANUAL_UPDATE,
    NO_GRAD_IN_FORWARD, TRAINING_STEP, VJP_THROUGH, ZERO_GRAD,
)
from migrate.convert.training.autograd_grad import requires_grad_of
from migrate.convert.training.targets import Target, find_target, network_weights
from migrate.convert.training.tree import (
    Names, Refuse, at, block_at, called_names, carry_comments, free_reads, marked, reads_grad, unique,
    walk_statements,
)
from migrate.convert.training.update import UpdateRewrite, UpdateState

BUILTINS = set(dir(builtins))
_NO_GRAD_MODES = ("torch.no_grad", "torch.autograd.no_grad", "torch.inference_mode")


def _accumulates(target, block: list, k: int, zero_at: list) -> bool:
    """Whether the gradients of several backward() calls add up before the step: a step guarded
    by an ``if`` with no zero_grad() in the block, or a step that an ``if ...: continue`` between
    backward() and it skips, with zero_grad() only after it (``loss.backward(); if (i + 1) % k:
    continue; optimizer.step(); optimizer.zero_grad()``)."""
    if target.kind != "step":
        return False
    if target.guarded:
        return not zero_at
    skipped = any(_skips_rest(st) for st in block[k + 1:target.step_at])
    return skipped and all(i > target.step_at for i in zero_at)


def _skips_rest(st) -> bool:
    """``if cond: ... continue`` (no else): the rest of the loop body may not run."""
    return isinstance(st, cst.If) and st.orelse is None and isinstance(st.body, cst.IndentedBlock) \
        and isinstance(st.body.body[-1], cst.SimpleStatementLine) \
        and isinstance(st.body.body[-1].body[-1], cst.Continue)


@dataclass
class StepPlan:
    """Where the parts of one training step are, and the names its rewrite writes."""

    path: list                   # to the backward() statement, from the scope's body
    block: list                  # the statements of the block that holds backward()
    k: int                       # block[k] is the backward() statement
    backward: cst.Call
    loss: cst.BaseExpression     # what backward() is called on (inside scaler.scale(...))
    loss_name: str               # the name (or attribute) the loss is bound to (a new name for an expression)
    scaler: str | None           # the GradScaler, for scaler.scale(loss).backward()
    target: Target               # what the gradients feed (an optimizer step, updates, nothing)
    next_backward: int           # index of the next backward() in the block (or its end)
    zero_at: list[int]           # indices of the zero_grad() calls of this step in the block
    accumulate: bool             # a guarded step with no zero_grad() in the block
    chain: str | None = None     # the grads sum an earlier backward() of this block started
    start: int = 0               # the forward segment is block[start:k] minus zero_grad()
    slice: set = field(default_factory=set)    # block indices of the statements the loss needs
    segment: list = field(default_factory=list)
    moved: list = field(default_factory=list)  # statements after the loss, moved after grad_fn
    names: Names | None = None   # what the segment reads, binds and calls
    loop_at: int | None = None   # forward_fn goes before the loop at path[:loop_at + 1]
    params: list[str] = field(default_factory=list)  # forward_fn's parameters
    aux: list[str] = field(default_factory=list)     # its outputs besides the loss
    grad_inputs: list[str] = field(default_factory=list)  # inputs whose .grad is read (a gradient computation)
    through: dict = field(default_factory=dict)  # name -> block index of `name = net(...)` it is vjp'd through
    through_vjp: dict = field(default_factory=dict)  # name -> the name of its vjp function
    reducer: str | None = None   # the DistributedGradReducer of a data-parallel step

    @property
    def opt(self) -> str | None:
        return self.target.opt

    @property
    def step_at(self) -> int | None:
        return self.target.step_at

    @property
    def guarded(self) -> bool:
        return self.target.guarded

    @property
    def owner(self) -> str | None:
        """What holds the differentiated parameters: the optimizer, or the updated network."""
        return self.target.opt or self.target.network

    @property
    def bw_stmt(self):
        return self.block[self.k]

    @property
    def after(self) -> list:
        """The statements between backward() and the next backward() of the block."""
        return self.block[self.k + 1:self.next_backward]


class StepRewrite:
    """Rewrite the training step whose ``backward()`` is at ``path`` in a scope (one use).

    Args:
        tp: the :class:`~migrate.convert.training.driver.TrainingPass` (what the file binds,
            what earlier steps wrote; records go there).
        body: the scope's statements.
        path: path to the ``backward()`` statement.
        taken: names used in the scope (generated names avoid them; new ones are added).
    """

    def __init__(self, tp, body: list, path: list, taken: set[str]):
        self.tp = tp
        self.body = body
        self.path = path
        self.taken = taken

    def run(self) -> list:
        """Return the scope's new statements; raise Refuse when the step is not safe to rewrite."""
        plan = self._locate()
        start, needed = self._backward_slice(plan)
        if start is None and self.tp.calls_network(plan.loss):
            start = plan.k  # net(x).sum().backward(): the loss expression is the forward pass
        if start is None:  # the loss is not computed in this block: perhaps in the one around it
            by_name = isinstance(plan.loss, cst.Name)
            lifted = lift_conditional_backward(self.tp, self.body, self.path, needed if by_name else set())
            if lifted is not None:
                return lifted
            raise Refuse("MS953", f"the loss `{code_of(plan.loss)}` is not computed in this block "
                                  "before backward(): move its computation into a forward_fn by hand")
        plan.start = start
        self._take_segment(plan)
        self._place(plan)
        return self._write(plan)

    # ---- 1-2: the backward() call, its loss, its step ----------------------------------
    def _locate(self) -> StepPlan:
        """Find the backward() call, its loss and what its gradients feed."""
        tp, path = self.tp, self.path
        block = block_at(self.body, path[:-1])
        k = path[-1][0]
        recv, bw_call = method_call(block[k], "backward")
        _check_backward_call(tp, recv, bw_call)
        # the loss: loss.backward(), scaler.scale(loss).backward(), (a + b).backward()
        scaler, loss = None, recv
        if isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) \
                and recv.func.attr.value == "scale" and dotted(recv.func.value) in tp.bindings.scalers \
                and len(recv.args) == 1:
            scaler = dotted(recv.func.value)
            loss = recv.args[0].value
        by_name = isinstance(loss, cst.Name) or isinstance(loss, cst.Attribute) and dotted(loss)
        loss_name = code_of(loss) if by_name else unique("loss", self.taken)
        next_backward = next((i for i in range(k + 1, len(block)) if method_call(block[i], "backward")),
                             len(block))
        target = find_target(tp, self.body, path, block, k, next_backward)
        if target.kind != "none" and reads_grad(target.unmanaged(block, block[k + 1:next_backward])):
            raise Refuse("MS951", "parameter .grad is read or changed after backward(): use the grads "
                                  "tuple returned by grad_fn (aligned with optimizer.parameters) instead")
        networks = called_names(block[:k]) | {target.network}
        zero_at = [i for i, st in enumerate(block) if _only_zero_grads(tp, st, target.opt, networks)]
        plan = StepPlan(path, block, k, bw_call, loss, loss_name, scaler, target, next_backward, zero_at,
                        accumulate=_accumulates(target, block, k, zero_at))
        plan.chain = self._chain_before(plan)
        return plan

    def _chain_before(self, plan: StepPlan) -> str | None:
        """The grads sum that an earlier backward() of this block left open for this optimizer."""
        if plan.opt is None:
            return None
        for st in reversed(plan.block[:plan.k]):
            open_ = self.tp.open_chains.get(id(st))
            if open_ is not None and open_[1] == plan.opt:
                return open_[0]
            if self.tp.is_step(st) or id(st) in self.tp.generated:
                return None
            if method_call(st, "backward") is not None and marked(st):
                raise Refuse("MS953", "an earlier backward() whose gradients this step applies too is "
                                      "not rewritten: rewrite both by hand")
        return None

    # ---- 3: the forward segment ---------------------------------------------------------
    def _backward_slice(self, plan: StepPlan) -> tuple[int | None, set[str]]:
        """(index of the first statement of the block the loss depends on, or None; the names
        the loss needs that the block does not compute)."""
        tp, block = self.tp, plan.block
        # zero_grad() does not cut the graph (output = model(x); optimizer.zero_grad();
        # loss.backward() is fine): only an earlier step in this block bounds the forward pass
        lower = max([i + 1 for i, st in enumerate(block[:plan.k]) if id(st) in tp.generated], default=0)
        by_name = code_of(plan.loss) == plan.loss_name
        needed = {plan.loss_name} if by_name else set(_differentiable_reads(plan.loss))
        start = None
        plan.slice = set()
        for i in range(plan.k - 1, -1, -1):
            n = Names.of(block[i])
            hit = (set(n.writes) | set(n.attr_writes)) & needed
            if hit and i < lower:
                if self._before_previous_step(plan, i, hit):
                    plan.grad_inputs += sorted(hit)  # the loss reaches it through ms.vjp
                needed -= hit  # data or objects prepared before the previous step: closures
                continue
            if hit:
                start = i
                plan.slice.add(i)
                if isinstance(block[i], cst.SimpleStatementLine):
                    needed -= set(n.writes)  # (what an earlier statement bound is not read here)
                # what reaches the loss only through .detach() is data, not forward pass
                needed |= set(_differentiable_reads(block[i]))
        return start, needed

    def _before_previous_step(self, plan: StepPlan, i: int, hit: set[str]) -> bool:
        """The loss reads ``hit``, bound by ``plan.block[i]`` before the previous step of the
        block: a closure (False), or a network output whose gradients come back through ms.vjp
        (True: ``fake = netG(z)`` before the discriminator's step, read by the generator's loss)."""
        tp, st = self.tp, plan.block[i]
        if id(st) in tp.generated:
            raise Refuse("MS953", f"the loss depends on {', '.join(sorted(hit))}, computed by "
                                  "an earlier forward_fn: recompute it inside this step's "
                                  "forward pass (e.g. G(z) again, not its detached copy)")
        if tp.constructs(st) or not tp.calls_network(st):
            return False
        a = single_assign(st)
        if a is None or len(a.targets) != 1 or not isinstance(a.targets[0].target, cst.Name) \
                or plan.target.kind not in ("step", "chain") or not tp.converter.allows(VJP_THROUGH.id):
            raise Refuse("MS953", f"the loss depends on {', '.join(sorted(hit))}, computed "
                                  f"before the previous optimizer step: repeat "
                                  f"`{short(code_of(st).strip(), 60)}` in this step's "
                                  "forward pass")
        name = a.targets[0].target.value
        plan.through[name] = i
        plan.through_vjp[name] = unique(f"{name}_vjp", self.taken)
        self.taken.add(f"{name}_grad")
        return True

    def _take_segment(self, plan: StepPlan) -> None:
        """Cut the data preparation off the slice's head and check what remains."""
        tp, block = self.tp, plan.block
        # data preparation at the head of the slice (batch = next(it), x = batch["x"]) stays
        # outside: the forward pass starts at the first statement that calls a network or reads
        # what one produced
        produced: set[str] = set()
        first = None
        built = self._networks_built_here(plan)
        for i in range(plan.start, plan.k):
            n = Names.of(block[i])
            if first is None and (i not in plan.slice or i in built or not (
                    tp.calls_network(block[i]) or set(n.reads) & produced or plan.loss_name in n.writes)):
                continue
            first = i if first is None else first
            produced |= set(n.writes)
        plan.start = first if first is not None else plan.start
        # what follows the loss's last statement without feeding it (metrics, logging, the
        # next batch) runs after grad_fn, as it ran after the forward pass
        end = max(plan.slice) + 1 if plan.slice else plan.k
        plan.segment = [st for i, st in enumerate(block[plan.start:end], plan.start) if i not in plan.zero_at]
        plan.moved = [st for i, st in enumerate(block[end:plan.k], end) if i not in plan.zero_at]
        plan.names = Names.of([*plan.segment, plan.loss])
        self._check_segment(plan)
        if plan.target.kind == "none":
            self._gradient_computation(plan)

    def _networks_built_here(self, plan: StepPlan) -> set[int]:
        """Indices of the slice's statements that build a network the forward pass then calls
        (``net = model(pretrained=False)`` ... ``y = net(x)`` in a model file's smoke test): the
        object is made there, no tensor is computed, so the statement stays ahead of forward_fn,
        which is built after it."""
        tp, block = self.tp, plan.block
        networks = tp.constructed_names() | tp.mode_switched()
        out = set()
        for i in sorted(plan.slice):
            a = single_assign(block[i])
            if a is None or len(a.targets) != 1 or not isinstance(a.targets[0].target, cst.Name) \
                    or not isinstance(a.value, cst.Call):
                continue
            name = a.targets[0].target.value
            called = any(isinstance(c.func, cst.Name) and c.func.value == name
                         for j in plan.slice if j > i for c in Names.of(block[j]).calls)
            if called and (name in networks or tp.constructs(block[i])):
                out.add(i)
        return out

    def _check_segment(self, plan: StepPlan) -> None:
        """Refuse a forward segment that cannot move into a function of its own."""
        tp, names = self.tp, plan.names
        if names.flow:
            raise Refuse("MS953", "return/break/continue/yield between the forward pass and "
                                  "backward(): restructure the step by hand")
        if not any(tp.calls_network(st) for st in [*plan.segment, plan.loss]):
            raise Refuse("MS953", f"the loss `{code_of(plan.loss)}` is built from tensors computed "
                                  "before this block (no network is called between zero_grad() and "
                                  "backward()): compute them inside the forward pass by hand")
        if plan.owner and plan.owner.split(".")[0] in names.writes:
            raise Refuse("MS953", f"{plan.owner} is created inside the forward pass: create it before "
                                  "the training step")
        for c in names.calls:
            if tp.qual(c.func) == "torch.set_grad_enabled" and not (
                    c.args and code_of(c.args[0].value) in ("True", "False")):
                raise Refuse("MS953", f"{code_of(c)} inside the forward pass: split the step by "
                                      "the condition by hand")
            if tp.qual(c.func) in ("torch.autograd.grad",):
                raise Refuse("MS954", "torch.autograd.grad inside the forward pass: build it with "
                                      "nested ms.grad by hand")
        if reads_grad(plan.segment) or plan.target.kind != "none" and reads_grad(
                plan.target.unmanaged(plan.block, plan.after)):
            raise Refuse("MS951", "parameter .grad is read or changed around backward()/step(): "
                                  "use the grads tuple returned by grad_fn (aligned with "
                                  "optimizer.parameters) instead")

    def _gradient_computation(self, plan: StepPlan) -> None:
        """A backward() whose gradients nothing in the file consumes: differentiate with respect
        to the parameters of the networks it calls, and to the inputs whose .grad is read after it."""
        free = set(free_reads([*plan.segment, cst.Expr(plan.loss)]))
        outside = [st for st in self._after_block(plan) if st not in plan.block]
        if reads_grad(outside):
            raise Refuse("MS951", ".grad is read outside the block of backward(): take the gradients "
                                  "returned by ms.value_and_grad there by hand")
        leaves = self.tp.leaf_tensors()
        for a in Names.of(list(plan.after)).attrs:
            if a.attr.value != "grad":
                continue
            name = dotted(a.value)
            if isinstance(a.value, cst.Name) and name not in free and name in leaves:
                if name not in plan.target.leaves:  # a leaf the forward pass reaches through a function
                    plan.target.leaves.append(name)
                continue
            if not isinstance(a.value, cst.Name) or name not in free:
                raise Refuse("MS951", f"{code_of(a)} is read after backward(): only the .grad of an "
                                      "input of the forward pass maps (to ms.value_and_grad's input "
                                      "gradients); take the others from its weight gradients by hand")
            if name not in plan.grad_inputs:
                plan.grad_inputs.append(name)
                self.taken.add(f"{name}_grad")
        # with leaves, a name the file also defines as a function is that function here (the
        # tutorial's `def model(xb): return xb @ weights + bias`, a Module bound to `model` later)
        functions = self.tp.function_names() if plan.target.leaves else frozenset()
        plan.target.weights = network_weights(self.tp, plan.segment, functions)
        if plan.target.leaves:
            if plan.target.weights is not None or plan.grad_inputs:
                raise Refuse("MS953", f"the gradients of {', '.join(plan.target.leaves)} (trained by hand) and of "
                                      "a network or an input together: write the value_and_grad by hand")
            plan.target.weights = "[" + ", ".join(plan.target.leaves) + "]"
            for leaf in plan.target.leaves:
                self.taken.add(f"{leaf}_grad")
        if plan.target.weights is None and not plan.grad_inputs:
            raise Refuse("MS953", "no optimizer.step() follows backward() in the same block: "
                                  "compute grads with ms.value_and_grad and apply optimizer(grads)")

    def _after_block(self, plan: StepPlan) -> list:
        """What runs after the backward() statement: the rest of its block and of each enclosing one."""
        body, path = self.body, self.path
        after = plan.moved + list(plan.block[plan.k + 1:])
        for n in range(len(path) - 1, 0, -1):
            after += block_at(body, path[:n - 1])[path[n - 1][0] + 1:]
        return after

    def _grad_reads(self, plan: StepPlan, stmts: list) -> list:
        """``x.grad`` -> ``x_grad`` (an input gradient) in the statements after backward()."""
        if not plan.grad_inputs:
            return stmts
        out = []
        for st in stmts:
            new = st.visit(_GradReads(set(plan.grad_inputs)))
            if new is not st:
                self.tp.tree.stands_for(new, st)
            out.append(new)
        return out

    # ---- 4: where forward_fn goes, its parameters and outputs -------------------------
    def _place(self, plan: StepPlan) -> None:
        """Choose where forward_fn goes, its parameters and its auxiliary outputs."""
        body, path = self.body, self.path
        # before the outermost loop around the step (built once); grad_fn reads
        # optimizer.parameters when it is built: not before a loop that creates the optimizer
        # (one model and optimizer per fold, say); a deeper loop then
        opt_root = (plan.owner or "self").split(".")[0]
        # nor before a loop that builds a network grad_fn differentiates (a model per iteration)
        roots = {opt_root} | _weight_roots(plan.target.weights)
        roots.discard("self")
        plan.loop_at = next((n for n in range(len(path) - 1)
                             if isinstance(at(body, path[:n + 1]), (cst.For, cst.While))
                             and not roots & set(Names.of(at(body, path[:n + 1])).writes)),
                            None)
        if plan.accumulate and plan.loop_at is None:
            raise Refuse("MS953", "gradient accumulation across calls of a function: keep the "
                                  "accumulated grads in a variable that outlives the call by hand")
        loop = at(body, path[:plan.loop_at + 1]) if plan.loop_at is not None else None
        loop_bound = set(Names.of(loop).writes) if loop is not None else set()
        written = list(dict.fromkeys(plan.names.writes))
        plan.params = [n for n in free_reads([*plan.segment, cst.Expr(plan.loss)])
                       if n in loop_bound or n in written or n in plan.grad_inputs]
        # what runs after the step reads: the rest of each enclosing block (names it rebinds
        # first do not count), and anything inside a loop around the step (the next iteration)
        later = set(free_reads(self._after_block(plan)))
        seg_ids = {id(st) for st in plan.segment}  # (incl. the else-branch copy of a lifted pass)
        if loop is not None:
            # the next iteration reads what the loop's code reads, and forward_fn's parameters
            # (hidden = model(x, hidden): the state it carries must come back out)
            later |= set(Names.of(loop, skip=seg_ids).reads) | set(plan.params)
        plan.aux = [n for n in written if n != plan.loss_name and n in later]

    # ---- 5: the new statements ----------------------------------------------------------
    def _write(self, plan: StepPlan) -> list:
        """The scope with the step rewritten as the plan says."""
        tp, taken = self.tp, self.taken
        fwd = unique("forward_fn", taken)
        gfn = unique("grad_fn", taken)
        grads = unique("grads", taken) if "grads" in taken else "grads"
        taken.add(grads)
        acc = plan.chain or (unique("accum_grads", taken) if plan.accumulate or plan.target.kind in ("loop", "chain")
                             else None)
        build = self._forward_fn(plan, fwd, gfn, acc)
        if plan.target.kind == "closure" and not any(not self.tp.is_zero_grad(st, plan.opt)
                                                     for st in plan.block[:plan.start]):
            build[0] = build[0].with_changes(leading_lines=[])  # first in the closure's body
        call = self._replacement(plan, gfn, grads, acc)
        self._note_what_it_computes(plan)
        bw_stmt = plan.bw_stmt
        tp.record(bw_stmt, call[0], TRAINING_STEP.id, "transformed",
                  f"{code_of(plan.backward)}: tape autodiff -> {fwd} + ms.value_and_grad (built once)"
                  + (f" + {plan.opt}(grads)" if plan.opt else "")
                  + (f"; returns {', '.join(plan.aux)} for the code after it" if plan.aux else ""))
        self._record_kind(plan, acc)
        state = UpdateState(plan.opt, plan.scaler, acc or grads, taken, network=plan.target.network,
                            manual=plan.target.manual_ids(plan.block), leaves=plan.target.leaves)
        guard = plan.step_at - plan.k - 1 if plan.target.kind == "step" and plan.guarded else None
        after = self._grad_reads(plan, plan.after)
        if plan.target.kind == "closure":
            after = self._closure_return(plan, after, grads)
        tail = UpdateRewrite(tp, state).rewrite(after, guard)
        if plan.target.leaves:  # the grads of the leaves, by name, for their updates
            names = [f"{leaf}_grad" for leaf in plan.target.leaves]
            unpack = f"{names[0]} = {grads}[0]" if len(names) == 1 else f"{', '.join(names)} = {grads}"
            tail = [new_statement(unpack), *tail]
            tp.leaf_weights.update(plan.target.leaves)
        bw_line = tp.tree.line_of(bw_stmt)
        for st in [*build, *call]:
            tp.tree.at_line(st, bw_line)
        block = plan.block
        kept_before = self._without_zero_grad(plan)
        new_block = block[:plan.start] + call + plan.moved + tail + block[plan.next_backward:]
        tp.generated.update(id(st) for st in call + tail if st not in block)
        new_block = kept_before + new_block[plan.start:]
        if plan.loop_at is None:
            new_block = new_block[:len(kept_before)] + build + new_block[len(kept_before):]
        body = tp.tree.set_block(self.body, plan.path[:-1], new_block)
        if plan.target.kind == "loop":
            body = self._update_after_loop(plan, body, state)
        return body if plan.loop_at is None else self._before_loop(plan, body, build)

    def _closure_return(self, plan: StepPlan, after: list, grads: str) -> list:
        """An optimizer's closure (``opt.step(closure)``): its ``return loss`` -> ``return loss,
        grads`` (the generated LBFGS takes both)."""
        out, returned = [], False
        for st in after:
            small = st.body[0] if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 else None
            if isinstance(small, cst.Return):
                if small.value is None or code_of(small.value) != plan.loss_name:
                    raise Refuse("MS953", f"the closure of {plan.opt}.step() returns something else than "
                                          f"its loss `{plan.loss_name}`: return the loss by hand")
                new = new_statement(f"return {plan.loss_name}, {grads}")
                self.tp.tree.stands_for(new, st)
                out.append(new)
                returned = True
            else:
                out.append(st)
        if not returned:
            raise Refuse("MS953", f"the closure of {plan.opt}.step() does not end by returning its loss")
        self.tp.record(plan.bw_stmt, f"return {plan.loss_name}, {grads}", TRAINING_STEP.id, "transformed",
                       f"the closure of {plan.opt}.step() returns the loss and its gradients (the "
                       "generated LBFGS re-evaluates both through it)")
        return out

    def _record_kind(self, plan: StepPlan, acc: str | None) -> None:
        """Record what the gradients feed besides a plain step (accumulation, updates, nothing)."""
        tp, kind = self.tp, plan.target.kind
        if plan.accumulate:
            tp.record(plan.block[plan.step_at], f"{acc} = ...", GRAD_ACCUMULATION.id, "transformed",
                      "gradient accumulation: grads summed in a tuple, applied and reset where "
                      "step()/zero_grad() were")
        elif kind in ("loop", "chain") or plan.chain:
            tp.record(plan.bw_stmt, f"{acc} = ...", BACKWARD_CHAIN.id, "transformed",
                      "gradients of several backward() calls summed in a tuple before "
                      f"{plan.opt}'s step" + (" (one per loop iteration)" if kind == "loop" else ""))
        elif kind == "manual":
            tp.record(plan.bw_stmt, "", MANUAL_UPDATE.id, "transformed",
                      f"hand-written update of {plan.target.network}'s parameters: grads of "
                      f"{plan.target.weights}, zipped with them")
        elif kind == "none":
            tp.record(plan.bw_stmt, "", GRADIENT_COMPUTATION.id, "transformed",
                      "backward() with no optimizer: the same gradients from ms.value_and_grad"
                      + (f"; .grad of {', '.join(plan.grad_inputs)} from its input gradients"
                         if plan.grad_inputs else ""))

    def _forward_fn(self, plan: StepPlan, fwd: str, gfn: str, acc: str | None) -> list:
        """``def forward_fn(...)``, ``grad_fn = ms.value_and_grad(...)`` and what they need."""
        tp = self.tp
        ret_loss = f"{plan.scaler}.scale({code_of(plan.loss)})" if plan.scaler else code_of(plan.loss)
        fn_body = [*stop_gradients(tp, plan.segment), new_statement(f"return {', '.join([ret_loss, *plan.aux])}")]
        # no blank line right after `def forward_fn(...):` (comments stay)
        lead = list(fn_body[0].leading_lines)
        while lead and lead[0].comment is None:
            lead.pop(0)
        if len(lead) != len(fn_body[0].leading_lines):
            first = fn_body[0]
            fn_body[0] = first.with_changes(leading_lines=lead)
            tp.tree.stands_for(fn_body[0], first)
        fn = cst.FunctionDef(
            name=cst.Name(fwd),
            params=cst.Parameters([cst.Param(cst.Name(p)) for p in plan.params]),
            body=cst.IndentedBlock(body=fn_body),
            leading_lines=[cst.EmptyLine(indent=False)] if (plan.loop_at is not None or plan.start) else [],
        )
        position = None
        if plan.grad_inputs:
            # one position as an int: MindSpore 2.10 unwraps a one-element grad_position tuple
            # anyway; the int says so (and reads the same on ms_core and MindSpore)
            indices = [str(plan.params.index(x)) for x in plan.grad_inputs]
            position = indices[0] if len(indices) == 1 else "(" + ", ".join(indices) + ")"
        args = [fwd, position or "None"] + ([plan.target.weights] if plan.target.weights else [])
        build = [fn, new_statement(f"{gfn} = ms.value_and_grad({', '.join(args)}"
                                   f"{', has_aux=True' if plan.aux else ''})")]
        if plan.opt and any(dotted(c.func) in tp.bindings.ddp for c in plan.names.calls):
            # data parallel: average the gradients over the devices before the update
            # (ms.nn, not nn: a file's own `nn` is torch.nn until the main walk rewrites it)
            plan.reducer = unique("grad_reducer", self.taken)
            build.append(new_statement(f"{plan.reducer} = ms.nn.DistributedGradReducer({plan.opt}.parameters)"))
        if acc and (plan.accumulate or plan.target.kind == "loop"):
            build.append(new_statement(f"{acc} = None"))
        build[1] = build[1].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        self._note_trained(plan)
        return build

    def _note_trained(self, plan: StepPlan) -> None:
        """The networks this step trains that the file builds and that train in torch's default
        mode (no train() of the file's own, no eval() before the step): the pass sets them to
        training mode where they are built, which is torch's state at construction."""
        tp = self.tp
        through = [plan.block[i] for i in plan.through.values()]
        for c in Names.of([*through, *plan.segment, plan.loss]).calls:
            name = dotted(c.func)
            if name in tp.constructed_names() and tp.starts_in_training(name, plan.bw_stmt):
                tp.trained.setdefault(name, plan.bw_stmt)

    def _replacement(self, plan: StepPlan, gfn: str, grads: str, acc: str | None) -> list:
        """The statements that replace the forward segment and backward()."""
        tp = self.tp
        loss = plan.loss_name
        out = f"({', '.join([loss, *plan.aux])})" if plan.aux else loss

        def summed(left: str, right: str, g: str = "g") -> str:  # two gradient tuples added up
            tuple_, zip_ = tp.converter.builtin("tuple"), tp.converter.builtin("zip")
            return f"{tuple_}(a + {g} for a, {g} in {zip_}({left}, {right}))"
        got = grads
        if plan.grad_inputs:
            names = [f"{x}_grad" for x in plan.grad_inputs]
            inputs = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
            got = f"({inputs}, {grads})" if plan.target.weights else inputs
        # the comments of backward() ("# Backpropagation") stay on its replacement
        call = carry_comments(plan.bw_stmt, [new_statement(f"{out}, {got} = {gfn}({', '.join(plan.params)})")])
        for name in plan.through:
            call.append(new_statement(f"{grads} = {summed(grads, f'{plan.through_vjp[name]}({name}_grad)[1]', 'b')}"))
        if plan.reducer:
            call.append(new_statement(f"{grads} = {plan.reducer}({grads})"))
            tp.record(plan.bw_stmt, call[-1], GRAD_REDUCER.id, "transformed",
                      "data parallel (DDP): gradients averaged across devices by "
                      "nn.DistributedGradReducer before the update (identity with one process)")
        if plan.scaler:
            call.append(new_statement(f"{loss} = {plan.scaler}.unscale({loss})"))
        if acc and plan.chain:
            call.append(new_statement(f"{acc} = {summed(acc, grads)}"))
        elif acc and plan.target.kind == "chain":
            call.append(new_statement(f"{acc} = {grads}"))
        elif acc:
            call.append(new_statement(f"{acc} = {grads} if {acc} is None else {summed(acc, grads)}"))
        if acc and plan.target.kind == "chain":
            tp.open_chains[id(call[-1])] = (acc, plan.opt)  # the next backward() goes on summing
        return call

    def _note_what_it_computes(self, plan: StepPlan) -> None:
        """Tell the main walk what the rewritten step made tensors and networks."""
        tp = self.tp
        tp.converter.output.used.add("ms")
        if plan.opt:
            tp.stepped.add(plan.opt)
        tp.tensor_names.update([plan.loss_name, *plan.aux])
        for c in plan.names.calls:
            name = dotted(c.func) or ""
            if name.count(".") <= 1 and (name.startswith("self.") or "." not in name):
                tp.forward_calls.add(name.split(".")[-1])
        # what the forward pass calls is a network: its train()/eval() become set_train
        # (a plain name called in the forward pass is a network or a loss: what it returns is a
        # tensor for the main walk, e.g. policy(s).max(1) -> ops.max)
        tp.converter.walk_state.module_names.update(n for n in called_names(plan.segment)
                                    if n not in BUILTINS and n not in tp.converter.walk_state.aliases
                                    and not tp.is_class(n))

    def _without_zero_grad(self, plan: StepPlan) -> list:
        """The block before the segment, without the optimizer's zero_grad() (MindSpore needs none)
        and, for a gradient computation, without requires_grad_() on its inputs."""
        kept = []
        through = {i: name for name, i in plan.through.items()}
        for i, st in enumerate(plan.block[:plan.start]):
            if i in through:
                kept.append(self._vjp_statement(plan, st, through[i]))
                continue
            if any(requires_grad_of(st, x) for x in plan.grad_inputs):
                self.tp.record(st, "", GRADIENT_COMPUTATION.id, "exact", "requires_grad_ dropped: "
                               "ms.value_and_grad differentiates forward_fn's inputs", before=code_of(st))
                kept += removed(st)
                continue
            if i in plan.zero_at:
                self.tp.record(st, "", ZERO_GRAD.id, "exact", "zero_grad() removed: value_and_grad returns "
                                                              "fresh gradients on every call")
                kept += removed(st)
                continue
            kept.append(st)
        for i in plan.zero_at:
            if plan.start <= i < plan.k:
                st = plan.block[i]
                self.tp.record(st, "", ZERO_GRAD.id, "exact", "zero_grad() removed: value_and_grad returns "
                                                              "fresh gradients on every call")
                plan.moved = removed(st) + plan.moved
        return kept

    def _vjp_statement(self, plan: StepPlan, st, name: str):
        """``fake = netG(z)`` -> ``fake, fake_vjp = ms.vjp(lambda: netG(z), weights=...)``."""
        a = single_assign(st)
        vjp = plan.through_vjp[name]
        call = parse_expr(f"ms.vjp(lambda: _, weights={plan.target.weights})")
        call = call.with_changes(args=[call.args[0].with_changes(value=call.args[0].value.with_changes(
            body=a.value)), call.args[1]])
        new = st.with_changes(body=[cst.Assign(
            [cst.AssignTarget(parse_expr(f"({name}, {vjp})").with_changes(lpar=[], rpar=[]))], call)])
        self.tp.tree.stands_for(new, st)
        self.tp.record(st, new, VJP_THROUGH.id, "transformed",
                       f"{name} is read by the loss of {plan.opt}'s step after another step: its "
                       f"gradient comes back through {vjp} (computed once, as in torch)")
        return new

    def _update_after_loop(self, plan: StepPlan, body: list, state: UpdateState) -> list:
        """Accumulation over a loop: the step, clipping and zero_grad() after the loop (and a
        zero_grad() before it) work on the summed grads."""
        tp, t = self.tp, plan.target
        prefix = plan.path[:-2]
        parent = block_at(body, prefix)
        end = next((j for j in range(t.outer_at + 1, len(parent))
                    if any(method_call(x, "backward") for x in walk_statements([parent[j]]))), len(parent))
        before = []
        for st in parent[:t.outer_at]:
            if tp.is_zero_grad(st, t.opt):
                new = carry_comments(st, [new_statement(f"{state.grads} = None")])
                tp.record(st, new[0], ZERO_GRAD.id, "exact", "zero_grad() -> the grads sum starts again")
                tp.tree.stands_for(new[0], st)
                st = new[0]
            before.append(st)
        guard = t.step_at - t.outer_at - 1 if t.guarded else None
        tail = UpdateRewrite(tp, state).rewrite(parent[t.outer_at + 1:end], guard)
        tp.generated.update(id(st) for st in tail)
        return tp.tree.set_block(body, prefix, before + [parent[t.outer_at]] + tail + parent[end:])

    def _before_loop(self, plan: StepPlan, body: list, build: list) -> list:
        """The scope with forward_fn/grad_fn placed before the loop at ``plan.loop_at``."""
        anchor = plan.path[:plan.loop_at + 1]
        outer = block_at(body, anchor[:-1])
        i = anchor[-1][0]
        loop = outer[i]
        if not loop.leading_lines:
            loop = loop.with_changes(leading_lines=[cst.EmptyLine(indent=False), *loop.leading_lines])
        else:
            loop = loop.with_changes(leading_lines=loop.leading_lines)
        before = self._bound_first(plan, outer[:i]) if len(anchor) == 1 else outer[:i]
        return self.tp.tree.set_block(body, anchor[:-1], before + build + [loop] + outer[i + 1:])

    def _bound_first(self, plan: StepPlan, before: list) -> list:
        """``before`` (the scope's statements ahead of the loop) with ``name = None`` ahead of the
        ``if`` that binds a forward_fn parameter only under a condition (``if rnn: hidden =
        init_hidden()``): grad_fn's call passes it on every iteration, where torch read it only
        on the branch that needs it (forward_fn still does)."""
        out = list(before)
        for name in plan.params:
            if name in self.tp.scope_params or any(
                    isinstance(st, cst.SimpleStatementLine) and name in Names.of(st).writes for st in out):
                continue
            at_if = next((n for n, st in enumerate(out) if isinstance(st, cst.If)
                          and name in Names.of(st).writes), None)
            if at_if is None:
                continue
            first = out[at_if]
            out[at_if:at_if + 1] = carry_comments(first, [new_statement(f"{name} = None"),
                                                          first.with_changes(leading_lines=[])])
            self.tp.tree.stands_for(out[at_if + 1], first)
            self.tp.record(first, out[at_if], TRAINING_STEP.id, "transformed",
                           f"{name} = None first: grad_fn's call reads it on every iteration, "
                           "forward_fn only where torch did")
        return out


def _weight_roots(weights: str | None) -> set[str]:
    """The names whose parameters ``weights`` lists (``net.trainable_params() + d.trainable_params()``
    -> {net, d}; ``self.net...`` -> {self})."""
    if not weights:
        return set()
    return {part.strip().split(".")[0] for part in weights.split("+") if part.strip()}


def _check_backward_call(tp, recv, bw_call) -> None:
    """Refuse the backward() calls that value_and_grad does not express."""
    if (tp.qual(recv) or "").startswith("torch"):
        raise Refuse("MS953", f"{code_of(bw_call)}: write it as loss.backward() or compute the "
                              "gradients with ms.value_and_grad by hand")
    if bw_call.args:
        kws = {a.keyword.value for a in bw_call.args if a.keyword is not None}
        if kws & {"retain_graph", "create_graph"}:
            raise Refuse("MS952", f"{code_of(bw_call)}: keep the graph by calling grad_fn again "
                                  "or compute the gradients with ms.grad/ms.value_and_grad by hand")
        raise Refuse("MS952", f"{code_of(bw_call)}: an explicit output gradient (or a wrapper's "
                              "backward): compute the gradients with ms.vjp / value_and_grad by hand")


def _differentiable_reads(node) -> list[str]:
    """The names ``node`` reads, except inside ``x.detach()`` (no gradient flows there)."""
    detached = [c for c in Names.of(node).calls
                if isinstance(c.func, cst.Attribute) and c.func.attr.value == "detach" and not c.args]
    return Names.of(node, skip={id(c) for c in detached}).reads


def _only_zero_grads(tp, st, opt: str | None, networks: set) -> bool:
    """``opt.zero_grad()`` / ``net.zero_grad()``, or an ``if`` whose every branch holds only those
    (``if use_opt: opt.zero_grad()`` / ``else: model.zero_grad()``)."""
    if isinstance(st, cst.If):
        branches = [st.body.body]
        orelse = st.orelse
        while orelse is not None:
            branches.append(orelse.body.body)
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        return all(branch and all(_only_zero_grads(tp, x, opt, networks) for x in branch) for branch in branches)
    return tp.is_zero_grad(st, opt) or _zeroes_network(st, networks)


def _zeroes_network(st, networks: set) -> bool:
    """``net.zero_grad(...)`` on a network of the step (called in its block, or updated by hand)."""
    m = method_call(st, "zero_grad")
    return m is not None and dotted(m[0]) in networks


class _GradReads(cst.CSTTransformer):
    """``x.grad`` -> ``x_grad`` for the inputs ``x`` in ``names``."""

    def __init__(self, names: set[str]):
        self.names = names

    def leave_Attribute(self, original, updated):
        if updated.attr.value == "grad" and isinstance(updated.value, cst.Name) and updated.value.value in self.names:
            return cst.Name(f"{updated.value.value}_grad")
        return updated


# --------------------------------------------------------------------------------------------
# a step whose backward() is under a condition
# --------------------------------------------------------------------------------------------
def lift_conditional_backward(tp, body: list, path: list, needed: set[str]):
    """``loss = f(x); if C: loss.backward(); opt.step()`` -> the forward pass in both branches.

    ``if C: loss = f(x); loss.backward(); opt.step()  else: loss = f(x)`` computes the same
    values; the then-branch is a plain training step that the next round rewrites.
    Returns the new scope body, or None when the shape is not this one.
    """
    if not needed or len(path) < 2 or path[-1][0] != 0 or path[-2][1] != "body":
        return None
    parent = block_at(body, path[:-2])
    ip = path[-2][0]
    cond = parent[ip]
    if not isinstance(cond, cst.If) or cond.orelse is not None:
        return None
    start = None
    for i in range(ip - 1, -1, -1):
        n = Names.of(parent[i])
        if set(n.writes) & needed:
            start = i
            needed = needed | set(n.reads)
        if method_call(parent[i], "zero_grad") is not None or id(parent[i]) in tp.generated:
            break
    if start is None:
        return None
    segment = parent[start:ip]
    if Names.of(segment).flow or any(method_call(st, "backward") for st in segment):
        return None
    then = list(cond.body.body)
    new_if = cond.with_changes(
        body=cond.body.with_changes(body=[*segment, *then]),
        orelse=cst.Else(body=cst.IndentedBlock(body=list(segment))))
    tp.record(cond, "", CONDITIONAL_BACKWARD.id, "transformed",
              "backward() under a condition: the forward pass moves into if/else so that "
              "gradients are computed only when the condition holds", before=code_of(cond.test))
    tp.tree.stands_for(new_if, cond)
    return tp.tree.set_block(body, path[:-2], parent[:start] + [new_if] + parent[ip + 1:])


# --------------------------------------------------------------------------------------------
# no_grad inside the forward pass
# --------------------------------------------------------------------------------------------
def stop_gradients(tp, segment: list) -> list:
    """Inside forward_fn, ``with torch.no_grad(): t = f(x)`` -> ``t = f(x); t = ops.stop_gradient(t)``.

    Outside a transform nothing is recorded, so the main walk simply unwraps no_grad blocks;
    inside forward_fn they would be differentiated: what they bind is cut from the graph.
    """
    def block(stmts):
        out, changed = [], False
        for st in stmts:
            new = _stopped(tp, st)
            if new is None:
                out.append(st)
                continue
            out += new
            changed = True
        return out if changed else None

    new = tp.tree.walk_blocks(list(segment), block)
    return segment if new is None else new


def _stopped(tp, st) -> list | None:
    """The statements of a ``with no_grad():`` block with what it binds stopped, or None."""
    if not isinstance(st, cst.With) or not isinstance(st.body, cst.IndentedBlock):
        return None
    kinds = [_grad_mode(tp, it) for it in st.items]
    if "other" in kinds or "off" not in kinds or not tp.converter.allows(NO_GRAD_IN_FORWARD.id):
        return None
    inner = list(st.body.body)
    returns = tp.tree.walk_blocks(inner, _stop_returns)  # `return f(x)` in the block too
    inner = returns if returns is not None else inner
    inner[0] = inner[0].with_changes(leading_lines=[*st.leading_lines, *inner[0].leading_lines])
    names = list(dict.fromkeys(Names.of(inner).writes))
    if not names and returns is None:
        return None  # binds and returns nothing: leave it to the main walk
    tp.converter.output.used.add("ops")
    out = inner + [new_statement(f"{n} = ops.stop_gradient({n})") for n in names]
    tp.record(st, out[-1] if names else "", NO_GRAD_IN_FORWARD.id, "transformed",
              "no_grad inside the forward pass -> ops.stop_gradient on what it binds "
              f"({', '.join(names) or 'its return value'})", before=st.items[0].item)
    return out


def _grad_mode(tp, item) -> str:
    """'off' for no_grad()/inference_mode()/set_grad_enabled(False), or 'other'."""
    e = item.item
    q = tp.qual(e.func) if isinstance(e, cst.Call) else None
    if q in _NO_GRAD_MODES and item.asname is None:
        return "off"
    if q == "torch.set_grad_enabled" and e.args and code_of(e.args[0].value) == "False":
        return "off"
    return "other"


def _stop_returns(stmts: list):
    """``return e`` -> ``return ops.stop_gradient(e)`` (a no_grad block that returns its result)."""
    out, changed = [], False
    for st in stmts:
        if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 \
                and isinstance(st.body[0], cst.Return) and st.body[0].value is not None:
            st = st.with_changes(body=[st.body[0].with_changes(value=cst.Call(
                parse_expr("ops.stop_gradient"), [cst.Arg(st.body[0].value)]))])
            changed = True
        out.append(st)
    return out if changed else None
