"""Differential proofs of mapping-table entries: the torch code and its conversion, run side by side.

Every entry of ``mappings/*.toml`` is proven by at least one case in a ``tests/mappings/test_*.py``
module's ``CASES`` list (``test_every_entry_proven.py`` enforces it). A case names the torch API it
proves (the entry's torch name, as ``mappings.load_tables()`` keys it) and is one of:

- :class:`Expr`: an expression over named inputs, converted inside
  ``def f(x: torch.Tensor, ...): return <expr>``; both functions run on the same arrays; the
  outputs must agree in shape, dtype and value, and (``grad=True``) so must the gradients of
  ``sum(out * cotangent)`` with respect to every floating-point input.
- :class:`Layer`: a constructor call, converted inside ``def build(): return <ctor>``; torch's
  weights are copied into the converted cell with the checker's weight map (every tensor on both
  sides accounted for), then outputs, input gradients and parameter gradients are compared.
- :class:`Marked`: code that must come out unchanged with a ``# migrate: MS9xx`` marker (the proof
  for an entry labelled ``unsupported``: the converter refuses it visibly).
- :class:`Program`: a training-script snippet (optimizer steps, a learning-rate schedule, a
  loss scaler, data batches, a process group) defining ``run(...)``; the snippet and its
  conversion run on the same arrays and their returned values (parameters after each step,
  learning rates, batches, ranks) must agree in shape, dtype and value.
- :class:`ProvenBy`: the entry is proven by a named test elsewhere (training loops, optimizers:
  whole scripts), given as ``path::test_name``; the test must exist.

Inputs come from :data:`BANK` (fixed arrays) or from ``arrays``: ``(name, numpy expression)`` pairs
evaluated with ``np`` and a seeded ``rs = np.random.RandomState(0)``.

Example::

    CASES = [
        Expr("torch.nn.functional.relu", "F.relu(x)"),
        Expr("torch.argmax", "torch.argmax(x, 1)", grad=False),
        Layer("torch.nn.Conv2d", "nn.Conv2d(2, 3, 3, padding=1)", input="img"),
        Marked("torch.nn.CircularPad1d", "nn.CircularPad1d(2)"),
    ]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from migrate import convert_source

REPO = Path(__file__).resolve().parents[2]

_rs = np.random.RandomState(0)
BANK = {
    "x": _rs.randn(2, 3, 4).astype(np.float32),
    "y": _rs.randn(2, 3, 4).astype(np.float32),
    "v": _rs.randn(5).astype(np.float32),
    "m": _rs.randn(3, 4).astype(np.float32),
    "sq": _rs.randn(4, 4).astype(np.float32),
    "w": _rs.randn(5, 4).astype(np.float32),
    "img": _rs.randn(1, 2, 6, 6).astype(np.float32),
    "seq": _rs.randn(2, 5, 4).astype(np.float32),      # (batch, time, features)
    "vol": _rs.randn(1, 2, 4, 4, 4).astype(np.float32),
    "pos": (np.abs(_rs.randn(2, 3, 4)) + 0.1).astype(np.float32),   # > 0: log, sqrt, pow
    "u": _rs.uniform(0.05, 0.95, (2, 3, 4)).astype(np.float32),     # in (0, 1): probabilities
    "mask": _rs.rand(2, 3, 4) > 0.5,
    "t": np.array([0, 2], dtype=np.int64),                           # class indices for (2, 3)
    "idx": _rs.randint(0, 3, (2, 3, 4)).astype(np.int64),
    "n": _rs.randint(-5, 6, (2, 3, 4)).astype(np.int64),
}
HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"


@dataclass(frozen=True)
class Expr:
    """An expression proven by running it on torch and on ms_core.

    Attributes:
        api: the torch name the case proves (a ``mappings.load_tables()`` key).
        code: the torch expression; inputs are the names in ``inputs``.
        inputs: names from :data:`BANK` or ``arrays`` passed to ``f`` (all of them by default:
            the names the expression uses, found by a word match).
        grad: compare gradients with respect to the floating-point inputs.
        check: ``"values"`` (shape, dtype, values), ``"stats"`` (shape, dtype, mean and std within
            ``rtol`` of torch's: random sampling), ``"shape"`` (shape and dtype only: ``why`` says
            why nothing more can be compared).
        dtype: ``None`` (must equal torch's) or the numpy dtype name ms_core must give instead,
            with the reason in ``why`` (e.g. MindSpore's Int32 argmin); a tuple gives one per
            output (``None`` where torch's holds).
        arrays: extra inputs as ``(name, numpy expression)``, evaluated with ``np`` and ``rs``.
    """

    api: str
    code: str
    grad: bool = True
    check: str = "values"
    dtype: str | tuple | None = None
    why: str = ""
    inputs: tuple[str, ...] | None = None
    arrays: tuple[tuple[str, str], ...] = ()
    rtol: float = 1e-5
    atol: float = 1e-6


@dataclass(frozen=True)
class Layer:
    """A layer proven by building it on both sides with torch's weights and running it.

    Attributes:
        api: the torch name the case proves.
        ctor: the torch constructor call (``nn.Conv2d(2, 3, 3)``).
        input: the :data:`BANK` name (or names, a tuple) the layer is called with.
        train: run in training mode (deterministic layers only, e.g. BatchNorm batch statistics).
        grad: compare input and parameter gradients.
        constant: input names not differentiated (torch refuses a gradient for them, e.g. the
            target of SoftMarginLoss).
    """

    api: str
    ctor: str
    input: str | tuple[str, ...] = "x"
    train: bool = False
    grad: bool = True
    constant: tuple[str, ...] = ()
    arrays: tuple[tuple[str, str], ...] = ()
    rtol: float = 1e-5
    atol: float = 1e-6


@dataclass(frozen=True)
class Program:
    """A snippet defining ``run(<inputs>)``, proven by running it on torch and converted.

    Attributes:
        api: the torch name the case proves.
        code: module-level torch code (classes, helpers) defining ``run``; its parameters are
            names from :data:`BANK` or ``arrays``, passed as tensors on each side.
        inputs: the names passed to ``run``, in order.
        uses: text the converted code must contain (the entry's target: proof that the entry,
            not some other rule, produced the conversion).
        dtype: as :class:`Expr` (``None``: torch's dtypes).
        reference: torch code run in place of ``code`` on torch's side, for code that torch
            cannot run on a CPU-only machine (``torch.cuda.amp.GradScaler`` disables itself);
            ``why`` cites torch's documentation that the two are the same.
    """

    api: str
    code: str
    inputs: tuple[str, ...] = ()
    uses: str = ""
    reference: str = ""
    arrays: tuple[tuple[str, str], ...] = ()
    dtype: str | tuple | None = None
    check: str = "values"
    why: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6


@dataclass(frozen=True)
class Marked:
    """Code that the converter must leave with a marker (an ``unsupported`` entry's proof).

    ``id``: when given, the last line of ``code`` must come out unchanged (not renamed, not
    rewritten) right under a ``# migrate: <id>`` marker.
    """

    api: str
    code: str
    id: str = ""


@dataclass(frozen=True)
class ProvenBy:
    """An entry proven by a test elsewhere: ``path::test_name`` relative to the repository."""

    api: str
    test: str


def case_id(case) -> str:
    """A readable pytest id: the API and the code."""
    if isinstance(case, Program):
        return f"{case.api}:{case.uses or case.code.strip().splitlines()[-1]}"
    text = getattr(case, "code", None) or getattr(case, "ctor", None) or getattr(case, "test", "")
    return f"{case.api}:{text}"


# ---- running ---------------------------------------------------------------------------------------
def _arrays(case) -> dict:
    values = dict(BANK)
    rs = np.random.RandomState(0)
    for name, expr in case.arrays:
        values[name] = np.asarray(eval(expr, {"np": np, "rs": rs}))  # noqa: S307 (test data)
    return values


def _used_names(code: str, values: dict) -> tuple[str, ...]:
    words = set(re.findall(r"\b[A-Za-z_]\w*\b", code))
    return tuple(name for name in values if name in words)


def _convert(code: str) -> str:
    res = convert_source(code)
    assert res.error is None, res.error
    return res.code


def _exec(code: str, name: str):
    ns: dict = {}
    exec(compile(code, f"<{name}>", "exec"), ns)  # noqa: S102 (the code under test)
    return ns


def _flat(out) -> list:
    """Outputs as a flat list of numpy arrays / Python values (tuples, lists, Size unpacked)."""
    if isinstance(out, (tuple, list)):
        return [v for item in out for v in _flat(item)]
    if hasattr(out, "asnumpy"):
        return [out.asnumpy()]
    if hasattr(out, "detach"):
        return [out.detach().numpy()]
    return [out]


def _leaves(out) -> list:
    """Outputs as a flat list in _flat's order (an LSTM's (out, (h, c)) gives out, h, c)."""
    if isinstance(out, (tuple, list)):
        return [v for item in out for v in _leaves(item)]
    return [out]


def _compare(label, got, ref, case, outputs: bool = True) -> None:
    """Shapes, dtypes and values of ``got`` against ``ref``; ``case.dtype`` applies to outputs only."""
    assert len(got) == len(ref), f"{label}: {len(got)} outputs, torch gives {len(ref)}"
    for i, (g, r) in enumerate(zip(got, ref)):
        where = f"{label}[{i}]"
        if not isinstance(r, np.ndarray):
            assert not isinstance(g, np.ndarray) or g.shape == (), f"{where}: {g!r} vs torch {r!r}"
            assert g == r or np.isclose(g, r, rtol=case.rtol, atol=case.atol), f"{where}: {g!r} vs torch {r!r}"
            continue
        assert isinstance(g, np.ndarray), f"{where}: got {type(g).__name__}, torch gives an array"
        assert g.shape == r.shape, f"{where}: shape {g.shape} vs torch {r.shape}"
        want = getattr(case, "dtype", None) if outputs else None
        if isinstance(want, tuple):
            want = want[i]
        want = want or r.dtype.name
        assert g.dtype.name == want, f"{where}: dtype {g.dtype} vs {want}"
        check = getattr(case, "check", "values")
        if check == "values":
            if r.dtype.kind in "biu":
                np.testing.assert_array_equal(g, r, err_msg=where)
            else:
                np.testing.assert_allclose(g, r, rtol=case.rtol, atol=case.atol, err_msg=where)
        elif check == "stats":
            for stat in (np.mean, np.std):
                np.testing.assert_allclose(stat(g.astype(np.float64)), stat(r.astype(np.float64)),
                                           rtol=case.rtol, atol=case.atol, err_msg=f"{where} {stat.__name__}")


def _cotangents(arrays: list) -> list:
    rs = np.random.RandomState(1)
    # np.asarray: randn() of a 0-d output's empty shape is a Python float
    return [np.asarray(rs.randn(*a.shape), dtype=a.dtype)
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" else None for a in arrays]


def run_expr(case: Expr) -> None:
    """Run one :class:`Expr` case; AssertionError names what differs."""
    import ms_core as ms
    import torch

    values = _arrays(case)
    names = case.inputs if case.inputs is not None else _used_names(case.code, values)
    sig = ", ".join(f"{n}: torch.Tensor" for n in names)
    torch_code = f"{HEADER}def f({sig}):\n    return {case.code}\n"
    ms_code = _convert(torch_code)
    assert "# migrate: MS9" not in ms_code, f"the converter marked the case:\n{ms_code}"
    tf, mf = _exec(torch_code, "torch")["f"], _exec(ms_code, "converted")["f"]
    arrays = [values[n] for n in names]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    t_in = [torch.tensor(a, requires_grad=case.grad and i in floats) for i, a in enumerate(arrays)]
    torch.manual_seed(0)
    t_out = tf(*t_in)
    ms.set_seed(0)
    m_out = mf(*(ms.Tensor(a) for a in arrays))
    ref, got = _flat(t_out), _flat(m_out)
    _compare(f"{case.code}\n  converted: {ms_code.splitlines()[-1].strip()}\n  output", got, ref, case)
    if not case.grad or case.check != "values":
        return
    cots = _cotangents(ref)
    t_outs = _leaves(t_out)
    loss = sum((o * torch.tensor(c)).sum() for o, c in zip(t_outs, cots) if c is not None)
    assert floats and not isinstance(loss, int), "grad=True needs a floating-point input and output"
    loss.backward()
    t_grads = [t_in[i].grad.numpy() if t_in[i].grad is not None else np.zeros_like(arrays[i])
               for i in floats]

    def scalar(*args):
        out = mf(*args)
        outs = _leaves(out)
        return sum((o * ms.Tensor(c)).sum() for o, c in zip(outs, cots) if c is not None)

    m_grads = ms.grad(scalar, grad_position=tuple(floats))(*(ms.Tensor(a) for a in arrays))
    m_grads = m_grads if isinstance(m_grads, tuple) else (m_grads,)
    _compare(f"{case.code}\n  gradient", [g.asnumpy() for g in m_grads], t_grads, case, outputs=False)


def run_layer(case: Layer) -> None:
    """Run one :class:`Layer` case: torch weights copied, outputs and gradients compared."""
    import ms_core as ms
    import torch
    from migrate.check.weights import transfer

    values = _arrays(case)
    names = (case.input,) if isinstance(case.input, str) else case.input
    torch_code = f"{HEADER}def build():\n    return {case.ctor}\n"
    ms_code = _convert(torch_code)
    assert "# migrate: MS9" not in ms_code, f"the converter marked the case:\n{ms_code}"
    torch.manual_seed(0)
    tnet = _exec(torch_code, "torch")["build"]()
    cell = _exec(ms_code, "converted")["build"]()
    report = transfer(tnet, cell)
    assert report.ok, "weight transfer: " + "; ".join(report.problems())
    tnet.train(case.train)
    cell.set_train(case.train)
    arrays = [values[n] for n in names]
    diff = [a.dtype.kind == "f" and n not in case.constant for n, a in zip(names, arrays)]
    t_in = [torch.tensor(a, requires_grad=case.grad and d) for a, d in zip(arrays, diff)]
    t_out = tnet(*t_in)
    m_out = cell(*(ms.Tensor(a) for a in arrays))
    ref, got = _flat(t_out), _flat(m_out)
    _compare(f"{case.ctor}\n  converted: {ms_code.splitlines()[-1].strip()}\n  output", got, ref, case)
    if not case.grad:
        return
    cots = _cotangents(ref)
    t_outs = _leaves(t_out)
    sum((o * torch.tensor(c)).sum() for o, c in zip(t_outs, cots) if c is not None).backward()
    floats = [i for i, d in enumerate(diff) if d]
    params = dict(tnet.named_parameters())
    pairs = [(t, m) for t, m in report.pairs() if t in params and params[t].requires_grad]
    ms_params = {p.name: p for p in cell.trainable_params()}
    by_path = dict(cell.parameters_and_names())
    weights = [by_path.get(m, ms_params.get(m)) for _, m in pairs]

    def scalar(*args):
        out = cell(*args)
        outs = _leaves(out)
        return sum((o * ms.Tensor(c)).sum() for o, c in zip(outs, cots) if c is not None)

    grads = ms.grad(scalar, grad_position=tuple(floats) or None, weights=weights or None)(
        *(ms.Tensor(a) for a in arrays))
    if floats and weights:
        in_grads, w_grads = grads
    elif floats:
        in_grads, w_grads = grads, ()
    else:
        in_grads, w_grads = (), grads
    in_grads = in_grads if isinstance(in_grads, tuple) else (in_grads,)
    _compare(f"{case.ctor}\n  input gradient", [g.asnumpy() for g in in_grads],
             [t_in[i].grad.numpy() for i in floats], case)
    for (tname, mname), g in zip(pairs, w_grads):
        want = params[tname].grad.numpy()
        _compare(f"{case.ctor}\n  gradient of {tname} -> {mname}", [g.asnumpy().reshape(want.shape)], [want], case)


def run_program(case: Program) -> None:
    """Run one :class:`Program` case: both ``run`` functions on the same arrays, results compared."""
    import warnings

    import ms_core as ms
    import torch

    values = _arrays(case)
    torch_code = f"{HEADER}{case.code.strip()}\n"
    ms_code = _convert(torch_code)
    assert "# migrate: MS9" not in ms_code, f"the converter marked the case:\n{ms_code}"
    assert not re.search(r"^\s*(import|from) torch\b", ms_code, re.M), f"torch left:\n{ms_code}"
    assert case.uses in ms_code, f"{case.uses!r} not in the conversion:\n{ms_code}"
    arrays = [values[n] for n in case.inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's advice (scheduler order, CUDA scaler on CPU)
        torch.manual_seed(0)
        ref_code = f"{HEADER}{case.reference.strip()}\n" if case.reference else torch_code
        ref = _flat(_exec(ref_code, "torch")["run"](*(torch.tensor(a) for a in arrays)))
    ms.set_seed(0)
    got = _flat(_exec(ms_code, "converted")["run"](*(ms.Tensor(a) for a in arrays)))
    _compare(f"{case.api}\n  converted:\n{ms_code}\n  output", got, ref, case)


def run_marked(case: Marked) -> None:
    """The converter leaves the code and writes a marker above it."""
    code = f"{HEADER}{case.code}\n"
    out = _convert(code)
    assert "# migrate: MS9" in out, f"no marker for {case.api}:\n{out}"
    if case.id:
        call = case.code.strip().splitlines()[-1]
        lines = out.splitlines()
        assert call in lines, f"{case.api}: the call was rewritten:\n{out}"
        above = lines[lines.index(call) - 1]
        assert above.startswith(f"# migrate: {case.id} "), f"{case.api}: no {case.id} marker above:\n{out}"


def run_proven_by(case: ProvenBy) -> None:
    """The named test exists (it runs with the rest of the suite)."""
    path, _, name = case.test.partition("::")
    text = (REPO / path).read_text(encoding="utf-8")
    assert re.search(rf"^(async )?def {re.escape(name)}\(", text, re.M), f"{case.test} does not exist"


RUNNERS = {Expr: run_expr, Layer: run_layer, Program: run_program, Marked: run_marked,
           ProvenBy: run_proven_by}


# A torch process group runs threads (gloo's) in the process that starts it, and their teardown
# once blocked the pytest process forever: a Program that starts one runs in a child process.
CHILD_TIMEOUT = 300  # seconds; such a proof takes a few seconds


def starts_process_group(case) -> bool:
    return isinstance(case, Program) and "init_process_group" in case.code + case.reference


def run(case) -> None:
    """Run any case (in a child process with a time limit when it starts a process group)."""
    if starts_process_group(case):
        from tests.child import run_in_child
        run_in_child("tests.mappings.proof:run_program", case, timeout=CHILD_TIMEOUT)
        return
    RUNNERS[type(case)](case)
