"""migrate: convert PyTorch code to ms_core / MindSpore code.

The library entry point is :func:`convert_source`; :func:`migrate.project.convert_path` converts
files and directories; the ``migrate`` command (``cli.py``) is a thin layer over both.
"""
from migrate.changes import Change, ConvertResult
from migrate.convert import Converter, convert_source

__all__ = ["Change", "ConvertResult", "Converter", "convert_source"]
