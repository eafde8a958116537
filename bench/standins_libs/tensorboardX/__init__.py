"""tensorboardX stand-in (bench only; see bench/standins_libs/README.md): scalars to a CSV."""
import os


class SummaryWriter:
    def __init__(self, logdir=None, *args, **kwargs):
        self.path = os.path.join(logdir or "runs", "scalars.csv")
        os.makedirs(os.path.dirname(self.path), exist_ok=True)

    def add_scalar(self, tag, value, step=None, *args, **kwargs):
        with open(self.path, "a") as f:
            f.write(f"{tag},{step},{float(value)}\n")

    def add_image(self, *args, **kwargs):
        pass

    def flush(self):
        pass

    def close(self):
        pass
