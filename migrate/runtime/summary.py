"""torch.utils.tensorboard's ``SummaryWriter`` where no TensorBoard writer is: its scalars and
text as plain files.

MindSpore's ``SummaryRecord`` writes MindInsight's format through another protocol (values are
collected by ``add_value`` and written by ``record(step)``), and TensorBoard's event files need
TensorBoard. What a training script logs is kept, in files anybody reads: ``add_scalar`` and
``add_scalars`` append ``tag,step,value,walltime`` lines to ``<log_dir>/scalars.csv``,
``add_text`` to ``<log_dir>/text.csv``. What has no plain-file form (images, histograms, graphs,
embeddings, audio) raises a NotImplementedError naming the method: never dropped silently.
"""
import csv
import os
import time
from datetime import datetime

from .backend import ms


def _number(value) -> float:
    """A scalar as torch's add_scalar takes it: a number, a one-element Tensor or array."""
    if isinstance(value, ms.Tensor):
        value = value.asnumpy()
    return float(getattr(value, "item", lambda: value)())


class TorchSummaryWriter:
    """``SummaryWriter(log_dir=None, comment='', purge_step=None, max_queue=10, flush_secs=120,
    filename_suffix='')`` writing scalars to ``<log_dir>/scalars.csv`` and text to
    ``<log_dir>/text.csv`` (torch's default log_dir: ``runs/<date>_<host><comment>``).

    Example:
        >>> writer = TorchSummaryWriter(log_dir="out")
        >>> writer.add_scalar("Loss/train", 0.5, 1)
        >>> writer.close()
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{os.uname().nodename}{comment}")
        self.log_dir = str(log_dir)
        os.makedirs(self.log_dir, exist_ok=True)
        self._files = {}

    def get_logdir(self):
        return self.log_dir

    def _write(self, name, row):
        f = self._files.get(name)
        if f is None:
            f = self._files[name] = open(os.path.join(self.log_dir, name), "a", newline="")
        csv.writer(f).writerow(row)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._write("scalars.csv", [tag, global_step, repr(_number(scalar_value)),
                                    time.time() if walltime is None else walltime])

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        for tag, value in tag_scalar_dict.items():
            self.add_scalar(f"{main_tag}/{tag}", value, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._write("text.csv", [tag, global_step, text_string, time.time() if walltime is None else walltime])

    def __getattr__(self, name):
        if name.startswith("add_"):
            raise NotImplementedError(f"For 'SummaryWriter', '{name}' has no plain-file form: the converted "
                                      f"writer keeps scalars and text only (log what {name} shows as "
                                      f"scalars, or write it with MindSpore's SummaryRecord).")
        raise AttributeError(f"'SummaryWriter' object has no attribute '{name}'")

    def flush(self):
        for f in self._files.values():
            f.flush()

    def close(self):
        for f in self._files.values():
            f.close()
        self._files = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
