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
training step inside a function, several optimizers stepping in turn (GAN), ``backward()`` only
in a training phase, data-parallel steps, ``torch.autograd.grad`` -> ``ms.grad``, ``no_grad``
blocks inside the forward pass -> ``ops.stop_gradient`` (only there: outside a transform nothing is
recorded, and the main walk unwraps them). Around the
steps: ``zero_grad()`` removed, ``len(loader)``, Dataset classes, samplers, process groups.
A step it cannot prove safe (``.grad`` read, ``retain_graph``, a loss that depends on a network
call made before ``zero_grad()``, ...) stays as it was under a ``# migrate: MS95x`` marker that
says what to do by hand.

How it is safe: the forward segment is the backward slice of the loss inside the block of the
``backward()`` call (bounded by ``zero_grad()`` and by earlier steps); the names it reads that
the loop rebinds become forward_fn's parameters (the rest are closures); the names it binds
that any other code reads are returned as auxiliary outputs. Untouched statements keep their
identity, so the main walk still reports the input's line numbers.

Rule IDs: ``MS2xx`` rewrites (``migrate mappings --rules``), ``MS95x`` markers. The table rules
named by ``mappings/training.toml`` (DataLoader, TensorDataset, random_split, samplers, DDP)
live at the end of this module.
"""
from __future__ import annotations

import libcst as cst

from migrate.changes import Change
from migrate.convert import code_of, dotted, parse_expr
from migrate.rules import MARKERS, rule
from migrate.training_data import _columns, _shard_args  # also registers the table rules
from migrate.training_tree import (
    ORIGIN, Refuse, _rebuilt, _Names, _at, _bind, _block_at, _call_of, _called_names, _find_backward, _free_reads,
    _getitem_columns, _looks_network, _map_blocks, _marked_backwards, _method_call,
    _ordered_lines, _reads_grad, _replace_at, _scope_names, _seq_or_none, _set_block, _short,
    _statement_ids, _stmt, _unique, _walk_blocks, _walk_statements, _with_comment,
)

# Markers of this pass (the main registry shows them in `migrate mappings` and reports).
MARKERS.update({
    "MS951": "gradients read or changed between backward() and step(): not rewritten",
    "MS952": "backward() with retain_graph/create_graph/gradient arguments: not rewritten",
    "MS953": "training step whose structure the rules cannot follow: not rewritten",
    "MS954": "higher-order torch.autograd.grad: rewrite with nested ms.grad by hand",
    "MS955": "optimizer.step()/zero_grad() with no backward() the pass could pair it with",
})

def _statement_rule(rule_id: str, name: str, doc: str) -> None:
    """Register a statement-level rewrite of this pass so that listings and reports show it."""
    def apply_in_training_pass(*_args):
        raise TypeError(f"{name} is applied by migrate.training.TrainingPass, not by a table entry")
    apply_in_training_pass.__doc__ = doc
    from migrate.rules import RULES
    if name in RULES:
        raise ValueError(f"rule name {name!r} is registered twice")
    rule(rule_id, name)(apply_in_training_pass)


for _id, _name, _doc in [
    ("MS201", "training_step", "Replace zero_grad/loss.backward()/optimizer.step() with forward_fn + "
                               "ms.value_and_grad (built once) + optimizer(grads)."),
    ("MS202", "zero_grad", "Replace optimizer.zero_grad() / model.zero_grad() with nothing (fresh "
                           "gradients on every call)."),
    ("MS203", "clip_grad_norm", "Replace clip_grad_norm_(params, max_norm) with grads = "
                                "ops.clip_by_global_norm(grads, max_norm)."),
    ("MS204", "clip_grad_value", "Replace clip_grad_value_(params, v) with grads = ops.clip_by_value(grads, -v, v)."),
    ("MS205", "grad_accumulation", "Replace backward() every batch + step() every k batches with a "
                                   "summed grads tuple applied and reset every k batches."),
    ("MS206", "grad_scaler", "Replace scaler.scale(loss).backward()/unscale_/step/update with "
                             "scale in forward_fn, unscale(grads), all_finite, adjust."),
    ("MS207", "guarded_step", "Replace `if cond: optimizer.step()` with `if cond: optimizer(grads)`."),
    ("MS208", "autocast", "Replace `with autocast(): body` with body (float32; use ms.amp.auto_mixed_precision)."),
    ("MS209", "autograd_grad", "Replace torch.autograd.grad(f(x), x, create_graph=True) with ms.grad(lambda x: f(x))(x)."),
    ("MS210", "init_process_group", "Replace dist.init_process_group(...) with communication.init() + "
                                    "set_auto_parallel_context(DATA_PARALLEL, gradients_mean=True)."),
    ("MS211", "dataset_base", "Replace class D(torch.utils.data.Dataset) with class D (a GeneratorDataset source)."),
    ("MS212", "distributed_sampler_statements", "Replace sampler = DistributedSampler(...) / "
                                                "sampler.set_epoch(e) with dataset sharding."),
    ("MS213", "conditional_backward", "Replace `loss = f(x); if C: loss.backward()` with the forward "
                                      "pass in `if C: grad_fn(...) else: f(x)`."),
    ("MS214", "len_loader", "Replace len(loader) / len(loader.dataset) with get_dataset_size() of the "
                            "batched / unbatched dataset."),
    ("MS215", "grad_reducer", "Replace DDP gradient averaging with nn.DistributedGradReducer on the grads."),
    ("MS216", "no_grad_in_forward", "Replace `with torch.no_grad(): t = f(x)` inside forward_fn with "
                                    "t = f(x); t = ops.stop_gradient(t)."),
]:
    _statement_rule(_id, _name, _doc)


# A quick textual filter: files without any of these never pay for this pass.
_TRIGGERS = (".backward(", "autocast", "GradScaler", "init_process_group", "DistributedSampler",
             "autograd.grad", "set_epoch", "DistributedDataParallel", "Dataset", "zero_grad",
             "DataLoader", "loader)", "loader.dataset)", "random_split", "_dl)")
_AUTOCAST = {"torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast",
             "torch.cpu.amp.autocast", "torch.amp.autocast_mode.autocast"}
_SCALERS = {"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.cpu.amp.GradScaler"}
_CLIP_NORM = {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
              "torch.nn.utils.clip_grad.clip_grad_norm_"}
_CLIP_VALUE = {"torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_value_"}


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
        self.conv_code = ""
        self.changes: list[tuple[cst.CSTNode, str, str, str, str, str]] = []
        self.scalers: set[str] = set()      # names bound to GradScaler(...)
        self.optimizers: set[str] = set()   # names bound to torch.optim.*(...)
        self.schedulers: set[str] = set()   # names bound to torch.optim.lr_scheduler.*(...)
        self.samplers: dict[str, cst.Call] = {}  # name -> DistributedSampler(...) call
        self.datasets: dict[str, int] = {}  # name -> number of columns (TensorDataset(...))
        self.ds_columns: dict[str, int] = {}  # local Dataset subclass -> columns of __getitem__
        self.ds_instances: dict[str, int] = {}  # name -> columns (an instance of such a class)
        self.stepped: set[str] = set()      # optimizers whose steps were rewritten
        self.classes: set[str] = set()      # classes defined in this file
        self.ddp: set[str] = set()          # names bound to DistributedDataParallel(...)
        self.generated: set[int] = set()    # ids of the statements this pass wrote
        self.forward_calls: set[str] = set()  # functions/methods a rewritten forward pass calls
        self.keep: set[int] = set()         # ids of zero_grad() statements of refused steps
        self.lines: dict[int, int] = {}     # id(original statement) -> line in the input
        self.generated_lines: dict[int, int] = {}  # id(new statement) -> the line it replaces
        self.loaders: set[str] = set()      # names bound to DataLoader(...)
        self.loader_data: dict[str, cst.BaseExpression] = {}  # loader name -> its dataset argument
        self.sharded: dict[str, cst.Call] = {}  # TensorDataset name -> DistributedSampler call
        # names known to hold tensors (batches of a loader, losses, forward outputs): the main
        # pass reads them so that tensor methods on them (x.size(0), out.max(1)) are converted
        self.tensor_names: set[str] = set()
        conv.training_tensors = self.tensor_names

    # ---- bookkeeping ---------------------------------------------------------------------
    def qual(self, node) -> str | None:
        return self.conv.qual(node)

    def record(self, node, after, rule_id, label, note, before=None) -> None:
        # snippets stay nodes until a report reads them (Change renders them lazily)
        self.changes.append((node, node if before is None else before, after, rule_id, label, note))

    # ---- entry ---------------------------------------------------------------------------
    def run(self, module: cst.Module) -> cst.Module:
        """Return ``module`` with its training steps rewritten (the same object if none)."""
        self._scan_bindings(module.body)
        body = self._scope(list(module.body))
        new = module if body is None else module.with_changes(body=body)
        if self.stepped:
            self._network_outputs(new.body)
        if self.forward_calls:
            body = _walk_blocks(list(new.body), self._helpers_block)
            if body is not None:
                new = new.with_changes(body=body)
        return new

    def _helpers_block(self, stmts: list):
        """Functions of this file that a forward pass calls: their no_grad blocks stop gradients
        too (the main walk would unwrap them, and forward_fn would differentiate them)."""
        out, changed = [], False
        for st in stmts:
            if isinstance(st, cst.FunctionDef) and st.name.value in self.forward_calls \
                    and isinstance(st.body, cst.IndentedBlock):
                inner = self._stop_gradients(list(st.body.body))
                if inner is not st.body.body and inner != list(st.body.body):
                    st = _rebuilt(st, st.with_changes(body=st.body.with_changes(body=inner)))
                    changed = True
            out.append(st)
        return out if changed else None

    def _network_outputs(self, body) -> None:
        """``out = model(x)`` / ``a, b = net(x)`` anywhere in the file: the targets are tensors."""
        nets = self.conv.module_names
        for st in _walk_statements(body):
            if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 \
                    and isinstance(st.body[0], cst.Assign):
                a = st.body[0]
                if isinstance(a.value, cst.Call) and isinstance(a.value.func, cst.Name) \
                        and a.value.func.value in nets:
                    for t in a.targets:
                        self.tensor_names.update(n for n in _Names.of(
                            cst.Assign([t], cst.Name("_"))).writes if n != "_")

    def _scan_bindings(self, body) -> None:
        """Names bound to optimizers, schedulers, scalers, samplers, datasets (whole file)."""
        batches: set[str] = set()
        for node in _walk_statements(body):
            if isinstance(node, cst.ClassDef):
                self.classes.add(node.name.value)
            if isinstance(node, cst.For):
                it = node.iter
                if isinstance(it, cst.Call) and dotted(it.func) == "enumerate" and it.args:
                    it = it.args[0].value
                    target = node.target.elements[-1].value if isinstance(node.target, cst.Tuple) \
                        and len(node.target.elements) == 2 else None
                else:
                    target = node.target
                if isinstance(it, cst.Subscript):  # dataloaders[phase]
                    it = it.value
                src = dotted(it) or ""
                if target is not None and (src in self.loaders or _looks_loader(src)):
                    if isinstance(target, cst.Name):
                        batches.add(target.value)  # a list of columns: `x, y = batch` below
                    else:
                        self.tensor_names.update(_Names.of(cst.Assign([cst.AssignTarget(target)],
                                                                      cst.Name("_"))).writes)
            if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1 \
                    and isinstance(node.body[0], cst.Assign):
                a = node.body[0]
                v = a.value.value if isinstance(a.value, cst.Subscript) else a.value
                t = a.targets[0].target
                # x, y = batch / x = batch[0] (columns of a batch); not `batch = ...` itself
                if dotted(v) in batches and (isinstance(t, (cst.Tuple, cst.List))
                                             or isinstance(a.value, cst.Subscript)):
                    self.tensor_names.update(_Names.of(cst.Assign([cst.AssignTarget(t)],
                                                                  cst.Name("_"))).writes)
            if isinstance(node, cst.FunctionDef):
                for p in node.params.params:
                    if p.name.value in ("model", "net", "network"):
                        self.conv.module_names.add(p.name.value)
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
            if name is None and not q.endswith("random_split"):
                continue
            if q in ("torch.nn.parallel.DistributedDataParallel",
                     "torch.nn.parallel.distributed.DistributedDataParallel"):
                self.ddp.add(name)
            if q in _SCALERS:
                self.scalers.add(name)
            elif q in ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"):
                self.loaders.add(name)
                if a.value.args and a.value.args[0].keyword in (None,):
                    self.loader_data[name] = a.value.args[0].value
                    ds = dotted(a.value.args[0].value)
                    sampler = next((x.value for x in a.value.args
                                    if x.keyword is not None and x.keyword.value == "sampler"), None)
                    if ds in self.datasets and dotted(sampler) in self.samplers:
                        # a TensorDataset read through a DistributedSampler: shard the dataset
                        self.sharded[ds] = self.samplers[dotted(sampler)]
            elif q.startswith("torch.optim.lr_scheduler."):
                self.schedulers.add(name)
            elif q.startswith("torch.optim.") and q[12:13].isupper():
                self.optimizers.add(name)
            elif q in ("torch.utils.data.DistributedSampler",
                       "torch.utils.data.distributed.DistributedSampler"):
                self.samplers[name] = a.value
            elif q in ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"):
                self.datasets[name] = len(a.value.args)
            elif q in ("torch.utils.data.random_split", "torch.utils.data.dataset.random_split"):
                for t in _Names.of(cst.Assign([a.targets[0]], cst.Name("_"))).writes:
                    self.datasets[t] = 0
            elif isinstance(a.value.func, cst.Name) and a.value.func.value in self.ds_columns:
                self.ds_instances[name] = self.ds_columns[a.value.func.value]

    # ---- scopes and blocks ---------------------------------------------------------------
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
        for path in _marked_backwards(body):
            self._keep_around(body, path)
        for _ in range(10_000):  # each round rewrites, lifts or marks one backward()
            path = _find_backward(body)
            if path is None:
                break
            if taken is None:
                taken = _scope_names(body)
            saved = (len(self.changes), set(self.stepped), set(self.tensor_names),
                     set(self.conv.module_names), set(self.conv.used))
            try:
                body = self._rewrite_step(body, path, taken)
            except Refuse as r:
                # nothing of the abandoned rewrite may remain in the report or the hints
                del self.changes[saved[0]:]
                self.stepped, self.conv.module_names, self.conv.used = saved[1], saved[3], saved[4]
                self.tensor_names.clear()
                self.tensor_names.update(saved[2])
                st = _at(body, path)
                self._keep_around(body, path)
                body = _replace_at(body, path, lambda s: [_with_comment(s, r.rule_id, r.reason)])
                self.record(st, "", r.rule_id, "unsupported", r.reason)
            changed = True
        return body if changed else None

    def _keep_around(self, body: list, path: list) -> None:
        """A step left as it was keeps its zero_grad()/step() calls (here and in enclosing blocks)."""
        for n in range(len(path)):
            for other in _block_at(body, path[:n]):
                if _method_call(other, "zero_grad") is not None or self._is_step(other):
                    self.keep.add(id(other))
                elif isinstance(other, cst.If) and isinstance(other.body, cst.IndentedBlock):
                    self.keep.update(id(x) for x in other.body.body if self._is_step(x))

    def _nested(self, st):
        if isinstance(st, cst.FunctionDef):
            inner = self._scope(list(st.body.body)) if isinstance(st.body, cst.IndentedBlock) else None
            return st if inner is None else _rebuilt(st, st.with_changes(body=st.body.with_changes(body=inner)))
        if isinstance(st, cst.ClassDef):
            new = self._dataset_class(st)
            if isinstance(new.body, cst.IndentedBlock):
                items, ch = [], False
                for s in new.body.body:
                    n = self._nested(s)
                    ch |= n is not s
                    items.append(n)
                if ch:
                    new = _rebuilt(st, new.with_changes(body=new.body.with_changes(body=items)))
            return new
        if isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            return _map_blocks(st, lambda stmts: _seq_or_none(self._nested, stmts))
        return st

    # ---- one training step ---------------------------------------------------------------
    def _rewrite_step(self, body: list, path: list, taken: set[str]) -> list:
        """Rewrite the step whose ``backward()`` is at ``path``; raise Refuse when unsafe."""
        block = _block_at(body, path[:-1])
        k = path[-1][0]
        bw_stmt = block[k]
        recv, bw_call = _method_call(bw_stmt, "backward")
        if (self.qual(recv) or "").startswith("torch"):
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
        scaler = None
        loss_expr = recv
        if isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute) \
                and recv.func.attr.value == "scale" and dotted(recv.func.value) in self.scalers \
                and len(recv.args) == 1:
            scaler = dotted(recv.func.value)
            loss_expr = recv.args[0].value
        if isinstance(loss_expr, cst.Name):
            loss_name = loss_expr.value
        else:
            loss_name = _unique("loss", taken)
        nxt0 = next((i for i in range(k + 1, len(block)) if _method_call(block[i], "backward")), len(block))
        if _reads_grad(block[k + 1:nxt0]):
            raise Refuse("MS951", "parameter .grad is read or changed after backward(): use the grads "
                                  "tuple returned by grad_fn (aligned with optimizer.parameters) instead")
        # the optimizer step after backward: in this block, or in an `if` right in it
        step = self._find_step(block, k)
        if step is None:
            raise Refuse("MS953", "no optimizer.step() follows backward() in the same block: "
                                  "compute grads with ms.value_and_grad and apply optimizer(grads)")
        j, inner, opt = step
        # several steps in one block (a GAN): each pairs its backward() with its own step()
        prev_end = max([i + 1 for i, st in enumerate(block[:k]) if id(st) in self.generated], default=0)
        nxt = next((i for i in range(k + 1, len(block)) if _method_call(block[i], "backward")), len(block))
        if j >= nxt:
            raise Refuse("MS953", "another backward() comes before this loss's step(): accumulate "
                                  "the grads of both value_and_grad calls by hand")
        guarded = inner is not None
        zero_in_block = [i for i, st in enumerate(block) if self._is_zero_grad(st, opt)]
        accumulate = guarded and not zero_in_block
        # the forward segment: from the first statement the loss depends on to backward()
        # zero_grad() does not cut the graph (output = model(x); optimizer.zero_grad();
        # loss.backward() is fine): only an earlier step in this block bounds the forward pass
        lower = prev_end
        needed = set(_Names.of(loss_expr).reads) if not isinstance(loss_expr, cst.Name) else {loss_name}
        start = None
        for i in range(k - 1, -1, -1):
            n = _Names.of(block[i])
            hit = set(n.writes) & needed
            if hit and i < lower:
                if id(block[i]) in self.generated:
                    raise Refuse("MS953", f"the loss depends on {', '.join(sorted(hit))}, computed by "
                                          "an earlier forward_fn: recompute it inside this step's "
                                          "forward pass (e.g. G(z) again, not its detached copy)")
                if self._constructs(block[i]):
                    needed -= hit  # a network/optimizer object built earlier: not a value
                    continue
                if self._calls_network(block[i]):
                    raise Refuse("MS953", f"the loss depends on {', '.join(sorted(hit))}, computed "
                                          f"before the previous optimizer step: repeat "
                                          f"`{_short(code_of(block[i]).strip(), 60)}` in this step's "
                                          "forward pass")
                needed -= hit  # data prepared before the previous step: passed in as an argument
                continue
            if hit:
                start = i
                needed |= set(n.reads)
        if start is None:
            lifted = self._lift(body, path, needed if isinstance(loss_expr, cst.Name) else None)
            if lifted is not None:
                return lifted
            raise Refuse("MS953", f"the loss `{code_of(loss_expr)}` is not computed in this block "
                                  "before backward(): move its computation into a forward_fn by hand")
        # data preparation at the head of the slice (batch = next(it), x = batch["x"]) stays
        # outside: the forward pass starts at the first statement that calls a network or reads
        # what one produced
        produced: set[str] = set()
        first = None
        for i in range(start, k):
            n = _Names.of(block[i])
            if first is None and not (self._calls_network(block[i]) or set(n.reads) & produced
                                      or loss_name in n.writes):
                continue
            first = i if first is None else first
            produced |= set(n.writes)
        start = first if first is not None else start
        segment = [st for i, st in enumerate(block[start:k], start) if i not in zero_in_block]
        seg_names = _Names.of(segment)
        if seg_names.flow:
            raise Refuse("MS953", "return/break/continue/yield between the forward pass and "
                                  "backward(): restructure the step by hand")
        if not any(self._calls_network(st) for st in segment):
            raise Refuse("MS953", f"the loss `{code_of(loss_expr)}` is built from tensors computed "
                                  "before this block (no network is called between zero_grad() and "
                                  "backward()): compute them inside the forward pass by hand")
        if opt.split(".")[0] in seg_names.writes:
            raise Refuse("MS953", f"{opt} is created inside the forward pass: create it before "
                                  "the training step")
        for c in seg_names.calls:
            if self.qual(c.func) == "torch.set_grad_enabled" and not (
                    c.args and code_of(c.args[0].value) in ("True", "False")):
                raise Refuse("MS953", f"{code_of(c)} inside the forward pass: split the step by "
                                      "the condition by hand")
            if self.qual(c.func) in ("torch.autograd.grad",):
                raise Refuse("MS954", "torch.autograd.grad inside the forward pass: build it with "
                                      "nested ms.grad by hand")
        rest = block[k + 1:nxt]
        if _reads_grad(segment) or _reads_grad(rest):
            raise Refuse("MS951", "parameter .grad is read or changed around backward()/step(): "
                                  "use the grads tuple returned by grad_fn (aligned with "
                                  "optimizer.parameters) instead")
        # where forward_fn goes: before the outermost loop around the step (built once)
        # grad_fn reads optimizer.parameters when it is built: not before a loop that creates the
        # optimizer (one model and optimizer per fold, say); a deeper loop then
        opt_root = opt.split(".")[0]
        loop_at = next((n for n in range(len(path) - 1)
                        if isinstance(_at(body, path[:n + 1]), (cst.For, cst.While))
                        and (opt_root == "self" or opt_root not in _Names.of(_at(body, path[:n + 1])).writes)),
                       None)
        if accumulate and loop_at is None:
            raise Refuse("MS953", "gradient accumulation across calls of a function: keep the "
                                  "accumulated grads in a variable that outlives the call by hand")
        loop_bound = set(_Names.of(_at(body, path[:loop_at + 1])).writes) if loop_at is not None else set()
        written = list(dict.fromkeys(seg_names.writes))
        params = [n for n in _free_reads(segment) if n in loop_bound or n in written]
        # what runs after the step reads: the rest of each enclosing block (names it rebinds
        # first do not count), and anything inside a loop around the step (the next iteration)
        after = list(block[k + 1:])
        for n in range(len(path) - 1, 0, -1):
            after += _block_at(body, path[:n - 1])[path[n - 1][0] + 1:]
        later = set(_free_reads(after))
        seg_ids = {id(st) for st in segment}  # (incl. the else-branch copy of a lifted pass)
        if loop_at is not None:
            later |= set(_Names.of(_at(body, path[:loop_at + 1]), skip=seg_ids).reads)
        aux = [n for n in written if n != loss_name and n in later]
        # names of what we generate
        fwd = _unique("forward_fn", taken)
        gfn = _unique("grad_fn", taken)
        grads = _unique("grads", taken) if "grads" in taken else "grads"
        taken.add(grads)
        acc = _unique("accum_grads", taken) if accumulate else None
        ctx = {"opt": opt, "scaler": scaler, "grads": acc or grads, "unscaled": False,
               "finite": None, "taken": taken}
        # forward_fn
        ret_loss = f"{scaler}.scale({code_of(loss_expr)})" if scaler else code_of(loss_expr)
        ret = ", ".join([ret_loss, *aux])
        fn_body = [*self._stop_gradients(segment), _stmt(f"return {ret}")]
        # no blank line right after `def forward_fn(...):` (comments stay)
        lead = list(fn_body[0].leading_lines)
        while lead and lead[0].comment is None:
            lead.pop(0)
        if len(lead) != len(fn_body[0].leading_lines):
            first = fn_body[0]
            fn_body[0] = first.with_changes(leading_lines=lead)
            self.generated_lines[id(fn_body[0])] = self.lines.get(id(first))
        fn = cst.FunctionDef(
            name=cst.Name(fwd),
            params=cst.Parameters([cst.Param(cst.Name(p)) for p in params]),
            body=cst.IndentedBlock(body=fn_body),
            leading_lines=[cst.EmptyLine(indent=False)] if (loop_at is not None or start) else [],
        )
        has_aux = bool(aux)
        build = [fn, _stmt(f"{gfn} = ms.value_and_grad({fwd}, None, {opt}.parameters"
                           f"{', has_aux=True' if has_aux else ''})")]
        reducer = None
        if any(dotted(c.func) in self.ddp for c in seg_names.calls):
            # data parallel: average the gradients over the devices before the update
            reducer = _unique("grad_reducer", taken)
            # ms.nn, not nn: a file's own `nn` is torch.nn until the main walk rewrites it
            build.append(_stmt(f"{reducer} = ms.nn.DistributedGradReducer({opt}.parameters)"))
        if accumulate:
            build.append(_stmt(f"{acc} = None"))
        build[1] = build[1].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        # the call that replaces segment + backward
        out = f"({', '.join([loss_name, *aux])})" if has_aux else loss_name
        # the comments above backward() ("# Backpropagation") stay above its replacement
        call = [_stmt(f"{out}, {grads} = {gfn}({', '.join(params)})").with_changes(
            leading_lines=bw_stmt.leading_lines)]
        if reducer:
            call.append(_stmt(f"{grads} = {reducer}({grads})"))
            self.record(bw_stmt, call[-1], "MS215", "transformed",
                        "data parallel (DDP): gradients averaged across devices by "
                        "nn.DistributedGradReducer before the update (identity with one process)")
        if scaler:
            call.append(_stmt(f"{loss_name} = {scaler}.unscale({loss_name})"))
        if accumulate:
            call.append(_stmt(f"{acc} = {grads} if {acc} is None else "
                              f"tuple(a + g for a, g in zip({acc}, {grads}))"))
        self.conv.used.add("ms")
        self.stepped.add(opt)
        self.tensor_names.update([loss_name, *aux])
        for c in seg_names.calls:
            name = dotted(c.func) or ""
            if name.count(".") <= 1 and (name.startswith("self.") or "." not in name):
                self.forward_calls.add(name.split(".")[-1])
        # what the forward pass calls is a network: its train()/eval() become set_train
        # (a plain name called in the forward pass is a network or a loss: what it returns is a
        # tensor for the main walk, e.g. policy(s).max(1) -> ops.max)
        self.conv.module_names.update(n for n in _called_names(segment)
                                      if n not in _BUILTINS and n not in self.conv.aliases
                                      and not self._is_class(n))
        self.record(bw_stmt, call[0], "MS201", "transformed",
                    f"{code_of(bw_call)}: tape autodiff -> {fwd} + ms.value_and_grad (built once) "
                    f"+ {opt}(grads)" + (f"; returns {', '.join(aux)} for the code after it" if aux else ""))
        if accumulate:
            self.record(block[j], f"{acc} = ...", "MS205", "transformed",
                        "gradient accumulation: grads summed in a tuple, applied and reset where "
                        "step()/zero_grad() were")
        tail = self._after(rest, ctx, guarded_index=j - k - 1 if guarded else None)
        bw_line = self.lines.get(id(bw_stmt))
        for st in [*build, *call]:
            self.generated_lines[id(st)] = bw_line
        new_block = block[:start] + call + tail + block[nxt:]
        self.generated.update(id(st) for st in call + tail if st not in block)
        # zero_grad() before the forward segment does nothing in MindSpore
        kept_before = []
        for i, st in enumerate(block[:start]):
            if i in zero_in_block:
                self.record(st, "", "MS202", "exact", "zero_grad() removed: value_and_grad returns "
                                                      "fresh gradients on every call")
                if st.leading_lines:
                    kept_before.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=st.leading_lines))
                continue
            kept_before.append(st)
        new_block = kept_before + new_block[start:]
        if loop_at is None:
            at = len(kept_before)
            new_block = new_block[:at] + build + new_block[at:]
            return _set_block(body, path[:-1], new_block)
        body = _set_block(body, path[:-1], new_block)
        anchor = path[:loop_at + 1]
        outer = _block_at(body, anchor[:-1])
        i = anchor[-1][0]
        loop = outer[i]
        outer = outer[:i] + build + [loop.with_changes(leading_lines=[cst.EmptyLine(indent=False), *loop.leading_lines]
                                                      if not loop.leading_lines else loop.leading_lines)] + outer[i + 1:]
        return _set_block(body, anchor[:-1], outer)

    def _stop_gradients(self, segment: list) -> list:
        """Inside forward_fn, ``with torch.no_grad(): t = f(x)`` -> ``t = f(x); t = ops.stop_gradient(t)``.

        Outside a transform nothing is recorded, so the main walk simply unwraps no_grad blocks;
        inside forward_fn they would be differentiated: what they bind is cut from the graph.
        """
        def block(stmts):
            out, changed = [], False
            for st in stmts:
                if not isinstance(st, cst.With) or not isinstance(st.body, cst.IndentedBlock):
                    out.append(st)
                    continue
                kinds = [self._grad_mode(it) for it in st.items]
                if "other" in kinds or "off" not in kinds:
                    out.append(st)
                    continue
                inner = list(st.body.body)
                returns = _walk_blocks(inner, _stop_returns)  # `return f(x)` in the block too
                inner = returns if returns is not None else inner
                inner[0] = inner[0].with_changes(
                    leading_lines=[*st.leading_lines, *inner[0].leading_lines])
                names = list(dict.fromkeys(_Names.of(inner).writes))
                if not names and returns is None:
                    out.append(st)  # binds and returns nothing: leave it to the main walk
                    continue
                self.conv.used.add("ops")
                out += inner + [_stmt(f"{n} = ops.stop_gradient({n})") for n in names]
                self.record(st, out[-1] if names else "", "MS216", "transformed",
                            "no_grad inside the forward pass -> ops.stop_gradient on what it binds "
                            f"({', '.join(names) or 'its return value'})", before=st.items[0].item)
                changed = True
            return out if changed else None
        new = _walk_blocks(list(segment), block)
        return segment if new is None else new

    def _grad_mode(self, item) -> str:
        """'off' for no_grad()/inference_mode()/set_grad_enabled(False), 'on', or 'other'."""
        e = item.item
        q = self.qual(e.func) if isinstance(e, cst.Call) else None
        if q in ("torch.no_grad", "torch.autograd.no_grad", "torch.inference_mode") and item.asname is None:
            return "off"
        if q == "torch.set_grad_enabled" and e.args and code_of(e.args[0].value) == "False":
            return "off"
        return "other"

    def _lift(self, body: list, path: list, needed):
        """``loss = f(x); if C: loss.backward(); opt.step()`` -> the forward pass in both branches.

        ``if C: loss = f(x); loss.backward(); opt.step()  else: loss = f(x)`` computes the same
        values; the then-branch is a plain training step that the next round rewrites.
        Returns the new scope body, or None when the shape is not this one.
        """
        if needed is None or len(path) < 2 or path[-1][0] != 0 or path[-2][1] != "body":
            return None
        parent = _block_at(body, path[:-2])
        ip = path[-2][0]
        cond = parent[ip]
        if not isinstance(cond, cst.If) or cond.orelse is not None:
            return None
        start = None
        for i in range(ip - 1, -1, -1):
            n = _Names.of(parent[i])
            if set(n.writes) & needed:
                start = i
                needed = needed | set(n.reads)
            if _method_call(parent[i], "zero_grad") is not None or id(parent[i]) in self.generated:
                break
        if start is None:
            return None
        segment = parent[start:ip]
        if _Names.of(segment).flow or any(_method_call(st, "backward") for st in segment):
            return None
        then = list(cond.body.body)
        new_if = cond.with_changes(
            body=cond.body.with_changes(body=[*segment, *then]),
            orelse=cst.Else(body=cst.IndentedBlock(body=list(segment))))
        self.record(cond, "", "MS213", "transformed",
                    "backward() under a condition: the forward pass moves into if/else so that "
                    "gradients are computed only when the condition holds", before=code_of(cond.test))
        self.generated_lines[id(new_if)] = self.lines.get(id(cond))
        return _set_block(body, path[:-2], parent[:start] + [new_if] + parent[ip + 1:])

    def _constructs(self, st) -> bool:
        """``x = Net(...)`` / ``x = nn.Linear(...)``: an object is built, no tensor is computed."""
        if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1
                and isinstance(st.body[0], cst.Assign) and isinstance(st.body[0].value, cst.Call)):
            return False
        f = st.body[0].value.func
        q = self.qual(f)
        if q is not None:
            last = q.rsplit(".", 1)[-1]
            return q.startswith(("torch.nn.", "torch.optim.")) and last[:1].isupper()
        return isinstance(f, cst.Name) and self._is_class(f.value)

    def _is_class(self, name: str) -> bool:
        """A class of this file, or a CamelCase name (an imported class; `G(z)` is a network call)."""
        return name in self.classes or name[:1].isupper() and any(c.islower() for c in name)

    def _calls_network(self, st) -> bool:
        """Whether ``st`` calls something that may hold parameters (a network, a plain function)."""
        for c in _Names.of(st).calls:
            f = c.func
            if isinstance(f, cst.Name):
                if f.value not in self.conv.aliases and f.value not in _BUILTINS \
                        and not self._is_class(f.value):
                    return True
            elif isinstance(f, cst.Attribute):
                # self.layer(x) / self.loss_fn(...) / model.forward(x); not model.parameters()
                base = dotted(f.value)
                if base == "self" or base in self.conv.module_names and f.attr.value not in _BOOKKEEPING:
                    return True
                if dotted(f) in self.conv.module_names or dotted(f) in self.ddp:
                    return True
        return False

    def _is_zero_grad(self, st, opt: str) -> bool:
        m = _method_call(st, "zero_grad")
        return m is not None and (dotted(m[0]) == opt or dotted(m[0]) in self.conv.module_names)

    def _is_step(self, st):
        """The optimizer name when ``st`` is ``opt.step()`` or ``scaler.step(opt)``."""
        m = _method_call(st, "step")
        if m is None:
            return None
        recv, call = m
        name = dotted(recv)
        if name in self.scalers and len(call.args) == 1:
            return dotted(call.args[0].value)
        if name in self.schedulers or call.args:
            return None
        if name in self.optimizers or name and _looks_optimizer(name):
            return name
        return None

    def _find_step(self, block, k):
        for j in range(k + 1, len(block)):
            st = block[j]
            opt = self._is_step(st)
            if opt:
                return j, None, opt
            if isinstance(st, cst.If) and isinstance(st.body, cst.IndentedBlock):
                for i, inner in enumerate(st.body.body):
                    opt = self._is_step(inner)
                    if opt:
                        return j, i, opt
        return None

    def _after(self, stmts: list, ctx: dict, guarded_index=None) -> list:
        """Statements after backward(): clipping, unscale_, step, zero_grad, scaler.update."""
        out = []
        for n, st in enumerate(stmts):
            if n == guarded_index:
                self.record(st, code_of(st.test), "MS207", "transformed",
                            "guarded step(): the update is applied only when the condition holds",
                            before=code_of(st.test))
                inner = self._after(list(st.body.body), ctx)
                if not inner:
                    inner = [_stmt("pass")]
                new_if = st.with_changes(body=st.body.with_changes(body=inner))
                self.generated_lines[id(new_if)] = self.lines.get(id(st))
                out.append(new_if)
                continue
            new = self._after_one(st, ctx)
            for n_st in new:
                if n_st is not st:
                    self.generated_lines[id(n_st)] = self.lines.get(id(st))
            if new and st.leading_lines and new[0] is not st:
                new[0] = new[0].with_changes(leading_lines=st.leading_lines)
            elif not new and st.leading_lines:
                new = [cst.SimpleStatementLine([cst.Pass()], leading_lines=st.leading_lines)]
            out.extend(new)
        return out

    def _after_one(self, st, ctx: dict) -> list:
        g, opt, scaler = ctx["grads"], ctx["opt"], ctx["scaler"]
        if self._is_zero_grad(st, opt):
            self.record(st, "", "MS202", "exact", "zero_grad() removed: value_and_grad returns "
                                                  "fresh gradients on every call")
            if g != "grads":  # accumulation: the sum starts again
                return [_stmt(f"{g} = None")]
            return []
        call = _call_of(st)
        q = self.qual(call.func) if call is not None else None
        if q in _CLIP_NORM:
            args = _bind(call, ["parameters", "max_norm", "norm_type", "error_if_nonfinite", "foreach"])
            if args is None or "max_norm" not in args:
                raise Refuse("MS953", f"{code_of(call)}: arguments not understood")
            nt = args.get("norm_type")
            if nt is not None and code_of(nt) not in ("2", "2.0"):
                raise Refuse("MS953", f"{code_of(call)}: only the L2 norm maps to ops.clip_by_global_norm")
            self.conv.used.add("ops")
            new = _stmt(f"{g} = ops.clip_by_global_norm({g}, {code_of(args['max_norm'])})")
            self.record(st, new, "MS203", "approximate",
                        f"clips the grads of {opt}.parameters (the {code_of(args['parameters'])} "
                        "given to the optimizer); torch scales by max_norm/(norm+1e-6), MindSpore by "
                        "max_norm/max(norm, max_norm)")
            return [new]
        if q in _CLIP_VALUE:
            args = _bind(call, ["parameters", "clip_value", "foreach"])
            if args is None or "clip_value" not in args:
                raise Refuse("MS953", f"{code_of(call)}: arguments not understood")
            self.conv.used.add("ops")
            v = code_of(args["clip_value"])
            v = v if isinstance(args["clip_value"], (cst.Name, cst.Integer, cst.Float, cst.Attribute)) else f"({v})"
            new = _stmt(f"{g} = ops.clip_by_value({g}, -{v}, {v})")
            self.record(st, new, "MS204", "exact", f"clips the grads of {opt}.parameters")
            return [new]
        if q is not None and (q in _CLIP_NORM | _CLIP_VALUE or q.startswith("torch.nn.utils.clip")):
            raise Refuse("MS953", f"{code_of(call)}: clipping result used; clip the grads tuple by hand")
        m = _method_call(st, "unscale_")
        if m is not None and dotted(m[0]) == scaler:
            ctx["unscaled"] = True
            new = _stmt(f"{g} = {scaler}.unscale({g})")
            self.record(st, new, "MS206", "exact", "unscale the gradients, not the optimizer")
            return [new]
        step_opt = self._is_step(st)
        if step_opt is not None:
            if step_opt != opt:
                raise Refuse("MS953", f"backward() is followed by the step of another optimizer "
                                      f"({step_opt}): write its value_and_grad by hand")
            m = _method_call(st, "step")
            if scaler and dotted(m[0]) == scaler:
                new = []
                if not ctx["unscaled"]:
                    new.append(_stmt(f"{g} = {scaler}.unscale({g})"))
                fin = _unique("grads_finite", ctx["taken"])
                ctx["finite"] = fin
                new.append(_stmt(f"{fin} = ms.amp.all_finite({g})"))
                new.append(_stmt(f"if {fin}:\n    {opt}({g})"))
                self.record(st, new[-1], "MS206", "approximate",
                            "scaler.step -> update only when the unscaled grads are finite "
                            "(ms.amp.all_finite)")
                return new
            new = _stmt(f"{opt}({g})")
            self.record(st, new, "MS201", "exact", "optimizer.step() -> optimizer(grads)")
            return [new]
        m = _method_call(st, "update")
        if m is not None and scaler and dotted(m[0]) == scaler:
            fin = ctx["finite"] or f"ms.amp.all_finite({g})"
            new = _stmt(f"{scaler}.adjust({fin})")
            self.record(st, new, "MS206", "approximate",
                        "scaler.update() -> adjust(finite): one scale_factor for growth and backoff, "
                        "scale never below 1")
            return [new]
        if isinstance(st, cst.SimpleStatementLine):
            for c in _Names.of(st).calls:
                if self.qual(c.func) in _CLIP_NORM | _CLIP_VALUE:
                    raise Refuse("MS953", f"{code_of(c)}: clipping result used; clip the grads "
                                          "tuple with ops.clip_by_global_norm by hand")
        return [st]

    # ---- statements outside the steps ----------------------------------------------------
    def _dataset_class(self, node: cst.ClassDef) -> cst.ClassDef:
        """``class D(torch.utils.data.Dataset)`` -> ``class D:`` (a random-access source)."""
        bases = [b for b in node.bases if self.qual(b.value) not in _DATASET_BASES]
        if len(bases) == len(node.bases):
            return node
        self.record(node, "", "MS211", "exact",
                    "Dataset base dropped: a class with __getitem__/__len__ is a GeneratorDataset source",
                    before=node.bases[0].value)
        if bases:
            bases[-1] = bases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return _rebuilt(node, node.with_changes(bases=bases))
        return _rebuilt(node, node.with_changes(bases=[], lpar=cst.MaybeSentinel.DEFAULT,
                                                rpar=cst.MaybeSentinel.DEFAULT))


_BUILTINS = set(dir(__builtins__) if isinstance(__builtins__, dict) is False else __builtins__)
def _looks_loader(name: str) -> bool:
    """``train_loader``, ``dataloaders``, ``self.val_loader``, ``train_dl``, ``dl``."""
    last = name.split(".")[-1].lower()
    return "loader" in last or last == "dl" or last.endswith("_dl")


def _looks_optimizer(name: str) -> bool:
    """``optimizer``, ``self.optim``, ``opt``, ``opt_g``, ``d_opt``, ``opt2`` (not ``options``)."""
    last = name.split(".")[-1].lower()
    return "optim" in last or last == "opt" or last.startswith("opt_") or last.endswith("_opt") \
        or last[:3] == "opt" and last[3:].isdigit()


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


# Module methods that compute nothing through the parameters (model.training_step(b) does)
_BOOKKEEPING = {"parameters", "named_parameters", "buffers", "named_buffers", "train", "eval", "to",
                "cuda", "cpu", "half", "float", "double", "state_dict", "load_state_dict",
                "zero_grad", "modules", "named_modules", "children", "named_children", "apply",
                "requires_grad_", "register_buffer", "register_forward_hook", "trainable_params",
                "set_train"}
_DATASET_BASES = {"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset",
                  "torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}


class _Cleanup:
    """Statement rewrites around the steps: autocast, zero_grad, set_epoch, process groups.

    Works on one statement list at a time (see :func:`_walk_blocks`), so untouched statements keep
    their identity and their line numbers.
    """

    def __init__(self, tp: TrainingPass, autocast_only: bool = False):
        self.tp = tp
        self.autocast_only = autocast_only

    def __call__(self, stmts: list):
        out, changed = [], False
        for st in stmts:
            new = self._one(st)
            if new is None:
                out.append(st)
                continue
            changed = True
            out.extend(new)
        if not changed:
            return None
        return out or [_stmt("pass")]

    def _one(self, st):
        tp = self.tp
        if self.autocast_only and not isinstance(st, cst.With):
            return None
        if isinstance(st, cst.SimpleStatementLine) and any(
                isinstance(c.func, cst.Name) and c.func.value == "len" and len(c.args) == 1
                and self._len_target(c.args[0].value) is not None for c in _Names.of(st).calls):
            rw = _LenRewriter(self)
            new = st.visit(rw)
            tp.record(st, new, "MS214", "exact",
                      "len(loader) -> loader.get_dataset_size() (batches); len(loader.dataset) -> "
                      "loader.children[0].get_dataset_size() (samples)")
            tp.generated_lines[id(new)] = tp.lines.get(id(st))
            rest = self._one(new)
            return rest if rest is not None else [new]
        if isinstance(st, cst.With):
            items = [it for it in st.items
                     if not (isinstance(it.item, cst.Call) and tp.qual(it.item.func) in _AUTOCAST)]
            if len(items) == len(st.items) or not isinstance(st.body, cst.IndentedBlock):
                return None
            tp.record(st, "", "MS208", "approximate",
                      "autocast removed: ms_core computes in float32; for mixed precision use "
                      "ms.amp.auto_mixed_precision(network) once", before=code_of(st.items[0].item))
            if items:
                items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return [st.with_changes(items=items)]
            stmts = list(st.body.body)
            stmts[0] = stmts[0].with_changes(leading_lines=[*st.leading_lines, *stmts[0].leading_lines])
            tp.generated_lines[id(stmts[0])] = tp.lines.get(id(st.body.body[0]))
            return stmts
        if not isinstance(st, cst.SimpleStatementLine) or len(st.body) != 1:
            return None
        small = st.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                and dotted(small.targets[0].target) in tp.sharded and isinstance(small.value, cst.Call) \
                and all(a.keyword is None and not a.star for a in small.value.args):
            values = [a.value for a in small.value.args]
            data = ", ".join(code_of(v) for v in values) + ("," if len(values) == 1 else "")
            sc = tp.sharded[dotted(small.targets[0].target)]
            names = ["dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last"]
            shard = _shard_args(_bind(sc, names) or {}, "{}")
            tp.conv.used.add("ms")
            # the arguments stay torch code here: the main walk converts them inside the call
            new = st.with_changes(body=[small.with_changes(value=parse_expr(
                f"ms.dataset.NumpySlicesDataset(({data}), column_names={_columns(len(values))}, {shard})"))])
            tp.record(st, new, "MS224", "transformed",
                      "TensorDataset read through a DistributedSampler -> a sharded NumpySlicesDataset")
            tp.generated_lines[id(new)] = tp.lines.get(id(st))
            return [new]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                and isinstance(small.value, cst.Call) and small.value.args \
                and tp.qual(small.value.func) in ("torch.nn.parallel.DistributedDataParallel",
                                                  "torch.nn.parallel.distributed.DistributedDataParallel") \
                and dotted(small.value.args[0].value) == dotted(small.targets[0].target) is not None:
            # model = DDP(model): the network itself trains data-parallel in MindSpore
            tp.record(st, "", "MS226", "approximate",
                      "model = DDP(model) removed: data parallelism comes from "
                      "set_auto_parallel_context(DATA_PARALLEL, gradients_mean=True) and a "
                      "DistributedGradReducer on the grads")
            return self._remove(st)
        if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                and dotted(small.targets[0].target) in tp.samplers:
            tp.record(st, "", "MS212", "transformed",
                      "DistributedSampler -> num_shards/shard_id of the dataset built from the DataLoader")
            return self._remove(st)
        call = _call_of(st)
        if call is None:
            return None
        if isinstance(call.func, cst.Attribute):
            recv = dotted(call.func.value)
            name = call.func.attr.value
            if name == "zero_grad" and id(st) not in tp.keep and (
                    recv in tp.stepped or tp.stepped and recv in tp.conv.module_names):
                tp.record(st, "", "MS202", "exact", "zero_grad() removed: value_and_grad "
                                                    "returns fresh gradients on every call")
                return self._remove(st)
            if id(st) not in tp.keep and (name == "step" and tp._is_step(st) or name == "zero_grad"
                                          and (recv in tp.optimizers or "optim" in (recv or ""))):
                reason = _short(f"{code_of(call).strip()} without a backward() before it in the same block: "
                                "compute grads with ms.value_and_grad and call the optimizer with them", 240)
                tp.record(st, "", "MS955", "unsupported", reason)
                return [_with_comment(st, "MS955", reason)]
            if name == "set_epoch" and recv in tp.samplers:
                tp.record(st, "", "MS212", "approximate",
                          "set_epoch removed: a sharded MindSpore dataset reshuffles every epoch itself")
                return self._remove(st)
        if tp.qual(call.func) == "torch.distributed.init_process_group":
            tp.conv.used.add("ms")
            new = [_stmt("ms.communication.init()"),
                   _stmt("ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, "
                         "gradients_mean=True)")]
            new[0] = new[0].with_changes(leading_lines=st.leading_lines)
            tp.record(st, new[0], "MS210", "approximate",
                      "init_process_group -> communication.init() + data-parallel context with mean "
                      "gradients; the backend follows the device target")
            return new
        return None

    @staticmethod
    def _remove(node):
        if node.leading_lines:
            return [cst.SimpleStatementLine([cst.Pass()], leading_lines=node.leading_lines)]
        return []

    def _is_loader(self, node) -> bool:
        name = dotted(node)
        return name is not None and (name in self.tp.loaders or _looks_loader(name))

    def _len_target(self, arg):
        """The replacement of ``len(arg)`` when ``arg`` is a loader or ``loader.dataset``."""
        if self._is_loader(arg):
            return f"{code_of(arg)}.get_dataset_size()"
        if isinstance(arg, cst.Attribute) and arg.attr.value == "dataset" and self._is_loader(arg.value):
            # the rows before batching: the size of the batch's input dataset (exact also for
            # a partial last batch, and whatever the loader's name is bound to in this scope)
            return f"{code_of(arg.value)}.children[0].get_dataset_size()"
        return None


class _LenRewriter(cst.CSTTransformer):
    def __init__(self, cleanup: _Cleanup):
        self.cleanup = cleanup

    def leave_Call(self, original, updated):
        if isinstance(updated.func, cst.Name) and updated.func.value == "len" and len(updated.args) == 1:
            text = self.cleanup._len_target(updated.args[0].value)
            if text is not None:
                return parse_expr(text)
        return updated


class _AutogradGrad:
    """``g = torch.autograd.grad(f(x), x, create_graph=True)[0]`` -> ``g = ms.grad(lambda x: f(x))(x)``.

    The pattern is clear when ``inputs`` is one name and ``outputs`` is an expression whose names
    are either that input or assigned by a simple statement earlier in the same block (inlined
    into the lambda). ``x.requires_grad_()`` on that input is dropped: ms.grad differentiates
    with respect to the lambda's argument.
    """

    def __init__(self, tp: TrainingPass):
        self.tp = tp

    def __call__(self, body):
        body = list(body)
        changed = False
        for i, st in enumerate(body):
            new = self._rewrite(body, i)
            if new is not None:
                body[i] = new[0]
                for j in new[1]:
                    old = body[j]
                    self.tp.record(old, "", "MS209", "exact",
                                   "requires_grad_ dropped: ms.grad differentiates its lambda's argument",
                                   before=code_of(old))
                    body[j] = cst.SimpleStatementLine([cst.Pass()], leading_lines=old.leading_lines) \
                        if old.leading_lines else None
                changed = True
        return [b for b in body if b is not None] if changed else None

    def _rewrite(self, body, i):
        st = body[i]
        if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1
                and isinstance(st.body[0], cst.Assign)):
            return None
        value = st.body[0].value
        index0 = False
        if isinstance(value, cst.Subscript) and len(value.slice) == 1 \
                and isinstance(value.slice[0].slice, cst.Index) \
                and code_of(value.slice[0].slice.value) == "0":
            index0, value = True, value.value
        if not (isinstance(value, cst.Call) and self.tp.qual(value.func) == "torch.autograd.grad"):
            return None
        args = _bind(value, ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph",
                             "only_inputs", "allow_unused", "is_grads_batched", "materialize_grads"])
        if args is None or "outputs" not in args or not isinstance(args.get("inputs"), cst.Name):
            return None
        extra = set(args) - {"outputs", "inputs", "grad_outputs", "retain_graph", "create_graph"}
        if extra:
            return None
        x = args["inputs"].value
        out = args["outputs"]
        go = args.get("grad_outputs")
        if go is not None:
            # grad_outputs=ones_like(outputs): the gradient of the sum
            if not (isinstance(go, cst.Call) and (self.tp.qual(go.func) or "").endswith("ones_like")
                    and go.args and code_of(go.args[0].value) == code_of(out)):
                return None
            out = cst.Call(cst.Attribute(_paren(out), cst.Name("sum")))
        # inline names defined earlier in this block by `name = expr`
        subst = {}
        for j in range(i - 1, -1, -1):
            b = body[j]
            if isinstance(b, cst.SimpleStatementLine) and len(b.body) == 1 \
                    and isinstance(b.body[0], cst.Assign) and len(b.body[0].targets) == 1 \
                    and isinstance(b.body[0].targets[0].target, cst.Name):
                name = b.body[0].targets[0].target.value
                if name != x and name not in subst:
                    subst[name] = b.body[0].value
        expr = out.visit(_Inline({n: v for n, v in subst.items() if n in _Names.of(out).reads}))
        if x not in _Names.of(expr).reads:
            return None
        drops = [j for j in range(i) if _requires_grad_of(body[j], x)]
        for t in st.body[0].targets:
            self.tp.tensor_names.update(_Names.of(cst.Assign([t], cst.Name("_"))).writes)
        self.tp.conv.used.add("ms")
        grad = f"ms.grad(lambda {x}: {code_of(expr)})({x})"
        new_value = parse_expr(grad if index0 else f"({grad},)")
        new = st.with_changes(body=[st.body[0].with_changes(value=new_value)])
        self.tp.record(st, new, "MS209", "transformed",
                       "torch.autograd.grad(outputs, x) -> ms.grad(lambda x: outputs)(x): the graph "
                       "is rebuilt from x (higher order works: nothing to retain or create)",
                       before=code_of(st))
        return new, drops


class _Inline(cst.CSTTransformer):
    def __init__(self, subst):
        self.subst = subst

    def leave_Name(self, original, updated):
        v = self.subst.get(updated.value)
        return _paren(v) if v is not None else updated

    def visit_Attribute(self, node):
        node.value.visit(self)
        return False

    def leave_Attribute(self, original, updated):
        return updated.with_changes(value=original.value.visit(self))


def _paren(e):
    if isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _requires_grad_of(st, x: str) -> bool:
    m = _method_call(st, "requires_grad_")
    if m is not None and dotted(m[0]) == x:
        return True
    if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and isinstance(st.body[0], cst.Assign):
        t = st.body[0].targets[0].target
        return dotted(t) == f"{x}.requires_grad"
    return False


# --------------------------------------------------------------------------------------------
# entry point used by the converter
# --------------------------------------------------------------------------------------------
def apply(conv, module: cst.Module, code: str) -> cst.Module:
    """Run the training pass; on an unexpected failure leave the module to the main walk."""
    n = len(conv.changes)
    try:
        return _apply(conv, module, code)
    except Exception as exc:  # noqa: BLE001 (a converter bug must not lose the file)
        del conv.changes[n:]
        conv.training_tensors = set()
        conv.changes.append(Change(1, "MS953", "unsupported", "", "",
                                   f"training pass skipped after an internal error "
                                   f"({type(exc).__name__}: {exc})"[:200]))
        return module
    finally:
        ORIGIN.clear()


def _apply(conv, module: cst.Module, code: str) -> cst.Module:
    """Run the training pass on ``module`` before the main walk.

    Records its changes on ``conv`` and re-aligns ``conv.stmt_lines`` (the main walker's line
    numbers) with the rewritten tree, so reported lines still point into the input file.

    Returns:
        The rewritten module (``module`` itself when the file has no training code).
    """
    if not any(t in code for t in _TRIGGERS):
        return module
    tp = TrainingPass(conv)
    tp.conv_code = code
    conv.training = tp
    tp.lines = _statement_ids(module.body, conv.stmt_lines)
    start = module
    if "autograd.grad" in code:
        body = _walk_blocks(list(module.body), _AutogradGrad(tp))
        if body is not None:
            start = module.with_changes(body=body)
    if "autocast" in code:
        # first: a backward() inside `with autocast():` then sits in the loop body with its step
        body = _walk_blocks(list(start.body), _Cleanup(tp, autocast_only=True))
        if body is not None:
            start = start.with_changes(body=body)
    new = tp.run(start)
    if True:  # a statement walk that rebuilds only what it changes: cheap
        body = _walk_blocks(list(new.body), _Cleanup(tp))
        if body is not None:
            new = new.with_changes(body=body)
    if not tp.changes:
        return module
    last = 1
    for node, before, after, rule_id, label, note in tp.changes:
        line = tp.lines.get(id(node)) or last
        last = line
        conv.changes.append(Change(line, rule_id, label, _short(before) if isinstance(before, str) else before,
                                   _short(after) if isinstance(after, str) else after, note))
    # the main walk numbers statements in this order: original ones keep their lines, new
    # ones take the line of the statement they replace (or of the one before them)
    conv.stmt_lines = _ordered_lines(new.body, {**tp.lines, **tp.generated_lines})
    return new


