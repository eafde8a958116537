"""One example per rule of the import, scope and run-time area (for test_rules.py's check that
every rule is exercised): torch code after the usual header (torch, nn, F imported)."""

RULE_EXAMPLES = {
    "passthrough": "y = torch.jit.script(f)\n",
    "no_op": "torch.cuda.synchronize()\n",
    "zero": "n = torch.cuda.device_count()\n",
    "none_value": "d = torch.accelerator.current_accelerator()\n",
    "annotated_value": "y = torch.jit.annotate(int, 3)\n",
    "builtin_isinstance": "ok = torch.jit.isinstance(x, list)\n",
    "final_annotation": "class A:\n    k: torch.jit.Final[int] = 1\n",
    "backend_flag": "torch.backends.cudnn.benchmark = True\n",
    "removed_decorator": "@torch.jit.script\ndef f(x):\n    return x\n",
    "capability_probe": "ok = hasattr(F, 'silu')\n",
    "version_probe": "old = torch.__version__ < '1.5'\n",
    "torch_annotation": "def f(d: torch.layout):\n    return d\n",
}
