"""The real-MindSpore side of `migrate check --ms-python PYTHON`: a script run by that interpreter.

It imports only the standard library, NumPy and MindSpore (never this project: the interpreter
with MindSpore need not have libcst or torch). The checker (:mod:`migrate.check.third_side`)
starts it as ``PYTHON mindspore_side.py WORKDIR`` and talks to it through files in WORKDIR and
one JSON line per request on stdin / per answer on stdout:

- ``setup.json``: the converted tree's root, the module, the constructor expression, the seed;
  ``weights.npz``: every parameter by name (the ms_core model's, after torch's were copied in).
  Answer: ``{"ok": true, "missing": [...], "unused": [...]}``.
- ``{"cmd": "phase", "dir": D}`` with ``D/request.json`` (mode, gradients, loss kind, the
  arguments' layout: arrays by name, tuples and lists of them, plain values),
  ``D/inputs.npz``, ``D/targets.npz``, ``D/masks.npz`` (torch's dropout masks by layer path and
  call, functional ones in order; torch's random draws as ``draw/i``). The model runs in that
  mode with torch's masks and draws, forward hooks record every cell call, and with gradients
  ``mindspore.value_and_grad`` takes them w.r.t. the float inputs and every trainable parameter.
  Results: ``D/results.npz`` (``out/i``, ``layer/PATH#K/i``, ``grad/NAME``, ``loss``). Answer: ``{"ok": true,
  "notes": [...]}``.
- ``{"cmd": "quit"}``.

Errors are answered as ``{"ok": false, "error": "Type: message"}``.
"""
import importlib
import json
import os
import sys
import traceback
import types

import numpy as np


def _error(exc):
    """'Type: message' with MindSpore's framing lines ('-----', 'C++ Call Stack') left out."""
    lines = [ln.strip(" -") for ln in str(exc).strip().splitlines()]
    text = [ln for ln in lines if any(c.isalpha() for c in ln) and "Call Stack" not in ln]
    return f"{type(exc).__name__}: {'; '.join(text[:3])}" if text else type(exc).__name__


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for i in x for leaf in _leaves(i)]
    if isinstance(x, dict):
        return [leaf for v in x.values() for leaf in _leaves(v)]
    return [x] if hasattr(x, "asnumpy") else []


class Side:
    """One converted model on real MindSpore."""

    def __init__(self, workdir):
        import mindspore
        self.ms = mindspore
        self.workdir = workdir
        mindspore.set_context(mode=mindspore.PYNATIVE_MODE)

    def setup(self):
        with open(os.path.join(self.workdir, "setup.json"), encoding="utf-8") as f:
            spec = json.load(f)
        module = _import(spec["root"], spec["module"], spec["file"])
        self.ms.set_seed(spec["seed"])
        np.random.seed(spec["seed"])
        saved = sys.argv
        sys.argv = [spec["file"]]
        try:
            ns = dict(vars(module))
            for line in spec.get("imports", ()):
                exec(line, ns)  # the runtime names the converted expression reads
            self.net = eval(spec["expr"], ns)  # the user's own expression, converted
        finally:
            sys.argv = saved
        weights = np.load(os.path.join(self.workdir, "weights.npz"))
        own = dict(self.net.parameters_and_names())
        for name, value in own.items():
            if name in weights.files:
                value.set_data(self.ms.Tensor(weights[name]))
        return {"ok": True, "missing": sorted(set(own) - set(weights.files)),
                "unused": sorted(set(weights.files) - set(own))}

    def phase(self, directory):
        with open(os.path.join(directory, "request.json"), encoding="utf-8") as f:
            req = json.load(f)
        inputs = np.load(os.path.join(directory, "inputs.npz"))
        xs = [_argument(spec, inputs, self.ms) for spec in req["inputs"]]
        targets = np.load(os.path.join(directory, "targets.npz"))
        masks = np.load(os.path.join(directory, "masks.npz"))
        notes, results = [], {}
        self.net.set_train(req["mode"] == "train")
        answer = {"ok": True, "notes": notes}
        try:
            with _Recorder(self.net, results), _Masks(self.ms, self.net, masks, notes,
                                                       req["mode"] == "train"), \
                    _Draws(self.ms, masks, notes):
                if req["gradients"]:
                    self._gradients(xs, req, targets, results)
                else:
                    out = self.net(*xs)
                    for i, leaf in enumerate(_leaves(out)):
                        results[f"out/{i}"] = leaf.asnumpy()
        except Exception as exc:  # noqa: BLE001 (the layers recorded so far say where)
            traceback.print_exc()
            answer = {"ok": False, "error": _error(exc), "notes": notes}
        np.savez(os.path.join(directory, "results.npz"), **results)
        return answer

    def _gradients(self, xs, req, targets, results):
        ms = self.ms
        tensors = xs
        # gradients w.r.t. the float tensors given as whole arguments (as the other two sides)
        pos = tuple(i for i, x in enumerate(xs) if isinstance(x, ms.Tensor) and
                    x.asnumpy().dtype.kind == "f")
        names = [n for n, p in self.net.parameters_and_names() if p.requires_grad]
        params = dict(self.net.parameters_and_names())
        weights = [params[n] for n in names]
        holder = {}

        def fn(*args):
            out = self.net(*args)
            holder["out"] = out
            return _loss(ms, req["loss"], out, targets)
        grad_fn = ms.value_and_grad(fn, pos if pos else None, weights if weights else None)
        loss, grads = grad_fn(*tensors)
        g_in, g_w = (grads if pos and weights else (grads, ()) if pos else ((), grads))
        g_in = g_in if isinstance(g_in, tuple) else (g_in,)
        for i, g in zip(pos, g_in):
            results[f"grad/input[{i}]"] = g.asnumpy()
        for n, g in zip(names, g_w):
            results[f"grad/{n}"] = g.asnumpy()
        for i, leaf in enumerate(_leaves(holder["out"])):
            results[f"out/{i}"] = leaf.asnumpy()
        results["loss"] = np.asarray(loss.asnumpy())


