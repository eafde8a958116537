"""PIL stand-in (bench only; see bench/standins_libs/README.md): importable, no image can be opened."""
from . import Image  # noqa: F401
