"""matplotlib.pyplot stand-in: every function does nothing and returns None."""


def __getattr__(name):
    def nothing(*args, **kwargs):
        return None
    return nothing
