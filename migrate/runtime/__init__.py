"""The run-time help of converted code: what static translation cannot settle, as ordinary modules.

A converted file imports the names it uses (``from .migrate_runtime import TorchConv2d,
torch_size``); ``migrate convert`` writes one copy of this package into the output tree (as
``migrate_runtime``, or another name when the tree already has one), with :mod:`.backend` fixed
to the conversion's target. In this repository the package is ``migrate.runtime`` and the backend
is chosen by ``MIGRATE_RUNTIME_TARGET`` (``ms_core`` by default, or ``mindspore``).

Modules (:data:`MODULES`; :data:`EXPORTS` says which one defines each name):

- ``arguments``: torch's arguments as MindSpore takes them (plain Python; the converter folds
  literals with the same functions).
- ``values``: torch's methods on values the converter could not type (``torch_size``, ``torch_to``).
- ``guards``: ``TorchMissing``, the stand-in of a torch import that stays.
- ``signature``: the metaclass of the torch-signature classes.
- ``containers``, ``layers``, ``functional``, ``autograd``, ``data``, ``distributions``,
  ``optim``, ``einops``, ``imports``, ``distributed``: hand-written classes and functions with
  torch's semantics.
- ``generated``: the torch-signature classes and functions of every torch layer and function the
  mapping tables translate (``TorchConv2d``, ``torch_relu``), generated ahead of time by
  ``python -m migrate.convert.generate_runtime``; do not edit it by hand.
- ``vision``: torchvision's datasets over ``mindspore.dataset`` (last: it loads the dataset engine).

Attributes are imported on first use (``from migrate_runtime import torch_size`` loads
``values`` only), so a converted file pays for what it uses.

How to add a run-time helper:

1. Write it as an ordinary function or class in the module of its area (a new module goes into
   :data:`MODULES` too), by a public name that says it is torch's (``torch_<name>`` for a
   function, ``Torch<Name>`` for a class), importing the framework from ``.backend`` only
   (``from .backend import ms, nn, ops``) and the runtime's other modules relatively.
2. Test it directly against torch in ``tests/migrate/runtime/`` (forward values and, where
   differentiable, gradients).
3. Have the converter ask for it by name (``sigs.helper("torch_<name>")`` in a rule): the file
   gets ``from <runtime> import torch_<name>``; a single file written to stdout gets its source.
4. Run ``python -m migrate.convert.generate_runtime`` and commit the refreshed ``index.py`` (which
   module defines each name) and ``generated.py`` (a test compares both with a fresh generation).

The runtime never imports torch: converted code never reaches torch at run time.
"""
import importlib

from .index import EXPORTS

# the modules, in dependency order (each public name is defined in one of them: index.EXPORTS)
MODULES = ("arguments", "values", "guards", "signature", "containers", "layers", "functional", "autograd",
           "data", "distributions", "optim", "einops", "imports", "distributed", "generated", "vision")


def __getattr__(name):
    """The class or function ``name`` of the module that defines it (:data:`EXPORTS`)."""
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = found
    return found


def __dir__():
    return sorted([*globals(), *EXPORTS])
