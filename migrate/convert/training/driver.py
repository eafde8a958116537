"""The training pass over one file: scopes, one step at a time, then the statements around them.

:func:`training_pass` is what the walker runs before its walk; :class:`TrainingPass` holds what
the pass learns and writes for one file.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import libcst as cst

from migrate.convert.cst import call_of, dotted, method_call, new_statement, short, single_assign
from migrate.convert.training.autograd_grad import AutogradGrad
from migrate.convert.training.bindings import TORCH_OPTIMIZER_API, FileBindings, looks_optimizer
from migrate.convert.training.cleanup import Cleanup, dataset_class
from migrate.convert.training.leaves import LeafParameters, leaf_tensors
from migrate.convert.training.lr_reads import lr_reads
from migrate.convert.training.param_names import param_name_tests
from migrate.convert.training.rules import AUTOGRAD_GRAD, LR_READS, TRAIN_MODE, TRAINING_STEP
from migrate.convert.training.step import BUILTINS, StepRewrite, stop_gradients
from migrate.convert.training.targets import constructed_names, has_steps, switch_statements, switched_names
from migrate.convert.training.tree import (
    Names, Refuse, StatementTree, at, block_at, find_backward, marked_backwards, scope_names, walk_statements,
    with_comment,
)

# A quick textual filter: files without any of these never pay for this pass.
_TRIGGERS = (".backward(", "autocast", "param_groups", "GradScaler", "init_process_group", "DistributedSampler",
             "autograd.grad", "set_epoch", "DataParallel", "Dataset", "zero_grad",
             "DataLoader", "loader)", "loader.dataset)", "random_split", "_dl)", "spawn(",
             "start_processes(", "LOCAL_RANK", "MASTER_PORT")
# Module methods that compute nothing through the parameters (model.training_step(b) does)
_BOOKKEEPING = {"parameters", "named_parameters", "buffers", "named_buffers", "train", "eval", "to",
                "cuda", "cpu", "half", "float", "double", "state_dict", "load_state_dict",
                "zero_grad", "modules", "named_modules", "children", "named_children", "apply",
                "requires_grad_", "register_buffer", "register_forward_hook", "trainable_params",
                "set_train"}


def training_pass(converter, module: cst.Module, code: str) -> cst.Module:
    """Run the training pass before the main walk; on an unexpected failure leave the module to
    the main walk (the failure is reported as MS953 on line 1)."""
    start = converter.checkpoint()
    try:
        return _run(converter, module, code)
    except Exception as exc:  # noqa: BLE001 (a converter bug must not lose the file)
        converter.rollback_to(start, keep_markers=False)
        converter.facts.training_tensors = set()
        converter.record_at(1, "", "", "MS953", "unsupported",
                       f"training pass skipped after an internal error ({type(exc).__name__}: {exc})"[:200])
        return module


def _run(converter, module: cst.Module, code: str) -> cst.Module:
    """Rewrite ``module``'s training code; record the changes on ``converter`` and re-align
    ``converter.facts.stmt_lines`` (the main walk's line numbers) with the rewritten tree."""
    names = "named_parameters" in code or "named_buffers" in code or "parameters():" in code
    if not names and not any(t in code for t in _TRIGGERS):
        return module
    tp = TrainingPass(converter, module.body)
    start = module
    if names:
        body = param_name_tests(tp, list(module.body))
        if body is not None:
            start = module.with_changes(body=body)
    if "param_groups" in code and converter.allows(LR_READS.id):
        body = lr_reads(tp, list(start.body))
        if body is not None:
            start = start.with_changes(body=body)
    if "autograd.grad" in code and converter.allows(AUTOGRAD_GRAD.id):
        body = tp.tree.walk_blocks(list(start.body), AutogradGrad(tp))
        if body is not None:
            start = start.with_changes(body=body)
    if "autocast" in code:
        # first: a backward() inside `with autocast():` then sits in the loop body with its step
        body = tp.tree.walk_blocks(list(start.body), Cleanup(tp, autocast_only=True))
        if body is not None:
            start = start.with_changes(body=body)
    new = tp.run(start)
    if tp.leaf_weights:  # the leaves a step differentiates are made Parameters
        body = tp.tree.walk_blocks(list(new.body), LeafParameters(tp, tp.leaf_weights))
        if body is not None:
            new = new.with_changes(body=body)
    body = tp.tree.walk_blocks(list(new.body), Cleanup(tp))  # rebuilds only what it changes
    if body is not None:
        new = new.with_changes(body=body)
    if not tp.changes:
        return module
    last = 1
    for node, before, after, rule_id, label, note in tp.changes:
        line = tp.tree.line_of(node) or last
        last = line
        converter.record_at(line, short(before) if isinstance(before, str) else before,
                       short(after) if isinstance(after, str) else after, rule_id, label, note)
    # the main walk numbers statements in this order: original ones keep their lines, new
    # ones take the line of the statement they replace (or of the one before them)
    converter.realign_lines(tp.tree.walk_order_lines(new.body))
    return new


@dataclass
class _Saved:
    """What a step rewrite may change before it is refused (restored then)."""

    changes: int
    stepped: set[str]
    tensor_names: set[str]
    module_names: set[str]
    used: set[str]
    open_chains: dict
    trained: dict


class TrainingPass:
    """Rewrite the training steps of one module (create one per file).

    Args:
        converter: the main :class:`~migrate.convert.walker.Converter`, whose import aliases are
            already resolved; the pass notes on it what it learnt (``converter.facts.training``,
            ``converter.facts.training_tensors``) and the target names it uses.
        body: the module's statements as parsed (their lines are the input's).
    """

    def __init__(self, converter, body):
        self.converter = converter
        self.bindings = FileBindings()
        converter.facts.training = self.bindings
        self.tree = StatementTree(body, converter.facts.stmt_lines)
        self.changes: list[tuple] = []      # (node, before, after, rule ID, label, note)
        self.stepped: set[str] = set()      # optimizers whose steps were rewritten
        self.generated: set[int] = set()    # ids of the statements this pass wrote
        self.forward_calls: set[str] = set()  # functions/methods a rewritten forward pass calls
        self.keep: set[int] = set()         # ids of zero_grad()/step() statements of refused steps
        self.skipped: set[int] = set()      # ids of backward() statements of unselected steps
        # names known to hold tensors (batches of a loader, losses, forward outputs): the main
        # pass reads them so that tensor methods on them (x.size(0), out.max(1)) are converted
        self.tensor_names: set[str] = set()
        converter.facts.training_tensors = self.tensor_names
        self.open_chains: dict[int, tuple[str, str]] = {}  # id(acc statement) -> (acc, optimizer)
        self.scope_params: set[str] = set()  # the parameters of the function whose scope is rewritten
        self.scope_function: str | None = None  # the name of that function
        self._closures: dict[str, str] | None = None
        self._body = body
        self._steps: bool | None = None
        self._stdlib: set[str] | None = None
        self._constructed: set[str] | None = None
        self._switched: set[str] | None = None
        self._training: tuple | None = None
        self.trained: dict[str, object] = {}  # networks to set to training mode -> a backward() statement
        self.copied: set[str] = set()  # of those, the networks set so because the file deep-copies them
        self.leaf_weights: set[str] = set()  # tensors trained by hand that a rewritten step differentiates
        self._leaves: set[str] | None = None

    # ---- bookkeeping ---------------------------------------------------------------------
    def function_names(self) -> frozenset:
        """The names the file binds with ``def`` (at any depth)."""
        return frozenset(st.name.value for st in walk_statements(self._body) if isinstance(st, cst.FunctionDef))

    def leaf_tensors(self) -> set[str]:
        """The names the file makes trainable leaves (``w.requires_grad_()``, ``requires_grad=True``)."""
        if self._leaves is None:
            self._leaves = leaf_tensors(self._body)
        return self._leaves

    def qual(self, node) -> str | None:
        """The qualified torch name of a Name/Attribute chain, or None."""
        return self.converter.qual(node)

    def record(self, node, after, rule_id, label, note, before=None) -> None:
        """Record one change at the line of ``node`` (snippets stay nodes until a report reads them)."""
        self.changes.append((node, node if before is None else before, after, rule_id, label, note))

    def _save(self) -> _Saved:
        return _Saved(len(self.changes), set(self.stepped), set(self.tensor_names),
                      set(self.converter.walk_state.module_names), set(self.converter.output.used),
                      dict(self.open_chains), dict(self.trained))

    def _restore(self, saved: _Saved) -> None:
        """Nothing of an abandoned rewrite may remain in the report or the hints."""
        del self.changes[saved.changes:]
        self.stepped = saved.stepped
        self.converter.walk_state.module_names, self.converter.output.used = saved.module_names, saved.used
        self.open_chains, self.trained = saved.open_chains, saved.trained
        self.tensor_names.clear()
        self.tensor_names.update(saved.tensor_names)

    # ---- entry ---------------------------------------------------------------------------
    def run(self, module: cst.Module) -> cst.Module:
        """Return ``module`` with its training steps rewritten (the same object if none)."""
        self.bindings.scan(module.body, self.converter, self.tensor_names)
        body = self._scope(list(module.body))
        new = module if body is None else module.with_changes(body=body)
        if self.stepped:
            self._network_outputs(new.body)
        if self.forward_calls:
            body = self.tree.walk_blocks(list(new.body), self._helpers_block)
            if body is not None:
                new = new.with_changes(body=body)
        if self.stepped:
            self._note_copied()
        if self.trained:
            body = self.tree.walk_blocks(list(new.body), self._train_mode_block)
            if body is not None:
                new = new.with_changes(body=body)
        return new

    def _note_copied(self) -> None:
        """``ema = copy.deepcopy(net)`` of a network the file builds, before any eval() of it: the
        copy keeps the mode ``net`` has then, torch's training mode from construction (a model
        EMA that samples with dropout). ``net`` is set to training mode where it is built, so the
        copy is too (however the file switches ``net`` later)."""
        if self._training is None:
            self._training = switch_statements(self._body)
        to_eval = self._training[1]
        for st in walk_statements(self._body):
            a = single_assign(st) if isinstance(st, cst.SimpleStatementLine) else None
            value = a.value if a is not None else None
            if not (isinstance(value, cst.Call) and len(value.args) == 1
                    and dotted(value.func) in ("copy.deepcopy", "deepcopy")):
                continue
            name = dotted(value.args[0].value)
            line = self.tree.line_of(st) or 0
            if name in self.constructed_names() and name not in self.trained and not any(
                    (self.tree.line_of(e) or 0) < line for e in to_eval.get(name, ())):
                self.trained[name] = st
                self.copied.add(name)

    def _train_mode_block(self, stmts: list):
        """``net = Net()`` -> ``net = Net()`` + ``net.set_train(True)`` for the networks in
        ``self.trained``: torch modules start in training mode, MindSpore Cells in inference mode."""
        out, changed = [], False
        for st in stmts:
            out.append(st)
            a = single_assign(st)
            name = dotted(a.targets[0].target) if a is not None and len(a.targets) == 1 else None
            if name in self.trained and name in constructed_names(self, [st]) and not self._is_torch_loss(a.value):
                new = new_statement(f"{name}.set_train(True)")
                self.tree.stands_for(new, st)
                why = (f"{name} is copied (copy.deepcopy) before any eval(): the copy keeps its mode"
                       if name in self.copied else f"{name} is trained and never put in training mode by the file")
                self.record(st, new, TRAIN_MODE.id, "exact",
                            f"{why}: torch modules start in training mode (dropout, batch statistics), Cells in "
                            "inference mode")
                out.append(new)
                changed = True
        return out if changed else None

    def _is_torch_loss(self, value) -> bool:
        """``nn.CrossEntropyLoss(...)`` (``.to(device)`` too): torch's losses compute the same in
        both modes, so they need no set_train."""
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                and value.func.attr.value in ("to", "cuda", "cpu", "float", "double"):
            value = value.func.value
        q = self.qual(value.func) if isinstance(value, cst.Call) else None
        return q is not None and q.startswith("torch.nn.") and q.endswith("Loss")

    def _helpers_block(self, stmts: list):
        """Functions of this file that a forward pass calls: their no_grad blocks stop gradients
        too (the main walk would unwrap them, and forward_fn would differentiate them)."""
        out, changed = [], False
        for st in stmts:
            if isinstance(st, cst.FunctionDef) and st.name.value in self.forward_calls \
                    and isinstance(st.body, cst.IndentedBlock):
                inner = stop_gradients(self, list(st.body.body))
                if inner is not st.body.body and inner != list(st.body.body):
                    st = self.tree.rebuilt(st, st.with_changes(body=st.body.with_changes(body=inner)))
                    changed = True
            out.append(st)
        return out if changed else None

    def _network_outputs(self, body) -> None:
        """``out = model(x)`` / ``a, b = net(x)`` anywhere in the file: the targets are tensors."""
        nets = self.converter.walk_state.module_names
        for st in walk_statements(body):
            a = single_assign(st)
            if a is not None and isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Name) \
                    and a.value.func.value in nets:
                for t in a.targets:
                    self.tensor_names.update(n for n in Names.bound_by(t) if n != "_")

    # ---- scopes --------------------------------------------------------------------------
    def _scope(self, body: list):
        """Rewrite one scope's statements (module or function body); None when unchanged."""
        changed = False
        taken = None  # names used in this scope, computed when a step is found
        # nested scopes first: functions and classes are their own scopes
        new_body = []
        for st in body:
            new = self._nested(st)
            changed |= new is not st
            new_body.append(new)
        body = new_body
        # the training steps of this scope, one at a time (each rewrite changes the tree)
        # steps refused by an earlier run (their backward() carries our marker) keep theirs
        for path in marked_backwards(body):
            self._keep_around(body, path)
        for _ in range(10_000):  # each round rewrites, lifts or marks one backward()
            path = find_backward(body, self.skipped)
            if path is None:
                break
            if taken is None:
                taken = scope_names(body)
            body, rewritten = self._one_step(body, path, taken)
            changed |= rewritten
        return body if changed else None

    def _one_step(self, body: list, path: list, taken: set[str]) -> tuple[list, bool]:
        """Rewrite, lift or mark the step at ``path``; (new body, whether the body changed)."""
        saved = self._save()
        if not self.converter.allows(TRAINING_STEP.id):
            return self._not_selected(body, path), False
        try:
            new = StepRewrite(self, body, path, taken).run()
            if len(self.open_chains) > len(saved.open_chains):
                new = self._rest_of_chain(new, taken)
        except Refuse as refused:
            rule_id, reason = refused.rule_id, refused.reason
            self._restore(saved)
            st = at(body, path)
            self._keep_around(body, path)
            body = self.tree.replace_at(body, path, lambda s: [with_comment(s, rule_id, reason)])
            self.record(st, "", rule_id, "unsupported", reason)
            return body, True
        if any(not self.converter.allows(c[3]) for c in self.changes[saved.changes:]):
            # a part of the step (clipping, accumulation...) is not selected: leave it whole
            self._restore(saved)
            return self._not_selected(body, path), False
        return new, True

    def _rest_of_chain(self, body: list, taken: set[str]) -> list:
        """The next backward() whose gradients are summed with the one just rewritten, rewritten
        now: when it cannot be, neither can the first (both stay as they were)."""
        while True:
            opened = len(self.open_chains)
            path = find_backward(body, self.skipped)
            if path is None:
                raise Refuse("MS953", "its gradients are summed with a later backward() that was not found")
            try:
                body = StepRewrite(self, body, path, taken).run()
            except Refuse as r:
                raise Refuse(r.rule_id, "its gradients are summed with those of a later backward() that "
                                        f"is not rewritten ({r.reason})") from None
            if len(self.open_chains) == opened:
                return body

    def _not_selected(self, body: list, path: list) -> list:
        """A step left as written because its rules are not selected (no marker)."""
        self.skipped.add(id(at(body, path)))
        self._keep_around(body, path)
        return body

    def _keep_around(self, body: list, path: list) -> None:
        """A step left as it was keeps its zero_grad()/step() calls (here and in enclosing blocks)."""
        for n in range(len(path)):
            for other in block_at(body, path[:n]):
                if method_call(other, "zero_grad") is not None or self.is_step(other):
                    self.keep.add(id(other))
                elif isinstance(other, cst.If) and isinstance(other.body, cst.IndentedBlock):
                    self.keep.update(id(x) for x in other.body.body if self.is_step(x))

    def _nested(self, st):
        if isinstance(st, cst.FunctionDef):
            saved, self.scope_params = self.scope_params, _param_names(st.params)
            saved_fn, self.scope_function = self.scope_function, st.name.value
            try:
                inner = self._scope(list(st.body.body)) if isinstance(st.body, cst.IndentedBlock) else None
            finally:
                self.scope_params, self.scope_function = saved, saved_fn
            if inner is None:
                return st
            return self.tree.rebuilt(st, st.with_changes(body=st.body.with_changes(body=inner)))
        if isinstance(st, cst.ClassDef):
            if st.name.value in self.bindings.optimizer_classes:
                # an optimizer's own step() and the wrapped optimizer's are no training steps
                self.keep.update(id(x) for x in walk_statements([st]))
                return st
            new = dataset_class(self, st)
            if isinstance(new.body, cst.IndentedBlock):
                items, ch = [], False
                for s in new.body.body:
                    n = self._nested(s)
                    ch |= n is not s
                    items.append(n)
                if ch:
                    new = self.tree.rebuilt(st, new.with_changes(body=new.body.with_changes(body=items)))
            return new
        if isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            return self.tree.map_blocks(st, lambda stmts: _seq_or_none(self._nested, stmts))
        return st

    # ---- what the pass recognizes ----------------------------------------------------------
    def has_optimizer_steps(self) -> bool:
        """Whether the file steps an optimizer anywhere (then a backward() without a step of its
        own is not a plain gradient computation)."""
        if self._steps is None:
            self._steps = has_steps(self, self._body)
        return self._steps

    def closure_optimizer(self) -> str | None:
        """The optimizer whose ``step(f)`` the file gives the function being rewritten (an
        LBFGS closure: it re-evaluates the loss and gradients), or None."""
        if self._closures is None:
            self._closures = {}
            for st in walk_statements(self._body):
                if not isinstance(st, cst.SimpleStatementLine):
                    continue
                for c in Names.of(st).calls:
                    closure = _closure_argument(c)
                    name = dotted(c.func.value) if closure else None
                    if name in self.bindings.optimizers or name and looks_optimizer(name):
                        self._closures[closure] = name
        return self._closures.get(self.scope_function) if self.scope_function else None

    def mode_switched(self) -> set[str]:
        """Names the file calls train()/eval()/set_train() on."""
        if self._switched is None:
            self._switched = switched_names(self._body)
        return self._switched

    def starts_in_training(self, name: str, step) -> bool:
        """Whether the network ``name`` is in torch's default training mode at ``step`` (a backward
        statement) as far as the file says: it never puts it in training mode itself, and no eval()
        of it comes before ``step``."""
        if self._training is None:
            self._training = switch_statements(self._body)
        to_train, to_eval = self._training
        line = self.tree.line_of(step)
        return name not in to_train and not any(
            (self.tree.line_of(st) or 0) < (line or 0) for st in to_eval.get(name, ()))

    def constructed_names(self) -> set[str]:
        """Names the file binds to instances of classes (networks, layers, losses...)."""
        if self._constructed is None:
            self._constructed = constructed_names(self, self._body)
        return self._constructed

    def constructs(self, st) -> bool:
        """``x = Net(...)`` / ``x = nn.Linear(...)``: an object is built, no tensor is computed."""
        a = single_assign(st)
        if a is None or not isinstance(a.value, cst.Call):
            return False
        f = a.value.func
        q = self.qual(f)
        if q is not None:
            last = q.rsplit(".", 1)[-1]
            return q.startswith(("torch.nn.", "torch.optim.")) and last[:1].isupper()
        return isinstance(f, cst.Name) and self.is_class(f.value)

    def is_class(self, name: str) -> bool:
        """A class of this file, or a CamelCase name (an imported class; `G(z)` is a network call)."""
        return name in self.bindings.classes or name[:1].isupper() and any(c.islower() for c in name)

    def calls_network(self, st) -> bool:
        """Whether ``st`` calls something that may hold parameters (a network, a plain function)."""
        for c in Names.of(st).calls:
            f = c.func
            if isinstance(f, cst.Name):
                if f.value not in self.converter.walk_state.aliases and f.value not in BUILTINS \
                        and not self.is_class(f.value) and f.value not in self.stdlib_names():
                    return True
            elif isinstance(f, cst.Attribute):
                # self.layer(x) / self.loss_fn(...) / model.forward(x); not model.parameters()
                base = dotted(f.value)
                modules = self.converter.walk_state.module_names
                if base == "self" or base in modules and f.attr.value not in _BOOKKEEPING:
                    return True
                if dotted(f) in self.converter.walk_state.module_names or dotted(f) in self.bindings.wrapped:
                    return True
        return False

    def stdlib_names(self) -> set[str]:
        """Names the file imports from Python's standard library (``deque``, ``namedtuple``,
        ``count``): they hold no parameters, so calling them is not a forward pass."""
        if self._stdlib is None:
            self._stdlib = set()
            for st in walk_statements(self._body):
                for small in (st.body if isinstance(st, cst.SimpleStatementLine) else ()):
                    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative \
                            and (dotted(small.module) or "").split(".")[0] in sys.stdlib_module_names \
                            and not isinstance(small.names, cst.ImportStar):
                        self._stdlib.update((a.asname.name.value if a.asname else dotted(a.name))
                                            for a in small.names)
        return self._stdlib

    def is_zero_grad(self, st, opt: str) -> bool:
        """``opt.zero_grad()`` (or a network's zero_grad()) as a statement."""
        m = method_call(st, "zero_grad")
        return m is not None and (dotted(m[0]) == opt or dotted(m[0]) in self.converter.walk_state.module_names)

    def is_step(self, st):
        """The optimizer name when ``st`` is ``opt.step()``, ``scaler.step(opt)`` or a step method
        of an optimizer class defined here (SAM's ``opt.first_step(zero_grad=True)``)."""
        own = self.own_step(st)
        if own is not None:
            return own[0]
        m = method_call(st, "step")
        if m is None:
            return None
        recv, call = m
        name = dotted(recv)
        if name in self.bindings.scalers and len(call.args) == 1:
            return dotted(call.args[0].value)
        if name in self.bindings.schedulers or call.args:
            return None
        if name in self.bindings.optimizers or name and looks_optimizer(name):
            return name
        return None

    def own_step(self, st):
        """(optimizer, call) when ``st`` calls a method of a name bound to an optimizer class
        defined here that reads the gradients (not torch's API: ``first_step``), else None."""
        call = call_of(st)
        if call is None or not isinstance(call.func, cst.Attribute):
            return None
        name = dotted(call.func.value)
        klass = self.bindings.torch_api_optimizers.get(name)
        method = call.func.attr.value
        if klass is not None:
            return (name, call) if method in self.bindings.optimizer_classes.get(klass, set()) else None
        if name and looks_optimizer(name) and name not in self.bindings.optimizers and not method.startswith("_") \
                and method not in TORCH_OPTIMIZER_API:
            # an optimizer whose class is defined in another file (SAM imported from sam.py) or
            # built by a function: a method besides torch's API is one that reads p.grad
            return name, call
        return None

    def find_step(self, block: list, k: int):
        """(index in ``block``, index inside a guarding ``if`` or None, optimizer) of the first
        optimizer step after ``block[k]``, or None."""
        for j in range(k + 1, len(block)):
            st = block[j]
            opt = self.is_step(st)
            if opt:
                return j, None, opt
            if isinstance(st, cst.If) and isinstance(st.body, cst.IndentedBlock):
                for i, inner in enumerate(st.body.body):
                    opt = self.is_step(inner)
                    if opt:
                        return j, i, opt
        return None


def _closure_argument(call: cst.Call) -> str | None:
    """``f`` when ``call`` is ``x.step(f)`` / ``x.step(closure=f)``, f a name."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "step" and len(call.args) == 1):
        return None
    arg = call.args[0]
    if arg.keyword is not None and arg.keyword.value != "closure" or not isinstance(arg.value, cst.Name):
        return None
    return arg.value.value


def _param_names(params: cst.Parameters) -> set[str]:
    """Every name a function's parameter list binds."""
    out = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            out.add(star.name.value)
    return out


def _seq_or_none(f, stmts):
    new = [f(s) for s in stmts]
    return new if any(a is not b for a, b in zip(new, stmts)) else None
