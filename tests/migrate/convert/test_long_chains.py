"""Long method chains (fuzz finding F10): `torch.ones(2).abs().abs()...` converts, in time linear
in its length, and its report never recurses deeper than a short chain would.

The regression: every level of a chain asked is_tensor about its whole receiver (quadratic), and
each level's change rendered its whole chain as a snippet, lazily, when the result was pickled to
the parent process: outside the deep-stack thread, so a worker forked from a deep stack died.
"""
import sys

import migrate.convert.receivers as receivers
from migrate.convert.guarded import convert_text, run_deep
from migrate.convert.walker import convert_source


def chain(n: int) -> str:
    return "import torch\nx = torch.ones(2)" + ".abs()" * n + "\n"


def test_a_500_call_chain_converts_every_call():
    result = convert_text(chain(500))
    assert result.error is None
    assert result.code.splitlines()[-1] == "x = ops.ones((2,))" + ".abs()" * 500
    # import, ones (its entry's rule, empty_shape_factory), abs (tensor table)
    assert [c.rule for c in result.changes] == ["MS100", "MS331"] + ["MS003"] * 500


def test_receiver_typing_is_linear_in_the_chain_length(monkeypatch):
    steps = []
    real = receivers._tensor_step
    monkeypatch.setattr(receivers, "_tensor_step", lambda converter, node: steps.append(1) or real(converter, node))
    counts = {}
    for n in (100, 400):
        steps.clear()
        run_deep(convert_source, chain(n), "ms_core")
        counts[n] = len(steps)
    # quadratic typing asked n*(n+1)/2 questions (80,200 for 400 calls); each node is asked at
    # most twice (once on the way down, once when its receiver is known)
    assert counts[400] <= 2 * 400 + 10
    assert counts[400] <= 4 * counts[100] + 10


def test_snippets_of_a_long_chain_render_with_a_shallow_stack():
    result = run_deep(convert_source, chain(1000), "ms_core")
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 400)  # what a short chain needs; the whole chain needs ~8000
    try:
        rows = [change.to_dict() for change in result.changes]
    finally:
        sys.setrecursionlimit(old)
    last = rows[-1]
    # the outer end of the chain, where the change is, with what lies deeper written "…"
    assert last["before"].startswith("…") and last["before"].endswith(".abs().abs()")
    assert last["after"].startswith("…") and len(last["after"]) <= 120
    first = rows[1]  # torch.ones(2): short, written in full
    assert (first["before"], first["after"]) == ("torch.ones(2)", "ops.ones((2,))")
