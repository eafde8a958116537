"""Start-up hook of `migrate check-ddp`: the checker puts this directory first on PYTHONPATH,
so every Python process of a checked run (workers started by torchrun, mp.spawn, the ms_core
launcher or msrun) loads the trace hooks before the script runs. It loads
migrate/check/ddp_hooks.py by path (MindSpore's interpreter need not import this project's
package) and then runs the sitecustomize it shadows, if there is one."""
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shadowed():
    """The sitecustomize.py this one hides, further down sys.path."""
    for entry in sys.path:
        path = os.path.join(entry or os.getcwd(), "sitecustomize.py")
        if os.path.abspath(entry or os.getcwd()) != _here and os.path.isfile(path):
            return path
    return None


if os.environ.get("MIGRATE_DDP_TRACE"):
    _load("_migrate_ddp_hooks", os.path.join(os.path.dirname(_here), "ddp_hooks.py")).install()
_other = _shadowed()
if _other is not None:
    _load("_shadowed_sitecustomize", _other)
