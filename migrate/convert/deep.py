"""Run a function in a thread with a large stack and a high recursion limit (deep code)."""
from __future__ import annotations

import sys
import threading

# Enough for the deepest code ast.parse accepts (~3000 nested expressions); C frames of libcst's
# code generation take a few kB each, so the stack is sized for the limit, not the other way round.
DEEP_RECURSION_LIMIT = 60_000
DEEP_STACK_BYTES = 1 << 30


def run_deep(fn, *args):
    """Call ``fn(*args)`` in a thread with a 1 GiB stack and a high recursion limit; return its
    result or raise its exception."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    threading.stack_size(DEEP_STACK_BYTES)
    try:
        sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        worker = threading.Thread(target=target, name="migrate-deep")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]
    return box["value"]
