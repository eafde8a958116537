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

from migrate.convert.cst import code_of, dotted, method_call, new_statement, parse_expr, removed, short
from migrate.convert.training.rules import (
    CONDITIONAL_BACKWARD, GRAD_ACCUMULATION, GRAD_REDUCER, NO_GRAD_IN_FORWARD, TRAINING_STEP, ZERO_GRAD,
)
from migrate.convert.training.tree import (
    Names, Refuse, at, block_at, called_names, carry_comments, free_reads, reads_grad, unique,
)
from migrate.convert.training.update import UpdateRewrite, UpdateState

BUILTINS = set(dir(builtins))
_NO_GRAD_MODES = ("torch.no_grad", "torch.autograd.no_grad", "torch.inference_mode")


@dataclass
class StepPlan:
    """Where the parts of one training step are, and the names its rewrite writes."""

    path: list                   # to the backward() statement, from the scope's body
    block: list                  # the statements of the block that holds backward()
    k: int                       # block[k] is the backward() statement
    backward: cst.Call
    loss: cst.BaseExpression     # what backward() is called on (inside scaler.scale(...))
    loss_name: str               # the name the loss is bound to (a new one for an expression)
    scaler: str | None           # the GradScaler, for scaler.scale(loss).backward()
    step_at: int                 # block[step_at] is the step, or the `if` that guards it
    guarded: bool
    opt: str                     # the optimizer that steps
    next_backward: int           # index of the next backward() in the block (or its end)
    zero_at: list[int]           # indices of this optimizer's zero_grad() calls in the block
    accumulate: bool             # a guarded step with no zero_grad() in the block
    start: int = 0               # the forward segment is block[start:k] minus zero_grad()
    segment: list = field(default_factory=list)
    names: Names | None = None   # what the segment reads, binds and calls
    loop_at: int | None = None   # forward_fn goes before the loop at path[:loop_at + 1]
    params: list[str] = field(default_factory=list)  # forward_fn's parameters
    aux: list[str] = field(default_factory=list)     # its outputs besides the loss
    reducer: str | None = None   # the DistributedGradReducer of a data-parallel step

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
        """Find the backward() call, its loss and the optimizer step it pairs with."""
        tp, path = self.tp, self.path
        block = block_at(self.body, path[:-1])
        k = path[-1][0]
        recv, bw_call = method_call(block[k], "backward")
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
        # the loss: loss.backward(), scaler.scale(loss).backward(), (a + b).backward()
        scaler, loss = None, recv
        if isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) \
                and recv.func.attr.value == "scale" and dotted(recv.func.value) in tp.bindings.scalers \
                and len(recv.args) == 1:
            scaler = dotted(recv.func.value)
            loss = recv.args[0].value
        loss_name = loss.value if isinstance(loss, cst.Name) else unique("loss", self.taken)
        next_backward = next((i for i in range(k + 1, len(block)) if method_call(block[i], "backward")),
                             len(block))
        if reads_grad(block[k + 1:next_backward]):
            raise Refuse("MS951", "parameter .grad is read or changed after backward(): use the grads "
                                  "tuple returned by grad_fn (aligned with optimizer.parameters) instead")
        # the optimizer step after backward: in this block, or in an `if` right in it
        step = tp.find_step(block, k)
        if step is None:
            raise Refuse("MS953", "no optimizer.step() follows backward() in the same block: "
                                  "compute grads with ms.value_and_grad and apply optimizer(grads)")
        j, inner, opt = step
        # several steps in one block (a GAN): each pairs its backward() with its own step()
        if j >= next_backward:
            raise Refuse("MS953", "another backward() comes before this loss's step(): accumulate "
                                  "the grads of both value_and_grad calls by hand")
        zero_at = [i for i, st in enumerate(block) if tp.is_zero_grad(st, opt)]
        return StepPlan(path, block, k, bw_call, loss, loss_name, scaler, j, inner is not None, opt,
                        next_backward, zero_at, accumulate=inner is not None and not zero_at)

    # ---- 3: the forward segment ---------------------------------------------------------
    def _backward_slice(self, plan: StepPlan) -> tuple[int | None, set[str]]:
        """(index of the first statement of the block the loss depends on, or None; the names
        the loss needs that the block does not compute)."""
        tp, block = self.tp, plan.block
        # zero_grad() does not cut the graph (output = model(x); optimizer.zero_grad();
        # loss.backward() is fine): only an earlier step in this block bounds the forward pass
        lower = max([i + 1 for i, st in enumerate(block[:plan.k]) if id(st) in tp.generated], default=0)
        needed = {plan.loss_name} if isinstance(plan.loss, cst.Name) else set(Names.of(plan.loss).reads)
        start = None
        for i in range(plan.k - 1, -1, -1):
            n = Names.of(block[i])
            hit = set(n.writes) & needed
            if hit and i < lower:
                self._before_previous_step(block[i], hit)
                needed -= hit  # data or objects prepared before the previous step: closures
                continue
            if hit:
                start = i
                needed |= set(n.reads)
        return start, needed

    def _before_previous_step(self, st, hit: set[str]) -> None:
        """The loss reads ``hit``, bound by ``st`` before the previous step of the block."""
        tp = self.tp
        if id(st) in tp.generated:
            raise Refuse("MS953", f"the loss depends on {', '.join(sorted(hit))}, computed by "
                                  "an earlier forward_fn: recompute it inside this step's "
                                  "forward pass (e.g. G(z) again, not its detached copy)")
        if not tp.constructs(st) and tp.calls_network(st):
            raise Refuse("MS953", f"the loss depends on {', '.join(sorted(hit))}, computed "
                                  f"before the previous optimizer step: repeat "
                                  f"`{short(code_of(st).strip(), 60)}` in this step's "
                                  "forward pass")

    def _take_segment(self, plan: StepPlan) -> None:
        """Cut the data preparation off the slice's head and check what remains."""
        tp, block = self.tp, plan.block
        # data preparation at the head of the slice (batch = next(it), x = batch["x"]) stays
        # outside: the forward pass starts at the first statement that calls a network or reads
        # what one produced
        produced: set[str] = set()
        first = None
        for i in range(plan.start, plan.k):
            n = Names.of(block[i])
            if first is None and not (tp.calls_network(block[i]) or set(n.reads) & produced
                                      or plan.loss_name in n.writes):
                continue
            first = i if first is None else first
            produced |= set(n.writes)
        plan.start = first if first is not None else plan.start
        plan.segment = [st for i, st in enumerate(block[plan.start:plan.k], plan.start) if i not in plan.zero_at]
        plan.names = Names.of(plan.segment)
        self._check_segment(plan)

    def _check_segment(self, plan: StepPlan) -> None:
        """Refuse a forward segment that cannot move into a function of its own."""
        tp, names = self.tp, plan.names
        if names.flow:
            raise Refuse("MS953", "return/break/continue/yield between the forward pass and "
                                  "backward(): restructure the step by hand")
        if not any(tp.calls_network(st) for st in plan.segment):
            raise Refuse("MS953", f"the loss `{code_of(plan.loss)}` is built from tensors computed "
                                  "before this block (no network is called between zero_grad() and "
                                  "backward()): compute them inside the forward pass by hand")
        if plan.opt.split(".")[0] in names.writes:
            raise Refuse("MS953", f"{plan.opt} is created inside the forward pass: create it before "
                                  "the training step")
        for c in names.calls:
            if tp.qual(c.func) == "torch.set_grad_enabled" and not (
                    c.args and code_of(c.args[0].value) in ("True", "False")):
                raise Refuse("MS953", f"{code_of(c)} inside the forward pass: split the step by "
                                      "the condition by hand")
            if tp.qual(c.func) in ("torch.autograd.grad",):
                raise Refuse("MS954", "torch.autograd.grad inside the forward pass: build it with "
                                      "nested ms.grad by hand")
        if reads_grad(plan.segment) or reads_grad(plan.after):
            raise Refuse("MS951", "parameter .grad is read or changed around backward()/step(): "
                                  "use the grads tuple returned by grad_fn (aligned with "
                                  "optimizer.parameters) instead")

    # ---- 4: where forward_fn goes, its parameters and outputs -------------------------
    def _place(self, plan: StepPlan) -> None:
        """Choose where forward_fn goes, its parameters and its auxiliary outputs."""
        body, path = self.body, self.path
        # before the outermost loop around the step (built once); grad_fn reads
        # optimizer.parameters when it is built: not before a loop that creates the optimizer
        # (one model and optimizer per fold, say); a deeper loop then
        opt_root = plan.opt.split(".")[0]
        plan.loop_at = next((n for n in range(len(path) - 1)
                             if isinstance(at(body, path[:n + 1]), (cst.For, cst.While))
                             and (opt_root == "self" or opt_root not in Names.of(at(body, path[:n + 1])).writes)),
                            None)
        if plan.accumulate and plan.loop_at is None:
            raise Refuse("MS953", "gradient accumulation across calls of a function: keep the "
                                  "accumulated grads in a variable that outlives the call by hand")
        loop = at(body, path[:plan.loop_at + 1]) if plan.loop_at is not None else None
        loop_bound = set(Names.of(loop).writes) if loop is not None else set()
        written = list(dict.fromkeys(plan.names.writes))
        plan.params = [n for n in free_reads(plan.segment) if n in loop_bound or n in written]
        # what runs after the step reads: the rest of each enclosing block (names it rebinds
        # first do not count), and anything inside a loop around the step (the next iteration)
        after = list(plan.block[plan.k + 1:])
        for n in range(len(path) - 1, 0, -1):
            after += block_at(body, path[:n - 1])[path[n - 1][0] + 1:]
        later = set(free_reads(after))
        seg_ids = {id(st) for st in plan.segment}  # (incl. the else-branch copy of a lifted pass)
        if loop is not None:
            later |= set(Names.of(loop, skip=seg_ids).reads)
        plan.aux = [n for n in written if n != plan.loss_name and n in later]

    # ---- 5: the new statements ----------------------------------------------------------
    def _write(self, plan: StepPlan) -> list:
        """The scope with the step rewritten as the plan says."""
        tp, taken = self.tp, self.taken
        fwd = unique("forward_fn", taken)
        gfn = unique("grad_fn", taken)
        grads = unique("grads", taken) if "grads" in taken else "grads"
        taken.add(grads)
        acc = unique("accum_grads", taken) if plan.accumulate else None
        build = self._forward_fn(plan, fwd, gfn, acc)
        call = self._replacement(plan, gfn, grads, acc)
        self._note_what_it_computes(plan)
        bw_stmt = plan.bw_stmt
        tp.record(bw_stmt, call[0], TRAINING_STEP.id, "transformed",
                  f"{code_of(plan.backward)}: tape autodiff -> {fwd} + ms.value_and_grad (built once) "
                  f"+ {plan.opt}(grads)" + (f"; returns {', '.join(plan.aux)} for the code after it" if plan.aux else ""))
        if plan.accumulate:
            tp.record(plan.block[plan.step_at], f"{acc} = ...", GRAD_ACCUMULATION.id, "transformed",
                      "gradient accumulation: grads summed in a tuple, applied and reset where "
                      "step()/zero_grad() were")
        state = UpdateState(plan.opt, plan.scaler, acc or grads, taken)
        tail = UpdateRewrite(tp, state).rewrite(plan.after, plan.step_at - plan.k - 1 if plan.guarded else None)
        bw_line = tp.tree.line_of(bw_stmt)
        for st in [*build, *call]:
            tp.tree.at_line(st, bw_line)
        block = plan.block
        new_block = block[:plan.start] + call + tail + block[plan.next_backward:]
        tp.generated.update(id(st) for st in call + tail if st not in block)
        kept_before = self._without_zero_grad(plan)
        return self._splice(plan, kept_before + new_block[plan.start:], build, len(kept_before))

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
        build = [fn, new_statement(f"{gfn} = ms.value_and_grad({fwd}, None, {plan.opt}.parameters"
                                   f"{', has_aux=True' if plan.aux else ''})")]
        if any(dotted(c.func) in tp.bindings.ddp for c in plan.names.calls):
            # data parallel: average the gradients over the devices before the update
            # (ms.nn, not nn: a file's own `nn` is torch.nn until the main walk rewrites it)
            plan.reducer = unique("grad_reducer", self.taken)
            build.append(new_statement(f"{plan.reducer} = ms.nn.DistributedGradReducer({plan.opt}.parameters)"))
        if acc:
            build.append(new_statement(f"{acc} = None"))
        build[1] = build[1].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        return build

    def _replacement(self, plan: StepPlan, gfn: str, grads: str, acc: str | None) -> list:
        """The statements that replace the forward segment and backward()."""
        tp = self.tp
        loss = plan.loss_name
        out = f"({', '.join([loss, *plan.aux])})" if plan.aux else loss
        # the comments of backward() ("# Backpropagation") stay on its replacement
        call = carry_comments(plan.bw_stmt, [new_statement(f"{out}, {grads} = {gfn}({', '.join(plan.params)})")])
        if plan.reducer:
            call.append(new_statement(f"{grads} = {plan.reducer}({grads})"))
            tp.record(plan.bw_stmt, call[-1], GRAD_REDUCER.id, "transformed",
                      "data parallel (DDP): gradients averaged across devices by "
                      "nn.DistributedGradReducer before the update (identity with one process)")
        if plan.scaler:
            call.append(new_statement(f"{loss} = {plan.scaler}.unscale({loss})"))
        if acc:
            call.append(new_statement(f"{acc} = {grads} if {acc} is None else "
                                      f"tuple(a + g for a, g in zip({acc}, {grads}))"))
        return call

    def _note_what_it_computes(self, plan: StepPlan) -> None:
        """Tell the main walk what the rewritten step made tensors and networks."""
        tp = self.tp
        tp.conv.used.add("ms")
        tp.stepped.add(plan.opt)
        tp.tensor_names.update([plan.loss_name, *plan.aux])
        for c in plan.names.calls:
            name = dotted(c.func) or ""
            if name.count(".") <= 1 and (name.startswith("self.") or "." not in name):
                tp.forward_calls.add(name.split(".")[-1])
        # what the forward pass calls is a network: its train()/eval() become set_train
        # (a plain name called in the forward pass is a network or a loss: what it returns is a
        # tensor for the main walk, e.g. policy(s).max(1) -> ops.max)
        tp.conv.module_names.update(n for n in called_names(plan.segment)
                                    if n not in BUILTINS and n not in tp.conv.aliases
                                    and not tp.is_class(n))

    def _without_zero_grad(self, plan: StepPlan) -> list:
        """The block before the segment, without the optimizer's zero_grad() (MindSpore needs none)."""
        kept = []
        for i, st in enumerate(plan.block[:plan.start]):
            if i in plan.zero_at:
                self.tp.record(st, "", ZERO_GRAD.id, "exact", "zero_grad() removed: value_and_grad returns "
                                                              "fresh gradients on every call")
                kept += removed(st)
                continue
            kept.append(st)
        return kept

    def _splice(self, plan: StepPlan, new_block: list, build: list, build_at: int) -> list:
        """The scope with the step's block replaced and forward_fn/grad_fn placed."""
        tree = self.tp.tree
        if plan.loop_at is None:
            new_block = new_block[:build_at] + build + new_block[build_at:]
            return tree.set_block(self.body, plan.path[:-1], new_block)
        body = tree.set_block(self.body, plan.path[:-1], new_block)
        anchor = plan.path[:plan.loop_at + 1]
        outer = block_at(body, anchor[:-1])
        i = anchor[-1][0]
        loop = outer[i]
        if not loop.leading_lines:
            loop = loop.with_changes(leading_lines=[cst.EmptyLine(indent=False), *loop.leading_lines])
        else:
            loop = loop.with_changes(leading_lines=loop.leading_lines)
        return tree.set_block(body, anchor[:-1], outer[:i] + build + [loop] + outer[i + 1:])


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
    if "other" in kinds or "off" not in kinds or not tp.conv.allows(NO_GRAD_IN_FORWARD.id):
        return None
    inner = list(st.body.body)
    returns = tp.tree.walk_blocks(inner, _stop_returns)  # `return f(x)` in the block too
    inner = returns if returns is not None else inner
    inner[0] = inner[0].with_changes(leading_lines=[*st.leading_lines, *inner[0].leading_lines])
    names = list(dict.fromkeys(Names.of(inner).writes))
    if not names and returns is None:
        return None  # binds and returns nothing: leave it to the main walk
    tp.conv.used.add("ops")
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
