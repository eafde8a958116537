"""`ms_core.dataset`: MindSpore's data pipelines (`mindspore.dataset`) on NumPy.

    import ms_core.dataset as ds
    dataset = ds.GeneratorDataset(source, column_names=["image", "label"], shuffle=True)
    dataset = dataset.map(ds.transforms.TypeCast(ms.int32), input_columns="label").batch(32)
    for image, label in dataset.create_tuple_iterator():
        ...

Pipelines run lazily in the calling thread; `num_parallel_workers` is accepted and ignored.
"""
from . import config, samplers, transforms, vision  # noqa: F401
from .datasets import (Dataset, GeneratorDataset, NumpySlicesDataset, BatchInfo,  # noqa: F401
                       BatchDataset, MapDataset, ShuffleDataset, RepeatDataset, ConcatDataset,
                       ZipDataset, zip)
from .datasets_vision import (MnistDataset, FashionMnistDataset, KMnistDataset,  # noqa: F401
                              FakeImageDataset)
from .samplers import (Sampler, BuiltinSampler, SequentialSampler, RandomSampler,  # noqa: F401
                       DistributedSampler, SubsetSampler, SubsetRandomSampler,
                       WeightedRandomSampler)

__all__ = ["config", "transforms", "vision", "Dataset", "GeneratorDataset", "NumpySlicesDataset", "BatchInfo",
           "zip", "MnistDataset", "FashionMnistDataset", "KMnistDataset", "FakeImageDataset",
           "Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler", "SubsetSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]