def _argument(spec, arrays, ms):
    """A model argument rebuilt from its layout (see third_side._input_layout)."""
    if "array" in spec:
        return ms.Tensor(arrays[spec["array"]])
    if "tuple" in spec:
        return tuple(_argument(s, arrays, ms) for s in spec["tuple"])
    if "list" in spec:
        return [_argument(s, arrays, ms) for s in spec["list"]]
    return spec["value"]


def _loss(ms, kind, out, targets):
    """The checker's losses (migrate/check/losses.py), with its targets."""
    from mindspore import ops
    leaves = [o for o in _leaves(out) if o.asnumpy().dtype.kind == "f"]
    if kind == "sum":
        total = leaves[0].sum()
        for o in leaves[1:]:
            total = total + o.sum()
        return total
    if kind == "cross_entropy":
        onehot = ms.Tensor(targets["onehot"].astype(leaves[0].asnumpy().dtype))
        return -(ops.log_softmax(leaves[0], -1) * onehot).sum() / float(targets["onehot"].shape[0])
    total = None
    for i, o in enumerate(leaves):
        key = f"t{i}"
        if key not in targets.files:
            continue
        d = o - ms.Tensor(targets[key].astype(o.asnumpy().dtype))
        term = (d * d).mean()
        total = term if total is None else total + term
    return total


class _Recorder:
    """Forward hooks on every cell: outputs by path and call index."""

    def __init__(self, net, results):
        self.net, self.results, self.handles, self.counts = net, results, [], {}

    def __enter__(self):
        for path, cell in self.net.cells_and_names():
            self.handles.append(cell.register_forward_hook(self._hook(path)))
        return self

    def _hook(self, path):
        def hook(cell, args, output):
            k = self.counts.get(path, 0)
            self.counts[path] = k + 1
            for i, leaf in enumerate(_leaves(output)):
                self.results[f"layer/{path}#{k}/{i}"] = leaf.asnumpy()
        return hook

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()


_DROPOUT_LAYERS = ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "DropoutExt", "Dropout2dExt")


class _Masks:
    """torch's dropout masks in MindSpore's dropout cells (by path and call) and functional
    dropout (in call order)."""

    def __init__(self, ms, net, masks, notes, training):
        self.ms, self.net, self.masks, self.notes = ms, net, masks, notes
        self.training, self.cells, self.saved = training, [], {}

    def __enter__(self):
        if not self.training:
            return self
        # MindSpore's dropout layers and their subclasses (the runtime's), never a block named
        # after one (nnU-Net's ConvDropoutNormReLU holds a convolution)
        layers = tuple(c for c in (getattr(self.ms.nn, n, None) for n in _DROPOUT_LAYERS) if isinstance(c, type))
        for path, cell in self.net.cells_and_names():
            if isinstance(cell, layers):
                self._patch_cell(path, cell)
        self._patch_functional()
        return self

    def _keep(self, cell):
        p = getattr(cell, "p", None)
        return 1.0 - float(p) if isinstance(p, (int, float)) else float(cell.keep_prob)

    def _patch_cell(self, path, cell):
        counter = [0]
        ms = self.ms

        def construct(x, *args, **kwargs):
            k = counter[0]
            counter[0] += 1
            key = f"module/{path}#{k}"
            if key not in self.masks.files:
                self.notes.append(f"{path}#{k}: no torch mask; nothing dropped")
                return x
            mask = self.masks[key]
            keep = self._keep(cell)
            if mask.shape != tuple(x.shape):
                mask = np.broadcast_to(mask, tuple(x.shape)) if mask.ndim == len(x.shape) else \
                    np.ones(tuple(x.shape), bool)
            scale = np.float32(1.0 / keep) if keep else np.float32(0)
            return x * ms.Tensor((mask * scale).astype(x.asnumpy().dtype))
        object.__setattr__(cell, "construct", construct)
        self.cells.append(cell)

    def _patch_functional(self):
        from mindspore import ops
        import mindspore.ops.function.nn_func as nn_func
        order = [0]
        ms = self.ms

        def replay(input, p=0.5, training=True, *args, **kwargs):
            i = order[0]
            order[0] += 1
            key = f"functional/{i}"
            if not training or key not in self.masks.files:
                return input
            mask = self.masks[key].astype(input.asnumpy().dtype)
            if mask.shape != tuple(input.shape) and mask.size == int(np.prod(input.shape)):
                mask = mask.reshape(tuple(input.shape))  # torch's fused (N, H, L, S) attention
            return input * ms.Tensor(mask) / (1.0 - p)
        for owner in (ops, nn_func):
            for name in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
                if hasattr(owner, name):
                    self.saved[(owner, name)] = getattr(owner, name)
                    setattr(owner, name, replay)

    def __exit__(self, *exc):
        for cell in self.cells:
            cell.__dict__.pop("construct", None)
        for (owner, name), fn in self.saved.items():
            setattr(owner, name, fn)


