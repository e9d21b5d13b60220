"""Fetchers: turn what the sampler gives (an index, a list of indices, or for an iterable
dataset how many items to take) into a collated batch. The main process (num_workers=0) and
every worker process fetch the same way."""

from __future__ import annotations

import numpy as np

from ...._pure import device as _device
from ...._state.tensor import Tensor
from ..dataset import TensorDataset
from .collate import default_collate


class MapDatasetFetcher:
    """Index a map-style dataset: `dataset[i]` per index (or `__getitems__`), then collate."""

    def __init__(self, dataset, auto_collation: bool, collate_fn) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        return self._fetch_batch(list(index))

    def _fetch_batch(self, indices: list):
        dataset = self.dataset
        if type(dataset) is TensorDataset and self.collate_fn is default_collate:
            # One gather per tensor instead of one index per sample; same values as collating.
            index = Tensor._wrap(_device.host_to_device(np.asarray(indices, dtype=np.int64)))
            return [t[index] for t in dataset.tensors]
        if callable(getattr(dataset, "__getitems__", None)):
            data = dataset.__getitems__(indices)
        else:
            data = [dataset[i] for i in indices]
        return self.collate_fn(data)


class IterableDatasetFetcher:
    """Take the next item (or the next `len(index)` items, collated) of an iterable dataset's
    iterator; StopIteration once it is exhausted (or, with drop_last, short)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for _ in index:
            try:
                data.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)
