import os
import sys

# Test modules import the shared helpers (optest) by module name. Appended, not prepended:
# tests/ms_core must never shadow the real ms_core package.
_here = os.path.dirname(__file__)
if _here not in sys.path:
    sys.path.append(_here)
