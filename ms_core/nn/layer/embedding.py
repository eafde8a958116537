"""nn.Embedding with MindSpore 2.x arguments."""
import numpy as np

from ..cell import Cell
from ..._checkparam import check_bool, check_positive_int
from ...common import dtype as mstype
from ...common.initializer import initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops import functional as F

__all__ = ["Embedding"]


class Embedding(Cell):
    """A lookup table: output[..., :] = embedding_table[ids[...]], shape ids.shape +
    (embedding_size,).

    MindSpore-vs-torch: the Parameter is `embedding_table` (torch: `weight`); the default
    initialiser 'normal' is N(0, 0.01²) (torch: N(0, 1)); `padding_idx` only zeroes that row at
    initialisation — unlike torch, its gradient is not masked, so training can move it.
    `use_one_hot=True` computes one_hot(ids) @ table (same values and gradients).

    Example:
        >>> emb = nn.Embedding(10, 4, padding_idx=0)
        >>> emb(Tensor(np.array([[0, 3]]), ms.int32)).shape
        (1, 2, 4)
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.int32, padding_idx=None):
        super().__init__()
        vocab_size = check_positive_int("Embedding", "vocab_size", vocab_size)
        embedding_size = check_positive_int("Embedding", "embedding_size", embedding_size)
        check_bool("Embedding", "use_one_hot", use_one_hot)
        if padding_idx is not None and (isinstance(padding_idx, bool) or
                                        not isinstance(padding_idx, int) or
                                        not 0 <= padding_idx < vocab_size):
            raise ValueError(f"For 'Embedding', the 'padding_idx' must be an int in range [0, "
                             f"{vocab_size}), but got {padding_idx!r}.")
        self.vocab_size = vocab_size
        self.embedding_size = embedding_size
        self.use_one_hot = use_one_hot
        self.dtype = dtype
        self.padding_idx = padding_idx
        table = initializer(embedding_table, (vocab_size, embedding_size), mstype.float32).init_data()
        if padding_idx is not None:
            arr = np.array(table._data, copy=True)
            arr[padding_idx] = 0
            table = Tensor._wrap(arr)
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if not isinstance(ids, Tensor):
            raise TypeError(f"For 'Embedding', the input must be a Tensor, but got "
                            f"{type(ids).__name__}.")
        if ids._data.dtype.kind not in "iu":
            raise TypeError(f"For 'Embedding', the input ids must be an integer Tensor, but got "
                            f"{ids.dtype}.")
        idx = ids._data.reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.vocab_size):
            bad = idx[(idx < 0) | (idx >= self.vocab_size)][0]
            raise ValueError(f"For 'Embedding', every id must be in [0, {self.vocab_size}), but "
                             f"got {bad}.")
        if self.use_one_hot:
            one_hot = F.one_hot(Tensor._wrap(idx), self.vocab_size)
            flat = F.matmul(one_hot, self.embedding_table)
        else:
            flat = F.gather(self.embedding_table, Tensor._wrap(idx), 0)
        return F.reshape(flat, tuple(ids.shape) + (self.embedding_size,))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table!r}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")
