import os
import sys

# Test modules import the shared helpers (optest) by module name. Appended, not prepended:
# tests/ms_core must never shadow the real ms_core package.
_here = os.path.dirname(__file__)
if _here not in sys.path:
    sys.path.append(_here)

# Converted code imports the runtime's names by the name a converted tree gives its copy
# (`from migrate_runtime import TorchConv2d`): in the tests it is this repository's runtime, on
# ms_core (tests of a written copy write one: migrate.convert.runtime_files.write_runtime).
import migrate.runtime  # noqa: E402

sys.modules.setdefault("migrate_runtime", migrate.runtime)
