"""matplotlib stand-in (bench only; see bench/standins_libs/README.md): plots nothing."""


def use(backend, *args, **kwargs):
    pass
