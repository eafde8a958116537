"""torchvision.datasets.utils (bench stand-in): importable; downloading and archive checks raise,
argument checks behave as torchvision documents."""


def download_file_from_google_drive(*args, **kwargs):
    raise RuntimeError("the bench stand-in downloads nothing")


def download_url(*args, **kwargs):
    raise RuntimeError("the bench stand-in downloads nothing")


def check_integrity(fpath, md5=None):
    import os
    return os.path.isfile(fpath) and md5 is None


def iterable_to_str(iterable):
    return "'" + "', '".join(str(item) for item in iterable) + "'"


def verify_str_arg(value, arg=None, valid_values=None, custom_msg=None):
    if valid_values is not None and value not in valid_values:
        raise ValueError(custom_msg or f"Unknown value '{value}' for argument {arg}. "
                         f"Valid values are {{{iterable_to_str(valid_values)}}}.")
    return value
