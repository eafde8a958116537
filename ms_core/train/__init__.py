"""Training helpers: checkpoints."""
from .serialization import *  # noqa: F401,F403
