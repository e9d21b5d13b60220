"""Datasets: Dataset, TensorDataset, Subset, ConcatDataset, IterableDataset, random_split."""

from __future__ import annotations

import bisect
import math
import warnings
from collections.abc import Iterable, Sized
from typing import Generic, TypeVar, cast

from ..._state.tensor import Tensor
from .sampler import _permutation

__all__ = [
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """An indexable collection of samples: subclasses define __getitem__ (and __len__)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """A dataset that is a stream of samples: subclasses define __iter__."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        raise TypeError("ChainDataset is not yet supported by autograd_compat")


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are tuples of the tensors' rows: `dataset[i] == (t[i] for t in tensors)`.

    All tensors must have the same first dimension.

    Example::

        >>> ds = TensorDataset(torch.randn(10, 3), torch.arange(10))
        >>> x, y = ds[0]
    """

    def __init__(self, *tensors: Tensor) -> None:
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset expects Tensors, but got {type(t).__name__}")
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[_T_co]):
    """The samples of `dataset` at `indices`."""

    def __init__(self, dataset: Dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[_T_co]):
    """Several datasets one after the other."""

    @staticmethod
    def cumsum(sequence) -> list:
        r, s = [], 0
        for e in sequence:
            length = len(e)
            r.append(length + s)
            s += length
        return r

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


def random_split(dataset: Dataset, lengths, generator=None) -> list:
    """Split `dataset` into non-overlapping random subsets of the given lengths (or fractions).

    The permutation comes from `generator` (an autograd_compat.Generator; the global one by
    default), so a seeded generator gives the same split every run.
    """
    sized = cast(Sized, dataset)  # a map-style Dataset has __len__; the base does not declare it
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(sized) * frac))
        remainder = len(sized) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
    if sum(lengths) != len(sized):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _permutation(sum(lengths), generator)
    result: list[Subset] = []
    offset = 0
    for length in lengths:
        offset += length
        result.append(Subset(dataset, indices[offset - length : offset]))
    return result
