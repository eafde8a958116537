"""Training-script rewrites: a statement-level pass that runs before the main converter.

PyTorch trains with a tape (``optimizer.zero_grad(); loss = ...; loss.backward();
optimizer.step()``); MindSpore with a function transform. This pass turns each training step it
can prove safe into MindSpore's functional form::

    def forward_fn(inputs, targets):          # defined once, before the outermost loop
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        return loss, outputs                  # the loss, then what the rest of the loop reads

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    for inputs, targets in loader:
        (loss, outputs), grads = grad_fn(inputs, targets)
        optimizer(grads)

and leaves the statements inside (model calls, losses, tensor methods) to the main converter.
Variants: gradient clipping, accumulation, a guarded ``step()``, GradScaler + autocast, a
training step inside a function. A step it cannot prove safe (``.grad`` read, ``retain_graph``,
several backward calls, ...) stays as it was under a ``# migrate: MS95x`` marker that says what
to do by hand. Rule IDs: ``MS2xx`` rewrites, ``MS95x`` markers.
"""
from __future__ import annotations

import difflib

import libcst as cst

from migrate.changes import MARKER_PREFIX, Change
from migrate.convert import code_of, dotted, parse_expr
from migrate.rules import MARKERS, rule

# Markers of this pass (the main registry shows them in `migrate mappings` and reports).
MARKERS.update({
    "MS951": "gradients read or changed between backward() and step(): not rewritten",
    "MS952": "backward() with retain_graph/create_graph/gradient arguments: not rewritten",
    "MS953": "training step whose structure the rules cannot follow: not rewritten",
    "MS954": "higher-order torch.autograd.grad: rewrite with nested ms.grad by hand",
})

# A quick textual filter: files without any of these never pay for this pass.
_TRIGGERS = ("backward", "autocast", "GradScaler", "init_process_group", "DistributedSampler",
             "autograd.grad", "set_epoch", "DistributedDataParallel", "TensorDataset")
_AUTOCAST = {"torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast",
             "torch.cpu.amp.autocast", "torch.amp.autocast_mode.autocast"}
_SCALERS = {"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.cpu.amp.GradScaler"}
_CLIP_NORM = {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
              "torch.nn.utils.clip_grad.clip_grad_norm_"}
_CLIP_VALUE = {"torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_"}
_FLOW = (cst.Return, cst.Break, cst.Continue, cst.Global, cst.Nonlocal)


