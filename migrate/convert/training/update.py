"""The statements between ``backward()`` and the next step: gradient clipping, ``unscale_``,
``optimizer.step()``, ``zero_grad()``, ``scaler.update()`` -> operations on the grads tuple.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from migrate.convert.cst import bind_args, call_of, code_of, dotted, left_pass, method_call, new_statement
from migrate.convert.training.rules import (
    CLIP_GRAD_NORM, CLIP_GRAD_VALUE, GRAD_SCALER, GUARDED_STEP, MANUAL_UPDATE, TRAINING_STEP, ZERO_GRAD,
)
from migrate.convert.torch_signature import signatures
from migrate.convert.training.leaves import leaf_update
from migrate.convert.training.manual import manual_update
from migrate.convert.training.tree import Names, Refuse, carry_comments, unique, walk_statements

CLIP_NORM = {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
             "torch.nn.utils.clip_grad.clip_grad_norm_"}
CLIP_VALUE = {"torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_"}


@dataclass
class UpdateState:
    """What the statements after one backward() work on."""

    opt: str | None           # the optimizer of the step (None: hand-written updates or none)
    scaler: str | None        # its GradScaler, if any
    grads: str                # the grads tuple (the accumulated one when accumulating)
    taken: set[str]           # names used in the scope
    unscaled: bool = False    # scaler.unscale_(opt) was seen
    finite: str | None = None  # the name holding all_finite(grads), once computed
    network: str | None = None  # the network whose parameters hand-written updates walk
    manual: set[int] = field(default_factory=set)  # ids of the hand-written update loops
    unscale_flag: str | None = None  # set when scaler.unscale_ ran under a condition
    leaves: list = field(default_factory=list)  # tensors trained by hand: their updates read <leaf>_grad

    @property
    def params(self) -> str:
        """What the grads are the gradients of."""
        return f"{self.opt}.parameters" if self.opt else f"{self.network}.trainable_params()"


class UpdateRewrite:
    """Rewrite the statements after one ``backward()`` (one use per step).

    Args:
        tp: the training pass (records, lines, what the file binds).
        state: the step's optimizer, scaler and grads names.
    """

    def __init__(self, tp, state: UpdateState):
        self.tp = tp
        self.state = state
        self.depth = 0  # how many conditional blocks around the statement being rewritten

    def rewrite(self, stmts: list, guarded_index: int | None = None) -> list:
        """The new statements; the one at ``guarded_index`` is the ``if`` holding the step."""
        tree = self.tp.tree
        out = []
        for n, st in enumerate(stmts):
            if n == guarded_index:
                out.append(self._guarded(st))
                continue
            new = self._one(st)
            if not (len(new) == 1 and new[0] is st):
                # (a step's comment goes onto the update itself, the last statement)
                new = carry_comments(st, new, last=self.tp.is_step(st) is not None)
            for n_st in new:
                if n_st is not st:
                    tree.stands_for(n_st, st)
            out.extend(new)
        return out

    def _guarded(self, st: cst.If):
        """``if cond: optimizer.step()`` -> ``if cond: optimizer(grads)`` (MS207)."""
        self.tp.record(st, code_of(st.test), GUARDED_STEP.id, "transformed",
                       "guarded step(): the update is applied only when the condition holds",
                       before=code_of(st.test))
        inner = self.rewrite(list(st.body.body)) or [left_pass()]
        new_if = st.with_changes(body=st.body.with_changes(body=inner))
        if isinstance(st.orelse, cst.Else) and any(id(x) in self.state.manual for x in st.orelse.body.body):
            # the other branch updates the parameters by hand with the same gradients
            other = self.rewrite(list(st.orelse.body.body)) or [left_pass()]
            new_if = new_if.with_changes(orelse=st.orelse.with_changes(body=st.orelse.body.with_changes(body=other)))
        self.tp.tree.stands_for(new_if, st)
        return new_if

    def _conditional(self, st: cst.If) -> list:
        """``if grad_clip: scaler.unscale_(opt); clip_grad_norm_(...)``: the blocks rewritten;
        an unscale_ under a condition is remembered in a flag that the step reads."""
        had = self.state.unscale_flag
        self.depth += 1
        try:
            new = self.tp.tree.map_blocks(st, self.rewrite)
        finally:
            self.depth -= 1
        flag = self.state.unscale_flag
        if flag and flag != had:  # (the comments above the `if` go above the flag)
            return [new_statement(f"{flag} = False"), self.tp.tree.rebuilt(st, new.with_changes(leading_lines=[]))]
        return [new]

    def _updates_in(self, st) -> bool:
        """Whether a compound statement holds update statements (zero_grad, unscale_, clipping)."""
        s = self.state
        for x in walk_statements([st]):
            if x is st or not isinstance(x, cst.SimpleStatementLine):
                continue
            m = method_call(x, "unscale_")
            if m is not None and dotted(m[0]) == s.scaler or s.opt and self.tp.is_zero_grad(x, s.opt):
                return True
            # a clipping, its result used or not (`norm = clip_grad_norm_(...)`)
            if any(self.tp.qual(c.func) in CLIP_NORM | CLIP_VALUE for c in Names.of(x).calls):
                return True
        return False

    def _one(self, st) -> list:
        """The statements that replace ``st`` (``[st]`` when it is not an update statement)."""
        tp, s = self.tp, self.state
        if isinstance(st, cst.If) and self._updates_in(st):
            return self._conditional(st)
        if id(st) in s.manual:
            return manual_update(tp, st, s.grads, s.taken)
        if s.leaves:
            new = leaf_update(tp, st, s.leaves, [f"{leaf}_grad" for leaf in s.leaves])
            if new is not None:
                tp.record(st, new[0] if new else "", MANUAL_UPDATE.id, "transformed",
                          f"hand-written updates of {', '.join(s.leaves)}: .grad -> the grads of "
                          "value_and_grad; in-place updates -> set_data(...); clearing a gradient removed")
                return new
        zero = method_call(st, "zero_grad")
        if s.opt and tp.is_zero_grad(st, s.opt) or zero is not None and dotted(zero[0]) == s.network:
            tp.record(st, "", ZERO_GRAD.id, "exact", "zero_grad() removed: value_and_grad returns "
                                                     "fresh gradients on every call")
            if s.grads != "grads":  # accumulation: the sum starts again
                return [new_statement(f"{s.grads} = None")]
            return []
        call = call_of(st)
        q = tp.qual(call.func) if call is not None else None
        if q in CLIP_NORM:
            return [self._clip_norm(st, call)]
        if q in CLIP_VALUE:
            return [self._clip_value(st, call)]
        if q is not None and (q in CLIP_NORM | CLIP_VALUE or q.startswith("torch.nn.utils.clip")):
            raise Refuse("MS953", f"{code_of(call)}: clipping result used; clip the grads tuple by hand")
        m = method_call(st, "unscale_")
        if m is not None and dotted(m[0]) == s.scaler:
            new = [new_statement(f"{s.grads} = {s.scaler}.unscale({s.grads})")]
            if self.depth:
                s.unscale_flag = s.unscale_flag or unique("grads_unscaled", s.taken)
                new.append(new_statement(f"{s.unscale_flag} = True"))
            else:
                s.unscaled = True
            tp.record(st, new[0], GRAD_SCALER.id, "exact", "unscale the gradients, not the optimizer")
            return new
        step_opt = tp.is_step(st)
        if step_opt is not None and s.opt is not None:
            return self._step(st, step_opt)
        m = method_call(st, "update")
        if m is not None and s.scaler and dotted(m[0]) == s.scaler:
            new = new_statement(f"{s.scaler}.adjust({s.finite or f'ms.amp.all_finite({s.grads})'})")
            tp.record(st, new, GRAD_SCALER.id, "approximate",
                      "scaler.update() -> adjust(finite): one scale_factor for growth and backoff, "
                      "scale never below 1")
            return [new]
        if isinstance(st, cst.SimpleStatementLine):
            for c in Names.of(st).calls:
                if tp.qual(c.func) in CLIP_NORM:
                    return self._clip_norm_used(st, c)
                if tp.qual(c.func) in CLIP_VALUE:
                    raise Refuse("MS953", f"{code_of(c)}: clipping result used; clip the grads "
                                          "tuple with ops.clip_by_value by hand")
        return [st]

    def _clip_norm_used(self, st, call: cst.Call) -> list:
        """``norm = clip_grad_norm_(params, max_norm)`` (the total norm logged, printed, checked):
        ``grads, norm = torch_clip_grad_norm(grads, max_norm)``, torch's formula returning the
        clipped grads and the norm; where the call sits inside a larger expression, the norm gets
        a name of its own first and the expression reads it."""
        s, tp = self.state, self.tp
        args = bind_args(call, ["parameters", "max_norm", "norm_type", "error_if_nonfinite", "foreach"])
        if args is None or "max_norm" not in args or "error_if_nonfinite" in args \
                and code_of(args["error_if_nonfinite"]) != "False":
            raise Refuse("MS953", f"{code_of(call)}: arguments not understood; clip the grads tuple by hand")
        small = st.body[0] if len(st.body) == 1 else None
        whole = isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1 \
            and isinstance(small.targets[0].target, cst.Name)
        norm = small.targets[0].target.value if whole else unique("grad_norm", s.taken)
        helper = signatures(tp.converter).helper("torch_clip_grad_norm")
        extra = "" if "norm_type" not in args else f", {code_of(args['norm_type'])}"
        clip = new_statement(f"{s.grads}, {norm} = {helper}({s.grads}, {code_of(args['max_norm'])}{extra})")
        tp.record(st, clip, CLIP_GRAD_NORM.id, "exact",
                  f"clips the grads of {s.params} (the {code_of(args['parameters'])} given to the optimizer) "
                  "by torch's formula and returns the total norm it used")
        if whole:
            return [clip]
        return [clip, st.visit(_Replace(call, cst.Name(norm)))]

    def _clip_norm(self, st, call: cst.Call):
        s = self.state
        args = bind_args(call, ["parameters", "max_norm", "norm_type", "error_if_nonfinite", "foreach"])
        if args is None or "max_norm" not in args:
            raise Refuse("MS953", f"{code_of(call)}: arguments not understood")
        nt = args.get("norm_type")
        if nt is not None and code_of(nt) not in ("2", "2.0"):
            raise Refuse("MS953", f"{code_of(call)}: only the L2 norm maps to ops.clip_by_global_norm")
        self.tp.converter.output.used.add("ops")
        new = new_statement(f"{s.grads} = ops.clip_by_global_norm({s.grads}, {code_of(args['max_norm'])})")
        self.tp.record(st, new, CLIP_GRAD_NORM.id, "approximate",
                       f"clips the grads of {s.params} "
                       f"(the {code_of(args['parameters'])} given to the optimizer); torch scales by "
                       "max_norm/(norm+1e-6), MindSpore by max_norm/max(norm, max_norm)")
        return new

    def _clip_value(self, st, call: cst.Call):
        s = self.state
        args = bind_args(call, ["parameters", "clip_value", "foreach"])
        if args is None or "clip_value" not in args:
            raise Refuse("MS953", f"{code_of(call)}: arguments not understood")
        self.tp.converter.output.used.add("ops")
        v = code_of(args["clip_value"])
        v = v if isinstance(args["clip_value"], (cst.Name, cst.Integer, cst.Float, cst.Attribute)) else f"({v})"
        new = new_statement(f"{s.grads} = ops.clip_by_value({s.grads}, -{v}, {v})")
        self.tp.record(st, new, CLIP_GRAD_VALUE.id, "exact", f"clips the grads of {s.params}")
        return new

    def _step(self, st, step_opt: str) -> list:
        """``optimizer.step()`` -> ``optimizer(grads)``; ``scaler.step(optimizer)`` -> an update
        only when the unscaled grads are finite."""
        tp, s = self.tp, self.state
        if step_opt != s.opt:
            raise Refuse("MS953", f"backward() is followed by the step of another optimizer "
                                  f"({step_opt}): write its value_and_grad by hand")
        own = tp.own_step(st)
        if own is not None:
            # a step method of an optimizer written against torch's API: it reads p.grad
            new = [new_statement(f"{s.opt}.set_grads({s.grads})"), st]
            tp.record(st, new[0], TRAINING_STEP.id, "exact",
                      f"{code_of(own[1]).strip()} reads p.grad: set from the grads tuple first")
            return new
        m = method_call(st, "step")
        if s.scaler and dotted(m[0]) == s.scaler:
            new = []
            if not s.unscaled and s.unscale_flag:
                new.append(new_statement(f"if not {s.unscale_flag}:\n    {s.grads} = {s.scaler}.unscale({s.grads})"))
            elif not s.unscaled:
                new.append(new_statement(f"{s.grads} = {s.scaler}.unscale({s.grads})"))
            s.finite = unique("grads_finite", s.taken)
            new.append(new_statement(f"{s.finite} = ms.amp.all_finite({s.grads})"))
            new.append(new_statement(f"if {s.finite}:\n    {s.opt}({s.grads})"))
            tp.record(st, new[-1], GRAD_SCALER.id, "approximate",
                      "scaler.step -> update only when the unscaled grads are finite "
                      "(ms.amp.all_finite)")
            return new
        new = new_statement(f"{s.opt}({s.grads})")
        tp.record(st, new, TRAINING_STEP.id, "exact", "optimizer.step() -> optimizer(grads)")
        return [new]


class _Replace(cst.CSTTransformer):
    """One node of a statement replaced (by identity)."""

    def __init__(self, old, new):
        self.old, self.new = old, new

    def leave_Call(self, original, updated):
        return self.new if original is self.old else updated
