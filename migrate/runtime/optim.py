"""torch.optim optimizers whose update rules MindSpore 2.10 lacks, over the target's ``ops``.

``TorchLBFGS`` is torch.optim.LBFGS without a line search (torch's default): ``step(closure)``
re-evaluates the loss through ``closure``, which the training pass writes to return
``(loss, grads)`` (its ``backward()`` becomes ``ms.value_and_grad`` over ``optimizer.parameters``).
The arithmetic is torch's, in the parameters' dtype, on the target's tensors.
"""
from .backend import ops


class TorchLBFGS:
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None): L-BFGS with torch's two-loop
    recursion, step sizes and stopping tests. ``step(closure)``: ``closure()`` returns
    ``(loss, grads)``, the grads aligned with ``parameters``; returns the first loss."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if line_search_fn is not None:
            raise ValueError(f"For 'LBFGS', line_search_fn {line_search_fn!r} is not supported here: "
                             f"only None (a fixed step of lr), torch's default.")
        self.parameters = tuple(p for p in params if p.requires_grad)
        self.lr, self.max_iter = lr, max_iter
        self.max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size = history_size
        self.state = {"func_evals": 0, "n_iter": 0}

    def _evaluate(self, closure):
        out = closure()
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("For 'LBFGS', the closure must return (loss, grads): its backward() "
                            "becomes ms.value_and_grad over the optimizer's parameters.")
        loss, grads = out
        return loss, ops.cat([ops.reshape(g, (-1,)) for g in grads])

    def _add(self, t, d):
        offset = 0
        for p in self.parameters:
            n = p.size
            p.set_data(p + ops.reshape(d[offset:offset + n], p.shape) * t)
            offset += n

    def _direction(self, flat_grad, s):
        """The two-loop recursion over the stored pairs: -H g."""
        q = -flat_grad
        al = [None] * len(s["old_dirs"])
        for i in range(len(s["old_dirs"]) - 1, -1, -1):
            al[i] = (s["old_stps"][i] * q).sum() * s["ro"][i]
            q = q - s["old_dirs"][i] * al[i]
        r = q * s["H_diag"]
        for i in range(len(s["old_dirs"])):
            be_i = (s["old_dirs"][i] * r).sum() * s["ro"][i]
            r = r + s["old_stps"][i] * (al[i] - be_i)
        return r

    def _remember(self, flat_grad, s):
        """Store the newest (y, s) pair when its curvature is positive; the new direction."""
        y = flat_grad - s["prev_flat_grad"]
        step = s["d"] * s["t"]
        ys = (y * step).sum()
        if ys > 1e-10:
            if len(s["old_dirs"]) == self.history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    s[key].pop(0)
            s["old_dirs"].append(y)
            s["old_stps"].append(step)
            s["ro"].append(1.0 / ys)
            s["H_diag"] = ys / (y * y).sum()
        return self._direction(flat_grad, s)

    def step(self, closure):
        s = self.state
        orig_loss, flat_grad = self._evaluate(closure)
        loss = float(orig_loss)
        evals = 1
        s["func_evals"] += 1
        if ops.abs(flat_grad).max() <= self.tolerance_grad:
            return orig_loss
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            s["n_iter"] += 1
            if s["n_iter"] == 1:
                s["d"], s["old_dirs"], s["old_stps"], s["ro"], s["H_diag"] = -flat_grad, [], [], [], 1
            else:
                s["d"] = self._remember(flat_grad, s)
            s["prev_flat_grad"], prev_loss = flat_grad, loss
            if s["n_iter"] == 1:
                s["t"] = min(1.0, 1.0 / float(ops.abs(flat_grad).sum())) * self.lr
            else:
                s["t"] = self.lr
            if (flat_grad * s["d"]).sum() > -self.tolerance_change:
                break
            self._add(s["t"], s["d"])
            done = False
            if n_iter != self.max_iter:
                new_loss, flat_grad = self._evaluate(closure)
                loss = float(new_loss)
                done = bool(ops.abs(flat_grad).max() <= self.tolerance_grad)
                evals += 1
                s["func_evals"] += 1
            if n_iter == self.max_iter or evals >= self.max_eval or done:
                break
            if ops.abs(s["d"] * s["t"]).max() <= self.tolerance_change:
                break
            if abs(loss - prev_loss) < self.tolerance_change:
                break
        return orig_loss
