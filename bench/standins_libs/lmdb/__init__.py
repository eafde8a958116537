"""lmdb stand-in (bench only; see bench/standins_libs/README.md): importable, no database opens."""


def open(*args, **kwargs):  # noqa: A001 (lmdb's own name)
    raise RuntimeError("lmdb is a bench stand-in here: no database can be opened")
