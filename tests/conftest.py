import os
import sys

# tests import their shared helpers (optest) by module name
sys.path.insert(0, os.path.dirname(__file__))
