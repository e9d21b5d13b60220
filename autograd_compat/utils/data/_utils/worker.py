"""What runs in a DataLoader worker process: `worker_loop` (seed, `worker_init_fn`, then
fetch the batches it is sent until told to stop) and `get_worker_info`, the worker's
WorkerInfo (None in the main process)."""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ...._state.random import manual_seed
from .fetch import IterableDatasetFetcher, MapDatasetFetcher

__all__ = ["WorkerInfo", "get_worker_info"]

_POLL_SECONDS = 0.25
"""How often an idle worker checks the done event and its parent. The None sent to stop it
can be lost: when the main process's iterator is freed as part of a reference cycle, its
queue's feeder thread is finalized before the iterator shuts its workers down."""


class WorkerInfo:
    """The identity of a worker process: `id`, `num_workers`, `seed` and its copy of
    `dataset`. Read-only once made."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    _keys: tuple[str, ...]

    def __init__(self, **kwargs) -> None:
        for name, value in kwargs.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_keys", tuple(kwargs))

    def __setattr__(self, name: str, value) -> None:
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in self._keys)
        return f"{type(self).__name__}({fields})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process, its WorkerInfo; in the main process, None.

    An IterableDataset uses it in `__iter__` to give each worker its own share of the data
    (every worker iterates its own copy of the dataset)."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, sent to the main process as its type and traceback
    text; `reraise` raises it there as PyTorch does ("Caught ValueError in DataLoader worker
    process 0.\\nOriginal Traceback (most recent call last): ...")."""

    def __init__(self, where: str) -> None:
        exc_type, value, trace = sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, value, trace))
        self.where = where

    def reraise(self):
        assert self.exc_type is not None
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            raise KeyError(_KeyErrorMessage(message))
        if getattr(self.exc_type, "message", None):
            raise self.exc_type(message=message)
        try:
            exception = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise exception


class _KeyErrorMessage(str):
    """A KeyError's text shown as it is (KeyError shows the repr of its argument)."""

    def __repr__(self) -> str:
        return str(self)


class ResumeIteration(NamedTuple):
    """Sent to a persistent worker at the start of an epoch: start the dataset over."""


class IterableDatasetStopIteration(NamedTuple):
    """A worker's reply once its copy of an IterableDataset is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker process is started with."""

    dataset: Any
    iterable: bool
    auto_collation: bool
    collate_fn: Any
    drop_last: bool
    base_seed: int
    init_fn: Any
    worker_id: int
    num_workers: int


def _seed(seed: int, base_seed: int, worker_id: int) -> None:
    """Seed Python's, this library's and numpy's generators as PyTorch seeds a worker's."""
    random.seed(seed)
    manual_seed(seed)
    words = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    np.random.seed(np.random.SeedSequence(words).generate_state(4))


def _fetcher(config: WorkerConfig, where: str):
    """The worker's fetcher, or the ExceptionWrapper of what raised while making it."""
    try:
        if config.iterable:
            return IterableDatasetFetcher(
                config.dataset, config.auto_collation, config.collate_fn, config.drop_last
            )
        return MapDatasetFetcher(config.dataset, config.auto_collation, config.collate_fn)
    except Exception:
        return ExceptionWrapper(where)


def worker_loop(config: WorkerConfig, index_queue, data_queue, done_event) -> None:
    """A worker process's life: seed, set `get_worker_info()`, run `worker_init_fn`, then
    answer each `(task index, indices)` from `index_queue` with `(task index, batch or
    ExceptionWrapper)` on `data_queue`, until it reads None (or its parent is gone)."""
    global _worker_info
    where = f"in DataLoader worker process {config.worker_id}"
    seed = config.base_seed + config.worker_id
    _seed(seed, config.base_seed, config.worker_id)
    _worker_info = WorkerInfo(
        id=config.worker_id, num_workers=config.num_workers, seed=seed, dataset=config.dataset
    )
    try:
        try:
            if config.init_fn is not None:
                config.init_fn(config.worker_id)
        except Exception:
            fetcher = ExceptionWrapper(where)
        else:
            fetcher = _fetcher(config, where)
        _serve(config, fetcher, index_queue, data_queue, done_event, where)
    except KeyboardInterrupt:
        pass  # the main process is ending
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


def _serve(config: WorkerConfig, fetcher, index_queue, data_queue, done_event, where) -> None:
    """Answer tasks until told to stop. `fetcher` is an ExceptionWrapper when setting up
    failed: it is the answer to every task."""
    parent = os.getppid()
    ended = False
    while True:
        try:
            task = index_queue.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            if done_event.is_set() or os.getppid() != parent:
                return  # shut down, or the main process died
            continue
        if task is None:
            return
        if isinstance(task, ResumeIteration):
            data_queue.put((task, None))
            ended, fetcher = False, _fetcher(config, where)
            continue
        if done_event.is_set() or ended:
            continue
        index, indices = task
        data: Any
        if isinstance(fetcher, ExceptionWrapper):
            data = fetcher
        else:
            try:
                data = fetcher.fetch(indices)
            except StopIteration:
                if not config.iterable:
                    data = ExceptionWrapper(where)
                else:
                    data, ended = IterableDatasetStopIteration(config.worker_id), True
            except Exception:
                data = ExceptionWrapper(where)
        data_queue.put((index, data))
