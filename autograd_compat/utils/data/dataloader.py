"""DataLoader: iterate over a dataset in batches, built in this process (num_workers=0) or in
worker processes (`_MultiProcessingDataLoaderIter`).

Workers are started with a start method safe with JAX's threads (spawn by default, or the
DataLoader's `multiprocessing_context`; fork is refused), each with its own copy of the
dataset; batches come back pickled (tensors as numpy copies, see
`multiprocessing.reductions`) and are yielded in sampler order.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing.context
import os
import queue
import warnings
from typing import Any, Generic, TypeVar

from ... import accelerator
from ..._ops.factories import empty
from ..._pure import dtypes as _dtypes
from ..._state.random import default_generator
from ...multiprocessing._context import DEFAULT as _MULTIPROCESSING
from ._utils import MP_STATUS_CHECK_INTERVAL
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import MapDatasetFetcher
from ._utils.worker import (
    ExceptionWrapper,
    IterableDatasetStopIteration,
    ResumeIteration,
    WorkerConfig,
    get_worker_info,
    worker_loop,
)
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

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
        num_workers (int): worker processes that build batches (0: build them here).
        worker_init_fn: called as `worker_init_fn(worker_id)` in each worker after seeding.
        multiprocessing_context: start method (name or context) of the workers; spawn by
            default, fork is refused.
        prefetch_factor (int): batches in flight per worker. Default: 2 with workers.
        persistent_workers (bool): keep the workers alive between epochs.
        timeout (float): seconds to wait for a worker's batch (0: forever).
        pin_memory (bool): accepted; no accelerator memory to pin here (a warning says so).

    Example::

        >>> x, y = torch.arange(10.0).reshape(5, 2), torch.arange(5)
        >>> dataset = torch.utils.data.TensorDataset(x, y)
        >>> loader = DataLoader(dataset, batch_size=2, shuffle=True,
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
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self._iterator: _BaseDataLoaderIter | None = None
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
        self.check_worker_number_rationality()

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
                length = (
                    length // self.batch_size
                    if self.drop_last
                    else math.ceil(length / self.batch_size)
                )
            return length
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def __iter__(self) -> _BaseDataLoaderIter:
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        if self._iterator is None:
            self._iterator = self._get_iterator()
        else:
            self._iterator._reset(self)
        return self._iterator

    def _get_iterator(self) -> _BaseDataLoaderIter:
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def check_worker_number_rationality(self) -> None:
        """Warn when num_workers is more than the CPUs this process may use."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        cpus = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            suggestion = (
                "DataLoader is not able to compute a suggested max number of worker in "
                "current system."
            )
        else:
            unchecked = "" if cpuset_checked else " (`cpuset` is not taken into account)"
            suggestion = (
                f"Our suggested max number of worker in current system is {cpus}{unchecked}, "
                "which is smaller than what this DataLoader is going to create."
            )
        warnings.warn(
            f"This DataLoader will create {self.num_workers} worker processes in total. "
            f"{suggestion} Please be aware that excessive worker creation might get DataLoader "
            "running slow or even freeze, lower the worker number to avoid potential "
            "slowness/freeze if necessary.",
            stacklevel=2,
        )

    @property
    def _index_sampler(self):
        """What one task of a pass is made of: a batch of indices, an index, or (iterable
        dataset) a list of `batch_size` Nones or None, one item per entry."""
        if self._iterable:
            task = [None] * self.batch_size if self.batch_size is not None else None
            return itertools.repeat(task)
        return self.batch_sampler if self._auto_collation else self.sampler

    def _batches(self):
        """A generator of the batches of one pass in this process."""
        if self._iterable:
            return self._iter_iterable()
        fetcher = MapDatasetFetcher(self.dataset, self._auto_collation, self.collate_fn)
        return (fetcher.fetch(index) for index in self._index_sampler)

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
    """The iterator of a DataLoader with num_workers=0: batches are built in this process."""

    def __init__(self, loader: DataLoader) -> None:
        self._base_seed = _base_seed(loader.generator)  # drawn without workers too, as PyTorch
        super().__init__(loader)


_NO_ACCELERATOR_PIN = (
    "'pin_memory' argument is set as true but no accelerator is found, then device pinned "
    "memory won't be used."
)


def _worker_context(context) -> multiprocessing.context.BaseContext:
    """The context to start workers with: torch.multiprocessing's for the same start method
    (a torch-aliased parent gets aliased workers; fork raises), the default (spawn) if None."""
    if context is None:
        return _MULTIPROCESSING.get_context()
    return _MULTIPROCESSING.get_context(context.get_start_method())


@contextlib.contextmanager
def _cpu_only_children():
    """Start processes with JAX on the CPU only (`JAX_PLATFORMS=cpu` in their environment): a
    worker builds host batches and must not take accelerator memory (JAX claims most of a
    GPU's memory in each process that starts its GPU backend)."""
    saved = os.environ.get(_JAX_PLATFORMS)
    os.environ[_JAX_PLATFORMS] = "cpu"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[_JAX_PLATFORMS]
        else:
            os.environ[_JAX_PLATFORMS] = saved


_JAX_PLATFORMS = "JAX_PLATFORMS"