_RANDOM = ("rand", "randn", "rand_like", "randn_like", "randint", "randint_like", "bernoulli",
           "normal", "uniform", "multinomial", "randperm")


class _Draws:
    """torch's random draws (``draw/i`` in masks.npz) given, in order, to the model's own calls
    of MindSpore's random ops (not MindSpore's internal ones) where the shapes agree."""

    def __init__(self, ms, masks, notes):
        self.ms, self.notes, self.saved = ms, notes, []
        self.draws = [masks[f"draw/{i}"] for i in range(len(masks.files))
                      if f"draw/{i}" in masks.files]
        self.i = 0

    def __enter__(self):
        if not self.draws:
            return self
        from mindspore import ops
        import mindspore.ops.function.random_func as random_func
        lib = os.path.dirname(os.path.abspath(self.ms.__file__)) + os.sep
        for name in _RANDOM:
            orig = getattr(random_func, name, None) or getattr(ops, name, None)
            if orig is None:
                continue
            for owner in (ops, random_func):
                if getattr(owner, name, None) is orig:
                    self.saved.append((owner, name, orig))
                    setattr(owner, name, self._wrap(orig, name, lib))
        return self

    def _wrap(self, orig, name, lib):
        def wrapper(*args, **kwargs):
            out = orig(*args, **kwargs)
            caller = os.path.abspath(sys._getframe(1).f_code.co_filename)
            if caller.startswith(lib) or not hasattr(out, "asnumpy"):
                return out
            i = self.i
            self.i += 1
            if i >= len(self.draws) or self.draws[i].shape != tuple(out.shape):
                self.notes.append(f"draw {i} (ops.{name} {list(out.shape)}): no torch draw of "
                                  f"that shape; not replayed")
                return out
            return self.ms.Tensor(self.draws[i].astype(out.asnumpy().dtype))
        return wrapper

    def __exit__(self, *exc):
        for owner, name, orig in self.saved:
            setattr(owner, name, orig)


def _import(root, module, file):
    """Import `module` from `root` (its parent packages as empty stand-ins when their
    __init__.py fails, as the checker does for the other two sides)."""
    sys.path.insert(0, root)
    saved = sys.argv
    sys.argv = [file]
    try:
        try:
            return importlib.import_module(module)
        except Exception:  # noqa: BLE001
            if "." not in module:
                raise
            for key in [k for k in sys.modules if k.split(".")[0] == module.split(".")[0]]:
                sys.modules.pop(key, None)
            parents = module.split(".")[:-1]
            for i in range(len(parents)):
                name = ".".join(parents[:i + 1])
                stub = types.ModuleType(name)
                stub.__path__ = [os.path.join(root, *parents[:i + 1])]
                sys.modules[name] = stub
            return importlib.import_module(module)
    finally:
        sys.argv = saved


def main(argv):
    workdir = argv[1]
    out = sys.stdout
    sys.stdout = sys.stderr  # the model's prints must not mix with the answers
    try:
        side = Side(workdir)
        answer = side.setup()
    except BaseException as exc:  # noqa: BLE001
        traceback.print_exc()
        answer, side = {"ok": False, "error": _error(exc)}, None
    out.write(json.dumps(answer) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("cmd") == "quit" or side is None:
            break
        try:
            answer = side.phase(req["dir"])
        except BaseException as exc:  # noqa: BLE001
            traceback.print_exc()
            answer = {"ok": False, "error": _error(exc)}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
