"""PIL.Image stand-in: importable; opening or converting an image raises."""


class Image:
    pass


def open(*args, **kwargs):  # noqa: A001 (PIL's own name)
    raise RuntimeError("PIL is a bench stand-in here: no image can be opened")


def fromarray(*args, **kwargs):
    raise RuntimeError("PIL is a bench stand-in here: no image can be made")
