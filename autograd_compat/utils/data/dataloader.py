"""DataLoader and default_collate (single process: batches are built in the calling thread).

Iterating a DataLoader gives a `_SingleProcessDataLoaderIter` (PyTorch's iterator class for
in-process loading, whatever `num_workers` says); `_MultiProcessingDataLoaderIter`, PyTorch's
class for worker processes, exists for isinstance checks and raises if made.
"""

from __future__ import annotations

import collections.abc
import multiprocessing.context
import numbers
from typing import Generic, TypeVar

import jax.numpy as jnp
import numpy as np

from ..._ops.factories import as_tensor, tensor
from ..._pure import device as _device
from ..._pure import dtypes as _dtypes
from ..._state.tensor import Tensor
from ...multiprocessing._context import DEFAULT as _MULTIPROCESSING
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _stack(tensors: list) -> Tensor:
    try:
        from ..._ops.shape import stack
    except ImportError:  # pragma: no cover - the library always has stack
        return Tensor._wrap(jnp.stack([t._value for t in tensors]))
    return stack(tensors, 0)


def default_collate(batch):
    """Merge a list of samples into a batch, as PyTorch's default_collate does.

    Tensors and numpy arrays are stacked, Python floats become a float64 tensor and ints an
    int64 tensor, strings stay a list, and dicts, tuples, namedtuples and lists are collated
    field by field.
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(list(batch))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return as_tensor(np.stack(batch))
    if isinstance(elem, np.generic):
        return as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=_dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return type(elem)([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    if isinstance(elem, numbers.Number):
        return tensor(batch)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """Convert numpy arrays to tensors (recursively); used when batch_size=None."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSUV":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data)
    return data


def get_worker_info():
    """Always None: batches are loaded in the main process."""
    return None


_T_co = TypeVar("_T_co", covariant=True)


class DataLoader(Generic[_T_co]):
    """Iterate over a dataset in (optionally shuffled) batches.

    Args:
        dataset: a Dataset (map-style or iterable).
        batch_size (int or None): samples per batch (None: no batching). Default: 1.
        shuffle (bool): reshuffle every epoch, with `generator` (an autograd_compat.Generator)
            or the global generator.
        sampler, batch_sampler: custom index orders, as in PyTorch.
        collate_fn: merges samples into a batch. Default: `default_collate`.
        drop_last (bool): drop the last incomplete batch.
        num_workers, pin_memory, timeout, worker_init_fn, prefetch_factor, persistent_workers:
            accepted; batches are always built in the main process (the results are the
            same, only loading is not parallel).

    Example::

        >>> x, y = torch.arange(10.0).reshape(5, 2), torch.arange(5)
        >>> loader = DataLoader(TensorDataset(x, y), batch_size=2, shuffle=True,
        ...                     generator=torch.Generator().manual_seed(0))
        >>> for xb, yb in loader:
        ...     print(xb.shape, yb.shape)
        torch.Size([2, 2]) torch.Size([2])
        torch.Size([2, 2]) torch.Size([2])
        torch.Size([1, 2]) torch.Size([1])
    """

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers: int = 0,
        collate_fn=None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.generator = generator
        self.multiprocessing_context = multiprocessing_context
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    f"got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but "
                    f"got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None and not self._iterable:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def multiprocessing_context(self):
        """The multiprocessing context of worker processes (None: the default start method)."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = _MULTIPROCESSING.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method "
                        f"in {methods!r}, but got multiprocessing_context={context!r}"
                    )
                context = _MULTIPROCESSING.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a "
                    f"string specifying the start method, but got "
                    f"multiprocessing_context={context}"
                )
        self._multiprocessing_context = context

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil

                length = (
                    length // self.batch_size if self.drop_last else ceil(length / self.batch_size)
                )
            return length
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def __iter__(self) -> _BaseDataLoaderIter:
        return self._get_iterator()

    def _get_iterator(self) -> _BaseDataLoaderIter:
        return _SingleProcessDataLoaderIter(self)

    def _batches(self):
        """A generator of the batches of one pass."""
        if self._iterable:
            return self._iter_iterable()
        return self._iter_map()

    def _fetch(self, indices: list):
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

    def _iter_map(self):
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self._fetch(list(indices))
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _iter_iterable(self):
        if self.batch_size is None:
            for item in self.dataset:
                yield self.collate_fn(item)
            return
        batch = []
        for item in self.dataset:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)


class _BaseDataLoaderIter:
    """One pass over a DataLoader's batches (PyTorch's base class of its iterators)."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._dataset = loader.dataset
        self._num_workers = loader.num_workers
        self._reset(loader, first_iter=True)

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._batches = loader._batches()
        self._num_yielded = 0

    def _next_data(self):
        return next(self._batches)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self) -> int:
        return len(self._loader)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """The iterator of a DataLoader: batches are built in this process."""


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """PyTorch's iterator over worker processes; loading here is always in-process."""

    def __init__(self, loader: DataLoader) -> None:
        raise NotImplementedError(
            "torch.utils.data.dataloader._MultiProcessingDataLoaderIter: autograd_compat's "
            "DataLoader builds batches in the main process (its iterator is "
            "_SingleProcessDataLoaderIter, whatever num_workers is)"
        )
