"""Samplers: the order in which a DataLoader visits a dataset."""

from __future__ import annotations

from typing import Generic, TypeVar

from ..._ops.factories import as_tensor, empty
from ..._ops.random import host_generator, randint
from ..._ops.sampling import multinomial
from ..._pure import dtypes as _dtypes
from ..._state import draws
from ..._state.random import Generator
from ...nn import _arrays

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]

# RandomSampler with replacement draws this many indices at a time, as PyTorch does: the
# sampler is a lazy iterator, so num_samples=10**10 costs nothing until it is iterated.
_CHUNK = 32
_T_co = TypeVar("_T_co", covariant=True)


def _permutation(n: int, generator=None) -> list:
    """`torch.randperm(n, generator=generator).tolist()`: PyTorch's permutation, drawn on the
    host (nothing compiled per dataset size); numpy's, seeded from the generator, in a trace
    or on an accelerator."""
    if n == 0:
        return []
    g = host_generator(generator)
    if g is None:
        return _arrays.rng(generator).permutation(int(n)).tolist()
    return draws.randperm(g, int(n)).tolist()


def _sampler_generator(generator) -> Generator:
    """`generator`, or (None) a new one seeded by a 64-bit draw from the global generator,
    as PyTorch's RandomSampler makes at each pass."""
    if generator is not None:
        return generator
    seed = empty((), dtype=_dtypes.int64).random_().item()
    return Generator().manual_seed(seed)


class Sampler(Generic[_T_co]):
    """Base class: an iterable of dataset indices."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Indices 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random permutation of the indices (or `num_samples` draws with replacement)."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = _sampler_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // _CHUNK):
                yield from randint(high=n, size=(_CHUNK,), generator=generator).tolist()
            rest = self.num_samples % _CHUNK
            yield from randint(high=n, size=(rest,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _permutation(n, generator)
        yield from _permutation(n, generator)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a random order."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _permutation(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices of `range(len(weights))` drawn with probabilities proportional to
    `weights` (with replacement by default), through `torch.multinomial`."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = as_tensor(weights, dtype=_dtypes.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                "weights should be a 1d sequence but given "
                f"weights have shape {tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Group the indices of `sampler` into lists of `batch_size` (the last may be short)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
