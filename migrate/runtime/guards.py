"""The stand-in for the torch names converted code still mentions: converted code never imports torch.

A torch import stays when code the converter could not translate still uses its names (that code
carries a ``# migrate: MS9xx`` marker). Left as written, the import would stop the whole module
(and every module that imports it) where torch is absent, although the marked code may never
run: a pretrained-weight download, a ``__main__`` demo, a training-only branch; and where torch
is installed, the marked code would call torch with the target's tensors. So the converter binds
the names to stand-ins and keeps the import for type checkers only::

    if TYPE_CHECKING:  # migrate: MS900 converted code never imports torch: ...
        import torch
    else:
        torch = TorchMissing("torch", {"hub": "MS901 torch.hub.load_state_dict_from_url has no mapping"})

Using the stand-in (calling, truth-testing, iterating, indexing or comparing it) raises
ImportError with the marker's reason, whether torch is installed or not; naming it does not (a
class put in a registry at import is not used). No framework is imported here.
"""


class TorchMissing:
    """Stands for a torch name in converted code (which never imports torch): the code that the migration left
    as torch (marked "# migrate: MS9xx") raises ImportError with the marker's reason when it runs."""

    def __init__(self, name, reasons):
        self._name, self._reasons = name, reasons

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("_name", "_reasons"):
            raise AttributeError(attr)
        # a deferred name: only using it raises (a class put in a registry at import is not used)
        reason = self._reasons.get(attr, self._reasons.get("", "left as torch by the migration"))
        return type(self)(f"{self._name}.{attr}", {"": reason})

    def _fail(self, how=""):
        reason = self._reasons.get("", "left as torch by the migration")
        raise ImportError(f"{self._name}{how}: {reason} (converted code does not use torch)")

    def __call__(self, *args, **kwargs):
        self._fail("()")

    def __bool__(self):
        self._fail()
        return False  # (not reached: _fail raises)

    def __iter__(self):
        self._fail()

    def __getitem__(self, key):
        self._fail("[]")

    def __eq__(self, other):
        self._fail()

    __hash__ = object.__hash__

    def __mro_entries__(self, bases):
        stub = self  # a base class: the subclass is defined, and building one raises

        class Missing:
            def __init__(self, *args, **kwargs):
                stub(*args, **kwargs)

        return (Missing,)