# --------------------------------------------------------------------------------------------
# small helpers: statements, names read and written
# --------------------------------------------------------------------------------------------
def _call_of(stmt) -> cst.Call | None:
    """The call of an expression statement ``f(...)`` (one small statement on its line)."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            return small.value
    return None


def _method_call(stmt, name: str):
    """``recv.name(...)`` as a statement -> (recv, call), else None."""
    call = _call_of(stmt)
    if call is not None and isinstance(call.func, cst.Attribute) and call.func.attr.value == name:
        return call.func.value, call
    return None


class _Names(cst.CSTVisitor):
    """Names a piece of code reads and binds (comprehension/lambda variables excluded)."""

    def __init__(self):
        self.reads: list[str] = []
        self.writes: list[str] = []
        self.local: set[str] = set()
        self.attrs: list[cst.Attribute] = []
        self.calls: list[cst.Call] = []
        self.flow = False

    def _bind(self, target) -> None:
        if isinstance(target, cst.Name):
            self.writes.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._bind(e.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)
        else:
            target.visit(self)  # x.a = ..., x[i] = ...: x is read

    def visit_Assign(self, node):
        node.value.visit(self)
        for t in node.targets:
            self._bind(t.target)
        return False

    def visit_AnnAssign(self, node):
        if node.value is not None:
            node.value.visit(self)
        self._bind(node.target)
        return False

    def visit_AugAssign(self, node):
        node.value.visit(self)
        node.target.visit(self)
        self._bind(node.target)
        return False

    def visit_For(self, node):
        node.iter.visit(self)
        self._bind(node.target)
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_WithItem(self, node):
        node.item.visit(self)
        if node.asname is not None:
            self._bind(node.asname.name)
        return False

    def visit_NamedExpr(self, node):
        node.value.visit(self)
        self._bind(node.target)
        return False

    def visit_FunctionDef(self, node):
        self.writes.append(node.name.value)
        return False  # its body is its own scope

    def visit_ClassDef(self, node):
        self.writes.append(node.name.value)
        return False

    def visit_CompFor(self, node):
        for n in _Names.of(node.target).writes + _Names.of(node.target).reads:
            self.local.add(n)
        return True

    def visit_Lambda(self, node):
        for p in node.params.params:
            self.local.add(p.name.value)
        return True

    def visit_Attribute(self, node):
        self.attrs.append(node)
        node.value.visit(self)
        return False

    def visit_Call(self, node):
        self.calls.append(node)
        return True

    def visit_Arg(self, node):
        node.value.visit(self)
        return False

    def visit_Name(self, node):
        self.reads.append(node.value)
        return False

    def visit_Return(self, node):
        self.flow = True
        return True

    def visit_Break(self, node):
        self.flow = True

    def visit_Continue(self, node):
        self.flow = True

    def visit_Yield(self, node):
        self.flow = True
        return True

    @classmethod
    def of(cls, node) -> "_Names":
        v = cls()
        if isinstance(node, (list, tuple)):
            for n in node:
                n.visit(v)
        else:
            node.visit(v)
        v.reads = [r for r in v.reads if r not in v.local]
        return v


def _free_reads(stmts) -> list[str]:
    """Names the statements read before binding them (in order, no duplicates)."""
    bound: set[str] = set()
    out: list[str] = []
    for st in stmts:
        n = _Names.of(st)
        for r in n.reads:
            if r not in bound and r not in out:
                out.append(r)
        bound.update(n.writes)
    return out


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        taken.add(name)
        return name
    i = 1
    while f"{name}_{i}" in taken:
        i += 1
    taken.add(f"{name}_{i}")
    return f"{name}_{i}"


def _stmt(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text + "\n")


def _with_comment(stmt, rule_id: str, reason: str):
    """``stmt`` with a marker comment above it (once)."""
    text = f"{MARKER_PREFIX}{rule_id} {reason}"
    lines = list(stmt.leading_lines)
    if any(ln.comment is not None and ln.comment.value == text for ln in lines):
        return stmt
    return stmt.with_changes(leading_lines=[*lines, cst.EmptyLine(comment=cst.Comment(text))])


class Refuse(Exception):
    """The training step cannot be rewritten safely: (rule ID, what the person must do)."""

    def __init__(self, rule_id: str, reason: str):
        super().__init__(reason)
        self.rule_id = rule_id
        self.reason = reason


# --------------------------------------------------------------------------------------------
# the pass
# --------------------------------------------------------------------------------------------
class TrainingPass:
    """Rewrite the training steps of one module (create one per file).

    Args:
        conv: the main :class:`~migrate.convert.Converter`, whose import aliases are already
            resolved; the pass records its changes there and notes the target names it uses.
    """

    def __init__(self, conv):
        self.conv = conv
        self.changes: list[tuple[cst.CSTNode, str, str, str, str, str]] = []
        self.scalers: set[str] = set()      # names bound to GradScaler(...)
        self.optimizers: set[str] = set()   # names bound to torch.optim.*(...)
        self.schedulers: set[str] = set()   # names bound to torch.optim.lr_scheduler.*(...)
        self.samplers: dict[str, cst.Call] = {}  # name -> DistributedSampler(...) call
        self.datasets: dict[str, int] = {}  # name -> number of columns (TensorDataset(...))
        self.ds_columns: dict[str, int] = {}  # local Dataset subclass -> columns of __getitem__
        self.stepped: set[str] = set()      # optimizers whose steps were rewritten

    # ---- bookkeeping ---------------------------------------------------------------------
    def qual(self, node) -> str | None:
        return self.conv.qual(node)

    def record(self, node, after, rule_id, label, note) -> None:
        before = node if isinstance(node, str) else code_of(node)
        after = after if isinstance(after, str) else code_of(after)
        self.changes.append((node, before, after, rule_id, label, note))

    # ---- entry ---------------------------------------------------------------------------
    def run(self, module: cst.Module) -> cst.Module:
        """Return ``module`` with its training steps rewritten (the same object if none)."""
        self._scan_bindings(module.body)
        body = self._scope(list(module.body), top=True)
        if body is None:
            return module
        return module.with_changes(body=body)

    def _scan_bindings(self, body) -> None:
        """Names bound to optimizers, schedulers, scalers, samplers, datasets (whole file)."""
        for node in _walk_statements(body):
            if isinstance(node, cst.ClassDef):
                cols = _getitem_columns(node)
                if cols:
                    self.ds_columns[node.name.value] = cols
            if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1
                    and isinstance(node.body[0], cst.Assign)):
                continue
            a = node.body[0]
            if len(a.targets) != 1 or not isinstance(a.value, cst.Call):
                continue
            tgt = a.targets[0].target
            name = dotted(tgt)
            q = self.qual(a.value.func) or ""
            if name is None:
                continue
            if q in _SCALERS:
                self.scalers.add(name)
            elif q.startswith("torch.optim.lr_scheduler."):
                self.schedulers.add(name)
            elif q.startswith("torch.optim.") and q[12:13].isupper():
                self.optimizers.add(name)
            elif q in ("torch.utils.data.DistributedSampler",
                       "torch.utils.data.distributed.DistributedSampler"):
                self.samplers[name] = a.value
            elif q in ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"):
                self.datasets[name] = len(a.value.args)

    # ---- scopes and blocks ---------------------------------------------------------------
    def _scope(self, body: list, top: bool = False):
        """Rewrite one scope's statements (module or function body); None when unchanged."""
        changed = False
        taken = _scope_names(body)
        # nested scopes first: functions and classes are their own scopes
        new_body = []
        for st in body:
            new = self._nested(st)
            changed |= new is not st
            new_body.append(new)
        body = new_body
        # the training steps of this scope, one at a time (each rewrite changes the tree)
        while True:
            path = _find_backward(body)
            if path is None:
                break
            try:
                body = self._rewrite_step(body, path, taken)
            except Refuse as r:
                st = _at(body, path)
                body = _replace_at(body, path, lambda s: [_with_comment(s, r.rule_id, r.reason)])
                self.record(st, "", r.rule_id, "unsupported", r.reason)
            changed = True
        return body if changed else None

    def _nested(self, st):
        if isinstance(st, cst.FunctionDef):
            inner = self._scope(list(st.body.body)) if isinstance(st.body, cst.IndentedBlock) else None
            return st if inner is None else st.with_changes(body=st.body.with_changes(body=inner))
        if isinstance(st, cst.ClassDef):
            new = self._dataset_class(st)
            if isinstance(new.body, cst.IndentedBlock):
                items, ch = [], False
                for s in new.body.body:
                    n = self._nested(s)
                    ch |= n is not s
                    items.append(n)
                if ch:
                    new = new.with_changes(body=new.body.with_changes(body=items))
            return new
        if isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            return _map_blocks(st, lambda stmts: _seq_or_none(self._nested, stmts))
        return st
