"""`migrate check`: run a PyTorch model and its conversion side by side and say where they differ.

Library entry point::

    from migrate.check import check
    result = check(torch_net, ms_net, [x], mode="both", train_steps=5)
    result.passed, result.culprit        # True/False, the first layer at fault (or None)
    print(result.to_markdown())          # also .to_json(), .to_html(), .print_table()

The package never imports the converter: :mod:`migrate.check.harness` (behind ``migrate check``)
takes it as an argument.
"""
from .api import CheckSettings, check
from .result import EXIT_ERROR, EXIT_MISMATCH, EXIT_PASS, CheckError, CheckResult

__all__ = ["check", "CheckSettings", "CheckError", "CheckResult", "EXIT_PASS", "EXIT_MISMATCH",
           "EXIT_ERROR"]
