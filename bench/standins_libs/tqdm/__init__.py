"""tqdm stand-in (bench only; see bench/standins_libs/README.md): iterates, prints nothing."""


class tqdm:
    def __init__(self, iterable=None, *args, total=None, **kwargs):
        self.iterable = iterable
        self.total = total

    def __iter__(self):
        return iter(self.iterable)

    def __len__(self):
        return len(self.iterable) if self.iterable is not None else int(self.total or 0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def set_postfix(self, *args, **kwargs):
        pass

    def set_description(self, *args, **kwargs):
        pass

    def update(self, n=1):
        pass

    def close(self):
        pass

    @staticmethod
    def write(text, *args, **kwargs):
        print(text)


def trange(*args, **kwargs):
    return tqdm(range(*args), **kwargs)