def _base_seed(generator) -> int:
    """The pass's base seed, as PyTorch draws it for every iterator (with workers or not):
    `random_()` of an int64 from `generator` (the global one if None), before the sampler
    draws, so that a seeded pass shuffles as PyTorch's does."""
    source = default_generator if generator is None else generator
    return empty((), dtype=_dtypes.int64).random_(generator=source).item()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """The iterator of a DataLoader with workers: it starts `num_workers` processes, deals
    tasks (index batches, in sampler order) to them round-robin, `prefetch_factor` per worker
    in flight, and yields their batches in task order. Workers are shut down when the pass
    ends (unless persistent), when the iterator is deleted, or at exit. With
    `in_order=False` a batch is yielded as soon as it arrives, and a worker gets a task only
    while it has fewer than its share of those in flight."""

    def __init__(self, loader: DataLoader) -> None:
        self._shutdown = True  # nothing to shut down until the workers exist
        if loader.pin_memory and not accelerator.is_available():
            warnings.warn(_NO_ACCELERATOR_PIN, stacklevel=3)
        self._timeout = loader.timeout
        self._prefetch_factor = loader.prefetch_factor
        self._persistent_workers = loader.persistent_workers
        self._in_flight = loader.prefetch_factor * loader.num_workers
        self._in_order = loader.in_order
        self._base_seed = base_seed = _base_seed(loader.generator)
        context = _worker_context(loader.multiprocessing_context)
        self._worker_result_queue = context.Queue()
        self._workers_done_event = context.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        self._workers_status = [True] * loader.num_workers
        self._shutdown = False
        for worker_id in range(loader.num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            config = WorkerConfig(
                dataset=loader.dataset,
                iterable=loader._iterable,
                auto_collation=loader._auto_collation,
                collate_fn=loader.collate_fn,
                drop_last=loader.drop_last,
                base_seed=base_seed,
                init_fn=loader.worker_init_fn,
                worker_id=worker_id,
                num_workers=loader.num_workers,
            )
            worker = context.Process(  # type: ignore[attr-defined]
                target=worker_loop,
                args=(config, index_queue, self._worker_result_queue, self._workers_done_event),
                daemon=True,
            )
            with _cpu_only_children():
                worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        super().__init__(loader)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(loader._index_sampler)
        self._num_yielded = 0
        self._send_idx = 0  # the next task's number
        self._rcvd_idx = 0  # the number of the next task to yield
        self._task_worker: dict[int, int] = {}  # task number -> its worker, until yielded
        self._worker_tasks = [0] * self._num_workers  # tasks in flight per worker
        self._arrived: dict[int, Any] = {}  # batches that came before their turn
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            waiting = self._num_workers
            while waiting:  # results of the last pass still on their way are dropped
                if isinstance(self._get_data()[0], ResumeIteration):
                    waiting -= 1
        for _ in range(self._in_flight):
            self._try_put_index()

    def _try_put_index(self) -> None:
        """Send the sampler's next task to the next live worker in turn."""
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        share = self._in_flight // max(1, sum(self._workers_status))
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id] and (
                self._in_order or self._worker_tasks[worker_id] < share
            ):
                break
        else:
            return  # every worker's dataset is exhausted
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_worker[self._send_idx] = worker_id
        self._worker_tasks[worker_id] += 1
        self._send_idx += 1

    def _try_get_data(self, timeout: float = MP_STATUS_CHECK_INTERVAL):
        """(True, result) or (False, None) after `timeout` seconds; raise if a worker died."""
        try:
            return True, self._worker_result_queue.get(timeout=timeout)
        except queue.Empty:
            failed = [
                worker
                for worker_id, worker in enumerate(self._workers)
                if self._workers_status[worker_id] and not worker.is_alive()
            ]
            if failed:
                for worker_id, worker in enumerate(self._workers):
                    if worker in failed:
                        self._mark_worker_as_unavailable(worker_id)
                pids = ", ".join(str(worker.pid) for worker in failed)
                raise RuntimeError(
                    f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                ) from None
            return False, None

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:  # skip tasks yielded or of exhausted workers
                worker_id = self._task_worker.get(self._rcvd_idx)
                if worker_id is not None:
                    if self._rcvd_idx in self._arrived or self._workers_status[worker_id]:
                        break
                    del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if self._rcvd_idx in self._arrived:
                return self._process_data(self._rcvd_idx, self._arrived.pop(self._rcvd_idx))
            index, data = self._get_data()
            if isinstance(data, IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
            elif index == self._rcvd_idx or (not self._in_order and index in self._task_worker):
                return self._process_data(index, data)
            elif index in self._task_worker:
                self._arrived[index] = data

    def _process_data(self, index: int, data):
        """Yield task `index`'s batch (or raise its worker's exception); send the next task."""
        self._worker_tasks[self._task_worker.pop(index)] -= 1
        if index == self._rcvd_idx:
            self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int) -> None:
        """Tell a worker to stop (None on its queue); it gets no more tasks."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        """Stop every worker: signal, ask each to stop, wait a moment, then terminate."""
        if self._shutdown:
            return
        self._shutdown = True
        self._workers_done_event.set()
        for worker_id in range(len(self._workers)):
            if self._persistent_workers or self._workers_status[worker_id]:
                self._mark_worker_as_unavailable(worker_id)
        for worker in self._workers:
            worker.join(timeout=MP_STATUS_CHECK_INTERVAL)
        for index_queue in self._index_queues:
            index_queue.cancel_join_thread()
            index_queue.close()
        self._worker_result_queue.cancel_join_thread()
        self._worker_result_queue.close()
        for worker in self._workers:
            if worker.is_alive():
                worker.terminate()
                worker.join()

    def __del__(self) -> None:
        self._shutdown_workers()
